"""Does the certified Bradley–Terry ranking hold its error rate on sparse arenas, and how much does it certify?

    .venv/bin/python benchmarks/studies/bradley_terry_sparse_arena.py --reps 60 --power-reps 10
    .venv/bin/python benchmarks/studies/bradley_terry_sparse_arena.py --part null --battles 1000 --every 20  # sparse

Arenas like the real one of issue 37: 108 players, 7,800 battles between uniformly drawn pairs (on average 1.35
meetings per pair: about a quarter of the pairs never meet, most meet 0-3 times), checkpoints (peeking) after
every 100 battles, alpha = 0.05, the default command (asymptotic, draws as half, no position advantage).
Strengths (log scale) are drawn once per run from N(0, 1) (this study's choice for "spread as in real leagues").

- null: every player equally strong; FWER = share of runs with any certified edge at any checkpoint.
- ties: the 12 strongest players exactly tied (at the top of an N(0, 1) spread), the rest N(0, 1); an error is
  any certified edge between two tied players or against the true order, at any checkpoint.
- power: N(0, 1) strengths, no ties; share of the 5,778 pairs certified at the end, wrong edges, beside the
  fixed-time Wald intervals of the same final fit (marginal 95 %, and Bonferroni-simultaneous over all pairs):
  the faithful fixed-time reference of arena-rank's intervals; with ``--arena-rank-python PY`` also arena-rank
  itself (LMArena's package, Apache-2.0) on the same battles: its BradleyTerry fit and 95 % sandwich intervals per
  player, a pair separated when the two players' intervals do not overlap (how its leaderboard reads them). It is
  run by that interpreter in a subprocess, never imported here. ``--arena-rank-venv DIR`` makes that throw-away
  environment itself (``python -m venv DIR``, ``pip install arena-rank``; Python >= 3.11) when DIR has none:

      .venv/bin/python benchmarks/studies/bradley_terry_sparse_arena.py --part power --power-reps 10 \
          --arena-rank-venv /tmp/arena-venv
(Runtime: benchmarks/speed/bradley_terry_runtime.py.)

Each run's battles come from SeedSequence(seed).spawn(reps)[i]. Errors are reported with a 95 % binomial
(Clopper–Pearson) interval, and with the first battle at which an error happened, to show where the asymptotic
guarantee fails (very sparse early data).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd
from scipy import stats

from certirank.methods.bradley_terry import bradley_terry_graph

L = 108
N, EVERY = 7800, 100  # set from the command line


def arena(rng: np.random.Generator, theta: np.ndarray, n: int) -> pd.DataFrame:
    a = rng.integers(0, L, n)
    b = (a + rng.integers(1, L, n)) % L
    p = 1.0 / (1.0 + np.exp(-(theta[a] - theta[b])))
    y = (rng.random(n) < p).astype(float)
    df = pd.DataFrame({"policy_a": [f"p{i:03d}" for i in a], "policy_b": [f"p{i:03d}" for i in b],
                       "preference": 1.0 - y})
    df.attrs["format"] = "preferences"
    return df


def _wrong(rel, theta, tied) -> list[int]:
    out = []
    for r in rel:
        i, j = int(r.better[1:]), int(r.worse[1:])
        if theta[i] <= theta[j] or (tied[i] and tied[j]):
            out.append(int(r.when) if r.when is not None else -1)
    return out


def error_study(kind: str, reps: int, seed: int) -> None:
    errs, first = 0, []
    t0 = time.perf_counter()
    for i, child in enumerate(np.random.SeedSequence(seed).spawn(reps)):
        rng = np.random.default_rng(child)
        if kind == "null":
            theta, tied = np.zeros(L), np.ones(L, dtype=bool)
        else:
            theta = rng.normal(0.0, 1.0, L)
            top = np.argsort(-theta)[:12]
            theta[top] = theta[top].mean()
            tied = np.zeros(L, dtype=bool)
            tied[top] = True
        res = bradley_terry_graph(arena(rng, theta, N), 0.05, every=EVERY)
        # a claim made at any checkpoint stays in the running-minimum record, so the final relations hold every
        # claim ever made (decided_at = the checkpoint of the claim)
        w = _wrong([r for r in res.ranking.relations if r.via == "test"], theta, tied)
        if w:
            errs += 1
            first.append(min(w))
    lo, hi = stats.beta.ppf([0.025, 0.975], [errs, errs + 1], [reps - errs + 1, reps - errs])
    lo = 0.0 if errs == 0 else lo
    print(f"{kind:5s}: FWER {errs}/{reps} = {errs / reps:.3f} (95% CI {lo:.3f}-{hi:.3f}); first error at battle "
          f"{sorted(first) if first else '-'}; {time.perf_counter() - t0:.0f} s")


# run by arena-rank's own interpreter: battles (CSV) in, each player's 95 % interval out (JSON)
_ARENA_SCRIPT = """
import json, sys
import pandas as pd
from arena_rank.utils.data_utils import PairDataset
from arena_rank.models.bradley_terry import BradleyTerry
df = pd.read_csv(sys.argv[1])
data = PairDataset.from_pandas(df)
res = BradleyTerry(n_competitors=len(data.competitors)).compute_ratings_and_cis(data, significance_level=0.05)
print(json.dumps({str(c): [float(lo), float(hi)] for c, lo, hi in
                  zip(res["competitors"], res["rating_lower"], res["rating_upper"])}))
