"""Timing of every baseline on typical sizes (docs/performance/baselines.md).

Usage (from the repository root):

    .venv/bin/python benchmarks/speed/baselines_timing.py [--repeat 3]

Prints a Markdown table of the median wall time per call. Sizes:

* preference methods: 5 policies, 1000 synthetic games (spec 06 §5 generator, HO-F means) and the shipped
  RoboArena preferences (796 comparisons, 8 policies) when ../shared/data is present;
* leaderboard methods: L = 10 models, N = 100 items, R = 20 replicates (Bernoulli panels), final replicate
  only and with the per-replicate history.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
import pandas as pd

from certirank.baselines import Panel, baseline, preference_games

ROBOARENA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "roboarena" / "policy_preferences.csv"


def timed(fn, repeat: int) -> float:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    games = preference_games([0.1, 0.3, 0.5, 0.7, 0.9], 1000, seed=0)
    rows = []
    pref_cases = [("1000 games, 5 policies", games)]
    if ROBOARENA.exists():
        pref_cases.append(("RoboArena, 796 rows, 8 policies", pd.read_csv(ROBOARENA)))
    for label, data in pref_cases:
        for name, opts in (("bt", {}), ("bt-davidson", {}), ("bt-bootstrap", {"n_boot": 5000}),
                           ("bt-em", {"seeds": 1}), ("bt-em", {"seeds": 1, "reproduce_quirks": True})):
            desc = name + ("" if not opts else " (" + ", ".join(f"{k}={v}" for k, v in opts.items()) + ")")
            rows.append((desc, label, timed(lambda: baseline(name, data, **opts), args.repeat)))
    rng = np.random.default_rng(0)
    theta = np.repeat(np.linspace(0.41, 0.59, 5), 2)
    s = (rng.random((20, 100, 10)) < theta).astype(float)
    panel = Panel(tuple(f"m{k}" for k in range(10)), tuple(f"i{k}" for k in range(100)), tuple(range(20)), s,
                  np.full(100, 0.01), None)
    label = "L=10, N=100, R=20"
    for name, opts in (("emr", {}), ("t-holm", {}), ("beb-holm", {}), ("asympcs-bonf", {}), ("serpant", {}),
                       ("serpant-r", {}), ("cbtl", {"n_boot": 1000})):
        rows.append((name, label, timed(lambda: baseline(name, panel, **opts), args.repeat)))
        hist_opts = dict(opts, history=True)
        rows.append((name + " (history, all r)", label, timed(lambda: baseline(name, panel, **hist_opts),
                                                               args.repeat if name != "cbtl" else 1)))
    print("| method | data | median ms per call |\n|---|---|---|")
    for desc, label, sec in rows:
        print(f"| {desc} | {label} | {1000 * sec:.1f} |")


if __name__ == "__main__":
    main()
