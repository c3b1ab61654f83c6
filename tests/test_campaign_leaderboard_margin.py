"""A leaderboard campaign with an equivalence margin (issue 35): the margin locked at init, the engine holds the
difference and equivalence boards of `leaderboard(..., margin=)` (one home: `methods.bbedge.margin`), so k runs
added give the batch verb's edges and equivalent pairs; checkpoint, verify, undo, export, status and the page; a
campaign without a margin keeps today's configuration and checkpoint bytes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import certirank
from certirank import Campaign, Leaderboard
from certirank.errors import ParameterError

MODELS = ["A", "B", "C"]
FIXTURE = Path(__file__).parent / "fixtures" / "campaign_v1" / "leaderboard_v1.campaign"


def runs(seed: int = 0, n: int = 400, reps: int = 3) -> pd.DataFrame:
    """A and B answer alike (the same item difficulties, independent draws), C is 0.3 better on every item."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.2, 0.7, n)
    rows = []
    for r in range(reps):
        for m, shift in {"A": 0.0, "B": 0.0, "C": 0.3}.items():
            x = (rng.random(n) < np.clip(p + shift, 0, 1)).astype(float)
            rows += [(m, f"i{i}", r, x[i]) for i in range(n)]
    return pd.DataFrame(rows, columns=["model", "item", "replicate", "score"])


def campaign(path: Path, df: pd.DataFrame, upto: int | None = None, **kw) -> Campaign:
    c = Campaign.init(path, kind="leaderboard", models=MODELS, **kw)
    for r in sorted(df["replicate"].unique())[:upto]:
        c.add_run(df[df["replicate"] == r].drop(columns="replicate"))
    return c


def test_runs_added_give_the_batch_verbs_edges_and_equivalent_pairs(tmp_path):
    df = runs()
    batch = certirank.leaderboard(df, margin=0.1)
    assert batch.equivalent == [["A", "B"]]  # the comparison below is not between two empty lists
    with campaign(tmp_path / "m.campaign", df, margin=0.1) as c:
        res = c.result()
        st = c.status()
    assert res.edges == batch.edges and res.equivalent == batch.equivalent and res.margin == batch.margin == 0.1
    assert res.ranking.equivalent == batch.ranking.equivalent == (("A", "B"),)
    assert res.ranking.undecided == batch.ranking.undecided == ()
    assert res.alpha == batch.alpha == 0.05 and res.ranking.alpha == 0.05
    assert res.to_dict()["ranking"]["counts"]["equivalent"] == 1
    # status: the equivalent pair is a verdict of its own, the ranking is complete ("You can stop")
    by = {frozenset(v["pair"]): v for v in st.verdicts}
    assert by[frozenset("AB")]["verdict"] == "equivalent" and "margin of 0.1" in by[frozenset("AB")]["sentence"]
    assert by[frozenset("CA")]["verdict"] == by[frozenset("CB")]["verdict"] == "certified"
    assert st.complete and st.to_dict()["ranking"]["equivalent"] == [["A", "B"]]
    assert "equivalence margin 0.1" in st.test


def test_every_prefix_of_runs_agrees_with_the_batch_verb(tmp_path):
    """After each add-run (and after an undo) the campaign is the batch verb on the runs it holds."""
    df = runs(seed=3, n=150)
    with campaign(tmp_path / "p.campaign", df, upto=0, margin=0.15) as c:
        for k in range(3):
            c.add_run(df[df["replicate"] == k].drop(columns="replicate"))
            batch = certirank.leaderboard(df[df["replicate"] <= k], margin=0.15, about="benchmark")
            res = c.result()
            assert (res.edges, res.equivalent, res.ranking.undecided) == (batch.edges, batch.equivalent,
                                                                            batch.ranking.undecided), k
        c.undo()
        batch = certirank.leaderboard(df[df["replicate"] <= 1], margin=0.15)
        res = c.result()
        assert res.replicates == 2 and (res.edges, res.equivalent) == (batch.edges, batch.equivalent)
        assert c.verify().ok


def test_the_checkpoint_holds_both_boards_and_verifies(tmp_path):
    df = runs()
    path = tmp_path / "v.campaign"
    with campaign(path, df, margin=0.1) as c:
        assert c.config["engine"]["margin"] == 0.1
    import sqlite3
    con = sqlite3.connect(path)
    fmt, blob = con.execute("SELECT engine, state FROM checkpoint").fetchone()
    con.close()
    state = json.loads(blob)
    assert fmt == state["format"] == "certirank.bbedge.margin/1"
    assert state["differences"]["tau"] == 0.0 and state["equivalence"]["tau"] == -0.1
    assert state["differences"]["alpha"] == state["equivalence"]["alpha"] == 0.025
    with Campaign.open(path) as c:  # reopened from the checkpoint: the same answer
        report = c.verify()
        assert report.ok and "bit for bit" in report.checks[-1].detail
        assert c.result().equivalent == [["A", "B"]]


