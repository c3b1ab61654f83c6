"""The exact betting factor of BB-EDGE's plug-in stake at scale (methods/bbedge/betting.py).

Products of 64 factors replace 64 logarithms: the result must stay within a few ulps per block of the
plain log1p sum (the formula of the code before), and must not depend on chunks, threads, the tau = 0 pairing
of directions, or whether the numba kernel ran.
"""

from __future__ import annotations

import numpy as np
import pytest

from certirank import _numba
from certirank.methods.bbedge import betting
from certirank.methods.bbedge.engine import Leaderboard


def _reference(v_a, v_b, a_row, b_row, lam):
    x = v_a[a_row] - v_b[b_row]
    return (x * x).sum(axis=1), np.stack([np.log1p(lam[:, k, None] * x).sum(axis=1) for k in range(lam.shape[1])],
                                         axis=1)


def _case(L, M, seed, kappa=0.0):
    rng = np.random.default_rng(seed)
    v_b = rng.uniform(-0.5, 0.5, (L, M))
    v_a = v_b if kappa == 0 else v_b + kappa
    a, b = np.where(~np.eye(L, dtype=bool))
    lam = rng.uniform(0.0, 0.9, (a.size, 2))
    lam[::7] = 0.0  # null directions get stake 0: factor 1 exactly
    return v_a, v_b, a, b, lam


@pytest.mark.parametrize("M", [1, 2, 11, 64, 65, 129, 1000, 4097])
def test_products_match_the_log1p_sum_within_a_few_ulps_per_block(M):
    v_a, v_b, a, b, lam = _case(6, M, seed=M)
    s2, lp = betting.betting_terms(v_a, v_b, a, b, lam)
    s2_ref, lp_ref = _reference(v_a, v_b, a, b, lam)
    # each of the M factors (and each log) is exact to ~1 ulp; 4 ulps per block bounds the accumulated difference
    np.testing.assert_allclose(lp, lp_ref, rtol=0, atol=4 * M * np.finfo(float).eps)
    np.testing.assert_allclose(s2, s2_ref, rtol=1e-13, atol=0)
    assert np.all(lp[::7] == 0.0)
    if M > 10:
        assert np.ptp(lp) > 0.1  # not a vacuous comparison


def _variants(monkeypatch, v_a, v_b, a, b, lam):
    """The same call under every chunk size, thread count and (where installed) the compiled kernel."""
    out = {}
    monkeypatch.setattr(betting, "_MIN_ENTRIES_PER_THREAD", 1)
    monkeypatch.setattr(betting, "_NUMBA_MIN_ENTRIES", 0)
    kernels = {"numpy": None}
    if _numba.available():
        kernels["numba"] = False  # looked up (compiled) on first use
    for kname, kern in kernels.items():
        for entries in (1, 700, 10**9):
            for threads in (1, 3):
                monkeypatch.setattr(betting, "_KERNEL", kern)
                monkeypatch.setattr(betting, "BETTING_BLOCK_ENTRIES", entries)
                monkeypatch.setattr(betting, "THREADS", threads)
                out[(kname, entries, threads)] = betting.betting_terms(v_a, v_b, a, b, lam)
    return out


@pytest.mark.parametrize("tau_zero", [True, False], ids=["pairs", "directions"])
def test_chunks_threads_and_kernel_give_identical_bits(monkeypatch, tau_zero):
    v_a, v_b, a, b, lam = _case(7, 133, seed=5, kappa=0.0 if tau_zero else -0.01)
    perm = np.random.default_rng(0).permutation(a.size)
    for rows in (slice(None), perm[:17]):  # the full board, and scattered directions (gather path, few pairs)
        got = _variants(monkeypatch, v_a, v_b, a[rows], b[rows], lam[rows])
        first = next(iter(got.values()))
        for key, (s2, lp) in got.items():
            assert np.array_equal(s2, first[0]) and np.array_equal(lp, first[1]), key


def test_tau_zero_pairing_gives_the_bits_of_each_direction_alone():
    # v_a is v_b (tau = 0): b -> a is computed from a -> b's x with the stake negated
    v, _, a, b, lam = _case(6, 300, seed=9)
    paired = betting.betting_terms(v, v, a, b, lam)
    alone = betting.betting_terms(v, v.copy(), a, b, lam)  # a different object: no pairing
    assert np.array_equal(paired[0], alone[0]) and np.array_equal(paired[1], alone[1])


@pytest.mark.skipif(not _numba.available(), reason="needs the optional numba extra (pip install 'certirank[fast]')")
def test_compiled_kernel_matches_numpy_on_a_board(monkeypatch):
    # end to end: a board updated with the kernel forced on equals the numpy board bit for bit
    rng = np.random.default_rng(2)
    panels = (rng.random((3, 9, 150)) < rng.uniform(0.3, 0.7, (1, 9, 1))).astype(float)
    boards = {}
    for kern in (None, False):
        monkeypatch.setattr(betting, "_KERNEL", kern)
        monkeypatch.setattr(betting, "_NUMBA_MIN_ENTRIES", 0)
        lb = Leaderboard([str(i) for i in range(9)])
        for p in panels:
            lb.add_replicate(p)
        boards[kern] = (lb._families[0].comp.copy(), lb._families[0].s2.copy())
    assert np.array_equal(boards[None][0], boards[False][0]) and np.array_equal(boards[None][1], boards[False][1])


def test_board_matches_the_log1p_implementation_it_replaced(monkeypatch):
    # the engine with the code before (one log1p per block and stake) against the engine now, end to end
    from certirank.methods.bbedge import engine

    rng = np.random.default_rng(8)
    L, N, R = 8, 300, 4
    p = np.linspace(0.35, 0.6, L)[:, None] + rng.uniform(-0.1, 0.1, (1, N))
    panels = (rng.random((R, L, N)) < p).astype(float)
    out = {}
    for name, fn in (("now", betting.betting_terms),
                     ("before", lambda v_a, v_b, a, b, lam, **_: _reference(v_a, v_b, a, b, lam))):
        monkeypatch.setattr(engine, "betting_terms", fn)
        for tau in (0.0, 0.01):
            lb = Leaderboard([str(i) for i in range(L)], tau=tau)
            for r in range(R):
                lb.add_replicate(panels[r])
            out[name, tau] = (lb.log_e_matrix(), lb.certified_matrix())
    for tau in (0.0, 0.01):
        now, before = out["now", tau], out["before", tau]
        np.testing.assert_allclose(now[0], before[0], rtol=0, atol=1e-10)
        assert np.array_equal(now[1], before[1]) and now[1].sum() > 0
