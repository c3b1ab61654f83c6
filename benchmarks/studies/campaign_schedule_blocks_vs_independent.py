"""Does running environments in shuffled balanced blocks (the campaign's schedule, spec 09 §7) keep the paired
test's error rate at every stop, and its power, compared with independent environment draws?

Why it is a question: the paired test's e-process is a supermartingale when each trial's environment is a fresh
draw. Within a balanced block the environments are drawn *without* replacement, so given the trials already seen
in the block the next environment is not uniform. Under the null "equal mean over the environments" with
environment effects that favour A in some environments and B in others, the block makes the running sum of the
differences *less* variable (each block sums exactly to the environment mean), which should make the test more
conservative, not less; this study measures it, on the default paired test (``paired_batch``, the streams AnyRank
runs per pair), in null scenarios chosen to stress it (strong, alternating environment effects) and one alternative.

    python benchmarks/studies/campaign_schedule_blocks_vs_independent.py            # 4000 runs, horizon 400
    python benchmarks/studies/campaign_schedule_blocks_vs_independent.py --runs 500  # quick

Prints, per scenario and schedule: the rate of any certified direction by the horizon (under a null: the error
rate at the worst stopping time, with a 95 % Wilson upper bound), and the mean trials to decision.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from certirank.evidence.sequential import paired_batch

#: (name, success rate of A per environment, of B per environment); nulls have equal means over environments
SCENARIOS = [
    ("null: 2 environments, strong opposite effects", [0.9, 0.1], [0.1, 0.9]),
    ("null: 4 environments, mild alternating effects", [0.6, 0.4, 0.6, 0.4], [0.4, 0.6, 0.4, 0.6]),
    ("null: 8 environments, one extreme pair", [0.95, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.05],
     [0.05, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.95]),
    ("null: 3 environments, one-sided effect balanced by two", [0.9, 0.3, 0.3], [0.3, 0.6, 0.6]),
    ("alternative: A better by 0.1 on average, heterogeneous", [0.75, 0.45, 0.75, 0.45], [0.55, 0.45, 0.55, 0.25]),
]


def environments(runs: int, horizon: int, n_env: int, blocked: bool, rng: np.random.Generator) -> np.ndarray:
    """(runs, horizon) environment indices: independent uniform draws, or each block of n_env trials a random
    permutation of the environments (the campaign's schedule)."""
    if not blocked:
        return rng.integers(n_env, size=(runs, horizon))
    blocks = -(-horizon // n_env)
    return np.argsort(rng.random((runs, blocks, n_env)), axis=2).reshape(runs, blocks * n_env)[:, :horizon]


def simulate(p_a: list[float], p_b: list[float], *, horizon: int, runs: int, blocked: bool, seed: int,
             alpha: float) -> tuple[float, float | None]:
    rng = np.random.default_rng(seed)
    env = environments(runs, horizon, len(p_a), blocked, rng)
    x = (rng.random((runs, horizon)) < np.asarray(p_a)[env]).astype(float)
    y = (rng.random((runs, horizon)) < np.asarray(p_b)[env]).astype(float)
    res = paired_batch(x, y, alpha)
    decided = res.decision != 0
    return float(decided.mean()), (float(res.decided_at[decided].mean()) if decided.any() else None)


def wilson_upper(k: int, n: int, z: float = 1.96) -> float:
    p = k / n
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre + half) / (1 + z * z / n)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=4000)
    ap.add_argument("--horizon", type=int, default=400)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    start = time.time()
    print(f"paired test, alpha = {a.alpha}, horizon {a.horizon} trials, {a.runs} runs per row (same seed per row)")
    print(f"{'scenario':58s} {'schedule':>12s} {'rate':>7s} {'95% upper':>9s} {'mean trials':>11s}")
    for name, p_a, p_b in SCENARIOS:
        for blocked in (False, True):
            rate, when = simulate(p_a, p_b, horizon=a.horizon, runs=a.runs, blocked=blocked, seed=a.seed,
                                  alpha=a.alpha)
            up = wilson_upper(round(rate * a.runs), a.runs)
            print(f"{name:58s} {'blocks' if blocked else 'independent':>12s} {rate:7.4f} {up:9.4f} "
                  f"{'-' if when is None else f'{when:.1f}':>11s}")
    print(f"({time.time() - start:.0f} s)")


if __name__ == "__main__":
    main()
