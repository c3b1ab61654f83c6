"""Robustness measures over a finite uncertainty distribution Ψ (spec 05, §4).

Losses are indexed by the support of Ψ (the (tuning policy, target) pairs q = 1..d). Both measures
weight the support after sorting it by loss in decreasing order, ties broken by index (the value never
depends on the tie order, the subgradient can).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from ...errors import ParameterError

__all__ = ["cvar", "cvar_weights", "kofn", "kofn_weights"]


def _prepare(losses: np.ndarray, psi: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    losses = np.asarray(losses, dtype=float)
    if losses.ndim != 1 or losses.size == 0:
        raise ParameterError(f"losses must be a non-empty 1-D array, got shape {losses.shape}")
    if psi is None:
        psi = np.full(losses.size, 1.0 / losses.size)
    psi = np.asarray(psi, dtype=float)
    if psi.shape != losses.shape:
        raise ParameterError(f"psi must have the same shape as losses ({losses.shape}), got {psi.shape}")
    if np.any(psi < 0) or not np.isclose(psi.sum(), 1.0, atol=1e-9):
        raise ParameterError("psi must be a probability vector (non-negative, summing to 1)")
    return losses, psi


def _descending_order(losses: np.ndarray) -> np.ndarray:
    # a stable sort of -loss keeps the lower index first among equal losses
    return np.argsort(-losses, kind="stable")


def _check_eta(eta: float) -> float:
    eta = float(eta)
    if not 0.0 <= eta <= 1.0:
        raise ParameterError(f"eta must be in [0, 1], got {eta!r}")
    return eta


def cvar_weights(losses: np.ndarray, psi: np.ndarray | None, eta: float) -> np.ndarray:
    """The antagonist's CVaR(η) mass α on each support point (spec 05, §4.3).

    Parameters
    ----------
    losses : array of shape (d,)
        Loss of each support point of Ψ.
    psi : array of shape (d,) or None
        Probabilities of the support points (None: uniform).
    eta : float
        Fractile in [0, 1].

    Returns
    -------
    numpy.ndarray
        α in the original order, with ``α.sum() == min(eta, 1)``; CVaR_η = Σ α ℓ / η. For η = 0 every
        α is 0 (the measure is then the maximum, see :func:`cvar`).
    """
    losses, psi = _prepare(losses, psi)
    eta = _check_eta(eta)
    order = _descending_order(losses)
    p_sorted = psi[order]
    before = np.concatenate(([0.0], np.cumsum(p_sorted)[:-1]))
    alpha_sorted = np.minimum(p_sorted, np.maximum(0.0, eta - before))
    alpha = np.empty_like(alpha_sorted)
    alpha[order] = alpha_sorted
    return alpha


def cvar(losses: np.ndarray, psi: np.ndarray | None, eta: float) -> float:
    """CVaR_η of the loss under Ψ: the mean of the worst η-fraction; η = 0 gives the maximum."""
    losses, psi = _prepare(losses, psi)
    eta = _check_eta(eta)
    if eta == 0.0:
        return float(losses[psi > 0].max())
    return float(np.dot(cvar_weights(losses, psi, eta), losses) / eta)


def kofn_weights(losses: np.ndarray, psi: np.ndarray | None, k: int, n: int) -> np.ndarray:
    """Exact weights β of the k-of-N measure on each support point (spec 05, §4.2).

    The expected mean of the k worst of N i.i.d. draws from Ψ equals Σ_i β_i ℓ_i; β sums to 1.
    """
    losses, psi = _prepare(losses, psi)
    if not (1 <= int(k) <= int(n)):
        raise ParameterError(f"k-of-N needs 1 <= k <= N, got k={k!r}, N={n!r}")
    k, n = int(k), int(n)
    order = _descending_order(losses)
    cum = np.clip(np.cumsum(psi[order]), 0.0, 1.0)
    cum[-1] = 1.0
    prev = np.concatenate(([0.0], cum[:-1]))
    j = np.arange(1, k + 1)[:, None]
    # P(Bin(N, F) >= j) = sf(j - 1)
    tail = stats.binom.sf(j - 1, n, cum[None, :]) - stats.binom.sf(j - 1, n, prev[None, :])
    beta_sorted = tail.sum(axis=0) / k
    beta = np.empty_like(beta_sorted)
    beta[order] = beta_sorted
    return beta


def kofn(losses: np.ndarray, psi: np.ndarray | None, k: int, n: int) -> float:
    """Expected mean of the k largest of N i.i.d. losses drawn from Ψ (exact, finite support)."""
    losses, psi = _prepare(losses, psi)
    return float(np.dot(kofn_weights(losses, psi, k, n), losses))
