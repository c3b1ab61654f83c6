"""How long does `certirank leaderboard` take end to end on 200 models x 5,000 items x 5 replicates?

    .venv/bin/python benchmarks/speed/leaderboard_end_to_end.py [--L 200] [--N 5000] [--R 5] [--repeat 3]

Writes a seeded long CSV (model,item,replicate,score; binary scores) to a temporary folder, then, side by side
in this one run: pandas.read_csv of the file (the plain reference: reading it and nothing else), certirank.load
(reading plus every check of the evaluation table), certirank.leaderboard(path) (load, panels, five BB-EDGE
updates with the default stake, the result), and the `certirank leaderboard FILE --json` command in a fresh
process (interpreter start and imports included). Wall and CPU seconds (CPU = process_time of this process, all
threads; the command's CPU is its children's rusage, user + system), ratios against read_csv, and the load average.
With ``--repeat K`` the command runs K times and each run's CPU seconds are printed (the table shows the median):
on a shared machine CPU time still varies by 10-20 % between runs.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd


def write_board(path: Path, L: int, N: int, R: int) -> None:
    rng = np.random.default_rng(0)
    p = np.clip(rng.uniform(0.2, 0.8, (L, 1)) + rng.uniform(-0.15, 0.15, (1, N)), 0.01, 0.99)
    models = np.repeat([f"model{i:03d}" for i in range(L)], N)
    items = np.tile([f"item{j:05d}" for j in range(N)], L)
    frames = [pd.DataFrame({"model": models, "item": items, "replicate": r + 1,
                            "score": (rng.random((L, N)) < p).astype(float).ravel()}) for r in range(R)]
    pd.concat(frames, ignore_index=True).to_csv(path, index=False)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--L", type=int, default=200)
    ap.add_argument("--N", type=int, default=5000)
    ap.add_argument("--R", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=1, help="runs of the command (the median is reported)")
    args = ap.parse_args()
    import certirank

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "board.csv"
        write_board(path, args.L, args.N, args.R)
        rows = args.L * args.N * args.R
        print(f"{path.stat().st_size / 1e6:.0f} MB CSV, {rows:,} rows ({args.L} models x {args.N:,} items x "
              f"{args.R} replicates); load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        out = []

        def timed(name, fn):
            t0, c0 = time.perf_counter(), time.process_time()
            res = fn()
            out.append((name, time.perf_counter() - t0, time.process_time() - c0))
            return res

        timed("pandas.read_csv (reference)", lambda: pd.read_csv(path))
        timed("certirank.load", lambda: certirank.load(path))
        res = timed("certirank.leaderboard(path)", lambda: certirank.leaderboard(path))
        cmd = [str(Path(sys.executable).with_name("certirank")), "leaderboard", str(path), "--json"]
        runs = []
        for _ in range(max(1, args.repeat)):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
            runs.append((time.perf_counter() - t0, user + system, user, system))
            print(f"command run {len(runs)}: {runs[-1][0]:.2f} s wall, {user + system:.2f} s CPU ({user:.2f} user + "
                  f"{system:.2f} system)")
        wall, cpu = (float(np.median([r[k] for r in runs])) for k in (0, 1))
        out.append(("certirank leaderboard FILE --json", wall, cpu))
    ref_wall, ref_cpu = out[0][1], out[0][2]
    print(f"{'step':36s} {'wall s':>7s} {'CPU s':>7s} {'wall / read_csv':>15s}")
    for name, wall, cpu in out:
        print(f"{name:36s} {wall:7.2f} {cpu:7.2f} {wall / ref_wall:14.1f}x")
    print(f"certified edges: {len(res.edges):,}; load average now {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
