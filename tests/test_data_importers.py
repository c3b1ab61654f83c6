"""lm-evaluation-harness and inspect_ai importers (fixtures written by tests/fixtures/make_fixtures.py)."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from certirank.data import load, load_inspect, load_lm_eval
from certirank.errors import DataError

FIX = Path(__file__).resolve().parent / "fixtures"
LM = FIX / "lm_eval"
INS = FIX / "inspect"
DEFLATE = INS / "2024-06-01T10-00-00+00-00_arith_Ab3dEfGh.eval"
ZSTD = INS / "2024-06-01T11-00-00+00-00_arith_Zs7dKqRt.eval"
JSONLOG = INS / "2024-06-01T12-00-00+00-00_arith_Js0nLoGx.json"

# The values the fixture generator wrote (restated, not recomputed).
ACC_160M_RUN1 = [1, 0, 0, 1, 0, 1]
ACC_160M_RUN2 = [1, 0, 1, 1, 0, 1]
ACC_NORM_160M_RUN1 = [1, 1, 0, 1, 0, 0]
ACC_410M = [1, 1, 0, 1, 1, 1]


def _scores(t, policy, replicate=0):
    sub = t[(t["policy"] == policy) & (t["replicate"] == replicate)]
    return sub.sort_values("env", key=lambda s: s.astype(int))["score"].tolist()


# --------------------------------------------------------------------------------------------- lm-eval

def test_lm_eval_output_folder_models_items_replicates():
    t = load(LM)
    assert t.attrs["format"] == "lm-eval"
    assert sorted(t["policy"].unique()) == ["EleutherAI__pythia-160m", "EleutherAI__pythia-410m"]
    assert _scores(t, "EleutherAI__pythia-160m", 0) == ACC_160M_RUN1  # earlier date = replicate 0
    assert _scores(t, "EleutherAI__pythia-160m", 1) == ACC_160M_RUN2
    assert _scores(t, "EleutherAI__pythia-410m", 0) == ACC_410M
    assert set(t["env"]) == {str(i) for i in range(6)}
    assert t.attrs["metric"] == {"arc_easy": "acc"} and t.attrs["filter"] == {"arc_easy": "none"}


def test_lm_eval_model_folder_single_file_metric_and_task():
    one = load(LM / "EleutherAI__pythia-410m")
    assert one["policy"].unique().tolist() == ["EleutherAI__pythia-410m"]
    f = LM / "EleutherAI__pythia-160m" / "samples_arc_easy_2024-05-01T10-00-00.123456.jsonl"
    single = load(f, metric="acc_norm")
    assert _scores(single, "EleutherAI__pythia-160m") == ACC_NORM_160M_RUN1
    assert load(LM, format="lm_eval", task="arc_easy")["replicate"].max() == 1
    with pytest.raises(DataError, match="no samples for task"):
        load_lm_eval(LM, task="mmlu")
    with pytest.raises(DataError, match="line has no metric 'bleu'"):
        load_lm_eval(LM, metric="bleu")


def test_lm_eval_filters():
    with pytest.raises(DataError, match="several filters \\(strict-match, flexible-extract\\)"):
        load(FIX / "lm_eval_gsm8k")
    strict = load(FIX / "lm_eval_gsm8k", filter="strict-match")
    flexible = load(FIX / "lm_eval_gsm8k", filter="flexible-extract")
    assert _scores(strict, "EleutherAI__pythia-160m") == [0, 0, 1, 0]
    assert _scores(flexible, "EleutherAI__pythia-160m") == [1, 0, 1, 0]
    with pytest.raises(DataError, match="filter 'none' not found for task 'gsm8k'"):
        load(FIX / "lm_eval_gsm8k", filter="none")


def test_lm_eval_several_tasks_prefix_items(tmp_path):
    out = tmp_path / "out"
    shutil.copytree(LM, out)
    src = FIX / "lm_eval_gsm8k" / "EleutherAI__pythia-160m" / "samples_gsm8k_2024-05-03T09-00-00.000000.jsonl"
    shutil.copy(src, out / "EleutherAI__pythia-160m")
    with pytest.raises(DataError, match="task 'gsm8k'"):
        load(out)  # arc has filter none, gsm8k needs a choice
    # keep only strict-match lines for gsm8k so that the per-task default applies
    dest = out / "EleutherAI__pythia-160m" / src.name
    lines = [ln for ln in src.read_text().splitlines() if json.loads(ln)["filter"] == "strict-match"]
    dest.write_text("\n".join(lines) + "\n")
    t = load(out)
    assert t.attrs["filter"] == {"arc_easy": "none", "gsm8k": "strict-match"}
    assert t.attrs["metric"] == {"arc_easy": "acc", "gsm8k": "exact_match"}
    assert "gsm8k/2" in set(t["env"]) and "arc_easy/0" in set(t["env"])


def _lm_folder(tmp_path, lines):
    d = tmp_path / "out" / "org__model"
    d.mkdir(parents=True)
    f = d / "samples_task_2024-01-01T00-00-00.000000.jsonl"
    f.write_text("\n".join(ln if isinstance(ln, str) else json.dumps(ln) for ln in lines) + "\n")
    return tmp_path / "out", f


@pytest.mark.parametrize("lines, pattern", [
    ([{"doc_id": 0, "filter": "none", "metrics": ["acc"], "acc": 1}, "{not json"], r"\.jsonl, row 2: not valid JSON"),
    ([{"filter": "none", "acc": 1}], r"row 1: line has no 'doc_id'"),
    ([{"doc_id": 0, "metrics": ["bleu"], "bleu": ["ref", "pred"]}], r"row 1: metric 'bleu' is a list"),
    ([{"doc_id": 0, "metrics": ["acc"], "acc": 1}, {"doc_id": 0, "metrics": ["acc"], "acc": 0}],
     r"doc_id 0 appears twice for filter 'none' \(lines 1 and 2\)"),
    ([{"doc_id": 0, "metrics": ["acc"], "acc": 1}, {"doc_id": 1, "metrics": ["f1"], "f1": 0.5}],
     r"row 2: line has no metric 'acc' \(numeric metrics here: f1\)"),
    ([{"doc_id": 0, "metrics": ["ppl"], "ppl": 12.5}], r"row 1, column 'ppl': score 12.5 is outside \[0, 1\]"),
    ([[1, 2]], r"row 1: expected a JSON object per line"),
])
def test_lm_eval_malformed(tmp_path, lines, pattern):
    out, f = _lm_folder(tmp_path, lines)
    with pytest.raises(DataError, match=pattern) as e:
        load(out)
    assert "\n" not in str(e.value)


def test_lm_eval_bool_metric_and_score_range(tmp_path):
    out, _ = _lm_folder(tmp_path, [{"doc_id": 0, "metrics": ["em"], "em": True},
                                   {"doc_id": 1, "metrics": ["em"], "em": False}])
    assert load(out)["score"].tolist() == [1.0, 0.0]
    out2, _ = _lm_folder(tmp_path / "b", [{"doc_id": 0, "metrics": ["ppl"], "ppl": 12.5}])
    assert load(out2, score_range=(0, 50))["score"].tolist() == [0.25]


def test_lm_eval_empty_folder_errors(tmp_path):
    (tmp_path / "model").mkdir()
    with pytest.raises(DataError, match="no lm-eval samples files found"):
        load_lm_eval(tmp_path)
    with pytest.raises(DataError, match="not an lm-eval samples file"):
        load_lm_eval(DEFLATE)
    with pytest.raises(DataError, match="is a folder, but not an lm-evaluation-harness"):
        load(tmp_path)


# --------------------------------------------------------------------------------------------- inspect

def test_inspect_zstd_archive_is_really_zstd():
    with zipfile.ZipFile(ZSTD) as z:
        assert {i.compress_type for i in z.infolist()} == {93}
    with zipfile.ZipFile(DEFLATE) as z:
        assert {i.compress_type for i in z.infolist()} == {zipfile.ZIP_DEFLATED}


def test_inspect_deflate_eval_epochs_are_replicates():
    t = load(DEFLATE)
    assert t.attrs["format"] == "inspect" and t.attrs["scorer"] == {str(DEFLATE): "match"}
    assert t["policy"].unique().tolist() == ["openai/gpt-4o-mini"]
    assert _scores(t, "openai/gpt-4o-mini", 0) == [1, 0, 1, 1]  # C I C C
    assert _scores(t, "openai/gpt-4o-mini", 1) == [1, 1, 0, 1]  # C C I C
    assert sorted(set(t["env"])) == ["1", "2", "3", "4"]


def test_inspect_zstd_eval_letter_values_and_error_samples():
    t = load(ZSTD)
    assert _scores(t, "anthropic/claude-3-haiku-20240307") == [1.0, 0.5, 0.0, 0.0]  # C P N I
    assert t.attrs["skipped_errors"] == 1  # sample 5 ended in an error, without a score


def test_inspect_json_log_numeric_values():
    t = load(JSONLOG)
    assert t.attrs["file_type"] == "json"
    assert _scores(t, "mockllm/model") == [0.25, 1.0, 0.5, 0.0]


def test_inspect_folder_combines_models_and_skips_listing():
    t = load(INS)
    assert sorted(t["policy"].unique()) == ["anthropic/claude-3-haiku-20240307", "mockllm/model",
                                             "openai/gpt-4o-mini"]
    assert len(t) == 8 + 4 + 4
    means = t.groupby("policy")["score"].mean()
    assert means["openai/gpt-4o-mini"] == pytest.approx(6 / 8)
    assert means["anthropic/claude-3-haiku-20240307"] == pytest.approx(1.5 / 4)


def test_inspect_repeated_logs_continue_replicates(tmp_path):
    shutil.copy(DEFLATE, tmp_path / "a.eval")
    shutil.copy(DEFLATE, tmp_path / "b.eval")
    t = load(tmp_path)
    assert sorted(t["replicate"].unique()) == [0, 1, 2, 3]


def test_inspect_scorer_option():
    with pytest.raises(DataError, match=r"has no score from scorer 'other' \(scorers: match\)"):
        load_inspect(DEFLATE, scorer="other")
    assert len(load(DEFLATE, scorer="match")) == 8


def _json_log(tmp_path, log, name="log.json"):
    p = tmp_path / name
    p.write_text(json.dumps(log))
    return p


def _base_log(samples):
    return {"version": 2, "status": "success", "eval": {"task": "t", "model": "m/x"}, "samples": samples}


@pytest.mark.parametrize("log, pattern", [
    (_base_log([{"id": 1, "epoch": 1, "scores": {"s": {"value": "maybe"}}}]),
     r"sample 1 epoch 1: score value 'maybe' of scorer 's' is not C, I, P, N or a number"),
    (_base_log([{"id": 1, "epoch": 1, "scores": {"s": {"value": {"a": 1}}}}]), r"score value \{'a': 1\}"),
    (_base_log([{"id": 1, "epoch": 1, "scores": {"s": {"value": 2.5}}}]),
     r"samples\[0\] \(sample 1, epoch 1\): score 2.5 is outside \[0, 1\]"),
    (_base_log([{"id": 1, "epoch": 1, "scores": {"s": {"value": "C"}}}, {"id": 2, "epoch": 1, "scores": {}}]),
     r"sample 2 epoch 1 has no scores"),
    (_base_log([{"id": 1, "epoch": 0, "scores": {"s": {"value": "C"}}}]), r"has epoch 0; expected an integer >= 1"),
    (_base_log([{"epoch": 1, "scores": {"s": {"value": "C"}}}]), r"sample has no 'id'"),
    (_base_log([]), r"contains no samples"),
    (_base_log([{"id": 1, "epoch": 1, "scores": {"s": {"value": "C"}}}, {"id": 1, "epoch": 1, "scores": {}}]),
     r"sample 1 epoch 1 appears twice \(samples\[0\] and samples\[1\]\)"),
    ({"version": 2, "eval": {"task": "t"}, "samples": [{"id": 1}]}, r"names no model \(eval.model\)"),
])
def test_inspect_json_malformed(tmp_path, log, pattern):
    with pytest.raises(DataError, match=pattern) as e:
        load(_json_log(tmp_path, log), format="inspect")
    assert "\n" not in str(e.value)


def test_inspect_eval_malformed(tmp_path):
    bad = tmp_path / "x.eval"
    bad.write_bytes(b"not a zip")
    with pytest.raises(DataError, match="not an inspect_ai .eval log \\(not a zip archive\\)"):
        load(bad)
    nohead = tmp_path / "y.eval"
    with zipfile.ZipFile(nohead, "w") as z:
        z.writestr("samples/1_epoch_1.json", "{}")
    with pytest.raises(DataError, match="neither header.json nor _journal/start.json"):
        load(nohead)
    nosamples = tmp_path / "z.eval"
    with zipfile.ZipFile(nohead.with_name("z.eval"), "w") as z:
        z.writestr("header.json", json.dumps({"eval": {"model": "m", "task": "t"}}))
    with pytest.raises(DataError, match="contains no samples"):
        load(nosamples)
    badjson = tmp_path / "w.eval"
    with zipfile.ZipFile(badjson, "w") as z:
        z.writestr("header.json", json.dumps({"eval": {"model": "m", "task": "t"}}))
        z.writestr("samples/1_epoch_1.json", "{oops")
    with pytest.raises(DataError, match=r"w.eval samples/1_epoch_1.json: member is not valid JSON"):
        load(badjson)


def test_inspect_corrupt_zstd_member(tmp_path):
    data = bytearray(ZSTD.read_bytes())
    with zipfile.ZipFile(ZSTD) as z:
        info = z.getinfo("samples/2_epoch_1.json")
    # flip a byte inside that member's compressed data (after its 30-byte header and name)
    pos = info.header_offset + 30 + len(info.filename) + 20
    data[pos] ^= 0xFF
    p = tmp_path / "c.eval"
    p.write_bytes(bytes(data))
    with pytest.raises(DataError, match=r"samples/2_epoch_1.json: corrupt"):
        load(p)


def test_inspect_journal_only_log(tmp_path):
    """An unfinished .eval (no header.json yet) still names its model in _journal/start.json."""
    p = tmp_path / "run.eval"
    with zipfile.ZipFile(DEFLATE) as src, zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as dst:
        for name in src.namelist():
            if name != "header.json":
                dst.writestr(name, src.read(name))
    t = load(p)
    assert t["policy"].unique().tolist() == ["openai/gpt-4o-mini"] and len(t) == 8
    np.testing.assert_allclose(t.groupby("replicate")["score"].mean().to_numpy(), [0.75, 0.75])


def test_lm_eval_results_without_samples(tmp_path):
    d = tmp_path / "org__model"
    d.mkdir()
    shutil.copy(LM / "EleutherAI__pythia-410m" / "results_2024-05-01T11-00-00.000001.json", d)
    with pytest.raises(DataError, match="no samples_\\*.jsonl; rerun lm_eval with --log_samples"):
        load(tmp_path)


def test_inspect_ignores_deeper_sample_entries(tmp_path):
    """Only samples/<id>_epoch_<n>.json are samples; chunk entries in sub-folders are not."""
    p = tmp_path / "x.eval"
    with zipfile.ZipFile(DEFLATE) as src, zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as dst:
        for name in src.namelist():
            dst.writestr(name, src.read(name))
        dst.writestr("samples/1_epoch_1/messages/0.json", "[]")
    assert len(load(p)) == 8


# ------------------------------------------------------------------------------ CLI --read-option

def test_cli_read_option_reaches_the_importer(cli):
    gsm = str(FIX / "lm_eval_gsm8k")
    res = cli(["inspect", gsm, "--json"])  # two filters and none chosen: a clear error, not a guess
    assert res.exit_code == 2 and "several filters" in res.output
    means = {}
    for flt in ("strict-match", "flexible-extract"):
        res = cli(["inspect", gsm, "--read-option", f"filter={flt}", "--json"])
        assert res.exit_code == 0, res.output
        means[flt] = json.loads(res.output)["details"]["policies"][0]["mean"]
    assert means == {"strict-match": pytest.approx(1 / 4), "flexible-extract": pytest.approx(2 / 4)}


def test_cli_read_option_on_analysis_commands(cli):
    # bt reads the per-item scores of both models; the metric option must change what it reads
    means = {}
    for metric in ("acc", "acc_norm"):
        res = cli(["baseline", "bt", str(LM), "--read-option", f"metric={metric}", "--json"])
        assert res.exit_code == 0, res.output
        means[metric] = {p["name"]: p["mean"] for p in json.loads(res.output)["ranking"]["policies"]}
        t = load(LM, metric=metric)
        assert means[metric] == pytest.approx(t.groupby("policy")["score"].mean().to_dict())
    assert means["acc"] != means["acc_norm"]
    # errors after reading still name the file
    res = cli(["rank", str(LM), "--read-option", "metric=acc_norm"])
    assert res.exit_code == 2 and str(LM) in res.output and "several replicates" in res.output
    for bad, needle in ((["--read-option", "metric"], "KEY=VALUE"), (["--read-option", "colour=red"], "colour")):
        res = cli(["leaderboard", str(LM)] + bad)
        assert res.exit_code == 2 and needle in res.output, res.output


def test_cli_read_option_sep_gives_the_same_answers(cli, tmp_path):
    rng = np.random.default_rng(3)
    cols = {"a": rng.random(60) < 0.2, "b": rng.random(60) < 0.8, "c": rng.random(60) < 0.5}
    rows = [",".join(cols)] + [",".join(str(int(cols[k][i])) for k in cols) for i in range(60)]
    comma, semi = tmp_path / "comma.csv", tmp_path / "semi.csv"
    comma.write_text("\n".join(rows) + "\n")
    semi.write_text("\n".join(r.replace(",", ";") for r in rows) + "\n")
    for cmd in (["rank", "--bins", "binary"], ["compare", "--a", "a", "--b", "b", "--bins", "binary"]):
        want = cli([cmd[0], str(comma)] + cmd[1:] + ["--json"])
        got = cli([cmd[0], str(semi)] + cmd[1:] + ["--read-option", "sep=;", "--json"])
        assert want.exit_code == got.exit_code == 0, got.output
        g, w = json.loads(got.output), json.loads(want.output)
        assert g["inputs"].pop("source") == str(semi) and w["inputs"].pop("source") == str(comma)
        assert g == w
    assert cli(["rank", str(semi)]).exit_code == 2  # without the option the file is one column: an error
