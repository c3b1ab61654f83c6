"""The exact budget test's binomial tails and normal quantile without importing scipy.stats (issue 32, item 2):
`evidence._tails.binom_sf` / `norm_isf` against scipy.stats, the independent reference, on every (k, n) the tests
use (the budget's discordant-pair tail, McNemar's p-values at the budget, the power at the reference alternative)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from certirank.evidence import _walk, budget
from certirank.evidence import budget_bayes
from certirank.evidence._tails import binom_cdf, binom_sf, norm_isf


@pytest.mark.parametrize("p", [0.5, 0.03, 0.31, 0.77, 0.999])
def test_binom_sf_is_scipy_stats_binom_sf(p: float) -> None:
    for n in [*range(0, 80), 199, 1000, 5000, 20000]:
        k = np.arange(-2, n + 3)  # below, inside and beyond the support
        got, ref = binom_sf(k, n, p), stats.binom.sf(k, n, p)
        assert got.dtype == ref.dtype and got.shape == ref.shape
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=0)
        assert np.array_equal(got, ref), n  # the same ufunc: the same bits


def test_binom_sf_broadcasts_and_returns_scalars_like_scipy() -> None:
    rng = np.random.default_rng(0)
    n = rng.integers(0, 300, size=(40, 3))
    k = rng.integers(-1, 301, size=(40, 3))
    assert np.array_equal(binom_sf(k, n, 0.5), stats.binom.sf(k, n, 0.5))
    for k1, n1 in [(3, 10), (-1, 0), (0, 0), (10, 10), (9, 10)]:
        got, ref = binom_sf(k1, n1, 0.5), stats.binom.sf(k1, n1, 0.5)
        assert np.ndim(got) == 0 and float(got) == float(ref)


@pytest.mark.parametrize("q", [1e-10, 1e-4, 0.0125, 0.025, 0.05, 0.1, 0.5, 0.9])
def test_norm_isf_is_scipy_stats_norm_isf(q: float) -> None:
    assert norm_isf(q) == stats.norm.isf(q)


def test_the_budget_designs_inputs_are_scipy_stats_values() -> None:
    for n in (1, 7, 50, 333):
        assert np.array_equal(_walk._discordance_tail.__wrapped__(n), stats.binom.sf(np.arange(n + 1) - 1, n, 0.5))
        for level in (0.005, 0.025, 0.05):
            z = stats.norm.isf(level)
            assert budget.reference_alternative(n, level) == min(0.95, 0.5 + z / (2.0 * np.sqrt(max(n / 2.0, 1.0))))
    k = np.array([0, 1, 5, 50, 50, 49])
    s = np.array([0, 1, 2, 40, 10, 49])
    ref = np.stack([stats.binom.sf(s - 1, k, 0.5), stats.binom.sf(k - s - 1, k, 0.5)], axis=-1)
    assert np.array_equal(budget.final_pvalues(k, s), ref)


@pytest.mark.parametrize("p", [0.5, 0.03, 0.31, 0.77, 0.999])
def test_binom_cdf_is_scipy_stats_binom_cdf(p: float) -> None:
    for n in [*range(0, 80), 199, 1000, 5000]:
        k = np.arange(-2, n + 3)
        got, ref = binom_cdf(k, n, p), stats.binom.cdf(k, n, p)
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=0)
        assert np.array_equal(got, ref), n
    assert np.ndim(binom_cdf(3, 10, p)) == 0 and float(binom_cdf(3, 10, p)) == float(stats.binom.cdf(3, 10, p))


def test_the_fastest_decision_tables_trial_costs_are_scipy_stats_values() -> None:
    for n, rate in ((1, 0.5), (50, 0.5), (120, 0.3)):
        k = np.arange(n + 1)
        e = stats.binom.cdf(k[:, None] - 1, np.arange(n)[None, :], rate).sum(axis=1)
        assert np.array_equal(budget_bayes._trial_costs(n, rate), np.append(np.diff(e), 0.0))
