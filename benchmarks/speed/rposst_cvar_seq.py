"""Timing of CVaR(η) RPOSST_seq (spec 05 §6–7) — the issue's goal: n = 46, m = 3 (15,180 tuples),
d = 148 (policy, target) pairs, T = 1000 rounds in under 60 s on 2 cores.

Run:  .venv/bin/python benchmarks/speed/rposst_cvar_seq.py [--quick]

Prints one row per workload with the wall time (best of `--repeat`), and the per-tuple LP rate.
The matrices are seeded uniform random (timing does not depend on the values beyond tie patterns) and
the shipped 43 × 43 RRPS table.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import numpy as np

from certirank.methods.rposst import _core, read_test_matrix

RRPS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "games" / "rrps_bots_43x43.csv"


def _time(fn, repeat: int) -> tuple[float, float, object]:
    """Best wall time and the CPU time of that run (CPU time is less sensitive to other helpers' load)."""
    best, cpu, out = np.inf, np.inf, None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        wall = time.perf_counter() - t0
        if wall < best:
            best, cpu = wall, time.process_time() - c0
    return best, cpu, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="T = 100 instead of 1000 (smoke run)")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    T = 100 if args.quick else 1000

    rng = np.random.default_rng(2023)
    A = rng.random((46, 37))  # 37 tuning policies x 4 targets = 148 pairs
    workloads = [("random 46x37, m=3 (goal)", A, 3, 0.01)]
    if RRPS.exists():
        R = read_test_matrix(RRPS).scores
        workloads += [("RRPS 43x43, m=2", R, 2, 0.01), ("RRPS 43x43, m=3", R, 3, 0.01)]
    workloads.append(("random 46x37, m=3, eta=0.2 (partition path)", A, 3, 0.2))

    print(f"# machine: {platform.processor() or platform.machine()}, {os.cpu_count()} logical CPUs, "
          f"numpy {np.__version__}; T = {T}")
    print("| workload | tuples | pairs d | rounds T | wall time (s) | CPU time (s) | tuple-rounds per CPU µs |")
    print("|---|---|---|---|---|---|---|")
    for name, M, m, eta in workloads:
        problem = _core.make_problem(M, _core.softmax_targets(M, [0, 1, 2, 4]))
        tuples = _core.all_tuples(M.shape[0], m)
        seconds, cpu, _ = _time(lambda: _core.rm_plus_all(problem, tuples, eta, T), args.repeat)
        rate = tuples.shape[0] * (T + 1) / cpu / 1e6
        print(f"| {name} | {tuples.shape[0]:,} | {problem.d} | {T} | {seconds:.2f} | {cpu:.2f} | {rate:.2f} |")

    # exact per-tuple LP: rate on the first 300 tuples of the goal workload
    problem = _core.make_problem(A, _core.softmax_targets(A, [0, 1, 2, 4]))
    tuples = _core.all_tuples(46, 3)[:300]
    seconds, cpu, _ = _time(lambda: _core.lp_all(problem, tuples, 0.01), 1)
    print(f"\nper-tuple CVaR LP (HiGHS), d = {problem.d}, m = 3: {1000 * seconds / tuples.shape[0]:.2f} ms wall "
          f"({1000 * cpu / tuples.shape[0]:.2f} ms CPU) per tuple; all 15,180 tuples ~ "
          f"{cpu / tuples.shape[0] * 15180:.0f} s CPU")
    if not args.quick:
        seconds, cpu, _ = _time(lambda: _core.milp_joint(problem, 3, 0.01, time_limit=600), 1)
        print(f"joint MILP (HiGHS), 46 cases, m = 3, d = {problem.d}: {seconds:.1f} s wall, {cpu:.1f} s CPU")


if __name__ == "__main__":
    main()
