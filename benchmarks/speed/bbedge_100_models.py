"""BB-EDGE scale goal: L = 100 models, N = 10,000 items, singleton blocks -- one replicate update < 2 s, < 2 GB.

Run:  .venv/bin/python benchmarks/speed/bbedge_100_models.py [--threads 1|2] [--replicates 5] [--L 100] [--N 10000] [--all]

Prints, per configuration, the median and max wall time of `Leaderboard.add_replicate` (after the first
replicate, which also builds the design), the time of `result()`, and the peak resident memory of the process.
Binary scores are drawn once per replicate outside the timed region.
"""

from __future__ import annotations

import os
import sys

# BLAS threads must be fixed before numpy loads
_threads = sys.argv[sys.argv.index("--threads") + 1] if "--threads" in sys.argv else "2"
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = _threads

import argparse  # noqa: E402
import resource  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from certirank.methods.bbedge import Leaderboard  # noqa: E402


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run(name: str, L: int, N: int, R: int, seed: int = 0, **kwargs) -> dict:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.2, 0.8, size=(L, 1)) + rng.uniform(-0.15, 0.15, size=(1, N))
    p = np.clip(p, 0.01, 0.99)
    lb = Leaderboard([f"model{i:03d}" for i in range(L)], **kwargs)
    times = []
    for r in range(R):
        panel = (rng.random((L, N)) < p).astype(float)
        t0 = time.perf_counter()
        lb.add_replicate(panel)
        times.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    res = lb.result()
    t_res = time.perf_counter() - t0
    steady = times[1:] if len(times) > 1 else times
    return {"config": name, "L": L, "N": N, "first_s": times[0], "median_s": float(np.median(steady)),
            "max_s": float(np.max(steady)), "result_s": t_res, "edges": len(res.edges), "peak_rss_mb": peak_rss_mb()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--replicates", type=int, default=5)
    ap.add_argument("--L", type=int, default=100)
    ap.add_argument("--N", type=int, default=10_000)
    ap.add_argument("--threads", default="2", help="BLAS threads (read before numpy is imported)")
    ap.add_argument("--all", action="store_true", help="also time weighted items, protocol blocks and variants")
    args = ap.parse_args()
    L, N, R = args.L, args.N, args.replicates
    configs = [("singleton, 1/N weights", dict(blocks="items", keep_history=False))]
    if args.all:
        w = np.linspace(1.0, 2.0, N)
        configs += [
            ("singleton, N distinct weights", dict(blocks="items", weights=w / w.sum(), keep_history=False)),
            ("protocol blocks of 5", dict(blocks=[str(i // 5) for i in range(N)], keep_history=False)),
            ("replicate (CR-EDGE)", dict(method="cr-edge", keep_history=False)),
            ("BFH-e-Holm, singleton", dict(method="bfh-e-holm", keep_history=False)),
            ("BB-EDGE-PI, singleton", dict(method="bb-edge-pi", keep_history=False)),
            ("singleton, keep_history=True", dict(blocks="items")),
        ]
    print(f"BB-EDGE update cost, L = {L}, N = {N}, {R} replicates, threads = {os.environ['OMP_NUM_THREADS']}")
    print(f"{'configuration':34s} {'first s':>8s} {'median s':>9s} {'max s':>7s} {'result() s':>10s} "
          f"{'edges':>6s} {'peak RSS MB':>11s}")
    for name, kw in configs:
        row = run(name, L, N, R, **kw)
        print(f"{name:34s} {row['first_s']:8.3f} {row['median_s']:9.3f} {row['max_s']:7.3f} {row['result_s']:10.3f} "
              f"{row['edges']:6d} {row['peak_rss_mb']:11.0f}")


if __name__ == "__main__":
    main()
