"""e-value Holm procedures (spec 02 Part C): vectors, closed-test equivalence, log space, references."""

from __future__ import annotations

import gc
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import certirank
from certirank.errors import ParameterError
from certirank.multitest import e_holm, e_holm_adjusted, e_holm_threshold, holm_inverse_e

# (e-values, c, direct e-Holm rejects (1-based), closed adjusted e*, Holm on 1/e rejects) -- spec 02 C.3
VECTORS = [
    ((100, 30, 12, 0.5), 47.5, {1}, (35.625, 14.1667, 6.25, 0.5), {1}),
    ((50, 45, 40, 0), 40.0, {1, 2, 3}, (25, 22.5, 20, 0), set()),
    ((25, 3, 1, 1, 0.2), 94.8, set(), (6.04, 1.3, 0.6, 0.6, 0.2), set()),
]


@pytest.mark.parametrize("e,c,rej,adj,holm_rej", VECTORS)
def test_eholm_vectors(e, c, rej, adj, holm_rej):
    assert e_holm_threshold(e, 0.05) == pytest.approx(c, abs=1e-12)
    out = certirank.e_holm(e, 0.05).rejected
    assert out.dtype == bool and {i + 1 for i in np.flatnonzero(out)} == rej
    assert np.round(e_holm_adjusted(e), 4).tolist() == list(adj)
    assert {i + 1 for i in np.flatnonzero(holm_inverse_e(e, 0.05))} == holm_rej
    # log space gives the same decisions (log 0 = -inf is a valid log e-value)
    with np.errstate(divide="ignore"):
        le = np.log(np.array(e, dtype=float))
    assert np.array_equal(e_holm(le, 0.05, log=True).rejected, out)
    assert e_holm_threshold(le, 0.05, log=True) == pytest.approx(c, rel=1e-12)
    assert np.array_equal(holm_inverse_e(le, 0.05, log=True), holm_inverse_e(e, 0.05))


def test_inclusive_boundary_exact():
    assert 1 / 0.05 == 20.0
    assert e_holm([50, 45, 40, 0], 0.05).rejected.tolist() == [True, True, True, False]
    assert e_holm([20.0], 0.05).rejected.tolist() == [True]
    assert e_holm([np.nextafter(20.0, 0)], 0.05).rejected.tolist() == [False]
    assert holm_inverse_e([40.0, 20.0], 0.05).tolist() == [True, True]


def test_huge_evalues_no_overflow():
    log_e = np.array([5000.0, 3000.0, np.log(3.0), -np.inf, np.inf])
    out = e_holm(log_e, 0.05, log=True).rejected
    assert out.tolist() == [True, True, False, False, True]
    assert e_holm_threshold(log_e, 0.05, log=True) == pytest.approx(20 + 17 + 20)
    adj = e_holm_adjusted(log_e, log=True)
    assert np.isinf(adj[0]) and adj[3] == 0
    assert e_holm([np.inf, 1.0], 0.05).rejected.tolist() == [True, False]


def test_validation():
    with pytest.raises(ParameterError, match="NaN"):
        e_holm([1.0, np.nan], 0.05).rejected
    with pytest.raises(ParameterError, match=">= 0"):
        e_holm([1.0, -2.0], 0.05).rejected
    e_holm([1.0, -2.0], 0.05, log=True).rejected  # negative log e-values are fine
    with pytest.raises(ParameterError, match="alpha"):
        e_holm([1.0], 0.0).rejected
    with pytest.raises(ParameterError, match="1-d"):
        e_holm([[1.0]], 0.05).rejected
    assert e_holm([], 0.05).rejected.tolist() == []


def _closed_e_test(e, alpha):
    """Brute force: H_k rejected iff every intersection I containing k has mean(E_I) >= 1/alpha."""
    k = len(e)
    ok = {}
    for size in range(1, k + 1):
        for subset in itertools.combinations(range(k), size):
            ok[subset] = sum(e[i] for i in subset) / size >= 1 / alpha
    return np.array([all(v for s, v in ok.items() if i in s) for i in range(k)])


e_lists = st.lists(st.one_of(st.floats(0, 5), st.floats(0, 200), st.sampled_from([0.0, 10.0, 20.0, 40.0])),
                   min_size=1, max_size=7)


@settings(max_examples=300, deadline=None)
@given(e_lists, st.sampled_from([0.05, 0.1, 0.2]))
def test_direct_eholm_equals_closure(e, alpha):
    ref = _closed_e_test(e, alpha)
    arr = np.array(e)
    out = e_holm(arr, alpha).rejected
    # decisions may only differ where the closure's mean sits within rounding of 1/alpha
    c = e_holm_threshold(arr, alpha)
    near = np.isclose(arr, c, rtol=1e-12, atol=1e-12)
    assert np.array_equal(out[~near], ref[~near])
    # adjusted e-values: rejected iff e* >= 1/alpha (same rounding caveat)
    adj = e_holm_adjusted(arr)
    near_adj = np.isclose(adj, 1 / alpha, rtol=1e-12, atol=1e-12)
    assert np.array_equal((adj >= 1 / alpha)[~near_adj], ref[~near_adj])
    # Holm on 1/e is dominated by direct e-Holm
    assert np.all(holm_inverse_e(arr, alpha) <= out | near)


def test_holm_inverse_e_matches_statsmodels(monkeypatch):
    mod = pytest.importorskip("statsmodels.stats.multitest")
    monkeypatch.setattr(gc, "collect", lambda *args: 0)
    rng = np.random.default_rng(9)
    total = 0
    for _ in range(500):
        k = int(rng.integers(1, 12))
        e = np.exp(rng.normal(2.5, 2.0, size=k))
        ref, _, _, _ = mod.multipletests(np.minimum(1.0, 1.0 / e), alpha=0.05, method="holm")
        assert np.array_equal(holm_inverse_e(e, 0.05), ref)
        total += int(ref.sum())
    assert total > 100


def test_fwer_direct_eholm_global_null():
    """Product martingales of fair bets under the null, e-Holm on current values at every time:
    P(any rejection at any time) <= alpha (Ville), checked with a binomial tolerance."""
    rng = np.random.default_rng(17)
    n, k, steps, alpha = 1500, 5, 30, 0.1
    x = rng.choice([-1.0, 1.0], size=(n, steps, k))  # fair coin, null true
    lam = 0.5
    log_e = np.cumsum(np.log1p(lam * x), axis=1)  # test martingales (mean 1)
    hits = 0
    for r in range(n):
        hits += any(e_holm(log_e[r, t], alpha, log=True).rejected.any() for t in range(steps))
    bound = alpha + 3 * np.sqrt(alpha * (1 - alpha) / n)
    assert hits / n <= bound
