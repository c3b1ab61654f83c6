"""`certirank campaign plan`: the schedule of the next rollouts, in words and as JSON (the API's), and its refusals."""

from __future__ import annotations

import json
import sqlite3

import pytest

from certirank import Campaign
from certirank.errors import ParameterError, StateError

from test_campaign_plan import ENVS


def _fingerprint(path) -> tuple:
    con = sqlite3.connect(path)
    try:
        return (con.execute("SELECT * FROM records ORDER BY id").fetchall(),
                con.execute("SELECT last_id, head_hash FROM checkpoint").fetchone(),
                con.execute("SELECT * FROM suggested ORDER BY policy, trial").fetchall())
    finally:
        con.close()


def test_plan_prints_the_schedule_and_mirrors_its_json(cli, tmp_path):
    db = tmp_path / "p.campaign"
    c = Campaign.init(db, ["a", "b", "c"], alpha=0.1, n_max=40, environments=ENVS, seed=5)
    s = c.next()
    c.record(s[0].policy, s[0].trial, 1.0)
    pl = c.plan(2)
    assert pl.rule == "balanced blocks" and pl.order == "williams" and pl.seed == 5
    assert [b["block"] for b in pl.blocks] == [0, 1]
    first = pl.blocks[0]["trials"][0]
    assert first["trial"] == 0 and first["recorded"] == [s[0].policy] and s[0].policy not in first["needed"]
    assert sorted(first["order"]) == ["a", "b", "c"]
    assert all(sorted(t["environment"] for t in b["trials"]) == sorted(ENVS) for b in pl.blocks)
    r = cli(["campaign", "plan", str(db), "--count", "2", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output) == pl.to_dict()
    r = cli(["campaign", "plan", str(db)])
    assert r.exit_code == 0 and "balanced blocks over 4 environments (seed 5)" in r.output.replace("\n", " ")


def test_a_plan_without_environments_is_a_one_line_error_and_writes_nothing(cli, tmp_path):
    db = tmp_path / "none.campaign"
    Campaign.init(db, ["a", "b"], alpha=0.1, n_max=20).close()
    before = _fingerprint(db)
    with Campaign.open(db) as c, pytest.raises(StateError, match="has no environments, so there is no schedule"):
        c.plan()
    r = cli(["campaign", "plan", str(db)])
    assert r.exit_code == 2 and r.output.startswith("error:") and r.output.count("\n") == 1, r.output
    assert _fingerprint(db) == before
    with Campaign.open(db) as c:
        with pytest.raises(ParameterError, match=r"count must be a positive integer up to 1,000, got 0"):
            c.plan(0)
        # without environments the policies still run in a Williams-balanced, seeded order
        assert c.design.schedule.order_seed is not None
