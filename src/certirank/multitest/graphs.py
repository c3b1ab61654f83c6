"""Constructors for common graphs (spec 02 A.4) and the prior-informed AnyRank graphs (spec 02 Part B).

Every constructor returns a validated :class:`~certirank.multitest.graphical.Graph` whose weights are
fractions of alpha (local level = ``alpha * weight``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validate import check_choice, check_nonnegative, check_positive_int
from ..errors import ParameterError
from .graphical import Graph

__all__ = [
    "holm",
    "bonferroni",
    "weighted_bonferroni",
    "weighted_holm",
    "fixed_sequence",
    "fallback",
    "from_prior",
    "prior_order",
    "effective_gaps",
    "pair_gaps",
    "weighted_bonferroni_from_prior",
    "ZERO_GAP",
    "FORWARD_FRACTION",
]

#: replacement for a prior gap of exactly 0 (spec 02 B.2)
ZERO_GAP = 0.01
#: default mass sent to later (harder) hypotheses by the soft_masked graph (spec 02 B.1)
FORWARD_FRACTION = 0.9

GRAPH_KINDS = ("soft_masked", "fully_connected")


def _weights_arg(weights: Any) -> np.ndarray:
    w = np.array(weights, dtype=float)
    if w.ndim != 1 or w.size == 0:
        raise ParameterError(f"weights must be a non-empty 1-d vector, got shape {w.shape}")
    return w


def holm(m: int, *, names: Sequence[str] | None = None) -> Graph:
    """Unweighted Holm: w_i = 1/m and g_ij = 1/(m-1) for i != j (spec 02 A.4)."""
    m = check_positive_int("m", m)
    g = np.zeros((m, m)) if m == 1 else np.full((m, m), 1.0 / (m - 1))
    np.fill_diagonal(g, 0.0)
    return Graph(np.full(m, 1.0 / m), g, names=names)


def bonferroni(m: int, *, names: Sequence[str] | None = None) -> Graph:
    """Bonferroni: w_i = 1/m, no recycling (G = 0)."""
    m = check_positive_int("m", m)
    return Graph(np.full(m, 1.0 / m), np.zeros((m, m)), names=names)


def weighted_bonferroni(weights: Any, *, names: Sequence[str] | None = None) -> Graph:
    """Weighted Bonferroni: the given weights (sum <= 1), no recycling (G = 0)."""
    w = _weights_arg(weights)
    return Graph(w, np.zeros((w.size, w.size)), names=names)


def weighted_holm(weights: Any, *, names: Sequence[str] | None = None) -> Graph:
    """Weighted Holm: g_ij = w_j / sum_{k != i} w_k (spec 02 A.4).

    A row whose other weights are all zero passes its level uniformly to the others (this project's choice;
    any choice is valid, and this one never strands level).
    """
    w = _weights_arg(weights)
    m = w.size
    if m == 1:
        return Graph(w, np.zeros((1, 1)), names=names)
    other = np.tile(np.where(np.isfinite(w), w, 0.0), (m, 1))
    np.fill_diagonal(other, 0.0)
    sums = other.sum(axis=1)
    uniform = np.full((m, m), 1.0 / (m - 1))
    np.fill_diagonal(uniform, 0.0)
    g = np.where(sums[:, None] > 0, other / np.where(sums > 0, sums, 1.0)[:, None], uniform)
    return Graph(w, g, names=names)


def _chain(m: int, order: Sequence[int] | None) -> tuple[np.ndarray, np.ndarray]:
    o = np.arange(m) if order is None else np.asarray(order)
    if o.shape != (m,) or not np.array_equal(np.sort(o), np.arange(m)):
        raise ParameterError(f"order must be a permutation of 0..{m - 1}, got {order!r}")
    g = np.zeros((m, m))
    g[o[:-1], o[1:]] = 1.0
    return o, g


def fixed_sequence(m: int, order: Sequence[int] | None = None, *, names: Sequence[str] | None = None) -> Graph:
    """Fixed sequence: full weight on the first hypothesis of ``order``, chain g_{o_i, o_{i+1}} = 1.

    With ``order`` = the prior order this is AnyRank_inf (spec 02 B.6). A non-rejection blocks every later
    hypothesis.
    """
    m = check_positive_int("m", m)
    o, g = _chain(m, order)
    w = np.zeros(m)
    w[o[0]] = 1.0
    return Graph(w, g, names=names)


def fallback(weights: Any, order: Sequence[int] | None = None, *, names: Sequence[str] | None = None) -> Graph:
    """Fallback procedure (Wiens): the given weights with the chain g_{o_i, o_{i+1}} = 1 along ``order``."""
    w = _weights_arg(weights)
    _, g = _chain(w.size, order)
    return Graph(w, g, names=names)


# ---------------------------------------------------------------------------------------------- priors

def _check_gaps(d: Any) -> np.ndarray:
    arr = np.array(d, dtype=float)
    if arr.ndim != 1 or arr.size == 0:
        raise ParameterError(f"prior gaps d must be a non-empty 1-d vector (one per hypothesis), got shape "
                             f"{arr.shape}")
    if not np.isfinite(arr).all():
        raise ParameterError("prior gaps d must be finite numbers (found NaN or infinity)")
    if (arr < 0).any():
        i = int(np.flatnonzero(arr < 0)[0])
        raise ParameterError(f"prior gaps d are absolute differences and must be >= 0; d[{i}] = {arr[i]!r}")
    return arr


def effective_gaps(d: Any) -> np.ndarray:
    """d~ of spec 02 B.2: d where d > 0, else 0.01."""
    arr = _check_gaps(d)
    return np.where(arr > 0, arr, ZERO_GAP)


def prior_order(d: Any) -> np.ndarray:
    """Hypothesis order of spec 02 B.2: indices sorted by gap d descending (easiest first), stable."""
    arr = _check_gaps(d)
    return np.argsort(-arr, kind="stable")


def pair_gaps(means: Any) -> tuple[list[tuple[int, int]], np.ndarray]:
    """Pairs (i, j), i < j in policy order, and their prior gaps |mu_i - mu_j| (spec 02 B.2).

    Returns
    -------
    pairs : list of (int, int)
        K = M(M-1)/2 pairs in lexicographic order (the hypothesis index order).
    d : ndarray, shape (K,)
    """
    mu = np.array(means, dtype=float)
    if mu.ndim != 1 or mu.size < 2:
        raise ParameterError("prior means must be a 1-d vector with at least two policies")
    if not np.isfinite(mu).all():
        raise ParameterError("prior means must be finite numbers (found NaN or infinity)")
    i, j = np.triu_indices(mu.size, k=1)
    return list(zip(i.tolist(), j.tolist())), np.abs(mu[i] - mu[j])


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max())
    return e / e.sum()


def from_prior(d: Any | None, gamma: float = 1.0, kind: str = "soft_masked", *,
               forward_fraction: float = FORWARD_FRACTION, m: int | None = None,
               names: Sequence[str] | None = None) -> Graph:
    """Prior-informed AnyRank graph (spec 02 Part B).

    Parameters
    ----------
    d : array_like of shape (K,) or None
        Prior gaps |mu_i - mu_j| >= 0, one per hypothesis, in hypothesis *index* order (e.g. from
        :func:`pair_gaps`). The returned graph keeps this index order; use :func:`prior_order` for the
        processing order (gap descending, stable). ``None`` means no prior: Holm over ``m`` hypotheses
        whatever ``kind`` is (spec 02 B.5).
    gamma : float, default 1.0
        Inverse temperature (prior strength) >= 0. ``gamma = 0`` gives equal weights 1/K.
    kind : {"soft_masked", "fully_connected"}, default "soft_masked"
        Transition structure (spec 02 B.4).
    forward_fraction : float, default 0.9
        Mass a soft_masked row sends to later (harder) hypotheses when it has both later and earlier ones.
    m : int, optional
        Number of hypotheses; required when ``d`` is None, checked against ``len(d)`` otherwise.

    Returns
    -------
    Graph
        Weights ``softmax(gamma * d~)`` and the chosen transitions. With K = 1: weight 1, G = 0.

    Examples
    --------
    >>> g = from_prior([0.4, 0.8, 0.4], gamma=5)
    >>> [round(float(v) * 0.1, 6) for v in g.weights]
    [0.010651, 0.078699, 0.010651]
    """
    kind = check_choice("graph kind", kind, GRAPH_KINDS)
    gamma = check_nonnegative("gamma", gamma)
    phi = check_nonnegative("forward_fraction", forward_fraction)
    if phi > 1:
        raise ParameterError(f"forward_fraction must be in [0, 1], got {forward_fraction!r}")
    if d is None:
        if m is None:
            raise ParameterError("from_prior needs the number of hypotheses m when no prior gaps d are given")
        return holm(m, names=names)
    raw = _check_gaps(d)
    if m is not None and check_positive_int("m", m) != raw.size:
        raise ParameterError(f"m = {m} does not match the number of prior gaps ({raw.size})")
    k = raw.size
    if k == 1:
        return Graph([1.0], [[0.0]], names=names)
    dt = np.where(raw > 0, raw, ZERO_GAP)
    with np.errstate(over="ignore"):  # refused below in one line, rather than as numpy warnings then NaN weights
        z = gamma * dt
    if not np.isfinite(z).all():
        raise ParameterError(f"gamma = {gamma:g} times the prior gaps (up to {float(raw.max()):g}) overflows; use a "
                             "smaller gamma, or prior means on the score scale [0, 1]")
    weights = _softmax(z)
    e = np.exp(z - z.max())  # common factor cancels inside every normalised group
    if kind == "fully_connected":
        num = np.tile(e, (k, 1))
        np.fill_diagonal(num, 0.0)
        g = num / num.sum(axis=1, keepdims=True)
    else:
        pos = np.empty(k, dtype=int)
        pos[np.argsort(-raw, kind="stable")] = np.arange(k)
        fwd = pos[None, :] > pos[:, None]
        bwd = pos[None, :] < pos[:, None]
        ef = np.where(fwd, e[None, :], 0.0)
        eb = np.where(bwd, e[None, :], 0.0)
        sf = ef.sum(axis=1)
        sb = eb.sum(axis=1)
        has_f, has_b = sf > 0, sb > 0
        mass_f = np.where(has_f & has_b, phi, np.where(has_f, 1.0, 0.0))
        mass_b = np.where(has_f & has_b, 1.0 - phi, np.where(has_b, 1.0, 0.0))
        g = (ef * (mass_f / np.where(has_f, sf, 1.0))[:, None]
             + eb * (mass_b / np.where(has_b, sb, 1.0))[:, None])
    return Graph(weights, g, names=names)


def weighted_bonferroni_from_prior(d: Any, gamma: float = 1.0, *, names: Sequence[str] | None = None) -> Graph:
    """Weighted Bonferroni variant of spec 02 B.6: weights ``softmax(-gamma * d~)`` (closer priors get more
    budget), no recycling."""
    gamma = check_nonnegative("gamma", gamma)
    dt = effective_gaps(d)
    return weighted_bonferroni(_softmax(-gamma * dt), names=names)
