"""An operator's audit of the campaign workflow (docs/campaigns.md, docs/campaign-page.md): blind names, declared
score ranges on the page and in the shell, hand-edited files and `verify`, and the page's JSON refusals."""

from __future__ import annotations

import json
import re
import shlex
import sqlite3

import pandas as pd
import pytest
from typer.testing import CliRunner

from certirank.campaign import Campaign
from certirank.cli import app
from certirank.errors import DataError, ParameterError, StateError


def _cli(*args):
    return CliRunner().invoke(app, ["campaign", *map(str, args)])


def _text(r):
    return " ".join(r.output.split())  # rich wraps at the terminal width


def _fill(c, rounds, score=0.5):
    for _ in range(rounds):
        for s in c.next():
            c.record(s.policy, s.trial, score)


# ============================================================================== blind mode

def test_blind_record_refuses_a_name_until_unblinded(tmp_path):
    c = Campaign.init(tmp_path / "b.campaign", ["pi0", "octo", "diffusion"], blind=True, seed=3, n_max=30)
    c.next()
    # accepting "pi0" would answer with its code, unblinding the operator one policy at a time
    with pytest.raises(ParameterError) as info:
        c.record("pi0", 0, 1.0)
    assert "pi0" in str(info.value) and c.config["codes"]["pi0"] not in str(info.value).split("codes are:")[0]
    assert c.records() == []
    r = _cli("record", c.path, "octo", 0, 1)
    assert r.exit_code == 2 and "Traceback" not in r.output and "unknown policy or code 'octo'" in _text(r)
    c.unblind(by="pi")
    assert c.record("pi0", 0, 1.0).policy == "pi0"


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


def test_blind_next_tells_the_operator_to_type_a_code(tmp_path):
    db = tmp_path / "b.campaign"
    Campaign.init(db, ["a", "b"], blind=True, seed=1, n_max=10).close()
    r = _cli("next", db)
    assert r.exit_code == 0 and "CODE TRIAL SCORE" in _text(r)


# ============================================================================== declared score ranges

def test_cli_texts_show_the_raw_score_and_negative_scores_are_arguments(tmp_path):
    db = tmp_path / "r.campaign"
    assert _cli("init", db, "--policies", "a,b", "--score-range", "-5,5", "--n-max", "20").exit_code == 0
    assert _cli("next", db).exit_code == 0
    r = _cli("record", db, "a", 0, "-2")
    assert r.exit_code == 0, r.output
    assert "score -2 by" in _text(r)
    r = _cli("record", db, "b", 0, "7")
    assert r.exit_code == 2 and "score 7 is outside [-5, 5]" in _text(r)
    for typo in (("b", 0, "--ahaed", "1"), ("b", 0, "1", "--ahaed")):  # still named as an option
        r = _cli("record", db, *typo)
        assert r.exit_code == 2 and "no such option: --ahaed" in _text(r)
    r = _cli("record", db, "b", 0, "1", "2")
    assert r.exit_code == 2 and "unexpected extra argument(s): 2" in _text(r)
    r = _cli("record", db, "b", 0, "4")
    assert r.exit_code == 0
    r = _cli("undo", db)
    assert r.exit_code == 0 and "score 4)" in _text(r)  # raw, as recorded, not the rescaled 0.9
    rec = Campaign.open(db).records()
    assert [(x.policy, x.raw_score, x.score) for x in rec] == [("a", -2.0, 0.3)]


def test_status_text_counts_rollouts_recorded_ahead(tmp_path):
    db = tmp_path / "s.campaign"
    c = Campaign.init(db, ["a", "b", "c"], n_max=20)
    c.record("a", 9, 1.0, ahead=True)
    _fill(c, 1)
    r = _cli("status", db)
    assert r.exit_code == 0, r.output
    assert "Rollouts recorded: a 2, b 1, c 1." in _text(r)
    assert json.loads(_cli("status", db, "--json").output)["details"]["rollouts"] == {"a": 2, "b": 1, "c": 1}
    rem = c.status().remaining
    assert f"at most {rem['total']} more rollouts" in _text(r) and rem["total"] == sum(rem["per_policy"].values())


