"""The result object every baseline returns (spec 00: the record of the certified methods, plus `scores`).

Who ranks above whom is the result's :class:`~certirank.order.Ranking`, as for AnyRank and BB-EDGE, so the
simulator and the reports read every baseline the same way: direct relations carry the method's statistic,
relations implied by transitivity are the ranking's closure (when the method's relations chain).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ..order.result import Ranking, Relation, make_ranking
from ..results import Result, inputs

__all__ = ["BaselineResult", "build_result", "closure"]


@dataclass(frozen=True)
class BaselineResult(Result):
    """Outcome of a baseline ranking method (record kind ``"baseline"``).

    Attributes
    ----------
    method:
        Input: canonical method name (e.g. ``"bt"``, ``"bt-davidson"``, ``"emr"``).
    alpha:
        Input: level the method was run at (``None`` for point-estimate methods that use none).
    policies:
        Input: the policies, in input order.
    ranking:
        Who the method ranks above whom (``kind`` = the method; relations keep each method's statistic as
        ``evidence`` -- ``pvalue``, ``log_e``, ``difference`` or ``z`` -- and any other in ``details``), per
        policy its mean score (or, for pure preference input, its preference win rate: ties count one half,
        see ``details["means_kind"]``); ``guarantee`` says what the method does (not) control.
    scores:
        Per-policy fitted score (centred log-strength for the Bradley–Terry family, the weighted mean
        for leaderboard baselines).
    score_order:
        Policies ordered by ``scores``, best first (ties by input order).
    n:
        Number of comparisons (preference methods) or observations (score methods) used.
    details:
        Method-specific outputs (standard errors, intervals, tie parameter, ...).
    history:
        Leaderboard baselines with ``history=True``: one entry per completed replicate ``r`` with the
        certified direct edges at ``r``. ``None`` otherwise.
    """

    KIND: ClassVar[str] = "baseline"

    method: str = inputs()
    alpha: float | None = inputs()
    policies: list[str] = inputs()
    ranking: Ranking = field(repr=False)
    scores: dict[str, float]
    score_order: list[str]
    n: int
    details: dict[str, Any] = field(default_factory=dict)
    history: list[dict[str, Any]] | None = None

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        own = out["details"].pop("details")
        out["details"] = {**own, **out["details"]}  # the method's own outputs are the record's details
        return out

    @property
    def means(self) -> dict[str, float | None]:
        return self.ranking.means

    @property
    def guarantee(self) -> str:
        return self.ranking.guarantee

    @property
    def undecided(self) -> list[list[str]]:
        return [list(u) for u in self.ranking.undecided]

    @property
    def inconsistent(self) -> bool:
        return self.ranking.inconsistent

    @property
    def decided_pairs(self) -> set[tuple[str, str]]:
        """Set of (better, worse) tuples over all relations (direct and implied)."""
        return {(r.better, r.worse) for r in self.ranking.relations}

    def decision(self, a: str, b: str) -> str | None:
        """``"a>b"``, ``"a<b"`` or ``None`` for the pair (a, b)."""
        pairs = self.decided_pairs
        if (a, b) in pairs and (b, a) not in pairs:
            return f"{a}>{b}"
        if (b, a) in pairs and (a, b) not in pairs:
            return f"{a}<{b}"
        return None


def closure(adj: np.ndarray) -> np.ndarray:
    """Boolean transitive closure (Floyd–Warshall, spec 07 §3)."""
    reach = np.array(adj, dtype=bool, copy=True)
    for k in range(reach.shape[0]):
        reach |= reach[:, k:k + 1] & reach[k:k + 1, :]
    return reach


def build_result(*, method: str, alpha: float | None, policies: Sequence[str],
                 edges: Iterable[tuple[int, int, Mapping[str, Any]]], scores: np.ndarray, means: np.ndarray,
                 n: int, guarantee: str, details: dict[str, Any] | None = None,
                 history: list[dict[str, Any]] | None = None, implied: bool = True,
                 notes: Sequence[str] = ()) -> BaselineResult:
    """Assemble a :class:`BaselineResult` from direct edges ``(better_index, worse_index, stats)``.

    Implied decisions are added from the transitive closure (kind ``"implied"``) unless the closure has a
    cycle, in which case nothing is implied and ``inconsistent`` is set (spec 03 §6, spec 07 §2).
    """
    policies = list(policies)
    p = len(policies)
    rels = [_relation(policies[i], policies[j], stats) for i, j, stats in edges]
    scores = np.asarray(scores, dtype=float)
    order = sorted(range(p), key=lambda k: (-scores[k] if np.isfinite(scores[k]) else np.inf, k))
    details = dict(details or {})
    ranking = make_ranking(policies, rels, kind=method, alpha=alpha, guarantee=guarantee,
                           means=[float(v) for v in means], notes=[*notes, *dropped_notes(details)], closure=implied,
                           about=_about(method, alpha))
    return BaselineResult(
        method=method, alpha=alpha, policies=policies, ranking=ranking, scores={policies[k]: float(scores[k]) for k in range(p)},
        score_order=[policies[k] for k in order], n=int(n), details=details, history=history,
        about=ranking.about)


# point estimates certify nothing; the panel baselines' claims are about the benchmark's expected scores
_POINT = frozenset({"bt", "bt-davidson", "bt-em", "emr"})
_PANEL = frozenset({"t-holm", "cbtl", "serpant", "serpant-r", "beb-holm", "asympcs-bonf"})


def _about(method: str, alpha: float | None) -> str | None:
    if alpha is None or method in _POINT:
        return None
    return "benchmark" if method in _PANEL else "policy"


_EVIDENCE = ("pvalue", "log_e", "difference", "z")


def _relation(better: str, worse: str, stats: Mapping[str, Any]) -> Relation:
    """A direct relation: the first statistic of ``_EVIDENCE`` the method gives is its evidence, the rest details."""
    stats = {("pvalue" if k == "p_value" else k): v for k, v in dict(stats).items()}
    for key in _EVIDENCE:
        if stats.get(key) is not None:
            rest = {k: v for k, v in stats.items() if k != key}
            return Relation(better, worse, "test", None, float(stats[key]), key, rest or None)
    return Relation(better, worse, "test", details=stats or None)


def dropped_notes(details: Mapping[str, Any]) -> list[str]:
    """Sentences about data a baseline ignored (read from its ``details``)."""
    notes = []
    k = details.get("n_ties_ignored")
    if k:
        notes.append(f"{k} tied comparison{'s' if k != 1 else ''} ignored: classical Bradley-Terry uses only "
                     "wins and losses (use bt-davidson to model ties).")
    k = details.get("n_draws_dropped")
    if k:
        notes.append(f"{k} draw{'s' if k != 1 else ''} dropped (draws='drop').")
    return notes


def point_edges(scores: np.ndarray, key: str = "difference") -> list[tuple[int, int, dict[str, Any]]]:
    """Every pair ordered by its point estimate; exactly equal scores stay undecided."""
    scores = np.asarray(scores, dtype=float)
    out = []
    p = len(scores)
    for i in range(p):
        for j in range(p):
            if i != j and scores[i] > scores[j]:
                out.append((i, j, {key: float(scores[i] - scores[j])}))
    return out
