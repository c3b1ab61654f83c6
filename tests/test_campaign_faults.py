"""Tags, faults and notes (issue 34 item 4): `record --tag` against a declared list (closed or open), `record
--fault REASON` for a rollout that could not be judged (stored, never counted, offered again by `next`), free
notes; all in status, export and the log; refusals leave the file unchanged."""

from __future__ import annotations

import sqlite3

import pandas as pd
import pytest

from certirank import Campaign
from certirank.errors import ParameterError, StateError


def _fingerprint(path) -> tuple:
    con = sqlite3.connect(path)
    try:
        return (con.execute("SELECT * FROM records ORDER BY id").fetchall(),
                con.execute("SELECT last_id, head_hash, state, live_records FROM checkpoint").fetchone(),
                con.execute("SELECT * FROM suggested ORDER BY policy, trial").fetchall())
    finally:
        con.close()


def _state(path) -> bytes:
    con = sqlite3.connect(path)
    try:
        return bytes(con.execute("SELECT state FROM checkpoint").fetchone()[0])
    finally:
        con.close()


@pytest.fixture()
def camp(tmp_path):
    c = Campaign.init(tmp_path / "f.campaign", ["a", "b", "c"], alpha=0.1, n_max=50,
                      environments=["kitchen", "sink", "shelf"], seed=1, tags=["grasp", "transport", "place"])
    yield c
    c.close()


def test_tags_from_a_closed_list(camp):
    s = camp.next()
    rec = camp.record(s[0].policy, s[0].trial, 0.0, tags=["transport", "grasp", "grasp"])
    assert rec.tags == ["grasp", "transport"]  # sorted, once
    before = _fingerprint(camp.path)
    with pytest.raises(ParameterError, match="unknown tag 'slip'; this campaign's tag list is closed") as info:
        camp.record(s[1].policy, s[1].trial, 0.0, tags=["slip"])
    assert "\n" not in str(info.value)
    for bad in (["a,b"], [""], ["x" * 41], ["new\nline"]):
        with pytest.raises(ParameterError):
            camp.record(s[1].policy, s[1].trial, 0.0, tags=bad)
    assert _fingerprint(camp.path) == before
    st = camp.status()
    assert st.tags == {"grasp": {s[0].policy: 1}, "transport": {s[0].policy: 1}}
    assert camp.log().entries[-1].tags == ["grasp", "transport"]


def test_an_open_list_and_no_list_take_any_tag(tmp_path):
    c = Campaign.init(tmp_path / "o.campaign", ["a", "b"], alpha=0.1, n_max=20, tags=["grasp"], open_tags=True)
    assert c.record("a", 0, 1, tags=["slip"]).tags == ["slip"]
    d = Campaign.init(tmp_path / "n.campaign", ["a", "b"], alpha=0.1, n_max=20)
    assert d.design.open_tags and d.record("a", 0, 1, tags=["anything"]).tags == ["anything"]


def test_a_fault_is_stored_never_counted_and_offered_again(camp):
    s = camp.next()
    target = s[1]
    state = _state(camp.path)
    rec = camp.fault(target.policy, target.trial, "e-stop", tags=["grasp"], note="arm hit the shelf")
    assert rec.action == "fault" and rec.fault == "e-stop" and rec.tags == ["grasp"]
    assert _state(camp.path) == state  # the engine saw nothing: not a failure, not a missing run
    again = [x for x in camp.next() if (x.policy, x.trial) == (target.policy, target.trial)]
    assert again and again[0].faults == 1
    st = camp.status()
    assert st.faults[target.policy] == 1 and st.records == 0
    assert st.open_faults == [{"policy": target.policy, "trial": target.trial, "faults": 1, "reason": "e-stop",
                               "entry": rec.id}]
    # judged on the second try: the fault stays in the trail and the export counts it on that rollout
    camp.record(target.policy, target.trial, 1.0)
    assert camp.status().open_faults == []
    for x in camp.next():
        camp.record(x.policy, x.trial, 0.5)
    out = camp.path.with_suffix(".csv")
    camp.export(out)
    table = pd.read_csv(out, keep_default_na=False)
    row = table[(table.policy == target.policy) & (table.trial == target.trial)].iloc[0]
    assert row["faults"] == 1 and row["fault_reasons"] == "e-stop"
    assert {"environment", "schedule_block", "tags", "faults", "fault_reasons"} <= set(table.columns)
    assert (table["faults"] >= 0).all()
    assert camp.verify().ok


def test_fault_refusals_leave_the_file_unchanged(camp):
    s = camp.next()
    camp.record(s[0].policy, s[0].trial, 1.0)
    before = _fingerprint(camp.path)
    with pytest.raises(StateError, match="already recorded .* a fault is for a rollout that could not be judged"):
        camp.fault(s[0].policy, s[0].trial, "e-stop")
    with pytest.raises(ParameterError, match="a fault needs a reason"):
        camp.fault(s[1].policy, s[1].trial, "  ")
    with pytest.raises(ParameterError, match="unknown tag"):
        camp.fault(s[1].policy, s[1].trial, "reset failure", tags=["nope"])
    with pytest.raises(StateError, match="was not suggested"):
        camp.fault(s[1].policy, 17, "reset failure")
    assert _fingerprint(camp.path) == before


def test_undo_takes_back_the_latest_fault(camp):
    s = camp.next()
    camp.record(s[0].policy, s[0].trial, 1.0)
    f = camp.fault(s[1].policy, s[1].trial, "reset failure")
    live = camp.status().records
    undone = camp.undo()
    assert undone.id == f.id and undone.undone_by is not None
    st = camp.status()
    assert st.records == live and st.faults[s[1].policy] == 0 and camp.verify().ok
    assert camp.undo().action == "record" and camp.status().records == live - 1


def test_uneven_faults_are_warned_about(tmp_path):
    c = Campaign.init(tmp_path / "u.campaign", ["a", "b"], alpha=0.05, n_max=500)
    for t in range(12):
        c.record("a", t, 0.5, ahead=True)
        c.record("b", t, 0.5, ahead=True)
    for t in range(12, 24):
        c.fault("a", t, "e-stop", ahead=True)
    warn = c.status().warnings
    # 12 of 12 faults on a policy with 2/3 of the attempts: binomial p = (2/3)**12 = 0.008 < 0.01
    assert len(warn) == 1 and "faults fall unevenly: a has 12 of the 12 faults" in warn[0]
    d = Campaign.init(tmp_path / "e.campaign", ["a", "b"], alpha=0.05, n_max=500)
    for t in range(12):
        d.fault("a" if t % 2 else "b", t, "reset failure", ahead=True)
    assert d.status().warnings == []


def test_notes_are_kept_in_the_trail(camp):
    rec = camp.note("gripper pads changed", by="ana")
    assert rec.action == "note" and rec.note == "gripper pads changed" and rec.by == "ana"
    with pytest.raises(ParameterError, match="a note needs some text"):
        camp.note("   ")
    assert camp.log().entries[-1] == rec
    with pytest.raises(StateError, match="only recorded results and faults can be undone"):
        camp.undo(rec.id)


