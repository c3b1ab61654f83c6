"""`Campaign`: a live evaluation campaign in one SQLite file ("what do I run next, record it, can I stop?").

Design
------
* The ``records`` table is the source of truth: an append-only, hash-chained event log (records, undos,
  unblinding). Nothing is deleted; an undo is a new row that marks its target undone.
* The engine's derived state is checkpointed in the same transaction as every write, so opening a campaign
  reads one row (no replay) and a crash leaves either the old or the new (record, checkpoint) pair.
* Writers take the database lock first (``BEGIN IMMEDIATE``), then reload the checkpoint if another process
  wrote since, then check, apply and commit: two operators recording at once are serialised, never merged.
* ``verify`` replays the live records on a fresh engine and compares the result with the checkpoint field by
  field, recomputes the hash chain, and runs ``PRAGMA integrity_check``.

The configuration (policies, alpha, method, prior, budget, ..., blind codes) is locked at ``init``: it is
stored with its SHA-256, which also starts the hash chain, and a campaign whose configuration no longer
matches its checksum is refused.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__
from ..errors import CertirankError, DataError, ParameterError, StateError
from . import _schema
from ._audit import _AuditTrail
from ._create import FORMAT, _Creation
from ._engines import engine_class
from ._util import _HASHED, _check_note, _check_trial, _now, _operator, _row_hash, _sha
from ._views import relabel, remaining
from .results import CampaignStatus, ExportResult, Record, Suggestion, VerifyReport

__all__ = ["FORMAT", "Campaign"]



class Campaign(_Creation, _AuditTrail):
    """A live AnyRank (or BB-EDGE leaderboard) campaign stored in one SQLite file.

    Create one with :meth:`init`, reopen it anywhere with :meth:`open` (or ``Campaign(path)``). Every method
    either returns a result object (``to_dict()``) or raises a :class:`certirank.CertirankError` subclass with
    a one-line reason, leaving the file unchanged. Safe to use from several processes at once. Creation
    (``_create.py``) and the audit-trail readers (``_audit.py``) are mixins; the writes stay here, next to
    the transactions they depend on.

    Examples
    --------
    >>> c = Campaign.init("lab.campaign", ["A", "B", "C"], alpha=0.1)   # doctest: +SKIP
    >>> for s in c.next():                                              # doctest: +SKIP
    ...     c.record(s.policy, s.trial, run_on_robot(s.policy, s.environment))
    >>> c.status().ranking.sentences()                                  # doctest: +SKIP
    """

    # ------------------------------------------------------------------------------------------ opening
    def __init__(self, path: str | os.PathLike[str], *, _check_config: bool = True) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise ParameterError(f"no campaign file {self.path} (create it with `certirank campaign init`)")
        try:
            self._conn = _schema.connect(str(self.path))
            head = self._conn.execute("PRAGMA application_id").fetchone()[0]
            version = self._conn.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            raise ParameterError(f"{self.path} is not a campaign file ({exc})") from None
        if head != _schema.APPLICATION_ID:
            self._conn.close()
            raise ParameterError(f"{self.path} is an SQLite file but not a certirank campaign")
        if version != _schema.SCHEMA_VERSION:
            self._conn.close()
            raise StateError(f"{self.path} has campaign schema version {version}; this certirank (version "
                             f"{__version__}) reads version {_schema.SCHEMA_VERSION}")
        try:
            meta = dict(self._conn.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            raise StateError(f"{self.path}: cannot read the campaign's meta table ({exc}); the file is damaged")
        lacking = [k for k in ("config", "config_sha256", "created_at") if not isinstance(meta.get(k), str)]
        if lacking:
            self._conn.close()
            raise StateError(f"{self.path}: the meta table has no {', '.join(lacking)}; the file is damaged or was "
                             "edited by hand")
        self._meta = meta
        # verify opens with _check_config=False, so that a changed configuration is one of its failed checks
        if _check_config and _sha(meta["config"]) != meta["config_sha256"]:
            self._conn.close()
            raise StateError(f"{self.path}: the configuration does not match its checksum (config_sha256); it was "
                             "changed after init, so this campaign's guarantee no longer holds")
        try:
            self.config: dict[str, Any] = json.loads(meta["config"])
            self.kind: str = self.config["kind"]
            self._engine_cls = engine_class(self.kind)
        except (ValueError, KeyError, TypeError, CertirankError):
            self._conn.close()
            raise StateError(f"{self.path}: the stored configuration is not a campaign configuration; the file is "
                             "damaged or was edited by hand") from None
        self.config_sha256: str = meta["config_sha256"]
        self._engine: Any = None
        self._engine_id = -1
        codes = self.config.get("codes") or {}
        self._code_of: dict[str, str] = dict(codes)
        self._name_of: dict[str, str] = {c: n for n, c in codes.items()}
        self._revealed = False

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> Campaign:
        """Open an existing campaign file (O(1) in its history: one checkpoint read)."""
        return cls(path)

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> Campaign:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Campaign({str(self.path)!r}, kind={self.kind!r})"

    # ------------------------------------------------------------------------------------------ properties
    @property
    def blind(self) -> bool:
        """True if created with blind codes (see :attr:`unblinded` for whether names are now shown)."""
        return bool(self.config.get("blind"))

    @property
    def unblinded(self) -> bool:
        """True once a blind campaign has been unblinded (permanent, and logged in the audit trail)."""
        if self.blind and not self._revealed and not self._conn.in_transaction:
            with self._read() as conn:
                self._current(conn)
        return self._revealed

    @property
    def policies(self) -> list[str]:
        """The policies (or models) as the operator sees them: blind codes in blind mode."""
        names = self._names()
        if self.blind and not self.unblinded:
            # sorted, because the configured order would tell which code is which policy
            return sorted(self._code_of[n] for n in names)
        return names

    def _names(self) -> list[str]:
        eng = self.config["engine"]
        return list(eng["ranker"]["policies"] if self.kind == "anyrank" else eng["models"])

    def _shown(self, name: str | None, unblind: bool = False) -> str | None:
        if name is None or not self.blind or unblind or self._revealed:
            return name
        return self._code_of.get(name, name)

    # ------------------------------------------------------------------------------------------ transactions
    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        try:
            self._conn.execute("BEGIN")
            yield self._conn
        except sqlite3.DatabaseError as exc:  # a table dropped or damaged by hand: one line, not a traceback
            raise StateError(f"{self.path}: cannot read the campaign ({exc}); run `certirank campaign verify`"
                             ) from None
        finally:
            if self._conn.in_transaction:
                self._conn.execute("COMMIT")

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        try:
            self._conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise StateError(f"{self.path}: could not lock the campaign for writing ({exc})") from None
        try:
            yield self._conn
            self._conn.execute("COMMIT")
        except BaseException as exc:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            # the in-memory engine may hold the change that was just rolled back: reload it next time
            self._engine, self._engine_id = None, -1
            if isinstance(exc, sqlite3.DatabaseError):  # disk full, read-only file, lock timeout, ...
                raise StateError(f"{self.path}: the write was not saved ({exc}); nothing changed") from None
            raise

    def _current(self, conn: sqlite3.Connection) -> Any:
        """The engine at the checkpoint (cached while no other process wrote)."""
        last_id = conn.execute("SELECT last_id FROM checkpoint").fetchone()[0]
        if self._engine is None or last_id != self._engine_id:
            state, digest = conn.execute("SELECT state, state_sha256 FROM checkpoint").fetchone()
            if _sha(state) != digest:
                raise StateError(f"{self.path}: the engine checkpoint does not match its checksum; run "
                                 "`certirank campaign verify` to see what changed")
            self._engine = self._engine_cls.restore(bytes(state))
            self._engine_id = last_id
            if self.blind and not self._revealed:
                self._revealed = conn.execute("SELECT 1 FROM records WHERE action = 'unblind' LIMIT 1"
                                              ).fetchone() is not None
        return self._engine

    def _append(self, conn: sqlite3.Connection, row: dict[str, Any]) -> dict[str, Any]:
        prev = conn.execute("SELECT id, hash FROM records ORDER BY id DESC LIMIT 1").fetchone()
        row = {"id": 1 if prev is None else prev[0] + 1, "policy": None, "trial": None, "score": None,
               "raw_score": None, "payload": None, "target": None, "by": None, "note": None, "ahead": 0,
               "at": _now(), **row}
        row["prev_hash"] = self.config_sha256 if prev is None else prev[1]
        row["hash"] = _row_hash(row["prev_hash"], row)
        cols = [*_HASHED, "prev_hash", "hash"]
        conn.execute(f"INSERT INTO records ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                     [row[c] for c in cols])
        return row

    def _save_checkpoint(self, conn: sqlite3.Connection, engine: Any, row: Mapping[str, Any]) -> None:
        blob = engine.checkpoint()
        # kept as a running count (not a scan of the log), so that a write costs the same at any history length
        live = conn.execute("SELECT live_records FROM checkpoint").fetchone()[0]
        live += {"record": 1, "undo": -1}.get(row["action"], 0)
        conn.execute("UPDATE checkpoint SET last_id = ?, head_hash = ?, live_records = ?, engine = ?, state = ?, "
                     "state_sha256 = ?, at = ? WHERE id = 1",
                     (row["id"], row["hash"], live, engine.fmt, blob, _sha(blob), row["at"]))
        self._engine, self._engine_id = engine, row["id"]

    # ------------------------------------------------------------------------------------------ next / record
    def _resolve(self, policy: Any) -> str:
        text = str(policy).strip()
        names = self._names()
        if text in self._name_of:
            return self._name_of[text]
        # while blind, a name is refused like any unknown word: accepting it would print its code back
        if text in names and not (self.blind and not self.unblinded):
            return text
        shown = ", ".join(self.policies)
        what = "policy or code" if self.blind else ("policy" if self.kind == "anyrank" else "model")
        raise ParameterError(f"unknown {what} {policy!r}; this campaign's {'codes' if self.blind else 'names'} "
                             f"are: {shown}")

    def next(self, count: int | None = None, *, remember: bool = True) -> list[Suggestion]:
        """The rollouts to run next: (policy or code, trial index, environment), at most ``count``.

        Only the current iteration is known in advance (what comes after depends on its outcomes), so fewer
        than ``count`` may be returned. Suggestions are remembered: a rollout handed out here is accepted by
        :meth:`record` even if other results have since moved the engine on. Empty when the campaign is done.
        ``remember=False`` only looks (the file is not written): for viewers that cannot record anyway, e.g. a
        read-only page, which must work on a file it may not write.
        """
        if count is not None and (isinstance(count, bool) or not isinstance(count, (int, np.integer))
                                  or count < 1):
            raise ParameterError(f"count must be a positive integer, got {count!r}")
        if self.kind == "leaderboard":
            with self._read() as conn:
                return [Suggestion(policy=None, trial=self._next_replicate(conn), kind="replicate")]
        with (self._write() if remember else self._read()) as conn:
            eng = self._current(conn)
            need = eng.needed()
            if self.blind:  # policy order would leak which code is which
                need = sorted(need, key=lambda e: (e[1], self._code_of[e[0]]))
            if count is not None:
                need = need[:int(count)]
            if remember:
                conn.executemany("INSERT OR IGNORE INTO suggested (policy, trial, at) VALUES (?, ?, ?)",
                                 [(p, int(r), _now()) for p, r in need])
            return [Suggestion(policy=self._shown(p), trial=int(r), environment=eng.environment(r)) for p, r in need]

    def record(self, policy: str, trial: int, score: float | None, *, by: str | None = None,
               note: str | None = None, ahead: bool = False) -> Record:
        """Record one rollout in one transaction and return its audit row.

        ``score`` in [0, 1] (or in the declared ``score_range``); ``None`` for a run that could not be
        performed (the comparison then skips that trial). Refused (exception, file unchanged): an unknown
        policy or code, a score outside the range, a trial already recorded for that policy, a trial that was
        not suggested (unless ``ahead=True``), a finished campaign.
        """
        if self.kind != "anyrank":
            raise StateError("a leaderboard campaign records whole runs: use add_run (campaign add-run DB FILE)")
        name = self._resolve(policy)
        r = _check_trial(trial)
        raw, value = self._check_score(score)
        who = _operator(by)
        note = _check_note(note)
        with self._write() as conn:
            eng = self._current(conn)
            if r > eng.trial_limit():
                raise ParameterError(f"trial {r} is far beyond the budget (n_max = {eng.n_max}); trial indices are "
                                     f"environment numbers 0, 1, 2, ... (at most {eng.trial_limit()})")
            old = conn.execute("SELECT id, score, by, at FROM records WHERE action = 'record' AND policy = ? AND "
                               "trial = ? AND undone_by IS NULL", (name, r)).fetchone()
            if old is not None:
                sc = "missing" if old[1] is None else f"{old[1]:g}"
                raise StateError(f"{self._shown(name)} trial {r} is already recorded (record {old[0]}, score {sc}, by "
                                 f"{old[2] or '?'} at {old[3]}); to correct it, undo record {old[0]} first")
            if eng.done:
                res = eng.result()
                raise StateError(f"the campaign is finished ({res.termination}); nothing more is recorded. See "
                                 "`campaign status`")
            if not ahead:
                need = eng.needed()
                if (name, r) not in need and conn.execute("SELECT 1 FROM suggested WHERE policy = ? AND trial = ?",
                                                          (name, r)).fetchone() is None:
                    listed = [(t, self._shown(p)) for p, t in need]
                    if self.blind:  # in code order, as `next` lists them: the engine's order would tell
                        listed.sort()
                    shown = ", ".join(f"{p} {t}" for t, p in listed[:6]) or "nothing"
                    raise StateError(f"{self._shown(name)} trial {r} was not suggested; the campaign needs: {shown}. "
                                     "Record it with --ahead (ahead=True) if it was run in advance on purpose")
            row = {"action": "record", "policy": name, "trial": r, "score": value, "raw_score": raw, "by": who,
                   "note": note, "ahead": int(bool(ahead))}
            eng.apply(row)
            row = self._append(conn, row)
            conn.execute("DELETE FROM suggested WHERE policy = ? AND trial = ?", (name, r))
            self._save_checkpoint(conn, eng, row)
        return self._as_record(row, env=eng.environment(r))

    def add_run(self, panel: Any, *, replicate: int | None = None, by: str | None = None,
                note: str | None = None) -> Record:
        """Record one complete replicate of a leaderboard campaign (a file or table: model, item, score)."""
        if self.kind != "leaderboard":
            raise StateError("add-run is for leaderboard campaigns; an AnyRank campaign records one rollout at a "
                             "time (campaign record DB POLICY TRIAL SCORE)")
        who = _operator(by)
        note = _check_note(note)
        source = str(panel) if isinstance(panel, (str, os.PathLike)) else "replicate panel"
        if isinstance(panel, (str, os.PathLike)) and not Path(panel).is_file():
            raise DataError("no such file", source=source)
        with self._write() as conn:
            eng = self._current(conn)
            payload = eng.canonical_panel(panel, source)
            if replicate is None:
                rid = self._next_replicate(conn)
            else:
                rid = _check_trial(replicate, "replicate")
                if rid < 1:
                    raise ParameterError("replicate must be 1 or more (replicates are numbered from 1, as `campaign "
                                         "next` shows)")
                old = conn.execute("SELECT id FROM records WHERE action = 'record' AND policy IS NULL AND trial = ? "
                                   "AND undone_by IS NULL", (rid,)).fetchone()
                if old is not None:
                    raise StateError(f"replicate {rid} is already recorded (record {old[0]}); undo it first to "
                                     "replace it")
            row = {"action": "record", "trial": rid, "payload": payload, "by": who, "note": note}
            eng.apply(row)
            row = self._append(conn, row)
            self._save_checkpoint(conn, eng, row)
        return self._as_record(row)

    @staticmethod
    def _next_replicate(conn: sqlite3.Connection) -> int:
        # one rule for `next` and add-run's default (they disagreed after an undo): after every number ever
        # recorded, so an undone replicate's number is reused only when asked for with --replicate
        top = conn.execute("SELECT max(trial) FROM records WHERE action = 'record'").fetchone()[0]
        return 1 if top is None else int(top) + 1

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
        engine is rebuilt from the remaining records exactly as if it had never been recorded."""
        who = _operator(by)
        note = _check_note(note)
        with self._write() as conn:
            if record_id is None:
                found = conn.execute("SELECT id FROM records WHERE action = 'record' AND undone_by IS NULL "
                                     "ORDER BY id DESC LIMIT 1").fetchone()
                if found is None:
                    raise StateError("nothing to undo: no live record")
                rid = int(found[0])
            else:
                rid = _check_trial(record_id, "record id")
                found = conn.execute("SELECT action, undone_by FROM records WHERE id = ?", (rid,)).fetchone()
                if found is None:
                    top = conn.execute("SELECT max(id) FROM records").fetchone()[0] or 0
                    raise StateError(f"there is no record {rid} (records are 1..{top}; see campaign log)")
                if found[0] != "record":
                    raise StateError(f"record {rid} is an {found[0]} entry; only recorded results can be undone")
                if found[1] is not None:
                    raise StateError(f"record {rid} was already undone (by entry {found[1]})")
            row = self._append(conn, {"action": "undo", "target": rid, "by": who, "note": note})
            conn.execute("UPDATE records SET undone_by = ? WHERE id = ?", (row["id"], rid))
            eng = self._replay(conn)
            self._save_checkpoint(conn, eng, row)
            target = self._fetch(conn, rid)
        return target

    def _replay(self, conn: sqlite3.Connection) -> Any:
        eng = self._engine_cls.fresh(self.config["engine"])
        cur = conn.execute("SELECT policy, trial, score, payload FROM records WHERE action = 'record' AND "
                           "undone_by IS NULL ORDER BY id")
        for policy, trial, score, payload in cur:
            eng.apply({"policy": policy, "trial": trial, "score": score, "payload": payload})
        return eng

    # ------------------------------------------------------------------------------------------ reading
    def status(self, *, unblind: bool = False, by: str | None = None) -> CampaignStatus:
        """The certified ranking now, rollouts per policy, whether every pair is decided, and the remaining budget.

        In blind mode names are replaced by codes unless ``unblind=True``, which reveals them and writes an
        ``unblind`` entry (who, when) to the audit trail.
        """
        if unblind:
            self.unblind(by=by)
        with self._read() as conn:
            eng = self._current(conn)
            show_names = self._revealed or not self.blind
            last_id, head = conn.execute("SELECT last_id, head_hash FROM checkpoint").fetchone()
            live = conn.execute("SELECT live_records FROM checkpoint").fetchone()[0]
            undone = conn.execute("SELECT count(*) FROM records WHERE action = 'undo'").fetchone()[0]
            res = eng.result()
        if self.kind == "anyrank":
            counts = eng.ranker.recorded()
            rollouts = {self._shown(p, show_names): int(counts[p]) for p in self._names()}
            complete = bool(res.complete)
            termination = None if not eng.done else res.termination
            left = remaining(res, eng.n_max)
        else:
            rollouts = {self._shown(p, show_names): int(eng.replicates) for p in self._names()}
            m = len(self._names())
            complete = len({tuple(sorted(e)) for e in res.edges}) == m * (m - 1) // 2 and not res.inconsistent
            termination, left = None, None
        shown = res if show_names else relabel(res, self._code_of)
        if not show_names:  # in code order: the configured order would tell which code is which policy
            rollouts = dict(sorted(rollouts.items()))
            if left is not None:
                left["per_policy"] = dict(sorted((self._code_of[p], v) for p, v in left["per_policy"].items()))
        return CampaignStatus(path=str(self.path), campaign=self.kind, blind=self.blind,
                              unblinded=bool(self.blind and show_names), ranking=shown.ranking, result=shown,
                              rollouts=rollouts, records=int(live), undone=int(undone), complete=complete,
                              done=bool(eng.done), termination=termination, remaining=left,
                              last_record_id=int(last_id), head_hash=head, config_sha256=self.config_sha256,
                              about=shown.ranking.about, order={"kind": "arrival"}, warnings=shown.warnings)

    def unblind(self, *, by: str | None = None, note: str | None = None) -> Record | None:
        """Reveal the policy names of a blind campaign, for good: every view shows names from now on. Writes an
        ``unblind`` entry (who, when) to the audit trail; None if the campaign is not blind or already unblinded."""
        if not self.blind:
            return None
        who = _operator(by)
        note = _check_note(note)
        with self._write() as conn:
            eng = self._current(conn)
            if self._revealed:
                return None
            row = self._append(conn, {"action": "unblind", "by": who, "note": note})
            self._save_checkpoint(conn, eng, row)
            self._revealed = True
        return self._as_record(row)

    def result(self) -> Any:
        """The engine's own result (names, never codes): what ``status`` shows, for programs."""
        with self._read() as conn:
            return self._current(conn).result()

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

    def verify(self) -> VerifyReport:
        """Check the file end to end: SQLite integrity, the configuration lock, the hash chain, the undo marks,
        and that replaying the live records on a fresh engine gives exactly the checkpointed state."""
        from ._verify import verify
        return verify(self)
