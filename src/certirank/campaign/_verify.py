"""`verify`: SQLite integrity, the configuration lock, the hash chain, the undo marks and the checkpoint replay."""

from __future__ import annotations

from typing import Any

from ..errors import CertirankError
from ._util import _HASHED, _row_hash, _sha
from .results import Check, VerifyReport


def verify(camp: Any) -> VerifyReport:
    """Check the file end to end: SQLite integrity, the configuration lock, the hash chain, the undo marks,
    and that replaying the live records on a fresh engine gives exactly the checkpointed state."""
    checks: list[Check] = []
    try:
        with camp._read() as conn:
            ic = [r[0] for r in conn.execute("PRAGMA integrity_check").fetchall()]
            checks.append(Check("sqlite integrity_check", ic == ["ok"], "; ".join(ic[:3])))
            checks.append(Check("configuration checksum", _sha(camp._meta["config"]) == camp.config_sha256,
                                camp.config_sha256))
            rows = conn.execute("SELECT id, action, policy, trial, score, raw_score, payload, target, by, note, "
                                "ahead, at, undone_by, prev_hash, hash FROM records ORDER BY id").fetchall()
            cp = conn.execute("SELECT last_id, head_hash, live_records, engine, state, state_sha256 FROM "
                              "checkpoint").fetchone()
            if cp is None:
                raise CertirankError("the checkpoint table is empty")
            try:
                replayed, refused = camp._replay(conn), None
            except (CertirankError, ValueError, TypeError, KeyError) as exc:
                # a record edited into something the engine refuses: the hash chain below says which one
                replayed, refused = None, f"the engine refuses a record: {exc}"
    except CertirankError as exc:
        # a dropped or emptied table is what verify is for: a failed check, not a crash
        checks.append(Check("campaign tables readable", False, str(exc)))
        return VerifyReport(path=str(camp.path), ok=False, records=0, checks=checks)
    keys = (*_HASHED, "undone_by", "prev_hash", "hash")
    recs = [dict(zip(keys, r)) for r in rows]
    prev, bad, expected_id = camp.config_sha256, [], 1
    for rec in recs:
        if rec["id"] != expected_id:
            bad.append(f"entry {rec['id']}: expected id {expected_id}")
        expected_id = rec["id"] + 1
        if rec["prev_hash"] != prev or _row_hash(prev, rec) != rec["hash"]:
            bad.append(f"entry {rec['id']}: hash does not match its content and predecessor")
        prev = rec["hash"]
    checks.append(Check("hash chain", not bad, "; ".join(bad[:3]) or f"{len(recs)} entries, head {prev[:16]}"))
    by_id = {r["id"]: r for r in recs}
    marks = []
    for r in recs:
        if r["action"] == "undo":
            t = by_id.get(r["target"])
            if t is None or t["action"] != "record" or t["undone_by"] != r["id"] or t["id"] >= r["id"]:
                marks.append(f"undo {r['id']} -> {r['target']}")
        if r["undone_by"] is not None:
            u = by_id.get(r["undone_by"])
            if u is None or u["action"] != "undo" or u["target"] != r["id"]:
                marks.append(f"record {r['id']} marked undone by {r['undone_by']}")
    checks.append(Check("undo marks", not marks, "; ".join(marks[:3])))
    live = [r for r in recs if r["action"] == "record" and r["undone_by"] is None]
    last = recs[-1] if recs else None
    cp_ok = (cp[0] == (last["id"] if last else 0) and cp[1] == (last["hash"] if last else camp.config_sha256)
             and cp[2] == len(live))
    checks.append(Check("checkpoint is at the head of the log", cp_ok,
                        f"checkpoint at entry {cp[0]}, log head {last['id'] if last else 0}"))
    state = bytes(cp[4])
    checks.append(Check("checkpoint checksum", _sha(state) == cp[5], ""))
    try:
        if replayed is None:
            diff = [str(refused)]
        else:
            fresh = replayed.checkpoint()
            diff = [] if fresh == state else camp._engine_cls.differences(state, fresh) or ["bytes"]
    except CertirankError as exc:
        diff = [str(exc)]
    checks.append(Check("replay of the records equals the checkpoint", not diff,
                        refused or (("differs in " + ", ".join(diff[:6])) if diff
                                    else f"{len(live)} live records replayed")))
    return VerifyReport(path=str(camp.path), ok=all(c.ok for c in checks), records=len(live), checks=checks)
