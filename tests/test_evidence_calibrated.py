"""The `calibrated` default bettor (issue 15 item 2): exact dynamic programme against brute force and seeded
Monte Carlo, validity under exact ties with binomial tolerances, state and option plumbing."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import certirank
from certirank.evidence import PairedTest, paired_batch
from certirank.methods.compare import compare
from certirank.evidence.mixture import _Calibration, calibration, decision_time_dp, prior_log_statistic


def _upper(alpha: float, runs: int, k: float = 4.0) -> float:
    return alpha + k * math.sqrt(alpha * (1 - alpha) / runs)


def test_level_equals_enumeration_of_all_fair_coin_paths():
    n, target = 12, 6.0
    cal = _Calibration(target, pairs=n)
    paths = np.array(list(itertools.product((0, 1), repeat=n)), dtype=np.int64)
    s = np.cumsum(paths, axis=1)
    k = np.arange(1, n + 1)
    crossed = (prior_log_statistic(np.broadcast_to(k, s.shape), s) >= cal.log_c).any(axis=1)
    last = np.exp(prior_log_statistic(np.full(s.shape[0], n), s[:, -1]) - cal.log_c)
    brute = np.mean(np.where(crossed, 1.0, last))
    assert math.exp(cal.log_h0) == pytest.approx(brute, rel=1e-12)
    assert math.exp(cal.log_h0) <= 1.0 / target  # the calibrated wealth reaches the target at the crossing


def test_stakes_are_predictable_bets_whose_wealth_is_h_over_h0():
    cal = calibration(40.0)
    assert np.all((cal.lam >= 0) & (cal.lam < 1))
    t = PairedTest(0.05, bettor="calibrated", bins="binary")
    rng = np.random.default_rng(4)
    k = s = 0
    for _ in range(60):  # a path that stays below the target (q = 1/2)
        win = bool(rng.random() < 0.5)
        t.update(0.0 if win else 1.0, 1.0 if win else 0.0)
        k, s = k + 1, s + win
        if t.decision is not None:
            break
        assert t.log_evalue_less == pytest.approx(cal.log_wealth(k, s), abs=1e-9)
        assert t.log_evalue_more == pytest.approx(cal.log_wealth(k, k - s), abs=1e-9)


@pytest.mark.parametrize("q", [0.62, 0.75])
def test_dp_expected_decision_time_equals_monte_carlo(q):
    runs, horizon = 3000, 400
    rng = np.random.default_rng(int(q * 100))
    win = rng.random((runs, horizon)) < q
    x = np.where(win, 0.0, 1.0)  # every pair discordant: the DP's clock
    r = paired_batch(x, 1.0 - x, 0.05, bettor="calibrated", bins="binary")
    k = np.where(r.decision != 0, r.decided_at, horizon)
    dp = decision_time_dp(q, k_max=horizon)
    assert abs(k.mean() - dp["mean_pairs"]) <= 4 * k.std(ddof=1) / math.sqrt(runs)
    p = dp["p_wrong"]
    assert abs(np.mean(r.decision == -1) - p) <= 4 * math.sqrt(max(p, 1e-4) / runs)


def test_dp_gives_trials_with_independent_arms_as_pairs_over_discordance_rate():
    p0, p1, runs = 0.3, 0.6, 3000
    rng = np.random.default_rng(8)
    x = (rng.random((runs, 500)) < p0).astype(float)
    y = (rng.random((runs, 500)) < p1).astype(float)
    r = paired_batch(x, y, 0.05, bettor="calibrated", bins="binary")
    assert np.all(r.decision != 0)
    qp, qm = p1 * (1 - p0), p0 * (1 - p1)
    dp = decision_time_dp(qp / (qp + qm))
    t = r.decided_at.astype(float)
    assert abs(t.mean() - dp["mean_pairs"] / (qp + qm)) <= 4 * t.std(ddof=1) / math.sqrt(runs)


@pytest.mark.parametrize("kind", ["discordant", "independent", "progress"])
def test_calibrated_default_valid_under_exact_ties(kind):
    runs, horizon, alpha = 4000, 300, 0.05
    rng = np.random.default_rng(77)
    if kind == "discordant":  # the worst case: every pair discordant, P(win) = 1/2 (calibrated to this)
        x = rng.integers(0, 2, (runs, horizon)).astype(float)
        y = 1.0 - x
    elif kind == "independent":
        x = rng.integers(0, 2, (runs, horizon)).astype(float)
        y = rng.integers(0, 2, (runs, horizon)).astype(float)
    else:
        x = rng.integers(0, 11, (runs, horizon)) / 10
        y = rng.integers(0, 11, (runs, horizon)) / 10
    r = paired_batch(x, y, alpha, bettor="calibrated")
    assert np.mean(r.decision != 0) <= _upper(alpha, runs)


def test_default_target_follows_alpha_and_ties_and_state_round_trips():
    assert PairedTest(0.01).lam_next != PairedTest(0.05).lam_next
    assert PairedTest(0.05)._streams.engine.bettor.target == 40.0
    assert PairedTest(0.05, ties="assume_none")._streams.engine.bettor.target == 20.0
    r = compare([0] * 10, [1] * 10, bins="binary")
    assert r.bettor == "calibrated" and r.decided_at == 8
    t = PairedTest(bettor="calibrated").update_many([0, 1, 1, 0], [1, 1, 0, 1])
    back = PairedTest.from_state(t.to_state())
    t.update_many([0, 0.4], [1, 0.9])
    back.update_many([0, 0.4], [1, 0.9])
    assert back.log_evalue_less == t.log_evalue_less and back.lam_next == t.lam_next
    # after a partial score the stakes are N-SCORE's, from the bin counts of all pairs so far
    ref = PairedTest(bettor="nscore").update_many([0, 1, 1, 0, 0, 0.4], [1, 1, 0, 1, 1, 0.9])
    assert t.lam_next == ref.lam_next
    with pytest.raises(certirank.errors.ParameterError):
        PairedTest(bettor="calibrated", target=0.5)
