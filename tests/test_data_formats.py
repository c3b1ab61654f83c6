"""The issue-16 readers (certirank.data.formats): fixtures written here, happy paths and error paths."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import certirank
from certirank.errors import DataError, ParameterError

# ----------------------------------------------------------------------------------------------- fixtures


def robot_lists(path: Path, seed: int = 0) -> Path:
    """Panel,Task,Method,Success/Failure,Notes: 3 methods x 2 panels x 3 tasks, unequal lists, one stray quote."""
    rng = np.random.default_rng(seed)
    lines = ["Panel,Task,Method,Success/Failure,Notes"]
    for panel in (1, 2):
        for task in ("stack cups", "open drawer", "wipe table"):
            for m, p in (("pi0", 0.3), ("ours", 0.8), ("act", 0.5)):
                n = int(rng.integers(6, 12))
                outs = ", ".join("True" if rng.random() < p else "False" for _ in range(n))
                lines.append(f'{panel},{task},{m},"[{outs}]",')
    lines[5] = lines[5].replace("]\"", "]\"\"")  # the stray quote after one list
    path.write_text("\n".join(lines) + "\n")
    return path


def test_outcome_lists_load(tmp_path):
    f = robot_lists(tmp_path / "robot.csv")
    t = certirank.load(f)
    assert t.attrs["format"] == "outcome-lists"
    assert set(t["policy"]) == {"pi0", "ours", "act"}
    assert {"Panel", "Task", "rollout"} <= set(t.columns)
    assert t.groupby(["Panel", "Task"]).ngroups == 6
    # row 2 of the file: its list length equals the number of rows of that (panel, task, method)
    first = f.read_text().splitlines()[1]
    n = first.count("True") + first.count("False")
    assert ((t["Panel"] == "1") & (t["Task"] == "stack cups") & (t["policy"] == "pi0")).sum() == n
    notes = " ".join(t.attrs["notes"])
    assert "stray quote" in notes and "'Notes'" in notes


def test_outcome_lists_unquoted_stray_quote(tmp_path):
    f = tmp_path / "q.csv"
    f.write_text('Task,Method,Outcomes,Notes\na,x,[True, False]",n\na,y,"[False, False]",\n')
    t = certirank.load(f)
    assert list(t.loc[t.policy == "x", "score"]) == [1.0, 0.0]
    assert "line(s) 2" in " ".join(t.attrs["notes"])


def test_outcome_lists_literals_and_numbers(tmp_path):
    f = tmp_path / "n.csv"
    f.write_text('task,policy,outcomes\na,x,"[0, 1, 0.5]"\na,y,"[1, 1]"\n')
    t = certirank.load(f)
    assert list(t.loc[t.policy == "x", "score"]) == [0.0, 1.0, 0.5]
    assert list(t.loc[t.policy == "x", "env"]) == ["a#0", "a#1", "a#2"]


@pytest.mark.parametrize("text, msg", [
    ('Panel,Method,Success\n1,x,"[True, maybe]"\n', "'maybe'"),
    ('Panel,Method,Success\n1,x,"[True]"\n1,x,"[False]"\n', "second row"),
    ('Panel,Who,Success\n1,x,"[True]"\n', "no policy column"),
    ('Panel,Method,Success\n1,x,"[True]"\n1,y,oops\n', "not an outcome list"),
    ('Panel,Method,Success\n1,x,"[True]"\n1,y,"[True]"\n1,z,"[False, True,\n', "row 4.*not closed"),
])
def test_outcome_lists_errors(tmp_path, text, msg):
    f = tmp_path / "bad.csv"
    f.write_text(text)
    with pytest.raises(DataError, match=msg) as e:
        certirank.load(f, format="outcome-lists")
    assert str(f) in str(e.value)


def policy_folder(root: Path) -> Path:
    root.mkdir()
    rng = np.random.default_rng(1)
    for pol, p in (("alpha", 0.2), ("beta", 0.7), ("gamma", 0.5)):
        lines = ["env,trial #,success,avg,,notes,notes"]
        for env in ("kitchen", "office"):
            for trial in range(1, 6):
                lines.append(f"{env},{trial},{int(rng.random() < p)},,,\"free, text\",x")
        lines.append(",,,0.5,,,")  # a summary row
        (root / f"{pol}.csv").write_text("\n".join(lines) + "\n")
    return root


def test_folder_load(tmp_path):
    d = policy_folder(tmp_path / "runs")
    t = certirank.load(d, **{"trial": "trial #", "score": "success"})
    assert t.attrs["format"] == "folder"
    assert sorted(set(t["policy"])) == ["alpha", "beta", "gamma"]
    assert len(t) == 30
    assert set(t["env"]) == {f"{e}#{i}" for e in ("kitchen", "office") for i in range(1, 6)}
    notes = " ".join(t.attrs["notes"])
    assert "'avg'" in notes and "no name" in notes and "repeats" in notes and "blank score dropped" in notes


def test_folder_needs_trial_when_env_repeats(tmp_path):
    d = tmp_path / "runs"
    d.mkdir()
    (d / "a.csv").write_text("env,success\nkitchen,1\nkitchen,0\n")
    with pytest.raises(DataError, match="a.csv, row 3.*'kitchen' repeats.*trial=COLUMN"):
        certirank.load(d, format="folder")


def test_folder_errors(tmp_path):
    d = policy_folder(tmp_path / "runs")
    with pytest.raises(DataError, match="no column 'points'"):
        certirank.load(d, score="points")
    (d / "alpha.csv").write_text("env,trial #,success\nkitchen,1,great\n")
    with pytest.raises(DataError, match="alpha.csv.*'great' is not a score"):
        certirank.load(d, trial="trial #", score="success")
    with pytest.raises(ParameterError, match="unknown option"):
        certirank.load(d, format="folder", stat="x")


def helm_runs(root: Path, stat_name: str = "exact_match") -> Path:
    rng = np.random.default_rng(2)
    for model, p in (("openai/gpt-a", 0.8), ("meta/llama-b", 0.4)):
        d = root / f"gsm:model={model.replace('/', '_')}"
        d.mkdir(parents=True)
        (d / "run_spec.json").write_text(json.dumps({"name": f"gsm:model={model}", "adapter_spec": {"model": model}}))
        recs = []
        for i in range(20):
            v = float(rng.random() < p)
            recs.append({"instance_id": f"id{i}", "train_trial_index": 0, "stats": [
                {"name": {"name": stat_name, "split": "test"}, "count": 1, "sum": v, "mean": v},
                {"name": {"name": "num_tokens", "split": "test"}, "count": 1, "mean": 120.0},
                {"name": {"name": stat_name, "split": "test",
                          "perturbation": {"name": "typos", "robustness": True}}, "count": 1, "mean": 0.0}]})
        (d / "per_instance_stats.json").write_text(json.dumps(recs))
    return root


def test_helm_load(tmp_path):
    root = helm_runs(tmp_path / "suite")
    t = certirank.load(root)
    assert t.attrs["format"] == "helm"
    assert sorted(set(t["policy"])) == ["meta/llama-b", "openai/gpt-a"]
    assert len(t) == 40 and set(t["env"]) == {f"id{i}" for i in range(20)}
    pert = certirank.load(root, perturbation="typos")
    assert (pert["score"] == 0).all()


def test_helm_errors(tmp_path):
    root = helm_runs(tmp_path / "suite")
    with pytest.raises(DataError, match="no per-instance stat 'f1'.*exact_match") as e:
        certirank.load(root, stat="f1")
    assert "per_instance_stats.json" in str(e.value)
    f = next(root.glob("*/per_instance_stats.json"))
    f.write_text(f.read_text()[:200])
    with pytest.raises(DataError, match="not valid JSON.*truncated"):
        certirank.load(root)
    f.write_text(json.dumps({"instance_id": 1}))
    with pytest.raises(DataError, match="expected a JSON list"):
        certirank.load(root, format="helm")


def arena_file(path: Path, n: int = 60, seed: int = 3) -> Path:
    rng = np.random.default_rng(seed)
    models = ["m-a", "m-b", "m-c"]
    recs = []
    for _ in range(n):
        a, b = rng.choice(models, 2, replace=False)
        w = rng.choice(["model_a", "model_b", "tie", "tie (bothbad)"])
        recs.append({"question_id": "q", "model_a": str(a), "model_b": str(b), "winner": str(w), "tstamp": 1.0})
    path.write_text(json.dumps(recs))
    return path


def test_arena_load_and_tie_mapping(tmp_path):
    f = arena_file(tmp_path / "battles.json")
    t = certirank.load(f)
    assert t.attrs["format"] == "preferences" and t.attrs["reader"] == "arena"
    raw = json.loads(f.read_text())
    ties = sum(r["winner"].startswith("tie") for r in raw)
    assert (t["preference"] == 0.5).sum() == ties
    assert "draw" in t.attrs["mapping"]
    dropped = certirank.load(f, format="arena", bothbad="drop")
    assert len(dropped) == len(raw) - sum(r["winner"] == "tie (bothbad)" for r in raw)
    assert "left out" in dropped.attrs["mapping"]


def test_arena_errors(tmp_path):
    f = tmp_path / "b.json"
    f.write_text(json.dumps([{"model_a": "x", "model_b": "y", "winner": "model_c"}]))
    with pytest.raises(DataError, match="row 1.*neither side"):
        certirank.load(f, format="arena")
    f.write_text(json.dumps([{"model_a": "x", "model_b": "y"}]))
    with pytest.raises(DataError, match="missing field.*'winner'"):
        certirank.load(f, format="arena")
    f.write_text('[{"model_a": "x", "model_b": "y", "winner": "model_a"}, {"model_a"')
    with pytest.raises(DataError, match="not valid JSON"):
        certirank.load(f, format="arena")


def lerobot_runs(root: Path, layout: str) -> Path:
    rng = np.random.default_rng(4)
    for pol, p in (("diffusion", 0.3), ("act", 0.7)):
        d = root / pol
        d.mkdir(parents=True)
        if layout == "per_task":
            info = {"per_task": [{"task_group": "libero_10", "task_id": k, "metrics": {
                "successes": [bool(rng.random() < p) for _ in range(5)], "max_rewards": [1.0] * 5,
                "sum_rewards": [10.0] * 5, "video_paths": []}} for k in range(3)],
                "per_group": {}, "overall": {"pc_success": 50.0}}
        else:
            info = {"per_episode": [{"episode_ix": i, "sum_reward": 3.0, "max_reward": 1.0,
                                     "success": bool(rng.random() < p), "seed": 1000 + i} for i in range(8)],
                    "aggregated": {"pc_success": 50.0}}
        (d / "eval_info.json").write_text(json.dumps(info))
    return root


@pytest.mark.parametrize("layout, n", [("per_task", 30), ("per_episode", 16)])
def test_lerobot_load(tmp_path, layout, n):
    root = lerobot_runs(tmp_path / "eval", layout)
    t = certirank.load(root)
    assert t.attrs["format"] == "lerobot"
    assert sorted(set(t["policy"])) == ["act", "diffusion"] and len(t) == n
    one = certirank.load(root / "act" / "eval_info.json", policy="act-v2")
    assert set(one["policy"]) == {"act-v2"}


def test_lerobot_errors(tmp_path):
    root = lerobot_runs(tmp_path / "eval", "per_task")
    with pytest.raises(DataError, match="unknown metric 'reward'"):
        certirank.load(root, metric="reward")
    with pytest.raises(DataError, match="outside"):
        certirank.load(root, metric="sum_rewards")
    f = root / "act" / "eval_info.json"
    f.write_text('{"per_task": [')
    with pytest.raises(DataError, match="act/eval_info.json.*not valid JSON"):
        certirank.load(root)
    f.write_text('{"overall": {}}')
    with pytest.raises(DataError, match="not a LeRobot eval_info.json"):
        certirank.load(root, format="lerobot")


def eee_file(path: Path) -> Path:
    rng = np.random.default_rng(5)
    lines = []
    for model, p in (("org/model-1", 0.8), ("org/model-2", 0.3)):
        for i in range(15):
            ok = bool(rng.random() < p)
            lines.append(json.dumps({"schema_version": "instance_level_eval_0.2.1", "evaluation_id": "e1",
                                     "model_id": model, "evaluation_name": "gsm8k", "sample_id": f"gsm8k_{i:04d}",
                                     "interaction_type": "single_turn", "input": {"raw": "q", "reference": ["a"]},
                                     "output": {"raw": ["a"]}, "answer_attribution": [],
                                     "evaluation": {"score": float(ok), "is_correct": ok}}))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_eee_load_and_errors(tmp_path):
    f = eee_file(tmp_path / "inst.jsonl")
    t = certirank.load(f)
    assert t.attrs["format"] == "eee" and len(t) == 30
    assert sorted(set(t["policy"])) == ["org/model-1", "org/model-2"]
    with pytest.raises(DataError, match="no record of evaluation 'mmlu'.*gsm8k"):
        certirank.load(f, evaluation="mmlu")
    lines = f.read_text().splitlines()
    f.write_text("\n".join(lines[:3] + [lines[3][:40]]) + "\n")
    with pytest.raises(DataError, match="row 4.*not valid JSON"):
        certirank.load(f, format="eee")
    f.write_text(json.dumps({"model_id": "m", "sample_id": "s", "evaluation": {"is_correct": True}}) + "\n")
    with pytest.raises(DataError, match="evaluation has no 'score'"):
        certirank.load(f, format="eee")


def openai_log(path: Path, model: str, p: float, seed: int) -> Path:
    rng = np.random.default_rng(seed)
    lines = [json.dumps({"spec": {"completion_fns": [model], "eval_name": "arith.dev.v0", "run_id": "r1"}}),
             json.dumps({"final_report": {"accuracy": p}})]
    for i in range(12):
        lines.append(json.dumps({"run_id": "r1", "event_id": 2 * i, "sample_id": f"arith.dev.{i}", "type": "sampling",
                                 "data": {"prompt": "1+1", "sampled": "2"}}))
        lines.append(json.dumps({"run_id": "r1", "event_id": 2 * i + 1, "sample_id": f"arith.dev.{i}", "type": "match",
                                 "data": {"correct": bool(rng.random() < p), "expected": "2", "picked": "2"}}))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_openai_evals_load_and_errors(tmp_path):
    d = tmp_path / "logs"
    d.mkdir()
    openai_log(d / "a.jsonl", "gpt-x", 0.9, 1)
    openai_log(d / "b.jsonl", "gpt-y", 0.2, 2)
    t = certirank.load(d)
    assert t.attrs["format"] == "openai-evals" and len(t) == 24
    assert sorted(set(t["policy"])) == ["gpt-x", "gpt-y"]
    with pytest.raises(DataError, match="no data.score"):
        certirank.load(d / "a.jsonl", format="openai-evals", field="score")
    (d / "a.jsonl").write_text(json.dumps({"spec": {"completion_fns": ["m"]}}) + "\n")
    with pytest.raises(DataError, match="a.jsonl.*no 'match' events"):
        certirank.load(d, format="openai-evals")


# ----------------------------------------------------------------------------------------------- CLI errors

def _bad_inputs(tmp: Path) -> list[tuple[list[str], str]]:
    """(command-line arguments, text the one-line error must contain) for each reader's error paths."""
    cases = []
    lists = tmp / "lists.csv"
    lists.write_text('Panel,Method,Success\n1,x,"[True, maybe]"\n')
    cases.append((["rank", str(lists)], "expected True/False"))
    d = policy_folder(tmp / "runs")
    cases.append((["rank", str(d), "--read-option", "score=points"], "no column 'points'"))
    h = helm_runs(tmp / "suite")
    cases.append((["rank", str(h), "--read-option", "stat=f1"], "no per-instance stat 'f1'"))
    h2 = helm_runs(tmp / "suite2")
    f = next(h2.glob("*/per_instance_stats.json"))
    f.write_text(f.read_text()[:100])
    cases.append((["inspect", str(h2)], "truncated"))
    a = tmp / "arena.json"
    a.write_text(json.dumps([{"model_a": "x", "model_b": "y", "result": "x"}]))
    cases.append((["rank", str(a), "--format", "arena"], "missing field(s) 'winner'"))
    le = lerobot_runs(tmp / "lerobot", "per_episode")
    cases.append((["rank", str(le), "--read-option", "metric=reward"], "unknown metric 'reward'"))
    e = eee_file(tmp / "eee.jsonl")
    cases.append((["rank", str(e), "--read-option", "evaluation=mmlu"], "no record of evaluation 'mmlu'"))
    o = openai_log(tmp / "oai.jsonl", "gpt-x", 0.5, 0)
    cases.append((["inspect", str(o), "--format", "openai-evals", "--read-option", "field=score"], "no data.score"))
    return cases


def test_cli_errors_one_line_exit_2(cli, tmp_path):
    for args, needle in _bad_inputs(tmp_path):
        out = cli(args)
        assert out.exit_code == 2, (args, out.output)
        err = out.stderr.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error: ") and needle in err[0], (args, err)
        assert str(tmp_path) in err[0]  # names the file or folder
        assert "Traceback" not in out.output
