"""`Campaign`: a live evaluation campaign in one SQLite file ("what do I run next, record it, can I stop?").

Design
------
* The ``records`` table is the source of truth: an append-only, hash-chained event log (records, undos,
  unblinding). Nothing is deleted; an undo is a new row that marks its target undone.
* The engine's derived state is checkpointed in the same transaction as every write, so opening a campaign
  reads one row (no replay) and a crash leaves either the old or the new (record, checkpoint) pair.
* A write is computed outside the write lock, on a private copy of the engine at the head it read; the lock
  (``BEGIN IMMEDIATE``) is then held only to re-check that nobody wrote since and to append (milliseconds).
  If someone did, the write is computed again (after two tries, under the lock). Two operators recording at
  once are serialised, never merged, and a slow first engine restore never holds the lock.
* Every open checks in O(1) that the checkpoint is the log's head and the configuration starts the chain
  (:meth:`_Store.check_head`); verbs that read every row (``log``, ``export``, ``undo``) verify the whole chain
  as they read; ``verify`` also replays the live records and compares with the checkpoint.

Composition: a :class:`_Store` (the SQLite file), an engine adapter (``_engines``) and the operator's view of
names (:class:`_blind.Names`). The configuration (policies, alpha, method, prior, budget, ..., blind codes) is
locked at ``init``.
"""

from __future__ import annotations

import math
import os
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import CertirankError, DataError, ParameterError, StateError
from ._audit import as_record
from ._blind import Names
from ._create import FORMAT, create_file, make_config
from ._engines import engine_class
from ._store import Head, _Store
from ._util import _check_note, _check_trial, _operator, _sha
from ._views import relabel, remaining
from .results import AuditLog, CampaignStatus, ExportResult, Record, Suggestion, VerifyReport

__all__ = ["FORMAT", "Campaign"]

STATUS_SCHEMA = "certirank.campaign.status/1"
#: optimistic tries of a write (computed outside the lock) before it is computed under the lock
_TRIES = 2


