"""An operator's audit of the campaign workflow (docs/campaigns.md, docs/campaign-page.md): blind names, declared
score ranges on the page and in the shell, hand-edited files and `verify`, and the page's JSON refusals."""

from __future__ import annotations

import re
import shlex

import pandas as pd
import pytest

from certirank.campaign import Campaign
from certirank.errors import DataError, ParameterError


def _fill(c, rounds, score=0.5):
    for _ in range(rounds):
        for s in c.next():
            c.record(s.policy, s.trial, score)


# ============================================================================== blind mode


def _blind_out_of_order(tmp_path, names, **kw):
    """A blind campaign whose codes do not sort like the configured names (else order tests prove nothing)."""
    for seed in range(20):
        c = Campaign.init(tmp_path / f"b{seed}.campaign", names, blind=True, seed=seed, n_max=30, **kw)
        codes = [c.config["codes"][n] for n in names]
        if codes != sorted(codes):
            return c, codes
    pytest.fail("no seed in 0..19 gave codes out of the configured order")


def test_blind_export_lists_each_trial_in_code_order(tmp_path):
    names = ["zeta", "alpha", "mid", "beta"]
    c, codes = _blind_out_of_order(tmp_path, names)
    _fill(c, 3)
    c.export(tmp_path / "out.csv")
    frame = pd.read_csv(tmp_path / "out.csv")
    for _, group in frame.groupby("trial", sort=False):
        assert list(group["policy"]) == sorted(group["policy"])
    assert set(frame["policy"]) == set(codes)


# ============================================================================== declared score ranges


def test_add_run_refuses_replicate_zero(tmp_path):
    c = Campaign.init(tmp_path / "lb.campaign", kind="leaderboard", models=["x", "y"])
    run = pd.DataFrame([{"model": m, "item": f"i{k}", "score": 0.5} for m in "xy" for k in range(5)])
    with pytest.raises(ParameterError, match="numbered from 1"):
        c.add_run(run, replicate=0)
    assert c.records() == [] and c.next()[0].trial == 1


# ============================================================================== hand-edited files and verify


# ============================================================================== the page

@pytest.fixture
def client_of():
    # the page needs the 'web' extra; the shell tests above run without it
    pytest.importorskip("fastapi")
    pytest.importorskip("multipart")
    from fastapi.testclient import TestClient

    from certirank.web import create_app

    def make(db):
        return TestClient(create_app(db, token="t0ken-t0ken"), base_url="http://127.0.0.1")
    return make


AUTH = {"X-Certirank-Token": "t0ken-t0ken"}


def test_page_buttons_send_the_declared_range(tmp_path, client_of):
    db = tmp_path / "r.campaign"
    Campaign.init(db, ["a", "b"], n_max=20, score_range=(0, 10)).close()
    client = client_of(db)
    page = client.get("/run", headers={"X-Certirank-Token": "t0ken-t0ken"}).text
    assert re.search(r'id="btn-success" name="score" value="10"', page)
    assert re.search(r'id="btn-failure" name="score" value="0"', page)
    assert 'max="10"' in page
    # what the Success button posts: a full success, not 1 out of 10
    r = client.post("/api/record", data={"policy": "a", "trial": "0", "score": "10"}, headers=AUTH)
    assert r.status_code == 200 and "score 10." in r.text
    assert [(x.raw_score, x.score) for x in Campaign.open(db).records()] == [(10.0, 1.0)]
    history = client.get("/history").text
    assert '<td class="num">10</td>' in history  # the raw score, as `campaign log` prints it


def test_page_records_missing_without_a_server_error(tmp_path, client_of):
    db = tmp_path / "m.campaign"
    Campaign.init(db, ["a", "b"], n_max=20).close()
    client = client_of(db)
    client.get("/api/next")
    r = client.post("/api/record", data={"policy": "a", "trial": "0", "score": "missing"}, headers=AUTH)
    assert r.status_code == 200 and "score missing" in r.text
    assert [(x.policy, x.score) for x in Campaign.open(db).records()] == [("a", None)]


def test_page_api_refusals_are_json_one_liners(tmp_path, client_of):
    db = tmp_path / "j.campaign"
    Campaign.init(db, ["a", "b"], n_max=20).close()
    client = client_of(db)
    json_auth = {**AUTH, "Accept": "application/json"}
    r = client.post("/api/record", data={"policy": "a", "trial": "0", "score": "1.5"}, headers=json_auth)
    assert r.status_code == 400 and r.json() == {"error": "score 1.5 is outside [0, 1] (declare another range "
                                                          "with --score-range at init)", "type": "ParameterError"}
    r = client.post("/api/undo", data={}, headers=json_auth)
    assert r.status_code == 400 and r.json()["error"].startswith("nothing to undo")
    r = client.get("/api/next", params={"count": 0})
    assert r.status_code == 400 and "count must be a positive integer" in r.json()["error"]
    assert Campaign.open(db).log().entries == []


