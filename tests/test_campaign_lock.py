"""The design lock and amendments (issue 34 item 1), idempotency keys on every write (item 6), the blind loader
(item 3): a design.toml locked by hash, `amend` accepting only what keeps the guarantee (logged in the audit chain,
replayed by undo and verify) and refusing the rest with the reason and nothing written."""

from __future__ import annotations

import sqlite3

import pytest

from certirank import Campaign
from certirank.campaign._util import _sha
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


# ============================================================================== blinding through the loader


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
