"""The four hostile inputs that were strict xfails until they were fixed at their cause (issue 33 item 1): each is
refused in one line naming what is wrong, and the neighbouring valid value still works (so the fix is not a
blanket refusal)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import certirank
from certirank.errors import ParameterError
from certirank.multitest import Graph
from hostile_support import assert_refused, invoke


def test_demo_seed_beyond_the_declared_range_is_refused(fresh):
    line = assert_refused(invoke(["demo", "--quiet", "--seed", str(2**64)]))
    assert "--seed" in line and "below 2**63" in line and str(2**64) in line


def test_demo_seed_at_the_top_of_the_range_runs():
    res = invoke(["demo", "--quiet", "--json", "--seed", str(2**63 - 1)])
    assert res.exit_code == 0, res.stderr


def test_seed_range_is_one_declaration():
    """The range the CLI's refusal names is the contract's: 2**63 - 1 passes, 2**63 does not."""
    from certirank._params import declaration
    seed = declaration("seed")
    assert seed.check(2**63 - 1) == 2**63 - 1
    with pytest.raises(ParameterError, match="below 2\\*\\*63"):
        seed.check(2**63)


@pytest.mark.parametrize("score", ["", "   "])
def test_empty_campaign_score_is_refused_and_nothing_is_recorded(fresh, score):
    before = invoke(["campaign", "log", fresh["camp"], "--json"]).stdout
    line = assert_refused(invoke(["campaign", "record", fresh["camp"], "A", "1", score, "--ahead"]))
    assert "score is empty" in line and "'missing'" in line
    assert invoke(["campaign", "log", fresh["camp"], "--json"]).stdout == before


def test_missing_is_still_a_missing_run(fresh):
    res = invoke(["campaign", "record", fresh["camp"], "A", "1", "missing", "--ahead"])
    assert res.exit_code == 0, res.stderr
    assert "score missing" in res.stdout


@pytest.mark.parametrize("pvalues", [10**400, [10**400, 0.1], [0.1, -(10**400)]])
def test_graph_test_with_an_integer_beyond_any_float(pvalues):
    g = Graph([0.5, 0.5], [[0.0, 1.0], [1.0, 0.0]])
    with pytest.raises(ParameterError, match="within the range of a float") as info:
        certirank.graph_test(g, pvalues, 0.05)
    assert "\n" not in str(info.value) and len(str(info.value)) < 300  # 10**400 is cut, not printed whole


def test_graph_with_a_huge_weight_is_refused():
    with pytest.raises(ParameterError, match="weights must be numeric"):
        Graph([10**400, 0.0], [[0.0, 1.0], [1.0, 0.0]])


def _board() -> pd.DataFrame:
    return pd.DataFrame({"model": np.repeat(["m1", "m2", "m3"], 8), "item": np.tile([f"i{i}" for i in range(4)], 6),
                         "replicate": np.tile(np.repeat([0, 1], 4), 3),
                         "score": np.random.default_rng(1).random(24).round(2)})


def test_baseline_that_tests_refuses_alpha_none():
    with pytest.raises(ParameterError, match="alpha must be a number in \\(0, 1\\) for baseline 't-holm'"):
        certirank.baseline("t-holm", _board(), alpha=None)


def test_point_estimate_baseline_still_takes_alpha_none():
    table = pd.DataFrame({"policy": np.repeat(["A", "B", "C"], 10), "env": np.tile([f"e{i}" for i in range(10)], 3),
                          "score": (np.random.default_rng(3).random(30) < np.repeat([0.2, 0.5, 0.8], 10)).astype(float)})
    res = certirank.baseline("bt", table, alpha=None)
    assert res.alpha is None
