"""Regression tests for problems found by using the `certirank` command as its users would (QA pass).

Each test pins one fixed problem: a traceback turned into a one-line error with exit code 2, an option that
was dropped without a word, a name mangled in the human output, or a guarantee missing from it.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from certirank.cli import app

runner = CliRunner()


def _fails_cleanly(args: list[str], *needles: str) -> str:
    """Run the CLI, expect exit code 2 without a traceback, and the message to mention every needle."""
    res = runner.invoke(app, args)
    text = res.output
    # an escaped exception gives exit code 1 and sets res.exception to it; a clean error is SystemExit(2)
    assert res.exit_code == 2, (res.exit_code, text, res.exception)
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert "Traceback" not in text
    for needle in needles:
        assert needle in text, (needle, text)
    return text


@pytest.fixture
def prefs(tmp_path: Path) -> Path:
    path = tmp_path / "prefs.csv"
    rows = [("p", "q", 0.0), ("q", "p", 1.0), ("p", "r", 0.5), ("r", "q", 0.0)] * 5
    pd.DataFrame(rows, columns=["A", "B", "preference"]).to_csv(path, index=False)
    return path


@pytest.fixture
def wide(tmp_path: Path) -> Path:
    """A wide per-trial table whose policy names contain rich markup characters."""
    rng = np.random.default_rng(0)
    n = 40
    frame = pd.DataFrame({"policy[v2]": rng.binomial(10, 0.1, n) / 10, "[bold]b": rng.binomial(10, 0.9, n) / 10,
                          "c/x": rng.binomial(10, 0.5, n) / 10})
    path = tmp_path / "wide.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.fixture
def panel(tmp_path: Path) -> Path:
    """Long model,item,replicate,score table, 3 replicates of 60 items: m0 and m1 share the same items' scores
    (exactly tied, so never certified), m2 and m3 are far better."""
    rng = np.random.default_rng(1)
    base = {m: rng.random((3, 60)) < p for m, p in (("m0", 0.2), ("m2", 0.7), ("m3", 0.95))}
    base["m1"] = base["m0"]
    rows = [(m, i, r, float(base[m][r, i])) for m in sorted(base) for r in range(3) for i in range(60)]
    path = tmp_path / "panel.csv"
    pd.DataFrame(rows, columns=["model", "item", "replicate", "score"]).to_csv(path, index=False)
    return path


@pytest.fixture
def matrix(tmp_path: Path) -> Path:
    rng = np.random.default_rng(2)
    rows = [(f"case{i}", f"pol{j}", float(rng.random())) for i in range(6) for j in range(5)]
    path = tmp_path / "matrix.csv"
    pd.DataFrame(rows, columns=["test_case", "policy", "score"]).to_csv(path, index=False)
    return path


# ----------------------------------------------------------------------------- preference files

def test_compare_on_preference_file_is_a_clear_error(prefs):
    # was: KeyError 'order' traceback
    _fails_cleanly(["compare", str(prefs), "--a", "p", "--b", "q"], "preferences", "baseline")


def test_leaderboard_on_preference_file_is_a_clear_error(prefs):
    # was: KeyError 'env' traceback
    _fails_cleanly(["leaderboard", str(prefs)], "preferences", "baseline")


# ----------------------------------------------------------------------------- compose-test input files

def test_compose_test_empty_file(tmp_path):
    # was: csv.Error "Could not determine delimiter" traceback
    path = tmp_path / "empty.csv"
    path.write_text("")
    _fails_cleanly(["compose-test", str(path)], "empty")


def test_compose_test_directory(tmp_path):
    # was: IsADirectoryError traceback
    _fails_cleanly(["compose-test", str(tmp_path)], "directory")


def test_compose_test_missing_cell_is_not_shown_as_numpy_repr(tmp_path):
    path = tmp_path / "holes.csv"
    path.write_text("p,q\n0.1,0.2\n0.3,\n0.5,0.6\n")
    text = _fails_cleanly(["compose-test", str(path), "--size", "1"], "'q'", "missing")
    assert "np.float64" not in text


def test_compose_test_long_table_without_test_case_column_says_so(tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("policy,score\np,0.1\nq,0.2\n")
    _fails_cleanly(["compose-test", str(path)], "no test-case column")


# ----------------------------------------------------------------------------- options

def test_negative_seed_is_a_usage_error(prefs, matrix):
    # was: numpy "expected non-negative integer" traceback (demo, compose-test, baseline bt-bootstrap)
    _fails_cleanly(["demo", "--seed", "-1"], "--seed")
    _fails_cleanly(["compose-test", str(matrix), "--seed", "-1"], "--seed")
    _fails_cleanly(["baseline", "bt-bootstrap", str(prefs), "--seed", "-1"], "--seed")


def test_compose_test_rejects_options_of_the_other_mode(matrix):
    # were silently ignored
    _fails_cleanly(["compose-test", str(matrix), "--methods", "rposst"], "--methods", "--evaluate")
    _fails_cleanly(["compose-test", str(matrix), "--holdout", "0.5", "--sets", "3"], "--holdout", "--sets")
    _fails_cleanly(["compose-test", str(matrix), "--evaluate", "--solver", "lp", "--size", "1"], "--solver")
    _fails_cleanly(["compose-test", str(matrix), "--size", "1,2"], "--evaluate")


def test_heldout_prior_rows_message_states_the_real_minimum(wide):
    # the default 0 is valid, so "must be >= 1" was wrong
    _fails_cleanly(["rank", str(wide), "--heldout-prior-rows", "-1"], "non-negative integer")


def test_plot_into_missing_folder_fails_before_the_analysis(wide, tmp_path):
    missing = tmp_path / "nope" / "fig.png"
    text = _fails_cleanly(["rank", str(wide), "--plot", str(missing)], "does not exist")
    assert "better than" not in text  # no ranking was computed and printed first


def test_simulate_out_is_checked_before_the_runs(tmp_path):
    # was: OSError traceback after all runs (missing folder); a .csv name silently received Parquet bytes
    _fails_cleanly(["simulate", "HO-I", "-n", "1", "--out", str(tmp_path / "nope" / "r.parquet")], "does not exist")
    _fails_cleanly(["simulate", "HO-I", "-n", "1", "--out", str(tmp_path / "r.csv")], ".parquet")
    assert not (tmp_path / "r.csv").exists()


def test_ties_help_uses_the_same_spelling_in_compare_and_rank():
    for cmd in ("compare", "rank"):
        res = runner.invoke(app, [cmd, "--help"], env={"COLUMNS": "200"})
        assert res.exit_code == 0
        assert "assume_none" in res.output and "assume-none" not in res.output


# ----------------------------------------------------------------------------- human output

def test_names_with_brackets_print_as_written(wide):
    # rich markup swallowed '[v2]' and '[bold]' in policy names
    res = runner.invoke(app, ["rank", str(wide)], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "policy[v2]" in res.output and "[bold]b" in res.output
    res = runner.invoke(app, ["inspect", str(wide)], env={"COLUMNS": "200"})
    assert "policy[v2]" in res.output and "[bold]b" in res.output


def test_compare_states_its_guarantee(wide):
    res = runner.invoke(app, ["compare", str(wide), "--a", "c/x", "--b", "[bold]b", "--alpha", "0.1"],
                        env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "Guarantee" in res.output and "alpha = 0.1" in res.output


def test_leaderboard_lists_edges_undecided_pairs_and_guarantee(panel):
    res = runner.invoke(app, ["leaderboard", str(panel)], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    out = json.loads(runner.invoke(app, ["leaderboard", str(panel), "--json"]).stdout)
    for better, worse in out["edges"]:
        assert f"{better} is better than {worse}" in res.output
    assert ["m0", "m1"] not in out["edges"] and ["m1", "m0"] not in out["edges"]
    assert "Undecided" in res.output and ("m0 vs m1" in res.output or "m1 vs m0" in res.output)
    assert "Guarantee" in res.output and "95%" in res.output


# ----------------------------------------------------------------------------- Python API errors

def test_load_rejects_non_paths_with_one_line():
    import certirank
    from certirank.errors import CertirankError
    for bad in (None, 5):  # None is refused by the parameter contract, 5 by the reader registry: the same sentence
        with pytest.raises(CertirankError, match="file path or a pandas DataFrame"):
            certirank.load(bad)


def test_error_messages_show_plain_numbers_not_numpy_reprs():
    import certirank
    from certirank.errors import CertirankError
    for call in (lambda: certirank.compare([1.5, 0.2], [0.2, 0.3]), lambda: certirank.e_holm([-1.0, 2.0], 0.05)):
        with pytest.raises(CertirankError) as info:
            call()
        assert "np.float64" not in str(info.value)
        assert "1.5" in str(info.value) or "-1" in str(info.value)


def test_compare_on_repeated_runs_points_to_leaderboard(panel):
    _fails_cleanly(["compare", str(panel), "--a", "m0", "--b", "m2"], "several replicates", "leaderboard")


def test_demo_takes_alpha_like_every_other_command():
    res = runner.invoke(app, ["demo", "--alpha", "0.1", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["anyrank"]["alpha"] == 0.1 and out["bonferroni"]["alpha"] == 0.1
    _fails_cleanly(["demo", "--alpha", "1.5"], "alpha")


def test_negative_seed_is_a_parameter_error_in_the_api():
    from certirank._validate import as_generator
    from certirank.errors import ParameterError

    with pytest.raises(ParameterError, match="seed must be a non-negative integer"):
        as_generator(-1)
    assert as_generator(3).integers(100) == np.random.default_rng(3).integers(100)


def test_bonferroni_result_states_its_own_guarantee():
    from certirank.methods.anyrank import run_campaign

    scores = np.random.default_rng(0).binomial(1, [0.2, 0.5, 0.8], size=(300, 3))
    res = run_campaign(scores, alpha=0.1, method="bonferroni")
    assert "Bonferroni" in res.statement and "Theorem 1" not in res.statement
    res = run_campaign(scores, alpha=0.1, method="anyrank0")
    assert "Theorem 1" in res.statement


def test_anyrank_refuses_more_policies_than_its_graph_is_built_for():
    from certirank.errors import ParameterError
    from certirank.methods.anyrank import MAX_POLICIES, run_campaign

    scores = np.random.default_rng(0).random((3, MAX_POLICIES + 1))  # a transposed table: many "policies"
    with pytest.raises(ParameterError, match="at most"):
        run_campaign(scores)


def test_unequal_item_weights_are_not_silently_dropped(tmp_path):
    rng = np.random.default_rng(0)
    rows = ["policy,env,score,weight"]
    for e in range(40):
        w = 0.5 if e < 20 else 1.5
        rows += [f"{p},{e},{int(rng.random() < mu)},{w}" for p, mu in (("a", 0.2), ("b", 0.8))]
    path = tmp_path / "weighted.csv"
    path.write_text("\n".join(rows) + "\n")
    for args in (["rank", str(path)], ["compare", str(path), "--a", "a", "--b", "b"]):
        _fails_cleanly(args, "weight", "leaderboard", str(path))
    # equal weights change nothing, so they are accepted
    path.write_text("\n".join(r.rsplit(",", 1)[0] + ",1.0" if i else r for i, r in enumerate(rows)) + "\n")
    for args in (["rank", str(path), "--json"], ["compare", str(path), "--a", "a", "--b", "b", "--json"]):
        res = runner.invoke(app, args)
        assert res.exit_code == 0, res.output
