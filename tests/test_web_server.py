"""The campaign page as a real HTTP server (uvicorn, in a thread) shared with shell operators: a write
waiting for the campaign's lock stalls no other request, and a few shell and page recorders at once lose,
duplicate and refuse nothing (a small run of benchmarks/studies/campaign_many_operators.py)."""

from __future__ import annotations

import importlib.util
import sqlite3
import sys
import threading
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the campaign page needs the 'web' extra (fastapi)")
pytest.importorskip("uvicorn", reason="the campaign page needs the 'web' extra (uvicorn)")

from certirank.campaign import Campaign  # noqa: E402

_STUDY = Path(__file__).resolve().parents[1] / "benchmarks" / "studies" / "campaign_many_operators.py"
_spec = importlib.util.spec_from_file_location("campaign_many_operators", _STUDY)
study = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = study  # its dataclasses look their module up
_spec.loader.exec_module(study)

TOKEN = "a-test-token-of-some-length"


@pytest.fixture
def server(tmp_path):
    db = tmp_path / "live.campaign"
    Campaign.init(db, ["a", "b"], alpha=0.1, n_max=1000).close()
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    proc, base = study.start_server(str(db), str(token_file), in_process=True)
    try:
        yield db, base
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def _get(url: str) -> int:
    with urllib.request.urlopen(url, timeout=60) as r:
        r.read()
        return r.status


def test_a_write_waiting_for_the_lock_stalls_no_other_request(server):
    db, base = server
    holder = sqlite3.connect(db, timeout=30, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process's write in progress
    answers: dict[str, object] = {}

    def post() -> None:
        try:
            answers["record"] = study._post_json(f"{base}/api/record", {"policy": "a", "trial": 0, "score": 1},
                                                 TOKEN)
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            answers["record"] = exc

    writer = threading.Thread(target=post)
    writer.start()
    try:
        writer.join(timeout=1.0)  # let the POST reach the store and wait there
        assert writer.is_alive(), answers  # it does wait: the lock is held
        # while it waits, the page, its API, its static files and the JSON status all answer
        for path in ("/ranking", "/api/status", "/api/next", "/static/style.css", "/history"):
            assert _get(base + path) == 200, path
            assert writer.is_alive(), f"{path} answered only after the write"
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    writer.join(timeout=60)
    assert isinstance(answers.get("record"), dict) and answers["record"]["id"] == 1, answers
    with Campaign.open(db) as c:
        assert [(e.policy, e.trial) for e in c.records()] == [("a", 0)]


def test_shell_and_page_recorders_at_once_lose_and_refuse_nothing(tmp_path):
    out = study.run(shell=1, http=2, seconds=8.0, hold=1.0, hold_every=2.5, folder=str(tmp_path), in_process=True)
    assert out["lock_errors"] == 0 and out["server_errors"] == 0, out["refusal_examples"]
    assert out["other_refusals"] == 0, out["refusal_examples"]
    assert out["lost"] == 0 and out["duplicates"] == 0 and out["verify_ok"], out
    assert out["acknowledged"] >= 3 and out["live"] - out["acknowledged"] == out["unacknowledged_live"] == 0, out
    assert out["lock_holds"] >= 1 and out["page_ms_while_a_write_waits"]["n"] >= 1, out
    assert out["static_file_ms"]["n"] >= 1, out  # the CPU-starvation control the study reports beside the page
