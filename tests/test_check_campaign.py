"""`certirank check` on a campaign file: exit codes 0/1/3 agree with the campaign's own certified ranking, an
edited file is refused (exit 2), and the Markdown report renders."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
from markdown_it import MarkdownIt
from typer.testing import CliRunner

import certirank
from certirank.campaign import Campaign
from certirank.cli import app

runner = CliRunner()
MEANS = {"A": 0.9, "B": 0.2, "C": 0.88}


def _campaign(tmp_path):
    c = Campaign.init(tmp_path / "lab.campaign", list(MEANS), alpha=0.1, n_max=60)
    rng = np.random.default_rng(19)
    for _ in range(200):
        todo = c.next()
        if not todo:
            break
        for s in todo:
            c.record(s.policy, s.trial, float(rng.random() < MEANS[s.policy]))
    st = c.status()
    # the fixture this test needs: A>B and C>B certified, A vs C open
    assert st.ranking.better("A", "B") and st.ranking.better("C", "B")
    assert not st.ranking.better("A", "C") and not st.ranking.better("C", "A")
    c.close()
    return tmp_path / "lab.campaign"


def test_exit_codes_agree_with_the_campaign(tmp_path):
    db = _campaign(tmp_path)
    for claim, code, status in (("A>B", 0, "certified"), ("A>C", 1, "not certified"),
                                ("B>A", 3, "certified the other way")):
        res = runner.invoke(app, ["check", str(db), "--claim", claim])
        assert res.exit_code == code, (claim, res.stdout, res.stderr)
        assert [ln for ln in res.stdout.splitlines() if ln.startswith(f"{claim}: {status} ")], res.stdout
    out = certirank.check(db, ["A>B", "C>B", "A<C"])
    assert [c["status"] for c in out.claims] == ["certified", "certified", "not certified"]
    assert out.alpha == 0.1 and out.exit_code == 1
    res = runner.invoke(app, ["check", str(db), "--claim", "A>B", "--json"])
    assert json.loads(res.stdout)["details"]["claims"][0]["status"] == "certified"
    # a smaller alpha than the locked one is refused; options that do not apply are refused
    assert runner.invoke(app, ["check", str(db), "--claim", "A>B", "--alpha", "0.05"]).exit_code == 2
    assert runner.invoke(app, ["check", str(db), "--claim", "A>B", "--bettor", "kelly"]).exit_code == 2
    res = runner.invoke(app, ["check", str(db), "--claim", "A>Z"])
    assert res.exit_code == 2 and "'Z' is not in campaign" in res.stderr


def test_tampered_campaign_is_refused(tmp_path):
    db = _campaign(tmp_path)
    con = sqlite3.connect(db)
    con.execute("UPDATE records SET score = 1.0 - score WHERE id = 2")
    con.commit()
    con.close()
    res = runner.invoke(app, ["check", str(db), "--claim", "A>B"])
    assert res.exit_code == 2 and "failed verification" in res.stderr and "hash chain" in res.stderr
    assert "Traceback" not in res.stderr


def test_markdown_on_a_campaign(tmp_path):
    db = _campaign(tmp_path)
    res = runner.invoke(app, ["check", str(db), "--claim", "A>B", "--claim", "A>C", "--markdown"])
    assert res.exit_code == 1, res.stderr
    from test_check_markdown import _tables
    (table,) = _tables(res.stdout)
    assert table[0][:2] == ["claim", "status"]
    assert [r[:2] for r in table[1:]] == [["A>B", "certified"], ["A>C", "not certified"]]
    tokens = MarkdownIt("commonmark").enable("table").parse(res.stdout)
    assert sum(t.type == "blockquote_open" for t in tokens) == 1
