"""`Ranker` and `Leaderboard` share one save/load contract (certirank._saved): to_dict/from_dict,
to_json/from_json, save(path) -> Path, load(path), with the same checksum rules and the same refusals."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from certirank import Leaderboard, Ranker
from certirank._saved import Saved
from certirank.errors import CertirankError, EditedStateError


def _ranker() -> Ranker:
    r = Ranker(["A", "B"], n_max=20, bins="binary")
    rng = np.random.default_rng(3)
    for _ in range(6):
        for p, t in r.suggest():
            r.record(p, t, float(rng.random() < (0.9 if p == "A" else 0.2)))
    return r


def _board() -> Leaderboard:
    lb = Leaderboard(["m1", "m2", "m3"], alpha=0.1)
    rng = np.random.default_rng(4)
    for rep in range(2):
        lb.add_replicate((rng.random((3, 20)) < np.array([[0.9], [0.5], [0.1]])).astype(float), replicate=rep)
    return lb


ENGINES = [pytest.param(_ranker, id="Ranker"), pytest.param(_board, id="Leaderboard")]


def _same(a, b) -> bool:
    return a.to_json() == b.to_json() and a.result().to_dict() == b.result().to_dict()


@pytest.mark.parametrize("make", ENGINES)
def test_one_contract_round_trips(make, tmp_path):
    obj = make()
    cls = type(obj)
    assert isinstance(obj, Saved)
    d = obj.to_dict()
    assert "state_sha256" in d and json.loads(json.dumps(d)) == d  # plain JSON data, sealed
    assert _same(cls.from_dict(d), obj)
    assert _same(cls.from_json(obj.to_json()), obj)
    assert _same(cls.from_json(obj.to_json().encode()), obj)
    path = obj.save(tmp_path / "state.json")
    assert isinstance(path, Path) and path.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]  # written atomically, nothing left beside
    assert _same(cls.load(path), obj)


@pytest.mark.parametrize("make", ENGINES)
def test_same_checksum_rules(make, tmp_path):
    obj = make()
    cls = type(obj)
    d = obj.to_dict()
    d["alpha" if "alpha" in d else "config"] = 0.6 if "alpha" in d else {**d["config"], "alpha": 0.6}
    with pytest.raises(EditedStateError, match="does not match its checksum"):
        cls.from_dict(d)
    trusted = cls.from_dict(d, trust_edited=True)
    assert "edited" in json.dumps(trusted.result().to_dict())
    # the note survives a save and a load: an edit cannot be laundered
    again = cls.load(trusted.save(tmp_path / "edited.json"))
    assert "edited" in json.dumps(again.result().to_dict())
    unsealed = obj.to_dict()
    del unsealed["state_sha256"]
    with pytest.raises(EditedStateError, match="no checksum"):
        cls.from_dict(unsealed)
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(d))
    with pytest.raises(EditedStateError, match="tampered.json"):
        cls.load(path)


@pytest.mark.parametrize("cls", [Ranker, Leaderboard])
@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000,            # row 11: RecursionError before
                                  '{"a":' * 100_000 + "1" + "}" * 100_000,
                                  b"\xff\xfe not utf-8", "not json", "[1, 2]", 3])
def test_same_refusals_of_what_is_not_a_saved_state(cls, text):
    with pytest.raises(CertirankError) as exc:
        cls.from_json(text)
    assert "\n" not in str(exc.value) and "not a" in str(exc.value)


@pytest.mark.parametrize("cls", [Ranker, Leaderboard])
def test_load_refuses_bad_paths_in_one_line(cls, tmp_path):
    with pytest.raises(CertirankError, match="path"):
        cls.load(None)
    with pytest.raises(CertirankError, match="cannot read"):
        cls.load(tmp_path / "missing.json")


def test_leaderboard_to_state_is_the_old_name_of_to_dict():
    lb = _board()
    with pytest.warns(DeprecationWarning, match="to_dict"):
        state = lb.to_state()
    assert {**state, "state_sha256": lb.to_dict()["state_sha256"]} == lb.to_dict()
