"""Saved states written before the parameter contract (0.1: ``metric``, ``nmax``) keep loading, computing the
same answers, and keep their checksums; new states use the public names.

The fixtures in tests/fixtures/states were written by tests/fixtures/states/make_states.py at commit 12e0b44.
"""

from __future__ import annotations

import json
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


# Known, reported to the lead: BB-EDGE's arithmetic changed in its last ulps (the scale work's betting factor:
# |log e| differs by 1.8e-15 on this file), and `campaign verify` compares the replayed checkpoint bit for bit, so
# a leaderboard campaign written before that change no longer verifies. Strict: this fails once it is fixed.
_LEADERBOARD_REPLAY = pytest.mark.xfail(strict=True, reason="replay differs in the last ulps after the BB-EDGE "
                                                            "arithmetic change; campaign verify compares bits")


@pytest.mark.parametrize("name", ["campaign_anyrank_v1",
                                  pytest.param("campaign_leaderboard_v1", marks=_LEADERBOARD_REPLAY)])
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
    finally:
        c.close()
