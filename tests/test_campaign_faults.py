"""Tags, faults and notes (issue 34 item 4): `record --tag` against a declared list (closed or open), `record
--fault REASON` for a rollout that could not be judged (stored, never counted, offered again by `next`), free
notes; all in status, export and the log; refusals leave the file unchanged."""

from __future__ import annotations

import json
import sqlite3

import pandas as pd
import pytest
from typer.testing import CliRunner

from certirank import Campaign
from certirank.cli import app
from certirank.errors import ParameterError, StateError

from _records import flat


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


def test_cli_tags_faults_and_notes_mirror_the_api(tmp_path):
    run = CliRunner().invoke
    db = str(tmp_path / "cli.campaign")
    r = run(app, ["campaign", "init", db, "--policies", "a,b", "--n-max", "30", "--tags", "grasp,place"])
    assert r.exit_code == 0, r.output
    todo = json.loads(run(app, ["campaign", "next", db, "--json"]).output)["suggestions"]
    p, t = todo[0]["policy"], todo[0]["trial"]
    r = run(app, ["campaign", "record", db, p, str(t), "0", "--tag", "grasp", "--tag", "place", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    with Campaign.open(db) as c:
        assert out == c.log().entries[-1].to_dict() and out["tags"] == ["grasp", "place"]
    q = todo[1]["policy"]
    r = run(app, ["campaign", "record", db, q, str(t), "--fault", "e-stop", "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["fault"] == "e-stop"
    r = run(app, ["campaign", "record", db, q, str(t), "--fault", "e-stop"])
    assert r.exit_code == 0 and "could not be judged (e-stop)" in r.output
    for args, words in ((["record", db, q, str(t), "1", "--fault", "x"], "not both"),
                        (["record", db, q, str(t)], "--fault REASON"),
                        (["record", db, q, str(t), "1", "--tag", "slip"], "unknown tag 'slip'"),
                        (["record", db, p, str(t), "--fault", "late"], "already recorded")):
        r = run(app, ["campaign", *args])
        assert r.exit_code == 2 and r.output.startswith("error:") and words in r.output, (args, r.output)
        assert r.output.count("\n") == 1
    r = run(app, ["campaign", "note", db, "light from the window", "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["action"] == "note"
    r = run(app, ["campaign", "status", db, "--json"])
    st = flat(json.loads(r.output))
    assert st["faults"][q] == 2 and st["tags"] == {"grasp": {p: 1}, "place": {p: 1}}
    r = run(app, ["campaign", "status", db])
    assert "Faults (not counted" in r.output and "Tags: grasp" in r.output
    r = run(app, ["campaign", "log", db])
    assert "fault:" in r.output and "e-stop" in r.output and "note" in r.output
