"""`rank` (AnyRank) and `compare` run the same exact test for a pair of the same budget and arms (issue 31):
one rule, `evidence.budget.default_statistic`, asked by `make_design` (compare, check) and by AnyRank's setup
(`rank`)."""

import numpy as np
import pytest

from certirank.evidence.budget import BAYES_MAX_BUDGET, default_statistic, make_design, paired_default
from certirank.methods.anyrank import run_campaigns
from certirank.methods.anyrank.config import BUDGET_CONCENTRATION, _make_setup


def _setup(n, **kw):
    return _make_setup(["a", "b"], 0.05, "anyrank", None, 1.0, n, "allow", "paper", bins="binary", budget="final", **kw)


@pytest.mark.parametrize("n", [30, 50, 120, 200, 600, 1000, BAYES_MAX_BUDGET + 1])
def test_rank_asks_the_rule_compare_runs_on_paired_arms(n):
    stat, a = default_statistic(n, "paired")
    assert (stat, a) == paired_default(n) == default_statistic(n, "paired")
    s = _setup(n)
    assert s.statistic == stat
    # the mixture's prior in a campaign is AnyRank's measured Beta(4, 4) (compare tunes it for power at the budget)
    assert s.concentration == (a if a is not None else BUDGET_CONCENTRATION)
    des = make_design(n, arms="paired") if n <= 1000 else None
    if des is not None:
        assert des.statistic == stat and (a is None or des.a == a)


@pytest.mark.parametrize("n", [40, 400, 401])
def test_rank_asks_the_rule_compare_runs_on_independent_arms(n):
    stat, _ = default_statistic(n, "independent")
    assert stat == ("barnard" if n <= 400 else "mixture")
    assert _setup(n, arms="independent").statistic == stat


def test_an_explicit_statistic_or_prior_is_kept():
    assert default_statistic(200, "paired", "mixture", None) == ("mixture", None)
    assert default_statistic(200, "paired", None, 8.0) == ("mixture", 8.0)
    s = _setup(200, statistic="mixture")
    assert (s.statistic, s.concentration) == ("mixture", BUDGET_CONCENTRATION)


def test_rank_on_a_wide_binary_table_runs_the_per_budget_statistic_and_says_so():
    rng = np.random.default_rng(3)
    tables = (rng.random((20, 200, 3)) < np.array([0.3, 0.5, 0.8])).astype(float)
    new = run_campaigns(tables, n_max=200, budget="final", bins="binary", arms="paired")
    same = run_campaigns(tables, n_max=200, budget="final", bins="binary", arms="paired",
                         statistic=paired_default(200)[0], concentration=paired_default(200)[1])
    assert [r.to_dict()["ranking"] for r in new] == [r.to_dict()["ranking"] for r in same]
    assert [r.total_samples for r in new] == [r.total_samples for r in same]
