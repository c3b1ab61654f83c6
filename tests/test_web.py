"""The campaign page over HTTP (FastAPI TestClient): every route, the token rules, escaping, refusals."""

from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("fastapi", reason="the campaign page needs the 'web' extra (fastapi)")
pytest.importorskip("multipart", reason="the campaign page needs the 'web' extra (python-multipart)")
from fastapi.testclient import TestClient  # noqa: E402

from certirank.campaign import Campaign  # noqa: E402
from certirank.web import create_app  # noqa: E402
from certirank.web.app import MAX_BODY  # noqa: E402

TOKEN = "s3cret-token"
HOSTILE = "<script>alert(1)</script>"


def _client(db, *, token=TOKEN, read_only=False):
    return TestClient(create_app(db, token=token, read_only=read_only), base_url="http://127.0.0.1")


def _auth():
    return {"X-Certirank-Token": TOKEN}


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "camp.db"
    Campaign.init(path, ["good", "mid", HOSTILE], alpha=0.1).close()
    return path


def _next(client):
    r = client.get("/api/next")
    assert r.status_code == 200
    return r.json()


def _record(client, policy, trial, score, **extra):
    data = {"policy": policy, "trial": str(trial), "score": str(score), **extra}
    return client.post("/api/record", data=data, headers={**_auth(), "Accept": "application/json"})


def _live(db):
    with Campaign.open(db) as c:
        return [(e.policy, e.trial, e.score) for e in c.log().entries if e.live]


def test_every_page_renders_and_escapes_hostile_names(db):
    client = _client(db)
    for path in ("/run", "/ranking", "/ranking/panel", "/history", "/export"):
        r = client.get(path, headers={"X-Certirank-Token": TOKEN})
        assert r.status_code == 200, path
        assert HOSTILE not in r.text, path  # autoescaped everywhere, the SVG included
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in client.get("/ranking").text
    r = client.get("/", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].endswith("/run")
    # static assets are vendored: htmx and its licence ship with the package
    assert client.get("/static/htmx.min.js").status_code == 200
    assert "Zero-Clause BSD" in client.get("/static/htmx-LICENSE.txt").text


def test_no_cdn_anywhere(db):
    text = _client(db).get("/run", headers={"X-Certirank-Token": TOKEN}).text
    srcs = re.findall(r'(?:src|href)="([^"]+)"', text)
    assert srcs and all(not s.startswith(("http://cdn", "https://")) or "testserver" in s for s in srcs)


def test_record_with_token_changes_state_and_matches_campaign(db):
    client = _client(db)
    todo = _next(client)
    assert todo and {"policy", "trial", "environment"} <= set(todo[0])
    s = todo[0]
    r = _record(client, s["policy"], s["trial"], 1, by=HOSTILE, note=HOSTILE)
    assert r.status_code == 200, r.text
    assert r.json()["score"] == 1.0
    assert _live(db) == [(s["policy"], s["trial"], 1.0)]
    page = client.get("/history").text
    assert HOSTILE not in page and "&lt;script&gt;" in page  # operator names and notes escaped too


def test_writes_need_the_token(db):
    client = _client(db)
    s = _next(client)[0]
    data = {"policy": s["policy"], "trial": str(s["trial"]), "score": "1"}
    assert client.post("/api/record", data=data).status_code == 403
    assert client.post("/api/record", data=data, headers={"X-Certirank-Token": "wrong"}).status_code == 403
    # the token is never read from a form field, a query string or a cookie of its own
    assert client.post("/api/record", data={**data, "token": TOKEN}).status_code == 403
    assert client.post("/api/record", params={"token": TOKEN}, data=data).status_code == 403
    client.cookies.set("token", TOKEN)
    assert client.post("/api/record", data=data).status_code == 403
    client.cookies.clear()
    assert client.post("/api/undo", data={}).status_code == 403
    assert _live(db) == []
    assert _record(client, s["policy"], s["trial"], 1).status_code == 200  # the header
    assert len(_live(db)) == 1


def test_page_without_token_is_read_only(db):
    client = _client(db)
    page = client.get("/run").text
    assert "Read-only view" in page and "Success" not in page
    page = client.get("/run", headers={"X-Certirank-Token": TOKEN}).text
    assert "Success" in page and "Read-only view" not in page
    assert client.get("/run", headers={"X-Certirank-Token": "nope"}).text.count("Success") == 0
    assert client.get("/run", params={"token": TOKEN}).text.count("Success") == 0  # never from the address


