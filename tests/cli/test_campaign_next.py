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


def _runs(models, rates, seed):
    import numpy as np
    import pandas as pd
    rng = np.random.default_rng(seed)
    return pd.DataFrame([{"model": m, "item": f"q{k}", "score": float(rng.random() < p)}
                         for m, p in zip(models, rates) for k in range(30)])


def test_next_asks_for_runs_until_every_leaderboard_pair_is_decided_then_stops(cli, tmp_path):
    """A leaderboard campaign asks for another whole run while a pair is open; once every pair is certified, another
    run cannot add a claim: `next` asks for nothing and says why (text and JSON), and the status agrees."""
    db = tmp_path / "lb.campaign"
    c = Campaign.init(db, kind="leaderboard", models=["a", "b", "c"], alpha=0.1)
    runs = 0
    while True:
        out = json.loads(cli.campaign("next", db, "--json").output)
        if not out["suggestions"]:
            break
        assert out["suggestions"][0]["kind"] == "replicate" and out["suggestions"][0]["trial"] == runs + 1
        assert "once more" in cli.words(cli.campaign("next", db))
        c.add_run(_runs(["a", "b", "c"], [0.9, 0.5, 0.1], runs))
        runs += 1
        assert runs < 20
    st = c.status()
    assert runs >= 1 and st.complete and st.done and out["done"] is True
    assert out["termination"] == st.termination == "every pair is certified: another run cannot add a claim"
    assert "Nothing to run" in cli.words(cli.campaign("next", db))
