"""The design lock and amendments (issue 34 item 1), idempotency keys on every write (item 6), the blind loader
(item 3): a design.toml locked by hash, `amend` accepting only what keeps the guarantee (logged in the audit chain,
replayed by undo and verify) and refusing the rest with the reason and nothing written."""

from __future__ import annotations

import json
import sqlite3
import sys

import pytest
from typer.testing import CliRunner

from certirank import Campaign
from certirank.campaign._util import _sha
from certirank.cli import app
from certirank.errors import ParameterError, StateError

DESIGN = """
# the towel-folding study
policies = ["pi0", "octo", "diffusion"]
alpha = 0.1
n_max = 60
environments = ["kitchen", "sink", "shelf"]
seed = 9
checklist = ["gripper pads clean", "camera exposure locked"]
launch = "python serve.py --ckpt {checkpoint} --env {environment}"

[tags]
names = ["grasp", "fold", "place"]
open = false

[checkpoints]
pi0 = "/ckpt/pi0 v2"
octo = "/ckpt/octo"
diffusion = "/ckpt/dp"
"""


def _fingerprint(path) -> tuple:
    con = sqlite3.connect(path)
    try:
        return (con.execute("SELECT * FROM records ORDER BY id").fetchall(),
                con.execute("SELECT * FROM checkpoint").fetchone(),
                con.execute("SELECT * FROM meta ORDER BY key").fetchall())
    finally:
        con.close()


@pytest.fixture()
def designed(tmp_path):
    toml = tmp_path / "design.toml"
    toml.write_text(DESIGN)
    c = Campaign.init(tmp_path / "d.campaign", design=toml)
    yield c, toml
    c.close()


def test_init_from_a_design_file_locks_it_by_hash(designed):
    c, toml = designed
    d = c.design
    assert c.policies == ["pi0", "octo", "diffusion"] and c.config["engine"]["ranker"]["alpha"] == 0.1
    assert d.tags == ("grasp", "fold", "place") and not d.open_tags
    assert d.checklist == ("gripper pads clean", "camera exposure locked")
    assert d.source == {"file": "design.toml", "sha256": _sha(toml.read_bytes())}
    assert d.about == "policy" and c.config["plan"] == {"environments": ["kitchen", "sink", "shelf"], "seed": 9}
    assert d.checkpoints["pi0"] == "/ckpt/pi0 v2"
    # the design is part of the configuration, whose hash starts the chain
    assert c.config["design"]["source"]["sha256"] == d.source["sha256"]
    s = c.next()[0]
    assert s.launch == f"python serve.py --ckpt {c.design.checkpoints[s.policy].replace(' v2', '')}" \
        or "'/ckpt/pi0 v2'" in s.launch
    assert c.launch_command(s.policy, s.trial) == ["python", "serve.py", "--ckpt", d.checkpoints[s.policy], "--env",
                                                    s.environment]


@pytest.mark.parametrize("text, words", [
    ("alpha = 0.1\npolicies = ['a', 'b']\nbogus = 1\n", "unknown key 'bogus'"),
    ("policies = ['a', 'b'\n", "is not valid TOML"),
    ("policies = ['a', 'b']\nalpha = 'high'\n", "design file"),
    ("policies = ['a', 'b']\nlaunch = 'run {model}'\n", "unknown field {model}"),
    ("policies = ['a', 'b']\nlaunch = 'run {checkpoint}'\n[checkpoints]\na = '/x'\n", "'b' has no checkpoint path"),
    ("policies = ['a', 'b']\nabout = 'table'\n", "about must be one of policy, benchmark"),
    ("policies = ['a', 'b']\n[tags]\nnames = ['x']\nclosed = true\n", "[tags] takes 'names' and 'open'"),
])
def test_bad_design_files_are_one_line_errors_naming_the_file(tmp_path, text, words):
    toml = tmp_path / "bad.toml"
    toml.write_text(text)
    with pytest.raises(ParameterError) as info:
        Campaign.init(tmp_path / "x.campaign", design=toml)
    assert words in str(info.value) and "\n" not in str(info.value) and "bad.toml" in str(info.value)
    assert not (tmp_path / "x.campaign").exists()
    r = CliRunner().invoke(app, ["campaign", "init", str(tmp_path / "y.campaign"), "--design", str(toml)])
    assert r.exit_code == 2 and r.output.startswith("error:") and r.output.count("\n") == 1, r.output