class Campaign:
    """A live AnyRank (or BB-EDGE leaderboard) campaign stored in one SQLite file.

    Create one with :meth:`init`, reopen it anywhere with :meth:`open` (or ``Campaign(path)``). Every method
    either returns a result object (``to_dict()``) or raises a :class:`certirank.CertirankError` subclass with
    a one-line reason, leaving the file unchanged. Safe to use from several processes at once.

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
        except (KeyError, TypeError, CertirankError):
            self._store.close()
            raise StateError(f"{self.path}: the stored configuration is not a campaign configuration; the file is "
                             "damaged or was edited by hand") from None
        self.config_sha256: str = self._store.config_sha256
        self._engine: Any = None
        self._blob: bytes | None = None
        self._engine_id = -1
        self._locked: dict[str, Any] | None = None
        self._revealed = False
        if _check_config:  # tamper evidence on every open (O(1)); verify reports instead of refusing
            try:
                with self._store.read() as conn:
                    self._store.check_head(conn)
            except BaseException:
                self._store.close()
                raise

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> Campaign:
        """Open an existing campaign file (O(1) in its history: one checkpoint read)."""
        return cls(path)

    @classmethod
    def init(cls, path: str | os.PathLike[str], policies: Sequence[str] | None = None, *, kind: str = "anyrank",
             models: Sequence[str] | None = None, alpha: float = 0.05, method: str | None = None,
             prior: Any = None, gamma: float = 1.0, n_max: int | None = None, ties: str = "allow",
             guarantee: str = "paper", environments: Sequence[str] | None = None, seed: int | None = None,
             blind: bool = False, score_range: Sequence[float] | None = None, blocks: Any = None,
             tau: float = 0.0, top_k: int | None = None, by: str | None = None, **options: Any) -> Campaign:
        """Create the campaign file at ``path`` with its configuration locked (refused if ``path`` exists).

        ``kind="anyrank"`` (default): ``policies`` and the :class:`certirank.Ranker` settings (``n_max`` is the
        per-comparison budget, default 5000; ``environments`` + ``seed`` draw each trial's environment;
        ``score_range=(lo, hi)`` declares raw scores that are rescaled to [0, 1]; ``blind=True`` gives every
        policy a stable code shown instead of its name). ``kind="leaderboard"``: ``models`` (or ``policies``),
        ``alpha``, ``tau``, ``blocks`` ("items" or "replicate"), ``top_k``, ``method`` (BB-EDGE).
        """
        target = _check_path(path)
        config = make_config(policies, kind=kind, models=models, alpha=alpha, method=method, prior=prior,
                             gamma=gamma, n_max=n_max, ties=ties, guarantee=guarantee, environments=environments,
                             seed=seed, blind=blind, score_range=score_range, blocks=blocks, tau=tau, top_k=top_k,
                             options=options)
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

    def _shown(self, name: str | None, unblind: bool = False) -> str | None:
        return self._names.shown(name, unblind or self._revealed)

    def _resolve(self, policy: Any) -> str:
        return self._names.resolve(policy, self.unblinded)

    def _as_record(self, row: Mapping[str, Any], env: str | None = None) -> Record:
        return as_record(row, self._names, self._revealed, self.config["engine"].get("environment_draw"), env)

    # ------------------------------------------------------------------------------------------ the engine
    def _sync(self, conn: sqlite3.Connection) -> Head:
        """Bring the cached engine to the checkpoint in ``conn``'s view (restored only when someone wrote)."""
        head = self._store.check_head(conn) if self._checks else self._store.head(conn)
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
        """Append one entry. ``gather(conn, head)`` reads what the checks need; ``build(copy, facts)`` checks,
        applies the entry to an engine (``copy()`` gives a private copy of the one at the head) and returns
        ``(row, engine)``; ``after(conn, row)`` runs extra statements in the write transaction.

        The first tries run ``gather`` in a read transaction and ``build`` outside any lock; the lock is then taken
        only to re-check the head and append. If another writer moved the head meanwhile, it tries again, and
        the last try runs everything under the lock (the engine's modules are loaded by then: milliseconds).
        """
        for attempt in range(_TRIES + 1):
            locked = attempt == _TRIES
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
        if engine is None:  # an entry that changes no engine state (unblinding) keeps the checkpoint's
            engine, blob = self._engine, self._blob
            if engine is None:
                engine = self._engine_cls.restore(blob)
        elif blob is None:
            blob = engine.checkpoint()
        sha = _sha(blob)
        row = self._store.append(conn, row, state_sha256=sha)
        if after is not None:
            after(conn, row)
        # kept as a running count (not a scan of the log), so that a write costs the same at any history length
        live = head.live_records + {"record": 1, "undo": -1}.get(row["action"], 0)
        self._store.save_checkpoint(conn, row, engine.fmt, blob, live)
        self._engine, self._blob, self._engine_id = engine, blob, row["id"]
        return row

    # ------------------------------------------------------------------------------------------ next / record
    def next(self, count: int | None = None, *, remember: bool | None = None) -> list[Suggestion]:
        """The rollouts to run next: (policy or code, trial index, environment), at most ``count``.

        Only the current iteration is known in advance (what comes after depends on its outcomes), so fewer
        than ``count`` may be returned. ``remember=True`` (the default when this user may write the file) writes
        the suggestions down, so that a rollout handed out here is accepted by :meth:`record` even if other
        results have since moved the engine on; ``remember=False`` only looks (the file is not written: what a
        reader or the page is shown). Each
        suggestion carries ``shown_at``, the log entry it was computed at: pass it back to :meth:`record` to
        have a suggestion that was not remembered accepted after the campaign moved on. Empty when the
        campaign is done.
        """
        if count is not None and (isinstance(count, bool) or not isinstance(count, (int, np.integer))
                                  or count < 1):
            raise ParameterError(f"count must be a positive integer, got {count!r}")
        if remember is None:
            remember = self.writable
        if self.kind == "leaderboard":
            with self._store.read() as conn:
                head = self._sync(conn)
                return [Suggestion(policy=None, trial=self._store.next_replicate(conn), kind="replicate",
                                   shown_at=head.last_id)]
        with self._store.read() as conn:
            head = self._sync(conn)
            need = self._needed(count)
        if remember and need:
            with self._store.write() as conn:
                if self._store.head(conn).last_id != head.last_id:  # moved on: what is needed now
                    head = self._sync(conn)
                    need = self._needed(count)
                self._store.remember(conn, need)
        eng = self._engine
        return [Suggestion(policy=self._shown(p), trial=int(r), environment=eng.environment(r),
                           shown_at=head.last_id) for p, r in need]

    def _needed(self, count: int | None) -> list[tuple[str, int]]:
        need = self._engine.needed()
        if self.blind:  # policy order would leak which code is which
            need = sorted(need, key=lambda e: (e[1], self._names.code_of[e[0]]))
        return need if count is None else need[:int(count)]

    def record(self, policy: str, trial: int, score: float | None, *, by: str | None = None,
               note: str | None = None, ahead: bool = False, shown_at: int | None = None) -> Record:
        """Record one rollout in one transaction and return its audit row.

        ``score`` in [0, 1] (or in the declared ``score_range``); ``None`` for a run that could not be
        performed (the comparison then skips that trial). Refused (exception, file unchanged): an unknown
        policy or code, a score outside the range, a trial already recorded for that policy, a trial that was
        not suggested (unless ``ahead=True``, or it was shown by a :meth:`next` at entry ``shown_at`` and is not
        beyond the trials reached), a finished campaign.
        """
        if self.kind != "anyrank":
            raise StateError("a leaderboard campaign records whole runs: use add_run (campaign add-run DB FILE)")
        name = self._resolve(policy)
        r = _check_trial(trial)
        raw, value = self._check_score(score)
        who = _operator(by)
        note = _check_note(note)
        shown = None if shown_at is None else _check_trial(shown_at, "shown_at")

        def gather(conn: sqlite3.Connection, head: Head) -> dict[str, Any]:
            return {"old": self._store.live_rollout(conn, name, r), "head": head.last_id,
                    "remembered": self._store.is_suggested(conn, name, r),
                    "reached": None if shown is None else self._store.furthest_trial(conn)}

        def build(copy: Callable[[], Any], facts: dict[str, Any]) -> tuple[dict[str, Any], Any]:
            eng = self._engine
            if r > eng.trial_limit():
                raise ParameterError(f"trial {r} is far beyond the budget (n_max = {eng.n_max}); trial indices are "
                                     f"environment numbers 0, 1, 2, ... (at most {eng.trial_limit()})")
            old = facts["old"]
            if old is not None:
                sc = "missing" if old[1] is None else f"{old[1]:g}"
                raise StateError(f"{self._shown(name)} trial {r} is already recorded (record {old[0]}, score {sc}, by "
                                 f"{old[2] or '?'} at {old[3]}); to correct it, undo record {old[0]} first")
            if eng.done:
                raise StateError(f"the campaign is finished ({eng.result().termination}); nothing more is recorded. "
                                 "See `campaign status`")
            if not ahead and not facts["remembered"]:
                need = eng.needed()
                late = (shown is not None and shown < facts["head"]
                        and r <= max([facts["reached"], *(t for _, t in need)]))
                if (name, r) not in need and not late:
                    self._refuse_unsuggested(name, r, need)
            row = {"action": "record", "policy": name, "trial": r, "score": value, "raw_score": raw, "by": who,
                   "note": note, "ahead": int(bool(ahead))}
            engine = copy()
            engine.apply(row)
            return row, engine

        row = self._commit(gather, build, after=lambda conn, row: self._store.forget(conn, name, r))
        return self._as_record(row, env=self._engine.environment(r))

    def _refuse_unsuggested(self, name: str, r: int, need: list[tuple[str, int]]) -> None:
        listed = [(t, self._shown(p)) for p, t in need]
        if self.blind:  # in code order, as `next` lists them: the engine's order would tell
            listed.sort()
        shown = ", ".join(f"{p} {t}" for t, p in listed[:6]) or "nothing"
        raise StateError(f"{self._shown(name)} trial {r} was not suggested; the campaign needs: {shown}. "
                         "Record it with --ahead (ahead=True) if it was run in advance on purpose")

    def add_run(self, panel: Any, *, replicate: int | None = None, by: str | None = None,
                note: str | None = None) -> Record:
        """Record one complete replicate of a leaderboard campaign (a file or table: model, item, score)."""
        if self.kind != "leaderboard":
            raise StateError("add-run is for leaderboard campaigns; an AnyRank campaign records one rollout at a "
                             "time (campaign record DB POLICY TRIAL SCORE)")
        who = _operator(by)
        note = _check_note(note)
        rid_given = None if replicate is None else _check_trial(replicate, "replicate")
        if rid_given is not None and rid_given < 1:
            raise ParameterError("replicate must be 1 or more (replicates are numbered from 1, as `campaign next` "
                                 "shows)")
        source = str(panel) if isinstance(panel, (str, os.PathLike)) else "replicate panel"
        if isinstance(panel, (str, os.PathLike)) and not Path(panel).is_file():
            raise DataError("no such file", source=source)
        payloads: dict[int, str] = {}

        def gather(conn: sqlite3.Connection, head: Head) -> int:
            if rid_given is None:
                return self._store.next_replicate(conn)
            old = self._store.live_replicate(conn, rid_given)
            if old is not None:
                raise StateError(f"replicate {rid_given} is already recorded (record {old}); undo it first to "
                                 "replace it")
            return rid_given

        def build(copy: Callable[[], Any], rid: int) -> tuple[dict[str, Any], Any]:
            if self._engine_id not in payloads:  # read and checked once, outside the lock
                payloads[self._engine_id] = self._engine.canonical_panel(panel, source)
            row = {"action": "record", "trial": rid, "payload": payloads[self._engine_id], "by": who, "note": note}
            engine = copy()
            engine.apply(row)
            return row, engine

        return self._as_record(self._commit(gather, build))

    def _check_score(self, score: Any) -> tuple[float | None, float | None]:
        """(raw score as given, score in [0, 1] for the engine); None = the run could not be performed."""
        if score is None:
            return None, None
        given = score.strip() if isinstance(score, str) else repr(score)  # quoted back as the operator wrote it
        if isinstance(score, str):
            text = score.strip().lower()
            if text in ("none", "na", "nan", "missing", "-", ""):
                return None, None
            try:
                score = float(text)
            except ValueError:
                raise ParameterError(f"score must be a number (or 'missing' for a run that could not be performed), "
                                     f"got {score!r}") from None
        try:
            v = float(score)
        except (TypeError, ValueError):
            raise ParameterError(f"score must be a number, got {score!r}") from None
        if math.isnan(v):
            return None, None
        rng = self.config.get("score_range")
        lo, hi = (0.0, 1.0) if rng is None else rng
        if not lo <= v <= hi:
            raise ParameterError(f"score {given} is outside [{lo:g}, {hi:g}]"
                                 + ("" if rng is not None else " (declare another range with --score-range at init)"))
        if rng is None:
            return None, v
        return v, (v - lo) / (hi - lo)

    # ------------------------------------------------------------------------------------------ undo
    def undo(self, record_id: int | None = None, *, by: str | None = None, note: str | None = None) -> Record:
        """Mark a record undone (default: the latest live one). It is kept, with who undid it and when; the
        engine is rebuilt from the remaining records exactly as if it had never been recorded.

        The whole hash chain is verified as the records are read for the replay: an edited log is refused
        (naming the entry), never replayed into the checkpoint."""
        who = _operator(by)
        note = _check_note(note)
        rid_given = None if record_id is None else _check_trial(record_id, "record id")

        def gather(conn: sqlite3.Connection, head: Head) -> tuple[int, list[dict[str, Any]]]:
            rows = self._checked_rows(conn)  # chain and checkpoint checked: an edited log is never replayed
            if rid_given is None:
                found = self._store.latest_live(conn)
                if found is None:
                    raise StateError("nothing to undo: no live record")
                return found, rows
            hit = next((x for x in rows if x["id"] == rid_given), None)
            if hit is None:
                raise StateError(f"there is no record {rid_given} (records are 1..{head.last_id}; see campaign log)")
            if hit["action"] != "record":
                raise StateError(f"record {rid_given} is an {hit['action']} entry; only recorded results can be undone")
            if hit["undone_by"] is not None:
                raise StateError(f"record {rid_given} was already undone (by entry {hit['undone_by']})")
            return rid_given, rows

        def build(copy: Callable[[], Any], facts: tuple[int, list[dict[str, Any]]]) -> tuple[dict[str, Any], Any]:
            target, rows = facts
            engine = self._replay(x for x in rows if x["action"] == "record" and x["undone_by"] is None
                                  and x["id"] != target)
            return {"action": "undo", "target": target, "by": who, "note": note}, engine

        row = self._commit(gather, build, after=lambda conn, row: self._store.mark_undone(conn, row["target"],
                                                                                           row["id"]))
        with self._store.read() as conn:
            target = self._store.entry(conn, row["target"])
        return self._as_record(target)

    def _replay(self, rows: Any) -> Any:
        eng = self._engine_cls.fresh(self.config["engine"])
        for row in rows:
            eng.apply(row)
        return eng

    # ------------------------------------------------------------------------------------------ reading
    def status(self, *, unblind: bool = False, by: str | None = None) -> CampaignStatus:
        """The certified ranking now, rollouts per policy, whether every pair is decided, and the remaining budget.

        In blind mode names are replaced by codes unless ``unblind=True``, which reveals them and writes an
        ``unblind`` entry (who, when) to the audit trail.
        """
        if unblind:
            self.unblind(by=by)
        with self._store.read() as conn:
            head = self._sync(conn)
            eng = self._engine
            undone = self._store.undone_count(conn)
            res = eng.result()
        show_names = self._revealed or not self.blind
        names = self._names.names
        if self.kind == "anyrank":
            counts = eng.ranker.recorded()
            rollouts = {self._shown(p, show_names): int(counts[p]) for p in names}
            complete = bool(res.complete)
            termination = None if not eng.done else res.termination
            left = remaining(res, eng.n_max)
        else:
            rollouts = {self._shown(p, show_names): int(eng.replicates) for p in names}
            m = len(names)
            complete = len({tuple(sorted(e)) for e in res.edges}) == m * (m - 1) // 2 and not res.inconsistent
            termination, left = None, None
        ranking = res if show_names else relabel(res, self._names.code_of)
        if not show_names:  # in code order: the configured order would tell which code is which policy
            rollouts = dict(sorted(rollouts.items()))
            if left is not None:
                left["per_policy"] = dict(sorted((self._names.code_of[p], v) for p, v in left["per_policy"].items()))
        return CampaignStatus(path=str(self.path), kind=self.kind, schema=STATUS_SCHEMA, blind=self.blind,
                              unblinded=bool(self.blind and show_names), ranking=ranking, rollouts=rollouts,
                              records=head.live_records, undone=undone, complete=complete, done=bool(eng.done),
                              termination=termination, remaining=left, last_record_id=head.last_id,
                              head_hash=head.head_hash, config_sha256=self.config_sha256)

    def unblind(self, *, by: str | None = None, note: str | None = None) -> Record | None:
        """Reveal the policy names of a blind campaign, for good: every view shows names from now on. Writes an
        ``unblind`` entry (who, when) to the audit trail; None if the campaign is not blind or already unblinded."""
        if not self.blind or self.unblinded:
            return None
        who = _operator(by)
        note = _check_note(note)

        def gather(conn: sqlite3.Connection, head: Head) -> bool:
            return self._store.revealed(conn)

        def build(copy: Callable[[], Any], revealed: bool) -> tuple[dict[str, Any], Any]:
            if revealed:
                raise _AlreadyDone
            return {"action": "unblind", "by": who, "note": note}, None

        try:
            row = self._commit(gather, build)
        except _AlreadyDone:
            self._revealed = True
            return None
        self._revealed = True
        return self._as_record(row)

    def result(self) -> Any:
        """The engine's own result (names, never codes): what ``status`` shows, for programs."""
        with self._store.read() as conn:
            return self._current(conn).result()

    def log(self) -> AuditLog:
        """The audit trail: every record, undo and unblinding, in order, with who and when (the hash chain is
        verified as it is read: an edited entry is refused, naming it)."""
        with self._store.read() as conn:
            self._sync(conn)
            rows = self._checked_rows(conn)
        meta = self._store.meta
        return AuditLog(path=str(self.path), created_at=meta["created_at"], created_by=meta.get("created_by") or None,
                        config_sha256=self.config_sha256, entries=[self._as_record(r) for r in rows])

    def records(self, *, live_only: bool = True) -> list[Record]:
        """Recorded results (default: those not undone), in recording order."""
        return [r for r in self.log().entries if r.action == "record" and (r.live or not live_only)]

    # ------------------------------------------------------------------------------------------ export
    def export(self, out: str | os.PathLike[str], *, unblind: bool = False, by: str | None = None) -> ExportResult:
        """Write the long table of live records (CSV or Parquet, atomically); see :func:`._export.export`.

        AnyRank: ``policy, trial, score, environment, by, note, recorded_at, record_id`` sorted by trial then
        policy, so that ``certirank rank OUT`` replays it in trial order (``rank_command`` is the exact command
        line with this campaign's settings). Leaderboard: ``model, item, replicate, score``. In blind mode the
        policies are written as codes unless ``unblind=True`` (which unblinds the campaign, logged as ``by``, see
        :meth:`unblind`).
        """
        from ._export import export
        return export(self, out, unblind=unblind, by=by)

    def verify(self, *, anchor: str | None = None) -> VerifyReport:
        """Check the file end to end: SQLite integrity, the configuration lock, the hash chain, the undo marks,
        that the checkpoint is the log's head, and that replaying the live records on a fresh engine gives exactly
        the checkpointed state.

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


def _check_path(path: Any) -> Path:
    if path is None or not isinstance(path, (str, os.PathLike)):
        raise ParameterError(f"the campaign path must be a file name, got {path!r}")
    if "\0" in os.fspath(path):
        raise ParameterError(f"the campaign path {os.fspath(path)!r} contains a NUL character")
    return Path(path)
