"""`certirank baseline NAME DATA` command."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from typer.testing import CliRunner

from certirank.baselines import baseline
from certirank.cli import app

runner = CliRunner()


def _write_prefs(tmp_path):
    rows = [("a", "b", 0.0)] * 8 + [("b", "a", 0.0)] * 2 + [("b", "c", 0.0)] * 7 + [("c", "b", 0.5)] * 3 + \
        [("a", "c", 0.0)] * 9 + [("c", "a", 1.0)]
    path = tmp_path / "prefs.csv"
    pd.DataFrame(rows, columns=["A", "B", "preference"]).to_csv(path, index=False)
    return path


def _write_scores(tmp_path):
    rng = np.random.default_rng(0)
    rows = [(m, f"i{i}", r, float(rng.random() < p)) for r in range(3) for i in range(40)
            for m, p in (("x", 0.2), ("y", 0.8))]
    path = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["model", "item", "replicate", "score"]).to_csv(path, index=False)
    return path


def test_cli_json_is_exactly_to_dict(tmp_path):
    path = _write_prefs(tmp_path)
    out = runner.invoke(app, ["baseline", "bt-davidson", str(path), "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data == json.loads(json.dumps(baseline("bt-davidson", path, alpha=0.05).to_dict()))
    assert data["order"] == ["a", "b", "c"]


def test_cli_bootstrap_options_and_human_output(tmp_path):
    path = _write_prefs(tmp_path)
    out = runner.invoke(app, ["baseline", "bt_bootstrap", str(path), "--alpha", "0.1", "--n-boot", "300",
                              "--seed", "3", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["alpha"] == 0.1 and data["details"]["n_boot"] == 300
    human = runner.invoke(app, ["baseline", "bt", str(path)])
    assert human.exit_code == 0, human.output
    assert "a ranks above b (point estimate, not certified)" in human.output
    assert "Guarantee: none" in human.output


def test_cli_leaderboard_baseline(tmp_path):
    path = _write_scores(tmp_path)
    out = runner.invoke(app, ["baseline", "t-holm", str(path), "--tau", "0.1", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["details"]["tau"] == 0.1
    assert [(d["better"], d["worse"]) for d in data["decisions"]] == [("y", "x")]


def test_cli_errors_exit_2(tmp_path):
    path = _write_prefs(tmp_path)
    out = runner.invoke(app, ["baseline", "elo", str(path)])
    assert out.exit_code == 2 and "name must be one of bt, " in out.output
    out = runner.invoke(app, ["baseline", "bt", str(path), "--tau", "0.1"])
    assert out.exit_code == 2 and "unknown option" in out.output
    bad = tmp_path / "self.csv"
    pd.DataFrame({"A": ["a", "b"], "B": ["b", "b"], "preference": [0.0, 1.0]}).to_csv(bad, index=False)
    out = runner.invoke(app, ["baseline", "bt", str(bad)])
    assert out.exit_code == 2 and "compared with itself" in out.output and "row 3" in out.output
    out = runner.invoke(app, ["baseline", "emr", str(path)])
    assert out.exit_code == 2 and "preference table" in out.output
