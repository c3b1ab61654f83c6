"""Plain result objects returned by :class:`certirank.Campaign` (each has ``to_dict()``; the CLI's ``--json``
prints exactly that, and a web page can render it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..order.result import Ranking
from ..results import Result, ResultMixin, inputs

__all__ = ["AuditLog", "CampaignStatus", "Check", "ExportResult", "NextRollouts", "Plan", "Record", "Suggestion",
           "Unblinding", "VerifyReport"]


@dataclass(frozen=True)
class Suggestion(ResultMixin):
    """One rollout to run next. ``policy`` is what the operator sees: the blind code in blind mode.

    ``block``: the balanced block of the trial (None without environments); ``position``: its place in the
    trial's Williams order among the rollouts listed (1 = run first); ``faults``: faults logged on this rollout
    so far (it is offered again); ``launch``: the command that starts it (while blind, the `campaign launch`
    command, which does not show the checkpoint), None without a launch template."""

    policy: str
    trial: int
    environment: str | None = None
    kind: str = "rollout"  # "rollout" (AnyRank) or "replicate" (a leaderboard: run every model once more)
    #: the log entry (head id) this was computed at; `record(..., shown_at=)` accepts it after the campaign moved on
    shown_at: int | None = None
    block: int | None = None
    position: int | None = None
    faults: int = 0
    launch: str | None = None
    #: a proxy campaign's label draw for this trial: "real + proxy" or "proxy only" (None for other campaigns)
    label: str | None = field(default=None, metadata={"omit_none": True})
    #: an item campaign's draw (``kind="item"``, ``trial`` = the draw number): the item, the models to score on it
    #: and the probability with which it was drawn
    item: str | None = field(default=None, metadata={"omit_none": True})
    models: list[str] | None = field(default=None, metadata={"omit_none": True})
    probability: float | None = field(default=None, metadata={"omit_none": True})


@dataclass(frozen=True)
class Record(ResultMixin):
    """One row of the audit trail (a recorded rollout or replicate, a fault, a note, an undo, an unblinding, an
    amendment).

    ``policy`` is shown as the operator saw it (the code in blind mode, unless unblinded); ``target`` is the
    entry an undo undid; ``undone_by``/``undone_at``/``undone_who`` say whether and when this entry was
    undone (it is kept). ``tags``: the record's or fault's tags; ``fault``: why a rollout could not be judged;
    ``changes``: an amendment's ``{setting: {"from", "to"}}`` (and ``from_trial`` for a schedule change);
    ``environment``/``block``: where the trial runs. ``hash`` chains every row to the configuration and all
    earlier rows.
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
    block: int | None = None
    tags: list[str] = field(default_factory=list)
    fault: str | None = None
    changes: dict[str, Any] | None = None
    #: a proxy campaign's proxy score of the rollout, in [0, 1] (None for other campaigns)
    proxy: float | None = field(default=None, metadata={"omit_none": True})
    #: an item campaign's draw: the item, the models' scores on it and its draw probability
    item: str | None = field(default=None, metadata={"omit_none": True})
    scores: dict[str, float] | None = field(default=None, metadata={"omit_none": True})
    probability: float | None = field(default=None, metadata={"omit_none": True})

    @property
    def live(self) -> bool:
        return self.action == "record" and self.undone_by is None

    @property
    def score_text(self) -> str:
        """The score as the operator gave it (the raw score with a declared range), 'missing' for a run that could
        not be performed, '' for an entry without one (undo, unblinding, a leaderboard replicate)."""
        if self.action == "record" and self.scores is not None:  # an item draw: every model's score
            return ", ".join(f"{m}={v:g}" for m, v in self.scores.items())
        if self.action != "record" or not self.policy:
            return ""
        if self.proxy is not None and self.score is None:
            return "none (proxy only)"
        return "missing" if self.score is None else format(self.raw_score if self.raw_score is not None
                                                           else self.score, "g")


