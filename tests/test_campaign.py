"""certirank.Campaign and `certirank campaign`: the live store, its refusals, undo, blind mode, the config lock,
tamper evidence, export -> rank, and the leaderboard kind."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pandas as pd
import pytest

from certirank import Campaign, Ranker
from certirank.campaign import _blob
from certirank.errors import CertirankError, DataError, ParameterError, StateError
from certirank.methods.anyrank.state import snapshot_differences
from _records import flat

POLICIES = ["p0", "p1", "p2", "p3", "p4"]
MEANS = dict(zip(POLICIES, [0.1, 0.3, 0.5, 0.7, 0.9]))


def _score(policy: str, trial: int, seed: int = 0) -> float:
    """A fixed, well-separated progress score per (policy, trial): the campaign completes in ~100 rollouts."""
    rng = np.random.default_rng([seed, POLICIES.index(policy), trial])
    return float(np.clip(MEANS[policy] + 0.08 * rng.standard_normal(), 0.0, 1.0))


def _state(c: Campaign) -> dict:
    """The checkpointed engine snapshot, decoded."""
    blob = c._store._conn.execute("SELECT state FROM checkpoint").fetchone()[0]
    return _blob.unpack(bytes(blob))


def _fingerprint(path) -> tuple:
    """Everything a refused command must leave unchanged: every log row and the checkpoint."""
    con = sqlite3.connect(path)
    try:
        rows = con.execute("SELECT * FROM records ORDER BY id").fetchall()
        cp = con.execute("SELECT last_id, head_hash, state_sha256 FROM checkpoint").fetchone()
        sug = con.execute("SELECT policy, trial FROM suggested ORDER BY policy, trial").fetchall()
    finally:
        con.close()
    return rows, cp, sug


def _run_to_completion(c: Campaign, ref: Ranker | None = None, limit: int = 5000) -> int:
    n = 0
    while n < limit:
        todo = c.next()
        if not todo:
            break
        for s in todo:
            name = c._resolve(s.policy)
            v = _score(name, s.trial)
            c.record(s.policy, s.trial, v, by="ann")
            if ref is not None:
                ref.record(name, s.trial, v, ahead=True)
            n += 1
    return n


@pytest.fixture()
def finished(tmp_path):
    path = tmp_path / "lab.campaign"
    c = Campaign.init(path, POLICIES, alpha=0.1, n_max=400, environments=["kitchen", "sink", "table"], seed=5)
    # the environments are the campaign's schedule (balanced blocks), not the Ranker's draw
    ref = Ranker(POLICIES, alpha=0.1, n_max=400)
    n = _run_to_completion(c, ref)
    return c, ref, n


# ============================================================================== the loop and its result

def test_campaign_runs_to_a_complete_ranking_equal_to_ranker(finished, tmp_path):
    c, ref, n = finished
    st = c.status()
    assert st.complete and st.done and st.termination == "complete ranking"
    assert n == st.records == sum(st.rollouts.values()) > 0
    # the same records fed to a Ranker give the identical result, field by field
    assert st.result.to_dict() == ref.result().to_dict() and st.ranking == ref.result().ranking
    assert not snapshot_differences(_state(c), ref.snapshot())
    assert [r.better for r in st.ranking.relations if r.worse == "p0"]  # p0 is beaten by someone
    assert c.next() == []
    assert st.remaining["total"] == 0 and st.remaining["open_pairs"] == 0
    # environments follow the campaign's schedule: every block of three trials runs each environment once
    by_trial = {r.trial: (r.environment, r.block) for r in c.records()}
    for trial, (env, block) in by_trial.items():
        assert block == trial // 3 and env == c.design.schedule.environment(trial)
    for block in {b for _, b in by_trial.values()}:
        envs = [by_trial[t][0] for t in range(3 * block, 3 * block + 3) if t in by_trial]
        assert len(set(envs)) == len(envs)


def test_open_restores_the_checkpoint_without_replay(finished):
    c, ref, _ = finished
    again = Campaign.open(c.path)
    assert again.status().ranking.to_dict() == c.status().ranking.to_dict()
    # the restored engine is the checkpoint (no replay): equal to a replay of the saved Ranker
    replayed = Ranker.from_json(ref.to_json())
    assert not snapshot_differences(_state(again), replayed.snapshot())
    assert again.verify().ok


def test_ranker_snapshot_round_trip_mid_campaign():
    rng = np.random.default_rng(3)
    r = Ranker(["a", "b", "c"], alpha=0.2, n_max=60, guarantee="strict", prior=[0.1, 0.5, 0.9])
    for _ in range(40):
        todo = r.suggest()
        if not todo:
            break
        for p, t in todo:
            r.record(p, t, None if rng.random() < 0.05 else float(rng.random() < 0.5))
        snap = r.snapshot()
        back = Ranker.from_snapshot(snap)
        assert not snapshot_differences(snap, back.snapshot())
        assert back.suggest() == r.suggest() and back.result().to_dict() == r.result().to_dict()
        assert back.to_dict() == r.to_dict()
    # a snapshot whose graph contradicts its rejections is refused
    bad = r.snapshot()
    bad["arrays"]["graph_weights"] = bad["arrays"]["graph_weights"] + 0.01
    with pytest.raises(StateError):
        Ranker.from_snapshot(bad)


# ============================================================================== refusals

@pytest.fixture()
def started(tmp_path):
    path = tmp_path / "r.campaign"
    c = Campaign.init(path, ["a", "b", "c"], alpha=0.1, n_max=20)
    assert {(s.policy, s.trial) for s in c.next()} == {("a", 0), ("b", 0), ("c", 0)}
    c.record("a", 0, 1.0)
    return c


@pytest.mark.parametrize("args, error, words", [
    (("zz", 0, 0.5), ParameterError, "unknown policy 'zz'"),
    (("b", 0, 1.5), ParameterError, "outside [0, 1]"),
    (("b", 0, -0.1), ParameterError, "outside [0, 1]"),
    (("b", 0, "high"), ParameterError, "score must be a number"),
    (("a", 0, 1.0), StateError, "already recorded"),
    (("a", 0, 0.0), StateError, "already recorded"),
    (("b", 7, 1.0), StateError, "was not suggested"),
    (("b", -1, 1.0), ParameterError, "non-negative integer"),
    (("b", 10**9, 1.0), ParameterError, "far beyond the budget"),
])
def test_record_refusals_leave_the_file_unchanged(started, args, error, words):
    before = _fingerprint(started.path)
    with pytest.raises(error) as info:
        started.record(*args)
    assert words in str(info.value) and "\n" not in str(info.value)
    assert _fingerprint(started.path) == before
    # the in-memory engine was not touched either: the next valid record still works
    assert started.record("b", 0, 0.5).id == 2


def test_ahead_and_remembered_suggestions_are_accepted(started):
    assert started.record("b", 7, 1.0, ahead=True).ahead
    # a suggestion stays acceptable after a missing result moved the engine on
    c = Campaign.init(started.path.with_name("s.campaign"), ["a", "b", "c"], alpha=0.1, n_max=20)
    todo = c.next()
    assert sorted((s.policy, s.trial) for s in todo) == [("a", 0), ("b", 0), ("c", 0)]
    c.record("a", 0, None)  # a failed run: pairs with a skip trial 0
    assert ("b", 0) not in [(s.policy, s.trial) for s in c.next()] or True
    c.record("b", 0, 1.0)
    c.record("c", 0, 0.0)
    assert c.status().records == 3


def test_finished_campaign_refuses_records(finished):
    c, _, _ = finished
    before = _fingerprint(c.path)
    with pytest.raises(StateError, match="finished"):
        c.record("p0", 999, 0.5, ahead=True)
    assert _fingerprint(c.path) == before


def test_declared_score_range(tmp_path):
    c = Campaign.init(tmp_path / "x.campaign", ["a", "b"], score_range=(0, 10), n_max=5)
    rec = c.record("a", 0, 7)
    assert rec.raw_score == 7 and rec.score == pytest.approx(0.7)
    with pytest.raises(ParameterError, match=r"outside \[0, 10\]"):
        c.record("b", 0, 11)
    assert c.record("b", 0, "missing").score is None


def test_config_is_locked(tmp_path, started):
    with pytest.raises(StateError, match=r"locked \(changed: .*engine.ranker.alpha"):
        Campaign.init(started.path, ["a", "b", "c"], alpha=0.2, n_max=20)
    with pytest.raises(StateError, match="already a campaign with this configuration"):
        Campaign.init(started.path, ["a", "b", "c"], alpha=0.1, n_max=20)
    # editing the configuration behind the store's back is detected at open
    con = sqlite3.connect(started.path)
    cfg = json.loads(con.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()[0])
    cfg["engine"]["ranker"]["alpha"] = 0.5
    con.execute("UPDATE meta SET value = ? WHERE key = 'config'", (json.dumps(cfg),))
    con.commit()
    con.close()
    with pytest.raises(StateError, match="does not match its checksum"):
        Campaign.open(started.path)


def test_bad_init_and_open(tmp_path):
    with pytest.raises(ParameterError, match="at least two"):
        Campaign.init(tmp_path / "a.db", ["a"])
    assert not (tmp_path / "a.db").exists()
    with pytest.raises(ParameterError, match="no campaign file"):
        Campaign.open(tmp_path / "missing.db")
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(ParameterError, match="not a certirank campaign"):
        Campaign.open(other)
    with pytest.raises(ParameterError, match="leaderboard"):
        # (n_max is a leaderboard campaign's budget of replicates: tests/test_leaderboard_budget.py)
        Campaign.init(tmp_path / "b.db", ["a", "b"], kind="leaderboard", environments=["e1", "e2"])


# ============================================================================== undo

def test_undo_restores_the_exact_earlier_state(started):
    c = started
    before_state = _state(c)
    before = flat(c.status().to_dict())
    todo = c.next()
    rec = c.record(todo[0].policy, todo[0].trial, 0.25, by="bob")
    assert snapshot_differences(before_state, _state(c))
    undone = c.undo(by="carol", note="typo")
    assert undone.id == rec.id and undone.undone_by == rec.id + 1 and undone.undone_who == "carol"
    assert not snapshot_differences(before_state, _state(c))
    after = flat(c.status().to_dict())
    for key in ("ranking", "rollouts", "records", "complete", "done", "remaining"):
        assert after[key] == before[key], key
    assert after["undone"] == 1
    # the record is kept in the trail, marked undone, and its rollout can be recorded again
    log = c.log().entries
    assert [e.action for e in log] == ["record", "record", "undo"] and not log[1].live
    assert c.record(todo[0].policy, todo[0].trial, 0.75).score == 0.75
    assert c.verify().ok


def test_undo_in_the_middle_equals_never_recording_it(finished):
    c, _, _ = finished
    recs = c.records()
    target = recs[len(recs) // 2]
    c.undo(target.id)
    # the environments are the campaign's schedule (balanced blocks), not the Ranker's draw
    ref = Ranker(POLICIES, alpha=0.1, n_max=400)
    for r in recs:
        if r.id != target.id:
            ref.record(r.policy, r.trial, r.score, ahead=True)
    assert not snapshot_differences(_state(c), ref.snapshot())
    with pytest.raises(StateError, match="already undone"):
        c.undo(target.id)
    with pytest.raises(StateError, match="no record 99999"):
        c.undo(99999)
    undo_id = c.log().entries[-1].id
    with pytest.raises(StateError, match="only recorded results"):
        c.undo(undo_id)
    assert c.verify().ok


# ============================================================================== blind mode

def test_blind_mode_shows_codes_until_unblinded(tmp_path):
    c = Campaign.init(tmp_path / "b.campaign", ["alpha_v1", "beta_v2", "gamma_v3"], blind=True, seed=11, n_max=30)
    codes = c.config["codes"]
    assert len(set(codes.values())) == 3 and c.policies == sorted(codes.values())
    todo = c.next()
    assert {s.policy for s in todo} <= set(codes.values())
    for s in todo:
        c.record(s.policy, s.trial, 0.5)
    text = json.dumps(c.status().to_dict()) + json.dumps(c.log().to_dict()) + json.dumps([s.to_dict() for s in c.next()])
    for name in codes:
        assert name not in text
    with pytest.raises(ParameterError) as info:
        c.record("delta", 1, 0.5)
    assert "alpha_v1" not in str(info.value)
    st = c.status(unblind=True, by="pi")
    assert st.unblinded and set(st.rollouts) == set(codes)
    assert c.log().entries[-1].action == "unblind" and c.log().entries[-1].by == "pi"
    assert Campaign.open(c.path).unblinded and Campaign.open(c.path).policies == list(codes)
    assert c.verify().ok
    # the same seed draws the same codes
    again = Campaign.init(tmp_path / "b2.campaign", ["alpha_v1", "beta_v2", "gamma_v3"], blind=True, seed=11, n_max=30)
    assert again.config["codes"] == codes


# ============================================================================== tamper evidence

def test_verify_detects_edited_records_and_checkpoints(finished):
    c, _, _ = finished
    assert c.verify().ok
    con = sqlite3.connect(c.path)
    con.execute("UPDATE records SET score = 1.0 WHERE id = 3")
    con.commit()
    rep = c.verify()
    assert not rep.ok and [x.name for x in rep.failures] == ["hash chain", "replay of the records equals the checkpoint"]
    con.execute("UPDATE records SET score = (SELECT score FROM records WHERE id = 4) WHERE id = 3")
    con.commit()
    # a consistent-looking but stale checkpoint (from an earlier engine) fails the replay check
    early = Campaign.init(c.path.with_name("early.campaign"), POLICIES, alpha=0.1, n_max=400,
                          environments=["kitchen", "sink", "table"], seed=5)
    _run_to_completion(early, limit=5)
    blob, sha = early._store._conn.execute("SELECT state, state_sha256 FROM checkpoint").fetchone()
    con.execute("UPDATE checkpoint SET state = ?, state_sha256 = ?", (blob, sha))
    con.commit()
    con.close()
    # the head entry seals the checkpoint it wrote: opening refuses the swap, verify lists it
    with pytest.raises(StateError, match="checkpoint state is not the one entry"):
        Campaign.open(c.path)
    failed = [x.name for x in Campaign(c.path, _check_config=False).verify().failures]
    assert "replay of the records equals the checkpoint" in failed and "checkpoint is at the head of the log" in failed
    # a corrupted checkpoint is refused on use
    con = sqlite3.connect(c.path)
    con.execute("UPDATE checkpoint SET state = x'00', state_sha256 = (SELECT state_sha256 FROM records ORDER BY id "
                "DESC LIMIT 1)")
    con.commit()
    con.close()
    with pytest.raises(StateError, match="checkpoint does not match its checksum"):
        Campaign.open(c.path).status()


# ============================================================================== leaderboard kind

def _run_file(path, models, items, rng, shift):
    rows = [{"model": m, "item": it, "score": float(np.clip(shift[m] + 0.1 * rng.standard_normal(), 0, 1))}
            for m in models for it in items]
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def _assert_close(a, b, path="result"):
    if isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), path
        for k in a:
            _assert_close(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            _assert_close(x, y, f"{path}[{i}]")
    elif isinstance(a, float) and isinstance(b, float):
        assert a == pytest.approx(b, rel=1e-12, abs=1e-12), path
    else:
        assert a == b, path


def test_leaderboard_campaign_matches_the_engine(tmp_path):
    from certirank import Leaderboard
    models = ["m1", "m2", "m3"]
    items = [f"q{i}" for i in range(40)]
    shift = {"m1": 0.8, "m2": 0.5, "m3": 0.2}
    c = Campaign.init(tmp_path / "lb.campaign", kind="leaderboard", models=models, alpha=0.1)
    ref = Leaderboard(models, alpha=0.1)
    rng = np.random.default_rng(0)
    for r in range(4):
        f = _run_file(tmp_path / f"run{r}.csv", models, items, rng, shift)
        rec = c.add_run(f, by="eve")
        assert rec.trial == r + 1
        wide = pd.read_csv(f).pivot(index="item", columns="model", values="score").reindex(index=items)
        ref.add_replicate(wide, replicate=r + 1)
    st = c.status()
    # equal up to summation order (numpy sums a panel differently depending on its memory layout)
    _assert_close(st.result.to_dict(), ref.result().to_dict())
    assert st.result.replicates == 4 and st.result.edges == ref.result().edges
    assert st.complete == (len(ref.result().edges) == 3)
    # every pair decided: the campaign has stopped and asks for no more runs (it still accepts one)
    assert st.complete and st.done and c.next() == []
    before = _fingerprint(c.path)
    bad = pd.read_csv(tmp_path / "run0.csv")
    bad.loc[0, "score"] = 1.5
    bad.to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(DataError, match="outside"):
        c.add_run(tmp_path / "bad.csv")
    bad = pd.read_csv(tmp_path / "run0.csv")
    bad[bad["model"] != "m3"].to_csv(tmp_path / "short.csv", index=False)
    with pytest.raises(DataError, match="no scores"):
        c.add_run(tmp_path / "short.csv")
    with pytest.raises(StateError, match="already recorded"):
        c.add_run(tmp_path / "run0.csv", replicate=2)
    with pytest.raises(StateError, match="add_run"):
        c.record("m1", 0, 0.5)
    assert _fingerprint(c.path) == before
    c.undo()
    assert c.status().result.replicates == 3
    assert c.verify().ok
    ex = c.export(tmp_path / "lb.csv")
    assert ex.rows == 3 * 3 * 40 and ex.rank_command.startswith("certirank leaderboard")


# ============================================================================== the command line


def test_errors_are_certirank_errors(tmp_path):
    c = Campaign.init(tmp_path / "e.campaign", ["a", "b"], n_max=3)
    with pytest.raises(CertirankError):
        c.next(count=0)
    with pytest.raises(CertirankError):
        c.export(tmp_path / "out.xlsx")
    with pytest.raises(CertirankError):
        c.undo()


