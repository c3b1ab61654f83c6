"""Load test of the campaign page: concurrent recorders against a local server, and page render times.

    .venv/bin/python benchmarks/speed/campaign_page_load.py [--recorders 20] [--seconds 60] [--rollouts 3000]

1. Builds a 10-policy AnyRank campaign (equal policies, so it never finishes) holding ``--rollouts`` records.
2. Starts ``certirank campaign serve`` in its own process on 127.0.0.1 (a free port), then runs ``--recorders``
   threads for ``--seconds`` (bounded: it stops by itself): each asks ``/api/next`` and records one of the
   suggestions. Two recorders may pick the same rollout; the store refuses the second (HTTP 400), which is
   counted, not an error.
3. Checks the file afterwards: every accepted record (HTTP 200, record id returned) is in the file, no
   (policy, trial) is live twice, and no request got a 5xx. Prints latency percentiles per route and the
   ranking page's render time (median of 50 GETs) at that size.

Only loopback addresses are used.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import numpy as np

from certirank.campaign import Campaign

TOKEN = "bench-token"


def build(db: Path, rollouts: int, seed: int = 0) -> None:
    names = [f"policy_{i:02d}" for i in range(10)]
    rng = np.random.default_rng(seed)
    with Campaign.init(db, names, alpha=0.05, n_max=5000) as camp:
        done = 0
        while done < rollouts:
            for s in camp.next():
                camp.record(s.policy, s.trial, float(rng.random() < 0.5), by="builder")
                done += 1
                if done >= rollouts:
                    break


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentiles(values: list[float]) -> str:
    if not values:
        return "-"
    a = np.array(values) * 1000
    return f"p50 {np.percentile(a, 50):.1f} ms, p90 {np.percentile(a, 90):.1f} ms, p99 {np.percentile(a, 99):.1f} ms"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--recorders", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--rollouts", type=int, default=3000)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="certirank-bench-web-"))
    db = tmp / "load.db"
    t0 = time.perf_counter()
    build(db, args.rollouts)
    print(f"built a 10-policy campaign with {args.rollouts} rollouts in {time.perf_counter() - t0:.1f} s")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    server = subprocess.Popen([sys.executable, "-m", "certirank", "campaign", "serve", str(db), "--port", str(port),
                               "--token", TOKEN], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{base}/api/status", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit("server did not start: " + (server.stdout.read() if server.poll() is not None else ""))
            time.sleep(0.1)
        render = []
        with httpx.Client(base_url=base, timeout=30) as c:
            for _ in range(50):
                t = time.perf_counter()
                assert c.get("/ranking").status_code == 200
                render.append(time.perf_counter() - t)
        lat: dict[str, list[float]] = {"next": [], "record": []}
        accepted: list[dict] = []
        refused = [0]
        errors: list[str] = []
        lock = threading.Lock()
        stop_at = time.monotonic() + args.seconds

        def recorder(k: int) -> None:
            rng = np.random.default_rng(1000 + k)
            with httpx.Client(base_url=base, timeout=30, headers={"X-Certirank-Token": TOKEN,
                                                                  "Accept": "application/json"}) as c:
                while time.monotonic() < stop_at:
                    t = time.perf_counter()
                    r = c.get("/api/next")
                    with lock:
                        lat["next"].append(time.perf_counter() - t)
                    if r.status_code >= 500:
                        with lock:
                            errors.append(f"next {r.status_code}")
                        continue
                    todo = r.json()
                    if not todo:
                        continue
                    s = todo[int(rng.integers(len(todo)))]
                    t = time.perf_counter()
                    r = c.post("/api/record", data={"policy": s["policy"], "trial": str(s["trial"]),
                                                    "score": str(float(rng.random() < 0.5)), "by": f"r{k}"})
                    with lock:
                        lat["record"].append(time.perf_counter() - t)
                        if r.status_code == 200:
                            accepted.append(r.json())
                        elif r.status_code == 400:
                            refused[0] += 1
                        else:
                            errors.append(f"record {r.status_code}: {r.text[:120]}")

        threads = [threading.Thread(target=recorder, args=(k,)) for k in range(args.recorders)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(args.seconds + 60)
    finally:
        server.terminate()
        server.wait(10)
    with Campaign.open(db) as camp:
        live = [e for e in camp.log().entries if e.live]
        ok = camp.verify().ok
    ids = {e.id for e in live}
    lost = [a["id"] for a in accepted if a["id"] not in ids]
    keys = [(e.policy, e.trial) for e in live]
    dup = len(keys) - len(set(keys))
    out = {"recorders": args.recorders, "seconds": args.seconds, "accepted": len(accepted),
           "refused_as_taken": refused[0], "lost": len(lost), "duplicates": dup, "server_errors": len(errors),
           "verify_ok": ok, "records_in_file": len(live),
           "latency_next": percentiles(lat["next"]), "latency_record": percentiles(lat["record"]),
           "ranking_render_median_ms": round(float(np.median(render)) * 1000, 1),
           "ranking_render_p90_ms": round(float(np.percentile(render, 90)) * 1000, 1)}
    print(json.dumps(out, indent=2))
    if errors:
        print("first errors:", errors[:5])
    if lost or dup or errors or not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