def test_read_only_server_refuses_every_write(db):
    client = _client(db, read_only=True)
    s = _next(client)[0]
    r = _record(client, s["policy"], s["trial"], 1)
    assert r.status_code == 403 and "read-only" in r.json()["error"]
    assert _client(db, token=None).post("/api/record", data={"token": TOKEN}).status_code == 403
    assert _live(db) == []


@pytest.mark.parametrize("field, value, needle", [
    ("score", "1.5", "outside"),
    ("score", "abc", "must be a number"),
    ("trial", "x", "whole number"),
    ("policy", "nobody", "nobody"),
])
def test_record_refusals_change_nothing(db, field, value, needle):
    client = _client(db)
    s = _next(client)[0]
    data = {"policy": s["policy"], "trial": str(s["trial"]), "score": "1", field: value}
    r = client.post("/api/record", data=data, headers={**_auth(), "HX-Request": "true"})
    assert r.status_code == 400
    assert "Not recorded" in r.text and needle in r.text
    assert _live(db) == []


def test_duplicate_and_unsuggested_trials_are_refused(db):
    client = _client(db)
    s = _next(client)[0]
    assert _record(client, s["policy"], s["trial"], 0).status_code == 200
    r = client.post("/api/record", data={"policy": s["policy"], "trial": str(s["trial"]), "score": "1"},
                    headers={**_auth(), "HX-Request": "true"})
    assert r.status_code == 400 and "already recorded" in r.text
    r = client.post("/api/record", data={"policy": s["policy"], "trial": "999", "score": "1"},
                    headers={**_auth(), "HX-Request": "true"})
    assert r.status_code == 400 and "not suggested" in r.text
    assert len(_live(db)) == 1


def test_missing_field_is_a_readable_error(db):
    r = _client(db).post("/api/record", data={"trial": "0", "score": "1"}, headers={**_auth(), "HX-Request": "true"})
    assert r.status_code == 400 and "policy" in r.text


def test_body_size_is_limited(db):
    client = _client(db)
    big = {"policy": "good", "trial": "0", "score": "1", "note": "x" * (MAX_BODY + 10)}
    r = client.post("/api/record", data=big, headers=_auth())
    assert r.status_code == 413 and "nothing was changed" in r.text
    assert _live(db) == []


def test_undo_last_and_by_id(db):
    client = _client(db)
    done = []
    for _ in range(3):
        s = _next(client)[0]
        assert _record(client, s["policy"], s["trial"], 1).status_code == 200
        done.append((s["policy"], s["trial"], 1.0))
    r = client.post("/api/undo", data={}, headers={**_auth(), "HX-Request": "true"})
    assert r.status_code == 200 and "Undid record" in r.text
    assert _live(db) == done[:2]
    with Campaign.open(db) as c:
        first = next(e.id for e in c.log().entries if e.live)
    r = client.post("/api/undo", data={"record_id": str(first), "return_to": "history"}, headers=_auth())
    assert r.status_code == 200 and "Audit trail" in r.text
    assert _live(db) == done[1:2]
    r = client.post("/api/undo", data={"record_id": str(first)}, headers={**_auth(), "HX-Request": "true"})
    assert r.status_code == 400 and "already undone" in r.text


def test_ranking_panel_answers_204_when_nothing_changed(db):
    client = _client(db)
    page = client.get("/ranking").text
    head = int(re.search(r'data-head="(\d+)"', page).group(1))
    assert client.get("/ranking/panel", params={"since": head}).status_code == 204
    s = _next(client)[0]
    _record(client, s["policy"], s["trial"], 1)
    r = client.get("/ranking/panel", params={"since": head})
    assert r.status_code == 200 and f'data-head="{head}"' not in r.text


def test_status_json_is_the_campaign_status(db):
    client = _client(db)
    with Campaign.open(db) as c:
        expected = c.status().to_dict()
    assert client.get("/api/status").json() == expected


def test_exports_replay_to_the_same_ranking(db, tmp_path):
    client = _client(db)
    rng = np.random.default_rng(3)
    for _ in range(12):
        for s in _next(client):
            _record(client, s["policy"], s["trial"], float(rng.random() < 0.5))
    csv = client.get("/export/records.csv")
    assert csv.status_code == 200 and csv.headers["content-type"].startswith("text/csv")
    table = pd.read_csv(io.StringIO(csv.text))
    assert len(table) == len(_live(db))
    pq = client.get("/export/records.parquet")
    assert pq.status_code == 200 and pq.content[:4] == b"PAR1"
    rep = client.get("/export/report.html")
    assert rep.status_code == 200 and "<html" in rep.text.lower() and HOSTILE not in rep.text
    assert client.get("/export/records.xlsx").status_code == 404


