"""A stored log row as the operator sees it: a :class:`Record`, blind codes shown unless the campaign was
unblinded, each rollout with the environment and block its trial runs in, its tags and a fault's reason, an
amendment with its changes."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ._blind import Names
from .results import Record

__all__ = ["as_record", "row_extras"]


def row_extras(row: Mapping[str, Any]) -> dict[str, Any]:
    """What an entry's payload holds for the operator: ``tags``, a fault's ``reason``, an amendment's
    ``changes`` (with ``from_trial`` when the schedule changed). A leaderboard replicate's payload is its scores,
    which are not shown here."""
    if row.get("action") not in ("record", "fault", "amend") or not row.get("payload"):
        return {}
    try:
        data = json.loads(row["payload"])
    except (TypeError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    if row["action"] == "record" and row.get("policy") is None:  # a replicate (its scores not shown) or an item draw
        if "item" not in data:
            return {}
        return {"item": str(data["item"]), "scores": {str(k): float(v) for k, v in data["scores"].items()},
                "probability": float(data["probability"])}
    out: dict[str, Any] = {}
    if data.get("tags"):
        out["tags"] = list(data["tags"])
    if data.get("reason"):
        out["fault"] = str(data["reason"])
    if row["action"] == "record" and data.get("proxy") is not None:
        out["proxy"] = float(data["proxy"])
    if row["action"] == "amend":
        changes = dict(data.get("changes") or {})
        if data.get("plan"):
            changes["from_trial"] = data["plan"]["from_trial"]
        out["changes"] = changes
    return out


def as_record(row: Mapping[str, Any], names: Names, revealed: bool, schedule: Any) -> Record:
    env = block = None
    if names.kind not in ("leaderboard", "items") and row.get("action") in ("record", "fault") and row.get("trial") is not None \
            and schedule is not None:
        env, block = schedule.environment(int(row["trial"])), schedule.block(int(row["trial"]))
    return Record(id=int(row["id"]), action=row["action"], policy=names.shown(row.get("policy"), revealed),
                  trial=row.get("trial"), score=row.get("score"), by=row.get("by"), note=row.get("note"),
                  at=row["at"], ahead=bool(row.get("ahead")), raw_score=row.get("raw_score"),
                  target=row.get("target"), environment=env, block=block, undone_by=row.get("undone_by"),
                  undone_at=row.get("undone_at"), undone_who=row.get("undone_who"), hash=row["hash"],
                  **row_extras(row))
