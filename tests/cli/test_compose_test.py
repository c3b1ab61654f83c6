"""`certirank compose-test`: RPOSST from the command line (composition, evaluation, errors)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from _records import flat
from certirank.methods.rposst import compose_test
from certirank.methods.rposst import read_test_matrix


def test_compose_test_json_equals_api(cli, matrix_wide):
    out = cli(["compose-test", str(matrix_wide), "--size", "2", "--rounds", "50", "--json"])
    assert out.exit_code == 0, out.output
    data = flat(json.loads(out.stdout))
    expected = flat(compose_test(matrix_wide, m=2, rounds=50).to_dict())
    assert data == json.loads(json.dumps(expected))
    assert len(data["test_cases"]) == 2 and abs(sum(data["weights"]) - 1) < 1e-12


def test_compose_test_human(cli, matrix_wide):
    out = cli(["compose-test", str(matrix_wide), "--size", "2", "--solver", "lp", "--eta", "0.5",
                              "--betas", "0,2"])
    assert out.exit_code == 0, out.output
    res = compose_test(matrix_wide, m=2, eta=0.5, betas=(0, 2), solver="lp")
    for name in res.test_cases:
        assert name in out.stdout
    assert "CVaR(0.5)" in out.stdout and f"{res.loss:.4f}" in out.stdout


def test_compose_test_evaluate_human_and_json(cli, matrix_wide):
    args = ["compose-test", str(matrix_wide), "--size", "1,2", "--evaluate", "--holdout", "0.3", "--sets", "3",
            "--rounds", "30", "--seed", "2"]
    human = cli(args)
    assert human.exit_code == 0, human.output
    assert "minimax-uniform" in human.stdout and "Lowest mean max holdout error for m = 2" in human.stdout
    out = cli([*args, "--json"])
    assert out.exit_code == 0, out.output
    data = flat(json.loads(out.stdout))
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
def test_compose_test_errors_exit_2(cli, matrix_wide, args, message):
    out = cli(["compose-test", str(matrix_wide), *args])
    assert out.exit_code == 2
    assert message in out.output


def test_compose_test_bad_file(cli, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("test_case,a,b\nx,1,2\ny,3,oops\n")
    out = cli(["compose-test", str(bad), "--size", "1"])
    assert out.exit_code == 2 and "not a number" in out.output


def test_compose_test_select_variant_and_model_item_table(cli, tmp_path):
    rng = np.random.default_rng(3)
    rows = [(f"model{j}", i, float(rng.random() < 0.3 + 0.05 * j)) for j in range(8) for i in range(12)]
    path = tmp_path / "items.csv"
    pd.DataFrame(rows, columns=["model", "item", "score"]).to_csv(path, index=False)
    out = cli(["compose-test", str(path), "--size", "2", "--rounds", "40", "--json"])
    assert out.exit_code == 0, out.output
    data = flat(json.loads(out.stdout))
    assert data["select"] == "cv" and data["design"] == data["cv"]["chosen"]
    assert data == flat(json.loads(json.dumps(compose_test(path, m=2, rounds=40).to_dict())))
    human = cli(["compose-test", str(path), "--size", "2", "--rounds", "40"])
    assert "Design chosen by nested holdout" in human.stdout and data["design"] in human.stdout
    plain = cli(["compose-test", str(path), "--size", "2", "--select", "rposst", "--json"])
    assert flat(json.loads(plain.stdout))["design"] == "rposst" and flat(json.loads(plain.stdout))["cv"] is None
    sim = cli(["compose-test", str(path), "--size", "1", "--variant", "simultaneous", "--eta", "0.5"])
    assert sim.exit_code == 0, sim.output
    assert "Randomised test" in sim.stdout and "simultaneous move" in sim.stdout
    bad = cli(["compose-test", str(path), "--evaluate", "--select", "rposst"])
    assert bad.exit_code == 2 and "--select and --variant apply to one composition" in bad.output


def test_item_scale_compose_says_how_the_design_was_found(cli, item_table):
    out = cli(["compose-test", str(item_table), "--size", "4", "--json"])
    assert out.exit_code == 0, out.output
    data = flat(json.loads(out.stdout))
    assert data["solver"] == "search" and data["n_tuples"] > 2_000_000
    human = cli(["compose-test", str(item_table), "--size", "4"])
    assert human.exit_code == 0, human.output
    text = " ".join(human.stdout.split())
    # a uniform baseline is found by local search, RPOSST by local search with LP weights; never "round None"
    found = ("Found the design by greedy selection" if data["design"].startswith("rposst")
             else f"Found the {data['design']} design (uniform weights) by greedy selection")
    assert found in text and "C(200, 4)" in text and "None" not in text
    assert f"({data['cv']['repeats']} × {data['cv']['folds']} folds)" in text
    plain = cli(["compose-test", str(item_table), "--size", "4", "--select", "rposst"])
    assert "exact LP weights" in " ".join(plain.stdout.split())


def test_item_scale_evaluate_runs_the_item_protocol(cli, item_table):
    from certirank.methods.rposst import evaluate_item_designs

    args = ["compose-test", str(item_table), "--size", "4", "--evaluate", "--sets", "2", "--methods",
            "cv,miniaverage,random-regression"]
    out = cli([*args, "--json"])
    assert out.exit_code == 0, out.output
    data = flat(json.loads(out.stdout))
    api = evaluate_item_designs(item_table, m=4, sets=2, methods=["cv", "miniaverage", "random-regression"])

    def timeless(d):  # wall times are the one field that differs between two runs
        return {k: [{c: v for c, v in r.items() if c != "seconds"} for r in v] if k in ("table", "per_set") else v
                for k, v in d.items()}
    assert timeless(data) == timeless(flat(json.loads(json.dumps(api.to_dict()))))
    human = cli(args)
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
def test_item_scale_evaluate_errors_exit_2(cli, item_table, args, message):
    out = cli(["compose-test", str(item_table), "--evaluate", *args])
    assert out.exit_code == 2 and message in out.output and len(out.output.strip().splitlines()) == 1


def test_evaluation_logs_with_a_score_range_and_reader_options(cli, tmp_path):
    """An lm-eval folder whose metric runs 0-100: the out-of-range error names --score-range, which compose-test
    takes; reader options reach the reader; a table file refuses both in one line."""
    for j in range(4):
        d = tmp_path / "out" / f"org__m{j}"
        d.mkdir(parents=True)
        lines = [json.dumps({"doc_id": i, "filter": "none", "metrics": ["bleu"], "bleu": float((7 * i + 13 * j) % 61)})
                 for i in range(8)]
        (d / "samples_t_2024-01-01T00-00-00.000000.jsonl").write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    bad = cli(["compose-test", str(out), "--size", "2"])
    assert bad.exit_code == 2 and "--score-range lo,hi" in bad.output
    ok = cli(["compose-test", str(out), "--size", "2", "--score-range", "0,100", "--json"])
    assert ok.exit_code == 0, ok.output
    data = flat(json.loads(ok.stdout))
    assert data == flat(json.loads(json.dumps(compose_test(read_test_matrix(out, score_range=(0.0, 100.0)), m=2).to_dict())))
    assert data["n_test_cases"] == 8 and data["n_policies"] == 4
    unknown = cli(["compose-test", str(out), "--size", "2", "--read-option", "colour=red"])
    assert unknown.exit_code == 2 and "colour" in unknown.output
    table = tmp_path / "t.csv"
    pd.DataFrame({"test_case": ["a", "b", "c"], "p1": [1, 2, 3], "p2": [3, 1, 2], "p3": [2, 2, 1]}).to_csv(table,
                                                                                                      index=False)
    refused = cli(["compose-test", str(table), "--size", "1", "--score-range", "0,3"])
    assert refused.exit_code == 2 and "apply to evaluation logs" in refused.output
    assert len(refused.output.strip().splitlines()) == 1


def test_compose_test_empty_file(cli, tmp_path):
    # was: csv.Error "Could not determine delimiter" traceback
    path = tmp_path / "empty.csv"
    path.write_text("")
    cli.refuses(["compose-test", str(path)], "empty")


def test_compose_test_directory(cli, tmp_path):
    # was: IsADirectoryError traceback
    cli.refuses(["compose-test", str(tmp_path)], "directory")


def test_compose_test_missing_cell_is_not_shown_as_numpy_repr(cli, tmp_path):
    path = tmp_path / "holes.csv"
    path.write_text("p,q\n0.1,0.2\n0.3,\n0.5,0.6\n")
    text = cli.refuses(["compose-test", str(path), "--size", "1"], "'q'", "missing")
    assert "np.float64" not in text


def test_compose_test_long_table_without_test_case_column_says_so(cli, tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("policy,score\np,0.1\nq,0.2\n")
    cli.refuses(["compose-test", str(path)], "no test-case column")


def test_compose_test_rejects_options_of_the_other_mode(cli, matrix):
    # were silently ignored
    cli.refuses(["compose-test", str(matrix), "--methods", "rposst"], "--methods", "--evaluate")
    cli.refuses(["compose-test", str(matrix), "--holdout", "0.5", "--sets", "3"], "--holdout", "--sets")
    cli.refuses(["compose-test", str(matrix), "--evaluate", "--solver", "lp", "--size", "1"], "--solver")
    cli.refuses(["compose-test", str(matrix), "--size", "1,2"], "--evaluate")
