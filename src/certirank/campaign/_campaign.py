"""`Campaign`: a live evaluation campaign in one SQLite file ("what do I run next, record it, can I stop?").

Design
------
* The ``records`` table is the source of truth: an append-only, hash-chained event log (records, faults, notes,
  undos, unblinding, amendments). Nothing is deleted; an undo is a new row that marks its target undone.
* The engine's derived state is checkpointed in the same transaction as every write, so opening a campaign
  reads one row (no replay) and a crash leaves either the old or the new (record, checkpoint) pair.
* A write is computed outside the write lock, on a private copy of the engine at the head it read; the lock
  (``BEGIN IMMEDIATE``) is then held only to re-check that nobody wrote since and to append (milliseconds).
  If someone did, the write is computed again (after two tries, under the lock). Two operators recording at
  once are serialised, never merged, and a slow first engine restore never holds the lock.
* Every open checks in O(1) that the checkpoint is the log's head and the configuration starts the chain
  (:meth:`_Store.check_head`); verbs that read every row (``log``, ``export``, ``undo``) verify the whole chain
  as they read; ``verify`` also replays the live records and compares with the checkpoint.

Composition: a :class:`_Store` (the SQLite file), an engine adapter (``_engines``), the operator's view of
names (:class:`_blind.Names`) and the design in force (:class:`_design.Design`: the locked design with every
amendment applied, the schedule among it). The configuration (policies, alpha, method, prior, budget, ...,
blind codes, design) is locked at ``init``; only amendments that keep the guarantee change it (``amend``). The
verbs' bodies live in ``_rollouts`` (next, record, fault), ``_amend``, ``_status`` (status, plan), ``_export``
and ``_verify``.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .._params import validated
from ..errors import CertirankError, ParameterError, StateError
from ._audit import as_record
from ._blind import Names
from ._chain import replayed
from ._create import FORMAT, create_file, init_config
from ._design import Design, design_now
from ._engines import engine_class
from ._store import TRIES, Head, _Store
from ._util import _check_key, _check_note, _check_trial, _operator, _sha
from .results import AuditLog, CampaignStatus, ExportResult, Plan, Record, Suggestion, VerifyReport

__all__ = ["FORMAT", "Campaign"]



class Campaign:
    """A live AnyRank (or BB-EDGE leaderboard) campaign stored in one SQLite file.

    Create one with :meth:`init`, reopen it anywhere with :meth:`open` (or ``Campaign(path)``). Every method
    either returns a result object (``to_dict()``) or raises a :class:`certirank.CertirankError` subclass with
    a one-line reason, leaving the file unchanged. Safe to use from several processes at once.

    Every write takes ``idempotency_key``: a write sent again with the same key (a retried request) records
    nothing and returns the first answer, also after a restart (the key is kept in the file, written in the
    same transaction as the entry).

    Examples
    --------
    >>> c = Campaign.init("lab.campaign", ["A", "B", "C"], alpha=0.1)   # doctest: +SKIP
    >>> for s in c.next():                                              # doctest: +SKIP
    ...     c.record(s.policy, s.trial, run_on_robot(s.policy, s.environment))
    >>> c.status().ranking.sentences()                                  # doctest: +SKIP
    """

    # ------------------------------------------------------------------------------------------ opening
    def __init__(self, path: str | os.PathLike[str], *, _check_config: bool = True) -> None:
        self._store = _Store(path, check_config=_check_config)
        self.path = self._store.path
        self._checks = _check_config
        try:
            self.config: dict[str, Any] = self._store.config()
            self.kind: str = self.config["kind"]
            self._engine_cls = engine_class(self.kind)
            self._names = Names(self.config)
            self._design: Design = design_now(self.config, [])
        except (KeyError, TypeError, CertirankError):
            self._store.close()
            raise StateError(f"{self.path}: the stored configuration is not a campaign configuration; the file is "
                             "damaged or was edited by hand") from None
        self.config_sha256: str = self._store.config_sha256
        self._engine: Any = None
        self._blob: bytes | None = None
        self._engine_id = -1
        self._design_id = -1
        self._locked: dict[str, Any] | None = None
        self._revealed = False
        if _check_config:  # tamper evidence on every open (O(1)); verify reports instead of refusing
            try:
                with self._store.read() as conn:
                    self._sync_design(conn, self._store.check_head(conn))
            except BaseException:
                self._store.close()
                raise

    @classmethod
    @validated("Campaign.open")
    def open(cls, path: str | os.PathLike[str]) -> Campaign:
        """Open an existing campaign file (O(1) in its history: one checkpoint read)."""
        return cls(path)

    @classmethod
    @validated("Campaign.init")
    def init(cls, path: str | os.PathLike[str], policies: Sequence[str] | None = None, *, kind: str = "anyrank",
             models: Sequence[str] | None = None, alpha: float = 0.05, method: str | None = None,
             prior: Any = None, gamma: float = 1.0, n_max: int | None = None, ties: str = "allow",
             guarantee: str = "paper", environments: Sequence[str] | None = None, seed: int | None = None,
             blind: bool = False, score_range: Sequence[float] | None = None, blocks: Any = None,
             tau: float = 0.0, top_k: int | None = None, about: str | None = None, tags: Sequence[str] | None = None,
             open_tags: bool | None = None, checklist: Sequence[str] | None = None, launch: str | None = None,
             checkpoints: Mapping[str, str] | None = None, design: str | os.PathLike[str] | None = None,
             by: str | None = None, label_rate: float | None = None, items: Any = None, difficulty: Any = None,
             **options: Any) -> Campaign:
        """Create the campaign file at ``path`` with its design locked by hash (refused if ``path`` exists).

        ``kind="anyrank"`` (default): ``policies`` and the :class:`certirank.Ranker` settings (``n_max`` is the
        per-comparison budget, default 5000; ``environments`` are run in balanced blocks, each block every
        environment once in a seeded random order, and each trial's policies in a Williams-balanced order;
        ``seed`` seeds both (default: fresh, stored); ``score_range=(lo, hi)`` declares raw scores that are
        rescaled to [0, 1]; ``blind=True`` gives every policy a stable code shown instead of its name).
        ``kind="leaderboard"``: ``models`` (or ``policies``), ``alpha``, ``tau``, ``blocks`` ("items" or
        "replicate"), ``top_k``, ``method`` (BB-EDGE). ``margin`` (either kind): an equivalence margin in (0, 1),
        locked with the rest; a leaderboard then runs the two boards of ``leaderboard(..., margin=)``.
        ``label_rate=π`` (``kind="proxy"``): every rollout records a proxy outcome (a simulator's or world model's
        score, ``record(..., proxy=)``) and, on the trials the campaign draws for a real label (each with
        probability π, from the locked ``seed``, independent of the outcomes), the real score too; the ranking is
        the prediction-powered one of ``rank FILE --proxy COLUMN --label-rate π`` (docs/prediction-powered.md).
        ``kind="items"``: a leaderboard scored item by item (docs/adaptive-items.md): ``models``, ``items`` (a count N,
        a list of names or a file with one name per line), optionally ``difficulty`` (each item's success rate from
        earlier models: a list in item order, a mapping or an 'item,rate' file), ``about`` ("benchmark": fresh runs;
        "table": one fixed run per model), ``seed`` (of the item draws) and ``n_max`` (a budget of draws); ``next``
        shows the drawn item, the models to score on it and its draw probability, :meth:`record_item` records them.

        The operator's design: ``tags`` (the failure stages etc. a record may carry; a closed list unless
        ``open_tags=True``; no list = any tag), ``checklist`` (the rig checklist the page shows), ``launch`` (a
        command template such as ``"python serve.py --ckpt {checkpoint}"``) and ``checkpoints`` ({policy:
        path}), with which ``next`` and ``launch`` start the right policy (without showing it while blind).
        ``about`` is the estimand ("policy" for robot campaigns, "benchmark" for leaderboards: the only ones a
        live campaign supports). ``design="design.toml"`` reads all of these from a TOML file (its SHA-256 is
        locked too); a setting given both there and as an argument is refused.
        """
        target = _check_path(path)
        config = init_config(policies, kind=kind, models=models, alpha=alpha, method=method, prior=prior, gamma=gamma,
                             n_max=n_max, ties=ties, guarantee=guarantee, environments=environments, seed=seed,
                             blind=blind, score_range=score_range, blocks=blocks, tau=tau, top_k=top_k, about=about,
                             tags=tags, open_tags=open_tags, checklist=checklist, launch=launch,
                             checkpoints=checkpoints, design=design, options=options, label_rate=label_rate,
                             items=items, difficulty=difficulty)
        create_file(target, config, by=by)
        return cls(target)

    def close(self) -> None:
        self._store.close()

    def __enter__(self) -> Campaign:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Campaign({str(self.path)!r}, kind={self.kind!r})"

    # ------------------------------------------------------------------------------------------ properties
    @property
    def writable(self) -> bool:
        """False when this user may not write the file or its folder: it is then open read-only."""
        return self._store.writable

    @property
    def blind(self) -> bool:
        """True if created with blind codes (see :attr:`unblinded` for whether names are now shown)."""
        return self._names.blind

    @property
    def unblinded(self) -> bool:
        """True once a blind campaign has been unblinded (permanent, and logged in the audit trail)."""
        if self.blind and not self._revealed:
            with self._store.read() as conn:
                self._revealed = self._store.revealed(conn)
        return self._revealed

    @property
    def policies(self) -> list[str]:
        """The policies (or models) as the operator sees them: blind codes in blind mode."""
        return self._names.listed(self.unblinded)

    @property
    def design(self) -> Design:
        """The design in force: the locked one with every amendment applied (tags, checklist, launch template,
        schedule, estimand)."""
        with self._store.read() as conn:
            self._sync_design(conn, self._store.head(conn))
        return self._design

    def _shown(self, name: str | None, unblind: bool = False) -> str | None:
        return self._names.shown(name, unblind or self._revealed)

    def _resolve(self, policy: Any) -> str:
        return self._names.resolve(policy, self.unblinded)

    def _as_record(self, row: Mapping[str, Any]) -> Record:
        return as_record(row, self._names, self._revealed, self._design.schedule)

    # ------------------------------------------------------------------------------------------ the engine
    def _sync_design(self, conn: sqlite3.Connection, head: Head) -> None:
        if head.last_id != self._design_id:
            self._design = design_now(self.config, self._store.amendments(conn))
            self._design_id = head.last_id

    def _sync(self, conn: sqlite3.Connection) -> Head:
        """Bring the cached engine to the checkpoint in ``conn``'s view (restored only when someone wrote)."""
        head = self._store.check_head(conn) if self._checks else self._store.head(conn)
        self._sync_design(conn, head)
        if head.last_id != self._engine_id or self._engine is None:
            blob = self._store.state(conn)
            engine = self._engine_cls.restore(blob)
            if self._checks:
                self._check_settings(engine)
            self._engine, self._blob, self._engine_id = engine, blob, head.last_id
            if self.blind and not self._revealed:
                self._revealed = self._store.revealed(conn)
        return head

    def _check_settings(self, engine: Any) -> None:
        if self._locked is None:
            self._locked = self._engine_cls.locked_settings(self.config["engine"])
        held = engine.settings()
        if held != self._locked:
            changed = sorted(k for k in set(held) | set(self._locked) if held.get(k) != self._locked.get(k))
            if "setup" in changed:
                a, b = held.get("setup") or {}, self._locked.get("setup") or {}
                changed = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)] + \
                          [k for k in changed if k != "setup"]
            raise StateError(f"{self.path}: the engine checkpoint runs other settings than the locked configuration "
                             f"({', '.join(changed)}): the configuration or the checkpoint was edited, so this "
                             "campaign's guarantee no longer holds")

    def _checked_rows(self, conn: sqlite3.Connection) -> list[dict[str, Any]]:
        """Every log row, for the verbs that read them all: the whole chain and the undo marks verified as they
        are read, and the live rows checked against the checkpoint's results (call after :meth:`_sync`)."""
        rows = self._store.rows(conn, checked=self._checks)
        if self._checks:
            live = [r for r in rows if r["action"] == "record" and r["undone_by"] is None]
            problem = self._engine.mismatch(live, self.config["engine"])
            if problem is not None:
                raise self._store._edited(problem)
        return rows

    def _current(self, conn: sqlite3.Connection) -> Any:
        self._sync(conn)
        return self._engine

    def _commit(self, gather: Callable[[sqlite3.Connection, Head], Any],
                build: Callable[[Callable[[], Any], Any], tuple[dict[str, Any], Any]],
                after: Callable[[sqlite3.Connection, dict[str, Any]], None] | None = None) -> dict[str, Any]:
        """Append one entry. ``gather(conn, head)`` reads what the checks need; ``build(take, facts)`` checks,
        applies the entry to an engine (``take()`` hands over the cached one at the head) and returns
        ``(row, engine)`` (engine None: the entry changes no engine state); ``after(conn, row)`` runs extra
        statements in the write transaction.

        The first tries run ``gather`` in a read transaction and ``build`` outside any lock; the lock is then taken
        only to re-check the head and append. If another writer moved the head meanwhile, it tries again, and
        the last try runs everything under the lock (the engine's modules are loaded by then: milliseconds).
        """
        for attempt in range(TRIES + 1):
            locked = attempt == TRIES
            try:
                with (self._store.write() if locked else self._store.read()) as conn:
                    head = self._sync(conn)
                    facts = gather(conn, head)
                    if locked:
                        return self._append(conn, head, *build(self._take_engine, facts), after)
                row, engine = build(self._take_engine, facts)
                new_blob = engine.checkpoint() if engine is not None else None
                with self._store.write() as conn:
                    if self._store.head(conn).last_id == head.last_id:
                        return self._append(conn, head, row, engine, after, new_blob)
            finally:
                if self._engine is None:  # taken for a write that was not saved: restored at the next read
                    self._engine_id = -1
        raise AssertionError("unreachable: the last try runs under the lock")  # pragma: no cover

    def _take_engine(self) -> Any:
        """The cached engine, handed over to a write that applies an entry to it (no copy: the cache is dropped
        and restored from the checkpoint if the write is not saved)."""
        engine, self._engine = self._engine, None
        return engine

    def _append(self, conn: sqlite3.Connection, head: Head, row: dict[str, Any], engine: Any,
                after: Callable[[sqlite3.Connection, dict[str, Any]], None] | None,
                blob: bytes | None = None) -> dict[str, Any]:
        if engine is None:  # an entry that changes no engine state (fault, note, unblinding) keeps the checkpoint's
            engine, blob = self._engine, self._blob
            if engine is None:
                engine = self._engine_cls.restore(blob)
        elif blob is None:
            blob = engine.checkpoint()
        sha = _sha(blob)
        row = self._store.append(conn, row, state_sha256=sha)
        # kept as a running count (not a scan of the log), so that a write costs the same at any history length
        live = head.live_records + _live_change(self._store, conn, row)
        if after is not None:
            after(conn, row)
        self._store.save_checkpoint(conn, row, engine.fmt, blob, live)
        self._engine, self._blob, self._engine_id = engine, blob, row["id"]
        return row

    def _write(self, build: Callable[[Callable[[], Any], Any], tuple[dict[str, Any], Any]],
               gather: Callable[[sqlite3.Connection, Head], Any], request: Mapping[str, Any], key: Any,
               after: Callable[[sqlite3.Connection, dict[str, Any]], None] | None = None,
               answer: Callable[[sqlite3.Connection, dict[str, Any]], Record] | None = None) -> Record:
        """:meth:`_commit` with an idempotency key: the answer (a :class:`Record`) is stored with the key in the
        entry's transaction; the same key again returns it and writes nothing (another request under the same
        key is refused)."""
        key = _check_key(key)
        fingerprint = _fingerprint(request)
        done = self._answered(key, request)
        if done is not None:
            return done
        made: list[Record] = []

        def finish(conn: sqlite3.Connection, row: dict[str, Any]) -> None:
            if after is not None:
                after(conn, row)
            rec = answer(conn, row) if answer is not None else self._as_record(row)
            if key is not None:
                hit = self._store.keyed(conn, key)
                if hit is not None:  # the same request won the race in another process: this one writes nothing
                    raise _Replayed(hit)
                self._store.keep_key(conn, key, fingerprint, row["id"], json.dumps(rec.to_dict()))
            made.append(rec)

        try:
            self._commit(gather, build, finish)
        except _Replayed as exc:
            return _replayed(key, exc.hit, fingerprint)
        return made[-1]

    def _answered(self, key: Any, request: Mapping[str, Any]) -> Record | None:
        """The stored answer of a write already made under idempotency ``key`` (None: not made yet). A verb whose
        checks compare with the state the write changes (amend) asks this before checking."""
        key = _check_key(key)
        if key is None:
            return None
        with self._store.read() as conn:
            hit = self._store.keyed(conn, key)
        return None if hit is None else _replayed(key, hit, _fingerprint(request))

    def _replay(self, rows: Any) -> Any:
        """A fresh engine with ``rows`` (live records and amendments, in log order) applied."""
        eng = self._engine_cls.fresh(self.config["engine"])
        for row in rows:
            eng.apply(row)
        return eng

    # ------------------------------------------------------------------------------------------ the operator's verbs
    @validated("Campaign.next")
    def next(self, count: int | None = None, *, remember: bool | None = None) -> list[Suggestion]:
        """The rollouts to run next: (policy or code, trial index, environment, block, position in the trial's
        order, faults so far, launch command), at most ``count``, in the order to run them.

        The schedule (see :meth:`plan`) says where and in which order; AnyRank's active sampling says which
        rollouts are still needed (pairs already decided need no more). Only the current iteration is known in
        advance, so fewer than ``count`` may be returned. A rollout with a fault is offered again.
        ``remember=True`` (the default when this user may write the file) writes the suggestions down, so that
        a rollout handed out here is accepted by :meth:`record` even if other results have since moved the engine
        on; ``remember=False`` only looks (the file is not written: what a reader or the page is shown). Each
        suggestion carries ``shown_at``, the log entry it was computed at: pass it back to :meth:`record` to
        have a suggestion that was not remembered accepted after the campaign moved on. Empty when the
        campaign is done.
        """
        from ._rollouts import next_rollouts
        return next_rollouts(self, count, remember)

    @validated("Campaign.record")
    def record(self, policy: str, trial: int, score: float | str | None, *, by: str | None = None,
               note: str | None = None, ahead: bool = False, shown_at: int | None = None,
               tags: Sequence[str] | None = None, idempotency_key: str | None = None,
               proxy: float | str | None = None) -> Record:
        """Record one judged rollout in one transaction and return its audit row.

        ``score`` in [0, 1] (or in the declared ``score_range``); ``None`` (or "missing") for a run that could not
        be performed (the comparison then skips that trial; for a run to be done again, see :meth:`fault`).
        ``tags``: labels such as the stage a rollout failed at (from the declared list when it is closed).
        Refused (exception, file unchanged): an unknown policy or code, a score outside the range, an unknown tag
        on a closed list, a trial already recorded for that policy, a trial that was not suggested (unless
        ``ahead=True``, or it was shown by a :meth:`next` at entry ``shown_at`` and is not beyond the trials
        reached), a finished campaign.

        A proxy campaign (``label_rate``): ``proxy`` (the simulator's or world model's score, in the score range)
        is required on every rollout; ``score`` (the real outcome) exactly on the trials drawn for a real label
        (``next`` says which) and None on the others.
        """
        from ._rollouts import record
        return record(self, policy, trial, score, by=by, note=note, ahead=ahead, shown_at=shown_at, tags=tags,
                      idempotency_key=idempotency_key, proxy=proxy)

    @validated("Campaign.record_item")
    def record_item(self, item: str, scores: Mapping[str, float] | str, *, draw: int | None = None,
                    by: str | None = None, note: str | None = None, idempotency_key: str | None = None) -> Record:
        """Record the scores of an item campaign's pending draw: exactly the item :meth:`next` shows and the scores
        of exactly the models it lists (``{model: score in [0, 1]}``); ``draw`` (optional) must be its draw number.
        Anything else is refused and nothing is written: the guarantee needs each item's draw probability, which
        is stored with the record."""
        from ._item_rollouts import record_item
        return record_item(self, item, scores, draw=draw, by=by, note=note, idempotency_key=idempotency_key)

    @validated("Campaign.fault")
    def fault(self, policy: str, trial: int, reason: str, *, by: str | None = None, note: str | None = None,
              ahead: bool = False, shown_at: int | None = None, tags: Sequence[str] | None = None,
              idempotency_key: str | None = None) -> Record:
        """Log a rollout that could not be judged (e-stop, reset failure, ...): stored with its ``reason``,
        never counted as a failure (nothing reaches the tests), and offered again by :meth:`next`.

        A failure the policy caused is a score of 0, not a fault (status warns when faults fall unevenly on
        the policies). Refused like :meth:`record`, and for a rollout already recorded."""
        from ._rollouts import fault
        return fault(self, policy, trial, reason, by=by, note=note, ahead=ahead, shown_at=shown_at, tags=tags,
                     idempotency_key=idempotency_key)

    @validated("Campaign.note")
    def note(self, text: str, *, by: str | None = None, idempotency_key: str | None = None) -> Record:
        """Write a free note to the audit trail ("gripper pads changed", "light from the window at 16:00")."""
        who = _operator(by)
        text = _check_note(text)
        if text is None or not text.strip():
            raise ParameterError("a note needs some text")

        def build(take: Callable[[], Any], facts: Any) -> tuple[dict[str, Any], Any]:
            return {"action": "note", "by": who, "note": text}, None

        return self._write(build, lambda conn, head: None, {"verb": "note", "by": who, "note": text},
                           idempotency_key)

    @validated("Campaign.add_run")
    def add_run(self, panel: Any, *, replicate: int | None = None, by: str | None = None,
                note: str | None = None, idempotency_key: str | None = None) -> Record:
        """Record one complete replicate of a leaderboard campaign (a file or table: model, item, score)."""
        from ._replicates import add_run
        return add_run(self, panel, replicate=replicate, by=by, note=note, idempotency_key=idempotency_key)

    @validated("Campaign.undo")
    def undo(self, record_id: int | None = None, *, by: str | None = None, note: str | None = None,
             idempotency_key: str | None = None) -> Record:
        """Mark a record or fault undone (default: the latest live one). It is kept, with who undid it and when;
        the engine is rebuilt from the remaining records exactly as if it had never been recorded.

        The whole hash chain is verified as the records are read for the replay: an edited log is refused
        (naming the entry), never replayed into the checkpoint."""
        who = _operator(by)
        note = _check_note(note)
        rid_given = None if record_id is None else _check_trial(record_id, "record id")

        def gather(conn: sqlite3.Connection, head: Head) -> tuple[dict[str, Any], list[dict[str, Any]]]:
            rows = self._checked_rows(conn)  # chain and checkpoint checked: an edited log is never replayed
            if rid_given is None:
                found = self._store.latest_live(conn)
                if found is None:
                    raise StateError("nothing to undo: no live record")
                return next(x for x in rows if x["id"] == found), rows
            hit = next((x for x in rows if x["id"] == rid_given), None)
            if hit is None:
                raise StateError(f"there is no record {rid_given} (records are 1..{head.last_id}; see campaign log)")
            if hit["action"] not in ("record", "fault"):
                raise StateError(f"record {rid_given} is an {hit['action']} entry; only recorded results and faults "
                                 "can be undone")
            if hit["undone_by"] is not None:
                raise StateError(f"record {rid_given} was already undone (by entry {hit['undone_by']})")
            return hit, rows

        def build(take: Callable[[], Any], facts: tuple[dict[str, Any], list[dict[str, Any]]]
                  ) -> tuple[dict[str, Any], Any]:
            target, rows = facts
            row = {"action": "undo", "target": target["id"], "by": who, "note": note}
            if target["action"] == "fault":  # a fault never reached the engine
                return row, None
            return row, self._replay(replayed([x for x in rows if x["id"] != target["id"]]))

        def answer(conn: sqlite3.Connection, row: dict[str, Any]) -> Record:
            return self._as_record(self._store.entry(conn, row["target"]))

        return self._write(build, gather, {"verb": "undo", "record_id": rid_given, "by": who, "note": note},
                           idempotency_key,
                           after=lambda conn, row: self._store.mark_undone(conn, row["target"], row["id"]),
                           answer=answer)

    @validated("Campaign.unblind")
    def unblind(self, *, by: str | None = None, note: str | None = None,
                idempotency_key: str | None = None) -> Record | None:
        """Reveal the policy names of a blind campaign, for good: every view shows names from now on. Writes an
        ``unblind`` entry (who, when) to the audit trail; None if the campaign is not blind or already unblinded."""
        if not self.blind:
            return None
        who = _operator(by)
        note = _check_note(note)

        def gather(conn: sqlite3.Connection, head: Head) -> bool:
            return self._store.revealed(conn)

        def build(take: Callable[[], Any], revealed: bool) -> tuple[dict[str, Any], Any]:
            if revealed:
                raise _AlreadyDone
            return {"action": "unblind", "by": who, "note": note}, None

        if self.unblinded and idempotency_key is None:
            return None
        try:
            rec = self._write(build, gather, {"verb": "unblind", "by": who, "note": note}, idempotency_key)
        except _AlreadyDone:
            self._revealed = True
            return None
        self._revealed = True
        return rec

    @validated("Campaign.amend")
    def amend(self, changes: Mapping[str, Any] | None = None, *, reason: str, design: Any = None,
              by: str | None = None, idempotency_key: str | None = None, **settings: Any) -> Record:
        """Amend the design, logged in the audit chain with ``reason`` (required). Only changes that keep the
        guarantee are accepted: ``n_max`` (grow the budget, unless the exact budget test was declared final),
        ``environments`` (add; from the next block on), ``seed`` (re-draw the block orders, from the next block
        on), ``tags`` (add), ``open_tags``, ``checklist``, ``launch``, ``checkpoints``. α, the scale, the
        estimand, the policies and the tests' settings are refused with the reason, and nothing is written.

        Give the changes as keywords (``amend(n_max=400, reason=...)``), as a mapping, or as a ``design`` file
        (design.toml): its settings are compared with the design in force and every difference is amended.
        Returns the ``amend`` entry (its ``changes``: each setting's ``from`` and ``to``)."""
        from ._amend import amend
        return amend(self, {**(changes or {}), **settings}, reason=reason, design=design, by=by,
                     idempotency_key=idempotency_key)

    @validated("Campaign.plan")
    def plan(self, count: int = 2) -> Plan:
        """The schedule from the block of the first rollout still needed: ``count`` balanced blocks, each trial
        with its environment, its policies in the order to run them, and which are recorded, faulted or needed.
        Refused for a campaign without environments (nothing to schedule)."""
        from ._status import plan
        return plan(self, count)

    @validated("Campaign.launch_command")
    def launch_command(self, policy: str, trial: int | None = None) -> list[str]:
        """The command (argv) that starts ``policy`` (a name, or a code while blind) for ``trial``: the launch
        template with its checkpoint filled in. It holds the checkpoint path, so a blind operator runs it through
        ``certirank campaign launch`` (which does not print it) rather than reading it."""
        from ._rollouts import launch_command
        return launch_command(self, policy, trial)

    # ------------------------------------------------------------------------------------------ reading
    @validated("Campaign.status")
    def status(self, *, unblind: bool = False, by: str | None = None) -> CampaignStatus:
        """The certified ranking now, rollouts and faults per policy, each open pair's verdict, whether every pair
        is decided, and the remaining budget.

        In blind mode names are replaced by codes unless ``unblind=True``, which reveals them and writes an
        ``unblind`` entry (who, when) to the audit trail.
        """
        from ._status import status
        if unblind:
            self.unblind(by=by)
        return status(self)

    def result(self) -> Any:
        """The engine's own result (names, never codes): what ``status`` shows, for programs."""
        with self._store.read() as conn:
            return self._current(conn).result()

    def log(self) -> AuditLog:
        """The audit trail: every record, fault, note, undo, unblinding and amendment, in order, with who and when
        (the hash chain is verified as it is read: an edited entry is refused, naming it)."""
        with self._store.read() as conn:
            self._sync(conn)
            rows = self._checked_rows(conn)
        meta = self._store.meta
        return AuditLog(path=str(self.path), created_at=meta["created_at"], created_by=meta.get("created_by") or None,
                        config_sha256=self.config_sha256, entries=[self._as_record(r) for r in rows])

    @validated("Campaign.records")
    def records(self, *, live_only: bool = True) -> list[Record]:
        """Recorded results (default: those not undone), in recording order."""
        return [r for r in self.log().entries if r.action == "record" and (r.live or not live_only)]

    # ------------------------------------------------------------------------------------------ export
    @validated("Campaign.export")
    def export(self, out: str | os.PathLike[str], *, unblind: bool = False, by: str | None = None) -> ExportResult:
        """Write the long table of live records (CSV or Parquet, atomically); see :func:`._export.export`.

        AnyRank: ``policy, trial, score, environment, block, tags, faults, by, note, recorded_at, record_id`` sorted
        by trial then policy, so that ``certirank rank OUT`` replays it in trial order (``rank_command`` is the
        exact command line with this campaign's settings). Leaderboard: ``model, item, replicate, score``. In
        blind mode the policies are written as codes unless ``unblind=True`` (which unblinds the campaign, logged
        as ``by``, see :meth:`unblind`).
        """
        from ._export import export
        return export(self, out, unblind=unblind, by=by)

    @validated("Campaign.verify")
    def verify(self, *, anchor: str | None = None) -> VerifyReport:
        """Check the file end to end: SQLite integrity, the configuration lock, the hash chain, the undo marks,
        that the checkpoint is the log's head, and that replaying the live records (and amendments) on a fresh
        engine gives exactly the checkpointed state.

        ``anchor``: a head hash (or its first 12+ hex digits) kept outside the file, e.g. from an earlier
        ``status``: the log must still contain it. Nothing inside one file can tell it from an older copy of
        itself; an anchor kept elsewhere can."""
        from ._verify import verify
        if anchor is not None:
            text = anchor.strip().lower() if isinstance(anchor, str) else ""
            if not (12 <= len(text) <= 64 and all(c in "0123456789abcdef" for c in text)):
                raise ParameterError(f"anchor must be a head hash (12 to 64 hex digits, as `campaign status` prints "
                                     f"it), got {anchor!r}")
            anchor = text
        return verify(self, anchor=anchor)