def test_add_run_refuses_replicate_zero(tmp_path):
    c = Campaign.init(tmp_path / "lb.campaign", kind="leaderboard", models=["x", "y"])
    run = pd.DataFrame([{"model": m, "item": f"i{k}", "score": 0.5} for m in "xy" for k in range(5)])
    with pytest.raises(ParameterError, match="numbered from 1"):
        c.add_run(run, replicate=0)
    assert c.records() == [] and c.next()[0].trial == 1


# ============================================================================== hand-edited files and verify

@pytest.fixture
def camp(tmp_path):
    db = tmp_path / "t.campaign"
    c = Campaign.init(db, ["a", "b", "c"], n_max=30, seed=5, environments=["left", "right"])
    _fill(c, 4)
    c.close()
    return db


def _edit(db, sql):
    conn = sqlite3.connect(db)
    conn.execute(sql)
    conn.commit()
    conn.close()


def test_verify_reports_an_edited_configuration_as_a_failed_check(camp):
    _edit(camp, "UPDATE meta SET value = replace(value, '\"alpha\":0.05', '\"alpha\":0.5') WHERE key = 'config'")
    r = _cli("verify", camp)
    assert r.exit_code == 1, r.output
    assert re.search(r"FAIL configuration checksum", r.output) and "VERIFICATION FAILED" in r.output
    r = _cli("status", camp)  # every other command refuses the file
    assert r.exit_code == 2 and "does not match its checksum" in _text(r)


def test_verify_fails_on_a_dropped_checkpoint_and_status_refuses_in_one_line(camp):
    _edit(camp, "DROP TABLE checkpoint")
    r = _cli("verify", camp)
    assert r.exit_code == 1 and "FAIL campaign tables readable" in r.output and "Traceback" not in r.output
    for args in (("status", camp), ("log", camp), ("record", camp, "a", 4, 1)):
        r = _cli(*args)
        assert r.exit_code == 2, args
        assert r.output.startswith("error:") and "table checkpoint is missing" in _text(r)


def test_verify_names_the_entry_edited_into_an_unknown_policy(camp):
    _edit(camp, "UPDATE records SET policy = 'zzz' WHERE id = 5")
    rep = Campaign(camp, _check_config=False).verify()
    failed = {ch.name: ch.detail for ch in rep.checks if not ch.ok}
    assert not rep.ok and "entry 5" in failed["hash chain"]
    assert "unknown policy 'zzz'" in failed["replay of the records equals the checkpoint"]
    assert _cli("verify", camp).exit_code == 1


def test_a_missing_configuration_row_is_one_line_not_a_traceback(camp):
    _edit(camp, "DELETE FROM meta WHERE key = 'config'")
    for cmd in ("verify", "status"):
        r = _cli(cmd, camp)
        assert r.exit_code == 2 and r.output.startswith("error:") and "meta table has no config" in _text(r)


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


def test_export_unblind_logs_who(tmp_path):
    db = tmp_path / "b.campaign"
    Campaign.init(db, ["a", "b"], blind=True, seed=2, n_max=10).close()
    r = _cli("export", db, tmp_path / "out.csv", "--unblind", "--by", "pi")
    assert r.exit_code == 0, r.output
    last = Campaign.open(db).log().entries[-1]
    assert (last.action, last.by) == ("unblind", "pi")


def test_page_upload_refusal_names_the_uploaded_file(tmp_path, client_of):
    db = tmp_path / "lb.campaign"
    Campaign.init(db, kind="leaderboard", models=["x", "y"]).close()
    body = b"model,item,score\nx,i0,1\ny,i0,1\nz,i0,1\n"
    r = client_of(db).post("/api/add-run", files={"file": ("night-run.csv", body, "text/csv")}, headers=AUTH)
    assert r.status_code == 400 and "night-run.csv: unknown model(s)" in r.text
    assert "certirank-upload" not in r.text  # the server's temporary copy is not the operator's business
    assert Campaign.open(db).log().entries == []