def test_a_setting_in_both_places_is_refused(tmp_path):
    toml = tmp_path / "d.toml"
    toml.write_text(DESIGN)
    with pytest.raises(ParameterError, match="alpha is set both in"):
        Campaign.init(tmp_path / "a.campaign", design=toml, alpha=0.2)
    r = CliRunner().invoke(app, ["campaign", "init", str(tmp_path / "b.campaign"), "--design", str(toml),
                                 "--alpha", "0.05"])
    assert r.exit_code == 2 and "--alpha is given beside --design" in r.output


def test_amendments_that_keep_the_guarantee(designed):
    c, _ = designed
    for s in c.next():
        c.record(s.policy, s.trial, 1.0 if s.policy == "pi0" else 0.0, tags=["grasp"])
    rec = c.amend(n_max=120, tags=["grasp", "fold", "place", "slip"], checklist=["new pads"],
                  reason="second week: more budget", by="pi")
    assert rec.action == "amend" and rec.note == "second week: more budget" and rec.by == "pi"
    assert rec.changes["n_max"] == {"from": 60, "to": 120}
    assert rec.changes["tags"]["to"][-1] == "slip" and rec.changes["checklist"] == {
        "from": ["gripper pads clean", "camera exposure locked"], "to": ["new pads"]}
    assert c.status().remaining["n_max"] == 120 and c.design.checklist == ("new pads",)
    assert "n_max = 120 paired trials" in c.status().test  # the test line says the budget in force
    s = c.next()[0]
    assert c.record(s.policy, s.trial, 0.5, tags=["slip"]).tags == ["slip"]
    # the amendment is in the chain: verify replays it between the records, and an undo replays it too
    assert c.verify().ok
    c.undo()
    assert c.verify().ok and c.status().remaining["n_max"] == 120
    again = Campaign.open(c.path)
    assert again.design.tags[-1] == "slip" and again.design.amendments == (rec.id,)
    assert [e.action for e in again.log().entries].count("amend") == 1


