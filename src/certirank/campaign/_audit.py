"""A stored log row as the operator sees it: a :class:`Record`, blind codes shown unless the campaign was
unblinded, each rollout with the environment its trial was drawn on."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._blind import Names
from ._util import _environment
from .results import Record

__all__ = ["as_record"]


def as_record(row: Mapping[str, Any], names: Names, revealed: bool, draw: Mapping[str, Any] | None,
              env: str | None = None) -> Record:
    if env is None and names.kind == "anyrank" and row.get("action") == "record" and row.get("trial") is not None \
            and draw:
        env = _environment(draw, int(row["trial"]))
    return Record(id=int(row["id"]), action=row["action"], policy=names.shown(row.get("policy"), revealed),
                  trial=row.get("trial"), score=row.get("score"), by=row.get("by"), note=row.get("note"),
                  at=row["at"], ahead=bool(row.get("ahead")), raw_score=row.get("raw_score"),
                  target=row.get("target"), environment=env, undone_by=row.get("undone_by"),
                  undone_at=row.get("undone_at"), undone_who=row.get("undone_who"), hash=row["hash"])
