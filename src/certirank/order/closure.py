"""Confidence-graph algorithms on boolean relation matrices (spec 07 §2–3, spec 04 §7–8, spec 03 §6).

Items are indexed 0..L-1. A relation matrix ``R`` is an (L, L) boolean array with ``R[a, b] = True`` for
"a is better than b" (a ≻ b). Functions never resolve a cycle silently: :func:`cycles` reports strongly
connected components, :func:`check_acyclic` raises :class:`CycleError`, and the rank-interval/tier helpers
fail closed (every interval [1, L], every tier 1) when the closure is inconsistent.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from .._validate import check_positive_int
from ..errors import ParameterError

__all__ = [
    "CycleError",
    "relation_matrix",
    "transitive_closure",
    "add_relation",
    "cycles",
    "is_consistent",
    "check_acyclic",
    "implied",
    "transitive_reduction",
    "superiors",
    "inferiors",
    "rank_intervals",
    "tiers",
    "top_k",
    "minimax_times",
    "longest_paths",
]


class CycleError(ParameterError):
    """The decided relations contain a cycle (a ⇝ a), so they are not a partial order.

    Attributes
    ----------
    cycles : list of list
        Strongly connected components of size > 1 (item indices or names), each sorted.
    """

    def __init__(self, message: str, cycles: list[list[Any]]) -> None:
        super().__init__(message)
        self.cycles = cycles


def _square_bool(name: str, mat: Any) -> np.ndarray:
    arr = np.asarray(mat)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ParameterError(f"{name} must be a square (L x L) matrix, got shape {arr.shape}")
    if arr.dtype != bool:
        if not np.isin(arr, (0, 1)).all():
            raise ParameterError(f"{name} must be boolean (0/1 entries)")
        arr = arr.astype(bool)
    return arr


def relation_matrix(n: int, pairs: Iterable[tuple[int, int]]) -> np.ndarray:
    """Boolean (n, n) matrix with ``R[a, b] = True`` for each decided pair (a, b) meaning a ≻ b.

    Raises
    ------
    ParameterError
        For an index outside 0..n-1 or a self-relation (a ≻ a).
    """
    n = check_positive_int("n", n)
    r = np.zeros((n, n), dtype=bool)
    for pair in pairs:
        try:
            a, b = (int(v) for v in pair)
        except (TypeError, ValueError):
            raise ParameterError(f"a relation must be a pair of item indices (winner, loser), got {pair!r}") from None
        if not (0 <= a < n and 0 <= b < n):
            raise ParameterError(f"relation {pair!r} refers to an item outside 0..{n - 1}")
        if a == b:
            raise ParameterError(f"relation {pair!r}: an item cannot be better than itself")
        r[a, b] = True
    return r


def transitive_closure(relations: Any) -> np.ndarray:
    """Reachability matrix (Floyd–Warshall, O(L^3)): ``C[a, b]`` iff there is a directed path a ⇝ b.

    A cycle shows up as ``C[a, a] = True``; see :func:`cycles`. The input is not modified.
    """
    c = _square_bool("relations", relations).copy()
    for k in range(c.shape[0]):
        col = c[:, k]
        if col.any():
            c |= np.outer(col, c[k, :])
    return c


def add_relation(closure: Any, a: int, b: int) -> np.ndarray:
    """Closure after adding a ≻ b to a relation set whose closure is ``closure``, in O(L^2).

    Everything that reaches ``a`` (and ``a`` itself) now reaches everything ``b`` reaches (and ``b``).
    Returns a new matrix; equal to :func:`transitive_closure` of the enlarged relation set.
    """
    c = _square_bool("closure", closure).copy()
    n = c.shape[0]
    if not (0 <= a < n and 0 <= b < n) or a == b:
        raise ParameterError(f"relation ({a}, {b}) must join two different items in 0..{n - 1}")
    src = c[:, a].copy()
    src[a] = True
    dst = c[b, :].copy()
    dst[b] = True
    c |= np.outer(src, dst)
    return c


def cycles(closure: Any) -> list[list[int]]:
    """Strongly connected components of size > 1 of a *closure* matrix, each sorted, listed by first index.

    Two items are in the same component iff each reaches the other. Empty list = consistent partial order.
    """
    c = _square_bool("closure", closure)
    mutual = c & c.T
    seen = np.zeros(c.shape[0], dtype=bool)
    out: list[list[int]] = []
    for a in range(c.shape[0]):
        if seen[a] or not c[a, a]:
            continue
        comp = np.flatnonzero(mutual[a])
        comp = np.union1d(comp, [a])
        seen[comp] = True
        if comp.size > 1:
            out.append(comp.tolist())
    return out


def is_consistent(closure: Any) -> bool:
    """True iff the closure has no cycle (no item reaches itself)."""
    c = _square_bool("closure", closure)
    return not bool(np.diag(c).any())


def check_acyclic(closure: Any, names: Sequence[str] | None = None) -> None:
    """Raise :class:`CycleError` naming the cycles if the closure is inconsistent; otherwise return None."""
    comps = cycles(closure)
    if not comps:
        return
    labelled = [[names[i] for i in comp] for comp in comps] if names is not None else comps
    text = "; ".join("{" + ", ".join(str(v) for v in comp) + "}" for comp in labelled)
    raise CycleError(f"the decided relations contain a cycle (inconsistent decisions) among {text}", labelled)


def implied(closure: Any) -> np.ndarray:
    """Directions implied by the closure: ``I[a, b]`` iff a ⇝ b and not b ⇝ a (spec 03 §6 cycle guard).

    Pairs inside a cycle imply neither direction.
    """
    c = _square_bool("closure", closure)
    out = c & ~c.T
    np.fill_diagonal(out, False)
    return out


def transitive_reduction(closure: Any, names: Sequence[str] | None = None) -> np.ndarray:
    """Hasse diagram of a DAG closure: keep a → b iff no c ∉ {a, b} has a ⇝ c ⇝ b.

    Raises
    ------
    CycleError
        If the closure contains a cycle (the reduction is not unique then).
    """
    c = _square_bool("closure", closure)
    check_acyclic(c, names)
    ci = c.astype(np.int32)
    two_step = (ci @ ci) > 0  # acyclic: a ⇝ x ⇝ b forces x ∉ {a, b}
    return c & ~two_step


def superiors(closure: Any) -> np.ndarray:
    """|A_a| = number of items that reach a (certified superiors), excluding a itself."""
    c = _square_bool("closure", closure).copy()
    np.fill_diagonal(c, False)
    return c.sum(axis=0)


def inferiors(closure: Any) -> np.ndarray:
    """|D_a| = number of items a reaches (certified inferiors), excluding a itself."""
    c = _square_bool("closure", closure).copy()
    np.fill_diagonal(c, False)
    return c.sum(axis=1)


def rank_intervals(closure: Any) -> tuple[np.ndarray, np.ndarray]:
    """Simultaneous rank intervals I_a = [1 + |A_a|, L - |D_a|] (spec 07 §2.5, spec 04 §7).

    Fails closed: if the closure has a cycle, every interval is [1, L].

    Returns
    -------
    lo, hi : ndarray of int
    """
    c = _square_bool("closure", closure)
    n = c.shape[0]
    if not is_consistent(c):
        return np.ones(n, dtype=int), np.full(n, n, dtype=int)
    return 1 + superiors(c).astype(int), n - inferiors(c).astype(int)


def tiers(closure: Any) -> np.ndarray:
    """Longest-path layering: tier 1 if no superior, else 1 + max tier of its superiors (all 1 if cyclic)."""
    c = _square_bool("closure", closure)
    n = c.shape[0]
    out = np.ones(n, dtype=int)
    if not is_consistent(c):
        return out
    # in a DAG closure every superior has strictly fewer superiors, so this order is topological
    for a in np.argsort(superiors(c), kind="stable"):
        sup = np.flatnonzero(c[:, a])
        if sup.size:
            out[a] = 1 + int(out[sup].max())
    return out


def top_k(closure: Any, k: int) -> np.ndarray | None:
    """Full-graph Top-k certificate (spec 04 §8.1).

    T = {a : |D_a| >= L - k} is certified iff |T| = k and every a in T reaches every b outside T.

    Returns
    -------
    ndarray of int or None
        Sorted indices of the certified Top-k set, or None if no set is certified (also when the closure is
        inconsistent: fail closed).
    """
    c = _square_bool("closure", closure)
    n = c.shape[0]
    k = check_positive_int("k", k)
    if k >= n:
        raise ParameterError(f"k must be smaller than the number of items ({n}), got {k}")
    if not is_consistent(c):
        return None
    t = np.flatnonzero(inferiors(c) >= n - k)
    if t.size != k:
        return None
    rest = np.setdiff1d(np.arange(n), t)
    if not c[np.ix_(t, rest)].all():
        return None
    return t


def minimax_times(times: Any) -> np.ndarray:
    """Decision-time closure (spec 03 §6): T(a, c) = min over paths of the max edge time along the path.

    Parameters
    ----------
    times : array_like (L, L)
        Decision time of each direct relation a ≻ b; ``inf`` (or NaN) where there is no relation.

    Returns
    -------
    ndarray (L, L)
        Minimax path times; ``inf`` where c is unreachable from a.
    """
    t = np.array(times, dtype=float)
    if t.ndim != 2 or t.shape[0] != t.shape[1]:
        raise ParameterError(f"times must be a square (L x L) matrix, got shape {t.shape}")
    t[np.isnan(t)] = np.inf
    for k in range(t.shape[0]):
        t = np.minimum(t, np.maximum(t[:, k, None], t[None, k, :]))
    return t


def longest_paths(relations: Any) -> np.ndarray:
    """Longest directed path length (in edges) from a to b in a DAG of certified edges; 0 if unreachable.

    For BB-EDGE margins: a path of length d certifies Delta_{a,b} > d * tau (spec 04 §7).

    Raises
    ------
    CycleError
        If the edges contain a cycle.
    """
    r = _square_bool("relations", relations)
    c = transitive_closure(r)
    check_acyclic(c)
    dist = np.where(r, 1, 0).astype(int)
    # process intermediate nodes in topological order: items with fewer superiors first
    topo = np.argsort(superiors(c), kind="stable")
    for v in topo:
        # extend every known path ending at v by every edge leaving v
        into = dist[:, v]
        has = into > 0
        if has.any():
            out_edges = r[v]
            cand = np.where(np.outer(has, out_edges), into[:, None] + 1, 0)
            dist = np.maximum(dist, cand)
    return dist
