"""Synthetic data for BB-EDGE (spec 04 §13): fixed benchmark, latent-Gaussian binary scores.

Plain functions taking a ``seed``; the scenario layer wires them into ``certirank.simulate``. Panels are
returned as a float array of shape (R, L, N): replicate x model x item, binary scores with
P(S = 1) = p_i^(l) exactly.

Model:  p_i^(l) = theta_l + c_i + h_{i,l};  Z_{i,l,r} = sqrt(k1) U^block_{b(i),l,r} + sqrt(k2) U^item_{i,r}
+ sqrt(1 - k1 - k2) eps_{i,l,r};  S = 1{Z <= Phi^{-1}(p)}.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import ndtri

from .._validate import as_generator
from ..errors import ParameterError

__all__ = [
    "SETTINGS",
    "BBEdgeTruth",
    "bbedge_thetas",
    "bbedge_probabilities",
    "bbedge_truth",
    "bbedge_blocks",
    "bbedge_panels",
    "bbedge_expansion_versions",
    "bbedge_addition_panels",
    "semi_synthetic_panels",
]

#: setting -> (kappa1, kappa2, heterogeneity on?) (spec 04 §13.2)
SETTINGS: dict[str, tuple[float, float, bool]] = {
    "iid": (0.0, 0.1, False),
    "heterogeneity": (0.0, 0.1, True),
    "dependence": (0.5, 0.1, False),
    "combined": (0.5, 0.1, True),
}


def bbedge_thetas(L: int = 10, lo: float = 0.41, hi: float = 0.59) -> np.ndarray:
    """Benchmark means: L/2 evenly spaced values on [lo, hi], each duplicated (tied pairs)."""
    if L < 2 or L % 2:
        raise ParameterError(f"L must be an even number >= 2 (models come in tied pairs), got {L}")
    levels = np.linspace(lo, hi, L // 2)
    return np.repeat(levels, 2)


def bbedge_probabilities(L: int = 10, N: int = 100, eta: float = 0.10, heterogeneity: bool = False,
                         thetas: Any = None) -> np.ndarray:
    """p_i^(l) = theta_l + c_i + h_{i,l} as an (L, N) array.

    c_i is equally spaced on [-0.08, 0.08]; h gives tied pair (2k-1, 2k) the opposite item effects
    +-eta*s_i with s_i = +1 on the first half of the items and -1 on the second (reconstruction §13.2),
    so every model's h sums to 0 and benchmark means are exactly theta.
    """
    theta = bbedge_thetas(L) if thetas is None else np.asarray(thetas, dtype=float)
    if N < 2 or N % 2:
        raise ParameterError(f"N must be an even number >= 2, got {N}")
    c = -0.08 + 0.16 * np.arange(N) / (N - 1)
    p = theta[:, None] + c[None, :]
    if heterogeneity:
        s = np.where(np.arange(N) < N // 2, 1.0, -1.0)
        sign = np.where(np.arange(theta.shape[0]) % 2 == 0, 1.0, -1.0)
        p = p + eta * sign[:, None] * s[None, :]
    if (p <= 0).any() or (p >= 1).any():
        raise ParameterError("item probabilities leave (0, 1); reduce eta or the spread of theta")
    return p


@dataclass(frozen=True)
class BBEdgeTruth:
    """Ground truth: benchmark means, Delta matrix and which directions are true edges (Delta > tau)."""

    theta: np.ndarray
    delta: np.ndarray
    true_edge: np.ndarray

    def top_k(self, k: int) -> frozenset[int] | None:
        """The true Top-k set, or None when the k-th and (k+1)-th means are tied."""
        order = np.argsort(-self.theta, kind="stable")
        if k < len(order) and np.isclose(self.theta[order[k - 1]], self.theta[order[k]]):
            return None
        return frozenset(int(i) for i in order[:k])


def bbedge_truth(theta: Any, tau: float = 0.0, weights: Any = None, p: Any = None) -> BBEdgeTruth:
    """Truth for the benchmark means ``theta`` (or for the weighted means of ``p`` under ``weights``)."""
    if p is not None:
        p = np.asarray(p, dtype=float)
        w = np.full(p.shape[1], 1.0 / p.shape[1]) if weights is None else np.asarray(weights, dtype=float)
        theta = p @ w
    theta = np.asarray(theta, dtype=float)
    delta = theta[:, None] - theta[None, :]
    # rounding guard: exact ties from the construction must stay ties
    delta = np.where(np.abs(delta) < 1e-12, 0.0, delta)
    true_edge = delta > tau + 1e-12
    np.fill_diagonal(true_edge, False)
    return BBEdgeTruth(theta, delta, true_edge)


def bbedge_blocks(N: int = 100, block_size: int = 5) -> np.ndarray:
    """Contiguous blocks b(i) = ceil(i / s) (0-based labels) of size ``block_size``."""
    if block_size < 1:
        raise ParameterError(f"block_size must be >= 1, got {block_size}")
    return np.arange(N) // block_size


def bbedge_panels(seed: Any, setting: str = "iid", L: int = 10, N: int = 100, R: int = 100,
                  block_size: int = 5, kappa1: float | None = None, kappa2: float | None = None,
                  eta: float = 0.10, p: Any = None) -> np.ndarray:
    """Draw R replicates of the (L, N) binary panel: array (R, L, N).

    ``setting`` fixes (kappa1, kappa2, heterogeneity) unless ``kappa1`` / ``kappa2`` are given; a custom
    probability matrix ``p`` (L, N) overrides the means.
    """
    if setting not in SETTINGS:
        raise ParameterError(f"unknown setting {setting!r}; valid: {', '.join(SETTINGS)}")
    k1, k2, het = SETTINGS[setting]
    k1 = k1 if kappa1 is None else float(kappa1)
    k2 = k2 if kappa2 is None else float(kappa2)
    if k1 < 0 or k2 < 0 or k1 + k2 > 1:
        raise ParameterError(f"need kappa1, kappa2 >= 0 with kappa1 + kappa2 <= 1, got {k1}, {k2}")
    prob = bbedge_probabilities(L, N, eta, het) if p is None else np.asarray(p, dtype=float)
    L, N = prob.shape
    rng = as_generator(seed)
    blocks = bbedge_blocks(N, block_size)
    nb = int(blocks.max()) + 1
    cut = ndtri(prob)
    ub = rng.standard_normal((R, L, nb))[:, :, blocks]
    ui = rng.standard_normal((R, 1, N))
    eps = rng.standard_normal((R, L, N))
    z = np.sqrt(k1) * ub + np.sqrt(k2) * ui + np.sqrt(1.0 - k1 - k2) * eps
    return (z <= cut[None]).astype(float)


def bbedge_expansion_versions(N: int = 100) -> list[np.ndarray]:
    """Item index sets of the three benchmark versions of §13.4 (for N = 100: 40, 70, 100 items).

    Version 1 = items 1-20 and 51-70, version 2 adds 21-35 and 71-85, version 3 adds the rest (1-based in the
    spec, 0-based here). Each version keeps the heterogeneity signs balanced and whole blocks of 5.
    """
    if N % 20:
        raise ParameterError(f"the expansion schedule needs N divisible by 20, got {N}")
    h = N // 2
    a, b = int(0.2 * N), int(0.35 * N)
    v1 = np.r_[0:a, h:h + a]
    v2 = np.r_[0:b, h:h + b]
    v3 = np.arange(N)
    return [v1, v2, v3]


def bbedge_addition_panels(seed: Any, setting: str = "iid", L: int = 10, N: int = 100, R: int = 100,
                           block_size: int = 5, n_new: int = 1, **kwargs: Any) -> tuple[np.ndarray, np.ndarray]:
    """Panels for a model-addition study: (initial (R, L - n_new, N), new (R, n_new, N)).

    All L models are drawn jointly (the item effect U^item_{i,r} is shared through replicate r), then the
    last ``n_new`` are split off as models that arrive later and are paired replicate r with r.
    """
    full = bbedge_panels(seed, setting, L, N, R, block_size, **kwargs)
    return full[:, : L - n_new], full[:, L - n_new:]


def semi_synthetic_panels(seed: Any, single_run: np.ndarray, R: int, low: float = 0.05,
                          high: float = 0.95) -> np.ndarray:
    """Independent replicates from one observed binary run: p = low + (high - low) * S (spec 04 §14).

    ``single_run`` is (L, N); returns (R, L, N).
    """
    s = np.asarray(single_run, dtype=float)
    p = low + (high - low) * s
    rng = as_generator(seed)
    return (rng.random((R,) + s.shape) < p[None]).astype(float)
