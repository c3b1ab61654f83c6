"""CPU one page read costs, by the number of policies: what a page under load spends per GET.

    .venv/bin/python benchmarks/speed/campaign_page_cost.py [--policies 10,20,40] [--repeats 5]

For each size, a campaign of that many policies (one rollout recorded per suggestion of the first `next`) is
served in this process (the FastAPI app through its test client: no network, no second process), and each route
is read ``--repeats`` times after one warm-up read. Prints, per route, the CPU time (process time, so other load
on the machine inflates it little) and the wall time per GET, in ms. The campaign_many_operators study cites it:
on a starved machine a page read waits for this much CPU at the share of a core it gets.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

ROUTES = ("/ranking", "/api/status", "/api/next", "/static/style.css")


def measure(n_policies: int, repeats: int) -> dict[str, dict[str, float]]:
    from fastapi.testclient import TestClient

    from certirank import Campaign
    from certirank.web import create_app
    db = os.path.join(tempfile.mkdtemp(prefix="certirank-page-cost-"), "c.campaign")
    policies = [f"p{i:02d}" for i in range(n_policies)]
    Campaign.init(db, policies, alpha=0.05, n_max=100_000, by="bench").close()
    with Campaign.open(db) as c:
        for s in c.next():
            c.record(s.policy, s.trial, float(int(s.policy[1:]) % 2))
    client = TestClient(create_app(db, token="bench-token-0123456789", allow_hosts=["testserver"]))
    out = {}
    for route in ROUTES:
        assert client.get(route).status_code == 200, route
        cpu, wall = time.process_time(), time.perf_counter()
        for _ in range(repeats):
            client.get(route)
        out[route] = {"cpu_ms": round(1000 * (time.process_time() - cpu) / repeats, 1),
                      "wall_ms": round(1000 * (time.perf_counter() - wall) / repeats, 1)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--policies", default="10,20,40")
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    res = {int(n): measure(int(n), a.repeats) for n in a.policies.split(",")}
    print(json.dumps({"load_1min": round(os.getloadavg()[0], 1), "per_get": res}, indent=2))


if __name__ == "__main__":
    main()
