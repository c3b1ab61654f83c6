"""`certirank compose-test` (spec 00 CLI, spec 05)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from certirank.cli import app
from certirank.methods.rposst import compose_test

runner = CliRunner()


@pytest.fixture()
def matrix_csv(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.random((8, 10)).round(3), columns=[f"pol{j}" for j in range(10)])
    frame.insert(0, "test_case", [f"case{i}" for i in range(8)])
    path = tmp_path / "matrix.csv"
    frame.to_csv(path, index=False)
    return path


def test_compose_test_json_equals_api(matrix_csv):
    out = runner.invoke(app, ["compose-test", str(matrix_csv), "--size", "2", "--rounds", "50", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    expected = compose_test(matrix_csv, m=2, rounds=50).to_dict()
    assert data == json.loads(json.dumps(expected))
    assert len(data["test_cases"]) == 2 and abs(sum(data["weights"]) - 1) < 1e-12


def test_compose_test_human(matrix_csv):
    out = runner.invoke(app, ["compose-test", str(matrix_csv), "--size", "2", "--solver", "lp", "--eta", "0.5",
                              "--betas", "0,2"])
    assert out.exit_code == 0, out.output
    res = compose_test(matrix_csv, m=2, eta=0.5, betas=(0, 2), solver="lp")
    for name in res.test_cases:
        assert name in out.stdout
    assert "CVaR(0.5)" in out.stdout and f"{res.loss:.4f}" in out.stdout


def test_compose_test_evaluate_human_and_json(matrix_csv):
    args = ["compose-test", str(matrix_csv), "--size", "1,2", "--evaluate", "--holdout", "0.3", "--sets", "3",
            "--rounds", "30", "--seed", "2"]
    human = runner.invoke(app, args)
    assert human.exit_code == 0, human.output
    assert "minimax-uniform" in human.stdout and "Lowest mean max holdout error for m = 2" in human.stdout
    out = runner.invoke(app, [*args, "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["holdout_size"] == 3 and data["sets"] == 3 and data["m"] == [1, 2]
    assert {row["method"] for row in data["table"]} == {"cv", "rposst", "minimax-uniform", "minimax-ttd",
                                                         "minimax-tnp", "miniaverage", "iterative-minimax"}
    assert len(data["per_set"]) == 2 * 7 * 3
    # the table says in words whether the default design was the best on the evaluation holdout
    words = " ".join(human.stdout.split())  # the console wraps long lines at its width
    for m in (1, 2):
        rows = [r for r in data["table"] if r["m"] == m]
        cv = next(r for r in rows if r["method"] == "cv")
        best = min(r["mean_max_error"] for r in rows if r["method"] != "cv")
        verdict = "has the lowest" if cv["mean_max_error"] <= best + 1e-12 else "is NOT the best"
        assert f"m = {m}: the default design (cv; chose" in words and verdict in words


@pytest.mark.parametrize("args, message", [
    (["--size", "8"], "m must be smaller"), (["--eta", "0"], "eta must be in (0, 1]"),
    (["--solver", "magic"], "unknown solver"), (["--evaluate", "--holdout", "0"], "holdout")])
def test_compose_test_errors_exit_2(matrix_csv, args, message):
    out = runner.invoke(app, ["compose-test", str(matrix_csv), *args])
    assert out.exit_code == 2
    assert message in out.output


def test_compose_test_bad_file(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("test_case,a,b\nx,1,2\ny,3,oops\n")
    out = runner.invoke(app, ["compose-test", str(bad), "--size", "1"])
    assert out.exit_code == 2 and "not a number" in out.output


def test_compose_test_select_variant_and_model_item_table(tmp_path):
    rng = np.random.default_rng(3)
    rows = [(f"model{j}", i, float(rng.random() < 0.3 + 0.05 * j)) for j in range(8) for i in range(12)]
    path = tmp_path / "items.csv"
    pd.DataFrame(rows, columns=["model", "item", "score"]).to_csv(path, index=False)
    out = runner.invoke(app, ["compose-test", str(path), "--size", "2", "--rounds", "40", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["select"] == "cv" and data["design"] == data["cv"]["chosen"]
    assert data == json.loads(json.dumps(compose_test(path, m=2, rounds=40).to_dict()))
    human = runner.invoke(app, ["compose-test", str(path), "--size", "2", "--rounds", "40"])
    assert "Design chosen by nested holdout" in human.stdout and data["design"] in human.stdout
    plain = runner.invoke(app, ["compose-test", str(path), "--size", "2", "--select", "rposst", "--json"])
    assert json.loads(plain.stdout)["design"] == "rposst" and json.loads(plain.stdout)["cv"] is None
    sim = runner.invoke(app, ["compose-test", str(path), "--size", "1", "--variant", "simultaneous", "--eta", "0.5"])
    assert sim.exit_code == 0, sim.output
    assert "Randomised test" in sim.stdout and "simultaneous move" in sim.stdout
    bad = runner.invoke(app, ["compose-test", str(path), "--evaluate", "--select", "rposst"])
    assert bad.exit_code == 2 and "--select and --variant apply to one composition" in bad.output
