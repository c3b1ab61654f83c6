"""Partial rankings from decided relations, and their DOT / Mermaid / JSON outputs (spec 07 §2, §4).

:func:`partial_ranking` takes item names, decided strict relations (each ``direct`` or ``implied``) and
optional summary means, and returns a frozen :class:`PartialRanking` with closure, reduction, rank intervals,
tiers, letters and the order. An inconsistent (cyclic) set is reported, never resolved: ``inconsistent`` is
True, ``cycles`` lists the strongly connected components, and the outputs fail closed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._escape import dot_string, mermaid_label
from .._validate import check_choice
from ..errors import ParameterError
from ..results import ResultMixin
from .closure import (
    cycles,
    inferiors,
    is_consistent,
    rank_intervals,
    superiors,
    tiers,
    top_k,
    transitive_closure,
    transitive_reduction,
)
from .letters import display_order, letters

__all__ = ["PartialRanking", "partial_ranking", "EDGE_MODES"]

EDGE_MODES = ("reduction", "closure", "direct")
_META = ("decision_time", "iteration", "level", "p_value", "log_e")


def _parse_relations(names: list[str], relations: Any) -> list[dict[str, Any]]:
    pos = {n: i for i, n in enumerate(names)}
    out: dict[tuple[str, str], dict[str, Any]] = {}
    if isinstance(relations, np.ndarray) and relations.dtype == bool:
        mat = relations
        if mat.shape != (len(names), len(names)):
            raise ParameterError(f"a relation matrix must be {len(names)} x {len(names)} (items x items), got "
                                 f"{mat.shape}")
        items: Iterable[Any] = [(names[a], names[b]) for a, b in zip(*np.nonzero(mat))]
    else:
        items = relations
    for rel in items:
        if isinstance(rel, Mapping):
            try:
                winner, loser = str(rel["winner"]), str(rel["loser"])
            except KeyError:
                raise ParameterError(f"a relation mapping needs 'winner' and 'loser', got {dict(rel)!r}") from None
            kind = rel.get("kind", "direct")
            extra = {k: rel[k] for k in _META if k in rel and rel[k] is not None}
        else:
            try:
                parts = tuple(rel)
            except TypeError:
                raise ParameterError(f"a relation must be (winner, loser[, kind]), got {rel!r}") from None
            if len(parts) not in (2, 3):
                raise ParameterError(f"a relation must be (winner, loser[, kind]), got {rel!r}")
            winner, loser = str(parts[0]), str(parts[1])
            kind = parts[2] if len(parts) == 3 else "direct"
            extra = {}
        kind = check_choice("relation kind", kind, ("direct", "implied"))
        for v in (winner, loser):
            if v not in pos:
                raise ParameterError(f"relation {winner} > {loser} names unknown item {v!r}")
        if winner == loser:
            raise ParameterError(f"relation {winner} > {loser}: an item cannot be better than itself")
        key = (winner, loser)
        if key in out:
            if kind == "direct":  # a direct decision wins over a duplicate implied one
                out[key] = {"winner": winner, "loser": loser, "kind": kind, **extra}
        else:
            out[key] = {"winner": winner, "loser": loser, "kind": kind, **extra}
    return list(out.values())


_dot_escape = dot_string


@dataclass(frozen=True)
class PartialRanking(ResultMixin):
    """A partial ranking (spec 07 §2). Per-item arrays are aligned with ``items`` (display order).

    Attributes
    ----------
    items : tuple of str
        Names in display order (mean descending, ties by name; the given order without means).
    means : tuple of float or None
    letters : dict
        Compact letter display; "different" = resolved in the closure.
    rank_lo, rank_hi : ndarray of int
        Simultaneous rank intervals [1 + |A|, L - |D|]; [1, L] for all when inconsistent.
    tiers, wins, losses : ndarray of int
    order : tuple of str
        By (wins - losses) desc, wins desc, mean desc, name (by mean when inconsistent).
    relations : tuple of dict
        Given relations, plus closure pairs not given (``kind = "implied"``) when consistent.
    reduction : tuple of (str, str)
        Hasse diagram edges (empty when inconsistent: no unique reduction exists).
    closure : ndarray of bool
        Reachability among ``items`` (display order).
    inconsistent : bool
    cycles : tuple of tuple of str
        Strongly connected components of size > 1, each sorted by name.
    resolved_fraction : float
        Fraction of the L(L-1)/2 pairs ordered by the closure (1.0 when L = 1).
    """

    items: tuple[str, ...]
    means: tuple[float, ...] | None
    letters: dict[str, str]
    rank_lo: np.ndarray
    rank_hi: np.ndarray
    tiers: np.ndarray
    wins: np.ndarray
    losses: np.ndarray
    order: tuple[str, ...]
    relations: tuple[dict[str, Any], ...]
    reduction: tuple[tuple[str, str], ...]
    closure: np.ndarray = field(repr=False)
    inconsistent: bool
    cycles: tuple[tuple[str, ...], ...]
    resolved_fraction: float

    # ------------------------------------------------------------------ queries
    def index(self, name: str) -> int:
        try:
            return self.items.index(name)
        except ValueError:
            raise ParameterError(f"unknown item {name!r}") from None

    def better(self, a: str, b: str) -> bool:
        """True iff a ≻ b is decided or implied (a reaches b, and the order is consistent)."""
        return bool(self.closure[self.index(a), self.index(b)]) and not self.inconsistent

    def rank_interval(self, name: str) -> tuple[int, int]:
        i = self.index(name)
        return int(self.rank_lo[i]), int(self.rank_hi[i])

    def top_k(self, k: int) -> list[str] | None:
        """Names of the certified Top-k set (spec 04 §8.1), or None."""
        t = top_k(self.closure, k)
        return None if t is None else [self.items[i] for i in t]

    # ------------------------------------------------------------------ outputs
    def to_dict(self) -> dict[str, Any]:
        """JSON machine output of spec 07 §4.4 (plus ``order`` and ``cycles``)."""
        items = []
        for i, name in enumerate(self.items):
            items.append({"name": name, "mean": None if self.means is None else float(self.means[i]),
                          "letters": self.letters[name], "rank_lo": int(self.rank_lo[i]),
                          "rank_hi": int(self.rank_hi[i]), "tier": int(self.tiers[i]),
                          "wins": int(self.wins[i]), "losses": int(self.losses[i])})
        from ..results import plain
        return {"items": items, "relations": plain(list(self.relations)),
                "reduction": [[a, b] for a, b in self.reduction], "inconsistent": bool(self.inconsistent),
                "resolved_fraction": float(self.resolved_fraction), "order": list(self.order),
                "cycles": [list(c) for c in self.cycles]}

    def _edges(self, edges: str) -> list[tuple[int, int, bool]]:
        """(source position, target position, dashed) sorted by positions."""
        mode = check_choice("edges", edges, EDGE_MODES)
        pos = {n: i for i, n in enumerate(self.items)}
        direct = {(r["winner"], r["loser"]) for r in self.relations if r["kind"] == "direct"}
        if mode == "direct":
            pairs = [(pos[a], pos[b], False) for a, b in direct]
        elif mode == "reduction" and not self.inconsistent:
            pairs = [(pos[a], pos[b], False) for a, b in self.reduction]
        else:
            # closure mode, or a reduction requested for an inconsistent set (none exists): all listed relations,
            # non-direct ones dashed
            pairs = [(pos[r["winner"]], pos[r["loser"]], (r["winner"], r["loser"]) not in direct)
                     for r in self.relations]
            if mode == "reduction":
                pairs = [(a, b, False) for a, b, dashed in pairs if not dashed]
        return sorted(pairs)

    def _label_parts(self, i: int) -> tuple[str, str]:
        name = self.items[i]
        tail = f"{self.letters[name]} | [{int(self.rank_lo[i])},{int(self.rank_hi[i])}]"
        if self.means is not None:
            tail = f"{self.means[i]:.3f} | " + tail
        return name, tail

    def to_dot(self, edges: str = "reduction") -> str:
        """Graphviz DOT text (spec 07 §4.2); edges point from better to worse.

        ``edges``: ``"reduction"`` (Hasse diagram, default), ``"closure"`` (non-direct edges dashed) or
        ``"direct"``. For an inconsistent set, ``"reduction"`` shows the direct relations.
        """
        lines = ["digraph certirank {", "  rankdir=TB;", "  node [shape=box];"]
        for i in range(len(self.items)):
            name, tail = self._label_parts(i)
            n = _dot_escape(name)
            lines.append(f'  "{n}" [label="{n}\\n{_dot_escape(tail)}"];')
        for a, b, dashed in self._edges(edges):
            style = " [style=dashed]" if dashed else ""
            lines.append(f'  "{_dot_escape(self.items[a])}" -> "{_dot_escape(self.items[b])}"{style};')
        lines.append("}")
        return "\n".join(lines) + "\n"

    def to_mermaid(self, edges: str = "reduction") -> str:
        """Mermaid flowchart text (spec 07 §4.3); node ids n0..n{L-1} in display order."""
        lines = ["flowchart TD"]
        for i in range(len(self.items)):
            name, tail = self._label_parts(i)
            label = f"{mermaid_label(name)}<br/>{mermaid_label(tail)}"
            lines.append(f'  n{i}["{label}"]')
        for a, b, dashed in self._edges(edges):
            lines.append(f"  n{a} {'-.->' if dashed else '-->'} n{b}")
        return "\n".join(lines) + "\n"


def partial_ranking(items: Sequence[str], relations: Any, means: Any | None = None) -> PartialRanking:
    """Build the partial ranking of spec 07 §2 from decided strict relations.

    Parameters
    ----------
    items : sequence of str
        Item (policy / model) names, unique.
    relations : iterable or boolean matrix
        Decided relations a ≻ b, each as ``(winner, loser)``, ``(winner, loser, kind)`` with kind
        ``"direct"`` (default) or ``"implied"``, or a mapping with keys ``winner``, ``loser``, optional
        ``kind`` and metadata (``decision_time``, ``iteration``, ``level``, ``p_value``, ``log_e``). A
        boolean (L, L) numpy matrix in ``items`` order is also accepted (all direct).
    means : array_like, optional
        Summary mean per item, in ``items`` order (display order and labels).

    Returns
    -------
    PartialRanking
        Never raises on a cycle: ``inconsistent = True`` and ``cycles`` name the components.
    """
    names = [str(v) for v in items]
    if not names:
        raise ParameterError("a partial ranking needs at least one item")
    if len(set(names)) != len(names):
        raise ParameterError("item names must be unique")
    rels = _parse_relations(names, relations)
    disp = display_order(names, means)
    shown = [names[i] for i in disp]
    mu = None if means is None else tuple(float(np.asarray(means, dtype=float)[i]) for i in disp)
    pos = {n: i for i, n in enumerate(shown)}
    n = len(shown)
    adj = np.zeros((n, n), dtype=bool)
    for r in rels:
        adj[pos[r["winner"]], pos[r["loser"]]] = True
    clo = transitive_closure(adj)
    consistent = is_consistent(clo)
    comps = tuple(sorted(tuple(sorted(shown[i] for i in comp)) for comp in cycles(clo)))
    lo, hi = rank_intervals(clo)
    tier = tiers(clo)
    off = clo.copy()
    np.fill_diagonal(off, False)
    wins = inferiors(off).astype(int)
    losses = superiors(off).astype(int)
    resolved = off | off.T
    n_pairs = n * (n - 1) // 2
    resolved_fraction = float(np.triu(resolved, 1).sum() / n_pairs) if n_pairs else 1.0
    different = [(shown[a], shown[b]) for a, b in zip(*np.nonzero(np.triu(resolved, 1)))]
    lett = letters(shown, different)  # already in display order
    mean_of = (lambda i: mu[i]) if mu is not None else (lambda i: 0.0)
    if consistent:
        order_idx = sorted(range(n), key=lambda i: (-(wins[i] - losses[i]), -wins[i], -mean_of(i), shown[i]))
        red = transitive_reduction(clo)
        reduction = tuple((shown[a], shown[b]) for a, b in zip(*np.nonzero(red)))
        given = {(r["winner"], r["loser"]) for r in rels}
        extra = [{"winner": shown[a], "loser": shown[b], "kind": "implied"}
                 for a, b in zip(*np.nonzero(off)) if (shown[a], shown[b]) not in given]
        all_rels = rels + extra
    else:
        order_idx = sorted(range(n), key=lambda i: (-mean_of(i), shown[i]))
        reduction = ()
        all_rels = rels
    all_rels.sort(key=lambda r: (pos[r["winner"]], pos[r["loser"]]))
    for arr in (lo, hi, tier, wins, losses, clo):
        arr.setflags(write=False)
    return PartialRanking(items=tuple(shown), means=mu, letters=lett, rank_lo=lo, rank_hi=hi, tiers=tier,
                          wins=wins, losses=losses, order=tuple(shown[i] for i in order_idx),
                          relations=tuple(all_rels), reduction=reduction, closure=clo,
                          inconsistent=not consistent, cycles=comps, resolved_fraction=resolved_fraction)
