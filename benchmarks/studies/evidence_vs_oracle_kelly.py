"""Benchmarks for certirank.evidence: efficiency against oracle Kelly, and batch throughput.

Usage::

    .venv/bin/python benchmarks/studies/evidence_vs_oracle_kelly.py                # both parts (a few minutes)
    .venv/bin/python benchmarks/studies/evidence_vs_oracle_kelly.py --part speed   # throughput only
    .venv/bin/python benchmarks/studies/evidence_vs_oracle_kelly.py --part efficiency --runs 200

Efficiency (spec 01 §7): for each alternative, each bettor's mean rejection time divided by the oracle
Kelly time. Two views are reported:

* one-sided test of `less` at level alpha vs log(1/alpha)/g* (the issue's yardstick);
* the mirrored comparison in the default `allow` mode (each side at alpha/2) vs log(2/alpha)/g*.

Runs that have not rejected by the horizon (12 x the oracle time) are counted at the horizon (so the
ratio is then a lower bound) and the fraction is shown.

Throughput: stream-updates per second of `paired_batch` with 10^4 parallel streams (wall clock and CPU
time of this process; the machine may be shared).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from certirank.evidence import paired_batch
from certirank.evidence.oracle import oracle_kelly_independent

ALPHA = 0.05
# calibrated = compare's default since session 4 (N-SCORE from the first partial score on)
BETTORS = [("calibrated", "progress"), ("nscore", "progress"), ("nscore", "binary"), ("bernoulli_kelly", "binary"),
           ("agrapa", None), ("ons", None), ("prpl_eb", None), ("hoeffding", None)]
DEFAULT = ("nscore", "progress")
LEVELS = np.arange(11) / 10


def _binomial_bins(p: float) -> np.ndarray:
    from scipy.stats import binom

    return binom.pmf(np.arange(11), 10, p)


def _progress_mix(shift: float) -> np.ndarray:
    """A robot-progress-like law: mass at 0 (failure) and 1 (success) plus a spread of partial progress."""
    w = np.full(11, 0.04)
    w[0] = 0.30 - shift
    w[10] = 0.25 + shift
    return w / w.sum()


def scenarios() -> list[tuple[str, str, np.ndarray, np.ndarray, np.ndarray]]:
    """(name, kind, support, P_x, P_y): independent arms on a common support."""
    out = []
    for gap in (0.05, 0.1, 0.2, 0.3, 0.4):
        p0, p1 = 0.5 - gap / 2, 0.5 + gap / 2
        out.append((f"Bernoulli {p0:.3g} vs {p1:.3g} (gap {gap:g})", "binary", np.array([0.0, 1.0]),
                    np.array([1 - p0, p0]), np.array([1 - p1, p1])))
    for a, b in ((0.45, 0.55), (0.4, 0.6), (0.35, 0.65)):
        out.append((f"Binomial(10,{a:g})/10 vs Binomial(10,{b:g})/10 (gap {b - a:.2g})", "progress", LEVELS,
                    _binomial_bins(a), _binomial_bins(b)))
    for s in (0.05, 0.1):
        px, py = _progress_mix(-s), _progress_mix(s)
        gap = float(LEVELS @ py - LEVELS @ px)
        out.append((f"progress mix, 0/1-heavy (gap {gap:.2g})", "progress", LEVELS, px, py))
    return out


def efficiency(runs: int, seed: int) -> None:
    rows = []
    ss = np.random.SeedSequence(seed)
    for (name, kind, support, px, py), child in zip(scenarios(), ss.spawn(len(scenarios()))):
        orc = oracle_kelly_independent(support, px, support, py)
        gap = float(support @ py - support @ px)
        t1 = math.log(1 / ALPHA) / orc.growth
        t2 = math.log(2 / ALPHA) / orc.growth
        horizon = int(math.ceil(12 * t2))
        rng = np.random.default_rng(child)
        x = rng.choice(support, size=(runs, horizon), p=px)
        y = rng.choice(support, size=(runs, horizon), p=py)
        res_row = {}
        # the oracle itself, run: constant stake lambda* (known distributions), same data. Its ratio to the
        # Wald time shows the overshoot that no bettor can avoid.
        logw = np.cumsum(np.log1p(orc.lam * (y - x)), axis=1)
        hit1 = logw >= math.log(1 / ALPHA)
        hit2 = logw >= math.log(2 / ALPHA)
        o1 = np.where(hit1.any(axis=1), hit1.argmax(axis=1) + 1, horizon)
        o2 = np.where(hit2.any(axis=1), hit2.argmax(axis=1) + 1, horizon)
        res_row[("oracle", None)] = (o1.mean() / t1, 0.0, o2.mean() / t2, 0.0, 0.0)
        for bettor, bins in BETTORS:
            if kind != "binary" and (bettor == "bernoulli_kelly" or bins == "binary"):
                continue
            r = paired_batch(x, y, ALPHA, bettor=bettor, ties="allow", **({"bins": bins} if bins else {}))
            one = r.crossed_at[:, 0]
            two = np.where(r.decision == 1, r.decided_at, 0)
            res_row[(bettor, bins)] = (np.mean(np.where(one > 0, one, horizon)) / t1, np.mean(one == 0),
                                       np.mean(np.where(two > 0, two, horizon)) / t2, np.mean(two == 0),
                                       np.mean(r.decision == -1))
        rows.append((name, gap, t1, t2, res_row))
        print(f"done: {name}", flush=True)

    keys = [("oracle", None)] + BETTORS
    labels = ["oracle λ* (run)"] + [f"{b}" + (f" ({bins})" if b in ("nscore", "calibrated") else "")
                                   for b, bins in BETTORS]
    for view, idx, cidx, tname in (("one-sided `less` at alpha vs log(1/alpha)/g*", 0, 1, "T1"),
                                   ("mirrored `allow` (default) vs log(2/alpha)/g*", 2, 3, "T2")):
        print(f"\n### Mean rejection time / oracle-Kelly time — {view} (alpha = {ALPHA}, {runs} runs)\n")
        print(f"| scenario | oracle {tname} | " + " | ".join(labels) + " | best |")
        print("|---|---:|" + "---:|" * len(labels) + "---|")
        # default bettor = nscore with progress bins
        for name, gap, t1, t2, res in rows:
            cells = []
            best = min((k for k in res if k[0] != "oracle"), key=lambda k: res[k][idx])
            for key in keys:
                if key not in res:
                    cells.append("—")
                    continue
                ratio, cens = res[key][idx], res[key][cidx]
                txt = f"{ratio:.2f}" + (f" ({cens:.0%} cens.)" if cens > 0 else "")
                cells.append(f"**{txt}**" if key == best else txt)
            best_label = best[0] + (f" ({best[1]})" if best[0] == "nscore" else "")
            print(f"| {name} | {(t1 if idx == 0 else t2):.0f} | " + " | ".join(cells) + f" | {best_label} |")
    wrong = max(v[4] for _, _, _, _, res in rows for v in res.values())
    print(f"\nlargest fraction of runs with a wrong-direction decision: {wrong:.3f}")


def speed(streams: int, horizon: int) -> None:
    rng = np.random.default_rng(0)
    xb = (rng.random((streams, horizon)) < 0.45).astype(float)
    yb = (rng.random((streams, horizon)) < 0.55).astype(float)
    xp = rng.integers(0, 11, (streams, horizon)) / 10
    yp = rng.integers(0, 11, (streams, horizon)) / 10
    print(f"\n### Batch throughput, {streams} parallel streams x {horizon} steps (mirrored, both directions)\n")
    print("| bettor | data | stream-updates/s (wall) | stream-updates/s (CPU) |")
    print("|---|---|---:|---:|")
    for bettor, bins in BETTORS:
        binary = bettor == "bernoulli_kelly" or bins == "binary"
        x, y = (xb, yb) if binary else (xp, yp)
        h = horizon if bettor != "nscore" else max(horizon // 5, 20)
        w0, c0 = time.perf_counter(), time.process_time()
        paired_batch(x[:, :h], y[:, :h], ALPHA, bettor=bettor, **({"bins": bins} if bins else {}))
        w1, c1 = time.perf_counter(), time.process_time()
        n = streams * h
        label = bettor + (f" ({bins} bins)" if bettor in ("nscore", "calibrated") else "")
        print(f"| {label} | {'binary' if binary else '11-level'} | {n / (w1 - w0):.3g} | {n / (c1 - c0):.3g} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=["all", "efficiency", "speed"], default="all")
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--streams", type=int, default=10_000)
    ap.add_argument("--horizon", type=int, default=1000)
    args = ap.parse_args()
    if args.part in ("all", "speed"):
        speed(args.streams, args.horizon)
    if args.part in ("all", "efficiency"):
        efficiency(args.runs, args.seed)


if __name__ == "__main__":
    main()
