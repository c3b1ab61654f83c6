"""How long does the certified Bradley–Terry ranking take on 10^5 battles (108 players, checkpoints every 100)?

    .venv/bin/python benchmarks/speed/bradley_terry_runtime.py [--battles 100000] [--exact-battles 7800]

Side by side in this one run: a plain numpy reference (one Bradley–Terry fit of all the battles by Newton's
method on the (L x L) win counts: what a fixed-time analysis costs) and certirank's anytime ranking (a refit at
every checkpoint, p-values for every pair, Holm), asymptotic by default; the exact option (universal inference)
on a smaller arena (--exact-battles), since it also refits the constrained model of every pair that could pass.
Wall and CPU seconds, and the ratio to the reference.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd

L = 108


def battles(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, 1.0, L)
    a = rng.integers(0, L, n)
    b = (a + rng.integers(1, L, n)) % L
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-(theta[a] - theta[b])))).astype(float)
    df = pd.DataFrame({"policy_a": [f"p{i:03d}" for i in a], "policy_b": [f"p{i:03d}" for i in b],
                       "preference": 1.0 - y})
    df.attrs["format"] = "preferences"
    return df


def reference_fit(df: pd.DataFrame) -> np.ndarray:
    """Plain numpy: win matrix, then Newton on the ridge-penalised log-likelihood (one fit, no inference)."""
    a = df["policy_a"].str[1:].astype(int).to_numpy()
    b = df["policy_b"].str[1:].astype(int).to_numpy()
    y = 1.0 - df["preference"].to_numpy()
    W = np.zeros((L, L))
    np.add.at(W, (a, b), y)
    np.add.at(W, (b, a), 1.0 - y)
    n = W + W.T
    theta = np.zeros(L)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(theta[:, None] - theta[None, :])))
        g = (W - n * p).sum(axis=1) - 0.01 * theta
        h = n * p * (1 - p)
        H = -np.diag(h.sum(axis=1)) + h - 0.01 * np.eye(L)
        step = np.linalg.solve(H, -g)
        theta += step
        if np.abs(step).max() < 1e-9:
            break
    return theta


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--battles", type=int, default=100_000)
    ap.add_argument("--exact-battles", type=int, default=7_800)
    args = ap.parse_args()
    from threadpoolctl import threadpool_limits

    from certirank.methods.bradley_terry import bradley_terry_graph

    print(f"{L} players; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'run':58s} {'wall s':>7s} {'CPU s':>7s} {'CPU / reference':>15s} {'certified':>9s}")
    for n, method in ((args.battles, "asymptotic"), (args.exact_battles, "asymptotic"), (args.exact_battles, "exact")):
        df = battles(n, seed=0)
        t0, c0 = time.perf_counter(), time.process_time()
        with threadpool_limits(limits=1, user_api="blas"):
            reference_fit(df)
        ref_wall, ref_cpu = time.perf_counter() - t0, time.process_time() - c0
        t0, c0 = time.perf_counter(), time.process_time()
        res = bradley_terry_graph(df, 0.05, method=method, **({"draws": "drop"} if method == "exact" else {}))
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(f"{'plain numpy reference: one fit of ' + format(n, ',') + ' battles':58s} {ref_wall:7.2f} "
              f"{ref_cpu:7.2f} {1.0:14.1f}x")
        label = f"certirank {method}, {n:,} battles, {res.details['checkpoints']} checkpoints"
        print(f"{label:58s} {wall:7.2f} {cpu:7.2f} {cpu / max(ref_cpu, 1e-9):14.0f}x {len(res.ranking.relations):9d}")


if __name__ == "__main__":
    main()
