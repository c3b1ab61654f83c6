"""`add_run`: one complete replicate of a leaderboard campaign (every model on every item), checked by the engine
on a copy before anything is written."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import DataError, ParameterError, StateError
from ._store import Head
from ._util import _check_note, _check_trial, _operator, _sha
from .results import Record

__all__ = ["add_run"]


def add_run(camp: Any, panel: Any, *, replicate: Any, by: Any, note: Any, idempotency_key: Any) -> Record:
    if camp.kind != "leaderboard":
        raise StateError("add-run is for leaderboard campaigns; " + (
            "an item campaign records the drawn item's scores (campaign record DB ITEM DRAW --scores ...)"
            if camp.kind == "items" else "an AnyRank campaign records one rollout at a time (campaign record DB "
            "POLICY TRIAL SCORE)"))
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
            return camp._store.next_replicate(conn)
        old = camp._store.live_replicate(conn, rid_given)
        if old is not None:
            raise StateError(f"replicate {rid_given} is already recorded (record {old}); undo it first to "
                             "replace it")
        return rid_given

    def build(take: Callable[[], Any], rid: int) -> tuple[dict[str, Any], Any]:
        if camp._engine_id not in payloads:  # read and checked once, outside the lock
            payloads[camp._engine_id] = camp._engine.canonical_panel(panel, source)
        row = {"action": "record", "trial": rid, "payload": payloads[camp._engine_id], "by": who, "note": note}
        engine = take()
        engine.apply(row)
        return row, engine

    request = {"verb": "add_run", "replicate": rid_given, "by": who, "note": note,
               "panel": None if idempotency_key is None else _panel_sha(camp, panel, source)}
    return camp._write(build, gather, request, idempotency_key)


def _panel_sha(camp: Any, panel: Any, source: str) -> str:
    """What a retried add-run must send again: the replicate's scores as stored."""
    with camp._store.read() as conn:
        camp._sync(conn)
    return _sha(camp._engine.canonical_panel(panel, source))
