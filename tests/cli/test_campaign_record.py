"""`certirank campaign record`: one rollout written to the file (with faults, tags and notes), its exit codes and texts."""

from __future__ import annotations

import json
import sqlite3

import pytest

from certirank import Campaign
from certirank.errors import ParameterError

from _records import flat


def test_cli_round_trip_and_exit_codes(cli, tmp_path):
    run = cli
    db = str(tmp_path / "cli.campaign")
    envs = tmp_path / "envs.txt"
    envs.write_text("bench\nshelf\n")
    r = run(["campaign", "init", db, "--policies", "a,b,c", "--alpha", "0.1", "--n-max", "30",
                  "--environments", str(envs), "--seed", "2", "--by", "ann"])
    assert r.exit_code == 0, r.output
    r = run(["campaign", "next", db, "--json"])
    todo = json.loads(r.output)["suggestions"]
    assert sorted(s["policy"] for s in todo) == ["a", "b", "c"] and todo[0]["environment"] in ("bench", "shelf")
    r = run(["campaign", "record", db, "a", "0", "1", "--by", "bob", "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["by"] == "bob"
    for args in (["a", "0", "1"], ["zz", "0", "1"], ["b", "0", "2"], ["b", "9", "1"]):
        r = run(["campaign", "record", db, *args])
        assert r.exit_code == 2 and r.output.startswith("error: ") and r.output.count("\n") == 1, r.output
    r = run(["campaign", "record", db, "b", "9", "1", "--ahead", "--note", "early"])
    assert r.exit_code == 0
    r = run(["campaign", "status", db, "--json"])
    st = flat(json.loads(r.output))
    assert st["records"] == 2 and st["kind"] == "campaign-status" and st["ranking"]["policies"]
    r = run(["campaign", "undo", db])
    assert r.exit_code == 0 and "Undid entry 2" in r.output
    r = run(["campaign", "log", db, "--json"])
    assert [e["action"] for e in json.loads(r.output)["entries"]] == ["record", "record", "undo"]
    r = run(["campaign", "verify", db])
    assert r.exit_code == 0 and "verified" in r.output
    r = run(["campaign", "export", db, str(tmp_path / "o.csv")])
    assert r.exit_code == 0 and "certirank rank" in r.output
    r = run(["campaign", "init", db, "--policies", "a,b"])
    assert r.exit_code == 2 and "locked" in r.output
    con = sqlite3.connect(db)
    con.execute("UPDATE records SET by = 'mallory' WHERE id = 1")
    con.commit()
    con.close()
    r = run(["campaign", "verify", db])
    assert r.exit_code == 1 and "FAIL hash chain" in r.output


def test_blind_record_refuses_a_name_until_unblinded(cli, tmp_path):
    c = Campaign.init(tmp_path / "b.campaign", ["pi0", "octo", "diffusion"], blind=True, seed=3, n_max=30)
    c.next()
    # accepting "pi0" would answer with its code, unblinding the operator one policy at a time
    with pytest.raises(ParameterError) as info:
        c.record("pi0", 0, 1.0)
    assert "pi0" in str(info.value) and c.config["codes"]["pi0"] not in str(info.value).split("codes are:")[0]
    assert c.records() == []
    r = cli.campaign("record", c.path, "octo", 0, 1)
    assert r.exit_code == 2 and "Traceback" not in r.output and "unknown policy or code 'octo'" in cli.words(r)
    c.unblind(by="pi")
    assert c.record("pi0", 0, 1.0).policy == "pi0"


def test_cli_texts_show_the_raw_score_and_negative_scores_are_arguments(cli, tmp_path):
    db = tmp_path / "r.campaign"
    assert cli.campaign("init", db, "--policies", "a,b", "--score-range", "-5,5", "--n-max", "20").exit_code == 0
    assert cli.campaign("next", db).exit_code == 0
    r = cli.campaign("record", db, "a", 0, "-2")
    assert r.exit_code == 0, r.output
    assert "score -2 by" in cli.words(r)
    r = cli.campaign("record", db, "b", 0, "7")
    assert r.exit_code == 2 and "score 7 is outside [-5, 5]" in cli.words(r)
    for typo in (("b", 0, "--ahaed", "1"), ("b", 0, "1", "--ahaed")):  # still named as an option
        r = cli.campaign("record", db, *typo)
        assert r.exit_code == 2 and "no such option: --ahaed" in cli.words(r)
    r = cli.campaign("record", db, "b", 0, "1", "2")
    assert r.exit_code == 2 and "unexpected extra argument(s): 2" in cli.words(r)
    r = cli.campaign("record", db, "b", 0, "4")
    assert r.exit_code == 0
    r = cli.campaign("undo", db)
    assert r.exit_code == 0 and "score 4)" in cli.words(r)  # raw, as recorded, not the rescaled 0.9
    rec = Campaign.open(db).records()
    assert [(x.policy, x.raw_score, x.score) for x in rec] == [("a", -2.0, 0.3)]


def test_cli_idempotency_key(cli, tmp_path):
    db = str(tmp_path / "k.campaign")
    run = cli
    assert run(["campaign", "init", db, "--policies", "a,b", "--n-max", "30"]).exit_code == 0
    outs = [run(["campaign", "record", db, "a", "0", "1", "--idempotency-key", "u-1", "--json"]).output
            for _ in range(2)]
    assert outs[0] == outs[1] and json.loads(outs[0])["id"] == 1
    with Campaign.open(db) as c:
        assert c.status().records == 1


def test_cli_tags_faults_and_notes_mirror_the_api(cli, tmp_path):
    run = cli
    db = str(tmp_path / "cli.campaign")
    r = run(["campaign", "init", db, "--policies", "a,b", "--n-max", "30", "--tags", "grasp,place"])
    assert r.exit_code == 0, r.output
    todo = json.loads(run(["campaign", "next", db, "--json"]).output)["suggestions"]
    p, t = todo[0]["policy"], todo[0]["trial"]
    r = run(["campaign", "record", db, p, str(t), "0", "--tag", "grasp", "--tag", "place", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    with Campaign.open(db) as c:
        assert out == c.log().entries[-1].to_dict() and out["tags"] == ["grasp", "place"]
    q = todo[1]["policy"]
    r = run(["campaign", "record", db, q, str(t), "--fault", "e-stop", "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["fault"] == "e-stop"
    r = run(["campaign", "record", db, q, str(t), "--fault", "e-stop"])
    assert r.exit_code == 0 and "could not be judged (e-stop)" in r.output
    for args, words in ((["record", db, q, str(t), "1", "--fault", "x"], "not both"),
                        (["record", db, q, str(t)], "--fault REASON"),
                        (["record", db, q, str(t), "1", "--tag", "slip"], "unknown tag 'slip'"),
                        (["record", db, p, str(t), "--fault", "late"], "already recorded")):
        r = run(["campaign", *args])
        assert r.exit_code == 2 and r.output.startswith("error:") and words in r.output, (args, r.output)
        assert r.output.count("\n") == 1
    r = run(["campaign", "note", db, "light from the window", "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["action"] == "note"
    r = run(["campaign", "status", db, "--json"])
    st = flat(json.loads(r.output))
    assert st["faults"][q] == 2 and st["tags"] == {"grasp": {p: 1}, "place": {p: 1}}
    r = run(["campaign", "status", db])
    assert "Faults (not counted" in r.output and "Tags: grasp" in r.output
    r = run(["campaign", "log", db])
    assert "fault:" in r.output and "e-stop" in r.output and "note" in r.output
