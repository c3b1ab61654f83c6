"""How much faster is recording a live campaign's runs in batches (`Ranker.record_many`) than one at a time?

    .venv/bin/python benchmarks/speed/ranker_batches.py [--policies 4 12] [--trials 300] [--repeat 3]

For each number of policies M: a seeded stream of runs (trial by trial, policies in a random order, 5 % missing,
success probabilities spread from 0.95 to 0.05 so that comparisons are decided along the way), recorded into a
fresh `Ranker(alpha=0.05, n_max=trials)` three ways in this one run: `Ranker.record` on each run (the
reference), one `record_many` call for the whole stream, and `record_many` in batches of one trial (M runs, as a
lab finishing a round would send them). Each way's final state is checked equal to the reference's (snapshot and
result) before its time is printed. CPU seconds (best of --repeat) and runs per second, with the ratio against
one at a time.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def stream(m: int, trials: int, seed: int = 0) -> list[tuple[str, int, float | None]]:
    rng = np.random.default_rng(seed)
    p = np.linspace(0.95, 0.05, m)
    runs = []
    for t in range(trials):
        for i in rng.permutation(m):
            runs.append((f"P{i}", t, None if rng.random() < 0.05 else float(rng.random() < p[i])))
    return runs


def state(r) -> tuple:
    snap = r.snapshot()
    arrays = {k: np.asarray(v).tobytes() for k, v in snap["arrays"].items()}
    return snap["meta"], arrays, r.result().to_dict()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--policies", type=int, nargs="+", default=[4, 12])
    ap.add_argument("--trials", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    from certirank import Ranker

    print(f"{'M':>3s} {'runs':>6s} {'way':28s} {'CPU s':>7s} {'runs/s':>9s} {'ratio':>7s}")
    for m in args.policies:
        runs = stream(m, args.trials)
        names = [f"P{i}" for i in range(m)]

        def fresh():
            return Ranker(names, alpha=0.05, n_max=args.trials)

        def single(r):
            for run in runs:
                r.record(*run, ahead=True)

        def whole(r):
            r.record_many(runs, ahead=True)

        def rounds(r):
            for lo in range(0, len(runs), m):
                r.record_many(runs[lo:lo + m], ahead=True)

        ref = None
        base = None
        for name, fn in (("record, one at a time (ref.)", single), ("record_many, whole stream", whole),
                         ("record_many, one trial each", rounds)):
            best = float("inf")
            for _ in range(args.repeat):
                r = fresh()
                c0 = time.process_time()
                fn(r)
                best = min(best, time.process_time() - c0)
            st = state(r)
            if ref is None:
                ref, base = st, best
            elif st != ref:
                raise SystemExit(f"{name}: the final state differs from one-at-a-time records")
            print(f"{m:3d} {len(runs):6d} {name:28s} {best:7.3f} {len(runs) / best:9.0f} {base / best:6.1f}x")
        print(f"    decisions: {len(r._camp.decisions)}, iterations: {r.iteration}")


if __name__ == "__main__":
    main()
