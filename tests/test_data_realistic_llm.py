"""Evaluation logs in the layouts LLM evaluators publish them (lm-eval, inspect_ai, HELM, Arena, EEE, OpenAI evals).

Each fixture is built here in tmp_path after the real tools' layouts; each test checks that the reader loads it
correctly or stops with one clear error naming the file, not a traceback or a silent drop.
"""

from __future__ import annotations

import json
import random
import warnings
from pathlib import Path

import pandas as pd
import pytest

from certirank.data.readers import load
from certirank.errors import DataError


def _write_jsonl(p: Path, recs: list[dict]) -> None:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")


def _scores(table, policy: str) -> list[float]:
    return table[table["policy"] == policy].sort_values("order")["score"].tolist()


# ------------------------------------------------------------------------------------------- lm-eval

def _lm_line(doc: int, filt: str, metrics: list[str], **values) -> dict:
    rec = {"doc_id": doc, "doc": {"question": "q"}, "target": "1",
           "arguments": {"gen_args_0": {"arg_0": "q", "arg_1": {"until": ["\n"]}}}, "resps": [["1"]],
           "filtered_resps": ["1"], "filter": filt, "metrics": metrics, "doc_hash": "a", "prompt_hash": "b",
           "target_hash": "c"}
    rec.update(values)
    return rec


def _lm_model(folder: Path, seed: int, stamp: str = "2025-01-01T10-00-00.123456") -> None:
    """One model's --output_path folder: gsm8k (two filters, exact_match) and arc_easy (filter none, acc/acc_norm)."""
    _write_jsonl(folder / f"samples_gsm8k_{stamp}.jsonl",
                 [_lm_line(i, f, ["exact_match"], exact_match=float((i + seed + (f == "flexible-extract")) % 2))
                  for i in range(4) for f in ("strict-match", "flexible-extract")])
    _write_jsonl(folder / f"samples_arc_easy_{stamp}.jsonl",
                 [_lm_line(i, "none", ["acc", "acc_norm"], acc=float((i + seed) % 3 == 0), acc_norm=1.0)
                  for i in range(4)])
    (folder / f"results_{stamp}.json").write_text(json.dumps({"results": {}}))


def test_lm_eval_model_folder_without_samples_is_named_not_dropped(cli, tmp_path):
    _lm_model(tmp_path / "org__model-a", 0)
    (tmp_path / "org__model-b").mkdir()
    (tmp_path / "org__model-b" / "results_2025-01-02T10-00-00.json").write_text(json.dumps({"results": {}}))
    with pytest.raises(DataError, match=r"org__model-b hold lm-eval results_\*\.json but no samples_\*\.jsonl"):
        load(tmp_path, filter="strict-match")
    res = cli(["inspect", str(tmp_path), "--read-option", "filter=strict-match"])
    assert res.exit_code == 2 and "org__model-b" in res.output and "Traceback" not in res.output


def test_lm_eval_filter_applies_to_the_tasks_that_logged_it(tmp_path):
    _lm_model(tmp_path / "org__model-a", 0)
    _lm_model(tmp_path / "org__model-b", 1)
    with pytest.raises(DataError, match="several filters"):
        load(tmp_path)  # gsm8k's two filters are still a choice to make
    t = load(tmp_path, filter="strict-match")
    assert t.attrs["filter"] == {"gsm8k": "strict-match", "arc_easy": "none"}
    assert len(t) == 16 and set(t["env"].str.split("/").str[0]) == {"gsm8k", "arc_easy"}
    gsm = t[(t["policy"] == "org__model-a") & t["env"].str.startswith("gsm8k/")].sort_values("order")
    assert gsm["score"].tolist() == [0.0, 1.0, 0.0, 1.0]  # the strict-match lines, not flexible-extract
    assert any("'arc_easy'" in n and "'none' only" in n for n in t.attrs["notes"])
    assert "lm-eval: task 'arc_easy': metric 'acc', the first of acc, acc_norm (choose with metric=NAME)" in t.attrs[
        "notes"]
    norm = load(tmp_path, task="arc_easy", metric="acc_norm")
    assert set(norm["score"]) == {1.0} and not any("metric" in n for n in norm.attrs.get("notes", []))
    with pytest.raises(DataError, match="filter 'strict' not found in any task; filters logged: flexible-extract, "
                                        "none, strict-match"):
        load(tmp_path, filter="strict")


