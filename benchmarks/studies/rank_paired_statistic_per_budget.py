"""Which exact per-pair test should `rank` (AnyRank) run on paired binary data: its old choice or `compare`'s?

Usage::

    .venv/bin/python benchmarks/studies/rank_paired_statistic_per_budget.py --runs 1000 --budgets 50 100 200 500 1000

`certirank rank FILE` on a wide binary table of N rows runs AnyRank with the exact budget test of each pair
(`budget="final"`, `n_max=N`, paired arms). Before issue 31's last step AnyRank chose its own statistic (the
Beta(4, 4) mixture below 500 trials, the fastest-decision statistic with a Beta(4, 4) prior from 500 up),
while `compare` chose by `evidence.budget.paired_default` (the fastest-decision statistic with a prior per
budget from 50 up). Both are run here on the same seeded tables, side by side:

* ``old``: AnyRank's old choice, passed explicitly (``statistic``/``concentration``);
* ``compare``: `paired_default(N)`, passed explicitly;
* ``default``: no statistic given (what `rank` runs now; it must equal one of the two).

Scenarios: HE-F (Bernoulli 0.20, 0.35, 0.45, 0.65, 0.90; spec 03 §12.1) and boards of K = 3, 10, 20 policies
whose success rates are drawn per run from Uniform(0.1, 0.9). Every policy's rollouts are independent draws
(the paired calibration is valid for any correlation; it is what `rank` runs on wide rows). AnyRank with the
library's defaults (method ``anyrank``, ``ties="allow"``, alpha 0.05). Cells: mean rollouts over all policies
(every trial counted, undecided pairs up to N), mean pairs certified, the fraction of runs with a wrong
relation (FWER).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from certirank.evidence.budget import paired_default
from certirank.methods.anyrank import run_campaigns

HEF = np.array([0.20, 0.35, 0.45, 0.65, 0.90])
#: AnyRank's per-pair choice before it asked `methods.plan` (kept here to measure against)
OLD_MIN_BAYES, OLD_CONCENTRATION = 500, 4.0


def old_choice(n: int) -> tuple[str, float]:
    return ("bayes" if n >= OLD_MIN_BAYES else "mixture"), OLD_CONCENTRATION


def boards(k: int | None, runs: int, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(tables (runs, n, K), means (runs, K)): HE-F when k is None, else K rates ~ Uniform(0.1, 0.9) per run."""
    out, mus = [], []
    for s in np.random.SeedSequence(seed).spawn(runs):
        rng = np.random.default_rng(s)
        mu = HEF if k is None else rng.uniform(0.1, 0.9, k)
        out.append((rng.random((n, mu.size)) < mu).astype(float))
        mus.append(mu)
    return np.stack(out), np.stack(mus)


def summary(results, mus: np.ndarray) -> tuple[float, float, float, float]:
    tot = np.array([r.total_samples for r in results], dtype=float)
    pairs = np.array([len(r.ranking.relations) for r in results], dtype=float)
    wrong = []
    for r, mu in zip(results, mus):
        idx = {p: i for i, p in enumerate(r.policies)}
        wrong.append(any(mu[idx[x.better]] <= mu[idx[x.worse]] for x in r.ranking.relations))
    return tot.mean(), tot.std(ddof=1) / math.sqrt(tot.size), pairs.mean(), float(np.mean(wrong))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--budgets", type=int, nargs="+", default=[50, 100, 200, 500, 1000])
    ap.add_argument("--policies", type=int, nargs="+", default=[0, 3, 10, 20], help="0 = HE-F")
    args = ap.parse_args()
    print(f"AnyRank (method anyrank, ties allow, alpha 0.05), budget final, paired arms, binary; {args.runs} runs, "
          f"seed {args.seed}\n")
    print("| board | N | old choice | compare's choice | rollouts old | rollouts compare's | rollouts default "
          "| pairs old | pairs compare's | pairs default | FWER old / compare's / default |")
    print("|---|---:|---|---|---:|---:|---:|---:|---:|---:|---|")
    for k in args.policies:
        for n in args.budgets:
            tables, mus = boards(k or None, args.runs, n, args.seed + n + 1000 * k)
            cells = {}
            choices = {"old": old_choice(n), "compare": paired_default(n), "default": (None, None)}
            for name, (stat, a) in choices.items():
                t0 = time.process_time()
                res = run_campaigns(tables, alpha=0.05, n_max=n, budget="final", bins="binary", arms="paired",
                                    statistic=stat, concentration=a)
                cells[name] = summary(res, mus) + (time.process_time() - t0,)
            o, c, d = cells["old"], cells["compare"], cells["default"]
            label = "HE-F" if not k else f"K = {k}"
            fmt = lambda ch: ch[0] if ch[1] is None else f"{ch[0]} a={ch[1]:g}"  # noqa: E731
            print(f"| {label} | {n} | {fmt(choices['old'])} | {fmt(choices['compare'])} | {o[0]:.1f} ({o[1]:.1f}) "
                  f"| {c[0]:.1f} ({c[1]:.1f}) | {d[0]:.1f} | {o[2]:.2f} | {c[2]:.2f} | {d[2]:.2f} "
                  f"| {o[3]:.3f} / {c[3]:.3f} / {d[3]:.3f} |", flush=True)


if __name__ == "__main__":
    main()
