"""The result object every baseline returns (spec 00: same fields as the certified methods, plus `scores`).

Decisions are plain dicts so that the simulator and the reports can read AnyRank, BB-EDGE and every
baseline the same way: ``{"better", "worse", "kind", ...method-specific statistics}``, with ``kind`` one
of ``"direct"`` (decided by the method itself) or ``"implied"`` (added by transitivity, as AnyRank does).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..order.result import Ranking, make_ranking
from ..results import ResultMixin

__all__ = ["BaselineResult", "build_result", "closure"]


@dataclass(frozen=True)
class BaselineResult(ResultMixin):
    """Outcome of a baseline ranking method.

    Attributes
    ----------
    method:
        Canonical method name (e.g. ``"bt"``, ``"bt-davidson"``, ``"emr"``).
    alpha:
        Level the method was run at (``None`` for point-estimate methods that use none).
    policies:
        Policies in input order.
    decisions:
        One dict per decided ordered pair: ``better``, ``worse``, ``kind`` (``"direct"`` or
        ``"implied"``) and method-specific statistics (e.g. ``difference``, ``p_value``, ``log_e``).
    undecided:
        ``[a, b]`` for every pair with no decision (a before b in input order).
    means:
        Per-policy empirical mean score when the input had scores; for pure preference input, the
        preference win rate (ties count one half); see ``details["means_kind"]``.
    scores:
        Per-policy fitted score (centred log-strength for the Bradley–Terry family, the weighted mean
        for leaderboard baselines).
    order:
        Policies ordered by ``scores``, best first (ties by input order). (Called ``ranking`` before 0.2.)
    n:
        Number of comparisons (preference methods) or observations (score methods) used.
    guarantee:
        Plain-words statement of what the method does (not) control.
    inconsistent:
        True if the decided relations contain a cycle or both directions of a pair.
    details:
        Method-specific outputs (standard errors, intervals, tie parameter, ...).
    history:
        Leaderboard baselines with ``history=True``: one entry per completed replicate ``r`` with the
        certified direct edges at ``r``. ``None`` otherwise.
    ranking:
        The common :class:`certirank.order.Ranking` of the decisions (``kind`` = the method).
    """

    RESULT_KIND = "baseline"

    method: str
    alpha: float | None
    policies: list[str]
    decisions: list[dict[str, Any]]
    undecided: list[list[str]]
    means: dict[str, float]
    scores: dict[str, float]
    order: list[str]
    n: int
    guarantee: str
    inconsistent: bool = False
    details: dict[str, Any] = field(default_factory=dict)
    history: list[dict[str, Any]] | None = None
    ranking: Ranking | None = field(default=None, repr=False)

    @property
    def decided_pairs(self) -> set[tuple[str, str]]:
        """Set of (better, worse) tuples over all decisions (direct and implied)."""
        return {(d["better"], d["worse"]) for d in self.decisions}

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
    adj = np.zeros((p, p), dtype=bool)
    decisions: list[dict[str, Any]] = []
    for i, j, stats in edges:
        adj[i, j] = True
        decisions.append({"better": policies[i], "worse": policies[j], "kind": "direct", **dict(stats)})
    reach = closure(adj)
    inconsistent = bool(np.any(np.diag(reach)))
    if implied and not inconsistent:
        for i in range(p):
            for j in range(p):
                if reach[i, j] and not adj[i, j]:
                    decisions.append({"better": policies[i], "worse": policies[j], "kind": "implied"})
    decided = adj | (reach if (implied and not inconsistent) else adj)
    undecided = [[policies[i], policies[j]] for i in range(p) for j in range(i + 1, p)
                 if not (decided[i, j] or decided[j, i])]
    scores = np.asarray(scores, dtype=float)
    order = sorted(range(p), key=lambda k: (-scores[k] if np.isfinite(scores[k]) else np.inf, k))
    details = dict(details or {})
    ranking = make_ranking(policies, [_relation(d) for d in decisions if d["kind"] == "direct"], kind=method,
                           alpha=alpha, guarantee=guarantee, means=[float(v) for v in means],
                           notes=[*notes, *dropped_notes(details)], closure=implied)
    return BaselineResult(
        method=method, alpha=alpha, policies=policies, decisions=decisions, undecided=undecided,
        means={policies[k]: float(means[k]) for k in range(p)},
        scores={policies[k]: float(scores[k]) for k in range(p)},
        order=[policies[k] for k in order], n=int(n), guarantee=guarantee, inconsistent=inconsistent,
        details=details, history=history, ranking=ranking)


_EVIDENCE = ("p_value", "log_e", "difference", "z")


def _relation(d: Mapping[str, Any]) -> dict[str, Any]:
    for key in _EVIDENCE:
        if d.get(key) is not None:
            return {"better": d["better"], "worse": d["worse"], "via": "test", "evidence": d[key],
                    "evidence_kind": "pvalue" if key == "p_value" else key}
    return {"better": d["better"], "worse": d["worse"], "via": "test"}


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
