"""The design page (issue 34 items 1-3 on the page): the design in force, the schedule's next blocks, an amend form
that takes `campaign amend`'s KEY=VALUE lines (refusals in one line, nothing written), and unblinding."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the campaign page needs the 'web' extra (fastapi)")
from fastapi.testclient import TestClient  # noqa: E402

from certirank.campaign import Campaign  # noqa: E402
from certirank.web import create_app  # noqa: E402

TOKEN = "t0ken-for-the-design-page"
WRITE = {"X-Certirank-Token": TOKEN, "HX-Request": "true"}


def _client(db):
    return TestClient(create_app(db, token=TOKEN), base_url="http://127.0.0.1")


@pytest.fixture
def designed(tmp_path):
    db = tmp_path / "designed.campaign"
    Campaign.init(db, ["pi0", "octo", "dp"], alpha=0.1, n_max=60, seed=4, environments=["left", "right"],
                  tags=["grasp", "fold"], checklist=["pads clean"], launch="serve --ckpt {checkpoint}",
                  checkpoints={"pi0": "/c/pi0", "octo": "/c/octo", "dp": "/c/dp"}).close()
    return db


def test_the_design_page_shows_the_design_and_the_schedule(designed):
    page = _client(designed).get("/design").text
    with Campaign.open(designed) as c:
        plan = c.plan(2)
        sha = c.config_sha256
    assert sha[:16] in page and "grasp, fold (closed list)" in page and "pads clean" in page
    assert "serve --ckpt {checkpoint}" in page and 'id="plan-block-0"' in page and 'id="plan-block-1"' in page
    for block in plan.blocks:
        for t in block["trials"]:
            assert " &gt; ".join(t["order"]) in page
    assert 'id="btn-amend"' not in page  # a reader gets no write controls


def test_amend_on_the_page_is_campaign_amend(designed):
    client = _client(designed)
    r = client.post("/api/v1/amend", data={"changes": "n_max=120\ntags=grasp,fold,place", "reason": "week 2",
                                           "return_to": "design"}, headers=WRITE)
    assert r.status_code == 200 and "Amended as #1." in r.text and "grasp, fold, place" in r.text
    with Campaign.open(designed) as c:
        entry = c.log().entries[-1]
        assert entry.action == "amend" and entry.note == "week 2"
        assert entry.changes["n_max"] == {"from": 60, "to": 120} and c.status().remaining["n_max"] == 120
    # what would void the guarantee: one line, nothing written
    r = client.post("/api/v1/amend", data={"changes": "alpha=0.2", "reason": "more power", "return_to": "design"},
                    headers=WRITE)
    assert r.status_code == 400 and "Not amended: alpha cannot be amended" in r.text
    r = client.post("/api/v1/amend", data={"changes": "noequals", "reason": "r", "return_to": "design"},
                    headers=WRITE)
    assert r.status_code == 400 and "an amendment is KEY=VALUE" in r.text
    with Campaign.open(designed) as c:
        assert [e.action for e in c.log().entries] == ["amend"]


def test_unblind_on_the_page(tmp_path):
    db = tmp_path / "blind.campaign"
    Campaign.init(db, ["pi0", "octo"], alpha=0.1, n_max=40, seed=2, blind=True).close()
    client = _client(db)
    page = client.get("/design", headers={"X-Certirank-Token": TOKEN}).text
    assert 'id="btn-unblind"' in page and "pi0" not in page
    r = client.post("/api/v1/unblind", data={"confirm": "yes", "return_to": "design"}, headers=WRITE)
    assert r.status_code == 200 and "Unblinded: every view shows names from now on." in r.text
    assert 'id="btn-unblind"' not in r.text
    with Campaign.open(db) as c:
        assert [e.action for e in c.log().entries] == ["unblind"] and c.unblinded
    assert "pi0" in client.get("/ranking").text


def test_a_campaign_without_environments_says_why_it_has_no_schedule(tmp_path):
    db = tmp_path / "plain.campaign"
    Campaign.init(db, ["a", "b"], alpha=0.1, n_max=40).close()
    page = _client(db).get("/design").text
    with Campaign.open(db) as c, pytest.raises(Exception) as info:
        c.plan()
    assert str(info.value).replace("'", "&#39;") in page
