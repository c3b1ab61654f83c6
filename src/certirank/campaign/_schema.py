"""The campaign file: one SQLite database (stdlib ``sqlite3``, WAL journal), schema version 3.

Tables
------
``meta``        key/value: schema version, kind, the locked configuration and its SHA-256, creation time.
``records``     append-only event log, the source of truth: ``record`` (a rollout or a leaderboard replicate),
                ``undo`` (marks an earlier record or fault undone; ``target``), ``unblind``, and since schema 3
                ``fault`` (a rollout that could not be judged), ``note`` (a free note) and ``amend`` (an
                amendment of the design). Tags, a fault's reason and an amendment's changes are JSON in
                ``payload`` (which the hash covers). Each row carries
                ``hash = sha256(prev_hash, row)``; the first ``prev_hash`` is the configuration's SHA-256, so
                the chain binds config and history. Since schema 2 a row also seals ``state_sha256``, the
                checksum of the engine checkpoint written with it, so the checkpoint is bound to the chain's
                head. ``undone_by`` is the only column ever updated (it mirrors the undo rows).
``suggested``   rollouts handed out by ``next`` and not yet recorded (still accepted after the engine moved on).
``checkpoint``  one row: the derived engine state after the last record, written in the same transaction.
``idempotency`` (schema 3) the ``Idempotency-Key`` of every write sent with one, the entry it wrote and the
                answer it got, written in the same transaction as the entry: a retried request gets the same
                answer and writes nothing.

Older files are read as they are and migrated by their first write: schema 1 gains ``state_sha256`` (old rows
keep their hashes, every later row seals its checkpoint); schema 1 and 2 get the wider ``action`` check (the
records table is rebuilt row for row, ids and hashes unchanged) and the ``idempotency`` table.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from ..errors import StateError
from ._chain import COLUMNS

SCHEMA_VERSION = 3
READABLE_VERSIONS = (1, 2, 3)
APPLICATION_ID = 0x43524B31  # "CRK1": lets `file`-like tools and our open() tell a campaign from any SQLite file
BUSY_TIMEOUT_MS = 30_000
#: the tables every readable file has (``idempotency`` comes with schema 3)
TABLES = ("meta", "records", "suggested", "checkpoint")
ACTIONS = ("record", "undo", "unblind", "fault", "note", "amend")

_RECORDS = """
CREATE TABLE {name} (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    action TEXT NOT NULL CHECK (action IN ('record', 'undo', 'unblind', 'fault', 'note', 'amend')),
    policy TEXT,
    trial INTEGER,
    score REAL,
    raw_score REAL,
    payload TEXT,
    target INTEGER REFERENCES {name}(id),
    by TEXT,
    note TEXT,
    ahead INTEGER NOT NULL DEFAULT 0,
    at TEXT NOT NULL,
    undone_by INTEGER REFERENCES {name}(id),
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    state_sha256 TEXT
)"""

_INDEXES = """
-- a rollout (policy, trial) or a replicate (trial = replicate id) is live at most once: a second writer that
-- slipped past the checks would fail here, never store a duplicate
CREATE UNIQUE INDEX records_live_rollout ON records(policy, trial)
    WHERE action = 'record' AND undone_by IS NULL AND policy IS NOT NULL;
CREATE UNIQUE INDEX records_live_replicate ON records(trial)
    WHERE action = 'record' AND undone_by IS NULL AND policy IS NULL;
CREATE INDEX records_action ON records(action);
-- the faults of a rollout, read by `next` and `status`
CREATE INDEX records_rollout ON records(policy, trial);
"""

_IDEMPOTENCY = """
CREATE TABLE idempotency (key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL,
                          entry INTEGER NOT NULL REFERENCES records(id), answer TEXT NOT NULL,
                          at TEXT NOT NULL) WITHOUT ROWID
"""

DDL = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
""" + _RECORDS.format(name="records") + ";" + _INDEXES + _IDEMPOTENCY + """;
CREATE TABLE suggested (policy TEXT NOT NULL, trial INTEGER NOT NULL, at TEXT NOT NULL,
                        PRIMARY KEY (policy, trial)) WITHOUT ROWID;
CREATE TABLE checkpoint (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    last_id INTEGER NOT NULL,
    head_hash TEXT NOT NULL,
    live_records INTEGER NOT NULL,
    engine TEXT NOT NULL,
    state BLOB NOT NULL,
    state_sha256 TEXT NOT NULL,
    at TEXT NOT NULL
);
"""


def _configure(conn: sqlite3.Connection) -> sqlite3.Connection:
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys = ON")
    # FULL: a record that `record` reported is on disk even after a power cut, not only after a process crash
    conn.execute("PRAGMA synchronous = FULL")
    return conn


def connect(path: str | os.PathLike[str]) -> sqlite3.Connection:
    """A read-write connection in autocommit mode (transactions are explicit), FULL sync, busy timeout."""
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                           check_same_thread=False)
    return _configure(conn)


def may_write(path: Path) -> bool:
    """Whether this user may write the file and the folder its WAL journal lives in."""
    folder = path.parent if str(path.parent) else Path(".")
    return os.access(path, os.W_OK) and os.access(folder, os.W_OK)


def connect_for(path: Path) -> tuple[sqlite3.Connection, bool]:
    """(connection, writable): read-write when this user may write the file and its folder; otherwise a
    read-only connection that creates nothing beside the file (a reviewer's copy in a folder they cannot
    write, or someone else's campaign they may only read).

    A WAL database read with ``mode=ro`` needs its ``-shm`` file, and leaves ``-shm``/``-wal`` behind when the
    folder is writable, so a reader opens the file ``immutable`` when no writer has pending pages in a
    ``-wal`` journal (then the main file holds everything); with a non-empty journal it asks SQLite for a
    shared read-only view and, failing that, says why in one line.
    """
    if may_write(path):
        return connect(path), True
    uri = path.resolve().as_uri()
    wal = Path(f"{path}-wal")
    try:
        pending = wal.is_file() and wal.stat().st_size > 0
    except OSError:
        pending = True
    try:
        if not pending:
            conn = sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True, isolation_level=None,
                                   check_same_thread=False)
        else:
            conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_MS / 1000,
                                   isolation_level=None, check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as exc:
        raise StateError(f"{path}: cannot read the campaign read-only while another process is writing it ({exc}); "
                         "this user may not write its folder, which SQLite needs for a live campaign: read it "
                         "when the writer has closed it, or read a copy") from None
    return conn, False


def migrate(conn: sqlite3.Connection, version: int) -> None:
    """Bring a readable older file to the current schema (inside the caller's write transaction)."""
    if version == 1:
        conn.execute("ALTER TABLE records ADD COLUMN state_sha256 TEXT")
    if version < 3:
        # SQLite cannot widen a CHECK constraint in place: the table is copied row for row (ids, hashes and undo
        # marks unchanged) into one with the schema-3 check. The copy references itself, and the rename below
        # rewrites those references, so no foreign key ever points at the table being dropped.
        cols = ", ".join(COLUMNS)
        conn.execute(_RECORDS.format(name="records_v3"))
        conn.execute(f"INSERT INTO records_v3 ({cols}) SELECT {cols} FROM records")
        conn.execute("DROP TABLE records")
        conn.execute("ALTER TABLE records_v3 RENAME TO records")
        for stmt in _INDEXES.split(";"):
            if stmt.strip():
                conn.execute(stmt)
        conn.execute(_IDEMPOTENCY)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
