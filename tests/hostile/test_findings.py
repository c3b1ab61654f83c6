"""Regression tests for the non-campaign rows of table 1a of ../shared/findings/reliability.md (issue 33 item 1),
each fixed at its cause: the row number is in the test name."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import certirank
from certirank.errors import CertirankError, CertirankWarning, ParameterError
from hostile_support import assert_api_refusal, assert_refused, invoke


@pytest.mark.parametrize("which", ["binary", "camp"])
def test_row_1_report_of_a_binary_or_campaign_file_is_one_line(inputs, tmp_path, which):
    line = assert_refused(invoke(["report", inputs[which], "--html", str(tmp_path / "r.html")]))
    assert "not a text (UTF-8 JSON) file" in line and not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("path", [None, 123, "a\0b.json", b"x.json"])
def test_rows_9_10_saving_a_ranker_to_a_non_path_is_a_parameter_error(path):
    r = certirank.Ranker(["A", "B"])
    with pytest.raises(ParameterError, match="file path") as err:
        r.save(path)
    assert_api_refusal(err.value)


def test_rows_9_10_every_atomic_writer_checks_its_path(tmp_path):
    """One cause, one fix: `atomic_path` (used by every saved state, table and result writer) checks the path."""
    board = certirank.Leaderboard(["m1", "m2"])
    for save in (board.save, lambda p: certirank.data.write_table(
            pd.DataFrame({"policy": ["A"], "score": [1.0]}), p, format="csv")):
        for bad in (None, 1.5, "x\0y.csv", str(tmp_path)):
            with pytest.raises(CertirankError) as err:
                save(bad)
            assert_api_refusal(err.value)


@pytest.mark.parametrize("load", ["Ranker", "Leaderboard"])
@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '{"a":' * 50_000 + "1" + "}" * 50_000])
def test_row_11_deeply_nested_json_is_refused_in_one_line(load, text):
    with pytest.raises(CertirankError, match="nested too deeply|invalid JSON|not a saved") as err:
        getattr(certirank, load).from_json(text)
    assert_api_refusal(err.value)


@pytest.mark.parametrize("claims", [123, None, 1.5, {"A>B": 1}, object()])
def test_row_12_check_with_claims_that_are_not_text(claims):
    t = pd.DataFrame({"policy": ["A", "B"] * 3, "env": ["1", "1", "2", "2", "3", "3"], "score": [1, 0] * 3})
    with pytest.raises(ParameterError, match="claims must be a claim such as 'A>B'") as err:
        certirank.check(t, claims)
    assert_api_refusal(err.value)


def test_row_13_simulate_to_a_folder_is_refused_before_running(tmp_path):
    with pytest.raises(ParameterError, match="it is a folder") as err:
        certirank.simulate("HO-F", "anyrank0", reps=2, out=tmp_path)
    assert_api_refusal(err.value)
    with pytest.raises(ParameterError, match="does not exist"):
        certirank.simulate("HO-F", "anyrank0", reps=2, out=tmp_path / "no-folder" / "runs.parquet")


def test_row_13_simulate_writes_both_parquet_files_atomically(tmp_path):
    res = certirank.simulate("HO-F", "anyrank0", reps=2, out=tmp_path / "runs.parquet", n_max=20)
    runs = pd.read_parquet(tmp_path / "runs.parquet")
    assert len(runs) == 2 and (tmp_path / "runs.snapshots.parquet").is_file()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert res is not None


def test_row_28_alpha_near_one_and_an_empty_wide_column_are_warned(inputs, tmp_path):
    """Accepting is right here (alpha is the user's choice; an empty column is a policy not yet run), so a
    one-line warning, not a refusal."""
    res = invoke(["rank", inputs["long"], "--alpha", "0.999999"])
    assert res.exit_code == 0 and any(line.startswith("warning: ") and "alpha" in line
                                      for line in res.stderr.splitlines())
    wide = tmp_path / "w.csv"
    wide.write_text("A,B,C\n1,0,\n0,1,\n1,1,\n")
    for cmd in (["inspect", str(wide)], ["rank", str(wide)]):
        res = invoke(cmd)
        assert res.exit_code == 0 and any(line.startswith("warning: ") and "'C'" in line and "no values" in line
                                          for line in res.stderr.splitlines()), res.stderr


def test_row_28_prior_means_outside_unit_interval_are_never_silent(inputs, tmp_path):
    """Item 7 of issue 33 makes these an error (the parameter contract); until then a warning: never silent."""
    prior = tmp_path / "p.json"
    prior.write_text(json.dumps({"A": 70, "B": 50, "C": 20}))
    for extra in (["--prior-means", "A=70,B=50,C=20"], ["--prior", str(prior)]):
        res = invoke(["rank", inputs["long"], *extra])
        said = [line for line in res.stderr.splitlines() if line.startswith(("warning: ", "error: "))]
        assert res.exit_code in (0, 2) and any("[0, 1]" in line for line in said), res.stderr


def test_row_29_huge_prior_and_gamma_give_one_line_not_numpy_warnings(inputs):
    res = invoke(["rank", inputs["long"], "--prior-means", "A=1e308,B=0.5,C=0.2", "--gamma", "1e300"])
    line = assert_refused(res)  # now refused up front: prior means live in [0, 1] (issue 33 item 7)
    assert "RuntimeWarning" not in res.stderr and "[0, 1]" in line


def test_row_29_from_prior_refuses_an_overflowing_gamma_in_the_api():
    from certirank.multitest.graphs import from_prior
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy RuntimeWarning on the way
        with pytest.raises(ParameterError, match="overflows"):
            from_prior([1e308, 0.5, 0.1], gamma=1e300)


def test_also_unchanged_compose_test_on_a_one_column_file(tmp_path):
    """It read the header 'score' as the separator 's' (a sniffer) and then the scores as test-case names."""
    f = tmp_path / "one.csv"
    f.write_text("score\n0.5\n0.8\n0.1\n")
    line = assert_refused(invoke(["compose-test", str(f)]))
    assert "one column of scores ('score')" in line


def test_complex_scores_are_refused_not_read_as_their_real_part():
    """Row 22 of table 1a, at the one validation point every reader shares (validate_table)."""
    for cell in (1j, 0.5 + 1j, np.complex128(0.5)):
        with pytest.raises(certirank.DataError, match="complex number") as err:
            certirank.load(pd.DataFrame({"policy": ["A", "B"], "env": ["1", "1"], "score": [cell, 0.5]}))
        assert_api_refusal(err.value)


def test_a_prior_file_that_is_binary_or_deeply_nested_is_one_line(tmp_path):
    from certirank.methods.anyrank.demo import read_prior_file
    for name, data in (("b.json", bytes(range(256))), ("d.json", b"[" * 100_000 + b"]" * 100_000)):
        p = tmp_path / name
        p.write_bytes(data)
        with pytest.raises(ParameterError) as err:
            read_prior_file(p)
        assert_api_refusal(err.value)
    assert Path(tmp_path).is_dir()


def test_report_refuses_read_options_without_data(inputs, tmp_path):
    """--format and --score-range say how to read --data; without it they were dropped without a word."""
    for extra in (["--format", "long"], ["--score-range", "0,100"]):
        line = assert_refused(invoke(["report", inputs["result"], "--html", str(tmp_path / "r.html"), *extra]))
        assert "--data" in line and not (tmp_path / "r.html").exists()


def test_an_empty_choice_is_refused_not_taken_as_the_default(inputs):
    for args in (["rank", inputs["long"], "--bins", ""], ["compose-test", inputs["matrix"], "--size", ""]):
        assert_refused(invoke(args))