def test_leaderboard_next_and_add_run_agree_after_an_undo(tmp_path):
    c = Campaign.init(tmp_path / "lb.campaign", kind="leaderboard", models=["x", "y"])
    run = pd.DataFrame([{"model": m, "item": f"i{k}", "score": 0.5} for m in "xy" for k in range(5)])
    c.add_run(run)
    c.add_run(run)
    c.undo(1)
    promised = c.next()[0].trial
    assert promised == 3  # not 2: replicate 2 is recorded, and --replicate 2 would be refused
    assert c.add_run(run).trial == promised


def test_page_upload_refusal_names_the_uploaded_file(tmp_path, client_of):
    db = tmp_path / "lb.campaign"
    Campaign.init(db, kind="leaderboard", models=["x", "y"]).close()
    body = b"model,item,score\nx,i0,1\ny,i0,1\nz,i0,1\n"
    r = client_of(db).post("/api/add-run", files={"file": ("night-run.csv", body, "text/csv")}, headers=AUTH)
    assert r.status_code == 400 and "night-run.csv: unknown model(s)" in r.text
    assert "certirank-upload" not in r.text  # the server's temporary copy is not the operator's business
    assert Campaign.open(db).log().entries == []


def test_page_success_is_the_exact_top_of_an_odd_range(tmp_path, client_of):
    db = tmp_path / "o.campaign"
    Campaign.init(db, ["a", "b"], n_max=20, score_range=(0, 0.123456789)).close()
    client = client_of(db)
    page = client.get("/run", headers={"X-Certirank-Token": "t0ken-t0ken"}).text
    top = re.search(r'id="btn-success" name="score" value="([^"]+)"', page).group(1)
    r = client.post("/api/record", data={"policy": "a", "trial": "0", "score": top}, headers=AUTH)
    assert r.status_code == 200
    assert [x.score for x in Campaign.open(db).records()] == [1.0]


def test_blind_export_command_lists_the_prior_in_code_order(tmp_path):
    names = ["zetapol", "alphapol", "midpol"]
    c, codes = _blind_out_of_order(tmp_path, names, prior={"zetapol": 0.8, "alphapol": 0.5, "midpol": 0.2})
    cmd = c.export(tmp_path / "out.csv").rank_command
    words = shlex.split(cmd)
    listed = words[words.index("--prior-means") + 1].split(",")
    assert [x.split("=")[0] for x in listed] == sorted(codes)
    assert not any(n in cmd for n in names)


def test_add_run_names_the_file_when_the_leaderboard_refuses_it(tmp_path):
    c = Campaign.init(tmp_path / "lb.campaign", kind="leaderboard", models=["x", "y"])
    full = pd.DataFrame([{"model": m, "item": f"i{k}", "score": 0.5} for m in "xy" for k in range(4)])
    c.add_run(full)
    full[full["item"] != "i3"].to_csv(tmp_path / "short.csv", index=False)
    with pytest.raises(DataError) as info:
        c.add_run(tmp_path / "short.csv")
    assert str(info.value).startswith(str(tmp_path / "short.csv")) and "i3" in str(info.value)
    assert len(c.records()) == 1


def test_read_only_page_shows_what_to_run_without_writing_the_file(tmp_path):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from certirank.web import create_app

    db = tmp_path / "ro.campaign"
    Campaign.init(db, ["a", "b", "c"], n_max=20).close()
    before = db.read_bytes()
    viewer = TestClient(create_app(db, read_only=True), base_url="http://127.0.0.1")
    page = viewer.get("/run").text
    shown = viewer.get("/api/next").json()
    assert {s["policy"] for s in shown} == {"a", "b", "c"} and all(s["policy"] in page for s in shown)
    # looking is not handing out: the file a read-only server may not write is left byte for byte
    assert db.read_bytes() == before
    with Campaign.open(db) as c:
        assert [(s.policy, s.trial) for s in c.next(remember=False)] == [(s["policy"], s["trial"]) for s in shown]


def test_blind_binary_campaign_refuses_a_partial_score_without_naming_the_policy(tmp_path):
    db = tmp_path / "bb.campaign"
    with Campaign.init(db, ["pi0", "octo"], metric="binary", n_max=50, blind=True, seed=1) as c:
        code = c.next()[0].policy
        with pytest.raises(ParameterError) as info:
            c.record(code, 0, 0.5)
        assert "declared binary" in str(info.value)
        assert "pi0" not in str(info.value) and "octo" not in str(info.value)
        assert c.records() == []


