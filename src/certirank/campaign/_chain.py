"""The hash chain of a campaign's log: how a row is hashed, and what is wrong with a sequence of rows.

One home for the rules that ``verify``, ``undo``, ``log``, ``export`` and the O(1) check on every open share:
a row's hash covers its content and its predecessor's hash (the first one's predecessor is the configuration's
SHA-256), ids run 1, 2, 3, ... without gaps, and undo rows and ``undone_by`` marks mirror each other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._util import _canon, _sha

#: the columns a row's hash covers (schema 1); a schema-2 row also seals ``state_sha256``
HASHED = ("id", "action", "policy", "trial", "score", "raw_score", "payload", "target", "by", "note", "ahead", "at")
#: every stored column of a row, in the order the store selects them
COLUMNS = (*HASHED, "undone_by", "prev_hash", "hash", "state_sha256")
#: the entries an undo may take back
UNDOABLE = ("record", "fault")


def replayed(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The entries that change the engine, in log order: live records and amendments (a budget extended
    between two records is applied between them, as it was live)."""
    return [r for r in rows if r["action"] == "amend" or (r["action"] == "record" and r["undone_by"] is None)]


def row_hash(prev: str, row: Mapping[str, Any]) -> str:
    values = [row[k] for k in HASHED]
    if row.get("state_sha256") is not None:  # rows written since schema 2 seal the checkpoint they produced
        values.append(row["state_sha256"])
    return _sha(prev + "\n" + _canon(values))


def chain_problems(rows: Sequence[Mapping[str, Any]], config_sha256: str) -> list[str]:
    """Each place where ``rows`` (all of them, in id order) break the chain, as 'entry N: what'."""
    bad, prev, expected = [], config_sha256, 1
    for row in rows:
        if row["id"] > expected:
            bad.append(f"entry {expected} was deleted" if row["id"] == expected + 1
                       else f"entries {expected}-{row['id'] - 1} were deleted")
        elif row["id"] < expected:
            bad.append(f"entry {row['id']}: out of order (expected {expected})")
        expected = row["id"] + 1
        if row["prev_hash"] != prev:
            bad.append(f"entry {row['id']}: not chained to " + ("the configuration (config_sha256)" if prev ==
                                                               config_sha256 else "the entry before it"))
        elif row_hash(prev, row) != row["hash"]:
            bad.append(f"entry {row['id']}: content does not match its hash (edited after it was written)")
        prev = row["hash"]
    return bad


def mark_problems(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Undo rows and ``undone_by`` marks that do not mirror each other."""
    by_id = {r["id"]: r for r in rows}
    bad = []
    for r in rows:
        if r["action"] == "undo":
            t = by_id.get(r["target"])
            if t is None or t["action"] not in UNDOABLE or t["undone_by"] != r["id"] or t["id"] >= r["id"]:
                bad.append(f"undo {r['id']} -> {r['target']}")
        if r["undone_by"] is not None:
            u = by_id.get(r["undone_by"])
            if u is None or u["action"] != "undo" or u["target"] != r["id"]:
                bad.append(f"record {r['id']} marked undone by {r['undone_by']}")
    return bad
