"""`_Store`: the campaign file as an object — its SQLite connection, transactions, the hash-chained log and
the checkpoint row. It knows nothing of engines (a checkpoint is bytes) nor of blind codes (names are stored).

Writers hold the write lock only to re-check the head and append (see :meth:`Campaign._commit`); readers never
block them (WAL). Every open runs :meth:`check_head`, a constant number of indexed queries that catch what a
hand edit of the file most often leaves behind: a configuration or checkpoint that no longer matches the log's
head, a deleted or inserted entry, an edited undo mark or live count.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import __version__
from ..errors import ParameterError, StateError
from . import _schema
from ._chain import COLUMNS, HASHED, chain_problems, mark_problems, row_hash
from ._util import _now, _sha

__all__ = ["Head", "_Store"]

#: optimistic tries of a write (computed outside the lock) before it is computed under the lock
TRIES = 2

_LIVE = "action = 'record' AND undone_by IS NULL"


@dataclass(frozen=True)
class Head:
    """The checkpoint row without its state: where the log ends and how many records are live."""

    last_id: int
    head_hash: str
    live_records: int
    state_sha256: str


class _Store:
    """One open campaign file. Raises :class:`ParameterError` / :class:`StateError` with a one-line reason for a
    file that is not a campaign, a schema this version cannot read, or a meta table edited by hand."""

    def __init__(self, path: str | os.PathLike[str], *, check_config: bool = True) -> None:
        if path is None or not isinstance(path, (str, os.PathLike)):
            raise ParameterError(f"the campaign path must be a file name, got {path!r}")
        self.path = Path(path)
        if "\0" in str(self.path):
            raise ParameterError(f"the campaign path {str(self.path)!r} contains a NUL character")
        if not self.path.is_file():
            raise ParameterError(f"no campaign file {self.path} (create it with `certirank campaign init`)")
        try:
            self._conn, self.writable = _schema.connect_for(self.path)
            app_id = self._conn.execute("PRAGMA application_id").fetchone()[0]
            self.version = self._conn.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            raise ParameterError(f"{self.path} is not a campaign file ({exc})") from None
        try:
            self._check_header(app_id)
            meta = self._read_meta()
        except BaseException:
            self._conn.close()
            raise
        self.meta = meta
        self.config_text: str = meta["config"]
        self.config_sha256: str = meta["config_sha256"]
        # verify opens with check_config=False, so that a changed configuration is one of its failed checks
        if check_config and _sha(self.config_text) != self.config_sha256:
            self._conn.close()
            raise StateError(f"{self.path}: the configuration does not match its checksum (config_sha256); it was "
                             "changed after init, so this campaign's guarantee no longer holds")

    def _check_header(self, app_id: int) -> None:
        if app_id != _schema.APPLICATION_ID:
            raise ParameterError(f"{self.path} is an SQLite file but not a certirank campaign")
        if self.version not in _schema.READABLE_VERSIONS:
            raise StateError(f"{self.path} has campaign schema version {self.version}; this certirank (version "
                             f"{__version__}) reads versions {', '.join(map(str, _schema.READABLE_VERSIONS))}")

    def _read_meta(self) -> dict[str, str]:
        try:
            meta = dict(self._conn.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError as exc:
            raise StateError(f"{self.path}: cannot read the campaign's meta table ({exc}); the file is damaged"
                             ) from None
        lacking = [k for k in ("config", "config_sha256", "created_at") if not isinstance(meta.get(k), str)]
        if lacking:
            raise StateError(f"{self.path}: the meta table has no {', '.join(lacking)}; the file is damaged or was "
                             "edited by hand")
        return meta

    def config(self) -> dict[str, Any]:
        try:
            config = json.loads(self.config_text)
        except ValueError:
            config = None
        if not isinstance(config, dict) or not isinstance(config.get("engine"), dict):
            raise StateError(f"{self.path}: the stored configuration is not a campaign configuration; the file is "
                             "damaged or was edited by hand")
        return config

    def close(self) -> None:
        self._conn.close()

    # ------------------------------------------------------------------------------------------ transactions
    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: one consistent view of the file, never blocking a writer."""
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
    def write(self) -> Iterator[sqlite3.Connection]:
        """The write lock (``BEGIN IMMEDIATE``): held only to re-check the head and append."""
        if not self.writable:
            raise StateError(f"{self.path}: this user may not write the campaign file or its folder; it is open "
                             "read-only (status, log, export and verify work)")
        try:
            self._conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise StateError(f"{self.path}: could not lock the campaign for writing ({exc})") from None
        try:
            if self.version != _schema.SCHEMA_VERSION:
                _schema.migrate(self._conn, self.version)
            yield self._conn
            self._conn.execute("COMMIT")
            self.version = _schema.SCHEMA_VERSION
        except BaseException as exc:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.DatabaseError):  # disk full, read-only file, lock timeout, ...
                raise StateError(f"{self.path}: the write was not saved ({exc}); nothing changed") from None
            raise

    # ------------------------------------------------------------------------------------------ head and checkpoint
    def head(self, conn: sqlite3.Connection) -> Head:
        row = conn.execute("SELECT last_id, head_hash, live_records, state_sha256 FROM checkpoint WHERE id = 1"
                           ).fetchone()
        if row is None:
            raise StateError(f"{self.path}: the checkpoint row is missing; the file was edited by hand or damaged "
                             "(run `certirank campaign verify`)")
        return Head(int(row[0]), str(row[1]), int(row[2]), str(row[3]))

    def state(self, conn: sqlite3.Connection) -> bytes:
        """The checkpointed engine state, its checksum checked."""
        blob, digest = conn.execute("SELECT state, state_sha256 FROM checkpoint WHERE id = 1").fetchone()
        blob = bytes(blob)
        if _sha(blob) != digest:
            raise StateError(f"{self.path}: the engine checkpoint does not match its checksum; run "
                             "`certirank campaign verify` to see what changed")
        return blob

    def check_head(self, conn: sqlite3.Connection) -> Head:
        """The O(1) tamper check of every open: the checkpoint is the log's head, the head row matches its hash
        and seals the checkpoint, the first row is chained to the configuration, ids have no gaps and the live
        count is the checkpoint's. Raises :class:`StateError` naming what was edited."""
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        missing = [t for t in _schema.TABLES if t not in tables]
        if missing:
            raise self._edited(f"table {', '.join(missing)} is missing")
        head = self.head(conn)
        last = self._row(conn, "ORDER BY r.id DESC LIMIT 1")
        if last is None:
            if head.last_id != 0 or head.head_hash != self.config_sha256:
                raise self._edited(f"the log is empty but the checkpoint is at entry {head.last_id}: entries were "
                                   "deleted")
        else:
            first = conn.execute("SELECT id, prev_hash FROM records ORDER BY id LIMIT 1").fetchone()
            if first[0] != 1:
                raise self._edited("entry 1 was deleted" if first[0] == 2 else f"entries 1-{first[0] - 1} were deleted")
            if first[1] != self.config_sha256:
                raise self._edited("the first entry is not chained to the configuration (config_sha256): the "
                                   "configuration or the log was changed")
            if last["id"] != head.last_id:
                what = (f"the last entries were deleted (the log ends at entry {last['id']}, the checkpoint is at "
                        f"entry {head.last_id})" if last["id"] < head.last_id else
                        f"the checkpoint is at entry {head.last_id} but the log goes on to entry {last['id']}: "
                        "entries were added by hand or the checkpoint was replaced by an older one")
                raise self._edited(what)
            if row_hash(last["prev_hash"], last) != last["hash"]:
                raise self._edited(f"entry {last['id']}: content does not match its hash (edited after it was "
                                   "written)")
            if last["hash"] != head.head_hash:
                raise self._edited(f"the checkpoint's head hash is not entry {last['id']}'s hash: the checkpoint "
                                   "was replaced or edited")
            count = conn.execute("SELECT count(*) FROM records").fetchone()[0]
            if count != last["id"]:
                raise self._edited(f"the log holds {count} entries for ids 1..{last['id']}: entries were deleted "
                                   "or inserted")
            if last["state_sha256"] is not None and last["state_sha256"] != head.state_sha256:
                raise self._edited(f"the checkpoint state is not the one entry {last['id']} sealed: the checkpoint "
                                   "was replaced or edited")
        live = self.live_count(conn)
        if live != head.live_records:
            raise self._edited(f"the checkpoint counts {head.live_records} live records but the log has {live}: an "
                               "undo mark or the checkpoint's count was edited")
        return head

    def _edited(self, what: str) -> StateError:
        return StateError(f"{self.path}: {what}; the file was changed outside certirank, so its guarantee no longer "
                          "holds (`certirank campaign verify` lists every problem)")

    def live_count(self, conn: sqlite3.Connection) -> int:
        # two counts over the partial unique indexes of live rows: no scan of the log
        rollouts = conn.execute(f"SELECT count(*) FROM records WHERE {_LIVE} AND policy IS NOT NULL").fetchone()[0]
        runs = conn.execute(f"SELECT count(*) FROM records WHERE {_LIVE} AND policy IS NULL").fetchone()[0]
        return int(rollouts + runs)

    def append(self, conn: sqlite3.Connection, row: Mapping[str, Any], *, state_sha256: str) -> dict[str, Any]:
        """Append one entry, chained to the current head and sealing the checkpoint written with it."""
        prev = conn.execute("SELECT id, hash FROM records ORDER BY id DESC LIMIT 1").fetchone()
        full = {"id": 1 if prev is None else prev[0] + 1, "policy": None, "trial": None, "score": None,
                "raw_score": None, "payload": None, "target": None, "by": None, "note": None, "ahead": 0,
                "at": _now(), **row, "state_sha256": state_sha256}
        full["prev_hash"] = self.config_sha256 if prev is None else prev[1]
        full["hash"] = row_hash(full["prev_hash"], full)
        cols = [*HASHED, "prev_hash", "hash", "state_sha256"]
        conn.execute(f"INSERT INTO records ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                     [full[c] for c in cols])
        return full

    def save_checkpoint(self, conn: sqlite3.Connection, row: Mapping[str, Any], fmt: str, blob: bytes,
                        live: int) -> None:
        conn.execute("UPDATE checkpoint SET last_id = ?, head_hash = ?, live_records = ?, engine = ?, state = ?, "
                     "state_sha256 = ?, at = ? WHERE id = 1",
                     (row["id"], row["hash"], live, fmt, blob, row["state_sha256"], row["at"]))

    # ------------------------------------------------------------------------------------------ rows
    def _select(self) -> str:
        cols = ", ".join(f"r.{c}" if c != "state_sha256" or self.version >= 2 else "NULL" for c in COLUMNS)
        return f"SELECT {cols}, u.at, u.by FROM records r LEFT JOIN records u ON u.id = r.undone_by"

    def _as_row(self, vals: Iterable[Any]) -> dict[str, Any]:
        return dict(zip((*COLUMNS, "undone_at", "undone_who"), vals))

    def _row(self, conn: sqlite3.Connection, where: str, args: tuple = ()) -> dict[str, Any] | None:
        vals = conn.execute(f"{self._select()} {where}", args).fetchone()
        return None if vals is None else self._as_row(vals)

    def entry(self, conn: sqlite3.Connection, rid: int) -> dict[str, Any] | None:
        return self._row(conn, "WHERE r.id = ?", (rid,))

    def rows(self, conn: sqlite3.Connection, *, checked: bool = True) -> list[dict[str, Any]]:
        """Every entry in id order; ``checked``: the whole chain and the undo marks are verified as they are
        read (a verb that reads every row anyway refuses an edited one, naming it)."""
        rows = [self._as_row(v) for v in conn.execute(self._select() + " ORDER BY r.id")]
        if checked:
            bad = chain_problems(rows, self.config_sha256) + mark_problems(rows)
            if bad:
                raise self._edited("; ".join(bad[:3]) + (f" (and {len(bad) - 3} more)" if len(bad) > 3 else ""))
        return rows

    def live_rollout(self, conn: sqlite3.Connection, policy: str, trial: int) -> tuple | None:
        return conn.execute(f"SELECT id, score, by, at FROM records WHERE {_LIVE} AND policy = ? AND trial = ?",
                            (policy, trial)).fetchone()

    def live_replicate(self, conn: sqlite3.Connection, trial: int) -> int | None:
        row = conn.execute(f"SELECT id FROM records WHERE {_LIVE} AND policy IS NULL AND trial = ?",
                           (trial,)).fetchone()
        return None if row is None else int(row[0])

    def latest_live(self, conn: sqlite3.Connection) -> int | None:
        """The latest entry an undo may take back: a live record or fault (what the operator did last)."""
        row = conn.execute("SELECT id FROM records WHERE action IN ('record', 'fault') AND undone_by IS NULL "
                           "ORDER BY id DESC LIMIT 1").fetchone()
        return None if row is None else int(row[0])

    def action_of(self, conn: sqlite3.Connection, rid: int) -> str | None:
        row = conn.execute("SELECT action FROM records WHERE id = ?", (rid,)).fetchone()
        return None if row is None else str(row[0])

    def handed_out(self, conn: sqlite3.Connection) -> int:
        """The largest trial index any rollout was recorded, faulted or handed out on (-1 if none): a schedule
        change must start after it, so no rollout's environment ever changes."""
        top = conn.execute("SELECT max(trial) FROM records WHERE policy IS NOT NULL").fetchone()[0]
        shown = conn.execute("SELECT max(trial) FROM suggested").fetchone()[0]
        return max(-1 if top is None else int(top), -1 if shown is None else int(shown))

    def amendments(self, conn: sqlite3.Connection) -> list[tuple[int, dict[str, Any]]]:
        """(entry id, payload) of every amendment, in log order (a few rows, through the action index)."""
        out = []
        for rid, payload in conn.execute("SELECT id, payload FROM records WHERE action = 'amend' ORDER BY id"):
            try:
                data = json.loads(payload)
            except (TypeError, ValueError):
                data = None
            if not isinstance(data, dict) or not isinstance(data.get("changes"), dict):
                raise self._edited(f"entry {rid}: the amendment cannot be read")
            out.append((int(rid), data))
        return out

    def faults(self, conn: sqlite3.Connection, policy: str | None = None,
               trial: int | None = None) -> list[tuple[int, str, int, str | None]]:
        """(id, policy, trial, payload) of live faults (not undone), in log order; of one rollout if given."""
        sql = "SELECT id, policy, trial, payload FROM records WHERE action = 'fault' AND undone_by IS NULL"
        args: tuple = ()
        if policy is not None:
            sql += " AND policy = ? AND trial = ?"
            args = (policy, trial)
        return [(int(a), str(b), int(c), d) for a, b, c, d in conn.execute(sql + " ORDER BY id", args)]

    def rollouts_between(self, conn: sqlite3.Connection, lo: int, hi: int) -> list[tuple[str, str, int]]:
        """(action, policy, trial) of the live records and faults on trials lo..hi, in log order."""
        return [(str(a), str(p), int(t)) for a, p, t in conn.execute(
            "SELECT action, policy, trial FROM records WHERE action IN ('record', 'fault') AND undone_by IS NULL "
            "AND policy IS NOT NULL AND trial BETWEEN ? AND ? ORDER BY id", (lo, hi))]

    def tagged(self, conn: sqlite3.Connection) -> list[tuple[str, str, str]]:
        """(action, policy, payload) of the live records and faults that carry a payload (tags, a reason)."""
        return [(str(a), str(p), str(x)) for a, p, x in conn.execute(
            "SELECT action, policy, payload FROM records WHERE action IN ('record', 'fault') AND undone_by IS NULL "
            "AND policy IS NOT NULL AND payload IS NOT NULL ORDER BY id")]

    # ------------------------------------------------------------------------------------------ idempotency keys
    def has_keys(self, conn: sqlite3.Connection) -> bool:
        return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'idempotency'"
                            ).fetchone() is not None

    def keyed(self, conn: sqlite3.Connection, key: str) -> tuple[str, int, str] | None:
        """(fingerprint, entry id, answer) stored for an Idempotency-Key, or None."""
        if self.version < 3 and not self.has_keys(conn):
            return None
        row = conn.execute("SELECT fingerprint, entry, answer FROM idempotency WHERE key = ?", (key,)).fetchone()
        return None if row is None else (str(row[0]), int(row[1]), str(row[2]))

    def keep_key(self, conn: sqlite3.Connection, key: str, fingerprint: str, entry: int, answer: str) -> None:
        conn.execute("INSERT INTO idempotency (key, fingerprint, entry, answer, at) VALUES (?, ?, ?, ?, ?)",
                     (key, fingerprint, entry, answer, _now()))

    def furthest_trial(self, conn: sqlite3.Connection) -> int:
        """The largest trial index of any live rollout (-1 if none)."""
        top = conn.execute(f"SELECT max(trial) FROM records WHERE {_LIVE} AND policy IS NOT NULL").fetchone()[0]
        return -1 if top is None else int(top)

    def next_replicate(self, conn: sqlite3.Connection) -> int:
        # one rule for `next` and add-run's default (they disagreed after an undo): after every number ever
        # recorded, so an undone replicate's number is reused only when asked for with --replicate
        top = conn.execute("SELECT max(trial) FROM records WHERE action = 'record'").fetchone()[0]
        return 1 if top is None else int(top) + 1

    def revealed(self, conn: sqlite3.Connection) -> bool:
        return conn.execute("SELECT 1 FROM records WHERE action = 'unblind' LIMIT 1").fetchone() is not None

    def undone_count(self, conn: sqlite3.Connection) -> int:
        return int(conn.execute("SELECT count(*) FROM records WHERE action = 'undo'").fetchone()[0])

    # ------------------------------------------------------------------------------------------ suggestions
    def is_suggested(self, conn: sqlite3.Connection, policy: str, trial: int) -> bool:
        return conn.execute("SELECT 1 FROM suggested WHERE policy = ? AND trial = ?", (policy, trial)
                            ).fetchone() is not None

    def remember(self, conn: sqlite3.Connection, pairs: Iterable[tuple[str, int]]) -> None:
        conn.executemany("INSERT OR IGNORE INTO suggested (policy, trial, at) VALUES (?, ?, ?)",
                         [(p, int(r), _now()) for p, r in pairs])

    def forget(self, conn: sqlite3.Connection, policy: str, trial: int) -> None:
        conn.execute("DELETE FROM suggested WHERE policy = ? AND trial = ?", (policy, trial))

    def mark_undone(self, conn: sqlite3.Connection, target: int, by_entry: int) -> None:
        conn.execute("UPDATE records SET undone_by = ? WHERE id = ?", (by_entry, target))
