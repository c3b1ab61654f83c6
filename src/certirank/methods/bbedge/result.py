"""The immutable BB-EDGE leaderboard result (spec 04 §6-§8, output conventions of spec 07)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...order.result import Ranking, make_ranking
from ...results import ResultMixin

__all__ = ["LeaderboardResult", "build_result"]


def _edited_warning(lb: Any) -> str | None:
    from ..._integrity import edited_note
    note = getattr(lb, "_edited", None)
    return edited_note(note) if note else None


@dataclass(frozen=True)
class LeaderboardResult(ResultMixin):
    """A certified leaderboard after some replicates.

    Attributes
    ----------
    alpha, tau : float
        FWER level of the whole answer and the margin (an edge a -> b certifies Delta_{a,b} > tau).
    replicates : int
        Completed replicates of the current benchmark version.
    method : str
        "bb-edge", "bfh-e-holm", "cr-edge" or "bb-edge-pi".
    stake : str
        "plugin" (the predictable plug-in stake on the exact betting factor), "plugin-eb" (the same on the
        empirical-Bernstein factor), "grid" (the spec 04 41-point stake mixture; always for bfh-e-holm) or
        "b10" (bb-edge-pi's own plug-in).
    blocks : dict
        Block resolution, its source and the plain-words assumption it rests on.
    models : list of dict
        One entry per model in display order (mean descending, ties by name): ``model``, ``mean``,
        ``rank_interval`` [lo, hi] (simultaneous, spec 04 §7), ``certified_above`` (number of models it is
        certified above, through paths).
    edges : list of [better, worse]
        Certified edges (direct e-Holm rejections; ``output`` says whether current or cumulative).
    top_k : dict or None
        ``{k, set, certified_at, certified_now, method, ...}``; ``set`` is None until a set is certified.
    inconsistent : bool
        The certified edges contain a cycle; rank intervals then fail closed to [1, L].
    path_margins : list of dict or None
        With tau > 0 and a consistent graph: every pair joined by a path, with the longest path length d,
        which certifies Delta > d * tau (spec 04 §7, path implication). None when tau = 0.
    trust_edited : str or None
        None, or a warning: the saved state this came from failed its checksum and was loaded with
        ``trust_edited=True``, so alpha and the edges may not belong together.
    ranking : Ranking
        The common :class:`certirank.order.Ranking` (``kind`` = the method, ``when`` in replicates).
    """

    RESULT_KIND = "leaderboard"

    alpha: float
    tau: float
    replicates: int
    method: str
    output: str
    blocks: dict[str, Any]
    models: list[dict[str, Any]]
    edges: list[list[str]]
    top_k: dict[str, Any] | None
    inconsistent: bool
    epoch: int
    n_items: int
    stages: list[dict[str, Any]]
    edge_details: list[dict[str, Any]]
    earlier_epochs: list[dict[str, Any]]
    path_margins: list[dict[str, Any]] | None = None
    trust_edited: str | None = None
    ranking: Ranking | None = field(default=None, repr=False)
    stake: str = "grid"
    margin: float | None = None
    """Equivalence margin fixed before the data (``leaderboard(..., margin=)``); None = no equivalence claims."""
    equivalent: list[list[str]] = field(default_factory=list)
    """Pairs certified equivalent: |Delta| < margin (at alpha/2; the edges then use the other alpha/2)."""
    _names: tuple[str, ...] = field(repr=False, default=())
    _means: np.ndarray | None = field(repr=False, default=None)
    _relation: np.ndarray | None = field(repr=False, default=None)
    _log_e: np.ndarray | None = field(repr=False, default=None)

    # -------------------------------------------------------------------------------- queries
    def better(self, a: str, b: str) -> bool:
        """True iff an edge a -> b is certified (directly)."""
        return [a, b] in self.edges

    def rank_interval(self, model: str) -> tuple[int, int]:
        for m in self.models:
            if m["model"] == model:
                lo, hi = m["rank_interval"]
                return int(lo), int(hi)
        from ...errors import ParameterError
        raise ParameterError(f"unknown model {model!r}")

    def log_e(self) -> np.ndarray:
        """Current log e-values, (L, L) in the board's model order (NaN = direction not tested)."""
        assert self._log_e is not None
        return self._log_e.copy()

    def graph(self, kind: str = "dot", edges: str = "reduction") -> str:
        """The confidence graph as Graphviz DOT or Mermaid text (edges point from better to worse)."""
        from ..._validate import check_choice
        kind = check_choice("graph", kind, ("dot", "mermaid"))
        assert self.ranking is not None
        return self.ranking.to_dot(edges) if kind == "dot" else self.ranking.to_mermaid(edges)

    def sentences(self) -> list[str]:
        """Plain-words statements, one per certified edge."""
        tail = f"by more than {self.tau:g}, " if self.tau > 0 else ""
        return [f"{a} is better than {b} ({tail}certified, alpha = {self.alpha:g})" for a, b in self.edges]


def build_result(lb: Any) -> LeaderboardResult:
    """The result of a board (a :class:`~certirank.methods.bbedge.engine.Leaderboard`) now."""
    from ...order.closure import inferiors, is_consistent, rank_intervals, transitive_closure

    names = list(lb.models)
    L = len(names)
    means = lb._theta_sum / lb.R if lb.R else np.full(L, np.nan)
    rel = lb.certified_matrix()
    clo = transitive_closure(rel)
    consistent = is_consistent(clo)
    lo, hi = rank_intervals(clo)
    above = inferiors(clo) if consistent else rel.sum(axis=1)
    order = sorted(range(L), key=lambda i: (-(means[i] if np.isfinite(means[i]) else -np.inf), names[i]))
    pos = {i: p for p, i in enumerate(order)}
    models = [{"model": names[i], "mean": float(means[i]) if np.isfinite(means[i]) else None,
               "rank_interval": [int(lo[i]), int(hi[i])], "certified_above": int(above[i])} for i in order]
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
    details = [{"better": names[a], "worse": names[b], "log_e": float(log_e[a, b]),
                "first_certified_at": int(first[a, b]) or None, "stage": stage_of.get((a, b))} for a, b in pairs]
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
    rels = [{"better": d["better"], "worse": d["worse"], "via": "test", "when": d["first_certified_at"],
             "evidence": d["log_e"], "evidence_kind": "log_e"} for d in details]
    ranking = make_ranking(names, rels, kind=lb.method, alpha=lb.alpha, guarantee=guarantee, means=list(means),
                           n=[lb.R] * L, when_unit="replicates")
    return LeaderboardResult(
        alpha=lb.alpha, tau=lb.tau, replicates=lb.R, method=lb.method, output=lb.output, blocks=lb.blocks_info(),
        models=models, edges=[[names[a], names[b]] for a, b in pairs], top_k=lb._top_k_dict(),
        inconsistent=not consistent, epoch=lb.epoch, n_items=len(lb.items or []), stages=stages,
        edge_details=details, earlier_epochs=list(lb._history), path_margins=margins, ranking=ranking,
        trust_edited=_edited_warning(lb), stake=lb.stake, _names=tuple(names), _means=means,
        _relation=rel, _log_e=log_e)
