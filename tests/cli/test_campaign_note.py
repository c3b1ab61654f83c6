"""`certirank campaign note`: a note, a fault or tags on the log; the CLI writes what the API writes."""

from __future__ import annotations

import json

from certirank import Campaign

from _records import flat


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