@dataclass(frozen=True)
class CampaignStatus(Result):
    """Where a campaign stands (record kind ``"campaign-status"``).

    Attributes
    ----------
    path, campaign, blind : inputs
        The campaign file, its kind ("anyrank" or "leaderboard") and whether it runs blind.
    ranking : the certified :class:`~certirank.order.Ranking` now, with blind codes in place of names unless
        ``unblinded``.
    result : the method's own result (AnyRank ``RankingResult`` / BB-EDGE ``LeaderboardResult``, relabelled like
        the ranking); its record, without the ranking, is ``details["result"]`` in the JSON.
    rollouts : recorded rollouts per policy (live records, failed runs included).
    complete : every pair decided (AnyRank) -- for a leaderboard, every pair joined by a certified edge.
    done : the engine has stopped (complete ranking, budget exhausted, or no level left).
    remaining : what it would cost at most to finish: per policy, the paired trials left on its open
        comparisons before they reach n_max, and their total (None for a leaderboard: it has no budget).
    test : which test runs and why, in one line (from the design locked at init, never from the data).
    about : what the certified claims are about ("policy" or "benchmark", spec 09 §2).
    faults : live faults per policy (rollouts that could not be judged; never counted);
        ``open_faults``: the faulted rollouts not recorded since, which ``next`` offers again.
    tags : {tag: {policy: live records and faults carrying it}}.
    amendments : how many amendments the design has had; ``checklist``: the rig checklist in force.
    warnings : one line each (faults that fall unevenly on one policy, ...).
    verdicts : per pair of policies (of models, for a leaderboard), what the operator can act on: ``certified`` (a
        relation of the ranking), ``equivalent`` (|difference| certified below a margin, when the method reports
        it), ``futile`` (AnyRank: its test can no longer pass within the budget), or ``undecided`` with
        ``more_needed`` (a forecast at the current estimates, never a guarantee: rollouts per policy for AnyRank,
        further replicates for a leaderboard; None when there is none yet) and ``budget_left`` (AnyRank); each
        with one ``sentence``.
    estimates : per policy, its mean score so far and an anytime-valid interval for it (a PrPl-EB confidence
        sequence, spec 01 §5.3, each policy at level alpha on its own): for orientation; the certified claims
        are the pairwise ones.
    """

    KIND: ClassVar[str] = "campaign-status"

    path: str = inputs()
    campaign: str = inputs()
    blind: bool = inputs()
    unblinded: bool
    ranking: Ranking = field(repr=False)
    result: Any = field(repr=False)
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
    faults: dict[str, int] = field(default_factory=dict)
    open_faults: list[dict[str, Any]] = field(default_factory=list)
    tags: dict[str, dict[str, int]] = field(default_factory=dict)
    amendments: int = 0
    checklist: list[str] = field(default_factory=list)
    verdicts: list[dict[str, Any]] = field(default_factory=list)
    estimates: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: an item campaign's draws: ``draws``, ``evaluations`` (scores recorded), ``n_items``, ``n_max`` and
    #: ``draws_left`` (None without a budget), ``pending`` (the next draw: draw, item, models, probability; None when
    #: done); None for the other kinds
    items: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        inner = self.result.to_dict()
        out["details"]["result"] = {k: v for k, v in inner.items() if k not in ("ranking", "schema", "about")}
        return out


@dataclass(frozen=True)
class NextRollouts(ResultMixin):
    """What to run next (``campaign next --json``, ``/api/v1/next``): the suggestions in the order to run them,
    and, when there are none, whether and why the campaign has stopped."""

    path: str
    suggestions: list[Suggestion]
    done: bool
    termination: str | None


@dataclass(frozen=True)
class Unblinding(ResultMixin):
    """``campaign unblind``: the ``unblind`` entry written (None if the campaign was unblinded before) and the
    codes each policy had."""

    path: str
    unblinded: bool
    entry: Record | None
    codes: dict[str, str]


@dataclass(frozen=True)
class Plan(ResultMixin):
    """The schedule of the next blocks (``campaign plan``).

    ``rule``: "balanced blocks" (every environment once per block, in a seeded random order) or "independent
    draws" (campaigns made before blocks); ``order``: "williams" (each trial's policies in a Williams-balanced,
    seeded order) or "configured"; ``segments``: the schedule's history (the locked one, then each amendment's,
    from a block boundary on); ``blocks``: ``[{"block", "trials": [{"trial", "environment", "order",
    "recorded", "faults", "needed"}]}]`` with policies as the operator sees them (codes while blind)."""

    path: str
    rule: str
    environments: list[str]
    seed: int
    order: str
    segments: list[dict[str, Any]]
    blocks: list[dict[str, Any]]
    head: int


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
    #: one line each: what was accepted within a tolerance (a checkpoint written by an older engine)
    warnings: list[str] = field(default_factory=list)

    @property
    def failures(self) -> list[Check]:
        return [c for c in self.checks if not c.ok]
