"""A recording process for the campaign concurrency and crash tests (imported by them; not collected).

:func:`record_loop` records, for ``seconds``, the suggested rollouts of the policies it owns (policy index %
``n_workers`` == ``worker``) and writes one line ``id policy trial`` to the file descriptor ``out`` after each
`record` call has returned (an unbuffered ``os.write``), so a parent that kills it knows exactly which records
were acknowledged. The tests start it in a forked child, so it begins with every module already imported.
"""

from __future__ import annotations

import os
import time

import numpy as np

from certirank import Campaign
from certirank.errors import StateError


def record_loop(db: str, worker: int, n_workers: int, seconds: float, out: int) -> None:
    c = Campaign.open(db)
    names = c.policies  # not blind: the names themselves
    mine = {p for i, p in enumerate(names) if i % n_workers == worker}
    end = time.monotonic() + seconds
    os.write(out, b"ready\n")
    while time.monotonic() < end:
        todo = [s for s in c.next() if s.policy in mine]
        if not todo:
            if c.status().done:
                break
            time.sleep(0.002)
            continue
        for s in todo:
            rng = np.random.default_rng([names.index(s.policy), s.trial])
            try:
                rec = c.record(s.policy, s.trial, float(rng.random() < 0.5), by=f"w{worker}")
            except StateError as exc:  # only possible if two workers owned the same rollout
                os.write(out, f"refused {s.policy} {s.trial} {exc}\n".encode())
                continue
            os.write(out, f"{rec.id} {s.policy} {s.trial}\n".encode())
    os.write(out, b"end\n")
    c.close()


def operator_loop(db: str, seconds: float, out: int, seed: int) -> None:
    """The operator's writes in a random mix (records with tags, faults, notes, budget amendments, one unblinding
    of a blind campaign), each sent with an idempotency key. Before each call it writes ``start KEY VERB ARGS``,
    after it ``done ID KEY`` (unbuffered), so a parent that kills it knows which writes were acknowledged and can
    retry the one in flight with the same key."""
    c = Campaign.open(db)
    rng = np.random.default_rng(seed)
    end = time.monotonic() + seconds
    os.write(out, b"ready\n")
    n = 0
    while time.monotonic() < end:
        n += 1
        key = f"k{seed}-{n}"
        u = rng.random()
        todo = c.next(remember=False)
        if c.blind and not c.unblinded and u < 0.02:
            verb, args = "unblind", []
        elif u < 0.1:
            verb, args = "note", [f"note {n}"]
        elif u < 0.15:
            verb, args = "amend", [c.status().remaining["n_max"] + 1]
        elif u < 0.3 and todo:
            verb, args = "fault", [todo[0].policy, todo[0].trial, "e-stop"]
        elif todo:
            verb, args = "record", [todo[0].policy, todo[0].trial, float(rng.random() < 0.5)]
        else:
            continue
        os.write(out, f"start {key} {verb} {' '.join(map(str, args))}\n".encode())
        rec = operate(c, verb, args, key, n)
        os.write(out, f"done {rec.id} {key}\n".encode())
    os.write(out, b"end\n")
    c.close()


def operate(c: Campaign, verb: str, args: list, key: str, n: int):
    """One write of :func:`operator_loop` (the parent retries it with the same arguments after a kill)."""
    if verb == "unblind":
        return c.unblind(by="w", idempotency_key=key)
    if verb == "note":
        return c.note(args[0], by="w", idempotency_key=key)
    if verb == "amend":
        return c.amend(n_max=int(args[0]), reason="grow the budget", by="w", idempotency_key=key)
    if verb == "fault":
        return c.fault(args[0], int(args[1]), args[2], by="w", tags=["reset"], idempotency_key=key)
    return c.record(args[0], int(args[1]), float(args[2]), by="w", tags=["grasp"], ahead=True, idempotency_key=key)
