"""Issue 21, another view: how do composed tests score policies that are *new*, not held out of one pool?

Spec 05 §11's protocol holds out part of a fixed pool, so the tuning and the held-out policies are coupled:
a kind of policy missing from the tuning set is over-represented among the held-out ones (the adverse
selection of docs/performance/rposst-design-choice.md). The Racing Arrows re-creation can draw genuinely new
policies from the population instead. For each seed: the game's usual pool (50 leaders, 50 followers,
`racing_arrows_angles(50, seed)`); every method composes a test from the 50 policies of the chosen side;
it is scored on 10 new policies of that side (angles uniform in [0.05π, 0.95π]) by its max error over
(new policy, target) pairs, on the pool's rescaled scale. Goal as in the protocol: at most the best
baseline's mean + 1 s.e. over seeds.

    .venv/bin/python benchmarks/studies/rposst_new_policies.py --m 1,2 --seeds 50
    .venv/bin/python benchmarks/studies/rposst_new_policies.py --m 3 --seeds 20
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from certirank.methods.rposst import _core, compose_test
from certirank.methods.rposst.compose import design
from certirank.methods.rposst.protocol import LABELS
from certirank.methods.rposst.select import fit_candidate, parse_candidate
from certirank.sim.racing_arrows import follower_wins, racing_arrows_angles

BASELINES = ("minimax-uniform", "minimax-ttd", "minimax-tnp", "miniaverage", "iterative-minimax")
METHODS = ("cv", "rposst", *BASELINES)
BETAS = np.array([0.0, 1.0, 2.0, 4.0])
NEW = 10


def _matrix(cases: np.ndarray, policies: np.ndarray, side: str) -> np.ndarray:
    """Test cases (rows) x policies (columns), 1 = the column player wins."""
    if side == "followers":
        return follower_wins(cases[:, None], policies[None, :]).astype(float)
    return 1.0 - follower_wins(policies[None, :], cases[:, None]).astype(float)


def one_seed(side: str, m: int, seed: int) -> dict[str, float]:
    leaders, followers = racing_arrows_angles(50, seed)
    cases, pool = (leaders, followers) if side == "followers" else (followers, leaders)
    new = np.random.default_rng([seed, 21]).uniform(0.05 * np.pi, 0.95 * np.pi, NEW)
    raw = _matrix(cases, np.r_[pool, new], side)
    p = pool.size
    lo, hi = raw[:, :p].min(), raw[:, :p].max()
    A = (raw - lo) / (hi - lo)
    tune, fresh = A[:, :p], A[:, p:]
    targets = _core.softmax_targets(tune, BETAS)
    problem = _core.make_problem(tune, targets)
    tuples = _core.all_tuples(tune.shape[0], m)

    def run(prob, mm, lev):  # unused by the uniform baselines, which fit_candidate enumerates itself
        o = design(prob, mm, lev, "rm+", 300, tuples=tuples)
        return np.asarray(o["cases"]), np.asarray(o["weights"], float)

    out = {}
    for method in METHODS:
        if method in ("cv", "rposst"):
            res = compose_test(tune, m=m, select=method, seed=seed, rescale=False)
            cases_, weights = np.asarray(res.test_indices), np.asarray(res.weights)
        else:
            cases_, weights = fit_candidate(parse_candidate(method), problem, m, 0.01, tuples, run)
        out[method] = float(_core.pair_errors(fresh, targets, cases_, weights).max())
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--m", default="1,2")
    ap.add_argument("--seeds", type=int, default=50)
    args = ap.parse_args()
    print(f"| side (policies) | m | seeds | {' | '.join(LABELS[k] for k in METHODS)} | goal | default meets it |")
    print("|---|---|---|" + "---|" * (len(METHODS) + 2))
    for side in ("followers", "leaders"):
        for m in (int(v) for v in args.m.split(",")):
            t0 = time.perf_counter()
            rows = [one_seed(side, m, s) for s in range(args.seeds)]
            mean = {k: np.mean([r[k] for r in rows]) for k in METHODS}
            se = {k: np.std([r[k] for r in rows], ddof=1) / np.sqrt(len(rows)) for k in METHODS}
            best = min(BASELINES, key=lambda k: mean[k])
            goal = mean[best] + se[best]
            cells = " | ".join(f"{mean[k]:.3f} ± {se[k]:.3f}" for k in METHODS)
            print(f"| {side} | {m} | {args.seeds} | {cells} | {goal:.3f} ({LABELS[best]}) | "
                  f"{'yes' if mean['cv'] <= goal + 1e-12 else 'no'} |  <!-- {time.perf_counter() - t0:.0f} s -->",
                  flush=True)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
