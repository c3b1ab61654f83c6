"""The fastest-decision statistic of the exact budget test (evidence/budget_bayes.py): its level against brute
force, the monotonicity the proofs use, validity by seeded Monte Carlo, and that it decides sooner than the
mixture it is built from (exact computation, no simulation)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from certirank.errors import ParameterError
from certirank.evidence._walk import discordance_weights, first_passage, mixture_table
from certirank.evidence.budget import BudgetDesign, _table, crossing_boundary, level_of, threshold
from certirank.evidence.budget_bayes import _backward, _trial_costs, bayes_table
from certirank.evidence.budget_streams import BudgetStreams


def _upper(alpha: float, runs: int, k: float = 4.0) -> float:
    return alpha + k * math.sqrt(alpha * (1 - alpha) / runs)


@pytest.mark.parametrize("n,arms", [(16, "paired"), (13, "independent")])
def test_level_equals_enumeration(n, arms):
    tab = bayes_table(n, 4.0, arms)
    if arms == "paired":
        steps = np.array(list(itertools.product((0, 1), repeat=n)), dtype=np.int64)
        prob = np.full(len(steps), 0.5 ** n)
        k = np.broadcast_to(np.arange(1, n + 1), steps.shape)
        s = np.cumsum(steps, axis=1)
    else:  # tie at p = 1/2: D in {-1, 0, +1} with probabilities 1/4, 1/2, 1/4
        seqs = np.array(list(itertools.product((-1, 0, 1), repeat=n)), dtype=np.int64)
        prob = np.prod(np.where(seqs == 0, 0.5, 0.25), axis=1)
        k, s = np.cumsum(seqs != 0, axis=1), np.cumsum(seqs == 1, axis=1)
    best = np.maximum(tab[k, s].max(axis=1), 0.0)
    values = np.unique(best[best > 0])
    assert values.size >= 3  # the statistic is not degenerate
    for m in values[::max(1, values.size // 10)]:
        assert level_of(float(m), n, 4.0, arms, "bayes") == pytest.approx(prob[best >= m - 1e-9].sum(), abs=1e-12)


@pytest.mark.parametrize("arms", ["paired", "independent"])
def test_monotone_in_wins_and_losses(arms):
    n = 60
    tab = bayes_table(n, 4.0, arms)
    k, s = np.tril_indices(n)  # k < n
    # T(k + 1, s + 1) >= T(k, s) >= T(k + 1, s): a win never lowers it, a loss never raises it
    assert np.all(tab[k + 1, s + 1] >= tab[k, s])
    assert np.all(tab[k, s] >= tab[k + 1, s])
    assert tab[0, 0] == 0.0  # p = 1 before any data


def test_rejection_sets_are_nested_in_lambda():
    # the construction reads one statistic off a family of Bayes rules; that needs rule(lambda) to shrink
    # as lambda grows (module docstring); check it state by state on the raw, unprojected rules
    n = 40

    log_l, s0, cost = mixture_table(n, 4.0), discordance_weights(n, "paired"), _trial_costs(n, 0.5)
    grid = np.arange(0.0, 12.0, 0.25)
    lam = np.exp(grid)[:, None]
    v = np.zeros((grid.size, n + 1))
    for k in range(n - 1, -1, -1):
        cont = np.exp(log_l[k, :k + 1]) * cost[k] + 0.5 * (v[:, 1:k + 2] + v[:, :k + 1])
        rej = lam * s0[k] <= cont
        assert np.all(rej[1:] <= rej[:-1])  # rejected at lambda => rejected at every smaller lambda
        v = np.minimum(lam * s0[k], cont)
    raw = _backward(log_l, s0, cost, grid)
    assert np.isfinite(raw[n // 2, n // 2:]).any()


def test_decides_sooner_than_the_mixture_it_is_built_from():
    # exact expected trials to a decision (at most n) for a gap the budget can resolve, at the level a campaign
    # gives its last comparison; both tests calibrated exactly at that level
    n, level = 400, 0.025
    p_win, p_loss = 0.55 * 0.6, 0.4 * 0.45  # independent Bernoulli 0.55 vs 0.40
    r, q = p_win + p_loss, p_win / (p_win + p_loss)
    kk = np.arange(n + 1)
    e_min = stats.binom.cdf(kk[:, None] - 1, np.arange(n)[None, :], r).sum(axis=1)

    def trials(statistic):
        m = threshold(level, n, 4.0, "paired", statistic)
        assert level_of(m, n, 4.0, "paired", statistic) <= level
        f = first_passage(crossing_boundary(m, n, 4.0, statistic), q)
        return float(f @ e_min + (1 - f.sum()) * n)

    fast, mix = trials("bayes"), trials("mixture")
    assert fast < 0.97 * mix


@pytest.mark.parametrize("arms,n", [("paired", 120), ("independent", 120)])
def test_no_claim_under_exact_ties_within_tolerance(arms, n):
    # worst cases: every pair discordant (paired), p0 = p1 = 1/2 (independent arms)
    runs, alpha = 4000, 0.1
    rng = np.random.default_rng(11)
    if arms == "paired":
        x = rng.integers(0, 2, (runs, n)).astype(float)
        y = 1.0 - x
    else:
        x = rng.integers(0, 2, (runs, n)).astype(float)
        y = rng.integers(0, 2, (runs, n)).astype(float)
    bank = BudgetStreams(runs, n, alpha=alpha, ties="allow", arms=arms, concentration=4.0, statistic="bayes")
    claimed = np.zeros(runs, dtype=bool)
    for t in range(n):
        bank.update(None, x[:, t], y[:, t])
        claimed |= bank.pvalue <= alpha
    assert claimed.mean() <= _upper(alpha, runs)
    assert claimed.mean() > 0.02  # the level is used, not wasted


def test_design_names_the_statistic_and_refuses_unknown_ones():
    des = BudgetDesign(50, concentration=4.0, statistic="bayes")
    assert "fastest-decision" in des.name and des.config()["statistic"] == "bayes"
    assert _table(50, 4.0, "bayes", "paired") is bayes_table(50, 4.0, "paired")
    with pytest.raises(ParameterError, match="statistic"):
        BudgetDesign(50, concentration=4.0, statistic="fast")
    with pytest.raises(ParameterError, match="concentration"):
        BudgetStreams(3, 50, statistic="bayes")


def test_independent_arms_worst_case_is_the_half_half_tie():
    # spec 08 §3b's supremum over the null p1 <= p0 rests on the monotonicity above; check it on a grid
    n = 60
    m = threshold(0.025, n, 4.0, "independent", "bayes")
    worst = level_of(m, n, 4.0, "independent", "bayes")
    bnd = crossing_boundary(m, n, 4.0, "bayes", "independent")
    grid = np.linspace(0.02, 0.98, 13)
    for p0 in grid:
        for p1 in grid[grid <= p0 + 1e-12]:
            r = p1 * (1 - p0) + p0 * (1 - p1)
            lvl = first_passage(bnd, p1 * (1 - p0) / r) @ stats.binom.sf(np.arange(n + 1) - 1, n, r)
            assert lvl <= worst + 1e-12
    assert 0.01 < worst <= 0.025
