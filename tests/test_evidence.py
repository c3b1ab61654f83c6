"""certirank.evidence: spec 01 test vectors, API behaviour, persistence and input errors."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import certirank
from certirank.errors import DataError, ParameterError
from certirank.evidence import (
    OneSampleStreams,
    OneSampleTest,
    PairedStreams,
    PairedTest,
    one_sample_batch,
    paired_batch,
    paired_to_unit,
)
from certirank.methods.compare import compare
from certirank.evidence._core import NSCORE_GRID, PROGRESS_BINS, _NScore
from certirank.evidence.oracle import (
    oracle_kelly,
    oracle_kelly_bernoulli,
    oracle_kelly_independent,
    oracle_time,
)


def _trace_paired(xs, ys, col, **kw):
    """(stakes used, M_t, p_t) of one direction of a PairedStreams fed the pairs in order."""
    s = PairedStreams(1, **kw)
    lam, wealth, pv = [], [], []
    for x, y in zip(xs, ys):
        lam.append(s.stakes[0, col])
        s.update(0, x, y)
        wealth.append(math.exp(s.log_wealth[0, col]))
        pv.append(s.one_sided_pvalues[0, col])
    return np.array(lam), np.array(wealth), np.array(pv)


# ---------------------------------------------------------------------------------------------------
# spec 01 §3.9 and §4 vectors (N-SCORE)
# ---------------------------------------------------------------------------------------------------

def test_t1_kelly_grid_binary_less():
    lam, m, p = _trace_paired([0] * 8, [1] * 8, 0, bins="binary")
    np.testing.assert_allclose(lam, [0, 0.595, 0.795, 0.885, 0.925, 0.945, 0.955, 0.965], atol=1e-12)
    np.testing.assert_allclose(m, [1, 1.5950, 2.8630, 5.3968, 10.3888, 20.2063, 39.5033, 77.6240], atol=5e-5)
    np.testing.assert_allclose(p, [1, 0.62696, 0.34928, 0.18529, 0.09626, 0.04949, 0.02531, 0.01288], atol=5e-6)
    # one-sided rejection at alpha = 0.05 happens first at t = 6
    assert int(np.argmax(p <= 0.05)) + 1 == 6


def test_t1_check_value_continuous_maximiser():
    # after one (0, 1) pair f(lam) = 4/9 log(1+lam) + 1/9 log(1-lam); the first grid maximiser is 0.595
    f = 4 / 9 * np.log1p(NSCORE_GRID) + 1 / 9 * np.log1p(-NSCORE_GRID)
    assert NSCORE_GRID[int(np.argmax(f))] == pytest.approx(0.595)


def test_t2_partial_progress():
    x = (0.2, 0.4, 0.0, 0.6, 0.2, 0.4)
    y = (0.8, 1.0, 0.6, 0.8, 1.0, 0.6)
    lam, m, p = _trace_paired(x, y, 0, bins="progress")
    np.testing.assert_allclose(lam, [0, 0.845, 0.975, 0.995, 0.995, 0.995], atol=1e-12)
    np.testing.assert_allclose(m, [1, 1.5070, 2.3886, 2.8639, 5.1436, 6.1672], atol=5e-5)
    np.testing.assert_allclose(p, [1, 0.66357, 0.41866, 0.34917, 0.19442, 0.16215], atol=5e-6)


def test_t3_more_direction():
    x = (1, 0, 1, 1, 0, 1, 1, 1, 0, 1)
    y = (0, 0, 1, 0, 0, 0, 1, 0, 0, 0)
    lam, m, _ = _trace_paired(x, y, 1, bins="binary")
    np.testing.assert_allclose(lam, [0, 0.595, 0.495, 0.385, 0.595, 0.535, 0.665, 0.595, 0.685, 0.645], atol=1e-12)
    np.testing.assert_allclose(m, [1, 1, 1, 1.3850, 1.3850, 2.1260, 2.1260, 3.3909, 3.3909, 5.5781], atol=5e-5)
    # the `less` side never bets against the evidence here
    lam_less, m_less, _ = _trace_paired(x, y, 0, bins="binary")
    assert np.all(m_less <= 1.0)


def test_t4_bernoulli_kelly():
    lam, m, p = _trace_paired([0] * 6, [1] * 6, 0, bettor="bernoulli_kelly")
    np.testing.assert_allclose(lam, [0.6, 0.8, 0.882353, 0.923077, 0.945946, 0.96], atol=5e-7)
    np.testing.assert_allclose(m, [1.6, 2.88, 5.421176, 10.425339, 20.287147, 39.762808], atol=5e-6)
    np.testing.assert_allclose(p, [0.625, 0.347222, 0.184462, 0.095920, 0.049292, 0.025149], atol=5e-7)


def test_t5_mirrored_tie_modes():
    # spec 01 T5 is a vector of the N-SCORE bettor (the default before issue 15)
    allow = PairedTest(0.05, bettor="nscore", bins="binary")
    none_ = PairedTest(0.05, bettor="nscore", bins="binary", ties="assume_none")
    rows = []
    for _ in range(8):
        allow.update(0, 1)
        none_.update(0, 1)
        rows.append((allow.p_less, allow.p_more, allow.pvalue, none_.pvalue, allow.decision, none_.decision))
    assert all(r[1] == 1.0 for r in rows)
    np.testing.assert_allclose([r[0] for r in rows[5:]], [0.049490, 0.025314, 0.012883], atol=5e-7)
    np.testing.assert_allclose([r[2] for r in rows[5:]], [0.098979, 0.050629, 0.025765], atol=5e-7)
    np.testing.assert_allclose([r[3] for r in rows[5:]], [0.049490, 0.025314, 0.012883], atol=5e-7)
    assert [r[4] for r in rows[5:]] == [None, None, "x<y"]
    assert allow.decided_at == 8 and none_.decided_at == 6 and none_.decision == "x<y"


def test_compare_reproduces_t5_and_direction():
    r = compare([0] * 10, [1] * 10, bettor="nscore", bins="binary")
    assert (r.decision, r.decided_at, r.n) == ("x<y", 8, 10)
    r = compare([1] * 10, [0] * 10, bettor="nscore", bins="binary", ties="assume_none")
    assert (r.decision, r.decided_at) == ("x>y", 6)
    r = certirank.compare([0.5] * 30, [0.5] * 30)
    assert r.decision is None and r.decided_at is None and r.pvalue == 1.0
    d = r.to_dict()
    assert {"pvalue", "decided_at", "n"} <= set(d["details"]) and {"alpha", "bettor", "ties"} <= set(d["inputs"])
    assert d["ranking"]["relations"] == [] and d["about"] == "policy"


def test_nscore_binary_search_matches_bruteforce_argmax():
    """The vectorised stake equals a literal implementation of spec 01 §3.3–3.6 (full grid, a != b cells)."""
    rng = np.random.default_rng(3)
    bettor = _NScore(PROGRESS_BINS)
    c = np.asarray(PROGRESS_BINS)
    cx = rng.integers(0, 6, size=(300, 11)) * rng.integers(0, 2, size=(300, 11))
    cy = rng.integers(0, 6, size=(300, 11)) * rng.integers(0, 2, size=(300, 11))
    got = bettor.stakes(cx, cy)
    for i in range(cx.shape[0]):
        p0 = (cx[i] + 2 / 11) / (cx[i] + 2 / 11).sum()
        p1 = (cy[i] + 2 / 11) / (cy[i] + 2 / 11).sum()
        mu0, mu1 = float(c @ p0), float(c @ p1)
        for col, s in ((0, 1.0), (1, -1.0)):
            if (mu1 - mu0) * s <= 1e-12:
                assert got[i, col] == 0.0
                continue
            cells = np.outer(p0, p1) * (1 - np.eye(11))  # P_ab, a != b
            logs = np.log1p(s * NSCORE_GRID[:, None, None] * (c[None, None, :] - c[None, :, None]))
            f = (cells[None] * logs).sum(axis=(1, 2))
            assert got[i, col] == NSCORE_GRID[int(np.argmax(f))]


# ---------------------------------------------------------------------------------------------------
# spec 01 §5.5 vectors (one-sample bettors)
# ---------------------------------------------------------------------------------------------------

EX1 = (0.9, 0.7, 1.0, 0.6, 0.8, 0.95, 0.75, 0.85, 0.9, 0.65)


def _trace_one(z, bettor, **kw):
    t = OneSampleTest(0.5, 0.05, bettor=bettor, **kw)
    lam, e, lcs = [], [], []
    for v in z:
        lam.append(t.lam_next)
        t.update(v)
        e.append(math.exp(t.log_evalue))
        if bettor == "prpl_eb":
            lcs.append(t.lower_bound(0.05))
    return np.array(lam), np.array(e), np.array(lcs)


@pytest.mark.parametrize("predictor,e_vals,l_vals", [
    ("running_mean", [1.044513, 1.145481, 1.459507, 1.513408, 1.758329, 2.192447, 2.481670, 2.955552, 3.605320,
                      3.862467], [0, 0, 0, 0, 0, 0, 0, 0.021988, 0.119262, 0.171115]),
    ("regularized", [1.184234, 1.308781, 1.651548, 1.725985, 2.003915, 2.490234, 2.821360, 3.357285, 4.089832,
                     4.390499], [0, 0, 0, 0, 0, 0, 0, 0.053850, 0.147283, 0.196742]),
])
def test_example1_prpl_eb(predictor, e_vals, l_vals):
    lam, e, lcs = _trace_one(EX1, "prpl_eb", predictor=predictor)
    np.testing.assert_allclose(lam, 0.5)
    np.testing.assert_allclose(e, e_vals, atol=5e-7)
    np.testing.assert_allclose(lcs, l_vals, atol=5e-7)


def test_example1_agrapa_ons_hoeffding():
    lam, m, _ = _trace_one(EX1, "agrapa")
    np.testing.assert_allclose(lam, [0] + [1] * 9, atol=1e-12)
    np.testing.assert_allclose(m, [1, 1.2, 1.8, 1.98, 2.574, 3.7323, 4.665375, 6.298256, 8.817559, 10.140193],
                               atol=5e-7)
    lam, m, _ = _trace_one(EX1, "ons")
    np.testing.assert_allclose(lam, [0] + [0.5] * 9, atol=1e-12)
    np.testing.assert_allclose(m, [1, 1.1, 1.375, 1.44375, 1.660312, 2.033883, 2.288118, 2.688539, 3.226247,
                                   3.468215], atol=5e-7)
    lam, e, _ = _trace_one(EX1, "hoeffding")
    np.testing.assert_allclose(lam, [1] * 9 + [0.999727], atol=5e-7)
    np.testing.assert_allclose(e, [1.316531, 1.419068, 2.064731, 2.013753, 2.398875, 3.320117, 3.762185, 4.711470,
                                   6.202795, 6.359993], atol=5e-7)


def test_example2_forty_steps():
    z = np.array((1, 1, 0, 1, 1, 0, 1, 1, 1, 0) * 4, dtype=float)
    expect = {  # t: (PrPl lam_t, L rm, E rm, L reg, E reg, aGRAPA M)
        10: (0.5, 0.0, 1.336985, 0.0, 1.624622, 1.074719),
        20: (0.5, 0.286103, 2.355513, 0.305734, 2.866433, 1.735332),
        30: (0.5, 0.395932, 4.198415, 0.409053, 5.111685, 3.149266),
        40: (0.462120, 0.451076, 7.567145, 0.460993, 9.215071, 6.121777),
    }
    lam_rm, e_rm, l_rm = _trace_one(z, "prpl_eb", predictor="running_mean")
    _, e_reg, l_reg = _trace_one(z, "prpl_eb", predictor="regularized")
    _, m_ag, _ = _trace_one(z, "agrapa")
    for t, row in expect.items():
        got = (lam_rm[t - 1], l_rm[t - 1], e_rm[t - 1], l_reg[t - 1], e_reg[t - 1], m_ag[t - 1])
        np.testing.assert_allclose(got, row, atol=5e-7)


def test_paired_margin_reduction():
    z, m = paired_to_unit([0.2, 0.5], [0.9, 0.5], tau=0.2)
    np.testing.assert_allclose(z, [0.85, 0.5])
    assert m == pytest.approx(0.6)
    with pytest.raises(ParameterError):
        paired_to_unit([0.2], [0.3], tau=1.5)


# ---------------------------------------------------------------------------------------------------
# oracle Kelly (spec 01 §7), against the closed form and scipy's bounded optimiser
# ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("p0,p1,lam,g,t1,t2", [
    (0.30, 0.70, 0.689655, 0.151711, 19.75, 24.32),
    (0.45, 0.65, 0.388350, 0.039875, 75.13, 92.51),
    (0.35, 0.45, 0.206186, 0.010384, 288.51, 355.26),
    (0.50, 0.60, 0.200000, 0.010068, 297.56, 366.41),
])
def test_oracle_reference_values(p0, p1, lam, g, t1, t2):
    o = oracle_kelly_bernoulli(p0, p1)
    assert o.lam == pytest.approx(lam, abs=5e-7) and o.growth == pytest.approx(g, abs=5e-7)
    assert o.time(0.05, ties=None) == pytest.approx(t1, abs=0.006)
    assert o.time(0.05) == pytest.approx(t2, abs=0.006)
    num = oracle_kelly_independent([0, 1], [1 - p0, p0], [0, 1], [1 - p1, p1])
    assert num.lam == pytest.approx(o.lam, abs=1e-6) and num.growth == pytest.approx(o.growth, rel=1e-9)


def test_oracle_null_is_infinite():
    assert oracle_kelly_bernoulli(0.4, 0.4).growth == 0
    assert oracle_time(0.0) == math.inf
    assert oracle_kelly([-0.5, 0.5]).lam == 0.0


# ---------------------------------------------------------------------------------------------------
# streaming vs batch, persistence, numerics
# ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("bettor,binary", [("nscore", False), ("nscore", True), ("bernoulli_kelly", True),
                                           ("agrapa", False), ("ons", False), ("prpl_eb", False),
                                           ("hoeffding", False)])
def test_batch_equals_streaming_bit_for_bit(bettor, binary):
    rng = np.random.default_rng(11)
    runs, horizon = 5, 120
    if binary:
        x = (rng.random((runs, horizon)) < 0.4).astype(float)
        y = (rng.random((runs, horizon)) < 0.6).astype(float)
    else:
        x = rng.integers(0, 11, (runs, horizon)) / 10
        y = np.clip(rng.integers(0, 11, (runs, horizon)) / 10 + 0.3, 0, 1)
    bins = "binary" if binary else "progress"
    res = paired_batch(x, y, bettor=bettor, bins=bins, trace=True)
    assert res.decision.any()
    for r in range(runs):
        t = PairedTest(bettor=bettor, bins=bins)
        first = [0, 0]
        for j in range(horizon):
            t.update(x[r, j], y[r, j])
            for side, p in enumerate((t.p_less, t.p_more)):
                if first[side] == 0 and p <= 0.05:
                    first[side] = j + 1
            assert t.log_evalue_less == res.log_wealth_trace[r, j, 0]
            assert t.log_evalue_more == res.log_wealth_trace[r, j, 1]
            assert t.pvalue == res.pvalue_trace[r, j]
        assert {"x<y": 1, "x>y": -1, None: 0}[t.decision] == res.decision[r]
        assert (t.decided_at or 0) == res.decided_at[r]
        assert first == res.crossed_at[r].tolist()
        c = compare(x[r], y[r], bettor=bettor, bins=bins, order="given")  # the pairs as listed, like the stream
        # compare stops reading at the decision: its p-value is the stream's at the deciding pair
        stop = (t.decided_at or horizon) - 1
        assert (c.pvalue, c.decided_at) == (res.pvalue_trace[r, stop], t.decided_at)


def test_one_sample_batch_equals_streaming():
    rng = np.random.default_rng(5)
    z = rng.beta(3, 2, size=(4, 80))
    for bettor in ("agrapa", "ons", "prpl_eb", "hoeffding"):
        res = one_sample_batch(z, m=0.5, bettor=bettor, trace=True)
        for r in range(4):
            t = OneSampleTest(0.5, bettor=bettor).update_many(z[r])
            assert t.log_evalue == res.log_wealth[r, 0] and t.pvalue == res.pvalue[r]
            assert (t.decided_at or 0) == res.decided_at[r]


def test_low_level_streams_subset_updates_and_state_roundtrip():
    """K hypotheses updated one at a time, saved as JSON mid-way, resumed: identical to an uninterrupted run."""
    rng = np.random.default_rng(2)
    k = 6
    steps = [(int(rng.integers(k)), rng.integers(0, 11) / 10, rng.integers(0, 11) / 10) for _ in range(300)]
    for bettor in ("nscore", "agrapa", "ons", "prpl_eb", "hoeffding"):
        a = PairedStreams(k, bettor=bettor, ties="allow")
        b = PairedStreams(k, bettor=bettor, ties="allow")
        for i, (h, x, y) in enumerate(steps):
            a.update(h, x, y)
            b.update(h, x, y)
            if i == 150:
                b = PairedStreams.from_state(json.loads(json.dumps(b.to_state())))
        assert np.array_equal(a.log_wealth, b.log_wealth) and np.array_equal(a.pvalue, b.pvalue)
        assert np.array_equal(a.stakes, b.stakes) and np.array_equal(a.count, b.count)
        assert a.count.sum() == 300
    # the vectorised form (many streams per call) equals per-stream calls
    v = PairedStreams(3, bettor="nscore")
    s = [PairedStreams(1, bettor="nscore") for _ in range(3)]
    for _ in range(40):
        xs, ys = rng.integers(0, 11, 3) / 10, rng.integers(0, 11, 3) / 10
        v.update([0, 2], xs[[0, 2]], ys[[0, 2]])
        s[0].update(0, xs[0], ys[0])
        s[2].update(0, xs[2], ys[2])
    assert v.count.tolist() == [40, 0, 40]
    assert v.log_wealth[0].tolist() == s[0].log_wealth[0].tolist()
    assert v.log_wealth[2].tolist() == s[2].log_wealth[0].tolist()
    # rejects(level) with per-stream local levels
    strong = PairedStreams(2, bins="binary")
    for _ in range(12):
        strong.update(None, [0, 1], [1, 0])
    assert strong.rejects(0.05).tolist() == [1, -1]
    assert strong.rejects(np.array([0.05, 1e-9])).tolist() == [1, 0]


def test_paired_test_state_roundtrip():
    t = PairedTest(0.1, bettor="prpl_eb", ties="assume_none")
    t.update_many([0.1, 0.2, 0.0, 0.3], [0.9, 0.8, 1.0, 0.7])
    u = PairedTest.from_state(json.loads(json.dumps(t.to_state())))
    for x, y in [(0.0, 1.0)] * 10:
        t.update(x, y)
        u.update(x, y)
    assert (t.pvalue, t.decision, t.decided_at, t.ties, t.alpha) == (u.pvalue, u.decision, u.decided_at, u.ties, u.alpha)
    o = OneSampleTest(0.4, bettor="ons").update_many([0.9, 0.8])
    o2 = OneSampleTest.from_state(json.loads(json.dumps(o.to_state())))
    assert o2.update(0.7).log_evalue == o.update(0.7).log_evalue
    with pytest.raises(ParameterError):
        PairedStreams.from_state(OneSampleStreams(2).to_state())


def test_log_space_no_overflow_or_underflow():
    """Wealth far beyond float range (M > e^1000) stays finite in log space."""
    horizon = 4000
    x = np.zeros((2, horizon))
    y = np.ones((2, horizon))
    y[1] = 0.0
    x[1] = 1.0
    for bettor in ("bernoulli_kelly", "agrapa", "hoeffding"):
        res = paired_batch(x, y, bettor=bettor, bins="binary")
        assert np.all(np.isfinite(res.log_wealth))
        assert res.decision.tolist() == [1, -1]
        if bettor == "hoeffding":  # its stake ignores the data, so the losing side keeps decaying
            assert res.log_wealth[0, 0] > 50 and res.log_wealth[1, 1] > 50
            assert res.log_wealth[0, 1] < -50 and res.log_wealth[1, 0] < -50
        else:
            assert res.log_wealth[0, 0] > 1000 and res.log_wealth[1, 1] > 1000
    s = OneSampleStreams(1, m=0.5, bettor="agrapa")
    for _ in range(3000):
        s.update(0, 1.0)
    assert np.isfinite(s.log_wealth).all() and s.log_wealth[0, 0] > 700


@pytest.mark.slow
def test_log_space_million_steps():
    horizon = 1_000_000
    x = np.zeros((1, horizon))
    y = np.ones((1, horizon))
    res = paired_batch(x, y, bettor="bernoulli_kelly", bins="binary")
    assert np.isfinite(res.log_wealth).all() and res.log_wealth[0, 0] > 1e5


# ---------------------------------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------------------------------

def test_bad_inputs_raise_clear_errors():
    with pytest.raises(DataError, match="outside"):
        compare([0.1, 1.2], [0.3, 0.4])
    with pytest.raises(DataError, match="same length"):
        compare([0.1, 0.2], [0.3])
    with pytest.raises(DataError, match="NaN"):
        compare([0.1, float("nan")], [0.3, 0.4])
    with pytest.raises(DataError):
        compare(["a", "b"], [0.3, 0.4])
    with pytest.raises(ParameterError, match="alpha"):
        compare([0.1], [0.3], alpha=1.0)
    with pytest.raises(ParameterError, match="alpha"):
        compare([0.1], [0.3], alpha=0)
    with pytest.raises(ParameterError, match="bettor must be one of nscore"):
        compare([0.1], [0.3], bettor="kelly")
    with pytest.raises(ParameterError, match="ties must be one of allow, assume_none"):
        compare([0.1], [0.3], ties="maybe")
    with pytest.raises(DataError, match="binary"):
        compare([0.1, 1.0], [0.0, 1.0], bettor="bernoulli_kelly")
    with pytest.raises(ParameterError):
        compare([0.1], [0.3], bins=[0.5, 0.2])
    with pytest.raises(ParameterError, match="option"):
        compare([0.1], [0.3], bettor="ons", c=0.3)
    with pytest.raises(ParameterError):
        OneSampleTest(m=1.5)
    with pytest.raises(ParameterError):
        OneSampleStreams(2, bettor="nscore")
    with pytest.raises(ParameterError):
        PairedStreams(2, bettor="prpl_eb", c=0.99)
    # booleans are scores 1.0 / 0.0
    assert compare([False] * 10, [True] * 10, bins="binary").decision == "x<y"


def test_streams_validate_before_mutating():
    s = PairedStreams(3)
    s.update([0, 1], [0.2, 0.3], [0.4, 0.5])
    before = s.to_state()
    for bad in (lambda: s.update([0, 1], [0.2, 1.3], [0.4, 0.5]),
                lambda: s.update([0, 0], [0.2, 0.3], [0.4, 0.5]),
                lambda: s.update([0, 5], [0.2, 0.3], [0.4, 0.5]),
                lambda: s.update([0, 1], [0.2, 0.3, 0.1], [0.4, 0.5])):
        with pytest.raises((DataError, ParameterError)):
            bad()
    assert s.to_state() == before
    bk = PairedStreams(2, bettor="bernoulli_kelly")
    with pytest.raises(DataError):
        bk.update(None, [1.0, 0.5], [0.0, 1.0])
    assert bk.count.tolist() == [0, 0]


def test_log_pvalue_survives_underflow():
    t = PairedTest(bins="binary").update_many(np.zeros(3000), np.ones(3000))
    assert t.pvalue == 0.0 and np.isfinite(t.log_pvalue) and t.log_pvalue < -745
    assert t.log_pvalue == pytest.approx(math.log(2.0) - t.log_evalue_less, rel=1e-9)


# ---------------------------------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------------------------------