@pytest.mark.parametrize("change, words", [
    ({"alpha": 0.2}, "alpha cannot be amended: alpha is the level"),
    ({"bins": "binary"}, "bins cannot be amended: the scale"),
    ({"metric": "binary"}, "metric cannot be amended: the scale"),
    ({"score_range": [0, 10]}, "score_range cannot be amended"),
    ({"about": "table"}, "about cannot be amended: the estimand"),
    ({"policies": ["pi0", "octo", "diffusion", "rt2"]}, "a policy cannot join a running campaign"),
    ({"method": "bonferroni"}, "part of the pre-registered tests"),
    ({"blind": True}, "blinding is decided before the first rollout"),
    ({"n_max": 30}, "n_max can only grow"),
    ({"environments": ["kitchen", "sink"]}, "environment 'shelf' cannot be removed"),
    ({"tags": ["grasp"]}, "tag 'fold' cannot be removed"),
    ({"colour": "red"}, "'colour' is not a design setting"),
    ({"checkpoints": {"rt2": "/x"}}, "'rt2' is not one of the policies"),
    ({}, "nothing to amend"),
    ({"n_max": 60}, "already the design in force"),
])
def test_amendments_that_would_void_the_guarantee_are_refused_and_nothing_is_written(designed, change, words):
    c, _ = designed
    s = c.next()[0]
    c.record(s.policy, s.trial, 1.0)
    before = _fingerprint(c.path)
    with pytest.raises(ParameterError) as info:
        c.amend(change, reason="try")
    assert words in str(info.value) and "\n" not in str(info.value)
    assert _fingerprint(c.path) == before
    args = [f"{k}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in change.items()]
    r = CliRunner().invoke(app, ["campaign", "amend", str(c.path), *args, "--reason", "try"])
    assert r.exit_code == 2 and r.output.startswith("error:") and r.output.count("\n") == 1, r.output
    assert _fingerprint(c.path) == before


def test_an_amendment_needs_a_reason(designed):
    c, _ = designed
    with pytest.raises(ParameterError, match="needs a reason"):
        c.amend(n_max=100, reason=" ")
    r = CliRunner().invoke(app, ["campaign", "amend", str(c.path), "n_max=100"])
    assert r.exit_code == 2 and "needs --reason" in r.output


def test_a_final_budget_cannot_be_extended(tmp_path):
    c = Campaign.init(tmp_path / "f.campaign", ["a", "b"], alpha=0.1, n_max=40, bins="binary", budget="final")
    c.record("a", 0, 1)
    before = _fingerprint(c.path)
    with pytest.raises(StateError, match="final budget of 40 trials per comparison, which cannot be extended"):
        c.amend(n_max=80, reason="more")
    assert _fingerprint(c.path) == before
    e = Campaign.init(tmp_path / "e.campaign", ["a", "b"], alpha=0.1, n_max=40, bins="binary")
    assert e.amend(n_max=80, reason="more").changes["n_max"]["to"] == 80  # binary + n_max: extendable by default
    assert e.verify().ok


def test_amend_from_an_edited_design_file(designed, tmp_path):
    c, toml = designed
    edited = tmp_path / "design2.toml"
    edited.write_text(DESIGN.replace("n_max = 60", "n_max = 90").replace('"shelf"]', '"shelf", "bench"]'))
    rec = c.amend(design=edited, reason="week 2 plan")
    assert set(rec.changes) == {"n_max", "environments", "from_trial"}
    assert rec.changes["environments"]["to"] == ["kitchen", "sink", "shelf", "bench"]
    bad = tmp_path / "design3.toml"
    bad.write_text(DESIGN.replace("alpha = 0.1", "alpha = 0.2"))
    before = _fingerprint(c.path)
    with pytest.raises(ParameterError, match="alpha cannot be amended"):
        c.amend(design=bad, reason="oops")
    with pytest.raises(ParameterError, match="nothing to amend: .* has the design in force"):
        c.amend(design=edited, reason="again")
    assert _fingerprint(c.path) == before
    r = CliRunner().invoke(app, ["campaign", "amend", str(c.path), "--design", str(bad), "--reason", "x"])
    assert r.exit_code == 2 and "alpha cannot be amended" in r.output


def test_amend_json_mirrors_the_api_and_the_log(designed):
    c, _ = designed
    r = CliRunner().invoke(app, ["campaign", "amend", str(c.path), "n_max=80", "launch=run {checkpoint}",
                                 "--reason", "new loader", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    with Campaign.open(c.path) as again:
        assert out == again.log().entries[-1].to_dict()
        assert again.design.launch == "run {checkpoint}"
    r = CliRunner().invoke(app, ["campaign", "log", str(c.path)])
    assert "amend:" in r.output and "new loader" in r.output


# ============================================================================== idempotency keys

def test_a_retried_write_records_once_and_answers_the_same(tmp_path):
    db = tmp_path / "k.campaign"
    c = Campaign.init(db, ["a", "b"], alpha=0.1, n_max=40)
    first = c.record("a", 0, 1.0, idempotency_key="req-1")
    again = c.record("a", 0, 1.0, idempotency_key="req-1")
    assert again == first and c.status().records == 1
    # the key survives a restart: another process (a new open) gets the stored answer
    with Campaign.open(db) as other:
        assert other.record("a", 0, 1.0, idempotency_key="req-1") == first
        with pytest.raises(StateError, match="Idempotency-Key 'req-1' was already used for another request"):
            other.record("b", 0, 1.0, idempotency_key="req-1")
    # every write takes one
    assert c.fault("b", 0, "e-stop", idempotency_key="req-2") == c.fault("b", 0, "e-stop", idempotency_key="req-2")
    assert c.note("x", idempotency_key="req-3") == c.note("x", idempotency_key="req-3")
    assert c.amend(n_max=50, reason="r", idempotency_key="req-4") == c.amend(n_max=50, reason="r",
                                                                             idempotency_key="req-4")
    u = c.undo(idempotency_key="req-5")
    assert c.undo(idempotency_key="req-5") == u
    actions = [e.action for e in c.log().entries]
    assert actions == ["record", "fault", "note", "amend", "undo"]
    for bad in ("", "x" * 201, "é", "a\nb"):
        with pytest.raises(ParameterError, match="idempotency.key must be"):
            c.note("y", idempotency_key=bad)


def test_a_retried_add_run_records_once(tmp_path):
    """A leaderboard replicate sent again with its key is stored once; the same key with other scores is refused."""
    db = tmp_path / "lb.campaign"
    run = tmp_path / "run.csv"
    run.write_text("model,item,score\n" + "".join(f"{m},i{k},{(k + j) % 2}\n" for j, m in enumerate("xyz")
                                                   for k in range(6)))
    other = tmp_path / "other.csv"
    other.write_text(run.read_text().replace("x,i0,0", "x,i0,1"))
    with Campaign.init(db, kind="leaderboard", models=["x", "y", "z"], alpha=0.1) as c:
        first = c.add_run(run, idempotency_key="run-1")
    with Campaign.open(db) as c:
        assert c.add_run(run, idempotency_key="run-1") == first
        with pytest.raises(StateError, match="already used for another request"):
            c.add_run(other, idempotency_key="run-1")
        assert [e.trial for e in c.log().entries] == [1]


def test_cli_idempotency_key(tmp_path):
    db = str(tmp_path / "k.campaign")
    run = CliRunner().invoke
    assert run(app, ["campaign", "init", db, "--policies", "a,b", "--n-max", "30"]).exit_code == 0
    outs = [run(app, ["campaign", "record", db, "a", "0", "1", "--idempotency-key", "u-1", "--json"]).output
            for _ in range(2)]
    assert outs[0] == outs[1] and json.loads(outs[0])["id"] == 1
    with Campaign.open(db) as c:
        assert c.status().records == 1


# ============================================================================== blinding through the loader

def test_blind_next_gives_a_code_and_the_loader_command_never_the_checkpoint(tmp_path):
    marker = tmp_path / "started.txt"
    script = tmp_path / "serve.py"
    script.write_text("import sys, pathlib\npathlib.Path(sys.argv[1]).write_text(sys.argv[2])\n")
    db = tmp_path / "b.campaign"
    c = Campaign.init(db, ["pi0", "octo"], alpha=0.1, n_max=30, blind=True, seed=4,
                      launch=f"{sys.executable} {script} {marker} {{checkpoint}}",
                      checkpoints={"pi0": "/ckpt/pi0-secret", "octo": "/ckpt/octo-secret"})
    todo = c.next()
    code = todo[0].policy
    assert code in c.policies and code not in ("pi0", "octo")
    assert todo[0].launch == f"certirank campaign launch {db} {code} {todo[0].trial}"
    r = CliRunner().invoke(app, ["campaign", "next", str(db)])
    assert r.exit_code == 0 and "secret" not in r.output and "pi0" not in r.output and "octo" not in r.output
    r = CliRunner().invoke(app, ["campaign", "launch", str(db), code, "--dry-run"])
    assert r.exit_code == 0 and f"<checkpoint of {code}>" in r.output and "secret" not in r.output
    r = CliRunner().invoke(app, ["campaign", "launch", str(db), code, str(todo[0].trial)])
    assert r.exit_code == 0, r.output
    assert "secret" not in r.output and "checkpoint hidden" in r.output
    name = c._names.name_of[code]
    assert marker.read_text() == f"/ckpt/{name}-secret"  # the right policy was started
    # the init JSON leaves out codes and checkpoint paths while blind
    r = CliRunner().invoke(app, ["campaign", "init", str(tmp_path / "b2.campaign"), "--policies", "pi0,octo",
                                 "--blind", "--launch", "run {checkpoint}", "--checkpoint", "pi0=/s/pi0",
                                 "--checkpoint", "octo=/s/octo", "--json"])
    assert r.exit_code == 0 and "/s/pi0" not in r.output and '"codes"' not in r.output
    # names appear only after unblinding, which is logged
    r = CliRunner().invoke(app, ["campaign", "unblind", str(db), "--by", "pi", "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["codes"][name] == code
    assert c.log().entries[-1].action == "unblind" and c.log().entries[-1].by == "pi"
    assert c.next()[0].launch.startswith(sys.executable)
    r = CliRunner().invoke(app, ["campaign", "launch", str(db), "nobody"])
    assert r.exit_code == 2 and "unknown policy" in r.output


def test_launch_without_a_template_is_a_one_line_error(tmp_path):
    db = tmp_path / "n.campaign"
    Campaign.init(db, ["a", "b"], alpha=0.1, n_max=30).close()
    r = CliRunner().invoke(app, ["campaign", "launch", str(db), "a"])
    assert r.exit_code == 2 and "no launch template" in r.output and r.output.count("\n") == 1


def test_a_design_file_declares_its_budget_as_the_cli_does(tmp_path):
    """`budget = N` in a design file means what `campaign init --budget N` means: the per-comparison n_max, final
    with binary scores; `arms = "independent"` needs both."""
    toml = tmp_path / "ab.toml"
    toml.write_text('policies = ["A", "B"]\nbins = "binary"\nbudget = 50\narms = "independent"\n')
    with Campaign.init(tmp_path / "ab.campaign", design=toml) as c:
        r = c.config["engine"]["ranker"]
        assert (r["budget"], r["arms"], r["n_max"]) == ("final", "independent", 50)
    bad = tmp_path / "bad.toml"
    bad.write_text('policies = ["A", "B"]\nbudget = 50\narms = "independent"\n')
    with pytest.raises(ParameterError, match="design file .*--arms independent is a property of the exact budget"):
        Campaign.init(tmp_path / "bad.campaign", design=bad)