def test_next_json_says_why_there_is_nothing_to_run(tmp_path):
    db = tmp_path / "d.campaign"
    c = Campaign.init(db, ["a", "b"], n_max=60, alpha=0.1)
    while c.next():
        for s in c.next():
            c.record(s.policy, s.trial, 1.0 if s.policy == "a" else 0.0)
    out = json.loads(_cli("next", db, "--json").output)
    assert out["suggestions"] == [] and out["done"] is True and out["termination"] == "complete ranking"
    assert "complete ranking" in _text(_cli("next", db))


def test_export_never_overwrites_the_campaign_file(tmp_path):
    db = tmp_path / "lab.csv"  # a campaign file may have any name
    c = Campaign.init(db, ["a", "b"], n_max=10)
    _fill(c, 1)
    r = _cli("export", db, db)
    assert r.exit_code == 2 and "is the campaign file itself" in _text(r)
    assert Campaign.open(db).verify().ok and len(Campaign.open(db).records()) == 2


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


def test_blind_status_lists_rollouts_and_budget_in_code_order(tmp_path):
    names = ["zetapol", "alphapol", "midpol"]
    c, codes = _blind_out_of_order(tmp_path, names)
    db = c.path
    st = c.status()
    assert list(st.rollouts) == sorted(codes) and list(st.remaining["per_policy"]) == sorted(codes)
    out = _text(_cli("status", db))
    assert "Rollouts recorded: " + ", ".join(f"{x} 0" for x in sorted(codes)) in out
    assert "(" + ", ".join(f"{x} 30" for x in sorted(codes)) + ";" in out
    c.next()
    with pytest.raises(StateError) as info:
        c.record(codes[0], 5, 1.0)
    assert "needs: " + ", ".join(f"{x} 0" for x in sorted(codes)) + "." in str(info.value)


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


def test_status_of_a_complete_campaign_says_it_once_and_that_you_can_stop(tmp_path):
    db = tmp_path / "done.campaign"
    with Campaign.init(db, ["a", "b"], n_max=50) as c:
        for i in range(30):
            if c.status().complete:
                break
            c.record("a", i, 1.0)
            c.record("b", i, 0.0)
        assert c.status().complete
    out = _text(_cli("status", db))
    assert out.count("Every pair is decided") == 1 and "You can stop" in out


def test_blind_binary_campaign_refuses_a_partial_score_without_naming_the_policy(tmp_path):
    db = tmp_path / "bb.campaign"
    with Campaign.init(db, ["pi0", "octo"], metric="binary", n_max=50, blind=True, seed=1) as c:
        code = c.next()[0].policy
        with pytest.raises(ParameterError) as info:
            c.record(code, 0, 0.5)
        assert "declared binary" in str(info.value)
        assert "pi0" not in str(info.value) and "octo" not in str(info.value)
        assert c.records() == []


def test_leaderboard_add_run_out_of_range_score_does_not_suggest_score_range(tmp_path):
    db = tmp_path / "lb.campaign"
    run = tmp_path / "run1.csv"
    run.write_text("model,item,score\nm1,i1,1.5\nm2,i1,0\nm1,i2,1\nm2,i2,0\n")
    Campaign.init(db, kind="leaderboard", models=["m1", "m2"]).close()
    r = _cli("add-run", db, run)
    assert r.exit_code == 2
    # the reader's "--score-range" hint is refused by a leaderboard campaign, so it must not be offered
    assert _text(r) == (f"error: {run}, row 2, column 'score': score 1.5 is outside [0, 1] (a leaderboard campaign "
                        "takes scores in [0, 1]; rescale the run's scores before add-run)")
