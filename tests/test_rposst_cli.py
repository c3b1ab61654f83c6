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
    out = runner.invoke(app, ["compose-test", str(matrix_csv), "-m", "2", "--rounds", "50", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    expected = compose_test(matrix_csv, 2, rounds=50).to_dict()
    assert data == json.loads(json.dumps(expected))
    assert len(data["test_cases"]) == 2 and abs(sum(data["weights"]) - 1) < 1e-12


def test_compose_test_human(matrix_csv):
    out = runner.invoke(app, ["compose-test", str(matrix_csv), "-m", "2", "--solver", "lp", "--eta", "0.5",
                              "--betas", "0,2"])
    assert out.exit_code == 0, out.output
    res = compose_test(matrix_csv, 2, eta=0.5, betas=(0, 2), solver="lp")
    for name in res.test_cases:
        assert name in out.stdout
    assert "CVaR(0.5)" in out.stdout and f"{res.loss:.4f}" in out.stdout


def test_compose_test_evaluate_human_and_json(matrix_csv):
    args = ["compose-test", str(matrix_csv), "-m", "1,2", "--evaluate", "--holdout", "0.3", "--sets", "3",
            "--rounds", "30", "--seed", "2"]
    human = runner.invoke(app, args)
    assert human.exit_code == 0, human.output
    assert "minimax-uniform" in human.stdout and "Lowest mean max holdout error for m = 2" in human.stdout
    out = runner.invoke(app, [*args, "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["holdout_size"] == 3 and data["sets"] == 3 and data["m"] == [1, 2]
    assert {row["method"] for row in data["table"]} == {"rposst", "minimax-uniform", "minimax-ttd", "minimax-tnp",
                                                         "miniaverage", "iterative-minimax"}
    assert len(data["per_set"]) == 2 * 6 * 3


@pytest.mark.parametrize("args, message", [
    (["-m", "8"], "m must be smaller"), (["--eta", "0"], "eta must be in (0, 1]"),
    (["--solver", "magic"], "unknown solver"), (["--evaluate", "--holdout", "0"], "holdout")])
def test_compose_test_errors_exit_2(matrix_csv, args, message):
    out = runner.invoke(app, ["compose-test", str(matrix_csv), *args])
    assert out.exit_code == 2
    assert message in out.output


def test_compose_test_bad_file(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("test_case,a,b\nx,1,2\ny,3,oops\n")
    out = runner.invoke(app, ["compose-test", str(bad), "-m", "1"])
    assert out.exit_code == 2 and "not a number" in out.output
