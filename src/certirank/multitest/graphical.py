"""Graphical multiple testing (Bretz, Maurer, Brannath & Posch 2009), batch and online (spec 02 Part A).

A :class:`Graph` holds the weights ``w`` (local levels are ``alpha * w``), the transition matrix ``G`` and
which hypotheses are rejected. It is validated once, on construction, and is then changed only by the Bretz
update :meth:`Graph.reject`, which costs O(m^2). Engines (AnyRank) keep one :class:`Graph` as their
pre-registered multiplicity state and serialise it with :meth:`Graph.to_dict` / :meth:`Graph.from_dict`
(exact round trip through JSON).

Batch procedures:

- :func:`graph_rejections` -- Algorithm 1 (sequential rejection);
- :func:`adjusted_pvalues` -- Algorithm 2 (adjusted p-values);
- :func:`graph_test` -- adjusted p-values and the rejections they imply, as a frozen result (public entry
  point ``certirank.graph_test``).

Decision rule (spec 02 A.3, this module uses it everywhere, online and batch): H_j is rejectable at weight
``w_j`` iff ``w_j > 0`` and ``round(p_j / w_j, 10) <= alpha``. Rounding absorbs floating-point error when
``p_j`` sits exactly on its level (vector E7), and makes Algorithms 1 and 2 agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validate import check_alpha
from ..errors import ParameterError, StateError

__all__ = [
    "EPSILON",
    "SUM_TOL",
    "DENOMINATOR_TOL",
    "ROUND_DECIMALS",
    "Graph",
    "graph_rejections",
    "passes",
    "check_pvalues",
    "holm_rejections",
]

#: numerical value of an epsilon-edge (spec 02 A.5; gMCP uses 1e-3)
EPSILON = 1e-9
#: tolerance on sums of weights and of transition rows (spec 02 A.1)
SUM_TOL = 1e-9
#: Bretz update denominators at or below this are treated as 0 (spec 02 A.2); must stay far below EPSILON
DENOMINATOR_TOL = 1e-12
#: adjusted p-values are rounded to this many decimals before comparing with alpha (spec 02 A.3)
ROUND_DECIMALS = 10


# ------------------------------------------------------------------------------------------------- checks

def _short(values: Any) -> str:
    # a refusal is one line: a 10**400 or a long list is cut, not printed whole
    text = repr(values)
    return text if len(text) <= 80 else text[:77] + "..."


def _as_float_array(name: str, values: Any, ndim: int) -> np.ndarray:
    try:
        arr = np.array(values, dtype=float)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an integer beyond any float (10**400)
        raise ParameterError(f"{name} must be numeric ({'a vector' if ndim == 1 else 'a square matrix'}) "
                             f"within the range of a float, got {_short(values)}") from None
    if arr.ndim != ndim:
        raise ParameterError(f"{name} must be {'a 1-d vector' if ndim == 1 else 'a 2-d square matrix'}, "
                             f"got an array of shape {arr.shape}")
    return arr


def check_pvalues(pvalues: Any, m: int | None = None, name: str = "pvalues") -> np.ndarray:
    """Validate a vector of p-values: finite numbers in [0, 1], length ``m`` if given."""
    p = _as_float_array(name, pvalues, 1)
    if m is not None and p.shape[0] != m:
        raise ParameterError(f"{name} must have one entry per hypothesis ({m}), got {p.shape[0]}")
    if np.isnan(p).any():
        bad = int(np.flatnonzero(np.isnan(p))[0])
        raise ParameterError(f"{name} contains NaN (hypothesis {bad}); every p-value must be a number in [0, 1]")
    if ((p < 0) | (p > 1)).any():
        bad = int(np.flatnonzero((p < 0) | (p > 1))[0])
        raise ParameterError(f"{name} must lie in [0, 1]; hypothesis {bad} has {float(p[bad])!r}")
    return p


def _check_graph(weights: Any, transitions: Any) -> tuple[np.ndarray, np.ndarray]:
    w = _as_float_array("weights", weights, 1)
    m = w.shape[0]
    if m == 0:
        raise ParameterError("a graph needs at least one hypothesis (weights is empty)")
    g = _as_float_array("transitions", transitions, 2)
    if g.shape != (m, m):
        raise ParameterError(f"transitions must be a {m} x {m} matrix (one row and column per weight), "
                             f"got shape {g.shape}")
    if not np.isfinite(w).all():
        raise ParameterError("weights must be finite numbers (found NaN or infinity)")
    if not np.isfinite(g).all():
        raise ParameterError("transitions must be finite numbers (found NaN or infinity)")
    if (w < 0).any():
        i = int(np.flatnonzero(w < 0)[0])
        raise ParameterError(f"weights must be >= 0; hypothesis {i} has weight {float(w[i])!r}")
    total = float(w.sum())
    if total > 1.0 + SUM_TOL:
        raise ParameterError(f"weights must sum to at most 1 (local levels sum to at most alpha); they sum to "
                             f"{total!r}")
    if ((g < 0) | (g > 1)).any():
        i, j = (int(v) for v in np.argwhere((g < 0) | (g > 1))[0])
        raise ParameterError(f"transitions must lie in [0, 1]; g[{i}][{j}] = {float(g[i, j])!r}")
    diag = np.diag(g)
    if (diag != 0).any():
        i = int(np.flatnonzero(diag != 0)[0])
        raise ParameterError(f"transitions must have a zero diagonal (a hypothesis cannot pass level to "
                             f"itself); g[{i}][{i}] = {float(diag[i])!r}")
    rows = g.sum(axis=1)
    if (rows > 1.0 + SUM_TOL).any():
        i = int(np.flatnonzero(rows > 1.0 + SUM_TOL)[0])
        raise ParameterError(f"each row of transitions must sum to at most 1; row {i} sums to {float(rows[i])!r}")
    return w, g


def passes(pvalues: Any, weights: Any, alpha: float) -> np.ndarray:
    """Elementwise decision rule of spec 02 A.3: ``w > 0`` and ``round(p / w, 10) <= alpha``.

    Use this (rather than ``p <= alpha * w``) wherever a p-value is compared with a graph's local level, so
    that online and batch decisions coincide exactly.
    """
    p = np.asarray(pvalues, dtype=float)
    w = np.asarray(weights, dtype=float)
    pos = w > 0
    with np.errstate(over="ignore"):  # p / (subnormal w) overflows to inf, which correctly never passes
        ratio = np.divide(p, w, out=np.full(np.broadcast(p, w).shape, np.inf), where=pos)
        return pos & (np.round(ratio, ROUND_DECIMALS) <= alpha)


def _remove(w: np.ndarray, g: np.ndarray, j: int) -> None:
    """Bretz update (spec 02 A.2 step 3) removing hypothesis j, in place, on full-size arrays.

    Rows/columns of hypotheses removed earlier are all zero, so they stay zero and need no masking.
    """
    gcol = g[:, j].copy()
    grow = g[j, :].copy()
    wj = w[j]
    w += wj * grow
    w[j] = 0.0
    den = 1.0 - gcol * grow
    # x / inf = 0 implements "else 0" without a division warning
    den[den <= DENOMINATOR_TOL] = np.inf
    g += np.multiply.outer(gcol, grow)
    np.divide(g, den[:, None], out=g)
    g[j, :] = 0.0
    g[:, j] = 0.0
    np.fill_diagonal(g, 0.0)


# ------------------------------------------------------------------------------------------------- Graph

class Graph:
    """A validated graph of weights and transitions with its current (online) Bretz state.

    Parameters
    ----------
    weights : array_like, shape (m,)
        Initial weights w_i >= 0 with sum <= 1; the local level of H_i is ``alpha * w_i``.
    transitions : array_like, shape (m, m)
        Transition matrix: g_ij in [0, 1], zero diagonal, rows summing to at most 1.
    names : sequence of str, optional
        Hypothesis names (for messages and serialisation only).

    Raises
    ------
    ParameterError
        If the graph violates the regularity conditions of spec 02 A.1 (tolerance 1e-9 on sums).

    Notes
    -----
    The object is mutable only through :meth:`reject` (and :meth:`reject_eligible`), which apply the exact
    Bretz update; a rejection is never undone. ``initial_weights`` / ``initial_transitions`` keep the
    pre-registered graph. Attributes returned by the properties are read-only views.

    Examples
    --------
    >>> g = Graph([1/3, 1/3, 1/3], [[0, .5, .5], [.5, 0, .5], [.5, .5, 0]])  # Holm (graphs.holm(3))
    >>> g.levels(0.3)
    array([0.1, 0.1, 0.1])
    >>> g.reject(0); g.levels(0.3)
    array([0.  , 0.15, 0.15])
    """

    __slots__ = ("_w", "_g", "_rejected", "_w0", "_g0", "_names", "_order")

    def __init__(self, weights: Any, transitions: Any, *, names: Sequence[str] | None = None) -> None:
        w, g = _check_graph(weights, transitions)
        self._w0 = w.copy()
        self._g0 = g.copy()
        self._w = w.copy()
        self._g = g.copy()
        self._rejected = np.zeros(w.shape[0], dtype=bool)
        self._names = self._check_names(names, w.shape[0])
        self._order: list[int] = []
        for arr in (self._w0, self._g0):
            arr.setflags(write=False)

    @staticmethod
    def _check_names(names: Sequence[str] | None, m: int) -> tuple[str, ...] | None:
        if names is None:
            return None
        names = tuple(str(n) for n in names)
        if len(names) != m:
            raise ParameterError(f"names must have one entry per hypothesis ({m}), got {len(names)}")
        if len(set(names)) != m:
            raise ParameterError("hypothesis names must be unique")
        return names

    # -------------------------------------------------------------- read access
    @property
    def m(self) -> int:
        """Number of hypotheses."""
        return int(self._w.shape[0])

    def __len__(self) -> int:
        return self.m

    @property
    def names(self) -> tuple[str, ...] | None:
        return self._names

    @property
    def weights(self) -> np.ndarray:
        """Current weights (0 for rejected hypotheses); read-only view."""
        v = self._w.view()
        v.setflags(write=False)
        return v

    @property
    def transitions(self) -> np.ndarray:
        """Current transition matrix (rows/columns of rejected hypotheses are 0); read-only view."""
        v = self._g.view()
        v.setflags(write=False)
        return v

    @property
    def initial_weights(self) -> np.ndarray:
        return self._w0

    @property
    def initial_transitions(self) -> np.ndarray:
        return self._g0

    @property
    def rejected(self) -> np.ndarray:
        """Boolean mask of rejected hypotheses (copy)."""
        return self._rejected.copy()

    @property
    def rejection_order(self) -> list[int]:
        """Indices in the order they were rejected."""
        return list(self._order)

    @property
    def open(self) -> np.ndarray:
        """Indices of hypotheses not yet rejected."""
        return np.flatnonzero(~self._rejected)

    def levels(self, alpha: float) -> np.ndarray:
        """Current local levels ``alpha * w_i`` (0 for rejected hypotheses)."""
        return check_alpha(alpha) * self._w

    def eligible(self, pvalues: Any, alpha: float) -> np.ndarray:
        """Boolean mask of open hypotheses whose p-value passes its current level (rule of :func:`passes`)."""
        alpha = check_alpha(alpha)
        p = check_pvalues(pvalues, self.m)
        return passes(p, self._w, alpha) & ~self._rejected

    # -------------------------------------------------------------- online update
    def reject(self, j: int) -> None:
        """Reject hypothesis ``j`` and apply the Bretz update (spec 02 A.2 step 3) in O(m^2).

        Its weight is passed along row ``j`` of the transition matrix and the transitions among the remaining
        hypotheses are rewired. This is also how logically implied rejections (AnyRank transitive closure)
        pass their level on.

        Raises
        ------
        StateError
            If ``j`` is already rejected (nothing is changed).
        ParameterError
            If ``j`` is not a hypothesis index.
        """
        if isinstance(j, (bool, np.bool_)) or not isinstance(j, (int, np.integer)):
            raise ParameterError(f"hypothesis index must be an integer, got {j!r}")
        j = int(j)
        if not 0 <= j < self.m:
            raise ParameterError(f"hypothesis index {j} out of range 0..{self.m - 1}")
        if self._rejected[j]:
            raise StateError(f"hypothesis {self._label(j)} is already rejected; rejections are never repeated")
        _remove(self._w, self._g, j)
        self._rejected[j] = True
        self._order.append(j)

    def reject_eligible(self, pvalues: Any, alpha: float, order: Sequence[int] | None = None) -> list[int]:
        """Run Algorithm 1 from the current state: reject eligible hypotheses until none is left.

        Parameters
        ----------
        pvalues : array_like, shape (m,)
            Current p-values (entries of rejected hypotheses are ignored but must be valid numbers).
        alpha : float
            Family-wise level.
        order : sequence of int, optional
            Hypothesis order: among eligible hypotheses the first in this order is rejected first (default:
            index order). The final set does not depend on it (spec 02 A.2, order invariance).

        Returns
        -------
        list of int
            Newly rejected indices, in rejection order.
        """
        alpha = check_alpha(alpha)
        p = check_pvalues(pvalues, self.m)
        rank = self._order_rank(order)
        new: list[int] = []
        while True:
            ok = passes(p, self._w, alpha) & ~self._rejected
            if not ok.any():
                return new
            cand = np.flatnonzero(ok)
            j = int(cand[np.argmin(rank[cand])])
            self.reject(j)
            new.append(j)

    def _order_rank(self, order: Sequence[int] | None) -> np.ndarray:
        if order is None:
            return np.arange(self.m)
        o = np.asarray(order)
        if o.shape != (self.m,) or not np.array_equal(np.sort(o), np.arange(self.m)):
            raise ParameterError(f"order must be a permutation of 0..{self.m - 1}")
        rank = np.empty(self.m, dtype=int)
        rank[o] = np.arange(self.m)
        return rank

    def _label(self, j: int) -> str:
        return f"{j} ({self._names[j]})" if self._names else str(j)

    # -------------------------------------------------------------- copies, equality, serialisation
    def copy(self) -> Graph:
        """Independent copy (same initial graph, same current state)."""
        new = Graph.__new__(Graph)
        new._w0, new._g0 = self._w0, self._g0
        new._w, new._g = self._w.copy(), self._g.copy()
        new._rejected = self._rejected.copy()
        new._names = self._names
        new._order = list(self._order)
        return new

    def initial(self) -> Graph:
        """A fresh graph equal to the pre-registered one (nothing rejected)."""
        return Graph(self._w0, self._g0, names=self._names)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Graph):
            return NotImplemented
        return (np.array_equal(self._w, other._w) and np.array_equal(self._g, other._g)
                and np.array_equal(self._rejected, other._rejected) and np.array_equal(self._w0, other._w0)
                and np.array_equal(self._g0, other._g0) and self._names == other._names
                and self._order == other._order)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"Graph(m={self.m}, rejected={int(self._rejected.sum())}, "
                f"weight_left={float(self._w.sum()):.6g})")

    def to_dict(self) -> dict[str, Any]:
        """Plain-data state (lists of Python floats). ``Graph.from_dict(g.to_dict()) == g`` exactly, also after
        a JSON round trip (Python writes floats with enough digits to read them back bit for bit)."""
        return {
            "names": list(self._names) if self._names is not None else None,
            "initial_weights": self._w0.tolist(),
            "initial_transitions": self._g0.tolist(),
            "weights": self._w.tolist(),
            "transitions": self._g.tolist(),
            "rejection_order": list(self._order),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Graph:
        """Restore a graph saved with :meth:`to_dict` (the current state is restored as stored, not recomputed).

        Raises
        ------
        ParameterError
            If the data are not a valid graph state.
        """
        try:
            g = cls(data["initial_weights"], data["initial_transitions"], names=data.get("names"))
            w, t = _check_graph(data["weights"], data["transitions"])
            order = [int(v) for v in data.get("rejection_order", [])]
        except KeyError as exc:
            raise ParameterError(f"graph state is missing the field {exc.args[0]!r}") from None
        if w.shape != g._w.shape:
            raise ParameterError("graph state: current and initial weights have different lengths")
        if len(set(order)) != len(order) or any(not 0 <= j < g.m for j in order):
            raise ParameterError("graph state: rejection_order must list distinct hypothesis indices")
        rejected = np.zeros(g.m, dtype=bool)
        rejected[order] = True
        if (w[rejected] != 0).any() or (t[rejected] != 0).any() or (t[:, rejected] != 0).any():
            raise ParameterError("graph state: rejected hypotheses must have zero weight and transitions")
        g._w, g._g, g._rejected, g._order = w, t, rejected, order
        return g


# ------------------------------------------------------------------------------------------------- batch

def _as_graph(weights: Any, transitions: Any) -> Graph:
    if isinstance(weights, Graph):
        if transitions is not None:
            raise ParameterError("pass either a Graph or (weights, transitions), not both")
        return weights
    return Graph(weights, transitions)


def graph_rejections(graph: Graph, pvalues: Any, alpha: float, order: Sequence[int] | None = None) -> np.ndarray:
    """Algorithm 1 (spec 02 A.2) from the graph's *initial* state; returns the boolean rejection mask.

    ``graph`` itself is not modified. ``order`` is the tie-break among eligible hypotheses (default index
    order); the final set does not depend on it.
    """
    g = graph.initial()
    g.reject_eligible(pvalues, alpha, order=order)
    return g.rejected


def holm_rejections(pvalues: Any, alpha: float) -> np.ndarray:
    """Holm's step-down procedure by sorting, O(m log m); equal to ``graph_rejections(holm(m), ...)``.

    The graph form costs O(m^2) per rejection, which is too slow for leaderboards with thousands of
    directions; this shortcut applies the same decision rule (`passes`: round(p / w, 10) <= alpha with
    w = 1 / (number of hypotheses left)) to the sorted p-values.
    """
    p = check_pvalues(pvalues)
    alpha = check_alpha(alpha)
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = np.round(p[order] * (m - np.arange(m)), 10)
    fails = np.flatnonzero(scaled > alpha)
    n_rejected = int(fails[0]) if fails.size else m
    rejected = np.zeros(m, dtype=bool)
    rejected[order[:n_rejected]] = True
    return rejected
