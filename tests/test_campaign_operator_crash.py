"""Nothing recorded is ever lost, for the operator's new writes too (issue 34): kill -9 at random moments while
a process records with tags, logs faults and notes, amends the budget and unblinds, each write sent with an
idempotency key. After every kill the file passes `PRAGMA integrity_check`, holds every acknowledged write
under its key, and the write in flight, retried with the same key, lands exactly once."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sqlite3
import time
from pathlib import Path

import numpy as np
import pytest
from campaign_worker import operate, operator_loop
from test_campaign_concurrency import _Reader

from certirank import Campaign

_FORK = multiprocessing.get_context("fork")


def _query(path: Path, sql: str) -> list:
    con = sqlite3.connect(path)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _parse(lines: list[str]) -> tuple[dict[str, int], tuple[str, str, list[str]] | None]:
    """(acknowledged {key: entry id}, the write in flight (key, verb, args) or None)."""
    acked: dict[str, int] = {}
    pending = None
    for ln in lines:
        parts = ln.split(" ")
        if parts[0] == "start":
            pending = (parts[1], parts[2], parts[3:])
        elif parts[0] == "done":
            acked[parts[2]] = int(parts[1])
            pending = None
    return acked, pending


def _args(verb: str, words: list[str]) -> list:
    if verb == "note":
        return [" ".join(words)]
    return words


def _kill_loop(tmp_path: Path, kills: int, seed: int) -> tuple[set[str], int]:
    db = tmp_path / "crash.campaign"
    Campaign.init(db, ["a", "b", "c"], alpha=0.05, n_max=100_000, blind=True, seed=seed,
                  environments=["kitchen", "sink"], tags=["grasp", "reset"]).close()
    rng = np.random.default_rng(seed)
    acked: dict[str, int] = {}
    retried = 0
    for k in range(kills):
        r, w = os.pipe()
        p = _FORK.Process(target=operator_loop, args=(str(db), 600.0, w, seed * 1000 + k), daemon=True)
        p.start()
        os.close(w)
        reader = _Reader(r)
        assert reader.wait_line() == "ready"
        first = [reader.wait_line()]
        while not first[-1].startswith("done"):
            first.append(reader.wait_line())
        time.sleep(float(rng.uniform(0.0, 0.4)))
        os.kill(p.pid, signal.SIGKILL)
        p.join(timeout=60)
        assert p.exitcode == -signal.SIGKILL
        got, pending = _parse(first + reader.drain())
        acked.update(got)
        assert _query(db, "PRAGMA integrity_check") == [("ok",)]
        stored = dict(_query(db, "SELECT key, entry FROM idempotency"))
        assert {key: stored.get(key) for key in acked} == acked  # every acknowledged write is there, under its key
        if pending is not None:  # the client retries the write it never heard back about
            key, verb, words = pending
            with Campaign.open(db) as c:
                one = operate(c, verb, _args(verb, words), key, 0)
                two = operate(c, verb, _args(verb, words), key, 0)
            assert one == two and one is not None
            acked[key] = one.id
            retried += 1
    with Campaign.open(db) as c:
        rep = c.verify()
        assert rep.ok, rep.failures
        entries = {e.id: e for e in c.log().entries}
    stored = dict(_query(db, "SELECT key, entry FROM idempotency"))
    assert {key: stored[key] for key in acked} == acked
    # one entry per key, of the kind that was sent, and no entry written twice
    assert len(set(stored.values())) == len(stored)
    actions = {e.action for e in entries.values()}
    assert {"record"} <= actions and actions <= {"record", "fault", "note", "amend", "unblind", "undo"}
    assert sum(1 for e in entries.values() if e.action == "unblind") <= 1
    assert len(acked) >= kills
    return {entries[i].action for i in acked.values()}, retried


def test_kill_9_during_the_operators_writes(tmp_path):
    kinds, _ = _kill_loop(tmp_path, kills=5, seed=3)
    assert {"record", "fault"} <= kinds, kinds


@pytest.mark.slow
def test_kill_9_during_the_operators_writes_40_times(tmp_path):
    kinds, retried = _kill_loop(tmp_path, kills=40, seed=4)
    assert kinds == {"record", "fault", "note", "amend", "unblind"} and retried >= 5, (kinds, retried)
