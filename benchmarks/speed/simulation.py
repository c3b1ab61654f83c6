"""Performance goals of certirank.sim (issue 8), printed as a table.

    .venv/bin/python benchmarks/speed/simulation.py            # both studies, jobs = 2
    .venv/bin/python benchmarks/speed/simulation.py --quick    # 100 runs each (smoke check)
    .venv/bin/python benchmarks/speed/simulation.py --profile  # cProfile of one chunk of each study

Goals: the HO-I study (500 runs, N_max = 1000, AnyRank) under 60 s on 2 cores; the BB-EDGE iid study (500 reps,
R = 100, L = 10, N = 100) under 120 s. Timings are wall clock on a machine shared with other work, so they are
reported together with the load average at the start.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import time

import numpy as np

from certirank.sim import get_scenario, simulate
from certirank.sim.adapters import resolve_methods
from certirank.sim.runner import _run_chunk, run_seeds

STUDIES = [
    # label, scenario, methods, params, goal seconds
    ("HO-I AnyRank_0", "HO-I", "anyrank0", {"n_max": 1000, "n_games": 10}, 60.0),
    ("HO-I AnyRank (gamma=1)", "HO-I", "anyrank", {"n_max": 1000, "n_games": 10}, 60.0),
    ("BB-EDGE iid", "bbedge-iid", "bbedge", {"R": 100, "L": 10, "N": 100}, 120.0),
]


def run(reps: int, jobs: int) -> list[dict]:
    rows = []
    for label, scen, methods, params, goal in STUDIES:
        load = os.getloadavg()[0]
        t0 = time.perf_counter()
        res = simulate(scen, methods, reps=reps, seed=0, jobs=jobs, progress=False, **params)
        wall = time.perf_counter() - t0
        s = res.summary[methods]
        rows.append({"study": label, "reps": reps, "jobs": jobs, "wall_s": wall, "goal_s": goal,
                     "method_cpu_s": res.elapsed[methods], "load": load, "fwer": s["fwer"], "power": s["power"]})
    return rows


def profile(reps: int = 20, top: int = 12) -> None:
    for label, scen, methods, params, _ in STUDIES:
        sc = get_scenario(scen, **params)
        specs = resolve_methods(methods, sc, {})
        children = run_seeds(0, reps)
        pr = cProfile.Profile()
        pr.enable()
        _run_chunk(sc, specs, children, list(range(reps)))
        pr.disable()
        buf = io.StringIO()
        pstats.Stats(pr, stream=buf).sort_stats("tottime").print_stats(top)
        print(f"\n=== {label}: one chunk of {reps} runs ===")
        print("\n".join(buf.getvalue().splitlines()[:top + 12]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=500)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="100 runs per study")
    ap.add_argument("--profile", action="store_true", help="profile one chunk of each study instead")
    args = ap.parse_args()
    if args.profile:
        profile()
        return
    reps = 100 if args.quick else args.reps
    rows = run(reps, args.jobs)
    print(f"{'study':<24}{'reps':>6}{'jobs':>6}{'wall s':>9}{'goal s':>8}{'cpu s':>8}{'load':>6}{'FWER':>7}{'power':>7}")
    for r in rows:
        ok = "ok" if r["wall_s"] <= r["goal_s"] * (reps / 500) else "SLOW"
        print(f"{r['study']:<24}{r['reps']:>6}{r['jobs']:>6}{r['wall_s']:>9.1f}{r['goal_s']:>8.0f}"
              f"{r['method_cpu_s']:>8.1f}{r['load']:>6.1f}{r['fwer']:>7.3f}{r['power']:>7.3f}  {ok}")
    print(f"numpy {np.__version__}, cores {os.cpu_count()}")


if __name__ == "__main__":
    main()
