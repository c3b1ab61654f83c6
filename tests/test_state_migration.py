"""Saved states written before the parameter contract (0.1: ``metric``, ``nmax``) keep loading, computing the
same answers, and keep their checksums; new states use the public names.

The fixtures in tests/fixtures/states were written by tests/fixtures/states/make_states.py at commit 12e0b44.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from certirank import Campaign, Leaderboard, Ranker

STATES = Path(__file__).resolve().parent / "fixtures" / "states"
EXPECTED = json.loads((STATES / "expected.json").read_text())


def _relations(ranking) -> list[list[str]]:
    return sorted([r.better, r.worse] for r in ranking.relations)


@pytest.mark.parametrize("name", ["ranker_v1", "ranker_progress_v1"])
def test_old_ranker_json_loads_and_resumes(name, tmp_path):
    text = (STATES / f"{name}.json").read_text()
    assert '"metric"' in text and '"nmax"' in text  # the old spelling, as users have it on disk
    r = Ranker.load(STATES / f"{name}.json")
    exp = EXPECTED[name]
    assert r.n_max == exp["n_max"] and r.iteration == exp["iteration"] and r.recorded() == exp["recorded"]
    assert _relations(r.result().ranking) == exp["relations"]
    # saved again, it keeps its spelling and its checksums, so it loads anywhere it loaded before
    r.save(tmp_path / "again.json")
    again = json.loads((tmp_path / "again.json").read_text())
    old = json.loads(text)
    assert again["config"] == old["config"] and again["config_sha256"] == old["config_sha256"]
    assert again["format"] == old["format"] == "certirank.anyrank.v1"
    # and it goes on: extend() writes the budget under the name the file uses
    r.extend(r.n_max + 5)
    assert json.loads(r.to_json())["config"]["nmax"] == exp["n_max"] + 5


def test_old_ranker_json_edits_are_still_refused():
    data = json.loads((STATES / "ranker_v1.json").read_text())
    data["config"]["alpha"] = 0.6
    from certirank.errors import EditedStateError
    with pytest.raises(EditedStateError):
        Ranker.from_json(json.dumps(data))
    # renaming the old fields by hand is an edit too
    data = json.loads((STATES / "ranker_v1.json").read_text())
    data["config"]["bins"] = data["config"].pop("metric")
    with pytest.raises(EditedStateError):
        Ranker.from_json(json.dumps(data))


def test_new_ranker_json_uses_the_public_names():
    r = Ranker(["A", "B"], n_max=30, bins="binary")
    d = json.loads(r.to_json())
    assert d["format"] == "certirank.anyrank.v2"
    assert d["config"]["bins"] == "binary" and d["config"]["n_max"] == 30
    assert "metric" not in d["config"] and "nmax" not in d["config"]
    assert Ranker.from_json(r.to_json()).to_json() == r.to_json()


def test_old_leaderboard_state_loads():
    lb = Leaderboard.load(STATES / "leaderboard_v1.json")
    assert lb.R == EXPECTED["leaderboard_v1"]["R"]
    assert _relations(lb.result().ranking) == EXPECTED["leaderboard_v1"]["relations"]


@pytest.mark.parametrize("name", ["campaign_anyrank_v1", "campaign_leaderboard_v1"])
def test_old_campaign_files_open_verify_and_record(name, tmp_path):
    path = tmp_path / f"{name}.db"
    shutil.copy(STATES / f"{name}.db", path)
    c = Campaign.open(path)
    try:
        status = c.status()
        ranking = getattr(status.ranking, "ranking", status.ranking)  # a Ranking once the record lands
        assert _relations(ranking) == EXPECTED[name]["relations"]
        if name == "campaign_anyrank_v1":
            for s in c.next():
                c.record(s.policy, s.trial, 1.0)
        # checkpoints written then, and now, replay from the old configuration
        report = c.verify()
        assert report.ok, [(ch.name, ch.detail) for ch in report.checks if not ch.ok]
        if name == "campaign_leaderboard_v1":
            # its checkpoint was written by the BB-EDGE of 0.1 (log e-values as sums; today's are products of 64
            # factors): the replay differs in the last digits, decides the same, and verify says so
            assert len(report.warnings) == 1 and "not the checkpoint bit for bit" in report.warnings[0]
            replay = next(ch for ch in report.checks if ch.name.startswith("replay"))
            assert replay.ok and "the same decisions" in replay.detail
            assert "same edges" in report.warnings[0] and "within the tolerance 1e-09" in report.warnings[0]
            worst = float(re.search(r"at most ([0-9.e+-]+) \(relative\)", report.warnings[0]).group(1))
            assert 0 < worst < 1e-12
        else:
            assert report.warnings == []
    finally:
        c.close()


def _old_leaderboard_state() -> bytes:
    import sqlite3
    with sqlite3.connect(STATES / "campaign_leaderboard_v1.db") as conn:
        return bytes(conn.execute("SELECT state FROM checkpoint WHERE id = 1").fetchone()[0])


@pytest.mark.parametrize("scale, agrees", [(0.0, True), (1e-12, True), (1e-6, False)])
def test_a_leaderboard_replay_is_accepted_only_within_the_float_tolerance(scale, agrees):
    """The rule verify applies to a checkpoint of an older engine: numbers within REPLAY_RTOL (1e-9 relative),
    everything else equal; a relative change of 1e-6 in the running sums is refused."""
    from certirank.campaign._engines import REPLAY_RTOL, LeaderboardEngine
    state = _old_leaderboard_state()
    eng = LeaderboardEngine.restore(state)
    eng.board._theta_sum = eng.board._theta_sum * (1 + scale)
    said = LeaderboardEngine.agreement(state, eng.checkpoint())
    assert (said is not None) == agrees and REPLAY_RTOL == 1e-9
    if agrees:
        assert f"at most {scale:.1e}"[:12] in said or scale == 0.0


def test_a_leaderboard_replay_with_another_decision_is_refused():
    """Exact fields (replicate count, edges) never pass on a tolerance."""
    from certirank.campaign._engines import LeaderboardEngine
    state = _old_leaderboard_state()
    eng = LeaderboardEngine.restore(state)
    eng.board.replicate_ids = [*eng.board.replicate_ids[:-1], 99]
    assert LeaderboardEngine.agreement(state, eng.checkpoint()) is None
