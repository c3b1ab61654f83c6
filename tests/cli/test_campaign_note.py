"""`certirank campaign note`: a free note on the audit trail (faults and tags on a record are in
test_campaign_record.py): the entry written is the log's, a retried write with its key is written once, an empty
note is a one-line refusal, and a note changes no count."""

from __future__ import annotations

import json

from certirank import Campaign


def test_a_note_is_the_logs_entry_and_a_retry_writes_it_once(cli, tmp_path):
    db = tmp_path / "n.campaign"
    cli.ok(["campaign", "init", db, "--policies", "A,B", "--n-max", "20", "--seed", "1"])
    cli.ok(["campaign", "record", db, "A", "0", "1", "--by", "ana"])
    before = json.loads(cli.ok(["campaign", "status", db, "--json"]))["details"]
    args = ["campaign", "note", db, "gripper pads changed", "--by", "bo", "--idempotency-key", "k-1", "--json"]
    note = json.loads(cli.ok(args))
    assert (note["action"], note["note"], note["by"], note["policy"]) == ("note", "gripper pads changed", "bo", None)
    assert json.loads(cli.ok(args)) == note  # sent again: the first answer, nothing written
    with Campaign.open(db) as c:
        entries = c.log().to_dict()["entries"]
    assert [e["action"] for e in entries] == ["record", "note"] and entries[-1] == note
    after = json.loads(cli.ok(["campaign", "status", db, "--json"]))["details"]
    assert (after["rollouts"], after["records"]) == (before["rollouts"], before["records"])


def test_an_empty_note_is_refused_in_one_line(cli, tmp_path):
    db = tmp_path / "n.campaign"
    cli.ok(["campaign", "init", db, "--policies", "A,B", "--n-max", "20"])
    cli.fails(["campaign", "note", db, ""], "a note needs some text")
    with Campaign.open(db) as c:
        assert c.log().to_dict()["entries"] == []
