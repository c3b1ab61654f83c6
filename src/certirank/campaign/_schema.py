"""The campaign file: one SQLite database (stdlib ``sqlite3``, WAL journal), schema version 1.

Tables
------
``meta``        key/value: schema version, kind, the locked configuration and its SHA-256, creation time.
``records``     append-only event log, the source of truth: ``record`` (a rollout or a leaderboard replicate),
                ``undo`` (marks an earlier record undone; ``target``) and ``unblind``. Each row carries
                ``hash = sha256(prev_hash, row)``; the first ``prev_hash`` is the configuration's SHA-256, so
                the chain binds config and history. ``undone_by`` is the only column ever updated (it mirrors
                the undo rows, which ``verify`` checks).
``suggested``   rollouts handed out by ``next`` and not yet recorded (still accepted after the engine moved on).
``checkpoint``  one row: the derived engine state after the last record, written in the same transaction.
"""

from __future__ import annotations

import sqlite3

SCHEMA_VERSION = 1
APPLICATION_ID = 0x43524B31  # "CRK1": lets `file`-like tools and our open() tell a campaign from any SQLite file
BUSY_TIMEOUT_MS = 30_000

DDL = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE records (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    action TEXT NOT NULL CHECK (action IN ('record', 'undo', 'unblind')),
    policy TEXT,
    trial INTEGER,
    score REAL,
    raw_score REAL,
    payload TEXT,
    target INTEGER REFERENCES records(id),
    by TEXT,
    note TEXT,
    ahead INTEGER NOT NULL DEFAULT 0,
    at TEXT NOT NULL,
    undone_by INTEGER REFERENCES records(id),
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE
);
-- a rollout (policy, trial) or a replicate (trial = replicate id) is live at most once: a second writer that
-- slipped past the checks would fail here, never store a duplicate
CREATE UNIQUE INDEX records_live_rollout ON records(policy, trial)
    WHERE action = 'record' AND undone_by IS NULL AND policy IS NOT NULL;
CREATE UNIQUE INDEX records_live_replicate ON records(trial)
    WHERE action = 'record' AND undone_by IS NULL AND policy IS NULL;
CREATE INDEX records_action ON records(action);
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


def connect(path: str) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit), WAL journal, FULL sync, busy timeout."""
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys = ON")
    # FULL: a record that `record` reported is on disk even after a power cut, not only after a process crash
    conn.execute("PRAGMA synchronous = FULL")
    return conn
