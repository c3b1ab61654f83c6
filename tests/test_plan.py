"""Which test runs on data in hand (spec 09 §6, issue 31 item 1): decided from what is known before the data."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import certirank
from certirank.errors import DataError, ParameterError
from certirank import compare
from certirank.methods.plan import layout_arms, plan_whole_data


def _lists(path: Path, outcomes: dict[str, np.ndarray]) -> Path:
    rows = [{"Task": "t", "Method": m, "Outcomes": "[" + ",".join(str(int(v)) for v in o) + "]"}
            for m, o in outcomes.items()]
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_binary_scale_budget_and_arms_from_the_data():
    plan = plan_whole_data(np.array([[0, 1], [1, 1.0]]), units=2, layout=("independent", "outcome lists"))
    assert (plan.bins, plan.n_max, plan.arms, plan.budget, plan.exact) == ("binary", 2, "independent", "final", True)
    assert plan.describe() == ("binary scores (every value is 0 or 1), exact budget test, N = 2 (the pairing units "
                               "in hand), independent arms: outcome lists")
    progress = plan_whole_data(np.array([[0, 0.5], [1, np.nan]]), units=2)
    assert not progress.exact and progress.bins == "progress" and progress.n_max is None
    assert "anytime e-process" in progress.describe()
    # one value strictly between 0 and 1 anywhere in the table makes the whole table partial progress
    assert plan_whole_data(np.r_[np.zeros(999), 0.5], units=1000).bins == "progress"
    # above the largest precomputed budget the anytime e-process runs, and says why
    big = plan_whole_data(np.zeros(10), units=10_000)
    assert not big.exact and "10000 pairing units" in big.describe()
    assert not plan_whole_data(np.zeros(10), units=10, budget="none").exact


def test_declared_choices_win_and_are_checked_against_the_data():
    assert plan_whole_data(np.zeros(4), units=4, bins="progress").bins == "progress"
    assert plan_whole_data(np.zeros(4), units=4, n_max=10).n_max == 10
    with pytest.raises(DataError, match=r"n_max = 3 is smaller than the data in hand \(4 pairing units\)"):
        plan_whole_data(np.zeros(4), units=4, n_max=3)
    with pytest.raises(ParameterError, match="needs binary scores"):
        plan_whole_data(np.array([0.5, 1.0]), units=2, budget="final")
    with pytest.raises(ParameterError, match=r"arms \(--arms\) applies to the exact budget test only"):
        plan_whole_data(np.array([0.5, 1.0]), units=2, arms="independent")
    warned = plan_whole_data(np.zeros(4), units=4, arms="independent",
                             layout=("paired", "wide rows (one row per environment)"))
    assert warned.arms == "independent" and "valid for any correlation" in warned.warnings[0]


def test_layouts_say_how_trials_pair(tmp_path):
    lists = certirank.load(_lists(tmp_path / "l.csv", {"A": np.ones(5), "B": np.zeros(5)}))
    assert layout_arms(lists)[0] == "independent"
    wide = certirank.load(pd.DataFrame({"A": [1.0, 0.0], "B": [0.0, 1.0]}))
    assert layout_arms(wide)[0] == "paired"
    long_no_env = tmp_path / "long.csv"
    pd.DataFrame({"policy": ["A", "A", "B", "B"], "score": [1, 0, 0, 1]}).to_csv(long_no_env, index=False)
    assert layout_arms(certirank.load(long_no_env))[0] == "independent"
    long_env = tmp_path / "env.csv"
    pd.DataFrame({"policy": ["A", "A", "B", "B"], "env": ["e1", "e2", "e1", "e2"],
                  "score": [1, 0, 0, 1]}).to_csv(long_env, index=False)
    assert layout_arms(certirank.load(long_env))[0] == "paired"


def test_bare_compare_on_outcome_lists_runs_the_tuned_step_level_test(cli, tmp_path):
    """What the STEP study measured with three options set (bins='binary', n_max=N, arms='independent') is what the
    bare command runs on the published layout: the same numbers, so the same power and rollouts."""
    rng = np.random.default_rng(3)
    x, y = (rng.random(50) < 0.5).astype(float), (rng.random(50) < 0.9).astype(float)
    path = _lists(tmp_path / "ab.csv", {"A": x, "B": y})
    res = cli(["compare", str(path), "--a", "A", "--b", "B", "--json"])
    assert res.exit_code == 0, res.output
    got = json.loads(res.stdout)
    tuned = compare(x, y, bins="binary", n_max=50, arms="independent")
    assert (got["details"]["decided_at"], got["details"]["pvalue"]) == (tuned.decided_at, tuned.pvalue)
    assert (got["inputs"]["n_max"], got["inputs"]["arms"]) == (50, "independent")
    assert got["warnings"][0].startswith("note: binary scores (every value is 0 or 1), exact budget test, N = 50")
    text = cli(["compare", str(path), "--a", "A", "--b", "B"])
    assert "independent arms: outcome lists" in text.stderr  # the terminal says it too (--json keeps it in the record)


def test_bare_rank_states_the_test_and_matches_the_declared_call(cli, tmp_path):
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"a": (rng.random(80) < 0.2).astype(float), "b": (rng.random(80) < 0.8).astype(float)})
    bare = certirank.anyrank(df)
    declared = certirank.anyrank(df, bins="binary", n_max=80, arms="paired")
    assert bare.to_dict()["ranking"] == declared.to_dict()["ranking"]
    assert bare.to_dict()["details"] == declared.to_dict()["details"]
    assert bare.warnings[0].startswith("note: binary scores (every value is 0 or 1), exact budget test, N = 80")
    assert declared.warnings[0].startswith("note: binary scores (declared), exact budget test, N = 80 (declared)")
    path = tmp_path / "w.csv"
    df.to_csv(path, index=False)
    out = cli(["rank", str(path)])
    assert out.exit_code == 0 and "exact budget test, N = 80" in " ".join((out.stdout + out.stderr).split())
