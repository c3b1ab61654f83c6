"""The immutable BB-EDGE leaderboard result (spec 04 §6-§8, output conventions of spec 07)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ...order.result import Ranking, Relation, make_ranking
from ..._params import validated
from ...results import Result, inputs, warning

if TYPE_CHECKING:
    from .adaptive import ItemSuggestions

__all__ = ["LeaderboardResult", "build_result"]


def _edited_warning(lb: Any) -> str | None:
    from ..._integrity import edited_note
    note = getattr(lb, "_edited", None)
    return edited_note(note) if note else None


@dataclass(frozen=True)
class LeaderboardResult(Result):
    """A certified leaderboard after some replicates (record kind ``"leaderboard"``, estimand ``benchmark``).

    Attributes
    ----------
    alpha, tau : float
        Inputs: FWER level of the whole answer and the margin (an edge a -> b certifies Delta_{a,b} > tau).
    method : str
        Input: "bb-edge", "bfh-e-holm", "cr-edge" or "bb-edge-pi".
    stake : str
        Input: "plugin" (the predictable plug-in stake on the exact betting factor), "plugin-eb" (the same on
        the empirical-Bernstein factor), "grid" (the spec 04 41-point stake mixture; always for bfh-e-holm) or
        "b10" (bb-edge-pi's own plug-in).
    output : str
        Input: "current" or "cumulative" edges.
    ranking : Ranking
        Who is certified better than whom (``kind`` = the method, ``when`` = the replicate of first
        certification, ``evidence`` = the current log e-value, relation ``details`` = the Top-k ``stage``);
        per model its mean over the benchmark's items and the simultaneous rank interval (spec 04 §7).
    replicates : int
        Completed replicates of the current benchmark version.
    blocks : dict
        Block resolution, its source and the plain-words assumption it rests on.
    top_k : dict or None
        ``{k, set, certified_at, certified_now, method, ...}``; ``set`` is None until a set is certified.
    undecided_details : list of dict
        Per undecided pair (as the ranking lists them), a forecast at the current estimates, never a guarantee
        (:func:`certirank.methods.bbedge.forecasts.open_pair_forecasts`): ``pair``, ``replicates``, ``log_e``
        (both directions), ``more_needed`` (further replicates; None when no direction gains evidence, fewer
        than 2 replicates are in, or the pair is not tested), ``forecast`` and ``verdict`` (``undecided``, or
        ``futile`` under a budget of replicates). For the single-run binary table (method ``exact-budget``):
        ``items``, and ``more_needed`` in further items a longer benchmark of items like these would need
        (:mod:`certirank.methods.item_tables`).
    path_margins : list of dict or None
        With tau > 0 and a consistent graph: every pair joined by a path, with the longest path length d,
        which certifies Delta > d * tau (spec 04 §7, path implication). None when tau = 0.
    """

    KIND: ClassVar[str] = "leaderboard"

    alpha: float = inputs()
    tau: float = inputs()
    method: str = inputs()
    output: str = inputs()
    ranking: Ranking = field(repr=False)
    replicates: int
    blocks: dict[str, Any]
    top_k: dict[str, Any] | None
    epoch: int
    n_items: int
    stages: list[dict[str, Any]]
    earlier_epochs: list[dict[str, Any]]
    path_margins: list[dict[str, Any]] | None = None
    stake: str = inputs(default="grid")
    margin: float | None = inputs(default=None)
    """Equivalence margin fixed before the data (``leaderboard(..., margin=)``); None = no equivalence claims."""
    equivalent: list[list[str]] = field(default_factory=list)
    """Pairs certified equivalent: |Delta| < margin (at alpha/2; the edges then use the other alpha/2)."""
    undecided_details: list[dict[str, Any]] = field(default_factory=list)
    n_max: int | None = inputs(default=None)
    """The budget of replicates (``Leaderboard(..., n_max=)``): undecided pairs unlikely to be decided within it
    are ``futile`` in ``undecided_details`` (a forecast); None = no budget."""
    futility: float | None = inputs(default=None)
    """With a budget: the forecast chance of a decision below which a pair is futile."""
    _names: tuple[str, ...] = field(repr=False, default=())
    _means: np.ndarray | None = field(repr=False, default=None)
    _relation: np.ndarray | None = field(repr=False, default=None)
    _log_e: np.ndarray | None = field(repr=False, default=None)
    #: the benchmark's item names and each model's mean score per item so far ((models, items), board order):
    #: what suggest_items predicts disagreements from
    _item_names: tuple[str, ...] = field(repr=False, default=())
    _item_rates: np.ndarray | None = field(repr=False, default=None)

    # -------------------------------------------------------------------------------- queries
    @property
    def edges(self) -> list[list[str]]:
        """Certified edges [better, worse] (direct e-Holm rejections), read from the ranking."""
        return [[r.better, r.worse] for r in self.ranking.relations if r.via == "test"]

    @property
    def models(self) -> list[str]:
        """Model names in display order."""
        return list(self.ranking.names)

    @property
    def inconsistent(self) -> bool:
        return self.ranking.inconsistent

    def better(self, a: str, b: str) -> bool:
        """True iff an edge a -> b is certified (directly)."""
        return [a, b] in self.edges

    def rank_interval(self, model: str) -> tuple[int, int]:
        return self.ranking.rank_interval(model)

    def log_e(self) -> np.ndarray:
        """Current log e-values, (L, L) in the board's model order (NaN = direction not tested)."""
        if self._log_e is None:
            from ...errors import StateError
            raise StateError("this leaderboard result was read back from JSON: its log e-values are in "
                             "ranking.relations[].evidence only")
        return self._log_e.copy()

    def graph(self, kind: str = "dot", edges: str = "reduction") -> str:
        """The confidence graph as Graphviz DOT or Mermaid text (edges point from better to worse)."""
        from ..._validate import check_choice
        kind = check_choice("graph", kind, ("dot", "mermaid"))
        return self.ranking.to_dot(edges) if kind == "dot" else self.ranking.to_mermaid(edges)

    @validated("Leaderboard.suggest_items")
    def suggest_items(self, k: int = 1, *, seed: int = 0) -> "ItemSuggestions":
        """Draw `k` benchmark items to score next, with known probabilities, toward the undecided pairs.

        Items are drawn with replacement (``numpy.random.default_rng(seed)``) with probabilities proportional to the
        square root of the undecided pairs' predicted disagreement on each item (from each model's mean score on
        it so far), mixed with a uniform share of 10 % (docs/adaptive-items.md). Returns data: each drawn item, its
        probability, its importance weight and the undecided pairs it is predicted to advance. A suggestion is a
        design choice, never evidence: scores of the drawn items keep the guarantee when each is weighted by its
        importance weight (:class:`certirank.methods.bbedge.adaptive.AdaptiveBoard`).
        """
        from .adaptive import suggest
        if self._item_rates is None or not self._item_names:
            from ...errors import StateError
            raise StateError("this leaderboard has no per-item scores (its board knows no items yet: give items= "
                             "or add a replicate)")
        return suggest(self._names, self._item_names, self._item_rates, self.ranking.undecided, k, seed)

    @property
    def forecast_unit(self) -> str:
        """What ``more_needed`` counts: further replicates (runs of every model on every item), or for the
        single-run binary table further items like these."""
        return "items like these" if self.method == "exact-budget" else "replicates"

    def _details(self) -> dict[str, Any]:
        # a record read back (the HTML report) says its forecasts in the same unit
        return {"forecast_unit": self.forecast_unit} if self.undecided_details else {}

    def sentences(self) -> list[str]:
        """Plain-words statements, one per certified edge, then one per undecided pair with its forecast."""
        from ...evidence.forecast import open_pair_sentence
        tail = f"by more than {self.tau:g}, " if self.tau > 0 else ""
        out = [f"{a} is better than {b} ({tail}{self.ranking.qualifier})" for a, b in self.edges]
        more = {frozenset(d["pair"]): d for d in self.undecided_details}
        return out + [open_pair_sentence(a, b, more.get(frozenset((a, b)), {}), self.forecast_unit)
                      for a, b in self.ranking.undecided]


def build_result(lb: Any, equivalence: Any = None) -> LeaderboardResult:
    """The result of a board (a :class:`~certirank.methods.bbedge.engine.Leaderboard`) now; `equivalence`: the
    equivalence board of a margin (:class:`~certirank.methods.bbedge.margin.MarginBoards`), a third route of each
    open pair's forecast."""
    from ...order.closure import is_consistent, transitive_closure

    names = list(lb.models)
    L = len(names)
    means = lb._theta_sum / lb.R if lb.R else np.full(L, np.nan)
    rel = lb.certified_matrix()
    clo = transitive_closure(rel)
    consistent = is_consistent(clo)
    order = sorted(range(L), key=lambda i: (-(means[i] if np.isfinite(means[i]) else -np.inf), names[i]))
    pos = {i: p for p, i in enumerate(order)}
    a_idx, b_idx = np.nonzero(rel)
    pairs = sorted(zip(a_idx.tolist(), b_idx.tolist()), key=lambda p: (pos[p[0]], pos[p[1]]))
    log_e = lb.log_e_matrix()
    first = np.zeros((L, L), dtype=np.int64)
    stage_of: dict[tuple[int, int], str] = {}
    for fam in lb._families:
        off = fam.start
        for a, b, f in zip(fam.a, fam.b, fam.first):
            if f > 0:
                first[a, b] = f + off
                stage_of[(int(a), int(b))] = fam.label
    stages = [{"stage": f.label, "alpha": f.alpha, "directions": f.n_directions, "replicates": f.r,
               "log_threshold": f.log_c} for f in lb._families]
    margins = None
    if lb.tau > 0 and consistent:
        from ...order.closure import longest_paths
        dist = longest_paths(rel)
        ma, mb = np.nonzero(dist)
        margins = [{"better": names[a], "worse": names[b], "path_length": int(dist[a, b]),
                    "margin": float(dist[a, b] * lb.tau)}
                   for a, b in sorted(zip(ma.tolist(), mb.tolist()), key=lambda p: (pos[p[0]], pos[p[1]]))]
    tail = f" by more than tau = {lb.tau:g}" if lb.tau > 0 else ""
    guarantee = (f"With probability at least {100 * (1 - lb.alpha):g}%, every certified edge is correct{tail}, at "
                 "whatever replicate you stop (given the block assumption: " + lb.blocks_info()["statement"] + ").")
    rels = [Relation(names[a], names[b], "test", int(first[a, b]) or None, float(log_e[a, b]), "log_e",
                     {"stage": stage_of[(a, b)]} if (a, b) in stage_of else None) for a, b in pairs]
    edited = _edited_warning(lb)
    if edited:
        guarantee = f"{guarantee} {edited}"
    ranking = make_ranking(names, rels, kind=lb.method, alpha=lb.alpha, guarantee=guarantee, means=list(means),
                           n=[lb.R] * L, when_unit="replicates", about="benchmark")
    from .forecasts import open_pair_forecasts
    details = open_pair_forecasts(lb, ranking.undecided, equivalence=equivalence, **budget_of(lb))
    return LeaderboardResult(
        alpha=lb.alpha, tau=lb.tau, method=lb.method, output=lb.output, ranking=ranking, replicates=lb.R,
        blocks=lb.blocks_info(), top_k=lb._top_k_dict(), epoch=lb.epoch, n_items=len(lb.items or []),
        stages=stages, earlier_epochs=list(lb._history), path_margins=margins, stake=lb.stake, about="benchmark",
        undecided_details=details, **budget_of(lb),
        warnings=() if not edited else (warning(edited.removeprefix("WARNING: ")),), _names=tuple(names), _means=means, _relation=rel,
        _log_e=log_e, _item_names=tuple(lb.items or ()), _item_rates=board_rates(lb))


def budget_of(lb: Any) -> dict[str, Any]:
    """The forecast's budget arguments of a board (none without a budget of replicates)."""
    return {} if lb.n_max is None else {"n_max": int(lb.n_max), "futility": float(lb.futility)}


def board_rates(lb: Any) -> np.ndarray | None:
    """(models, items): each model's (shrunk) mean score on each item so far, from the running block sums of the
    family that has seen it longest (a block's mean stands for each of its items; NaN before its first replicate);
    None before the board knows its items."""
    from .adaptive import shrink
    d = lb._design
    if d is None:
        return None
    out = np.full((len(lb.models), d.n_items), np.nan)
    seen = np.zeros(len(lb.models), dtype=np.int64)
    kept = d.item_block >= 0
    for fam in lb._families:
        if fam.r == 0:
            continue
        for row, g in enumerate(np.asarray(fam.models).tolist()):
            if fam.r > seen[g]:
                seen[g] = fam.r
                out[g, kept] = shrink(fam.C[row, d.item_block[kept]] / fam.r, fam.r)
    return out
