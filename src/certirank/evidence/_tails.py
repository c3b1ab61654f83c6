"""Tail maths of the one-sided Beta-mixture likelihood ratio (spec 08 §3), a leaf module: the exact budget test
(`budget`) thresholds it and the mixture bettors (`mixture`) bet with it."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special

__all__ = ["log_statistic", "log_upper_tail", "binom_sf", "binom_cdf", "norm_isf"]

_LOG2 = math.log(2.0)

try:  # the ufuncs scipy.stats.binom.sf / cdf evaluate (scipy >= 1.12), without importing scipy.stats (~1 s)
    from scipy.special._ufuncs import _binom_cdf, _binom_sf
except ImportError:  # older scipy keeps them in scipy.stats._boost
    from scipy.stats._boost import _binom_cdf, _binom_sf  # type: ignore[no-redef]


def binom_sf(k: Any, n: Any, p: float) -> Any:
    """P(Binomial(n, p) > k), the same bits as ``scipy.stats.binom.sf(k, n, p)`` for integer k, n >= 0 (1 below the
    support, 0 from n on), from the same ufunc; tests/test_startup.py compares the two."""
    return _binom_tail(_binom_sf, k, n, p, below=1.0)


def binom_cdf(k: Any, n: Any, p: float) -> Any:
    """P(Binomial(n, p) <= k), the same bits as ``scipy.stats.binom.cdf(k, n, p)`` for integer k, n >= 0 (0 below the
    support, 1 from n on), from the same ufunc; tests/test_binomial_tail.py compares the two."""
    return _binom_tail(_binom_cdf, k, n, p, below=0.0)


def _binom_tail(ufunc: Any, k: Any, n: Any, p: float, *, below: float) -> Any:
    """`ufunc` inside the support (0 <= k < n), `below` for k < 0 and 1 - `below` from n on, as scipy.stats does."""
    k = np.floor(np.asarray(k, dtype=float))
    n = np.asarray(n, dtype=float)
    k, n = np.broadcast_arrays(k, n)
    inside = (k >= 0) & (k < n)
    out = np.where(k < 0, below, 1.0 - below)
    if inside.any():
        out[inside] = ufunc(k[inside], n[inside], p)
    return out[()]


def norm_isf(q: float) -> float:
    """The standard normal upper quantile: ``scipy.stats.norm.isf(q)`` is ``-ndtri(q)``."""
    return float(-special.ndtri(q))


def log_statistic(k: Any, s: Any, a: float) -> np.ndarray:
    """log T(k, s) for arrays of discordant counts k >= 0 and challenger wins 0 <= s <= k (T(0, 0) = 1)."""
    k = np.asarray(k, dtype=float)
    s = np.asarray(s, dtype=float)
    wa, wb = a + s, a + k - s
    # P(q > 1/2) under the posterior Beta(wa, wb); the prior's is 1/2
    return k * _LOG2 + special.betaln(wa, wb) - special.betaln(a, a) + log_upper_tail(wa, wb) + _LOG2


def log_upper_tail(wa: Any, wb: Any) -> np.ndarray:
    """log P(Beta(wa, wb) > 1/2) = log I_{1/2}(wb, wa), finite where the regularised function underflows.

    Past the underflow (wb >> wa, probability below ~1e-300) the Laplace-type tail estimate
    (1/2)^(wa + wb - 2) / (2 (wb - wa) B(wa, wb)) is used: such values lie hundreds of nats below any
    threshold, so they never decide a crossing; they only keep the processes finite.
    """
    wa = np.asarray(wa, dtype=float)
    wb = np.asarray(wb, dtype=float)
    with np.errstate(divide="ignore"):
        out = np.log(special.betainc(wb, wa, 0.5))
    bad = ~np.isfinite(out)
    if np.any(bad):
        a_, b_ = np.broadcast_to(wa, out.shape)[bad], np.broadcast_to(wb, out.shape)[bad]
        out = np.array(out, copy=True)
        out[bad] = ((a_ + b_ - 2.0) * -_LOG2 - np.log(2.0 * np.maximum(b_ - a_, 1.0))
                    - special.betaln(a_, b_))
    return out
