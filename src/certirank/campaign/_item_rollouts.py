"""The verbs of an item campaign: ``next`` (the pending draw: item, models to score, draw probability) and
``record_item`` (exactly those scores, one entry per draw, its probability stored in the row)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from ..errors import ParameterError
from ._store import Head
from ._util import _canon, _check_note, _check_trial, _operator
from .results import Record, Suggestion

__all__ = ["next_draw", "record_item"]


def next_draw(camp: Any) -> list[Suggestion]:
    """The pending draw (empty when the board is done); it is part of the state, so nothing is written."""
    with camp._store.read() as conn:
        head = camp._sync(conn)
        p = camp._engine.pending
    if p is None:
        return []
    return [Suggestion(policy=None, trial=int(p["draw"]), kind="item", shown_at=head.last_id, item=p["item"],
                       models=list(p["models"]), probability=float(p["probability"]))]


def record_item(camp: Any, item: Any, scores: Any, *, draw: Any, by: Any, note: Any, idempotency_key: Any) -> Record:
    from ._items import item_scores
    if camp.kind != "items":
        raise ParameterError("record_item is for an item campaign (--kind items); this campaign records "
                             + ("whole runs (add_run)" if camp.kind == "leaderboard" else "rollouts (record)"))
    name = str(item).strip()
    given = item_scores(scores)
    unknown = [m for m in given if m not in camp._names.names]
    if unknown:
        raise ParameterError(f"unknown model {unknown[0]!r}; this campaign's models are: "
                             f"{', '.join(camp._names.names)}")
    d = None if draw is None else _check_trial(draw, "draw")
    who = _operator(by)
    note = _check_note(note)

    def gather(conn: sqlite3.Connection, head: Head) -> None:
        return None

    def build(take: Callable[[], Any], facts: Any) -> tuple[dict[str, Any], Any]:
        eng = camp._engine
        eng.check_entry(d, name, given)
        p = eng.pending
        payload = {"item": name, "scores": {m: given[m] for m in p["models"]}, "probability": p["probability"]}
        row = {"action": "record", "trial": int(p["draw"]), "payload": _canon(payload), "by": who, "note": note}
        engine = take()
        engine.apply(row)
        return row, engine

    request = {"verb": "record_item", "item": name, "scores": given, "draw": d, "by": who, "note": note}
    return camp._write(build, gather, request, idempotency_key)
