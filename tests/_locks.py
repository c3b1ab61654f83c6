"""Test helper: whether a campaign file's SQLite write lock is free right now."""

from __future__ import annotations

import sqlite3
from typing import Any


def lock_is_free(path: Any) -> bool:
    """Whether another connection could take the write lock right now (no waiting)."""
    con = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        con.execute("BEGIN IMMEDIATE")
        con.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        con.close()
