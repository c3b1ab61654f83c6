"""`certirank compose-test` (spec 00 CLI, spec 05)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from certirank.cli import app
from certirank.methods.rposst import compose_test, read_test_matrix

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
    (["--size", "8"], "m must be smaller"), (["--eta", "0"], "eta must be a number in (0, 1]"),
    (["--solver", "magic"], "solver must be one of"), (["--evaluate", "--holdout", "0"], "holdout")])
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


@pytest.fixture()
def item_table(tmp_path):
    """A benchmark at item scale: 200 items x 12 models (C(200, 4) > 2 million tuples), model,item,score."""
    rng = np.random.default_rng(5)
    skill = np.linspace(0.2, 0.8, 12)
    rows = [(f"model{j:02d}", i, float(rng.random() < skill[j])) for j in range(12) for i in range(200)]
    path = tmp_path / "bench.csv"
    pd.DataFrame(rows, columns=["model", "item", "score"]).to_csv(path, index=False)
    return path


def test_item_scale_compose_says_how_the_design_was_found(item_table):
    out = runner.invoke(app, ["compose-test", str(item_table), "--size", "4", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["solver"] == "search" and data["n_tuples"] > 2_000_000
    human = runner.invoke(app, ["compose-test", str(item_table), "--size", "4"])
    assert human.exit_code == 0, human.output
    text = " ".join(human.stdout.split())
    # a uniform baseline is found by local search, RPOSST by local search with LP weights; never "round None"
    found = ("Found the design by greedy selection" if data["design"].startswith("rposst")
             else f"Found the {data['design']} design (uniform weights) by greedy selection")
    assert found in text and "C(200, 4)" in text and "None" not in text
    assert f"({data['cv']['repeats']} × {data['cv']['folds']} folds)" in text
    plain = runner.invoke(app, ["compose-test", str(item_table), "--size", "4", "--select", "rposst"])
    assert "exact LP weights" in " ".join(plain.stdout.split())


def test_item_scale_evaluate_runs_the_item_protocol(item_table):
    from certirank.methods.rposst import evaluate_item_designs

    args = ["compose-test", str(item_table), "--size", "4", "--evaluate", "--sets", "2", "--methods",
            "cv,miniaverage,random-regression"]
    out = runner.invoke(app, [*args, "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    api = evaluate_item_designs(item_table, m=4, sets=2, methods=["cv", "miniaverage", "random-regression"])

    def timeless(d):  # wall times are the one field that differs between two runs
        return {k: [{c: v for c, v in r.items() if c != "seconds"} for r in v] if k in ("table", "per_set") else v
                for k, v in d.items()}
    assert timeless(data) == timeless(json.loads(json.dumps(api.to_dict())))
    human = runner.invoke(app, args)
    assert human.exit_code == 0, human.output
    text = " ".join(human.stdout.split())
    table = api.table.set_index("method")
    others = table.drop(index="cv")["mae"]
    verdict = ("The default design (cv) has the lowest MAE" if table.loc["cv", "mae"] <= others.min()
               else f"NOT the best on this holdout: MAE {table.loc['cv', 'mae']:.4f} vs {others.idxmin()}")
    assert verdict in text and "cv chose" in text and "Kendall tau" in text


@pytest.mark.parametrize("args, message", [
    (["--size", "3,4"], "takes one --size"),
    (["--size", "4", "--betas", "0,1"], "do not apply at item scale"),
])
def test_item_scale_evaluate_errors_exit_2(item_table, args, message):
    out = runner.invoke(app, ["compose-test", str(item_table), "--evaluate", *args])
    assert out.exit_code == 2 and message in out.output and len(out.output.strip().splitlines()) == 1


def test_evaluation_logs_with_a_score_range_and_reader_options(tmp_path):
    """An lm-eval folder whose metric runs 0-100: the out-of-range error names --score-range, which compose-test
    takes; reader options reach the reader; a table file refuses both in one line."""
    for j in range(4):
        d = tmp_path / "out" / f"org__m{j}"
        d.mkdir(parents=True)
        lines = [json.dumps({"doc_id": i, "filter": "none", "metrics": ["bleu"], "bleu": float((7 * i + 13 * j) % 61)})
                 for i in range(8)]
        (d / "samples_t_2024-01-01T00-00-00.000000.jsonl").write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    bad = runner.invoke(app, ["compose-test", str(out), "--size", "2"])
    assert bad.exit_code == 2 and "--score-range lo,hi" in bad.output
    ok = runner.invoke(app, ["compose-test", str(out), "--size", "2", "--score-range", "0,100", "--json"])
    assert ok.exit_code == 0, ok.output
    data = json.loads(ok.stdout)
    assert data == json.loads(json.dumps(compose_test(read_test_matrix(out, score_range=(0.0, 100.0)), m=2).to_dict()))
    assert data["n_test_cases"] == 8 and data["n_policies"] == 4
    unknown = runner.invoke(app, ["compose-test", str(out), "--size", "2", "--read-option", "colour=red"])
    assert unknown.exit_code == 2 and "colour" in unknown.output
    table = tmp_path / "t.csv"
    pd.DataFrame({"test_case": ["a", "b", "c"], "p1": [1, 2, 3], "p2": [3, 1, 2], "p3": [2, 2, 1]}).to_csv(table,
                                                                                                      index=False)
    refused = runner.invoke(app, ["compose-test", str(table), "--size", "1", "--score-range", "0,3"])
    assert refused.exit_code == 2 and "apply to evaluation logs" in refused.output
    assert len(refused.output.strip().splitlines()) == 1