def test_lm_eval_metric_values_as_bool_and_as_numpy_text(tmp_path):
    # lm-eval writes values json cannot encode (numpy bools and floats) with str()
    _write_jsonl(tmp_path / "m1" / "samples_boolq_2025-01-01T10-00-00.jsonl",
                 [_lm_line(i, "none", ["acc"], acc=v) for i, v in enumerate([True, False, True])])
    _write_jsonl(tmp_path / "m2" / "samples_boolq_2025-01-01T10-00-00.jsonl",
                 [_lm_line(i, "none", ["acc"], acc=v) for i, v in enumerate(["False", "True", "0.5"])])
    t = load(tmp_path)
    assert _scores(t, "m1") == [1.0, 0.0, 1.0]
    assert _scores(t, "m2") == [0.0, 1.0, 0.5]
    _write_jsonl(tmp_path / "m2" / "samples_boolq_2025-01-01T10-00-00.jsonl",
                 [_lm_line(0, "none", ["acc"], acc="yes")])
    with pytest.raises(DataError, match=r"m2.samples_boolq.*row 1: metric 'acc' is 'yes', not one number"):
        load(tmp_path)


def test_lm_eval_group_subtasks_and_iso_stamps(tmp_path):
    """A group (mmlu) logs one file per subtask; names hold underscores and the stamp has microseconds."""
    for m in ("a", "b"):
        for sub in ("mmlu_abstract_algebra", "mmlu_anatomy"):
            _write_jsonl(tmp_path / m / f"samples_{sub}_2025-03-04T05-06-07.891011.jsonl",
                         [_lm_line(i, "none", ["acc"], acc=float(i % 2)) for i in range(3)])
    t = load(tmp_path)
    assert t.attrs["tasks"] == ["mmlu_abstract_algebra", "mmlu_anatomy"]
    assert sorted(set(t["env"]))[:2] == ["mmlu_abstract_algebra/0", "mmlu_abstract_algebra/1"]
    assert set(t["replicate"]) == {0}
    both = load(tmp_path, task="mmlu_abstract_algebra, mmlu_anatomy")  # --read-option task=a,b
    assert len(both) == len(t) == 12
    assert set(load(tmp_path, task="mmlu_anatomy")["env"]) == {"0", "1", "2"}
    with pytest.raises(DataError, match="no samples for task\\(s\\) mmlu_nope; tasks found: mmlu_abstract_algebra"):
        load(tmp_path, task="mmlu_anatomy,mmlu_nope")  # one name not found is not left out quietly


# ------------------------------------------------------------------------------------------- inspect_ai