class _AlreadyDone(Exception):
    """Another process unblinded the campaign first: nothing to write."""


class KeyReused(StateError):
    """An idempotency key sent again with another request: nothing was written (HTTP 422 on the page)."""


class _Replayed(Exception):
    """The idempotency key was stored by another writer while this one waited for the lock."""

    def __init__(self, hit: tuple[str, int, str]) -> None:
        super().__init__("replayed")
        self.hit = hit


def _replayed(key: str, hit: tuple[str, int, str], fingerprint: str) -> Record:
    stored, entry, answer = hit
    if stored != fingerprint:
        raise KeyReused(f"Idempotency-Key {key!r} was already used for another request (entry {entry}); nothing "
                         "was written: send a new key with a new request")
    return Record(**json.loads(answer))


def _fingerprint(request: Mapping[str, Any]) -> str:
    return _sha(json.dumps(request, sort_keys=True, separators=(",", ":"), default=str))


def _live_change(store: _Store, conn: sqlite3.Connection, row: Mapping[str, Any]) -> int:
    """How an entry changes the number of live records: +1 for a record, -1 for the undo of one."""
    if row["action"] == "record":
        return 1
    if row["action"] == "undo" and store.action_of(conn, row["target"]) == "record":
        return -1
    return 0


def _check_path(path: Any) -> Path:
    if path is None or not isinstance(path, (str, os.PathLike)):
        raise ParameterError(f"the campaign path must be a file name, got {path!r}")
    if "\0" in os.fspath(path):
        raise ParameterError(f"the campaign path {os.fspath(path)!r} contains a NUL character")
    return Path(path)
