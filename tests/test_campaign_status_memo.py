"""A campaign's status is computed once per entry in a process, not once per read (the page under many readers,
issue 33 item 2): reads between two writes share it, a write (from any process) moves it on, and a caller that
changes what it was given changes nothing for the next reader."""

from __future__ import annotations

from certirank import Campaign
from certirank.campaign import _status


def _started(tmp_path, blind=False):
    db = tmp_path / "memo.campaign"
    Campaign.init(db, ["a", "b", "c"], alpha=0.1, n_max=60, blind=blind).close()
    return db


def test_reads_between_writes_compute_once(tmp_path, monkeypatch):
    db = _started(tmp_path)
    calls = {"n": 0}
    original = _status._status

    def counted(*args):
        calls["n"] += 1
        return original(*args)

    monkeypatch.setattr(_status, "_status", counted)
    first = Campaign.open(db).status().to_dict()
    for _ in range(3):
        with Campaign.open(db) as c:  # a new reader each time, as the page opens the file per request
            assert c.status().to_dict() == first
    assert calls["n"] == 1
    with Campaign.open(db) as writer:  # another operator records
        s = writer.next()[0]
        writer.record(s.policy, s.trial, 1.0)
    with Campaign.open(db) as c:
        moved = c.status()
    assert calls["n"] == 2 and moved.records == 1 and moved.rollouts[s.policy] == 1
    assert moved.to_dict() != first


def test_a_caller_that_changes_its_status_does_not_change_the_next(tmp_path):
    db = _started(tmp_path)
    with Campaign.open(db) as c:
        st = c.status()
        st.rollouts["a"] = 99
        st.warnings.append("changed by the caller")
        again = c.status()
    assert again.rollouts["a"] == 0 and "changed by the caller" not in again.warnings


def test_unblinding_is_not_served_from_the_blind_status(tmp_path):
    db = _started(tmp_path, blind=True)
    with Campaign.open(db) as c:
        blind = c.status()
        shown = c.status(unblind=True, by="lead")
    assert set(blind.rollouts) != {"a", "b", "c"} and set(shown.rollouts) == {"a", "b", "c"}
