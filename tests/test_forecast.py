"""How many more, and futility (issue 35 item 2): a forecast, checked against what the test then does."""

from __future__ import annotations

import numpy as np
import pytest

import certirank
from certirank.errors import ParameterError
from certirank.evidence.sequential import paired_batch


def _decide(alpha=0.05):
    return lambda xs, ys: paired_batch(xs, ys, alpha, bettor="calibrated", bins="binary",
                                       target=2 / alpha).decided_at


def test_forecast_is_reproducible_and_labelled():
    rng = np.random.default_rng(0)
    # 25 pairs: undecided (a forecast is made); the first 30 of this draw decide since issue 31's prior (p = 0.04999)
    x = (rng.random(25) < 0.4).astype(float)
    y = (rng.random(25) < 0.6).astype(float)
    a = certirank.compare(x, y, bins="binary")
    b = certirank.compare(x, y, bins="binary")
    assert a.decision is None and a.forecast == b.forecast
    assert "not a guarantee" in a.forecast.note and "not a guarantee" in a.describe()
    assert a.to_dict()["details"]["forecast"]["more_needed"] == a.more_needed  # the record: a detail


@pytest.mark.parametrize("seed", [7, 9])
def test_more_needed_tracks_the_real_continuation(seed):
    """After 40 pairs, continue the real test on fresh pairs drawn at the current estimates (independent
    Bernoulli arms at the observed rates, the forecast's own model): the forecast's more_needed is within a
    factor 2 of the median decision time of those continuations (it ignores the bettor's learning cost and
    the Ville overshoot), and it is not futile under a budget the continuations mostly meet."""
    rng = np.random.default_rng(seed)
    n, runs, h = 40, 120, 800
    x = (rng.random(n) < 0.3).astype(float)
    y = (rng.random(n) < 0.6).astype(float)
    r = certirank.compare(x, y, bins="binary")
    assert r.decision is None
    px, py = x.mean(), y.mean()
    xs = np.concatenate([np.tile(x, (runs, 1)), (rng.random((runs, h)) < px).astype(float)], axis=1)
    ys = np.concatenate([np.tile(y, (runs, 1)), (rng.random((runs, h)) < py).astype(float)], axis=1)
    at = _decide()(xs, ys)
    more = np.where(at > 0, at - n, 10 * h)
    real = float(np.median(more))
    assert r.more_needed is not None and real / 2 <= r.more_needed <= 2 * real
    budget = n + int(np.quantile(more, 0.8))
    fc = certirank.compare(x, y, bins="binary", futility=0.3).forecast
    assert fc.p_decide > 0.5
    within = certirank.compare(x, y, bins="binary", n_max=budget)  # the exact budget test: it may decide now
    assert within.decision is not None or within.forecast.futile is False


def test_tied_pair_is_futile_under_a_budget_and_a_clear_one_is_not():
    rng = np.random.default_rng(2)
    x = (rng.random(40) < 0.5).astype(float)
    tied = certirank.compare(x, x[::-1].copy(), bins="binary", n_max=60)
    assert tied.decision is None and tied.forecast.futile and tied.verdict == "futile"
    clear = certirank.compare(np.zeros(8), np.ones(8) * (np.arange(8) % 4 != 0), bins="binary", n_max=100)
    assert clear.decision is None and clear.forecast.futile is False and clear.verdict == "undecided"
    assert clear.forecast.p_decide > 0.5


def test_no_budget_no_futility_and_no_decision_in_sight():
    r = certirank.compare([0.5] * 20, [0.5] * 20)
    assert r.forecast.futile is None and r.forecast.more_needed is None and r.verdict == "undecided"
    assert "no decision in sight" in r.describe()


def test_equivalence_counts_as_a_decision_in_the_forecast():
    rng = np.random.default_rng(3)
    x = (rng.random(200) < 0.5).astype(float)
    y = (rng.random(200) < 0.5).astype(float)
    r = certirank.compare(x, y, bins="binary", margin=0.2)
    if r.equivalent:  # the seeded draw may already decide; then there is nothing to forecast
        assert r.forecast is None
    else:
        assert r.forecast.more_needed is not None


@pytest.mark.parametrize("bad", [0, 1, -1, "x"])
def test_bad_futility(bad):
    with pytest.raises(ParameterError, match="futility"):
        certirank.compare([0.1], [0.2], futility=bad)
