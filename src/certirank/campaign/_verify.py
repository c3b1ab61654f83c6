"""`verify`: SQLite integrity, the configuration lock, the hash chain, the undo marks, the head check of every
open, and the checkpoint replay."""

from __future__ import annotations

from typing import Any

from ..errors import CertirankError
from ._chain import chain_problems, mark_problems
from ._chain import replayed as engine_entries
from ._util import _sha
from .results import Check, VerifyReport


def verify(camp: Any, *, anchor: str | None = None) -> VerifyReport:
    """Check the file end to end: SQLite integrity, the configuration lock, the hash chain, the undo marks,
    that the checkpoint is the log's head, and that replaying the live records on a fresh engine gives exactly
    the checkpointed state (for a leaderboard whose checkpoint an older BB-EDGE wrote: the same decisions, every
    number within ``_engines.REPLAY_RTOL``, said in the check and in ``warnings``). ``anchor``: a head hash kept outside the file (printed by ``status``); the log must
    still contain it, which a rollback to an older copy of the file cannot fake."""
    store = camp._store
    checks: list[Check] = []
    try:
        with store.read() as conn:
            ic = [r[0] for r in conn.execute("PRAGMA integrity_check").fetchall()]
            checks.append(Check("sqlite integrity_check", ic == ["ok"], "; ".join(ic[:3])))
            checks.append(Check("configuration checksum", _sha(store.config_text) == camp.config_sha256,
                                camp.config_sha256))
            rows = store.rows(conn, checked=False)
            head = store.head(conn)
            state = bytes(conn.execute("SELECT state FROM checkpoint WHERE id = 1").fetchone()[0])
            try:
                store.check_head(conn)
                head_problem = ""
            except CertirankError as exc:
                head_problem = str(exc).split(": ", 1)[-1].split("; the file was changed", 1)[0]
    except CertirankError as exc:
        # a dropped or emptied table is what verify is for: a failed check, not a crash
        checks.append(Check("campaign tables readable", False, str(exc)))
        return VerifyReport(path=str(camp.path), ok=False, records=0, checks=checks)
    bad = chain_problems(rows, camp.config_sha256)
    tip = rows[-1]["hash"] if rows else camp.config_sha256
    checks.append(Check("hash chain", not bad, "; ".join(bad[:3]) or f"{len(rows)} entries, head {tip}"))
    marks = mark_problems(rows)
    checks.append(Check("undo marks", not marks, "; ".join(marks[:3])))
    checks.append(Check("checkpoint is at the head of the log", not head_problem,
                        head_problem or f"checkpoint at entry {head.last_id}, log head {rows[-1]['id'] if rows else 0}"))
    checks.append(Check("checkpoint checksum", _sha(state) == head.state_sha256, ""))
    live = [r for r in rows if r["action"] == "record" and r["undone_by"] is None]
    try:
        replayed, refused = camp._replay(engine_entries(rows)), None
    except (CertirankError, ValueError, TypeError, KeyError) as exc:
        # a record edited into something the engine refuses: the hash chain above says which one
        replayed, refused = None, f"the engine refuses a record: {exc}"
    warnings: list[str] = []
    agreed = None
    try:
        if replayed is None:
            diff = [str(refused)]
        else:
            fresh = replayed.checkpoint()
            # compared as read today: a checkpoint an earlier version wrote may name a field differently
            diff = [] if fresh == state else camp._engine_cls.differences(state, fresh)
            # a checkpoint written by an older engine replays to other last digits: accepted when the replay agrees
            # with it on what it decides, within the engine's stated tolerance (AnyRank's replay is exact: bits)
            if diff and _sha(state) == head.state_sha256 and hasattr(camp._engine_cls, "agreement"):
                agreed = camp._engine_cls.agreement(state, fresh)
    except CertirankError as exc:
        diff = [str(exc)]
    if agreed is not None:
        warnings.append(f"the replay of the {len(live)} live records is not the checkpoint bit for bit, but {agreed}")
    checks.append(Check("replay of the records equals the checkpoint", not diff or agreed is not None,
                        refused or (f"{len(live)} live records replayed: the same decisions, its numbers within "
                                    "a float tolerance of the checkpoint's (see the note)" if agreed is not None
                                    else ("differs in " + ", ".join(diff[:6])) if diff
                                    else f"{len(live)} live records replayed, bit for bit")))
    if anchor is not None:
        found = any(r["hash"].startswith(anchor) for r in rows) or camp.config_sha256.startswith(anchor)
        checks.append(Check("anchor (a head hash kept outside the file) is in the log", found,
                            anchor if found else f"{anchor} is not in this log: the file was rolled back to an "
                            "older copy, or is another campaign"))
    return VerifyReport(path=str(camp.path), ok=all(c.ok for c in checks), records=len(live), checks=checks,
                        warnings=warnings)
