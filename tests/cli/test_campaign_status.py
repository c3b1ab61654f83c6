"""`certirank campaign status`: what the campaign has certified and what is open (verdicts, equivalent pairs of a
campaign with a margin, rollouts recorded ahead, a blind campaign's codes, a finished campaign), its plot and
its JSON (the API's `Campaign.status()`)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import certirank
from certirank import Campaign
from certirank.errors import StateError

from test_campaign_audit import _blind_out_of_order, _fill
from test_campaign_verdicts import ran


def test_campaign_margin_status_shows_equivalent(cli, tmp_path):
    out = cli(["campaign", "init", str(tmp_path / "c.campaign"), "--policies", "A,B,C",
               "--margin", "0.1", "--n-max", "300", "--seed", "1"])
    assert out.exit_code == 0, out.output
    rng = np.random.default_rng(3)
    base = rng.uniform(0.3, 0.7, 300)
    with certirank.Campaign.open(tmp_path / "c.campaign") as c:
        for _ in range(400):
            todo = c.next()
            if not todo:
                break
            for item in todo:
                p, t = item.policy, item.trial
                c.record(p, t, float(np.clip(base[t] + (0.3 if p == "C" else 0.0) + rng.normal(0, 0.1), 0, 1)))
            if c.status().to_dict()["ranking"]["equivalent"]:
                break
        st = c.status()
    eq = [v for v in st.verdicts if v["verdict"] == "equivalent"]
    assert len(eq) == 1 and set(eq[0]["pair"]) == {"A", "B"} and "margin of 0.1" in eq[0]["sentence"]
    out = cli(["campaign", "status", str(tmp_path / "c.campaign")])
    assert out.exit_code == 0 and "equivalent" in out.stdout
    bad = cli(["campaign", "init", str(tmp_path / "d.campaign"), "--kind", "leaderboard",
               "--models", "a,b", "--margin", "1.0"])  # a leaderboard takes a margin (issue 35), in (0, 1)
    assert bad.exit_code == 2 and "margin" in bad.output


def test_cli_status_plot_count_and_leaderboard(cli, tmp_path):
    run = cli
    db = str(tmp_path / "p.campaign")
    assert run(["campaign", "init", db, "--policies", "a,b,c,d", "--n-max", "10", "--blind", "--seed", "4"]
               ).exit_code == 0
    r = run(["campaign", "next", db, "--count", "2", "--json"])
    assert len(json.loads(r.output)["suggestions"]) == 2
    r = run(["campaign", "status", db, "--plot", str(tmp_path / "g.svg")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "g.svg").read_text().lstrip().startswith(("<?xml", "<svg"))
    lb = str(tmp_path / "lb.campaign")
    r = run(["campaign", "init", lb, "--kind", "leaderboard", "--models", "x,y", "--alpha", "0.1"])
    assert r.exit_code == 0, r.output
    rows = [{"model": m, "item": f"i{k}", "score": (0.9 if m == "x" else 0.1)} for m in "xy" for k in range(30)]
    pd.DataFrame(rows).to_csv(tmp_path / "run.csv", index=False)
    r = run(["campaign", "add-run", lb, str(tmp_path / "run.csv"), "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["trial"] == 1
    r = run(["campaign", "status", lb, "--json"])
    assert json.loads(r.output)["details"]["result"]["details"]["replicates"] == 1
    pd.DataFrame(rows[:30]).to_csv(tmp_path / "half.csv", index=False)
    r = run(["campaign", "add-run", lb, str(tmp_path / "half.csv")])
    assert r.exit_code == 2 and "'y'" in r.output
    r = run(["campaign", "record", lb, "x", "0", "1"])
    assert r.exit_code == 2 and "add-run" in r.output


def test_status_text_counts_rollouts_recorded_ahead(cli, tmp_path):
    db = tmp_path / "s.campaign"
    c = Campaign.init(db, ["a", "b", "c"], n_max=20)
    c.record("a", 9, 1.0, ahead=True)
    _fill(c, 1)
    r = cli.campaign("status", db)
    assert r.exit_code == 0, r.output
    assert "Rollouts recorded: a 2, b 1, c 1." in cli.words(r)
    assert json.loads(cli.campaign("status", db, "--json").output)["details"]["rollouts"] == {"a": 2, "b": 1, "c": 1}
    rem = c.status().remaining
    assert f"at most {rem['total']} more rollouts" in cli.words(r) and rem["total"] == sum(rem["per_policy"].values())


def test_blind_status_lists_rollouts_and_budget_in_code_order(cli, tmp_path):
    names = ["zetapol", "alphapol", "midpol"]
    c, codes = _blind_out_of_order(tmp_path, names)
    db = c.path
    st = c.status()
    assert list(st.rollouts) == sorted(codes) and list(st.remaining["per_policy"]) == sorted(codes)
    out = cli.words(cli.campaign("status", db))
    assert "Rollouts recorded: " + ", ".join(f"{x} 0" for x in sorted(codes)) in out
    assert "(" + ", ".join(f"{x} 30" for x in sorted(codes)) + ";" in out
    c.next()
    with pytest.raises(StateError) as info:
        c.record(codes[0], 5, 1.0)
    assert "needs: " + ", ".join(f"{x} 0" for x in sorted(codes)) + "." in str(info.value)


def test_status_of_a_complete_campaign_says_it_once_and_that_you_can_stop(cli, tmp_path):
    db = tmp_path / "done.campaign"
    with Campaign.init(db, ["a", "b"], n_max=50) as c:
        for i in range(30):
            if c.status().complete:
                break
            c.record("a", i, 1.0)
            c.record("b", i, 0.0)
        assert c.status().complete
    out = cli.words(cli.campaign("status", db))
    assert out.count("Every pair is decided") == 1 and "You can stop" in out


def test_cli_status_prints_the_open_verdicts_and_its_json_is_the_api(cli, ran):
    run = cli
    r = run(["campaign", "status", str(ran), "--json"])
    assert r.exit_code == 0, r.output
    with Campaign.open(ran) as c:
        assert json.loads(r.output) == c.status().to_dict()
    text = run(["campaign", "status", str(ran)]).output
    assert "futile: even vs even2: futile at the budget" in " ".join(text.split())
    assert "undecided: strong vs mid: undecided after 24 paired trials; about" in " ".join(text.split())
