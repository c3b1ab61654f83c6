"""Online graphical testing with anytime-valid p-processes (spec 02 A.6).

:class:`SequentialGraphTest` keeps the current Bretz state and, whenever p-values change, rejects eligible
hypotheses until none is left. It never restarts and never un-rejects. Because the p-processes are
non-increasing and the procedure is monotone and order-invariant, its rejection set at any time equals the
batch Algorithm 1 on the current p-values with the initial graph (lemma "online = batch").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .._validate import check_alpha
from ..errors import ParameterError
from .graphical import Graph, check_pvalues

__all__ = ["SequentialGraphTest"]


class SequentialGraphTest:
    """Sequential (online) graphical test fed with monotone anytime p-values.

    Parameters
    ----------
    graph : Graph
        Pre-registered graph; it is copied, the caller's object is not changed.
    alpha : float
        Family-wise level (over all hypotheses and all times).
    order : sequence of int, optional
        Hypothesis order used to pick among several eligible hypotheses (default: index order). AnyRank
        passes its prior order. The final set does not depend on it.

    Examples
    --------
    >>> from certirank.multitest import holm
    >>> t = SequentialGraphTest(holm(3), alpha=0.05)
    >>> t.update([0.5, 0.3, 0.012])
    [2]
    >>> t.update({0: 0.02})
    [0]
    """

    def __init__(self, graph: Graph, alpha: float, order: Sequence[int] | None = None) -> None:
        if not isinstance(graph, Graph):
            raise ParameterError(f"graph must be a certirank Graph, got {type(graph).__name__}")
        self._alpha = check_alpha(alpha)
        self._graph = graph.copy()
        self._rank_order = None if order is None else [int(v) for v in order]
        self._graph._order_rank(self._rank_order)  # validates the permutation
        self._p = np.ones(graph.m)
        self._steps = 0

    # ------------------------------------------------------------------ state
    @property
    def alpha(self) -> float:
        return self._alpha

    @property
    def graph(self) -> Graph:
        """The current graph (a copy; modify the tester only through :meth:`update`)."""
        return self._graph.copy()

    @property
    def pvalues(self) -> np.ndarray:
        """Current p-values (1 before any update)."""
        return self._p.copy()

    @property
    def rejected(self) -> np.ndarray:
        return self._graph.rejected

    @property
    def rejection_order(self) -> list[int]:
        return self._graph.rejection_order

    @property
    def levels(self) -> np.ndarray:
        """Current local levels alpha * w_i."""
        return self._graph.levels(self._alpha)

    @property
    def steps(self) -> int:
        """Number of updates received."""
        return self._steps

    # ------------------------------------------------------------------ update
    def update(self, pvalues: Any) -> list[int]:
        """Receive new p-values and reject everything that became eligible.

        Parameters
        ----------
        pvalues : array_like of shape (m,) or mapping {index: p}
            The full current p-value vector, or only the entries that changed.

        Returns
        -------
        list of int
            Hypotheses rejected by this update, in rejection order.

        Raises
        ------
        ParameterError
            If a p-value is invalid or larger than the previous one for the same hypothesis (anytime
            p-processes are non-increasing). Nothing is changed in that case.
        """
        new = self._p.copy()
        if isinstance(pvalues, Mapping):
            for key, val in pvalues.items():
                if isinstance(key, bool) or not isinstance(key, (int, np.integer)) or not 0 <= key < new.size:
                    raise ParameterError(f"p-value key must be a hypothesis index in 0..{new.size - 1}, got {key!r}")
                try:
                    new[int(key)] = float(val)
                except (TypeError, ValueError):
                    raise ParameterError(f"p-value of hypothesis {key} must be a number, got {val!r}") from None
            new = check_pvalues(new, new.size)
        else:
            new = check_pvalues(pvalues, new.size)
        up = new > self._p
        if up.any():
            i = int(np.flatnonzero(up)[0])
            raise ParameterError(f"p-value of hypothesis {i} increased from {float(self._p[i])!r} to "
                                 f"{float(new[i])!r}; "
                                 "anytime p-values must be non-increasing (pass the running minimum)")
        self._p = new
        self._steps += 1
        return self._graph.reject_eligible(new, self._alpha, order=self._rank_order)

    # ------------------------------------------------------------------ persistence
    def to_dict(self) -> dict[str, Any]:
        """Plain-data state; :meth:`from_dict` restores it exactly."""
        return {"alpha": self._alpha, "order": self._rank_order, "pvalues": self._p.tolist(),
                "steps": self._steps, "graph": self._graph.to_dict()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SequentialGraphTest:
        try:
            graph = Graph.from_dict(data["graph"])
            obj = cls(graph, data["alpha"], order=data.get("order"))
            obj._p = check_pvalues(data["pvalues"], graph.m)
            obj._steps = int(data.get("steps", 0))
        except KeyError as exc:
            raise ParameterError(f"sequential test state is missing the field {exc.args[0]!r}") from None
        return obj
