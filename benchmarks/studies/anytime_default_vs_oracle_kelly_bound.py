"""How close can the anytime (no-budget) default get to oracle Kelly, and how close is it? (issue 31 item 5)

Usage::

    .venv/bin/python benchmarks/studies/anytime_default_vs_oracle_kelly_bound.py                 # parts 1 and 2
    .venv/bin/python benchmarks/studies/anytime_default_vs_oracle_kelly_bound.py --part mc --runs 1000

Parts 1 and 2 are exact (dynamic programming over discordant pairs k and wins s); part 3 (``mc``) is seeded
Monte Carlo.

1. **The default against the previous prior**, per Bernoulli pair p = 1/2 -/+ gap/2 (the pairs of
   `evidence_vs_oracle_kelly.py`) and on a grid of q = P(challenger wins | discordant pair): the mean mirrored
   decision time of the `calibrated` bettor in the default `allow` mode, divided by the oracle-Kelly time
   log(2/alpha) / g* (`mixture.decision_time_dp`; the discordance rate cancels). Undecided paths are counted at
   the DP's horizon, so a cell with survival > 1e-6 (marked ">") is a lower bound.
2. **A lower bound for every valid test**: `oracle.kelly_ratio_lower_bound` (Lagrange duality and backward
   induction) bounds sum_j w_j ratio_j from below over *every* stopping rule that claims a side with probability
   <= alpha/2 under an exact tie, hence max_j ratio_j too. The best multiplier is found by golden-section search,
   the weights on a small grid.
3. **The partial-credit scenarios of `evidence_vs_oracle_kelly.py`** (binomial, 0/1-heavy progress mixes; its
   Bernoulli pairs are exact in part 1), Monte Carlo on the same streams: `compare`'s default bettor with the default prior and with the
   previous one (patched into `certirank.evidence.mixture` for the run; the bettor switches to N-SCORE at the
   first partial score, so the prior only acts while every score so far is 0 or 1).
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os

import numpy as np

from certirank.evidence import mixture
from certirank.evidence.oracle import kelly_ratio_lower_bound

ALPHA = 0.05
TARGET = 2 / ALPHA
GAPS = (0.05, 0.1, 0.2, 0.3, 0.4)
QS = (0.52, 0.53, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.97)


def previous_prior() -> tuple:
    """The default prior before issue 31 item 5 (session 5): 85 % delta^(-1/2) on [0.04, 0.49] (32 points), 10 %
    log-uniform on [0.01, 0.04] (16 points), 5 % uniform."""
    q = 0.5 + np.concatenate([mixture._grid(0.04, 0.49, 0.5, 32), mixture._grid(0.01, 0.04, 1.0, 16)])
    logw = np.concatenate([np.full(32, math.log(0.85 / 32)), np.full(16, math.log(0.10 / 16))])
    return q, logw, 0.05


def q_of_gap(gap: float) -> float:
    p0, p1 = 0.5 - gap / 2, 0.5 + gap / 2
    up, down = p1 * (1 - p0), p0 * (1 - p1)
    return up / (up + down)


def kl_half(q: float) -> float:
    return q * math.log(2 * q) + (1 - q) * math.log(2 * (1 - q))


def ratio(q: float, prior: tuple | None) -> str:
    oracle = math.log(TARGET) / kl_half(q)
    k_max = int(min(20_000, max(2_000, 12 * oracle)))
    r = mixture.decision_time_dp(q, target=TARGET, k_max=k_max, prior=prior)
    return (">" if r["p_undecided"] > 1e-6 else "") + f"{r['mean_pairs'] / oracle:.3f}"


def best_bound(qs: list[float], weights: list[float]) -> tuple[float, float]:
    """max over mu of the dual bound (golden-section search on log mu)."""
    f = lambda lm: kelly_ratio_lower_bound(qs, weights, math.exp(lm), alpha=ALPHA)  # noqa: E731
    a, b = math.log(1.0), math.log(1e4)
    g = (math.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(40):
        if fc > fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = f(d)
    return (fc, math.exp(c)) if fc > fd else (fd, math.exp(d))


def monte_carlo(runs: int, seed: int) -> None:
    from certirank.evidence import paired_batch
    from certirank.evidence.oracle import oracle_kelly_independent

    spec = importlib.util.spec_from_file_location(
        "evk", os.path.join(os.path.dirname(os.path.abspath(__file__)), "evidence_vs_oracle_kelly.py"))
    evk = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(evk)
    print(f"\n#### Monte Carlo, {runs} runs per scenario (seed {seed}): mean mirrored decision time / log(2/alpha)/g*\n")
    print("| scenario | default | previous prior | difference (paired se) |")
    print("|---|---:|---:|---:|")
    saved = (mixture.PRIOR, dict(mixture._SOLVED_LOG_C), dict(mixture._FIRST_STAKE))
    for (name, kind, support, px, py), child in zip(evk.scenarios(), np.random.SeedSequence(seed).spawn(99)):
        if kind == "binary":
            continue
        orc = oracle_kelly_independent(support, px, support, py)
        t2 = math.log(TARGET) / orc.growth
        horizon = int(math.ceil(12 * t2))
        rng = np.random.default_rng(child)
        x = rng.choice(support, size=(runs, horizon), p=px)
        y = rng.choice(support, size=(runs, horizon), p=py)
        times = []
        for prior in (None, previous_prior()):
            mixture.calibration.cache_clear()
            if prior is not None:
                # the constants kept for the default prior do not hold for another one
                mixture.PRIOR, mixture._SOLVED_LOG_C, mixture._FIRST_STAKE = prior, {}, {}
            try:
                r = paired_batch(x, y, ALPHA, bettor="calibrated")
            finally:
                mixture.PRIOR, mixture._SOLVED_LOG_C, mixture._FIRST_STAKE = saved[0], dict(saved[1]), dict(saved[2])
                mixture.calibration.cache_clear()
            times.append(np.where(r.decision == 1, r.decided_at, horizon) / t2)
        d = times[0] - times[1]
        print(f"| {name} | {times[0].mean():.3f} | {times[1].mean():.3f} | {d.mean():+.3f} ({d.std(ddof=1) / math.sqrt(runs):.3f}) |",
              flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=["exact", "mc"], default="exact")
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=2031)
    args = ap.parse_args()
    if args.part == "mc":
        monte_carlo(args.runs, args.seed)
        return
    prev = previous_prior()
    print(f"#### Exact mirrored decision time / oracle-Kelly time log(2/alpha)/g*, `allow`, alpha = {ALPHA}\n")
    print("| Bernoulli pair | gap | q | default | previous prior (session 5) |")
    print("|---|---:|---:|---:|---:|")
    for gap in GAPS:
        q = q_of_gap(gap)
        print(f"| {0.5 - gap / 2:g} vs {0.5 + gap / 2:g} | {gap:g} | {q:.3f} | {ratio(q, None)} | {ratio(q, prev)} |",
              flush=True)
    print("\n| q | " + " | ".join(f"{q:g}" for q in QS) + " |")
    print("|---|" + "---:|" * len(QS))
    for name, prior in (("default", None), ("previous prior", prev)):
        print(f"| {name} | " + " | ".join(ratio(q, prior) for q in QS) + " |", flush=True)

    print("\n#### Lower bound on max_j ratio_j over every test valid at an exact tie (alpha/2 per side)\n")
    print("| scenarios (gaps) | weights | bound | multiplier |")
    print("|---|---|---:|---:|")
    for gaps, grid in (((0.1, 0.3), [(0.5, 0.5), (0.45, 0.55), (0.55, 0.45)]),
                       ((0.1, 0.2, 0.3), [(0.5, 0.0, 0.5), (0.47, 0.03, 0.5), (0.4, 0.2, 0.4)])):
        qs = [q_of_gap(g) for g in gaps]
        for w in grid:
            lb, mu = best_bound(qs, list(w))
            print(f"| {', '.join(f'{g:g}' for g in gaps)} | {', '.join(f'{x:g}' for x in w)} | {lb:.4f} | {mu:.2f} |",
                  flush=True)


if __name__ == "__main__":
    main()
