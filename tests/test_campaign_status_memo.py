"""A campaign's status is computed once per content of the file in a process, not once per read (the page under
many readers, issue 33 item 2), and never served stale: after a record, an undo, a fault, an amendment, an
unblinding, a note, or a hand edit of a row a status reads, the memo misses and the status is the one computed
from scratch; an edit that makes the file refuse to open is refused, not hidden by the memo."""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest

from certirank import Campaign
from certirank.campaign import _status
from certirank.errors import StateError


@pytest.fixture
def computed(monkeypatch):
    """How many statuses were computed (memo misses); the memo starts empty."""
    monkeypatch.setattr(_status, "_MEMO", type(_status._MEMO)())
    calls = {"n": 0}
    original = _status._status

    def counted(*args):
        calls["n"] += 1
        return original(*args)

    monkeypatch.setattr(_status, "_status", counted)
    return calls


def _started(tmp_path, *, blind=False, records=3):
    db = tmp_path / "memo.campaign"
    Campaign.init(db, ["a", "b", "c"], alpha=0.1, n_max=60, seed=1, blind=blind, tags=["grasp", "place"],
                  checklist=["pads clean"]).close()
    with Campaign.open(db) as c:
        for _ in range(records):
            s = c.next()[0]
            c.record(s.policy, s.trial, 1.0, tags=["grasp"])
    return db


def _read(db):
    with Campaign.open(db) as c:  # a new reader each time, as the page opens the file per request
        return c.status().to_dict()


def _from_scratch(db, monkeypatch):
    """The status with an empty memo: what the memo must agree with."""
    monkeypatch.setattr(_status, "_MEMO", type(_status._MEMO)())
    return _read(db)


def test_reads_between_writes_compute_once(tmp_path, computed):
    db = _started(tmp_path)
    first = _read(db)
    for _ in range(3):
        assert _read(db) == first
    assert computed["n"] == 1
    with Campaign.open(db) as c:  # a reader that stays open (the page's event stream) shares it too
        assert c.status().to_dict() == first and c.status().to_dict() == first
    assert computed["n"] == 1


def _record(c):
    s = c.next()[0]
    c.record(s.policy, s.trial, 0.0, tags=["place"])


def _fault(c):
    s = c.next()[0]
    c.fault(s.policy, s.trial, "e-stop")


WRITES = {
    "record": _record,
    "undo": lambda c: c.undo(),
    "fault": _fault,
    "amend": lambda c: c.amend({"checklist": ["pads clean", "towel flat"]}, reason="a second check"),
    "note": lambda c: c.note("gripper pads changed"),
    "unblind": lambda c: c.unblind(by="lead"),
}


@pytest.mark.parametrize("write", list(WRITES))
def test_every_write_is_a_miss_and_shows_what_a_fresh_status_shows(tmp_path, computed, monkeypatch, write):
    db = _started(tmp_path, blind=write == "unblind")
    before = _read(db)
    with Campaign.open(db) as c:
        WRITES[write](c)
    after = _read(db)
    assert computed["n"] == 2 and after != before
    assert after == _from_scratch(db, monkeypatch)
    if write == "unblind":
        assert set(after["details"]["rollouts"]) == {"a", "b", "c"} != set(before["details"]["rollouts"])
    if write == "amend":
        assert after["details"]["checklist"] == ["pads clean", "towel flat"]


def test_a_write_from_a_reader_that_stays_open_is_seen(tmp_path, computed):
    db = _started(tmp_path)
    with Campaign.open(db) as reader, Campaign.open(db) as writer:
        before = reader.status().to_dict()
        _record(writer)
        assert reader.status().to_dict()["details"]["records"] == before["details"]["records"] + 1
    assert computed["n"] == 2


def _edit(db, sql, *args):
    con = sqlite3.connect(db, isolation_level=None)
    try:
        con.execute(sql, args)
    finally:
        con.close()


def test_a_hand_edit_of_a_row_the_head_check_cannot_see_is_a_miss(tmp_path, computed, monkeypatch):
    """An edit of an older entry passes the O(1) check of every open (only `verify` reads the whole chain): the
    status reads the faults' and tags' rows, so it must show the edited file as a fresh status does."""
    db = _started(tmp_path)
    with Campaign.open(db) as c:
        _fault(c)
        c.note("the fault is no longer the head row")
    before = _read(db)
    fault_id = next(r["entry"] for r in before["details"]["open_faults"])
    _edit(db, "UPDATE records SET payload = ? WHERE id = ?", json.dumps({"reason": "edited"}), fault_id)
    after = _read(db)
    assert computed["n"] == 2 and [f["reason"] for f in after["details"]["open_faults"]] == ["edited"]
    assert after == _from_scratch(db, monkeypatch)
    _edit(db, "UPDATE records SET payload = ? WHERE id = 1", json.dumps({"tags": ["place"]}))
    edited = _read(db)
    assert edited["details"]["tags"] != after["details"]["tags"] and edited == _from_scratch(db, monkeypatch)


def test_a_hand_edit_that_the_file_refuses_is_refused_not_served_from_the_memo(tmp_path, computed):
    db = _started(tmp_path)
    _read(db)
    # the engine checkpoint's bytes, changed without their checksum
    con = sqlite3.connect(db, isolation_level=None)
    blob = bytearray(con.execute("SELECT state FROM checkpoint").fetchone()[0])
    con.close()
    blob[len(blob) // 2] ^= 0xFF
    _edit(db, "UPDATE checkpoint SET state = ?", bytes(blob))
    with pytest.raises(StateError, match="checksum"):
        _read(db)
    # an undo mark edited: the live count no longer matches, which every open checks
    second = tmp_path / "second"
    second.mkdir()
    db2 = _started(second)
    _read(db2)
    _edit(db2, "UPDATE records SET undone_by = 1 WHERE id = 2")
    with pytest.raises(StateError, match="live"):
        _read(db2)


def test_a_file_replaced_by_an_older_copy_is_a_miss(tmp_path, computed, monkeypatch):
    db = _started(tmp_path)
    old = tmp_path / "old.copy"
    shutil.copy(db, old)
    first = _read(db)
    with Campaign.open(db) as c:
        _record(c)
    moved = _read(db)
    for suffix in ("-wal", "-shm"):  # a copy of the file alone, as a backup restore would put back
        (tmp_path / f"memo.campaign{suffix}").unlink(missing_ok=True)
    shutil.copy(old, db)
    back = _read(db)
    assert back == first != moved and back == _from_scratch(db, monkeypatch)


def test_a_caller_that_changes_its_status_does_not_change_the_next(tmp_path, computed):
    db = _started(tmp_path)
    with Campaign.open(db) as c:
        st = c.status()
        st.rollouts["a"] = 99
        st.warnings.append("changed by the caller")
        again = c.status()
    assert again.rollouts["a"] != 99 and "changed by the caller" not in again.warnings
    assert computed["n"] == 1


def test_the_memo_holds_a_bounded_number_of_statuses(tmp_path, computed):
    db = _started(tmp_path, records=0)
    with Campaign.open(db) as c:
        for _ in range(_status._MEMO_SIZE + 4):
            c.note("one more entry")
            c.status()
    assert len(_status._MEMO) == _status._MEMO_SIZE
