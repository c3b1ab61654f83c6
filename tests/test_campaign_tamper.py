"""Tamper evidence of a campaign file (issue 33 item 3): every hand edit of the findings' table
(../shared/findings/reliability.md, "Tamper evidence of a campaign file"), tried against every verb.

Every open checks in O(1) that the configuration starts the chain and the checkpoint is the log's head (ids,
hash, sealed state, live count, settings); verbs that read every row (log, export, undo, the history page)
verify the whole chain and that the live rows are the checkpoint's. So each edit is refused by every verb,
except that an edit of a middle row's content leaves the verbs that read only the checkpoint (status, next,
record, the ranking page) *unaffected*: what they show is exactly what they showed before the edit, which the
test asserts. A rollback of the whole file to an older copy of itself needs an anchor kept outside the file
(`verify --anchor HEAD`).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from certirank import check
from certirank.campaign import Campaign
from certirank.campaign._chain import row_hash
from certirank.campaign._schema import SCHEMA_VERSION
from certirank.campaign._util import _canon, _sha
from certirank.errors import CertirankError

POLICIES = ["a", "b", "c"]
SCORE = {"a": 0.9, "b": 0.5, "c": 0.1}


def _fill(c: Campaign, rounds: int) -> None:
    for _ in range(rounds):
        for s in c.next():
            c.record(s.policy, s.trial, SCORE[s.policy], by="ana")


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """A campaign with 18 records and an undo, and a copy of its checkpoint after the first 12 records."""
    folder = tmp_path_factory.mktemp("tamper")
    db = folder / "lab.campaign"
    c = Campaign.init(db, POLICIES, alpha=0.1, n_max=200, environments=["left", "right"], seed=3)
    _fill(c, 4)
    con = sqlite3.connect(db)
    older = con.execute("SELECT * FROM checkpoint").fetchone()
    con.close()
    older_copy = folder / "older.campaign"
    live, copy = sqlite3.connect(db), sqlite3.connect(older_copy)
    live.backup(copy)  # what a careful user's copy of a campaign in use is (docs/campaigns.md section 7)
    live.close()
    copy.close()
    _fill(c, 2)
    c.undo(by="ana")
    c.close()
    return db, older, older_copy


# ------------------------------------------------------------------------------------------ the edits
def _config(con):
    return json.loads(con.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()[0])


def _set_alpha(con, reseal: bool):
    config = _config(con)
    config["engine"]["ranker"]["alpha"] = 0.6
    text = _canon(config)
    con.execute("UPDATE meta SET value = ? WHERE key = 'config'", (text,))
    if reseal:
        con.execute("UPDATE meta SET value = ? WHERE key = 'config_sha256'", (_sha(text),))
    return _sha(text)


def _rechain(con, start: str):
    """What a forger with the project's own row hash does: re-hash every row in order, move the checkpoint's head."""
    cols = [r[1] for r in con.execute("PRAGMA table_info(records)")]
    prev = start
    for vals in con.execute("SELECT * FROM records ORDER BY id").fetchall():
        row = dict(zip(cols, vals))
        row["prev_hash"] = prev
        row["hash"] = row_hash(prev, row)
        con.execute("UPDATE records SET prev_hash = ?, hash = ? WHERE id = ?", (prev, row["hash"], row["id"]))
        prev = row["hash"]
    con.execute("UPDATE checkpoint SET head_hash = ?", (prev,))


def _sealed(con):
    return con.execute("SELECT value FROM meta WHERE key = 'config_sha256'").fetchone()[0]


def _insert_row(con):
    cols = [r[1] for r in con.execute("PRAGMA table_info(records)")]
    last = dict(zip(cols, con.execute("SELECT * FROM records ORDER BY id DESC LIMIT 1").fetchone()))
    row = {**last, "id": last["id"] + 1, "action": "record", "policy": "a", "trial": 150, "score": 1.0,
           "target": None, "undone_by": None, "prev_hash": last["hash"]}
    row["hash"] = row_hash(row["prev_hash"], row)
    con.execute(f"INSERT INTO records ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                [row[c] for c in cols])


def _one_byte(con):
    blob = bytearray(con.execute("SELECT state FROM checkpoint").fetchone()[0])
    blob[len(blob) // 2] ^= 0xFF
    return bytes(blob)


def _older_checkpoint(con, older):
    cols = [r[1] for r in con.execute("PRAGMA table_info(checkpoint)")]
    sets = ", ".join(f"{c} = ?" for c in cols if c != "id")
    con.execute(f"UPDATE checkpoint SET {sets}", [v for c, v in zip(cols, older) if c != "id"])


EDITS = {
    "config alpha, checksum kept": lambda con, o: _set_alpha(con, reseal=False),
    "config alpha + config_sha256 recomputed": lambda con, o: _set_alpha(con, reseal=True),
    "config alpha + config_sha256 + whole hash chain recomputed":
        lambda con, o: _rechain(con, _set_alpha(con, reseal=True)),
    "config_sha256 row deleted": lambda con, o: con.execute("DELETE FROM meta WHERE key = 'config_sha256'"),
    "a recorded score flipped": lambda con, o: con.execute("UPDATE records SET score = 1 - score WHERE id = 3"),
    "a score flipped + chain recomputed":
        lambda con, o: (con.execute("UPDATE records SET score = 1 - score WHERE id = 3"), _rechain(con, _sealed(con))),
    "operator (by) of a record edited": lambda con, o: con.execute("UPDATE records SET by = 'mallory' WHERE id = 3"),
    "timestamp of a record edited":
        lambda con, o: con.execute("UPDATE records SET at = '2020-01-01T00:00:00.000000Z' WHERE id = 3"),
    "last record deleted": lambda con, o: con.execute("DELETE FROM records WHERE id = (SELECT max(id) FROM records)"),
    "a middle record deleted": lambda con, o: con.execute("DELETE FROM records WHERE id = 4"),
    "all records deleted": lambda con, o: con.execute("DELETE FROM records"),
    "a row inserted": lambda con, o: _insert_row(con),
    "a record marked undone without an undo row": lambda con, o: con.execute("UPDATE records SET undone_by = 2 "
                                                                             "WHERE id = 5"),
    "checkpoint state: one byte changed": lambda con, o: con.execute("UPDATE checkpoint SET state = ?",
                                                                     (_one_byte(con),)),
    "checkpoint state changed + state_sha256 recomputed":
        lambda con, o: (lambda b: con.execute("UPDATE checkpoint SET state = ?, state_sha256 = ?", (b, _sha(b))))(
            _one_byte(con)),
    "checkpoint swapped for an older one": lambda con, o: _older_checkpoint(con, o),
    "checkpoint live_records edited": lambda con, o: con.execute("UPDATE checkpoint SET live_records = "
                                                                 "live_records + 1"),
    "table suggested dropped": lambda con, o: con.execute("DROP TABLE suggested"),
}

#: edits of a middle row's content, which the O(1) check on open cannot see: the verbs that read only the
#: checkpoint are unaffected by them (asserted: same output as before the edit)
MIDDLE_ROW = {"a recorded score flipped", "a score flipped + chain recomputed", "operator (by) of a record edited",
              "timestamp of a record edited"}
CHECKPOINT_ONLY = {"status", "next", "record", "page: ranking"}


# ------------------------------------------------------------------------------------------ the verbs
def _status(path, tmp):
    with Campaign.open(path) as c:
        return c.status().to_dict()


def _next(path, tmp):
    with Campaign.open(path) as c:
        return [s.to_dict() for s in c.next(remember=False)]


def _record(path, tmp):
    with Campaign.open(path) as c:
        return c.record("b", 120, 0.5, ahead=True).id


def _log(path, tmp):
    with Campaign.open(path) as c:
        return c.log().to_dict()


def _export(path, tmp):
    with Campaign.open(path) as c:
        return c.export(tmp / "out.csv").rows


def _undo(path, tmp):
    with Campaign.open(path) as c:
        return c.undo().id


def _verify(path, tmp):
    with Campaign(path, _check_config=False) as c:
        rep = c.verify()
    if not rep.ok:
        raise CertirankError("; ".join(ch.name for ch in rep.failures))
    return rep.records


def _check(path, tmp):
    return check(str(path), ["a>c"]).claims


VERBS = {"status": _status, "next": _next, "record": _record, "log": _log, "export": _export, "undo": _undo,
         "verify": _verify, "check": _check}


def _page(path, route):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from certirank.web import create_app
    return TestClient(create_app(path, token="tamper-test-token-0"), base_url="http://127.0.0.1"), route


def _fingerprint(path):
    con = sqlite3.connect(path)
    try:
        return [con.execute(f"SELECT * FROM {t}").fetchall() for t in ("meta", "records", "checkpoint")]
    finally:
        con.close()


@pytest.mark.parametrize("verb", [*VERBS, "page: ranking", "page: history"])
@pytest.mark.parametrize("edit", list(EDITS))
def test_every_edit_is_refused_by_every_verb(template, tmp_path, edit, verb):
    src, older, _ = template
    path = tmp_path / "lab.campaign"
    shutil.copy(src, path)
    page = _page(path, "/ranking" if verb == "page: ranking" else "/history") if verb.startswith("page") else None
    before = (page[0].get(page[1]).text if page else VERBS[verb](path, tmp_path)) if edit in MIDDLE_ROW and \
        verb in CHECKPOINT_ONLY and verb != "record" else None
    con = sqlite3.connect(path)
    EDITS[edit](con, older)
    con.commit()
    con.close()
    edited = _fingerprint(path)
    if edit in MIDDLE_ROW and verb in CHECKPOINT_ONLY:
        # the checkpoint is intact: these verbs show what they showed before the edit (log/export/undo refuse)
        after = page[0].get(page[1]) if page else VERBS[verb](path, tmp_path)
        if page:
            assert after.status_code == 200 and after.text == before
        elif verb == "status":
            # everything but the head hash, which a re-hashed chain moves: the hash an outside anchor would check
            strip = lambda d: {**d, "details": {**d["details"], "head_hash": None}}  # noqa: E731
            assert strip(after) == strip(before)
            assert (after["details"]["head_hash"] != before["details"]["head_hash"]) == ("recomputed" in edit)
        elif verb != "record":
            assert after == before
        return
    if page:
        r = page[0].get(page[1])
        assert r.status_code == 400, (edit, r.status_code)
        assert "Traceback" not in r.text and len(r.text) < 2000
        return
    with pytest.raises(CertirankError) as info:
        VERBS[verb](path, tmp_path)
    assert "\n" not in str(info.value)
    assert _fingerprint(path) == edited  # a refusal writes nothing


@pytest.mark.parametrize("edit, words", [
    ("config alpha + config_sha256 recomputed", "first entry is not chained to the configuration"),
    ("config alpha + config_sha256 + whole hash chain recomputed", "other settings than the locked configuration (alpha"),
    ("a recorded score flipped", "entry 3: content does not match its hash"),
    ("a score flipped + chain recomputed", "entry 3"),
    ("last record deleted", "the last entries were deleted"),
    ("a middle record deleted", "entries were deleted or inserted"),
    ("a row inserted", "entries were added by hand or the checkpoint was replaced"),
    ("a record marked undone without an undo row", "undo mark"),
    ("checkpoint state changed + state_sha256 recomputed", "checkpoint state is not the one entry"),
    ("checkpoint swapped for an older one", "the checkpoint is at entry 12"),
    ("checkpoint live_records edited", "live records"),
    ("table suggested dropped", "table suggested is missing"),
])
def test_refusals_name_what_was_edited(template, tmp_path, edit, words):
    src, older, _ = template
    path = tmp_path / "lab.campaign"
    shutil.copy(src, path)
    con = sqlite3.connect(path)
    EDITS[edit](con, older)
    con.commit()
    con.close()
    verb = _log if edit in MIDDLE_ROW else _status
    with pytest.raises(CertirankError, match=None) as info:
        verb(path, tmp_path)
    assert words in str(info.value), str(info.value)


def test_undo_never_adopts_an_edited_alpha(template, tmp_path):
    """The finding's two-statement forgery (alpha 0.1 -> 0.6 and its checksum) and its stronger form (the whole
    chain re-hashed): `undo` refuses both, and `status` keeps certifying nothing new at alpha 0.1."""
    src, older, _ = template
    for edit in ("config alpha + config_sha256 recomputed", "config alpha + config_sha256 + whole hash chain recomputed"):
        path = tmp_path / f"{len(edit)}.campaign"
        shutil.copy(src, path)
        con = sqlite3.connect(path)
        EDITS[edit](con, older)
        con.commit()
        con.close()
        with pytest.raises(CertirankError):
            _undo(path, tmp_path)
        with Campaign(path, _check_config=False) as c:
            assert not c.verify().ok


def _v1(tmp_path: Path, name: str) -> Path:
    src = Path(__file__).parent / "fixtures" / "campaign_v1" / name
    path = tmp_path / name
    shutil.copy(src, path)
    return path


@pytest.mark.parametrize("name", ["anyrank_v1.campaign", "leaderboard_v1.campaign", "blind_v1.campaign"])
def test_schema_1_files_keep_opening_and_are_migrated_by_their_first_write(tmp_path, name):
    """Files written by certirank before the checkpoint was sealed into the chain (schema 1): every verb reads
    them as they are, `verify` passes, and the first write migrates them (old rows keep their hashes; new rows
    seal their checkpoint), after which the O(1) checks cover the checkpoint too."""
    path = _v1(tmp_path, name)
    with Campaign.open(path) as c:
        before = c.status().to_dict()
        rows = c.log().entries
        assert _verified(c) and c._store.version == 1
        if c.kind == "anyrank":
            s = c.next(remember=False)[0]
            c.record(s.policy, s.trial, 1.0)
        else:
            import pandas as pd
            c.add_run(pd.DataFrame([{"model": m, "item": f"q{i}", "score": 0.5} for m in ("m1", "m2", "m3")
                                    for i in range(8)]))
        assert c._store.version == SCHEMA_VERSION
    with Campaign.open(path) as c:
        assert _verified(c)
        assert [e.hash for e in c.log().entries[:len(rows)]] == [e.hash for e in rows]
        assert c.status().records == before["details"]["records"] + 1
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    blob = con.execute("SELECT state FROM checkpoint").fetchone()[0]
    con.execute("UPDATE checkpoint SET state = ?, state_sha256 = ?", (blob + b" ", _sha(blob + b" ")))
    con.commit()
    con.close()
    with pytest.raises(CertirankError, match="checkpoint state is not the one entry"):
        Campaign.open(path)


def _verified(c: Campaign) -> bool:
    """verify passes; for a leaderboard written by the previous BB-EDGE, whose betting state (``families``) today's
    engine recomputes in other last digits, the only failed check is that replay, and only in ``families``."""
    rep = c.verify()
    if c.kind != "leaderboard" or rep.ok:
        return rep.ok
    failed = {ch.name: ch.detail for ch in rep.failures}
    return list(failed) == ["replay of the records equals the checkpoint"] and \
        failed["replay of the records equals the checkpoint"] == "differs in families, state_sha256"
