"""How long does one BB-EDGE replicate update take at L = 1,000 models x N = 10,000 items (default stake)?

    .venv/bin/python benchmarks/speed/bbedge_update_at_scale.py                 # both parts
    .venv/bin/python benchmarks/speed/bbedge_update_at_scale.py --part kernel --sample 20000
    .venv/bin/python benchmarks/speed/bbedge_update_at_scale.py --part board --L 1000 --N 10000

Part "kernel": the betting factor of the default plug-in stake (sum over blocks of log(1 + lam x) for two stakes
per direction, and sum of x^2) on a sample of directions of the L x N board, side by side in this one run:
the plain numpy reference (one log per block and stake: the code before), certirank's numpy path (products of
64 factors, one log each; both directions of a pair in one pass at tau = 0) and, where numba is installed, the
compiled kernel, on 1 thread and on all threads. CPU seconds (process_time, all threads) are the load-proof
measure; wall seconds depend on what else runs on the machine. Every path's result is checked against the
reference (max abs difference of the log sums).

Part "board": one full board in a fresh child process: two replicates through `Leaderboard.add_replicate`
(default stake), the second timed (wall and CPU), and the peak resident memory of the process.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np


def _reference(v, a, b, lam):
    """The code before (its gather path): x per chunk of directions, one np.log per block and stake."""
    E, M = a.size, v.shape[1]
    rows = max(1, 80_000 // M)
    s2, out = np.empty(E), np.empty((E, lam.shape[1]))
    x, f = np.empty((rows, M)), np.empty((rows, M))
    for s in range(0, E, rows):
        n = min(rows, E - s)
        xs, fs = x[:n], f[:n]
        np.take(v, a[s:s + n], axis=0, out=xs)
        xs -= v[b[s:s + n]]
        s2[s:s + n] = np.einsum("ij,ij->i", xs, xs)
        for k in range(lam.shape[1]):
            np.multiply(xs, lam[s:s + n, k, None], out=fs)
            fs += 1.0
            out[s:s + n, k] = np.log(fs, out=fs).sum(axis=1)
    return s2, out


def kernel(L: int, N: int, sample: int) -> None:
    from certirank import _numba
    from certirank.methods.bbedge import betting

    rng = np.random.default_rng(0)
    # prediction errors of binary scores after a few replicates: u = Y - running mean, in [-1, 1]
    v = (rng.random((L, N)) < 0.5) - rng.uniform(0.2, 0.8, (L, N))
    v *= 0.5
    # the first pairs of the board in its own order (one model against a run of the others), both directions
    iu, ju = np.triu_indices(L, 1)
    a = np.concatenate([iu[:sample // 2], ju[:sample // 2]])
    b = np.concatenate([ju[:sample // 2], iu[:sample // 2]])
    lam = rng.uniform(0.0, 0.9, (a.size, 2))
    entries = a.size * N
    print(f"kernel: {a.size:,} directions of an L = {L:,}, N = {N:,} board ({entries:.2e} entries, 2 stakes); "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    rows = []

    def timed(name, fn):
        t0, c0 = time.perf_counter(), time.process_time()
        res = fn()
        rows.append((name, time.perf_counter() - t0, time.process_time() - c0, res))

    timed("plain numpy reference (log per block)", lambda: _reference(v, a, b, lam))
    variants = [("numpy, products of 64", None, 1)]
    if _numba.available():
        betting._KERNEL = False
        betting.betting_terms(v[:4], v[:4], a[:2] % 4, b[:2] % 4, lam[:2])  # compile/load outside the timing
        variants += [("numba kernel, 1 thread", False, 1), ("numba kernel, all threads", False, None)]
    for name, kern, threads in variants:
        betting._KERNEL = kern
        betting.THREADS = threads
        timed(name, lambda: betting.betting_terms(v, v, a, b, lam))
    ref_cpu = rows[0][2]
    print(f"{'path':40s} {'wall s':>7s} {'CPU s':>7s} {'CPU ns/entry':>12s} {'CPU ratio':>9s} {'max |diff|':>10s}"
          f"  {'L=1000 board, CPU s (scaled)':>28s}")
    full = L * (L - 1) * N
    for name, wall, cpu, res in rows:
        diff = float(np.abs(res[1] - rows[0][3][1]).max())
        print(f"{name:40s} {wall:7.2f} {cpu:7.2f} {cpu / entries * 1e9:12.2f} {ref_cpu / cpu:8.1f}x {diff:10.1e}"
              f"  {cpu / entries * full:28.1f}")


def board_child(L: int, N: int) -> None:
    from certirank.methods.bbedge import Leaderboard

    rng = np.random.default_rng(0)
    p = np.clip(rng.uniform(0.2, 0.8, size=(L, 1)) + rng.uniform(-0.15, 0.15, size=(1, N)), 0.01, 0.99)
    lb = Leaderboard([f"model{i:04d}" for i in range(L)], blocks="items", keep_history=False)
    out = {}
    for r in range(2):
        panel = (rng.random((L, N)) < p).astype(float)
        t0, c0 = time.perf_counter(), time.process_time()
        lb.add_replicate(panel)
        out[f"wall_{r + 1}"], out[f"cpu_{r + 1}"] = time.perf_counter() - t0, time.process_time() - c0
        del panel
    out["certified"] = int(lb.certified_matrix().sum())
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(json.dumps(out))


def board(L: int, N: int) -> None:
    load0 = os.getloadavg()[0]
    res = subprocess.run([sys.executable, __file__, "--child", str(L), str(N)], capture_output=True, text=True,
                         check=True)
    r = json.loads(res.stdout.strip().splitlines()[-1])
    print(f"board: L = {L:,}, N = {N:,}, singleton blocks, default stake; load average {load0:.1f} -> "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"replicate 1: wall {r['wall_1']:.1f} s, CPU {r['cpu_1']:.1f} s;  replicate 2: wall {r['wall_2']:.1f} s, "
          f"CPU {r['cpu_2']:.1f} s;  certified directions {r['certified']:,};  peak RSS {r['peak_rss_mb']:,.0f} MB")


def main() -> None:
    if "--child" in sys.argv:
        i = sys.argv.index("--child")
        board_child(int(sys.argv[i + 1]), int(sys.argv[i + 2]))
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=("kernel", "board", "all"), default="all")
    ap.add_argument("--L", type=int, default=1000)
    ap.add_argument("--N", type=int, default=10_000)
    ap.add_argument("--sample", type=int, default=20_000, help="kernel: directions timed")
    args = ap.parse_args()
    if args.part in ("kernel", "all"):
        kernel(args.L, args.N, args.sample)
    if args.part in ("board", "all"):
        board(args.L, args.N)


if __name__ == "__main__":
    main()
