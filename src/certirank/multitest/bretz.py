"""The one-shot graphical test of Bretz et al. (2009): :func:`graph_test` and its result (spec 02 A.2-A.3)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._params import validated
from .._validate import check_alpha
from ..errors import ParameterError
from ..results import ResultMixin
from .graphical import DENOMINATOR_TOL, ROUND_DECIMALS, Graph, _as_graph, check_pvalues

__all__ = ["GraphTestResult", "graph_test", "adjusted_pvalues"]

#: row scales of Algorithm 2 are folded back into the matrix above this value (see _algorithm2)
_SCALE_FOLD = 1e100

@dataclass(frozen=True)
class GraphTestResult(ResultMixin):
    """Result of :func:`graph_test`.

    Attributes
    ----------
    rejected : ndarray of bool
        Rejected hypotheses: ``round(adjusted, 10) <= alpha`` (equal to Algorithm 1's set, see
        :func:`graph_rejections`).
    adjusted : ndarray of float
        Adjusted p-values (Algorithm 2), capped at 1.
    alpha : float
        Family-wise level used.
    rejection_order : list of int
        Rejected hypotheses in Algorithm 2's order (smallest p/w first, as in Bretz et al.).
    """

    rejected: np.ndarray
    adjusted: np.ndarray
    alpha: float
    rejection_order: list[int]

    @property
    def n_rejected(self) -> int:
        return int(np.count_nonzero(self.rejected))


def _graph_test_compat(func: Any) -> Any:
    """Accept the 0.1 form ``graph_test(weights, transitions, pvalues, alpha)`` for one release."""
    import functools
    import warnings

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> GraphTestResult:
        old = ("weights" in kwargs or "transitions" in kwargs or len(args) == 4
               or (args and not isinstance(args[0], Graph)) or (len(args) >= 2 and args[1] is None))
        if not old:
            return func(*args, **kwargs)
        names = ("weights", "transitions", "pvalues", "alpha")
        given = dict(zip(names, args))
        for k, v in kwargs.items():
            if k in given:
                raise TypeError(f"graph_test() got multiple values for argument {k!r}")
            given[k] = v
        warnings.warn("graph_test(weights, transitions, pvalues, alpha) is deprecated and will fail in certirank "
                      "0.3; pass a Graph: graph_test(Graph(weights, transitions), pvalues, alpha)",
                      DeprecationWarning, stacklevel=2)
        try:
            graph = _as_graph(given["weights"], given.get("transitions"))
            return func(graph, given["pvalues"], given.get("alpha", 0.05))
        except KeyError as exc:
            raise TypeError(f"graph_test() missing argument {exc}") from None
    return wrapper


@_graph_test_compat
@validated("graph_test")
def graph_test(graph: Graph, pvalues: Any, alpha: float = 0.05) -> GraphTestResult:
    """Graphical multiple test of Bretz et al. (2009): rejections and adjusted p-values.

    Parameters
    ----------
    graph : Graph
        Initial weights and transitions (``Graph(weights, transitions)``; local levels are
        ``alpha * weights``); its initial state is used. The 0.1 form ``graph_test(weights, transitions,
        pvalues, alpha)`` still works in 0.2, with a DeprecationWarning.
    pvalues : array_like of shape (m,)
        p-values in [0, 1] (no NaN).
    alpha : float, default 0.05
        Family-wise error rate.

    Returns
    -------
    GraphTestResult
        ``rejected`` (bool array), ``adjusted`` (array), ``alpha``, ``rejection_order``.

    Raises
    ------
    ParameterError
        Invalid graph (negative weights, weights summing above 1, rows above 1, nonzero diagonal, ...),
        invalid p-values (NaN, outside [0, 1]) or alpha.

    Examples
    --------
    >>> g = Graph([1/3, 1/3, 1/3], [[0, .5, .5], [.5, 0, .5], [.5, .5, 0]])
    >>> r = graph_test(g, [0.02, 0.055, 0.012], 0.05)
    >>> r.rejected.tolist(), [round(float(v), 6) for v in r.adjusted]
    ([True, False, True], [0.04, 0.055, 0.036])
    """
    alpha = check_alpha(alpha)
    if not isinstance(graph, Graph):
        raise ParameterError(f"graph_test needs a Graph first (Graph(weights, transitions)), got {type(graph).__name__}")
    p = check_pvalues(pvalues, graph.m)
    adj, order = _algorithm2(graph, p)
    rejected = np.round(adj, ROUND_DECIMALS) <= alpha
    order = [j for j in order if rejected[j]]
    adj.setflags(write=False)
    rejected.setflags(write=False)
    return GraphTestResult(rejected=rejected, adjusted=adj, alpha=alpha, rejection_order=order)


def adjusted_pvalues(graph: Graph, pvalues: Any) -> np.ndarray:
    """Algorithm 2 (spec 02 A.3): adjusted p-values from the graph's *initial* state, capped at 1.

    Reject H_j iff ``round(adjusted_j, 10) <= alpha``. A hypothesis whose weight is 0 in every remaining
    graph gets 1. O(m^3) arithmetic in O(m) numpy calls (a few ms for m = 190).
    """
    return _algorithm2(graph, check_pvalues(pvalues, graph.m))[0]


def _algorithm2(graph: Graph, p: np.ndarray) -> tuple[np.ndarray, list[int]]:
    """Adjusted p-values and the processing order (argmin p/w, ties -> lowest index).

    Speed (the Bretz update of the whole matrix would be O(m^2) numpy work per step): the current transition
    matrix is kept implicitly as ``G_t = diag(s) @ (G_0 + U_t^T V_t)``. Removing hypothesis k adds one rank-1
    term (u = current column k of H, v = current row k of G) and divides the row scales s by the Bretz
    denominators, so each step needs only two matrix-vector products (row k and column k of the current
    matrix) and O(m) vector work. Columns of removed hypotheses are masked out of every new v; diagonal entries
    of H are never used.
    """
    m = graph.m
    w = graph.initial_weights.copy()
    h0 = np.array(graph.initial_transitions, dtype=float)
    ut = np.empty((m, m))  # ut[t] = u_t (indexed by row)
    vt = np.empty((m, m))  # vt[t] = v_t (indexed by column)
    s = np.ones(m)
    alive = np.ones(m)
    pv = p.astype(float)  # copy; removed hypotheses get p = inf so their ratio is inf
    # p / 0 is inf as wanted, except 0 / 0 (nan): only then pay for a masked division
    masked = bool((pv == 0).any())
    out = np.ones(m)
    order: list[int] = []
    ratio = np.empty(m)
    pmax = 0.0
    inf = np.inf
    with np.errstate(divide="ignore", over="ignore"):
        for t in range(m):
            if masked:
                ratio.fill(inf)
                np.divide(pv, w, out=ratio, where=w > 0)
            else:
                np.divide(pv, w, out=ratio)
            k = int(ratio.argmin())  # first minimum = lowest index among ties
            rk = float(ratio[k])
            if rk == inf:
                break  # every remaining weight is 0: the rest keep p~ = 1
            pmax = min(1.0, max(rk, pmax))
            out[k] = pmax
            order.append(k)
            alive[k] = 0.0
            pv[k] = inf
            if t:
                row = h0[k] + ut[:t, k] @ vt[:t]
                col = h0[:, k] + vt[:t, k] @ ut[:t]
            else:
                row = h0[k].copy()
                col = h0[:, k].copy()
            row *= alive  # drop removed columns (and the diagonal entry k)
            row *= s[k]  # current row k of G
            w += w[k] * row
            w[k] = 0.0
            den = 1.0 - (col * s) * row
            den[den <= DENOMINATOR_TOL] = inf  # row becomes 0 ("else 0")
            s /= den
            s[k] = 0.0
            ut[t] = col
            vt[t] = row
            # s grows by at most 1e12 per step (epsilon edges); fold it into H long before it could overflow
            if t % 16 == 15 and s.max() > _SCALE_FOLD:
                h0 *= s[:, None]
                ut[: t + 1] *= s[None, :]
                s = np.where(s > 0, 1.0, 0.0)
    return out, order
