"""Which statistic should the paired exact budget test use at each budget? Expected rollouts-to-decision subject to
power at the budget, exactly (dynamic programme), and beside STEP on paired data.

Usage::

    .venv/bin/python benchmarks/studies/paired_arms_statistic_per_budget.py --budgets 50 100 200 500 1000
    .venv/bin/python benchmarks/studies/paired_arms_statistic_per_budget.py --part step --runs 1000 --budgets 50 200

Scenarios: the five Bernoulli pairs of the STEP comparison, (0.3, 0.5), (0.5, 0.7), (0.4, 0.5), (0.6, 0.8),
(0.7, 0.9), on shared environments: a difficulty u ~ Normal(0, s^2) is added to both policies' logits (s = 0, 1, 2,
4: correlation 0 to about 0.6 between the two policies' outcomes; the marginal rates stay the same). The paired test
only sees the discordant pairs: they arrive at rate r = P(X != Y) and the better policy wins each with probability
q = P(Y = 1, X = 0) / r; both are computed exactly (Gauss-Hermite), so for a one-sided boundary the power within N
trials and the expected trials to the decision (undecided runs count N) are exact sums over the first-passage
distribution (no simulation). alpha = 0.05 two-sided and tie-safe (each side at 0.025, the `allow` tie mode).

Candidates, all with the paired calibration (valid for any correlation): ``mixture`` (the Beta-mixture likelihood
ratio with its power-tuned concentration, the default before) and ``bayes a`` (the fastest-decision statistic of
`certirank.evidence.budget_bayes` for a Beta(a, a) prior). Rule (`--part dp`, printed at the end): at each budget,
the candidate with the fewest expected trials averaged over the 20 scenarios among those whose power at the budget,
averaged over the scenarios, is at least the mixture's minus 0.005 (as the independent-arms target is STEP's power
minus 0.005) and, on every scenario, at least the mixture's minus 0.06 (so that the hardest scenario, independent
rollouts, where the Barnard-type test is the one to use, does not pay for the others; ties, to 0.1 trials: the
higher mean power, then the prior closest to Beta(4, 4), AnyRank's); the mixture when none is. The worst single scenario is printed too: the fastest-decision
statistic buys its speed on the easy and correlated scenarios with power on the hardest one (0.4 vs 0.5 on
independent rollouts).

``--part step`` simulates the same scenarios (``--runs`` streams each, seeded) and runs the default paired test
(`certirank.evidence.budget.make_design(N, arms="paired")`), the mixture, and STEP (`sequentialized-barnard-tests`,
CC BY-NC 4.0: installed into a throw-away virtualenv by `independent_arms_vs_step.py`'s helper and run in a
separate process, never imported) on the same streams; STEP assumes independent arms, so on correlated outcomes it
is conservative (valid, less power) — the point of the paired test.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np
from scipy import optimize, special, stats

from certirank.evidence._walk import first_passage
from certirank.evidence.budget import BudgetDesign, crossing_boundary, make_design

ALPHA = 0.05
PAIRS = [(0.3, 0.5), (0.5, 0.7), (0.4, 0.5), (0.6, 0.8), (0.7, 0.9)]
SPREADS = (0.0, 1.0, 2.0, 4.0)
PRIORS = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
NODES, WEIGHTS = np.polynomial.hermite_e.hermegauss(80)
WEIGHTS = WEIGHTS / WEIGHTS.sum()


def theta_for(rate: float, s: float) -> float:
    return optimize.brentq(lambda th: float(WEIGHTS @ special.expit(th + s * NODES)) - rate, -30, 30)


def scenario(p0: float, p1: float, s: float) -> tuple[float, float, float]:
    """(discordance rate r, win share q of the better policy, correlation of X and Y)."""
    a = special.expit(theta_for(p0, s) + s * NODES)
    b = special.expit(theta_for(p1, s) + s * NODES)
    win, loss, both = float(WEIGHTS @ (b * (1 - a))), float(WEIGHTS @ (a * (1 - b))), float(WEIGHTS @ (a * b))
    corr = (both - p0 * p1) / np.sqrt(p0 * (1 - p0) * p1 * (1 - p1))
    return win + loss, win / (win + loss), float(corr)


def exact(des: BudgetDesign, n: int, r: float, q: float) -> tuple[float, float]:
    """(power, expected trials to a decision) of the one-sided `less` side at the side level."""
    m = des.threshold(des.side_level)
    bnd = crossing_boundary(m, n, des.a, des.statistic, des.arms)
    kk = np.arange(n + 1)
    e_min = stats.binom.cdf(kk[:, None] - 1, np.arange(n)[None, :], r).sum(axis=1)  # E[min(T_k, n)]
    f = first_passage(bnd, q)
    power = float(f @ stats.binom.sf(kk - 1, n, r))
    return power, float(f @ e_min + (1.0 - f.sum()) * n)


def candidates(n: int) -> dict[str, BudgetDesign]:
    out = {"mixture": make_design(n, alpha=ALPHA, arms="paired", statistic="mixture")}
    for a in PRIORS:
        out[f"bayes {a:g}"] = BudgetDesign(n, alpha=ALPHA, arms="paired", statistic="bayes", concentration=a)
    return out


def part_dp(budgets: list[int]) -> None:
    cases = [(p0, p1, s, *scenario(p0, p1, s)) for s in SPREADS for p0, p1 in PAIRS]
    print("| N | statistic | mean power | min power - mixture (scenario) | mean trials | max trials - mixture |")
    print("|---:|---|---:|---|---:|---:|")
    choice = {}
    for n in budgets:
        res = {name: np.array([exact(des, n, r, q) for *_, r, q, _ in cases]) for name, des in candidates(n).items()}
        base = res["mixture"]
        ok = {}
        for name, v in res.items():
            dp, dt = v[:, 0] - base[:, 0], v[:, 1] - base[:, 1]
            worst = cases[int(np.argmin(dp))]
            print(f"| {n} | {name} | {v[:, 0].mean():.3f} | {dp.min():+.3f} ({worst[0]} vs {worst[1]}, s = "
                  f"{worst[2]:g}) | {v[:, 1].mean():.1f} | {dt.max():+.1f} |", flush=True)
            if v[:, 0].mean() >= base[:, 0].mean() - 0.005 and dp.min() >= -0.06:
                prior = float(name.split()[1]) if name != "mixture" else 4.0
                ok[name] = (round(v[:, 1].mean(), 1), -round(v[:, 0].mean(), 3), abs(np.log2(prior / 4.0)))
        choice[n] = min(ok, key=ok.get)
    print("\nchosen (fewest mean trials, mean power >= the mixture's - 0.005, every scenario >= the mixture's - 0.06):")
    for n, name in choice.items():
        print(f"  N = {n}: {name}")
    print("\nscenarios (p0, p1, s): r, q, corr")
    for p0, p1, s, r, q, c in cases:
        print(f"  ({p0}, {p1}, {s:g}): r = {r:.3f}, q = {q:.3f}, corr = {c:.2f}")


def part_step(budgets: list[int], runs: int, seed: int, venv: str, install: bool) -> None:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from independent_arms_vs_step import external, step_python  # the throw-away venv and the runner

    from certirank.evidence.budget import budget_batch

    python = step_python(venv, install)
    print("| N | pair | s | corr | default paired | mixture | STEP |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for n in budgets:
        default, mixture = make_design(n, alpha=ALPHA, arms="paired"), make_design(n, alpha=ALPHA, arms="paired",
                                                                                  statistic="mixture")
        for i, s in enumerate(SPREADS):
            for j, (p0, p1) in enumerate(PAIRS):
                rng = np.random.default_rng([seed, n, i, j])
                u = s * rng.standard_normal((runs, n))
                x = (rng.random((runs, n)) < special.expit(theta_for(p0, s) + u)).astype(float)
                y = (rng.random((runs, n)) < special.expit(theta_for(p1, s) + u)).astype(float)
                corr = scenario(p0, p1, s)[2]
                cells = []
                for des in (default, mixture):
                    out = budget_batch(x, y, des)
                    cells.append((np.mean(out["decision"] == 1), np.mean(np.where(out["decision"] != 0,
                                                                                  out["decided_at"], n))))
                if python is not None:
                    got = external("step", x, y, n, python)
                    if isinstance(got, str):
                        cells.append(got)
                    else:
                        dec, stop = got
                        cells.append((np.mean(dec == 1), np.mean(np.where(dec != 0, stop, n))))
                else:
                    cells.append("not installed")
                text = [c if isinstance(c, str) else f"{c[0]:.3f} ({c[1]:.1f})" for c in cells]
                print(f"| {n} | {p0} vs {p1} | {s:g} | {corr:.2f} | " + " | ".join(text) + " |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=("dp", "step"), default="dp")
    ap.add_argument("--budgets", type=int, nargs="+", default=[50, 100, 200, 500, 1000])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--step-venv", default="/tmp/stepenv")
    ap.add_argument("--no-install", action="store_true")
    args = ap.parse_args()
    if args.part == "dp":
        part_dp(args.budgets)
    else:
        part_step(args.budgets, args.runs, args.seed, args.step_venv, not args.no_install)


if __name__ == "__main__":
    main()
