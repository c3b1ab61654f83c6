"""One home of the check that an engine's checkpoint (its list of records) is the log's live rows (proxy and item
campaigns: `campaign verify` and every restore)."""

import json

from certirank.campaign._util import json_differences, replay_mismatch


def _values(row):
    payload = json.loads(row["payload"])
    return (payload["item"], payload["score"])


ROWS = [{"id": 1, "trial": 1, "payload": json.dumps({"item": "q1", "score": 1.0})},
        {"id": 2, "trial": 2, "payload": json.dumps({"item": "q7", "score": 0.0})}]
HELD = [("q1", 1.0), ("q7", 0.0)]


def test_agreeing_log_and_checkpoint():
    assert replay_mismatch(ROWS, HELD, _values, "an item draw") is None


def test_a_missing_record_is_named_by_count():
    assert replay_mismatch(ROWS[:1], HELD, _values, "an item draw") == \
        "the log has 1 live records, the checkpoint holds 2"


def test_an_altered_record_is_named_by_entry():
    held = [HELD[0], ("q7", 1.0)]
    assert replay_mismatch(ROWS, held, _values, "an item draw") == \
        "entry 2 (trial 2) is not the record the checkpoint holds"


def test_a_row_of_another_kind_is_named():
    rows = [ROWS[0], {"id": 2, "trial": 2, "payload": json.dumps({"proxy": 0.3})}]
    assert replay_mismatch(rows, HELD, _values, "an item draw") == "entry 2 does not hold an item draw"


def test_checkpoint_differences_are_the_differing_keys():
    a = json.dumps({"config": 1, "records": [1], "format": "x"}).encode()
    b = json.dumps({"config": 1, "records": [2]}).encode()
    assert json_differences(a, b) == ["format", "records"]