"""


def arena_rank_separated(python: str, battles: pd.DataFrame, theta: np.ndarray) -> tuple[int, int]:
    """Pairs whose arena-rank 95 % intervals do not overlap, and how many of them are against the true order."""
    winner = np.where(battles["preference"].to_numpy() < 0.5, "model_a", "model_b")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "battles.csv")
        pd.DataFrame({"model_a": battles["policy_a"], "model_b": battles["policy_b"], "winner": winner}).to_csv(
            path, index=False)
        out = subprocess.run([python, "-c", _ARENA_SCRIPT, path], capture_output=True, text=True, check=True)
    ci = json.loads(out.stdout.strip().splitlines()[-1])
    names = sorted(ci)
    lo = np.array([ci[n][0] for n in names])
    hi = np.array([ci[n][1] for n in names])
    idx = np.array([int(n[1:]) for n in names])
    above = lo[:, None] > hi[None, :]  # i's interval entirely above j's: i separated above j
    wrong = above & (theta[idx][:, None] <= theta[idx][None, :])
    return int(above.sum()), int(wrong.sum())


def _arena_rank_venv(folder: str) -> str:
    """The interpreter of a throw-away venv holding arena-rank, made (and installed from the registry) if missing."""
    python = os.path.join(folder, "bin", "python")
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", folder], check=True)
    if subprocess.run([python, "-c", "import arena_rank"], capture_output=True).returncode != 0:
        subprocess.run([python, "-m", "pip", "install", "--quiet", "arena-rank"], check=True)
    return python


def power_study(reps: int, seed: int, arena_python: str | None = None) -> None:
    K = L * (L - 1) // 2
    rows, arena_rows = [], []
    for child in np.random.SeedSequence(seed + 1).spawn(reps):
        rng = np.random.default_rng(child)
        theta = rng.normal(0.0, 1.0, L)
        battles = arena(rng, theta, N)
        res = bradley_terry_graph(battles, 0.05, every=EVERY)
        if arena_python:
            arena_rows.append(arena_rank_separated(arena_python, battles, theta))
        direct = [r for r in res.ranking.relations if r.via == "test"]
        wrong = len(_wrong(res.ranking.relations, theta, np.zeros(L, dtype=bool)))
        pairs = res.details["pairs"]
        z = np.array([abs(p["z"]) if p["z"] is not None else 0.0 for p in pairs])
        est_sign = np.array([np.sign(p["estimate"]) for p in pairs])
        ia = np.array([int(p["a"][1:]) for p in pairs])
        ib = np.array([int(p["b"][1:]) for p in pairs])
        truth = np.sign(theta[ia] - theta[ib])
        zm, zb = stats.norm.ppf(0.975), stats.norm.ppf(1 - 0.025 / K)
        rows.append((len(res.ranking.relations), len(direct), wrong, int((z > zm).sum()),
                     int(((z > zm) & (est_sign != truth)).sum()), int((z > zb).sum()),
                     int(((z > zb) & (est_sign != truth)).sum())))
    m = np.array(rows, dtype=float).mean(axis=0)
    print(f"power over {reps} runs ({K} pairs): certirank BT certified {m[0]:.0f} pairs ({100 * m[0] / K:.1f}%; "
          f"{m[1]:.0f} by a direct test), wrong {m[2]:.2f} per run;  fixed-time Wald marginal 95%: {m[3]:.0f} "
          f"({100 * m[3] / K:.1f}%), wrong {m[4]:.1f};  Wald Bonferroni over all pairs: {m[5]:.0f} "
          f"({100 * m[5] / K:.1f}%), wrong {m[6]:.2f}")
    if arena_rows:
        a = np.array(arena_rows, dtype=float).mean(axis=0)
        print(f"arena-rank (fixed time, 95% sandwich intervals per player, not overlapping): {a[0]:.0f} pairs "
              f"({100 * a[0] / K:.1f}%), wrong {a[1]:.2f} per run")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=("null", "ties", "power", "all"), default="all")
    ap.add_argument("--reps", type=int, default=60)
    ap.add_argument("--power-reps", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--battles", type=int, default=7800)
    ap.add_argument("--every", type=int, default=100)
    ap.add_argument("--arena-rank-python", default=None,
                    help="an interpreter with arena-rank installed (a throw-away venv): also report its intervals")
    ap.add_argument("--arena-rank-venv", default=None,
                    help="a folder for a throw-away venv with arena-rank (made and installed when missing)")
    args = ap.parse_args()
    if args.arena_rank_venv and not args.arena_rank_python:
        args.arena_rank_python = _arena_rank_venv(args.arena_rank_venv)
    global N, EVERY
    N, EVERY = args.battles, args.every
    print(f"L = {L} players, {N:,} battles, checkpoints every {EVERY}, alpha = 0.05; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if args.part in ("null", "all"):
        error_study("null", args.reps, args.seed)
    if args.part in ("ties", "all"):
        error_study("ties", args.reps, args.seed + 7)
    if args.part in ("power", "all"):
        power_study(args.power_reps, args.seed, args.arena_rank_python)


if __name__ == "__main__":
    main()
