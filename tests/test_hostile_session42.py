"""Hostile review of session 42's features (item campaigns, leaderboard forecasts, a budget of replicates): each
test is a problem found by using them as a hostile user would, failing before its fix."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import numpy as np
import pytest

from certirank import Campaign, Leaderboard
from certirank.campaign._items import check_difficulty, check_items
from certirank.errors import ParameterError


def _cli(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "certirank", *args], capture_output=True, text=True, cwd=cwd)


# ---------------------------------------------------------------- item campaigns: input files


def test_a_byte_order_mark_is_not_part_of_the_first_item_name(tmp_path):
    """Spreadsheet exports start with a BOM; every other reader of the package drops it (utf-8-sig). Kept, the
    first item was silently named '\\ufeffq1' and the difficulty file's first row was refused as unknown."""
    items = tmp_path / "items.txt"
    items.write_bytes("q1\nq2\n".encode("utf-8-sig"))
    assert check_items(items) == ["q1", "q2"]
    rates = tmp_path / "d.csv"
    rates.write_bytes("q1,0.5\nq2,0.25\n".encode("utf-8-sig"))
    assert check_difficulty(rates, ["q1", "q2"]) == [0.5, 0.25]


def test_a_bad_rate_on_the_first_data_row_is_named_not_taken_for_a_header(tmp_path):
    """Only the first line may be a header: a data row whose rate is not a number was skipped as a second header,
    and the error then said the item had no rate."""
    rates = tmp_path / "d.csv"
    rates.write_text("item,rate\nq1,50%\nq2,0.5\n")
    with pytest.raises(ParameterError, match=r"item 'q1' is '50%'"):
        check_difficulty(rates, ["q1", "q2"])
    rates.write_text("q1,abc\nq2,0.5\n")  # no header, a bad first row: refused, not skipped
    with pytest.raises(ParameterError, match=r"item 'q1' is 'abc'"):
        check_difficulty(rates, ["q1", "q2"])


# ---------------------------------------------------------------- item campaigns: a tampered file


@pytest.mark.parametrize("payload", ['{"item":"1","probability":0.5,"scores":[1,0]}',
                                     '{"item":"1","probability":0.5,"scores":"a=1"}'])
def test_verify_reports_a_record_edited_into_a_malformed_one(tmp_path, payload):
    """A row edited in the SQLite file into scores that are not a mapping: verify printed a traceback
    (AttributeError) instead of its FAIL lines, exit 1."""
    db = tmp_path / "t.campaign"
    with Campaign.init(db, kind="items", models=["a", "b"], items=4, seed=0) as c:
        s = c.next()[0]
        c.record_item(s.item, {"a": 1, "b": 0})
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE records SET payload = ? WHERE action = 'record'", (payload,))
    p = _cli("campaign", "verify", str(db))
    assert p.returncode == 1, p.stderr[-800:]
    assert "Traceback" not in p.stderr and "FAIL" in p.stdout
    assert "replay of the records" in p.stdout


# ---------------------------------------------------------------- leaderboard forecasts


@pytest.mark.parametrize("scores", ["ones", "same-draws"])
def test_identical_models_get_no_forecast(scores):
    """Models with identical scores on every item are tied: no replicate count decides them. Float noise in the
    board's block sums gave one such pair a mean growth of 1e-16 and 'more_needed' of about 3e15 replicates,
    while another identical pair got None."""
    rng = np.random.default_rng(1)
    lb = Leaderboard(["a", "b", "c"])
    for _ in range(3):
        if scores == "ones":
            lb.add_replicate(np.ones((3, 30)))
        else:
            x = (rng.random(30) < 0.5).astype(float)
            lb.add_replicate(np.vstack([x, x, x]))
    details = lb.result().undecided_details
    assert len(details) == 3
    for d in details:
        assert d["more_needed"] is None, d


def test_a_pair_with_equal_sums_gets_no_forecast():
    """Two models with the same total on every replicate (one scores the other's items in another order): their
    estimated gap is exactly 0, but rounding in the weighted sums left a growth of ~1e-30 and forecasts of ~1e30
    replicates (6 of these 20 seeded boards before the fix)."""
    for seed in range(20):
        rng = np.random.default_rng(seed)
        lb = Leaderboard(["a", "b", "c"])
        for _ in range(3):
            x = (rng.random(200) < 0.5).astype(float)
            lb.add_replicate(np.vstack([x, rng.permutation(x), (rng.random(200) < 0.5).astype(float)]))
        for d in lb.result().undecided_details:
            if sorted(d["pair"]) == ["a", "b"]:
                assert d["more_needed"] is None, (seed, d)


