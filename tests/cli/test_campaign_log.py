"""`certirank campaign log`: the audit trail, in words and as JSON (the API's `Campaign.log()`)."""

from __future__ import annotations

import json

from certirank import Campaign


def test_log_json_is_the_api_and_the_text_shows_who_did_what(cli, tmp_path):
    db = tmp_path / "l.campaign"
    cli.ok(["campaign", "init", db, "--policies", "A,B", "--n-max", "20", "--seed", "1"])
    cli.ok(["campaign", "record", db, "A", "0", "1", "--by", "ana"])
    cli.ok(["campaign", "record", db, "B", "0", "0", "--by", "ana"])
    cli.ok(["campaign", "undo", db, "--by", "bo", "--note", "wrong robot"])
    shown = json.loads(cli.ok(["campaign", "log", db, "--json"]))
    with Campaign.open(db) as c:
        assert shown == c.log().to_dict()
    assert [(e["id"], e["action"], e["by"]) for e in shown["entries"]] == \
        [(1, "record", "ana"), (2, "record", "ana"), (3, "undo", "bo")]
    text = cli.words(cli(["campaign", "log", db], env={"COLUMNS": "200"}))
    assert "undone by 3" in text and "undo 2" in text and "wrong robot" in text and "bo" in text


def test_log_of_a_file_that_is_not_there_is_one_line(cli, tmp_path):
    cli.fails(["campaign", "log", tmp_path / "none.campaign"], "none.campaign")
