"""`certirank campaign next`: what to run next, in words and as JSON (blind campaigns hand out codes)."""

from __future__ import annotations

import json

from certirank.campaign import Campaign


def test_blind_next_tells_the_operator_to_type_a_code(cli, tmp_path):
    db = tmp_path / "b.campaign"
    Campaign.init(db, ["a", "b"], blind=True, seed=1, n_max=10).close()
    r = cli.campaign("next", db)
    assert r.exit_code == 0 and "CODE TRIAL SCORE" in cli.words(r)


def test_next_json_says_why_there_is_nothing_to_run(cli, tmp_path):
    db = tmp_path / "d.campaign"
    c = Campaign.init(db, ["a", "b"], n_max=60, alpha=0.1)
    while c.next():
        for s in c.next():
            c.record(s.policy, s.trial, 1.0 if s.policy == "a" else 0.0)
    out = json.loads(cli.campaign("next", db, "--json").output)
    assert out["suggestions"] == [] and out["done"] is True and out["termination"] == "complete ranking"
    assert "complete ranking" in cli.words(cli.campaign("next", db))