def test_an_edited_equivalence_board_is_refused(tmp_path):
    from certirank.campaign._engines import LeaderboardEngine
    from certirank.errors import CertirankError
    df = runs(n=60)
    with campaign(tmp_path / "e.campaign", df, margin=0.1) as c:
        blob = c._engine.checkpoint()
    state = json.loads(blob)
    state["equivalence"]["tau"] = -0.5  # a wider margin, written by hand
    with pytest.raises(CertirankError):
        LeaderboardEngine.restore(json.dumps(state).encode())
    state = json.loads(blob)
    state["margin"] = 0.5  # the container says another margin than its equivalence board runs
    with pytest.raises(CertirankError, match="not the pair of one margin"):
        LeaderboardEngine.restore(json.dumps(state).encode())


def test_export_gives_the_batch_command_with_the_margin(tmp_path):
    df = runs(n=200)
    with campaign(tmp_path / "x.campaign", df, margin=0.1) as c:
        out = c.export(tmp_path / "runs.csv")
        res = c.result()
    assert "--margin 0.1" in out.rank_command
    again = certirank.leaderboard(tmp_path / "runs.csv", margin=0.1)
    assert (again.edges, again.equivalent) == (res.edges, res.equivalent)


def test_a_campaign_without_a_margin_keeps_todays_bytes(tmp_path):
    """No margin: no ``margin`` key in the configuration (its hash is what it was) and the checkpoint is exactly
    one Leaderboard's ``to_json()``, as before."""
    df = runs(n=80)
    with campaign(tmp_path / "n.campaign", df) as c:
        engine_config = c.config["engine"]
        blob = c._engine.checkpoint()
        res = c.result()
    assert set(engine_config) == {"models", "alpha", "tau", "blocks", "top_k", "method"}
    board = Leaderboard(MODELS, alpha=0.05, tau=0.0, blocks=None, top_k=None, method="bb-edge")
    for r in range(3):
        board.add_replicate(df[df["replicate"] == r].drop(columns="replicate"), replicate=r + 1)
    assert blob == board.to_json().encode()
    assert res.margin is None and res.equivalent == [] and res.ranking.margin is None


def test_an_older_leaderboard_campaign_opens_verifies_and_records(tmp_path):
    """A campaign file written before margins (schema 1): it verifies, records a run and verifies again."""
    assert FIXTURE.exists(), f"the schema-1 campaign fixture {FIXTURE} is part of the repository"
    path = tmp_path / "old.campaign"
    shutil.copy(FIXTURE, path)
    with Campaign.open(path) as c:
        assert c.verify().ok and "margin" not in c.config["engine"]
        before = c.result()
        models = c.policies
        items = before.n_items
        item_names = list(Leaderboard.from_json(c._engine.checkpoint()).items or [f"i{k}" for k in range(items)])
        rows = [(m, it, 1.0 if j == 0 else 0.0) for j, m in enumerate(models) for it in item_names]
        c.add_run(pd.DataFrame(rows, columns=["model", "item", "score"]))
        assert c.result().replicates == before.replicates + 1 and c.result().margin is None
    with Campaign.open(path) as c:
        assert c.verify().ok


@pytest.mark.parametrize("margin", [0.0, 1.0, -0.1, 1.5])
def test_a_margin_outside_0_1_is_refused(tmp_path, margin):
    with pytest.raises(ParameterError, match="margin"):
        Campaign.init(tmp_path / "b.campaign", kind="leaderboard", models=MODELS, margin=margin)
    assert not (tmp_path / "b.campaign").exists()


def test_a_margin_with_top_k_is_refused(tmp_path):
    with pytest.raises(ParameterError, match="top_k"):
        Campaign.init(tmp_path / "k.campaign", kind="leaderboard", models=MODELS, margin=0.1, top_k=1)


def test_the_page_shows_the_equivalent_pair(tmp_path):
    pytest.importorskip("fastapi", reason="the campaign page needs the 'web' extra")
    from fastapi.testclient import TestClient

    from certirank.web import create_app
    path = tmp_path / "w.campaign"
    campaign(path, runs(), margin=0.1).close()
    client = TestClient(create_app(path, token="t0ken-t0ken"), base_url="http://127.0.0.1")
    for route in ("/ranking", "/run"):
        page = client.get(route).text
        assert 'id="verdicts"' in page and "A and B are equivalent within the margin of 0.1" in page, route
    page = client.get("/ranking").text
    assert "2 of 3 pairs certified, 1 equivalent, 0 undecided" in page
