"""certirank.multitest -- multiplicity layer (spec 02): graphical procedures and e-value Holm.

API summary (signatures are stable; weights are fractions of alpha, local level = ``alpha * w``)
--------------------------------------------------------------------------------------------------
Graph object (``graphical.py``: a plain value; the procedures that read it live beside their verbs)
    ``Graph(weights, transitions, *, names=None)``   validated once (ParameterError on violation)
    ``g.m``, ``g.weights``, ``g.transitions``, ``g.rejected`` (bool mask), ``g.open`` (indices),
    ``g.rejection_order``, ``g.initial_weights``, ``g.initial_transitions``
    ``g.levels(alpha)``                 current local levels alpha * w (0 when rejected)
    ``g.eligible(pvalues, alpha)``      open hypotheses with round(p / w, 10) <= alpha
    ``g.reject(j)``                     online Bretz update, O(m^2); StateError if j already rejected
    ``g.reject_eligible(p, alpha, order=None) -> list[int]``   Algorithm 1 from the current state
    ``g.copy()``, ``g.initial()``, ``g.to_dict()`` / ``Graph.from_dict(d)`` (exact, JSON-safe)
Batch procedures
    ``graph_test(graph, pvalues, alpha=0.05) -> GraphTestResult`` (graph = ``Graph(weights, transitions)``)
        (``rejected``, ``adjusted``, ``alpha``, ``rejection_order``); ``weights`` may be a Graph
    ``graph_rejections(graph, pvalues, alpha, order=None) -> bool array``   Algorithm 1
    ``adjusted_pvalues(graph, pvalues) -> array``                          Algorithm 2 (``bretz.py``)
    ``passes(p, w, alpha)``             the shared decision rule (w > 0 and round(p/w, 10) <= alpha)
Constructors (``graphs.py``)
    ``holm(m)``, ``bonferroni(m)``, ``weighted_bonferroni(w)``, ``weighted_holm(w)``,
    ``fixed_sequence(m, order=None)``, ``fallback(w, order=None)``,
    ``from_prior(d, gamma=1.0, kind="soft_masked"|"fully_connected", *, forward_fraction=0.9, m=None)``
        (d = prior gaps in hypothesis index order; d=None -> Holm over m),
    ``prior_order(d)`` (gap descending, stable), ``pair_gaps(means) -> (pairs, d)``, ``effective_gaps(d)``,
    ``weighted_bonferroni_from_prior(d, gamma)``;  ``EPSILON = 1e-9`` for epsilon-edges
Sequential use (``sequential.py``)
    ``SequentialGraphTest(graph, alpha, order=None)``; ``.update(pvalues | {index: p}) -> list[int]``;
    ``.rejected``, ``.levels``, ``.pvalues``, ``.to_dict()`` / ``.from_dict(d)``
e-values (``eholm.py``; all take ``log=True`` for log e-values)
    ``e_holm(evalues, alpha=0.05, *, log=False) -> EHolmResult``          direct (closed) e-Holm
    ``e_holm_threshold(evalues, alpha)``, ``e_holm_adjusted(evalues)``, ``holm_inverse_e(evalues, alpha)``
"""

from __future__ import annotations

from .eholm import EHolmResult, e_holm, e_holm_adjusted, e_holm_threshold, holm_inverse_e
from .bretz import GraphTestResult, adjusted_pvalues, graph_test
from .graphical import (
    EPSILON,
    Graph,
    graph_rejections,
    holm_rejections,
    passes,
)
from .graphs import (
    bonferroni,
    effective_gaps,
    fallback,
    fixed_sequence,
    from_prior,
    holm,
    pair_gaps,
    prior_order,
    weighted_bonferroni,
    weighted_bonferroni_from_prior,
    weighted_holm,
)
from .sequential import SequentialGraphTest

__all__ = [
    "EPSILON",
    "Graph",
    "GraphTestResult",
    "SequentialGraphTest",
    "adjusted_pvalues",
    "bonferroni",
    "EHolmResult",
    "e_holm",
    "e_holm_adjusted",
    "e_holm_threshold",
    "effective_gaps",
    "fallback",
    "fixed_sequence",
    "from_prior",
    "graph_rejections",
    "holm_rejections",
    "graph_test",
    "holm",
    "holm_inverse_e",
    "pair_gaps",
    "passes",
    "prior_order",
    "weighted_bonferroni",
    "weighted_bonferroni_from_prior",
    "weighted_holm",
]
