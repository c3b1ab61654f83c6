"""Reading a campaign's audit trail: every record, undo and unblinding row as a :class:`Record`, blind codes
shown unless the campaign was unblinded."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from ._util import _environment
from .results import AuditLog, Record

__all__ = ["_AuditTrail"]


class _AuditTrail:
    """Mixin of :class:`~certirank.campaign.store.Campaign`: :meth:`log`, :meth:`records` and the row readers."""

    def log(self) -> AuditLog:
        """The audit trail: every record, undo and unblinding, in order, with who and when."""
        with self._read() as conn:
            self._current(conn)
            rows = self._rows(conn)
        return AuditLog(path=str(self.path), created_at=self._meta["created_at"],
                        created_by=self._meta.get("created_by") or None, config_sha256=self.config_sha256,
                        entries=rows)

    def records(self, *, live_only: bool = True) -> list[Record]:
        """Recorded results (default: those not undone), in recording order."""
        with self._read() as conn:
            self._current(conn)
            rows = self._rows(conn)
        return [r for r in rows if r.action == "record" and (r.live or not live_only)]

    _SELECT = ("SELECT r.id, r.action, r.policy, r.trial, r.score, r.raw_score, r.payload, r.target, r.by, r.note, "
               "r.ahead, r.at, r.undone_by, r.prev_hash, r.hash, u.at, u.by FROM records r LEFT JOIN records u ON "
               "u.id = r.undone_by")

    def _rows(self, conn: sqlite3.Connection) -> list[Record]:
        out = []
        for vals in conn.execute(self._SELECT + " ORDER BY r.id"):
            out.append(self._from_sql(vals))
        return out

    def _fetch(self, conn: sqlite3.Connection, rid: int) -> Record:
        return self._from_sql(conn.execute(self._SELECT + " WHERE r.id = ?", (rid,)).fetchone())

    def _from_sql(self, vals: Sequence[Any]) -> Record:
        keys = ("id", "action", "policy", "trial", "score", "raw_score", "payload", "target", "by", "note", "ahead",
                "at", "undone_by", "prev_hash", "hash", "undone_at", "undone_who")
        row = dict(zip(keys, vals))
        return self._as_record(row)

    def _as_record(self, row: Mapping[str, Any], env: str | None = None) -> Record:
        if env is None and self.kind == "anyrank" and row.get("action") == "record" and row.get("trial") is not None \
                and self.config["engine"].get("environment_draw"):
            env = _environment(self.config["engine"]["environment_draw"], int(row["trial"]))
        return Record(id=int(row["id"]), action=row["action"], policy=self._shown(row.get("policy")),
                      trial=row.get("trial"), score=row.get("score"), by=row.get("by"), note=row.get("note"),
                      at=row["at"], ahead=bool(row.get("ahead")), raw_score=row.get("raw_score"),
                      target=row.get("target"), environment=env, undone_by=row.get("undone_by"),
                      undone_at=row.get("undone_at"), undone_who=row.get("undone_who"), hash=row["hash"])
