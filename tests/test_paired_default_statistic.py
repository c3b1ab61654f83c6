"""The paired exact budget test's default statistic is chosen per budget for fewer rollouts to a decision (issue 31
item 4): `certirank.evidence.budget.paired_default`, used by `make_design` and so by `compare`."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import certirank
from certirank.evidence._walk import first_passage
from certirank.evidence.budget import (BAYES_MAX_BUDGET, PAIRED_PRIORS, BudgetTest, budget_batch, crossing_boundary,
                                       level_of, make_design, paired_default)


def test_the_default_follows_the_table_and_keeps_the_mixture_where_it_was_not_measured():
    first = PAIRED_PRIORS[0][0]
    assert make_design(first - 1, arms="paired").statistic == "mixture"
    assert make_design(BAYES_MAX_BUDGET + 1, arms="paired").statistic == "mixture"
    for budget, prior in PAIRED_PRIORS:
        stat, a = paired_default(budget)
        assert (stat, a) == (("mixture", None) if prior is None else ("bayes", prior))
    # a budget between two rows takes the row below it
    (lo, prior_lo), (hi, _) = PAIRED_PRIORS[1], PAIRED_PRIORS[2]
    assert paired_default((lo + hi) // 2) == paired_default(lo)
    # explicit choices win; independent arms keep the Barnard-type test; a table read whole keeps the mixture
    assert make_design(200, arms="paired", statistic="mixture").statistic == "mixture"
    assert make_design(200, arms="paired", concentration=4.0).statistic == "mixture"
    assert make_design(200, arms="independent").statistic == "barnard"
    assert BudgetTest(200, final_share=0.95).design.statistic == "mixture"


@pytest.mark.parametrize("n", [50, pytest.param(200, marks=pytest.mark.slow)])
def test_exact_level_of_the_default_at_its_threshold(n):
    des = make_design(n, arms="paired")
    m = des.threshold(des.side_level)
    assert level_of(m, n, des.a, "paired", des.statistic) <= des.side_level * (1 + 1e-9)


def test_ties_monte_carlo_any_claim_within_alpha():
    """Exact ties at 0.5 on correlated paired outcomes: P(any claim) <= alpha + 4 binomial SDs (3,000 runs)."""
    rng = np.random.default_rng(31)
    runs, n = 3000, 50
    shared = rng.random((runs, n)) < 0.5
    x = np.where(rng.random((runs, n)) < 0.5, shared, rng.random((runs, n)) < 0.5).astype(float)
    y = np.where(rng.random((runs, n)) < 0.5, shared, rng.random((runs, n)) < 0.5).astype(float)
    out = budget_batch(x, y, make_design(n, arms="paired"))
    assert np.mean(out["decision"] != 0) <= 0.05 + 4 * np.sqrt(0.05 * 0.95 / runs)


def _exact(des, n, r, q):
    """(power, expected trials to the decision) of the one-sided side, exactly (discordance r, win share q)."""
    bnd = crossing_boundary(des.threshold(des.side_level), n, des.a, des.statistic, des.arms)
    kk = np.arange(n + 1)
    e_min = stats.binom.cdf(kk[:, None] - 1, np.arange(n)[None, :], r).sum(axis=1)
    f = first_passage(bnd, q)
    return float(f @ stats.binom.sf(kk - 1, n, r)), float(f @ e_min + (1.0 - f.sum()) * n)


def test_fewer_expected_trials_than_the_mixture_on_correlated_outcomes_at_similar_power():
    # 0.5 vs 0.7 on shared environments (correlation about 0.36): r = 0.334, q = 0.800 (the study's scenario)
    n = 200
    new = _exact(make_design(n, arms="paired"), n, 0.334, 0.800)
    old = _exact(make_design(n, arms="paired", statistic="mixture"), n, 0.334, 0.800)
    assert new[1] < old[1] - 5 and new[0] >= old[0] - 0.01


def test_compare_names_the_statistic_it_ran():
    rng = np.random.default_rng(0)
    x, y = (rng.random(200) < 0.3).astype(float), (rng.random(200) < 0.8).astype(float)
    res = certirank.compare(x, y, bins="binary", n_max=200)
    assert "fastest-decision" in res.test or paired_default(200)[0] == "mixture"
    assert res.decision == "x<y"
