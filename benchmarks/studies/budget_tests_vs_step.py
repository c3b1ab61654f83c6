"""Budget-aware tests (spec 08) against STEP / Lai, and the mixture e-processes against oracle Kelly.

Usage::

    .venv/bin/python benchmarks/studies/budget_tests_vs_step.py --study budget --runs 1000      # power at budgets 50/200/500
    .venv/bin/python benchmarks/studies/budget_tests_vs_step.py --study mixture --runs 600      # no budget: / oracle Kelly
    .venv/bin/python benchmarks/studies/budget_tests_vs_step.py --study concentration          # exact power vs prior a

`--study budget`: for Bernoulli pairs (p0, p1) with independent arms (each policy's rollouts
independent, paired by order: STEP's own setting), alpha = 0.05 two-sided and valid under exact ties
(certirank `ties="allow"`, STEP / Lai `inference_mode="ranking"`), the power (fraction of runs declaring
the right direction within the budget), the mean rollouts per policy (undecided runs count the whole
budget) and, under exact ties, P(any claim). All methods see the same seeded streams.

STEP and Lai come from `sequentialized-barnard-tests` (licence CC BY-NC 4.0). It is never a dependency of
certirank: with `--step-python PATH` (default /tmp/stepenv/bin/python if it exists) this script runs
benchmarks/_step_runner.py under that interpreter, in a separate process, on the saved streams. Install
it in a throw-away environment:  python -m venv /tmp/stepenv && /tmp/stepenv/bin/pip install
sequentialized-barnard-tests   (the first run at a new (n_max, alpha) synthesises STEP's policy: minutes).
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from certirank.evidence import paired_batch
from certirank.evidence.budget import BudgetDesign, _power, budget_batch, threshold
from certirank.evidence.oracle import oracle_kelly_bernoulli

ALPHA = 0.05
PAIRS = [(0.3, 0.5), (0.5, 0.7), (0.4, 0.5), (0.6, 0.8), (0.7, 0.9)]
TIES = [0.2, 0.5, 0.9]
BUDGETS = [50, 200, 500]
MIXTURE_PAIRS = [(0.3, 0.6), (0.5, 0.6), (0.4, 0.5), (0.7, 0.9), (0.1, 0.3)]
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # benchmarks/, where _step_runner.py lives


def _streams(p0: float, p1: float, runs: int, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (rng.random((runs, n)) < p0).astype(float), (rng.random((runs, n)) < p1).astype(float)


def _summary(decision: np.ndarray, stop: np.ndarray, n: int, truth: int) -> tuple[float, float]:
    """(fraction with the right decision (any claim if truth == 0), mean rollouts per policy)."""
    hit = decision != 0 if truth == 0 else decision == truth
    used = np.where(decision != 0, stop, n)
    return float(np.mean(hit)), float(np.mean(used))


def _external(method: str, x: np.ndarray, y: np.ndarray, n: int, python: str) -> tuple[np.ndarray, np.ndarray] | str:
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = os.path.join(tmp, "in.npz"), os.path.join(tmp, "out.npz")
        np.savez(src, x=x.astype(np.int8), y=y.astype(np.int8))
        proc = subprocess.run([python, os.path.join(HERE, "_step_runner.py"), src, dst, method, str(n), str(ALPHA),
                               "ranking"], capture_output=True, text=True, check=False)
        if proc.returncode != 0 or not os.path.exists(dst):
            return (proc.stderr.strip().splitlines() or ["failed"])[-1][:120]
        out = np.load(dst)
        return out["decision"], out["stop"]


def budget_study(runs: int, seed: int, python: str | None, budgets: list[int], methods_ext: list[str]) -> None:
    cases = [(p0, p1, 1) for p0, p1 in PAIRS] + [(p, p, 0) for p in TIES]
    for n in budgets:
        t0 = time.process_time()
        des_ind = BudgetDesign(n, alpha=ALPHA, arms="independent")
        des_par = BudgetDesign(n, alpha=ALPHA, arms="paired")
        print(f"\n#### Budget {n} rollouts per policy, alpha = {ALPHA}, tie-safe, independent arms, {runs} runs "
              f"(design: independent a = {des_ind.a:g}, paired a = {des_par.a:g}; "
              f"{time.process_time() - t0:.1f} s CPU to tune both)\n")
        cols = ["exact, independent arms", "exact, paired arms", "e-process adaptive",
                "nscore progress (old default)", "nscore binary"] + [m.upper() for m in methods_ext]
        print("| p0 vs p1 | " + " | ".join(cols) + " |")
        print("|---|" + "---:|" * len(cols))
        for ci, (p0, p1, truth) in enumerate(cases):
            x, y = _streams(p0, p1, runs, n, seed + 1000 * n + ci)
            cells = []
            for des in (des_ind, des_par):
                r = budget_batch(x, y, des)
                cells.append(_summary(r["decision"], r["decided_at"], n, truth))
            for bettor, bins in (("adaptive", "binary"), ("nscore", "progress"), ("nscore", "binary")):
                r = paired_batch(x, y, ALPHA, bettor=bettor, bins=bins)
                cells.append(_summary(r.decision, r.decided_at, n, truth))
            for m in methods_ext:
                out = _external(m, x, y, n, python) if python else "not installed"
                cells.append(out if isinstance(out, str) else _summary(out[0], out[1], n, truth))
            label = f"{p0:g} vs {p1:g}" if truth else f"tie {p0:g} (P(any claim))"
            txt = [c if isinstance(c, str) else f"{c[0]:.3f} ({c[1]:.0f})" for c in cells]
            print(f"| {label} | " + " | ".join(txt) + " |", flush=True)
        print("\nCells: power (mean rollouts per policy, undecided runs counted at the budget); tie rows: "
              f"P(any claim) — binomial standard error at 0.05 is {math.sqrt(0.05 * 0.95 / runs):.4f}.")


def mixture_study(runs: int, seed: int) -> None:
    from certirank.evidence.mixture import decision_time_dp

    print(f"\n#### No budget: mean mirrored decision time / oracle-Kelly time log(2/alpha)/g*, `allow`, "
          f"{runs} runs (independent Bernoulli arms; same streams for every column)\n")
    configs = [("calibrated", "progress", {}), ("adaptive", "progress", {}), ("nscore", "progress", {})]
    labels = ["calibrated (default)", "adaptive (previous default)", "nscore progress (old default)"]
    print("| p0 vs p1 | q | oracle T2 | calibrated, exact DP | " + " | ".join(labels) + " |")
    print("|---|---:|---:|---:|" + "---:|" * len(labels))
    for i, (p0, p1) in enumerate(MIXTURE_PAIRS):
        t2 = oracle_kelly_bernoulli(p0, p1).time(ALPHA, "allow")
        qp, qm = p1 * (1 - p0), p0 * (1 - p1)
        # exact: E[discordant pairs at the decision] / r trials (r cancels against the oracle's r)
        dp = decision_time_dp(qp / (qp + qm), target=2 / ALPHA, k_max=4000)["mean_pairs"] / (qp + qm) / t2
        horizon = int(math.ceil(10 * t2))
        x, y = _streams(p0, p1, runs, horizon, seed + i)
        cells = []
        for bettor, bins, opt in configs:
            r = paired_batch(x, y, ALPHA, bettor=bettor, bins=bins, **opt)
            t = np.where(r.decision == 1, r.decided_at, horizon)
            ratio = t.mean() / t2
            se = t.std(ddof=1) / math.sqrt(runs) / t2
            cells.append(f"{ratio:.3f} ± {se:.3f}")
        print(f"| {p0:g} vs {p1:g} | {qp / (qp + qm):.3f} | {t2:.0f} | {dp:.3f} | " + " | ".join(cells) + " |",
              flush=True)


def concentration_study(budgets: list[int]) -> None:
    print("\n#### Exact power (dynamic programme, no simulation) of the budget test vs its prior concentration a\n")
    print("independent arms, alpha/2 = 0.025 per direction; alternatives 0.4 vs 0.5 (q = 0.6, r = 0.5) and "
          "0.5 vs 0.7 (q = 0.7, r = 0.5)\n")
    print("| n | a | power 0.4 vs 0.5 | power 0.5 vs 0.7 |")
    print("|---:|---:|---:|---:|")
    for n in budgets:
        tuned = BudgetDesign(n, arms="independent").a
        for a in sorted({1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0, tuned}):
            m = threshold(0.025, n, a, "independent")
            mark = " (tuned)" if a == tuned else ""
            print(f"| {n} | {a:g}{mark} | {_power(m, n, a, 0.6, 0.5):.3f} | {_power(m, n, a, 0.7, 0.5):.3f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--study", choices=["budget", "mixture", "concentration"], default="budget")
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=2027)
    ap.add_argument("--budgets", type=int, nargs="+", default=BUDGETS)
    ap.add_argument("--step-python", default="/tmp/stepenv/bin/python" if os.path.exists("/tmp/stepenv/bin/python")
                    else None)
    ap.add_argument("--external", nargs="*", default=["step", "lai"], help="external methods (step, lai)")
    args = ap.parse_args()
    if args.study == "budget":
        budget_study(args.runs, args.seed, args.step_python, args.budgets, args.external)
    elif args.study == "mixture":
        mixture_study(args.runs, args.seed)
    else:
        concentration_study(args.budgets)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
