"""The page's writes have worker threads of their own (issue 33 item 2): more page writes waiting for the campaign's
lock than the default thread limiter holds (anyio's 40, which every blocking read also needs) leave reads
answering, and every waiting write is saved once the lock is free."""

from __future__ import annotations

import sqlite3
import threading
import urllib.request

import pytest

pytest.importorskip("fastapi", reason="the campaign page needs the 'web' extra (fastapi)")
pytest.importorskip("uvicorn", reason="the campaign page needs the 'web' extra (uvicorn)")
anyio = pytest.importorskip("anyio", reason="the campaign page needs the 'web' extra (anyio, with starlette)")

from certirank.campaign import Campaign  # noqa: E402
from certirank.web import api  # noqa: E402
# the page served in a thread (the `server` fixture) and the study's HTTP helper
from test_web_server import TOKEN, server, study  # noqa: E402,F401


async def _default_threads() -> int:
    return int(anyio.to_thread.current_default_thread_limiter().total_tokens)


def test_reads_answer_while_more_writes_wait_than_the_default_limiter_has_threads(server):
    db, base = server
    waiting = anyio.run(_default_threads) + 5  # every thread reads could use, and more
    assert api.WRITE_THREADS < waiting
    holder = sqlite3.connect(db, timeout=30, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process's write in progress
    answers: list[object] = []

    def note(i: int) -> None:
        try:
            answers.append(study._post_json(f"{base}/api/v1/note", {"text": f"note {i}"}, TOKEN))
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            answers.append(exc)

    writers = [threading.Thread(target=note, args=(i,)) for i in range(waiting)]
    for w in writers:
        w.start()
    try:
        for w in writers:
            w.join(timeout=0.05)
        assert all(w.is_alive() for w in writers), answers  # they wait: the lock is held
        # while they all wait, a read (a worker thread of the default limiter) answers
        for path in ("/api/status", "/ranking"):
            with urllib.request.urlopen(base + path, timeout=20) as r:
                assert r.status == 200, path
        assert sum(w.is_alive() for w in writers) == waiting, "a write ended while the lock was held"
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    for w in writers:
        w.join(timeout=120)
    assert len(answers) == waiting and all(isinstance(a, dict) for a in answers), answers
    with Campaign.open(db) as c:
        notes = [e.note for e in c.log().entries if e.action == "note"]
    assert sorted(notes) == sorted(f"note {i}" for i in range(waiting))
