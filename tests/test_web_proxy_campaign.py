"""A proxy campaign on the page: every page renders, the run panel's form asks for the simulator's score (and
the real one on a drawn trial), the JSON API records a rollout with its proxy, a score-only post is refused."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the campaign page needs the 'web' extra (fastapi)")
pytest.importorskip("multipart", reason="the campaign page needs the 'web' extra (python-multipart)")
from fastapi.testclient import TestClient  # noqa: E402

from certirank.campaign import Campaign  # noqa: E402
from certirank.campaign._proxy import label_drawn  # noqa: E402
from certirank.web import create_app  # noqa: E402

TOKEN = "s3cret-token"
AUTH = {"X-Certirank-Token": TOKEN, "Accept": "application/json"}


def test_pages_render_and_the_api_takes_the_proxy(tmp_path):
    db = tmp_path / "p.campaign"
    envs = ["bench", "shelf"]
    Campaign.init(db, ["A", "B"], label_rate=0.5, seed=4, environments=envs).close()
    client = TestClient(create_app(db, token=TOKEN), base_url="http://127.0.0.1")
    for path in ("/run", "/ranking", "/ranking/panel", "/history", "/export", "/design"):
        assert client.get(path, headers={"X-Certirank-Token": TOKEN}).status_code == 200, path
    nxt = client.get("/api/next", headers=AUTH).json()
    t = nxt[0]["trial"]
    assert nxt[0]["label"] == ("real + proxy" if label_drawn(4, t, 0.5) else "proxy only")
    # the one-tap form sends a score only: refused with the reason, nothing written
    r = client.post("/api/v1/record", json={"policy": "A", "trial": t, "score": 1}, headers=AUTH)
    assert r.status_code in (400, 409, 422) and "proxy" in r.text
    body = {"policy": "A", "trial": t, "score": 1 if label_drawn(4, t, 0.5) else None, "proxy": 0.75}
    r = client.post("/api/v1/record", json=body, headers=AUTH)
    assert r.status_code == 200, r.text
    assert r.json()["proxy"] == 0.75
    with Campaign.open(db) as c:
        assert [e.proxy for e in c.records()] == [0.75]


def test_the_run_panel_asks_for_what_the_draw_says(tmp_path):
    db = tmp_path / "f.campaign"
    Campaign.init(db, ["A", "B"], label_rate=0.5, seed=5).close()
    client = TestClient(create_app(db, token=TOKEN), base_url="http://127.0.0.1")
    page = {"X-Certirank-Token": TOKEN}
    seen = set()
    for _ in range(8):
        html = client.get("/run", headers=page).text
        with Campaign.open(db) as c:
            s = c.next(remember=False)[0]
        drawn = label_drawn(5, s.trial, 0.5)
        seen.add(drawn)
        assert 'name="proxy"' in html and ('id="real-score"' in html) == drawn and 'id="btn-success"' not in html
        form = {"policy": s.policy, "trial": str(s.trial), "shown_at": str(s.shown_at), "proxy": "0.25",
                **({"score": "1"} if drawn else {})}
        r = client.post("/api/v1/record", data=form, headers={**page, "HX-Request": "true"})
        assert r.status_code == 200 and "proxy 0.25" in r.text, r.text  # the panel's message
    assert seen == {True, False}
    with Campaign.open(db) as c:
        recs = c.records()
        assert len(recs) == 8 and all(r.proxy == 0.25 for r in recs)
        assert all((r.score is not None) == label_drawn(5, r.trial, 0.5) for r in recs)