def test_blind_campaign_shows_codes_only(tmp_path):
    path = tmp_path / "blind.db"
    Campaign.init(path, ["alpha_policy", "beta_policy", "gamma_policy"], alpha=0.1, blind=True).close()
    client = _client(path)
    s = _next(client)[0]
    assert s["policy"] not in ("alpha_policy", "beta_policy", "gamma_policy")
    assert _record(client, s["policy"], s["trial"], 1).status_code == 200
    for page in ("/run", "/ranking", "/history", "/api/status"):
        text = client.get(page, headers={"X-Certirank-Token": TOKEN}).text
        assert "alpha_policy" not in text and "beta_policy" not in text, page


def test_leaderboard_campaign_pages_and_upload(tmp_path):
    path = tmp_path / "lb.db"
    models = ["m1", "m2", "m3"]
    Campaign.init(path, kind="leaderboard", models=models, alpha=0.1).close()
    client = _client(path)
    r = client.get("/", follow_redirects=False)
    assert r.headers["location"].endswith("/ranking")
    rng = np.random.default_rng(0)
    rows = [(m, f"item{i}", float(rng.random() < p)) for m, p in zip(models, (0.9, 0.5, 0.1)) for i in range(40)]
    body = pd.DataFrame(rows, columns=["model", "item", "score"]).to_csv(index=False).encode()
    r = client.post("/api/add-run", files={"file": ("run1.csv", body, "text/csv")}, data={"by": "ci"},
                    headers=_auth())
    assert r.status_code == 200 and "Added replicate" in r.text
    with Campaign.open(path) as c:
        assert c.status().records == 1
    r = client.post("/api/add-run", files={"file": ("bad.csv", b"a,b\n1,2\n", "text/csv")}, headers=_auth())
    assert r.status_code == 400 and "Not added" in r.text
    assert client.post("/api/add-run", data={}, headers=_auth()).status_code == 400
    for page in ("/ranking", "/history", "/export"):
        assert client.get(page).status_code == 200
    assert client.get("/run", follow_redirects=False).status_code == 303


# ============================================================================== GETs never write

def _fingerprint(path):
    import sqlite3
    con = sqlite3.connect(path)
    try:
        return (con.execute("SELECT * FROM records ORDER BY id").fetchall(),
                con.execute("SELECT last_id, head_hash FROM checkpoint").fetchone(),
                con.execute("SELECT * FROM suggested").fetchall())
    finally:
        con.close()


@pytest.mark.parametrize("with_token", [False, True])
def test_page_reads_never_write_the_file(db, with_token):
    """What a page or /api/next shows is computed, not stored: no GET, with or without the token, writes a row
    (nor takes the write lock)."""
    client = _client(db)
    s = _next(client)[0]
    assert _record(client, s["policy"], s["trial"], 1).status_code == 200
    before = _fingerprint(db)
    headers = _auth() if with_token else {}
    for path in ("/", "/run", "/ranking", "/ranking/panel", "/history", "/export", "/api/status", "/api/next",
                 "/api/next?count=1", "/export/records.csv", "/export/report.html"):
        assert client.get(path, headers=headers).status_code == 200, path
    assert _fingerprint(db) == before
    assert before[2] == []  # nothing was ever remembered: the page's suggestions live in its forms


def test_a_suggestion_the_page_showed_is_accepted_after_the_campaign_moved_on(tmp_path):
    """The page remembers nothing; its form sends back the entry it was shown at (shown_at), so a rollout it
    handed out stays acceptable once the campaign has moved on (as a remembered `next` suggestion is), while a
    trial beyond anything reached is still refused as not suggested."""
    path = tmp_path / "moved.db"
    c = Campaign.init(path, ["a", "b"], alpha=0.1, n_max=50)
    client = _client(path)
    shown = _next(client)
    assert sorted((s["policy"], s["trial"], s["shown_at"]) for s in shown) == [("a", 0, 0), ("b", 0, 0)]
    # meanwhile, in the shell: a's trial 0 could not be run, so the pair skips trial 0 and needs trial 1
    c.record("a", 0, None)
    assert sorted((s.policy, s.trial) for s in c.next(remember=False)) == [("a", 1), ("b", 1)]
    r = _record(client, "b", 0, 1.0)
    assert r.status_code == 400 and "not suggested" in r.json()["error"]
    assert _record(client, "b", 0, 1.0, shown_at=0).status_code == 200
    r = _record(client, "b", 40, 1.0, shown_at=0)  # never reached: a typo, not a late suggestion
    assert r.status_code == 400 and "not suggested" in r.json()["error"]
    assert [(e.policy, e.trial) for e in c.records()] == [("a", 0), ("b", 0)]