def test_an_item_the_command_line_cannot_record_is_refused_at_init(tmp_path):
    """An item named '-x' was accepted at init, but `campaign record DB -x DRAW` reads it as an option (with or
    without `--`): once drawn, a command-line campaign was stuck on that draw."""
    items = tmp_path / "items.txt"
    items.write_text("q1\n-x\n")
    p = _cli("campaign", "init", str(tmp_path / "c.campaign"), "--kind", "items", "--models", "a,b",
             "--items", str(items))
    assert p.returncode == 2 and "item '-x' starts with '-'" in p.stderr and "Traceback" not in p.stderr
    assert not (tmp_path / "c.campaign").exists()


@pytest.mark.parametrize("kind", ["leaderboard", "items"])
def test_amending_the_budget_of_a_board_campaign_says_it_is_locked(tmp_path, kind):
    """A leaderboard or item campaign has a budget (n_max) since this session; amending it said 'n_max is for robot
    campaigns (--kind anyrank)', which the same campaign's --n-max contradicts."""
    db = tmp_path / "b.campaign"
    extra = {"items": 4} if kind == "items" else {}
    Campaign.init(db, kind=kind, models=["a", "b"], n_max=3, **extra).close()
    p = _cli("campaign", "amend", str(db), "n_max=5", "--reason", "more")
    assert p.returncode == 2 and "robot campaigns" not in p.stderr
    assert f"n_max cannot be amended in a {kind} campaign" in p.stderr and "locked at init" in p.stderr


def test_a_model_name_with_an_equals_sign_can_be_scored_from_the_command_line(tmp_path):
    """`--models 'a=b,c'` is accepted and `next` prints `--scores a=b=SCORE,c=SCORE`, but the scores text was split
    at the first '=': model 'a' with score 'b=1', refused, so the command line could never record a draw."""
    db = tmp_path / "e.campaign"
    with Campaign.init(db, kind="items", models=["a=b", "c"], items=3, seed=0) as c:
        s = c.next()[0]
    p = _cli("campaign", "record", str(db), s.item, "1", "--scores", "a=b=1,c=0")
    assert p.returncode == 0, p.stderr
    with Campaign.open(db) as c:
        assert c.records()[-1].scores == {"a=b": 1.0, "c": 0.0}


def test_a_boolean_rate_or_a_missing_item_name_is_refused():
    """Scores refuse True/False (item_scores); the difficulty rates took True as 1.0, and an item list holding None
    named an item 'None', both silently."""
    with pytest.raises(ParameterError, match="rate of item 'a' is True"):
        check_difficulty([True, 0.5], ["a", "b"])
    with pytest.raises(ParameterError, match="rate of item 'a' is False"):
        check_difficulty({"a": False, "b": 0.5}, ["a", "b"])
    with pytest.raises(ParameterError, match="item 1 has an empty name"):
        check_items([None, "x"])


def test_the_page_api_needs_the_draw_number_as_the_command_line_does(tmp_path):
    """`campaign record DB ITEM DRAW` requires the draw (a retried or doubled write is then refused as stale), and
    the page's rollout route requires the trial; POST /api/v1/record-item took a record without a draw, so a
    resent request could land on the next draw whenever the same item was drawn again."""
    pytest.importorskip("fastapi", reason="the campaign page needs the 'web' extra (fastapi)")
    pytest.importorskip("multipart", reason="the campaign page needs the 'web' extra (python-multipart)")
    from fastapi.testclient import TestClient

    from certirank.web import create_app
    db = tmp_path / "w.campaign"
    with Campaign.init(db, kind="items", models=["a", "b"], items=1, seed=0) as c:  # one item: drawn every time
        s = c.next()[0]
    auth = {"X-Certirank-Token": "t", "Accept": "application/json"}
    client = TestClient(create_app(db, token="t"), base_url="http://127.0.0.1")
    body = {"item": s.item, "scores": {"a": 1, "b": 0}}
    assert client.post("/api/v1/record-item", json={**body, "draw": 1}, headers=auth).status_code == 200
    r = client.post("/api/v1/record-item", json=body, headers=auth)  # the same request again, without its draw
    assert r.status_code == 400 and "'draw' is missing" in r.text
    with Campaign.open(db) as c:
        assert len(c.records()) == 1


@pytest.mark.parametrize("name", ["x" * 1001, "a\0b"])
def test_an_item_name_record_item_would_refuse_is_refused_at_init(name):
    """record_item takes an item name of at most 1,000 characters without NUL; init took any name, so such an
    item, once drawn, could never be recorded (the campaign stuck on it)."""
    with pytest.raises(ParameterError, match=r"items: item 1 must be an item name"):
        check_items([name, "ok"])
