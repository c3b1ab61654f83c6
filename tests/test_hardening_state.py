"""Tamper-evident saved state (issue 20): every edit of a saved campaign or leaderboard is refused unless
trust_edited=True, which is then stated in every result, also after saving and loading again."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest

from certirank.errors import CertirankError, EditedStateError
from certirank.methods.anyrank import Ranker
from certirank.methods.bbedge import Leaderboard


def _campaign() -> Ranker:
    r = Ranker(["A", "B", "C"], alpha=0.05, n_max=50, bins="binary")
    rng = np.random.default_rng(3)
    for _ in range(12):
        for p, t in r.suggest():
            r.record(p, t, float(rng.random() < {"A": 0.9, "B": 0.5, "C": 0.1}[p]))
    return r


def _board() -> Leaderboard:
    rng = np.random.default_rng(5)
    lb = Leaderboard(["a", "b", "c"], alpha=0.05)
    for _ in range(4):
        lb.add_replicate(rng.random((3, 20)) * np.array([[1.0], [0.6], [0.3]]))
    return lb


def _campaign_edits(d: dict) -> dict[str, dict]:
    out = {}
    e = copy.deepcopy(d); e["config"]["alpha"] = 0.6; out["alpha"] = e
    e = copy.deepcopy(d); e["config"]["gamma"] = 0.0; out["config"] = e
    e = copy.deepcopy(d); e["config"]["nmax"] = 10_000; out["config-nmax"] = e
    e = copy.deepcopy(d); e["results"].pop(3); out["removed-result"] = e
    e = copy.deepcopy(d); e["results"][2]["score"] = 1.0 - e["results"][2]["score"]; out["changed-result"] = e
    e = copy.deepcopy(d); e["results"].append({"policy": "A", "trial": 999, "score": 1.0}); out["added-result"] = e
    e = copy.deepcopy(d); e["config"]["policies"].remove("C")
    e["results"] = [x for x in e["results"] if x["policy"] != "C"]; out["removed-model"] = e
    e = copy.deepcopy(d); del e["state_sha256"]; out["deleted-checksum"] = e
    e = copy.deepcopy(d); del e["config_sha256"]; out["deleted-config-checksum"] = e
    e = copy.deepcopy(d); del e["state_sha256"]; del e["config_sha256"]; e["config"]["alpha"] = 0.6
    out["alpha-and-both-checksums"] = e
    return out


def _board_edits(d: dict) -> dict[str, dict]:
    out = {}
    e = copy.deepcopy(d); e["alpha"] = 0.9; out["alpha"] = e
    e = copy.deepcopy(d); e["tau"] = 0.05; out["config"] = e
    e = copy.deepcopy(d); e["hist_yb"].pop(); e["hist_theta"].pop(); e["R"] -= 1; e["replicate_ids"].pop()
    out["removed-result"] = e
    e = copy.deepcopy(d); e["hist_yb"][0], e["hist_yb"][1] = e["hist_yb"][1], e["hist_yb"][0]
    out["changed-result"] = e
    e = copy.deepcopy(d); e["hist_yb"].append(e["hist_yb"][0]); e["hist_theta"].append(e["hist_theta"][0])
    e["R"] += 1; e["replicate_ids"].append(99); out["added-result"] = e
    e = copy.deepcopy(d); e["models"].pop(); out["removed-model"] = e
    e = copy.deepcopy(d); del e["state_sha256"]; out["deleted-checksum"] = e
    return out


def test_intact_campaign_round_trips_without_warning(tmp_path: Path) -> None:
    r = _campaign()
    r.save(tmp_path / "c.json")
    again = Ranker.load(tmp_path / "c.json")
    assert again.result().to_dict() == r.result().to_dict()
    assert not again.result().warnings


@pytest.mark.filterwarnings("ignore::certirank.errors.CertirankWarning")  # the edited alpha 0.6 warns, rightly
@pytest.mark.parametrize("edit", list(_campaign_edits(json.loads(_campaign().to_json()))))
def test_every_campaign_edit_is_refused(tmp_path: Path, edit: str) -> None:
    r = _campaign()
    data = _campaign_edits(json.loads(r.to_json()))[edit]
    path = tmp_path / "c.json"
    path.write_text(json.dumps(data))
    with pytest.raises(EditedStateError) as info:
        Ranker.load(path)
    assert "checksum" in str(info.value) and "\n" not in str(info.value) and str(path) in str(info.value)
    with pytest.raises(EditedStateError):
        Ranker.from_json(json.dumps(data))
    # trusted: it loads (when the edit is structurally possible) and every result says so
    try:
        trusted = Ranker.load(path, trust_edited=True)
    except CertirankError:
        return
    res = trusted.result()
    assert any("edited saved state" in w for w in res.warnings) and "WARNING" in res.statement and "edited" in res.statement
    assert res.alpha == trusted.alpha == data["config"]["alpha"]  # the alpha actually used, not a stale one
    # saving and loading again does not launder the edit
    trusted.save(path)
    assert Ranker.load(path).result().warnings == res.warnings


def test_intact_leaderboard_round_trips_without_warning(tmp_path: Path) -> None:
    lb = _board()
    lb.save(tmp_path / "b.json")
    again = Leaderboard.load(tmp_path / "b.json")
    assert again.result().to_dict() == lb.result().to_dict() and not again.result().warnings


@pytest.mark.parametrize("edit", list(_board_edits(json.loads(_board().to_json()))))
def test_every_leaderboard_edit_is_refused(tmp_path: Path, edit: str) -> None:
    data = _board_edits(json.loads(_board().to_json()))[edit]
    path = tmp_path / "b.json"
    path.write_text(json.dumps(data))
    with pytest.raises(EditedStateError) as info:
        Leaderboard.load(path)
    assert "checksum" in str(info.value) and "\n" not in str(info.value)
    try:
        trusted = Leaderboard.load(path, trust_edited=True)
        res = trusted.result()
    except CertirankError:
        return
    assert any(w.startswith("warning: computed from an edited saved state") for w in res.warnings)
    assert res.to_dict()["warnings"] == list(res.warnings) and "edited" in res.ranking.guarantee
    trusted.save(path)
    assert Leaderboard.load(path).result().warnings == res.warnings


def test_extend_keeps_the_seal() -> None:
    r = _campaign()
    r.extend(80)
    assert Ranker.from_json(r.to_json()).n_max == 80


@pytest.mark.parametrize("content", [b"\x89PNG\r\n\x1a\n\x00\xff", b"", b"[1, 2]", b'{"format": 3}',
                                     b'{"format": "certirank.anyrank.v1", "config": "junk"}',
                                     b'{"format": "certirank.anyrank.v1", "config": {}, "results": 5}'])
def test_garbage_campaign_files_are_one_line_errors(tmp_path: Path, content: bytes) -> None:
    p = tmp_path / "x.json"
    p.write_bytes(content)
    for call in (lambda: Ranker.load(p), lambda: Ranker.load(p, trust_edited=True),
                 lambda: Leaderboard.load(p), lambda: Leaderboard.load(p, trust_edited=True)):
        with pytest.raises(CertirankError) as info:
            call()
        assert "\n" not in str(info.value)


def test_save_to_folder_or_missing_folder_is_a_certirank_error(tmp_path: Path) -> None:
    for obj in (_campaign(), _board()):
        for bad in (tmp_path, tmp_path / "missing" / "x.json"):
            with pytest.raises(CertirankError):
                obj.save(bad)
        with pytest.raises(CertirankError):
            type(obj).load(tmp_path)
