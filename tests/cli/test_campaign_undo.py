"""`certirank campaign undo`: an entry is marked undone (kept, with who and when), the ranking is recomputed
without it, and an entry that is not there is a one-line refusal."""

from __future__ import annotations

import json

from certirank import Campaign


def _two_records(cli, tmp_path):
    db = tmp_path / "u.campaign"
    cli.ok(["campaign", "init", db, "--policies", "A,B", "--n-max", "20", "--seed", "1"])
    cli.ok(["campaign", "record", db, "A", "0", "1", "--by", "ana"])
    cli.ok(["campaign", "record", db, "B", "0", "0", "--by", "ana"])
    return db


def test_undo_marks_the_latest_record_and_the_status_drops_it(cli, tmp_path):
    db = _two_records(cli, tmp_path)
    undone = json.loads(cli.ok(["campaign", "undo", db, "--by", "bo", "--note", "wrong robot", "--json"]))
    assert (undone["id"], undone["policy"], undone["undone_by"], undone["undone_who"]) == (2, "B", 3, "bo")
    with Campaign.open(db) as c:
        log = c.log().to_dict()["entries"]
        status = c.status().to_dict()
    assert [e["action"] for e in log] == ["record", "record", "undo"] and log[2]["note"] == "wrong robot"
    assert log[1]["undone_by"] == 3  # kept in the log, marked
    assert json.loads(cli.ok(["campaign", "status", db, "--json"])) == status
    # the ranking is recomputed without the undone record
    assert status["details"]["rollouts"] == {"A": 1, "B": 0}
    assert (status["details"]["records"], status["details"]["undone"]) == (1, 1)


def test_undo_a_given_entry_and_refuse_one_that_is_not_there(cli, tmp_path):
    db = _two_records(cli, tmp_path)
    undone = json.loads(cli.ok(["campaign", "undo", db, "1", "--json"]))
    assert (undone["id"], undone["policy"], undone["undone_by"]) == (1, "A", 3)
    cli.fails(["campaign", "undo", db, "99"], "no record 99", "1..3")
    with Campaign.open(db) as c:
        assert len(c.log().to_dict()["entries"]) == 3  # the refusal wrote nothing
