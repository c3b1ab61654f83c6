"""Exact budget test (spec 08) and the mixture e-processes: numerics against brute force, validity by
seeded Monte Carlo with explicit binomial tolerances."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

import certirank
from certirank.errors import DataError, ParameterError
from certirank.evidence import PairedTest, paired_batch
from certirank.methods.compare import compare
from certirank.evidence._walk import first_passage
from certirank.evidence.budget import (BudgetDesign, BudgetTest, budget_batch, crossing_boundary,
                                       level_of, log_statistic, threshold)


def _upper(alpha: float, runs: int, k: float = 4.0) -> float:
    """alpha plus k binomial standard deviations: the tolerance of every validity check here."""
    return alpha + k * math.sqrt(alpha * (1 - alpha) / runs)


def test_statistic_matches_numerical_integral():
    from scipy import integrate

    a, k, s = 3.0, 9, 6
    beta = stats.beta(a, a)
    num = integrate.quad(lambda q: (2 * q) ** s * (2 * (1 - q)) ** (k - s) * beta.pdf(q), 0.5, 1)[0] / 0.5
    assert float(np.exp(log_statistic(k, s, a))) == pytest.approx(num, rel=1e-9)
    row = log_statistic(np.full(k + 1, k), np.arange(k + 1), a)
    assert np.all(np.diff(row) > 0)  # increasing in s: the crossing region is {s >= b(k)}


@pytest.mark.parametrize("n,a", [(8, 1.0), (12, 4.0), (16, 16.0)])
def test_paired_level_equals_enumeration_of_all_paths(n, a):
    paths = np.array(list(itertools.product((0, 1), repeat=n)), dtype=np.int64)  # 2^n fair-coin paths
    s = np.cumsum(paths, axis=1)
    k = np.arange(1, n + 1)
    lt = log_statistic(np.broadcast_to(k, s.shape), s, a)
    best = lt.max(axis=1)
    values = np.unique(best[best > 0])
    for m in values[::max(1, values.size // 12)]:
        m = float(m)
        brute = np.mean(best >= m)
        assert level_of(m, n, a, "paired") == pytest.approx(brute, abs=1e-12)


def test_independent_level_equals_enumeration_of_all_trial_sequences():
    # n trials per policy, tie at p = 1/2: D in {-1, 0, +1} with probabilities 1/4, 1/2, 1/4 (3^n sequences)
    n, a = 9, 2.0
    seqs = np.array(list(itertools.product((-1, 0, 1), repeat=n)), dtype=np.int64)
    prob = np.prod(np.where(seqs == 0, 0.5, 0.25), axis=1)
    k = np.cumsum(seqs != 0, axis=1)
    s = np.cumsum(seqs == 1, axis=1)
    best = np.maximum(log_statistic(k, s, a).max(axis=1), 0.0)
    for m in (0.3, 0.9, 1.5, 2.2):
        brute = prob[best >= m - 1e-9].sum()
        assert level_of(m, n, a, "independent") == pytest.approx(brute, abs=1e-12)


def test_level_matches_monte_carlo_at_n_200():
    n, a, runs = 200, 8.0, 20000
    m = threshold(0.05, n, a, "paired")
    g = level_of(m, n, a, "paired")
    des = BudgetDesign(n, concentration=a)
    rng = np.random.default_rng(8)
    s = np.cumsum(rng.integers(0, 2, (runs, n)), axis=1)
    hit = (des.log_t(np.broadcast_to(np.arange(1, n + 1), s.shape), s) >= m - 1e-9).any(axis=1)
    sd = math.sqrt(g * (1 - g) / runs)
    assert abs(hit.mean() - g) <= 4 * sd
    # m is the least reachable value with G(m) <= 0.05: at the next lower reachable value G exceeds it
    table = log_statistic(*np.tril_indices(n + 1), a)
    below = table[table < m - 1e-9].max()
    assert g <= 0.05 < level_of(float(below), n, a, "paired")


def test_independent_arms_worst_case_is_the_half_half_tie():
    # spec 08 §3b: the level over the whole null p1 <= p0 is attained at p0 = p1 = 1/2
    n, a = 60, 16.0
    m = threshold(0.025, n, a, "independent")
    worst = level_of(m, n, a, "independent")
    f_cache = {}
    grid = np.linspace(0.02, 0.98, 13)
    for p0 in grid:
        for p1 in grid[grid <= p0 + 1e-12]:
            r = p1 * (1 - p0) + p0 * (1 - p1)
            q = p1 * (1 - p0) / r
            key = round(q, 12)
            if key not in f_cache:
                f_cache[key] = first_passage(crossing_boundary(m, n, a), q)
            lvl = f_cache[key] @ stats.binom.sf(np.arange(n + 1) - 1, n, r)
            assert lvl <= worst + 1e-12
    assert worst <= 0.025


@pytest.mark.parametrize("arms,p", [("paired", None), ("independent", 0.5), ("independent", 0.2),
                                    ("independent", 0.9)])
def test_no_claim_under_exact_ties_within_tolerance(arms, p):
    n, runs, alpha = 200, 3000, 0.05
    rng = np.random.default_rng(15 + (0 if p is None else int(100 * p)))
    if p is None:  # paired worst case: every trial discordant, fair coin (y = 1 - x)
        x = rng.integers(0, 2, (runs, n)).astype(float)
        y = 1.0 - x
    else:
        x = (rng.random((runs, n)) < p).astype(float)
        y = (rng.random((runs, n)) < p).astype(float)
    res = budget_batch(x, y, BudgetDesign(n, alpha=alpha, arms=arms))
    assert np.mean(res["decision"] != 0) <= _upper(alpha, runs)


def test_independent_calibration_is_not_valid_for_correlated_pairs_but_paired_is():
    # the reason arms="paired" is the default: with every pair discordant, the independent-arms
    # calibration over-rejects, the paired one does not
    n, runs, alpha = 200, 3000, 0.05
    rng = np.random.default_rng(3)
    x = rng.integers(0, 2, (runs, n)).astype(float)
    y = 1.0 - x
    ind = budget_batch(x, y, BudgetDesign(n, alpha=alpha, arms="independent"))
    par = budget_batch(x, y, BudgetDesign(n, alpha=alpha, arms="paired"))
    assert np.mean(ind["decision"] != 0) > _upper(alpha, runs)
    assert np.mean(par["decision"] != 0) <= _upper(alpha, runs)


def test_budget_power_beats_the_e_process_at_budget_200():
    # the point of spec 08: at a known budget the exact test separates more pairs
    n, runs = 200, 600
    rng = np.random.default_rng(21)
    x = (rng.random((runs, n)) < 0.5).astype(float)
    y = (rng.random((runs, n)) < 0.7).astype(float)
    exact = budget_batch(x, y, BudgetDesign(n, arms="independent"))
    eproc = paired_batch(x, y, 0.05, bettor="adaptive", bins="binary")
    pe, pv = np.mean(exact["decision"] == 1), np.mean(eproc.decision == 1)
    assert pe > pv + 3 * math.sqrt(pv * (1 - pv) / runs)


def test_streaming_budget_test_agrees_with_batch_and_compare():
    rng = np.random.default_rng(5)
    x = (rng.random((20, 120)) < 0.45).astype(float)
    y = (rng.random((20, 120)) < 0.6).astype(float)
    des = BudgetDesign(120, alpha=0.05, arms="paired")
    batch = budget_batch(x, y, des)
    for r in range(20):
        t = BudgetTest(120, concentration=des.a).update_many(x[r], y[r])
        assert (t.decided_at or 0) == batch["decided_at"][r]
        assert {"x<y": 1, "x>y": -1, None: 0}[t.decision] == batch["decision"][r]
        c = compare(x[r], y[r], bins="binary", n_max=120, concentration=des.a, order="given")
        assert c.pvalue == t.pvalue and c.horizon == 120 and "exact budget test" in c.test
    # p-process: non-increasing, and <= alpha exactly when the decision is made
    t = BudgetTest(120, concentration=des.a)
    ps = []
    for a_, b_ in zip(x[0], y[0]):
        t.update(a_, b_)
        ps.append(t.pvalue)
    assert np.all(np.diff(ps) <= 0)


def test_final_budget_refuses_more_trials_extendable_continues():
    with pytest.raises(DataError, match="exceed the final budget"):
        compare([0] * 11, [1] * 11, bins="binary", n_max=10)
    r = compare([0] * 40, [1] * 40, bins="binary", n_max=10, extendable=True)
    assert r.horizon is None and r.decision == "x<y" and "extendable" in r.test
    with pytest.raises(DataError, match="binary"):
        compare([0.5] * 3, [1] * 3, bins="binary", n_max=10)
    with pytest.raises(ParameterError):
        compare([0] * 3, [1] * 3, bins="binary", n_max=10, arms="crossed")
    # partial-progress bins: the e-process is used and the result says so
    r = compare([0.2] * 5, [0.6] * 5, n_max=10)
    assert r.horizon is None and "budget not used" in r.test


def test_extendable_valid_past_the_budget_under_a_tie():
    n, runs, alpha = 50, 3000, 0.05
    rng = np.random.default_rng(9)
    x = rng.integers(0, 2, (runs, 200)).astype(float)
    y = rng.integers(0, 2, (runs, 200)).astype(float)
    res = budget_batch(x, y, BudgetDesign(n), extendable=True)
    assert np.mean(res["decision"] != 0) <= _upper(alpha, runs)
    for r in range(8):  # the batch form makes the streaming form's decisions
        t = BudgetTest(n, extendable=True).update_many(x[r], y[r])
        assert (t.decided_at or 0) == res["decided_at"][r]


# ---- mixture e-processes ------------------------------------------------------------------------

def test_adaptive_equals_beta_mixture_on_binary_data_and_nscore_stakes_after_partial_scores():
    rng = np.random.default_rng(2)
    x = (rng.random((30, 200)) < 0.4).astype(float)
    y = (rng.random((30, 200)) < 0.6).astype(float)
    a = paired_batch(x, y, bettor="adaptive")
    b = paired_batch(x, y, bettor="beta_mixture", concentration=1.5)
    np.testing.assert_allclose(a.log_wealth, b.log_wealth, atol=1e-9)
    assert np.array_equal(a.decided_at, b.decided_at)
    # after a partial score the stakes are N-SCORE's, computed from bin counts over all pairs so far
    t = PairedTest(bettor="adaptive").update_many([0, 1, 0.3], [1, 1, 0.7])
    ref = PairedTest(bettor="nscore").update_many([0, 1, 0.3], [1, 1, 0.7])
    assert t.lam_next == ref.lam_next


def test_beta_mixture_is_the_conjugate_closed_form():
    x = [0, 1, 0, 0, 1, 1, 0]
    y = [1, 1, 0, 1, 0, 1, 1]
    t = PairedTest(bettor="beta_mixture", concentration=2.0).update_many(x, y)
    k = sum(a != b for a, b in zip(x, y))
    s = sum(b > a for a, b in zip(x, y))
    assert t.log_evalue_less == pytest.approx(float(log_statistic(k, s, 2.0)), abs=1e-12)
    assert t.log_evalue_more == pytest.approx(float(log_statistic(k, k - s, 2.0)), abs=1e-12)


@pytest.mark.parametrize("bettor,kind", [("adaptive", "binary"), ("mixture", "progress"), ("adaptive", "progress")])
def test_mixture_e_processes_valid_under_ties(bettor, kind):
    runs, horizon, alpha = 1000, 200, 0.05
    rng = np.random.default_rng(31)
    if kind == "binary":
        x = rng.integers(0, 2, (runs, horizon)).astype(float)
        y = rng.integers(0, 2, (runs, horizon)).astype(float)
    else:
        x = rng.integers(0, 11, (runs, horizon)) / 10
        y = rng.integers(0, 11, (runs, horizon)) / 10
    r = paired_batch(x, y, alpha, bettor=bettor)
    assert np.mean(r.decision != 0) <= _upper(alpha, runs)


def test_old_default_bettor_still_selectable_and_state_round_trip():
    r = certirank.compare([0] * 10, [1] * 10, bins="binary", bettor="nscore")
    assert r.decided_at == 8  # spec 01 T5
    t = PairedTest(bettor="mixture").update_many([0.1, 0.9, 0.4], [0.6, 0.8, 0.9])
    back = PairedTest.from_state(t.to_state())
    t.update(0.2, 0.7)
    back.update(0.2, 0.7)
    assert back.log_evalue_less == t.log_evalue_less and back.lam_next == t.lam_next
