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
