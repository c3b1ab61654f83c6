"""The Barnard-type exact budget test for independent arms (issue 31 item 2): its statistic, its level polynomial
against brute-force enumeration, the proven bound on the supremum over the nuisance rate, and its level and power
by seeded Monte Carlo with explicit binomial tolerances."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import certirank
from certirank.errors import ParameterError
from certirank.evidence import barnard as B
from certirank.evidence.budget import BudgetTest, budget_batch, make_design
from certirank.evidence.budget_streams import BudgetStreams


def _upper(alpha: float, runs: int, k: float = 4.0) -> float:
    return alpha + k * math.sqrt(alpha * (1 - alpha) / runs)


def test_statistic_agrees_with_its_likelihood_form_and_grid_form():
    for t in (1, 9, 60, 400):
        r = np.arange(t + 1)
        grid = B._grid_z(t)
        point = B.z_statistic(t, r[:, None], r[None, :])
        assert np.array_equal(grid, point)  # same arithmetic: the streams cross where the DP does
        assert np.abs(point - B._likelihood_z(t, r[:, None], r[None, :])).max() < 1e-9


def test_statistic_is_monotone_in_both_counts():
    assert B.check_monotone(120)


@pytest.mark.slow
def test_statistic_is_monotone_up_to_the_largest_budget():
    assert B.check_monotone(B.MAX_BUDGET)


@pytest.mark.parametrize("n", [3, 5, 6])
def test_level_polynomial_equals_enumeration_of_all_outcome_sequences(n):
    des = B.BarnardDesign(n, alpha=0.4)
    seqs = np.array(list(itertools.product((0, 1), repeat=2 * n)))  # all 4^n sequences of both arms
    a, b = np.cumsum(seqs[:, 0::2], axis=1), np.cumsum(seqs[:, 1::2], axis=1)
    best = des.stat(np.broadcast_to(np.arange(1, n + 1), a.shape), a, b).max(axis=1)
    j = seqs.sum(axis=1)
    values = np.unique(best[np.isfinite(best)])
    assert values.size >= 2
    for m in values[:6]:
        h = B._bernstein(B._crossing_fractions(des.c, np.array([m])))
        for p in (0.05, 0.37, 0.5, 0.81):
            brute = ((best >= m - 1e-9) * p ** j * (1 - p) ** (2 * n - j)).sum()
            got = B._curve(h, np.array([math.asin(math.sqrt(p))]))[0, 0]
            assert got == pytest.approx(brute, abs=1e-12)
        # the proven bound lies above every value of the polynomial and close to its maximum
        fine = B._curve(h, np.linspace(0, math.pi / 2, 20001)).max()
        bound = B.sup_bound(h)[0]
        assert fine <= bound <= fine * 1.05 + 1e-12


def test_proven_supremum_bounds_a_fine_grid_at_a_real_budget():
    des = B.barnard_design(40)
    for m in (0.0, 0.7):
        h = B._bernstein(B._crossing_fractions(des.c, np.array([m])))
        fine = B._curve(h, np.linspace(0, math.pi / 2, 100001)).max()
        bound = B.sup_bound(h)[0]
        assert fine <= bound <= fine * 1.02


def test_design_level_is_proven_and_the_decision_threshold_is_zero():
    des = B.barnard_design(40)
    assert des.threshold(des.side_level) == 0.0
    assert des.pvalue_of(0.0) <= des.side_level
    # any one-sided null point (p1 <= p0) crosses no more often than the tie line allows (Theorem 1)
    for p0, p1 in [(0.5, 0.5), (0.6, 0.45), (0.3, 0.1), (0.9, 0.85)]:
        oc = _less_side_crossing(des, p0, p1)
        assert oc <= des.pvalue_of(0.0) + 1e-12


def _less_side_crossing(des, p0, p1):
    u = np.ones((1, 1))
    total = 0.0
    for t in range(1, des.n_max + 1):
        u = B._advance(u, np.array(p0), np.array(p1))
        if math.isfinite(des.c[t]):
            cross = B._grid_z(t) - des.c[t] >= -1e-12
            total += u[cross].sum()
            u = np.where(cross, 0.0, u)
    return total


@pytest.mark.parametrize("p", [0.2, 0.5, 0.9])
def test_no_claim_under_exact_ties_within_tolerance(p):
    n, runs, alpha = 40, 3000, 0.05
    rng = np.random.default_rng(int(100 * p))
    x = (rng.random((runs, n)) < p).astype(float)
    y = (rng.random((runs, n)) < p).astype(float)
    res = budget_batch(x, y, make_design(n, alpha=alpha, arms="independent"))
    assert np.mean(res["decision"] != 0) <= _upper(alpha, runs)


def test_monte_carlo_power_and_rollouts_match_the_exact_dynamic_programme():
    n, runs = 40, 3000
    des = make_design(n, arms="independent")
    oc = B.operating_characteristics(des, 0.7, 0.9)
    rng = np.random.default_rng(5)
    x = (rng.random((runs, n)) < 0.7).astype(float)
    y = (rng.random((runs, n)) < 0.9).astype(float)
    res = budget_batch(x, y, des)
    power = np.mean(res["decision"] == 1)
    assert abs(power - oc["power"]) <= 4 * math.sqrt(oc["power"] * (1 - oc["power"]) / runs)
    used = np.where(res["decision"] != 0, res["decided_at"], n)
    assert abs(used.mean() - oc["rollouts"]) <= 4 * used.std() / math.sqrt(runs)


def test_streaming_batch_and_bank_agree():
    n = 30
    rng = np.random.default_rng(11)
    x = (rng.random((40, n)) < 0.4).astype(float)
    y = (rng.random((40, n)) < 0.75).astype(float)
    des = make_design(n, arms="independent")
    res = budget_batch(x, y, des)
    bank = BudgetStreams(40, n, arms="independent", statistic="barnard")
    decided = np.zeros(40, dtype=int)
    for t in range(n):
        bank.update(None, x[:, t], y[:, t])
        newly = (decided == 0) & (bank.pvalue_less <= des.side_level)
        decided[newly] = t + 1
    for r in range(40):
        test = BudgetTest(n, arms="independent").update_many(x[r], y[r])
        assert (test.decided_at or 0) == res["decided_at"][r]
        assert {"x<y": 1, "x>y": -1, None: 0}[test.decision] == res["decision"][r]
        if res["decision"][r] == 1:
            assert decided[r] == res["decided_at"][r]
            assert test.p_less <= des.side_level


def test_compare_uses_both_success_counts_for_independent_arms():
    x = [1, 1, 0, 1, 1, 1, 0, 1, 1, 1] * 4
    y = [1] * 40
    r = certirank.compare(x, y, bins="binary", n_max=40, arms="independent")
    assert "Barnard-type" in r.test and r.decision == "x<y"
    # the discordant-pair calibration (statistic='mixture') sees only the 8 discordant pairs and stays undecided
    old = certirank.compare(x, y, bins="binary", n_max=40, arms="independent", statistic="mixture")
    assert old.decision is None


def test_barnard_refuses_paired_arms_and_long_budgets():
    with pytest.raises(ParameterError, match="independent"):
        make_design(50, arms="paired", statistic="barnard")
    with pytest.raises(ParameterError, match="n_max <= 400"):
        make_design(B.MAX_BUDGET + 1, arms="independent", statistic="barnard")
    # above the limit independent arms fall back on the discordant-pair test
    assert make_design(B.MAX_BUDGET + 1, arms="independent").statistic == "mixture"


@pytest.mark.slow
@pytest.mark.parametrize("p", [0.1, 0.3, 0.5, 0.7, 0.95])
def test_no_claim_under_exact_ties_at_200_rollouts(p):
    n, runs, alpha = 200, 10000, 0.05
    rng = np.random.default_rng(1000 + int(100 * p))
    x = (rng.random((runs, n)) < p).astype(float)
    y = (rng.random((runs, n)) < p).astype(float)
    res = budget_batch(x, y, make_design(n, alpha=alpha, arms="independent"))
    assert np.mean(res["decision"] != 0) <= _upper(alpha, runs)


# ---- McNemar's exact test at the budget (issue 31 item 7: tables read whole) ---------------------------------

def test_final_share_reads_mcnemars_exact_pvalue_at_the_budget():
    from scipy import stats

    from certirank.evidence.budget import final_pvalues

    rng = np.random.default_rng(3)
    x = (rng.random(300) < 0.6).astype(float)
    y = (rng.random(300) < 0.5).astype(float)
    test = BudgetTest(300, final_share=0.9).update_many(x, y)
    k, s = int(((x != y)).sum()), int((y > x).sum())
    mc_more = stats.binomtest(k - s, k, 0.5, alternative="greater").pvalue
    assert final_pvalues(k, s)[1] == pytest.approx(mc_more, rel=1e-12)
    assert test.p_more <= mc_more / 0.9 + 1e-15
    assert "McNemar" in test.name


@pytest.mark.parametrize("arms", ["paired", "independent"])
def test_final_share_keeps_the_level_at_every_stop(arms):
    n, runs, alpha = 120, 4000, 0.05
    rng = np.random.default_rng(21 if arms == "paired" else 22)
    if arms == "paired":  # the paired worst case: every trial discordant, a fair coin
        x = rng.integers(0, 2, (runs, n)).astype(float)
        y = 1.0 - x
    else:
        x = (rng.random((runs, n)) < 0.5).astype(float)
        y = (rng.random((runs, n)) < 0.5).astype(float)
    des = make_design(n, alpha=alpha, arms=arms, statistic="mixture")
    res = budget_batch(x, y, des, final_share=0.95)
    assert np.mean(res["decision"] != 0) <= _upper(alpha, runs)


def test_final_share_agrees_between_the_batch_the_stream_and_the_bank():
    n = 60
    rng = np.random.default_rng(9)
    x = (rng.random((30, n)) < 0.55).astype(float)
    y = (rng.random((30, n)) < 0.75).astype(float)
    des = make_design(n, statistic="mixture")
    res = budget_batch(x, y, des, final_share=0.8)
    bank = BudgetStreams(30, n, final_share=0.8)
    for t in range(n):
        bank.update(None, x[:, t], y[:, t])
    for r in range(30):
        test = BudgetTest(n, final_share=0.8).update_many(x[r], y[r])
        assert (test.decided_at or 0) == res["decided_at"][r]
        assert bank.pvalue[r] == pytest.approx(test.pvalue, rel=1e-12)


def test_a_clear_regression_on_1000_paired_items_is_certified():
    # 4.9 points: the challenger loses 60 items the baseline solves and wins 11 (1,000 items, 70 % baseline)
    rng = np.random.default_rng(49)
    x = np.zeros(1000)
    x[rng.permutation(1000)[:700]] = 1
    y = x.copy()
    solved, unsolved = np.flatnonzero(x == 1), np.flatnonzero(x == 0)
    y[rng.choice(solved, 60, replace=False)] = 0
    y[rng.choice(unsolved, 11, replace=False)] = 1
    assert x.mean() - y.mean() == pytest.approx(0.049)
    r = certirank.compare(x, y, bins="binary", n_max=1000, final_share=0.95)
    assert r.decision == "x>y" and r.pvalue <= 0.05
    # a smaller regression (35 items lost, 11 won: 2.4 points) is certified at the budget by McNemar's part only
    y2 = x.copy()
    y2[rng.choice(solved, 35, replace=False)] = 0
    y2[rng.choice(unsolved, 11, replace=False)] = 1
    # (the sequential part alone, with the Beta-mixture statistic a whole-table read uses, does not certify it)
    seq = certirank.compare(x, y2, bins="binary", n_max=1000, statistic="mixture")
    both = certirank.compare(x, y2, bins="binary", n_max=1000, final_share=0.95)
    assert seq.decision is None and both.decision == "x>y" and both.decided_at == 1000
    with pytest.raises(ParameterError, match="final_share"):
        BudgetTest(50, arms="independent", final_share=0.5)  # the Barnard-type test has no final part


def test_bank_state_round_trips_for_the_barnard_test():
    rng = np.random.default_rng(4)
    x = (rng.random((5, 30)) < 0.4).astype(float)
    y = (rng.random((5, 30)) < 0.8).astype(float)
    a = BudgetStreams(5, 30, arms="independent", statistic="barnard")
    for t in range(12):
        a.update(None, x[:, t], y[:, t])
    b = BudgetStreams(5, 30, arms="independent", statistic="barnard")
    b.engine.load_arrays({k: v.tolist() for k, v in a.engine.state.items()})
    for t in range(12, 30):
        a.update(None, x[:, t], y[:, t])
        b.update(None, x[:, t], y[:, t])
    assert np.array_equal(a.pvalue, b.pvalue) and np.array_equal(a.reachable, b.reachable)
