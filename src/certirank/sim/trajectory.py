"""The decision trajectory every method adapter returns for one simulated run.

A trajectory is a step function: ``claims[s]`` is the set of ordered claims ("a better than b") the method
asserts from ``time[s]`` until the next snapshot. Methods whose decisions persist (AnyRank, Bonferroni)
only need a snapshot per decision; methods whose certified set can shrink (BB-EDGE's ``current`` edge set,
refitted baselines) give one snapshot per look.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Trajectory", "claims_from_pairs"]


@dataclass(frozen=True)
class Trajectory:
    """Decisions of one method on one run.

    Attributes
    ----------
    time:
        ``(S,)`` non-decreasing native times of the snapshots (iteration, replicate, games, ...).
    evals:
        ``(S,)`` total evaluations spent at each snapshot (AnyRank accounting: Σ_i samples_i(t); leaderboards:
        replicates × models × items; preference baselines: 2 × games).
    claims:
        ``(S, M, M)`` bool; ``claims[s, a, b]`` = "a is better than b" asserted at snapshot s (direct and
        implied decisions alike).
    end_time, end_evals:
        Time and evaluations at termination (the run's total cost, including undecided pairs).
    time_unit:
        Name of the native time axis.
    false_between:
        Time of the first false claim made between snapshots (e.g. at an item-level look of an item-stream
        method, reported at the replicate that contains it), or None; counted in the FWER.
    samples:
        Optional per-policy trials used at termination (AnyRank ``samples_i``).
    topk:
        Optional ``(time, frozenset_of_indices)`` of the method's own Top-k certificate (pilot-targeted
        BB-EDGE), counted in addition to Top-k sets derived from ``claims``.
    info:
        Free-form per-run information (termination reason, inconsistency flag, ...).
    """

    time: np.ndarray
    evals: np.ndarray
    claims: np.ndarray
    end_time: float
    end_evals: float
    time_unit: str = "iteration"
    false_between: float | None = None
    samples: np.ndarray | None = None
    topk: tuple[float, frozenset[int]] | None = None
    info: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        t = np.asarray(self.time, dtype=float).reshape(-1)
        e = np.asarray(self.evals, dtype=float).reshape(-1)
        c = np.asarray(self.claims, dtype=bool)
        if c.ndim != 3 or c.shape[0] != t.size or e.size != t.size or c.shape[1] != c.shape[2]:
            raise ValueError(f"inconsistent trajectory shapes: time {t.shape}, evals {e.shape}, claims {c.shape}")
        object.__setattr__(self, "time", t)
        object.__setattr__(self, "evals", e)
        object.__setattr__(self, "claims", c)

    def ranking(self, policies: Sequence[str], *, step: int = -1, kind: str = "simulated",
                alpha: float | None = None) -> Any:
        """The claims at snapshot ``step`` (default: the last) as a :class:`certirank.order.Ranking`.

        ``when`` of each relation is the native time (``time_unit``) at which the claim was first made and
        kept up to ``step``. Before the first snapshot (no snapshots at all) nothing is claimed.
        """
        from ..order.result import make_ranking
        n = self.claims.shape[1]
        if len(policies) != n:
            raise ValueError(f"this trajectory has {n} policies, got {len(policies)} names")
        if self.claims.shape[0] == 0:
            return make_ranking(policies, [], kind=kind, alpha=alpha, when_unit=self.time_unit)
        s = range(self.claims.shape[0])[step]
        now = self.claims[s]
        rels = []
        for a, b in zip(*np.nonzero(now)):
            first = s
            while first > 0 and self.claims[first - 1, a, b]:
                first -= 1
            rels.append({"better": policies[a], "worse": policies[b], "when": float(self.time[first])})
        return make_ranking(policies, rels, kind=kind, alpha=alpha, when_unit=self.time_unit)


def claims_from_pairs(n: int, events: Sequence[tuple[float, float, int, int]], *, end_time: float,
                      end_evals: float, **kw: Any) -> Trajectory:
    """A persistent-decision trajectory from ``(time, evals, better, worse)`` events (any order).

    Events at the same time are merged into one snapshot; claims accumulate.
    """
    ev = sorted(events, key=lambda e: (e[0], e[1]))
    times: list[float] = []
    evals: list[float] = []
    snaps: list[np.ndarray] = []
    cur = np.zeros((n, n), dtype=bool)
    for t, e, a, b in ev:
        cur = cur.copy()
        cur[a, b] = True
        if times and times[-1] == t:
            snaps[-1] = cur
            evals[-1] = max(evals[-1], e)
        else:
            times.append(t)
            evals.append(e)
            snaps.append(cur)
    claims = np.stack(snaps) if snaps else np.zeros((0, n, n), dtype=bool)
    return Trajectory(time=np.asarray(times), evals=np.asarray(evals), claims=claims, end_time=end_time,
                      end_evals=end_evals, **kw)
