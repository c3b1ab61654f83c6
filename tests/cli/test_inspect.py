"""`certirank inspect`: the summary of an evaluation file, and one-line errors with exit code 2 on bad files."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from _records import flat

from .conftest import FIXTURES


ROBO_POLICIES = ["pi0_droid", "paligemma_vq_droid", "paligemma_fast_specialist_droid", "pi0_fast_droid",
                 "paligemma_fast_droid", "paligemma_diffusion_droid", "paligemma_binning_droid"]


def test_inspect_json_on_roboarena(cli, shared_data):
    path = shared_data / "roboarena" / "per_trial_progress_data.csv"
    res = cli(["inspect", str(path), "--json"])
    assert res.exit_code == 0, res.stderr
    out = flat(json.loads(res.stdout))
    assert out["format"] == "wide" and out["source"] == str(path)
    assert [p["policy"] for p in out["policies"]] == ROBO_POLICIES
    assert [p["count"] for p in out["policies"]] == [676, 647, 639, 652, 657, 642, 641]
    ref = pd.read_csv(path)
    for p in out["policies"]:
        assert p["mean"] == pytest.approx(ref[p["policy"]].mean(), rel=1e-12)
        assert p["missing"] == int(ref[p["policy"]].isna().sum())


def test_inspect_human_output(cli, shared_data):
    res = cli(["inspect", str(shared_data / "roboarena" / "per_trial_progress_data.csv")])
    assert res.exit_code == 0
    assert "pi0_droid" in res.stdout and "676" in res.stdout and "0.339" in res.stdout
    assert "wide" in res.stdout and "missing" in res.stdout


def test_inspect_preferences_and_importers(cli):
    res = cli(["inspect", str(FIXTURES / "inspect"), "--json"])
    assert res.exit_code == 0, res.stderr
    out = flat(json.loads(res.stdout))
    assert out["format"] == "inspect" and out["n_replicates"] == 2
    human = cli(["inspect", str(FIXTURES / "lm_eval")])
    assert human.exit_code == 0 and "EleutherAI__pythia-410m" in human.stdout and "lm-eval" in human.stdout


def test_inspect_preferences_human(cli, tmp_path):
    p = tmp_path / "b.csv"
    p.write_text("model_a,model_b,winner\nx,y,model_a\ny,z,tie\n")
    res = cli(["inspect", str(p)])
    assert res.exit_code == 0 and "comparisons" in res.stdout and "win rate" in res.stdout


def test_inspect_score_range_option(cli, tmp_path):
    p = tmp_path / "s.csv"
    p.write_text("policy,score\na,50\nb,100\n")
    res = cli(["inspect", str(p), "--score-range", "0,100", "--json"])
    assert res.exit_code == 0
    assert [q["mean"] for q in json.loads(res.stdout)["details"]["policies"]] == [0.5, 1.0]
    bad = cli(["inspect", str(p), "--score-range", "zero"])
    assert bad.exit_code == 2 and "--score-range must be 'lo,hi'" in bad.stderr


@pytest.mark.parametrize("name, text, needle", [
    ("score.csv", "policy,score\na,0.5\nb,1.7\n", "row 3, column 'score': score 1.7 is outside [0, 1]"),
    ("nan.csv", "policy,score\na,\n", "row 2, column 'score': score is missing (NaN)"),
    ("col.csv", "policy,value\na,1\n", "missing required column(s) 'score'"),
    ("empty.csv", "", "the file is empty"),
    ("pref.csv", "model_a,model_b,winner\nx,y,model_a\nx,y,q\n", "row 3, column 'winner': winner 'q' is neither side"),
    ("wide.csv", "p1,p2\n0.5,2\n", "row 2, column 'p2': score 2 is outside [0, 1]"),
])
def test_malformed_inputs_exit_2_with_one_line(cli, tmp_path, name, text, needle):
    p = tmp_path / name
    p.write_text(text)
    res = cli(["inspect", str(p)])
    assert res.exit_code == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and str(p) in lines[0]
    assert needle in lines[0]
    assert res.stdout == ""


def test_missing_path_and_plain_folder_exit_2(cli, tmp_path):
    res = cli(["inspect", str(tmp_path / "nope.csv"), "--json"])
    assert res.exit_code == 2 and res.stderr.strip() == f"error: {tmp_path / 'nope.csv'}: no such file or folder"
    res = cli(["inspect", str(tmp_path)])
    assert res.exit_code == 2 and len(res.stderr.strip().splitlines()) == 1
    assert "is a folder, but not an lm-evaluation-harness --log_samples folder" in res.stderr


def test_unknown_format_exit_2(cli, tmp_path):
    p = tmp_path / "a.csv"
    p.write_text("policy,score\na,1\n")
    res = cli(["inspect", str(p), "--format", "xlsx"])
    assert res.exit_code == 2 and "format must be one of long, wide" in res.stderr
