"""`certirank baseline`: the Bradley–Terry family and leaderboard baselines from the command line."""

from __future__ import annotations

import json

import pandas as pd

from certirank.baselines import baseline


def test_cli_json_is_exactly_to_dict(cli, prefs_abc, tmp_path):
    path = prefs_abc
    out = cli(["baseline", "bt-davidson", str(path), "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data == json.loads(json.dumps(baseline("bt-davidson", path, alpha=0.05).to_dict()))
    assert data["details"]["score_order"] == ["a", "b", "c"]


def test_cli_bootstrap_options_and_human_output(cli, prefs_abc, tmp_path):
    path = prefs_abc
    out = cli(["baseline", "bt_bootstrap", str(path), "--alpha", "0.1", "--n-boot", "300",
                              "--seed", "3", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["inputs"]["alpha"] == 0.1 and data["details"]["n_boot"] == 300
    human = cli(["baseline", "bt", str(path)])
    assert human.exit_code == 0, human.output
    assert "a ranks above b (point estimate, not certified)" in human.output
    assert "Guarantee: none" in human.output


def test_cli_leaderboard_baseline(cli, scores, tmp_path):
    path = scores
    out = cli(["baseline", "t-holm", str(path), "--tau", "0.1", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["details"]["tau"] == 0.1
    assert [(d["better"], d["worse"]) for d in data["ranking"]["relations"]] == [("y", "x")]


def test_cli_errors_exit_2(cli, prefs_abc, tmp_path):
    path = prefs_abc
    out = cli(["baseline", "elo", str(path)])
    assert out.exit_code == 2 and "name must be one of bt, " in out.output
    out = cli(["baseline", "bt", str(path), "--tau", "0.1"])
    assert out.exit_code == 2 and "unknown option" in out.output
    bad = tmp_path / "self.csv"
    pd.DataFrame({"A": ["a", "b"], "B": ["b", "b"], "preference": [0.0, 1.0]}).to_csv(bad, index=False)
    out = cli(["baseline", "bt", str(bad)])
    assert out.exit_code == 2 and "compared with itself" in out.output and "row 3" in out.output
    out = cli(["baseline", "emr", str(path)])
    assert out.exit_code == 2 and "preference table" in out.output
