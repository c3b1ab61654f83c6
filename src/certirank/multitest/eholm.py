"""Family-wise error control with e-values (spec 02 Part C).

- :func:`e_holm` -- direct (closed) e-Holm, the shortcut of the closed procedure whose intersection test
  rejects H_I iff mean_{i in I} E_i >= 1/alpha. Public entry point ``certirank.e_holm``; used by BB-EDGE.
- :func:`e_holm_threshold` -- its cut-off c = 1/alpha + sum_{E_k < 1/alpha} (1/alpha - E_k).
- :func:`e_holm_adjusted` -- closed adjusted e-values e* (reject iff e* >= 1/alpha).
- :func:`holm_inverse_e` -- Holm's step-down on p_k = min(1, 1/E_k) (weaker; also valid on running maxima).

All functions accept ``log=True`` to take log e-values (BB-EDGE keeps wealth in log space); +inf e-values
(log = +inf) are allowed, NaN and negative e-values are not. Apply :func:`e_holm` to *current* e-values,
never running maxima (spec 02 C.1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._params import validated
from .._validate import check_alpha
from ..errors import ParameterError
from ..results import ResultMixin

__all__ = ["EHolmResult", "e_holm", "e_holm_threshold", "e_holm_adjusted", "holm_inverse_e"]


def _check_e(evalues: Any, log: bool) -> np.ndarray:
    try:
        e = np.array(evalues, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(f"e-values must be numbers, got {evalues!r}") from None
    if e.ndim != 1:
        raise ParameterError(f"e-values must be a 1-d vector, got shape {e.shape}")
    if np.isnan(e).any():
        i = int(np.flatnonzero(np.isnan(e))[0])
        raise ParameterError(f"e-value {i} is NaN; e-values must be numbers >= 0"
                             + (" (log e-values in [-inf, inf])" if log else ""))
    if not log and (e < 0).any():
        i = int(np.flatnonzero(e < 0)[0])
        raise ParameterError(f"e-values must be >= 0; e-value {i} is {float(e[i]):g} (pass log=True for log e-values)")
    return e


def _below(e: np.ndarray, log: bool, inv: float) -> tuple[np.ndarray, np.ndarray]:
    """Mask of e-values below 1/alpha and those values in linear space (never overflows)."""
    if log:
        mask = e < math.log(inv)
        lin = np.exp(np.where(mask, e, 0.0))  # exp of values < log(1/alpha) only
        return mask, np.where(mask, lin, 0.0)
    mask = e < inv
    return mask, np.where(mask, e, 0.0)


def e_holm_threshold(evalues: Any, alpha: float = 0.05, *, log: bool = False) -> float:
    """Cut-off c of direct e-Holm: ``1/alpha + sum_{k: E_k < 1/alpha} (1/alpha - E_k)``, in [1/alpha, K/alpha].

    Computed in linear space from the values below 1/alpha only, so large e-values cannot overflow.
    """
    alpha = check_alpha(alpha)
    e = _check_e(evalues, log)
    inv = 1.0 / alpha
    mask, lin = _below(e, log, inv)
    return float(inv + np.sum(inv - lin[mask]))


@dataclass(frozen=True)
class EHolmResult(ResultMixin):
    """Result of :func:`e_holm`: ``rejected`` (bool array, one per hypothesis), the cut-off ``threshold`` c
    (in log space if ``log``), ``alpha``, ``log``.

    For one release (0.2) it also behaves like the bool array 0.1 returned (``np.asarray(res)``,
    ``res.tolist()``, indexing); use ``res.rejected``.
    """

    rejected: np.ndarray
    threshold: float
    alpha: float
    log: bool

    @property
    def n_rejected(self) -> int:
        return int(np.count_nonzero(self.rejected))

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self.rejected if dtype is None else self.rejected.astype(dtype)

    def tolist(self) -> list[bool]:
        return self.rejected.tolist()

    def __getitem__(self, key: Any) -> Any:
        return self.rejected[key]

    def __len__(self) -> int:
        return len(self.rejected)


@validated("e_holm")
def e_holm(evalues: Any, alpha: float = 0.05, *, log: bool = False) -> EHolmResult:
    """Direct (closed) e-Holm: reject H_k iff E_k >= c (spec 02 C.1, BB-EDGE Eq. 8).

    Parameters
    ----------
    evalues : array_like of shape (K,)
        Current e-values E_k >= 0 (or log e-values with ``log=True``), one per hypothesis.
    alpha : float, default 0.05
        Family-wise error rate.
    log : bool, default False
        Interpret ``evalues`` as natural-log e-values; the comparison is then ``log E_k >= log c``.

    Returns
    -------
    EHolmResult
        ``rejected`` (bool array, shape (K,); the boundary is inclusive: E_k = c is rejected), ``threshold``.

    Raises
    ------
    ParameterError
        NaN or negative e-values, or alpha outside (0, 1).

    Examples
    --------
    >>> e_holm([100, 30, 12, 0.5], 0.05).rejected.tolist()
    [True, False, False, False]
    >>> e_holm([50, 45, 40, 0], 0.05).rejected.tolist()
    [True, True, True, False]
    """
    alpha = check_alpha(alpha)
    e = _check_e(evalues, log)
    inv = 1.0 / alpha
    mask, lin = _below(e, log, inv)
    c = inv + float(np.sum(inv - lin[mask]))
    cut = math.log(c) if log else c
    rejected = ~mask & (e >= cut)
    rejected.setflags(write=False)
    return EHolmResult(rejected=rejected, threshold=float(cut), alpha=alpha, log=bool(log))


def e_holm_adjusted(evalues: Any, *, log: bool = False) -> np.ndarray:
    """Closed adjusted e-values e* (spec 02 C.1): H_k is rejected by direct e-Holm iff e*_k >= 1/alpha.

    With e-values sorted ascending e_(1) <= ... <= e_(K) and S_j = e_(1) + ... + e_(j),
    e*_(r) = min_{0 <= j <= r-1} (e_(r) + S_j) / (j + 1). Returned in the input order, in linear space
    (``log=True`` only changes how the input is read). O(K^2) memory-light loop over ranks.
    """
    e = _check_e(evalues, log)
    if log:
        with np.errstate(over="ignore"):  # huge log e-values become +inf, which is their correct e*
            lin = np.exp(e)
    else:
        lin = e
    k = lin.size
    if k == 0:
        return lin.copy()
    order = np.argsort(lin, kind="stable")
    s = lin[order]
    cums = np.concatenate(([0.0], np.cumsum(s)))  # S_0..S_K
    out_sorted = np.empty(k)
    denom = np.arange(1, k + 1, dtype=float)
    for r in range(k):  # 0-based rank r: j = 0..r in the formula's (1-based r) range 0..r-1
        out_sorted[r] = np.min((s[r] + cums[: r + 1]) / denom[: r + 1])
    out = np.empty(k)
    out[order] = out_sorted
    return out


def holm_inverse_e(evalues: Any, alpha: float = 0.05, *, log: bool = False) -> np.ndarray:
    """Holm on 1/e (spec 02 C.2): step-down with thresholds E_[j] >= (K - j + 1)/alpha, inclusive.

    Valid under arbitrary dependence, also when applied to running maxima; dominated by :func:`e_holm` on
    current values.
    """
    alpha = check_alpha(alpha)
    e = _check_e(evalues, log)
    k = e.size
    order = np.argsort(-e, kind="stable")
    thresholds = (k - np.arange(k)) / alpha  # j = 1..K -> (K - j + 1)/alpha
    if log:
        ok = e[order] >= np.log(thresholds)
    else:
        ok = e[order] >= thresholds
    fails = np.flatnonzero(~ok)
    n_rej = int(fails[0]) if fails.size else k
    out = np.zeros(k, dtype=bool)
    out[order[:n_rej]] = True
    return out
