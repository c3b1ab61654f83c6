"""An item campaign on the page (issue 35 item 4): every page renders, the ranking panel counts item evaluations,
the JSON API shows the pending draw."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the campaign page needs the 'web' extra (fastapi)")
pytest.importorskip("multipart", reason="the campaign page needs the 'web' extra (python-multipart)")
from fastapi.testclient import TestClient  # noqa: E402

from certirank.campaign import Campaign  # noqa: E402
from certirank.web import create_app  # noqa: E402

TOKEN = "s3cret-token"
AUTH = {"X-Certirank-Token": TOKEN, "Accept": "application/json"}


def test_the_pages_render_an_item_campaign(tmp_path):
    db = tmp_path / "i.campaign"
    with Campaign.init(db, kind="items", models=["a", "b", "c"], items=8, seed=2) as c:
        for _ in range(3):
            s = c.next()[0]
            c.record_item(s.item, {m: 1.0 if m == "a" else 0.0 for m in s.models})
        pending = c.next()[0]
    client = TestClient(create_app(db, token=TOKEN), base_url="http://127.0.0.1")
    page = {"X-Certirank-Token": TOKEN}
    for path in ("/", "/ranking", "/ranking/panel", "/history", "/export", "/design"):
        r = client.get(path, headers=page)
        assert r.status_code == 200, (path, r.text[:300])
    html = client.get("/ranking", headers=page).text
    assert "3 draws recorded" in html and "adaptive items" in html
    nxt = client.get("/api/next", headers=AUTH).json()
    assert nxt[0]["item"] == pending.item and nxt[0]["probability"] == pending.probability
    st = client.get("/api/v1/status", headers=AUTH).json()
    assert st["details"]["items"]["draws"] == 3 and st["details"]["items"]["evaluations"] == 9


def test_the_run_panel_records_the_pending_draw(tmp_path):
    db = tmp_path / "r.campaign"
    with Campaign.init(db, kind="items", models=["a", "b"], items=6, seed=3) as c:
        first = c.next()[0]
    client = TestClient(create_app(db, token=TOKEN), base_url="http://127.0.0.1")
    page = {"X-Certirank-Token": TOKEN, "hx-request": "true"}  # the form, as htmx posts it: the page answers
    html = client.get("/run", headers=page).text
    assert f'name="item" value="{first.item}"' in html and 'name="score:a"' in html and 'name="score:b"' in html
    # the form posts one field per model; another item is refused with the reason, nothing written
    wrong = str((int(first.item) + 1) % 6)
    r = client.post("/api/v1/record-item", data={"item": wrong, "draw": "1", "score:a": "1", "score:b": "0"},
                    headers=page)
    assert "is not the pending draw" in r.text
    r = client.post("/api/v1/record-item", data={"item": first.item, "draw": "1", "score:a": "1", "score:b": "0",
                                                 "by": "ana"}, headers=page)
    assert r.status_code == 200 and f"draw 1, item {first.item}: a=1, b=0" in r.text
    r = client.post("/api/v1/record-item", json={"scores": {"a": 1, "b": 0}}, headers=AUTH)
    assert r.status_code == 400 and "'item' is missing" in r.text
    with Campaign.open(db) as c:
        rec = c.records()[-1]
        assert (rec.item, rec.scores, rec.by, rec.probability) == (first.item, {"a": 1.0, "b": 0.0}, "ana",
                                                                   first.probability)
        nxt = c.next()[0]
    r = client.post("/api/v1/record-item", json={"item": nxt.item, "draw": nxt.trial, "scores": {"a": 0.5, "b": 1}},
                    headers=AUTH)
    assert r.status_code == 200 and r.json()["scores"] == {"a": 0.5, "b": 1.0}