@pytest.fixture(scope="module")
def inspect_logs(tmp_path_factory):
    """Real inspect_ai logs of two mock models: ids holding '/', a dict-valued scorer, an erroring scorer."""
    pytest.importorskip("inspect_ai", reason="optional extra 'inspect' (inspect-ai) is not installed")
    from inspect_ai import Task, eval as inspect_eval
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import Score, mean, scorer
    from inspect_ai.solver import generate

    def mock(p, name):
        rng = random.Random(name)

        def out(input, tools, tool_choice, config):  # noqa: ANN001, ARG001 - inspect's custom_outputs signature
            o = ModelOutput.from_content(model="mockllm", content="A" if rng.random() < p else "B")
            o.usage = ModelUsage(input_tokens=10, output_tokens=1, total_tokens=11)
            return o

        return get_model(f"mockllm/{name}", custom_outputs=out)

    @scorer(metrics={"right": [mean()], "letter": [mean()]})
    def two_values():
        async def score(state, target):
            ok = state.output.completion.strip() == target.text
            return Score(value={"right": 1.0 if ok else 0.0, "letter": "C" if ok else "I"})
        return score

    @scorer(metrics=[mean()])
    def flaky():
        async def score(state, target):
            if str(state.sample_id).endswith("3"):
                raise RuntimeError("scorer failed")
            return Score(value=state.output.completion.strip() == target.text)
        return score

    root = tmp_path_factory.mktemp("inspect")
    ds = MemoryDataset([Sample(input=f"q {i}", target="A", id=f"test/{i}") for i in range(1, 6)])
    for kind, sc, kw in (("dict", two_values(), {}), ("err", flaky(), {"fail_on_error": False})):
        for m, p in (("strong", 0.9), ("weak", 0.2)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                (log,) = inspect_eval(Task(dataset=ds, solver=generate(), scorer=sc), model=mock(p, m),
                                      display="none", log_dir=str(root / kind), **kw)
            assert log.status == "success", log.error
    return root


def test_inspect_sample_ids_with_a_slash_are_read(inspect_logs):
    # inspect stores sample "test/1" as samples/test/1_epoch_1.json inside the .eval zip
    t = load(inspect_logs / "err", format="inspect")
    assert {"test/1", "test/2", "test/4", "test/5"} <= set(t["env"])


def test_inspect_errored_samples_are_noted(cli, inspect_logs):
    t = load(inspect_logs / "err")
    assert t.attrs["skipped_errors"] == 2 and "test/3" not in set(t["env"])
    assert t.attrs["notes"] == ["inspect: 2 sample(s) that ended in an error (no score) left out"]
    res = cli(["inspect", str(inspect_logs / "err")])
    assert res.exit_code == 0 and "note: inspect: 2 sample(s) that ended in an error" in res.output


def test_inspect_dict_valued_scores_need_and_accept_a_key(cli, inspect_logs):
    with pytest.raises(DataError, match=r"scorer 'two_values' holds several values; choose one with "
                                        r"scorer=two_values/right"):
        load(inspect_logs / "dict")
    right = load(inspect_logs / "dict", scorer="two_values/right")
    letter = load(inspect_logs / "dict", scorer="two_values/letter")
    assert len(right) == 10 and right["score"].tolist() == letter["score"].tolist()
    assert set(right.attrs["scorer"].values()) == {"two_values/right"}
    with pytest.raises(DataError, match="gives no value 'nope' \\(its values: right, letter\\)"):
        load(inspect_logs / "dict", scorer="two_values/nope")
    res = cli(["inspect", str(inspect_logs / "dict")])
    assert res.exit_code == 2 and "Traceback" not in res.output


def test_inspect_default_scorer_among_several_is_noted(tmp_path):
    for model, ok in (("openai/gpt-4o", [1, 1, 0]), ("anthropic/claude", [0, 1, 0])):
        samples = [{"id": i + 1, "epoch": 1, "scores": {"match": {"value": "C" if v else "I"},
                                                        "includes": {"value": "C"}}} for i, v in enumerate(ok)]
        log = {"version": 2, "status": "success", "eval": {"task": "arith", "model": model}, "samples": samples}
        (tmp_path / f"2025-01-01T10-00-00_arith_{model.split('/')[0]}.json").write_text(json.dumps(log))
    t = load(tmp_path)
    assert _scores(t, "openai/gpt-4o") == [1.0, 1.0, 0.0]
    assert t.attrs["notes"] == ["inspect: scorer 'match', the first of match, includes (choose with scorer=NAME)"]
    chosen = load(tmp_path, scorer="includes")
    assert _scores(chosen, "anthropic/claude") == [1.0, 1.0, 1.0] and "notes" not in chosen.attrs


def test_inspect_logs_in_sub_folders(tmp_path):
    """logs/<model>/*.json: inspect lists log folders recursively, so does the reader when none are at the top."""
    for model, ok in (("openai/gpt-4o", [1, 1, 0]), ("anthropic/claude", [0, 1, 0])):
        samples = [{"id": i + 1, "epoch": 1, "scores": {"match": {"value": "C" if v else "I"}}}
                   for i, v in enumerate(ok)]
        log = {"version": 2, "status": "success", "eval": {"task": "arith", "model": model}, "samples": samples}
        d = tmp_path / "logs" / model.split("/")[0]
        d.mkdir(parents=True)
        (d / "2025-01-01T10-00-00_arith_x.json").write_text(json.dumps(log))
    (tmp_path / "logs" / "openai" / "listing.json").write_text("[]")  # not a log: skipped
    t = load(tmp_path / "logs")
    assert t.attrs["format"] == "inspect" and len(t) == 6
    assert _scores(t, "anthropic/claude") == [0.0, 1.0, 0.0]


# ------------------------------------------------------------------------------------------- HELM

def _helm_run(d: Path, model: str, split: str = "test") -> None:
    d.mkdir(parents=True)

    def stat(name, val, pert=None):
        nm = {"name": name, "split": split, **({"perturbation": pert} if pert else {})}
        return {"name": nm, "count": 1, "sum": val, "sum_squared": val, "min": val, "max": val, "mean": val}

    typos = {"name": "typos", "robustness": True, "fairness": False, "computed_on": "perturbed"}
    recs = []
    for i in range(4):
        recs.append({"instance_id": f"id{i}", "train_trial_index": 0,
                     "stats": [stat("exact_match", float(i % 2)), stat("num_prompt_tokens", 30.0)]})
        recs.append({"instance_id": f"id{i}", "perturbation": typos, "train_trial_index": 0,
                     "stats": [stat("exact_match", 0.0, typos)]})
    (d / "per_instance_stats.json").write_text(json.dumps(recs))
    (d / "run_spec.json").write_text(json.dumps({"name": d.name, "adapter_spec": {"model": model}}))


def test_helm_benchmark_output_root_and_several_suites(tmp_path):
    out = tmp_path / "benchmark_output"
    for m in ("openai/gpt2", "meta/llama-7b"):
        _helm_run(out / "runs" / "v1" / f"boolq:model={m.replace('/', '_')}", m)
    (out / "runs" / "v1" / "summary.json").write_text("{}")
    for p in (out, out / "runs", out / "runs" / "v1"):
        t = load(p)
        assert t.attrs["reader"] == "helm" and sorted(set(t["policy"])) == ["meta/llama-7b", "openai/gpt2"]
        assert len(t) == 8
    _helm_run(out / "runs" / "v2" / "boolq:model=openai_gpt2", "openai/gpt2")
    with pytest.raises(DataError, match=r"holds 2 HELM suites \(v1, v2\); pass one suite folder"):
        load(out)


def test_helm_names_the_split_a_stat_was_logged_on(tmp_path):
    _helm_run(tmp_path / "mmlu:subject=anatomy,method=multiple_choice_joint,model=openai_gpt2", "openai/gpt2",
              split="valid")
    with pytest.raises(DataError, match=r"no per-instance stat 'exact_match' \(split 'test', no perturbation\); "
                                        r"it is logged on split\(s\) valid \(choose with --read-option split=NAME\)"):
        load(tmp_path)
    assert len(load(tmp_path, split="valid")) == 4


# ------------------------------------------------------------------------------------------- Arena

def _battles() -> list[dict]:
    models = ["gpt-4", "claude-2", "llama-2-70b"]
    winners = ["model_a", "model_b", "tie", "tie (bothbad)"]
    return [{"question_id": f"q{i}", "model_a": models[i % 3], "model_b": models[(i + 1) % 3],
             "winner": winners[i % 4], "judge": f"arena_user_{i}", "turn": 1 + i % 2, "anony": True,
             "language": "English", "tstamp": 1682351591.13 + i, "openai_moderation": {"flagged": False},
             "dedup_tag": {"high_freq": False, "sampled": True}, "category_tag": {"criteria_v0.1": {"math": False}}}
            for i in range(12)]


@pytest.mark.parametrize("name", ["clean_battle_20240814_public.json", "battles.jsonl"])
def test_arena_clean_battle_records_with_extra_fields(tmp_path, name):
    p = tmp_path / name
    if name.endswith(".json"):
        p.write_text(json.dumps(_battles(), indent=1))
    else:
        _write_jsonl(p, _battles())
    t = load(p)
    assert t.attrs["reader"] == "arena" and len(t) == 12
    assert t["preference"].tolist()[:4] == [0.0, 1.0, 0.5, 0.5]


def test_arena_kaggle_one_hot_winner_columns(tmp_path):
    p = tmp_path / "train.csv"
    p.write_text('id,model_a,model_b,prompt,response_a,response_b,winner_model_a,winner_model_b,winner_tie\n'
                 '1,gpt-4,claude-2,"[""hi, there""]","[""a""]","[""b""]",1,0,0\n'
                 '2,claude-2,llama-2,"[""hi""]","[""a""]","[""b""]",0,0,1\n'
                 '3,llama-2,gpt-4,"[""hi""]","[""a""]","[""b""]",0,1,0\n')
    t = load(p)
    assert t.attrs["reader"] == "arena"
    assert t["preference"].tolist() == [0.0, 0.5, 1.0]
    assert "winner_model_a" in t.attrs["notes"][0]
    p.write_text("id,model_a,model_b,winner_model_a,winner_model_b,winner_tie\n1,a,b,1,0,0\n2,a,b,1,1,0\n")
    with pytest.raises(DataError, match=r"train.csv, row 3: expected exactly one of winner_model_a, "
                                        r"winner_model_b, winner_tie to be 1"):
        load(p)


# ------------------------------------------------------------------------------------------- EEE, OpenAI evals

def _eee(model: str, i: int, score: float) -> dict:
    return {"schema_version": "instance_level_eval_0.2.1", "evaluation_id": f"gsm8k/{model}/1760492095.8",
            "model_id": model, "evaluation_name": "gsm8k", "sample_id": i, "interaction_type": "single_turn",
            "input": {"raw": "q", "reference": ["42"]}, "output": {"raw": ["42"]}, "answer_attribution": [],
            "evaluation": {"score": score, "is_correct": score == 1.0}}


def test_eee_datastore_folders_and_repeated_runs(tmp_path):
    """data/<benchmark>/<developer>/<model>/<uuid>.json(l); a second run of a model is a replicate."""
    bench = tmp_path / "data" / "gsm8k"
    for m in ("org/model-1", "org/model-2"):
        _write_jsonl(bench / m / "e70acf51-30ef.jsonl", [_eee(m, i, float(i % 2)) for i in range(4)])
        (bench / m / "e70acf51-30ef.json").write_text(json.dumps({"schema_version": "0.2.0"}))
    _write_jsonl(bench / "org" / "model-1" / "a1b2c3d4-5678.jsonl", [_eee("org/model-1", i, 1.0) for i in range(4)])
    t = load(bench)
    assert t.attrs["reader"] == "eee"
    one = t[t["policy"] == "org/model-1"]
    assert len(one) == 8 and sorted(set(one["replicate"])) == [0, 1]
    assert one[one["replicate"] == 0]["score"].tolist() == [1.0] * 4  # a1b2… is read before e70a…


def _oai(model: str, correct: list[bool]) -> list[dict]:
    recs = [{"spec": {"completion_fns": [model], "eval_name": "arith.dev.v0", "run_id": f"r-{model}"}},
            {"final_report": {"accuracy": sum(correct) / len(correct)}}]
    for i, c in enumerate(correct):
        recs.append({"run_id": "r", "event_id": 2 * i, "sample_id": f"arith.dev.{i}", "type": "sampling",
                     "data": {"prompt": "x", "sampled": ["y"]}})
        recs.append({"run_id": "r", "event_id": 2 * i + 1, "sample_id": f"arith.dev.{i}", "type": "match",
                     "data": {"correct": c, "expected": "1", "picked": None}})
    return recs


def test_openai_evals_repeated_runs_of_one_model_are_replicates(tmp_path):
    _write_jsonl(tmp_path / "230314185634AAAA_gpt-4_arith.jsonl", _oai("gpt-4", [True, False, True]))
    _write_jsonl(tmp_path / "230315185634BBBB_gpt-4_arith.jsonl", _oai("gpt-4", [False, False, True]))
    _write_jsonl(tmp_path / "230314190000CCCC_gpt-3.5_arith.jsonl", _oai("gpt-3.5", [True, True, False]))
    t = load(tmp_path)
    g4 = t[t["policy"] == "gpt-4"].sort_values(["replicate", "env"])
    assert g4["replicate"].tolist() == [0, 0, 0, 1, 1, 1]
    assert g4["score"].tolist() == [1.0, 0.0, 1.0, 0.0, 0.0, 1.0]


def test_helm_instances_without_the_stat_are_noted_not_silently_dropped(tmp_path):
    for m in ("openai/gpt2", "meta/llama-7b"):
        _helm_run(tmp_path / f"boolq:model={m.replace('/', '_')}", m)
    f = tmp_path / "boolq:model=openai_gpt2" / "per_instance_stats.json"
    recs = json.loads(f.read_text())
    recs[0]["stats"] = [s for s in recs[0]["stats"] if s["name"]["name"] != "exact_match"]
    f.write_text(json.dumps(recs))
    t = load(tmp_path)
    assert len(t) == 7  # the perturbed copies are not counted as missing, the stripped instance is
    assert t.attrs["notes"][1:] == ["helm: 1 instance(s) of boolq:model=openai_gpt2 have no stat 'exact_match' on "
                                    "this split; left out"]
    assert len(load(tmp_path.parent / tmp_path.name / "boolq:model=meta_llama-7b").attrs["notes"]) == 1


@pytest.mark.parametrize("name", ["results_2025-01-01T10-00-00.json", "results.json"])
def test_lm_eval_results_file_alone_points_to_the_samples_folder(tmp_path, name):
    model = tmp_path / "out" / "org__model-a"
    model.mkdir(parents=True)
    (model / name).write_text(json.dumps({"results": {"gsm8k": {"exact_match,strict-match": 0.5}},
                                          "versions": {"gsm8k": 3}, "config": {"model": "hf"}}))
    with pytest.raises(DataError, match=r"lm-eval's results file .*samples_<task>_<date>\.jsonl .*--log_samples"):
        load(model / name)
    # the folder holding only the summary (either name) says the same, rather than "not a folder of logs"
    with pytest.raises(DataError, match="results_\\*.json but no samples_\\*.jsonl"):
        load(tmp_path / "out")


@pytest.mark.parametrize("orient, said", [("columns", "object of objects"), ("split", "'split' JSON")])
def test_pandas_json_that_is_not_records_says_how_to_write_it(tmp_path, orient, said):
    path = tmp_path / "scores.json"
    pd.DataFrame({"policy": ["a", "b"], "env": ["e", "e"], "score": [1, 0]}).to_json(path, orient=orient)
    with pytest.raises(DataError, match=f"{said}.*orient='records'"):
        load(path)


def test_eee_missing_score_names_the_file_and_line_once(tmp_path):
    path = tmp_path / "run.jsonl"
    recs = [{"schema_version": "instance_level_eval_0.2.1", "model_id": m, "evaluation_name": "gsm8k",
             "sample_id": "s1", "evaluation": {"score": v}} for m, v in (("org/m1", 1.0), ("org/m2", None))]
    _write_jsonl(path, recs)
    with pytest.raises(DataError) as err:
        load(path)
    text = str(err.value)
    assert text.startswith("run.jsonl, line 2, column 'evaluation.score': score is missing")
    assert text.count("run.jsonl") == 1 and err.value.source == str(path)


def _legacy_lm_eval_run(folder: Path, model_args: str, task: str, acc: list[int]) -> None:
    """What lm-eval 0.4.0-0.4.2 wrote with --output_path FOLDER --log_samples: results.json, and the samples as
    one pretty-printed JSON array in <model_args with '/' and '=' as '__'>_<task>.jsonl."""
    folder.mkdir(parents=True)
    (folder / "results.json").write_text(json.dumps(
        {"results": {task: {"acc,none": sum(acc) / len(acc)}}, "configs": {task: {"task": task}},
         "versions": {task: 1.0}, "config": {"model": "hf", "model_args": model_args}}, indent=2))
    name = model_args.replace("/", "__").replace("=", "__") + f"_{task}.jsonl"
    samples = [{"doc_id": i, "doc": {"question": "q"}, "target": 0, "arguments": [], "resps": [],
                "filtered_resps": [], "acc": a, "acc_norm": 1 - a} for i, a in enumerate(acc)]
    (folder / name).write_text(json.dumps(samples, indent=2))


def test_lm_eval_0_4_0_layout_reads_the_array_samples_beside_results_json(tmp_path):
    _legacy_lm_eval_run(tmp_path / "out" / "pythia", "pretrained=EleutherAI/pythia-160m,dtype=float16", "arc_easy",
                        [1, 0, 1, 1])
    _legacy_lm_eval_run(tmp_path / "out" / "gpt2", "pretrained=gpt2", "arc_easy", [0, 0, 1, 0])
    t = load(tmp_path / "out")
    assert t.attrs["format"] == "lm-eval"
    # the model as the later layout names its folder; the metric chosen among several is said
    assert t.groupby("policy")["score"].mean().to_dict() == {"EleutherAI__pythia-160m": 0.75, "gpt2": 0.25}
    assert t.attrs["notes"] == ["lm-eval: task 'arc_easy': metric 'acc' of acc, acc_norm (choose with metric=NAME)"]
    assert load(tmp_path / "out", metric="acc_norm").groupby("policy")["score"].mean()["gpt2"] == 0.75
    one = load(tmp_path / "out" / "gpt2")
    assert sorted(one["env"]) == ["0", "1", "2", "3"] and set(one["policy"]) == {"gpt2"}
