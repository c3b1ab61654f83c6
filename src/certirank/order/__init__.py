"""certirank.order -- partial orders, letters and graph outputs (spec 07; used by AnyRank and BB-EDGE).

API summary (signatures are stable)
-----------------------------------
Relation matrices (``closure.py``): items 0..L-1, boolean (L, L) with ``R[a, b]`` = "a ≻ b"
    ``relation_matrix(n, pairs) -> R``                 from (winner, loser) index pairs
    ``transitive_closure(R) -> C``                     Floyd–Warshall; a cycle shows as C[a, a]
    ``add_relation(C, a, b) -> C'``                    incremental closure after adding a ≻ b, O(L^2)
    ``cycles(C) -> list[list[int]]``                   strongly connected components of size > 1
    ``is_consistent(C)``, ``check_acyclic(C, names=None)`` (raises ``CycleError``, a ParameterError
        with ``.cycles``)
    ``implied(C)``                                     a ⇝ b and not b ⇝ a (pairs in a cycle imply nothing)
    ``transitive_reduction(C)``                        Hasse diagram; CycleError if cyclic
    ``superiors(C)``, ``inferiors(C)``                 |A_a|, |D_a|
    ``rank_intervals(C) -> (lo, hi)``                  [1 + |A_a|, L - |D_a|]; all [1, L] if cyclic
    ``tiers(C)``                                       longest-path layers; all 1 if cyclic
    ``top_k(C, k) -> indices | None``                  full-graph Top-k certificate (spec 04 §8.1)
    ``minimax_times(T)``                               decision-time closure (spec 03 §6)
    ``longest_paths(R)``                               longest path lengths (BB-EDGE margins d * tau)
Letters (``letters.py``)
    ``letters(policies, different_pairs, means=None, *, sweep=True) -> dict name -> str``
    ``letter_columns(n, index_pairs, *, sweep=True)``, ``letter_name(k)``, ``display_order(names, means)``
The one ranking result (``result.py``, schema ``certirank.ranking/1``; every method exposes ``.ranking``)
    ``make_ranking(policies, relations, *, kind, alpha=None, guarantee="", means=None, n=None, when_unit=None,
        stopped=None, notes=(), closure=True) -> Ranking``; ``Ranking.from_dict(d)``
    ``Ranking``: ``kind``, ``alpha``, ``guarantee``, ``policies`` (``RankedPolicy``: name, mean, n, rank_lo,
        rank_hi, letters, tier, better_than, worse_than; display order = certified topological order, ties by
        mean), ``relations`` (``Relation``: better, worse, via "test"|"closure", when, evidence,
        evidence_kind), ``undecided``, ``when_unit``, ``stopped``, ``notes``, ``inconsistent``, ``cycles``;
        ``names``, ``letters``, ``means``, ``n_pairs``, ``n_certified``, ``n_direct``, ``policy(name)``,
        ``better(a, b)``, ``rank_interval(name)``, ``top_k(k)``, ``closure``, ``reduction``, ``sentences()``,
        ``to_dict()``, ``to_dot(edges=)``, ``to_mermaid(edges=)``
Deprecated (one release): ``partial_ranking(items, relations, means=None)`` and ``PartialRanking`` now give a
    ``Ranking`` (with a DeprecationWarning); use ``make_ranking``.
"""

from __future__ import annotations

from .closure import (
    CycleError,
    add_relation,
    check_acyclic,
    cycles,
    implied,
    inferiors,
    is_consistent,
    longest_paths,
    minimax_times,
    rank_intervals,
    relation_matrix,
    superiors,
    tiers,
    top_k,
    transitive_closure,
    transitive_reduction,
)
from .letters import display_order, letter_columns, letter_name, letters
from .result import SCHEMA, RankedPolicy, Ranking, Relation, certified_order, make_ranking

__all__ = [
    "CycleError",
    "RankedPolicy",
    "Ranking",
    "Relation",
    "SCHEMA",
    "certified_order",
    "make_ranking",
    "add_relation",
    "check_acyclic",
    "cycles",
    "display_order",
    "implied",
    "inferiors",
    "is_consistent",
    "letter_columns",
    "letter_name",
    "letters",
    "longest_paths",
    "minimax_times",
    "rank_intervals",
    "relation_matrix",
    "superiors",
    "tiers",
    "top_k",
    "transitive_closure",
    "transitive_reduction",
]


def __getattr__(name: str):  # noqa: ANN202 -- the 0.1 names, with a DeprecationWarning
    if name in ("partial_ranking", "PartialRanking"):
        from . import _deprecated
        _deprecated.warn(name)
        return _deprecated.partial_ranking if name == "partial_ranking" else Ranking
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
