"""Plain result objects returned by :class:`certirank.Campaign` (each has ``to_dict()``; the CLI's ``--json``
prints exactly that, and a web page can render it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..results import ResultMixin, plain

__all__ = ["AuditLog", "CampaignStatus", "Check", "ExportResult", "Record", "Suggestion", "VerifyReport"]


@dataclass(frozen=True)
class Suggestion(ResultMixin):
    """One rollout to run next. ``policy`` is what the operator sees: the blind code in blind mode."""

    policy: str
    trial: int
    environment: str | None = None
    kind: str = "rollout"  # "rollout" (AnyRank) or "replicate" (a leaderboard: run every model once more)
    #: the log entry (head id) this was computed at; `record(..., shown_at=)` accepts it after the campaign moved on
    shown_at: int | None = None


@dataclass(frozen=True)
class Record(ResultMixin):
    """One row of the audit trail (a recorded rollout or replicate, an undo, an unblinding).

    ``policy`` is shown as the operator saw it (the code in blind mode, unless unblinded); ``target`` is the
    record an undo undid; ``undone_by``/``undone_at``/``undone_who`` say whether and when this record was
    undone (it is kept). ``hash`` chains every row to the configuration and all earlier rows.
    """

    id: int
    action: str
    policy: str | None
    trial: int | None
    score: float | None
    by: str | None
    note: str | None
    at: str
    ahead: bool = False
    raw_score: float | None = None
    target: int | None = None
    environment: str | None = None
    undone_by: int | None = None
    undone_at: str | None = None
    undone_who: str | None = None
    hash: str = ""

    @property
    def live(self) -> bool:
        return self.action == "record" and self.undone_by is None

    @property
    def score_text(self) -> str:
        """The score as the operator gave it (the raw score with a declared range), 'missing' for a run that could
        not be performed, '' for an entry without one (undo, unblinding, a leaderboard replicate)."""
        if self.action != "record" or not self.policy:
            return ""
        return "missing" if self.score is None else format(self.raw_score if self.raw_score is not None
                                                           else self.score, "g")


@dataclass(frozen=True)
class CampaignStatus(ResultMixin):
    """Where a campaign stands.

    Attributes
    ----------
    ranking : the certified ranking now (AnyRank ``RankingResult`` / BB-EDGE ``LeaderboardResult``), with blind
        codes in place of names unless ``unblinded``.
    rollouts : recorded rollouts per policy (live records, failed runs included).
    complete : every pair decided (AnyRank) -- for a leaderboard, every pair joined by a certified edge.
    done : the engine has stopped (complete ranking, budget exhausted, or no level left).
    remaining : what it would cost at most to finish: per policy, the paired trials left on its open
        comparisons before they reach n_max, and their total (None for a leaderboard: it has no budget).
    test : which test runs and why, in one line (from the design locked at init, never from the data).
    """

    path: str
    kind: str
    schema: str
    blind: bool
    unblinded: bool
    ranking: Any
    rollouts: dict[str, int]
    records: int
    undone: int
    complete: bool
    done: bool
    termination: str | None
    remaining: dict[str, Any] | None
    last_record_id: int
    head_hash: str
    config_sha256: str
    test: str = ""

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        out["ranking"] = plain(self.ranking)
        return out


@dataclass(frozen=True)
class AuditLog(ResultMixin):
    """Every row of the campaign's records table, in order (nothing is ever deleted)."""

    path: str
    created_at: str
    created_by: str | None
    config_sha256: str
    entries: list[Record]


@dataclass(frozen=True)
class ExportResult(ResultMixin):
    """What ``export`` wrote: the long table of live records, and the command that replays it."""

    path: str
    rows: int
    columns: list[str]
    rank_command: str


@dataclass(frozen=True)
class Check(ResultMixin):
    name: str
    ok: bool
    detail: str = ""


@dataclass(frozen=True)
class VerifyReport(ResultMixin):
    """``verify``: integrity of the file, the configuration lock, the hash chain and the checkpoint replay."""

    path: str
    ok: bool
    records: int
    checks: list[Check] = field(default_factory=list)

    @property
    def failures(self) -> list[Check]:
        return [c for c in self.checks if not c.ok]
