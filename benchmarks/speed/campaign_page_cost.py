"""CPU one page read costs, by the number of policies, with the status memo and without it, in one run.

    .venv/bin/python benchmarks/speed/campaign_page_cost.py [--policies 10,20,40] [--repeats 5] [--rounds 3]

For each size, a campaign of that many policies (one rollout recorded per suggestion of the first `next`) is
served in this process (the FastAPI app through its test client: no network, no second process). Each route is
read in ``--rounds`` alternating rounds, memo off then memo on (``campaign._status``: statuses kept per content of
the file), each round one untimed read (with the memo on, the one that computes and keeps the status: the first
reader after a write) then ``--repeats`` timed reads (every other reader until the next write). Prints, per route,
the CPU time (process time, so other load on the machine inflates it little) and the wall time per GET in ms,
each mode's, and the ratio off / on measured side by side. The campaign_many_operators study cites it: on a
starved machine a page read waits for this much CPU at the share of a core it gets.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

ROUTES = ("/run", "/ranking", "/api/status", "/api/next", "/static/style.css")


def _memo(on: bool, size: int) -> None:
    from certirank.campaign import _status
    _status._MEMO_SIZE = size if on else 0  # 0: a status is kept for no one, every read computes it
    _status._MEMO.clear()


def measure(n_policies: int, repeats: int, rounds: int) -> dict[str, dict[str, float]]:
    from fastapi.testclient import TestClient

    from certirank import Campaign
    from certirank.campaign import _status
    from certirank.web import create_app
    db = os.path.join(tempfile.mkdtemp(prefix="certirank-page-cost-"), "c.campaign")
    policies = [f"p{i:02d}" for i in range(n_policies)]
    Campaign.init(db, policies, alpha=0.05, n_max=100_000, by="bench").close()
    with Campaign.open(db) as c:
        for s in c.next():
            c.record(s.policy, s.trial, float(int(s.policy[1:]) % 2))
    client = TestClient(create_app(db, token="bench-token-0123456789", allow_hosts=["testserver"]))
    size = _status._MEMO_SIZE
    out = {}
    try:
        for route in ROUTES:
            spent = {False: [0.0, 0.0], True: [0.0, 0.0]}
            for _ in range(rounds):
                for on in (False, True):
                    _memo(on, size)
                    assert client.get(route).status_code == 200, route
                    cpu, wall = time.process_time(), time.perf_counter()
                    for _ in range(repeats):
                        client.get(route)
                    spent[on][0] += time.process_time() - cpu
                    spent[on][1] += time.perf_counter() - wall
            n = rounds * repeats
            off, on_ = (1000 * spent[False][0] / n, 1000 * spent[False][1] / n), (1000 * spent[True][0] / n,
                                                                                 1000 * spent[True][1] / n)
            out[route] = {"cpu_ms_off": round(off[0], 1), "cpu_ms_on": round(on_[0], 1),
                          "cpu_ratio": round(off[0] / on_[0], 2) if on_[0] > 0 else None,
                          "wall_ms_off": round(off[1], 1), "wall_ms_on": round(on_[1], 1)}
    finally:
        _memo(True, size)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--policies", default="10,20,40")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    load = round(os.getloadavg()[0], 1)
    res = {int(n): measure(int(n), a.repeats, a.rounds) for n in a.policies.split(",")}
    print(json.dumps({"load_1min_before": load, "load_1min_after": round(os.getloadavg()[0], 1),
                      "per_get": res}, indent=2))


if __name__ == "__main__":
    main()
