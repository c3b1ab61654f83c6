"""The vectorised path of the default bettor on binary pairs (issue 37 item 1): the same wealth, decisions and
state as feeding the pairs one at a time, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special

from certirank.evidence import PairedTest, compare
from certirank.evidence import mixture


def _one_by_one(x, y, **kw):
    t = PairedTest(bins="binary", **kw)
    for a, b in zip(x, y):
        t.update(a, b)
    return t


@pytest.mark.parametrize("p0,p1,n,seed", [(0.5, 0.5, 2500, 1), (0.4, 0.6, 2500, 2), (0.2, 0.9, 300, 3),
                                          (0.5, 0.55, 5000, 4), (0.7, 0.7, 1200, 5)])
def test_fast_path_is_identical_to_pair_by_pair(p0, p1, n, seed):
    rng = np.random.default_rng(seed)
    x = (rng.random(n) < p0).astype(float)
    y = (rng.random(n) < p1).astype(float)
    fast = PairedTest(bins="binary")
    cut = n // 3
    fast.update_many(x[:cut], y[:cut])  # two calls: the second starts from a saved state
    fast.update_many(x[cut:], y[cut:])
    slow = _one_by_one(x, y)
    a, b = fast._streams.engine.state, slow._streams.engine.state
    assert set(a) == set(b)
    for key in a:
        assert np.array_equal(a[key], b[key]), key
    assert (fast.decision, fast.decided_at, fast.pvalue) == (slow.decision, slow.decided_at, slow.pvalue)


def test_partial_scores_fall_back_to_pair_by_pair():
    rng = np.random.default_rng(8)
    x = (rng.random(400) < 0.5).astype(float)
    y = (rng.random(400) < 0.6).astype(float)
    x[150] = 0.4  # a partial score: N-SCORE from then on
    fast = PairedTest(bins="progress")
    fast.update_many(x[:100], y[:100])
    fast.update_many(x[100:], y[100:])
    slow = PairedTest(bins="progress")
    for a, b in zip(x, y):
        slow.update(a, b)
    for key, val in fast._streams.engine.state.items():
        assert np.array_equal(val, slow._streams.engine.state[key]), key


def test_lean_log_sum_exp_agrees_with_scipy():
    k = np.arange(0, 3000, 7)
    s = (k * 0.55).astype(int)
    grid = mixture._PRIOR_LOGW + s[:, None] * np.log(2 * mixture._PRIOR_Q) + (k - s)[:, None] * np.log(
        2 * (1 - mixture._PRIOR_Q))
    parts = np.concatenate([grid, (np.log(mixture._PRIOR_UNIFORM) + mixture.log_statistic(k, s, 1.0))[:, None]],
                           axis=1)
    ref = special.logsumexp(parts, axis=1)
    assert np.allclose(mixture.prior_log_statistic(k, s), ref, rtol=1e-13, atol=1e-12)


def test_a_long_stream_decided_early_reports_the_decision_pair():
    x = np.zeros(100000)
    y = np.ones(100000)
    r = compare(x, y, bins="binary")
    assert r.decision == "x<y" and r.decided_at == 8 and r.n == 100000


@pytest.mark.parametrize("gap, partial", [(0.3, False), (0.05, False), (0.0, False), (0.3, True)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_reading_stops_at_the_decision_with_the_state_of_the_prefix(gap, partial, seed):
    """update_many(until_decided=True) reads exactly the pairs up to the deciding one and leaves the state that
    those pairs alone leave, bit for bit (binary fast path, and the step path once a partial score is seen)."""
    rng = np.random.default_rng(seed)
    n = 5000
    x = (rng.random(n) < 0.5 - gap / 2).astype(float)
    y = (rng.random(n) < 0.5 + gap / 2).astype(float)
    if partial:
        x[3] = 0.5
    early = PairedTest(0.05, bins="binary" if not partial else "progress").update_many(x, y, until_decided=True)
    full = PairedTest(0.05, bins="binary" if not partial else "progress").update_many(x, y)
    assert early.decided_at == full.decided_at and early.decision == full.decision
    upto = full.decided_at if full.decided_at is not None else n
    assert early.n == upto
    prefix = PairedTest(0.05, bins="binary" if not partial else "progress").update_many(x[:upto], y[:upto])
    for key, value in prefix._streams.engine.state.items():
        np.testing.assert_array_equal(early._streams.engine.state[key], value, err_msg=key)
    assert early.pvalue == prefix.pvalue


def test_compare_reports_the_pairs_given_and_the_pvalue_at_the_decision():
    x, y = np.zeros(100000), np.ones(100000)
    r = compare(x, y, bins="binary")
    at = PairedTest(0.05, bins="binary").update_many(x[:8], y[:8])
    assert (r.n, r.decided_at, r.pvalue) == (100000, 8, at.pvalue)
    assert "decided after 8 of 100000 pairs" in r.describe()
