"""How many real labels does a proxy save, at equal power, with the guarantee kept? (issue 35 item 3)

Usage::

    .venv/bin/python benchmarks/studies/fewer_real_labels_with_a_proxy.py --runs 400

Setting (the issue's): n = 1,000 units (paired trials: both policies on one environment), real success
rates 0.50 (X) vs 0.62 (Y), independent Bernoulli arms, each unit labelled with probability pi = 0.2 (about
200 real labels), alpha = 0.05. The proxy copies each real outcome with probability `accuracy` and flips it
otherwise (independently per policy), for accuracy 0.70-0.99.

Methods, on the same seeded streams:
- ``proxy``: certirank's proxy-assisted test (`compare(x, y, proxy_x=, proxy_y=, label_rate=0.2)`), all 1,000
  units, ~200 real labels;
- ``real-only``: certirank's default real-only test (`compare(x, y, bins="binary")`, the calibrated
  e-process) on streams of real labelled pairs (3 x `runs` streams of up to 3,000 labels, drawn once): its
  power at the proxy runs' label count, and how many real labels it needs for the proxy's power ("labels
  for equal power"); savings = 1 - labels / that number.
- The lying proxy: policies tied at 0.5 and a 90 %-accurate proxy pushed toward X by +0.5 on X's proxy score
  (clipped to [0, 1]); any claim is an error (FWER), and with Y truly better (0.62) a claim "X>Y" is.
"""

from __future__ import annotations

import argparse
import json
import math
import time

import numpy as np
from scipy import stats

from certirank.evidence.ppi import proxy_batch
from certirank.evidence.sequential import paired_batch

ALPHA = 0.05
N, PI, PX, PY = 1000, 0.2, 0.50, 0.62
ACCURACIES = (0.70, 0.80, 0.90, 0.95, 0.99)


def draw(rng, runs, n, px, py, accuracy, pi, lie=0.0):
    x = (rng.random((runs, n)) < px).astype(float)
    y = (rng.random((runs, n)) < py).astype(float)
    fx = np.where(rng.random((runs, n)) < accuracy, x, 1 - x)
    fy = np.where(rng.random((runs, n)) < accuracy, y, 1 - y)
    fx = np.clip(fx + lie, 0.0, 1.0)
    lab = rng.random((runs, n)) < pi
    return x, y, fx, fy, lab


def real_only_power_curve(rng, runs, n_labels):
    """P(certified x<y within L labels) for L = 1..n_labels, default real-only test."""
    x = (rng.random((runs, n_labels)) < PX).astype(float)
    y = (rng.random((runs, n_labels)) < PY).astype(float)
    out = paired_batch(x, y, ALPHA, bettor="calibrated", bins="binary", target=2 / ALPHA)
    at = np.where(out.decision == 1, out.decided_at, n_labels + 1)
    return np.array([(at <= k).mean() for k in range(1, n_labels + 1)])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=400)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=str, default=None, help="write the table as JSON here")
    args = ap.parse_args()
    runs = args.runs
    ss = np.random.SeedSequence(args.seed).spawn(len(ACCURACIES) + 3)
    t0 = time.time()
    curve = real_only_power_curve(np.random.default_rng(ss[0]), runs, 3 * N)
    rows = []
    for k, acc in enumerate(ACCURACIES):
        x, y, fx, fy, lab = draw(np.random.default_rng(ss[k + 1]), runs, N, PX, PY, acc, PI)
        ppi = proxy_batch(x, y, fx, fy, lab, PI, ALPHA)
        power = float((ppi["decision"] == 1).mean())
        labels = int(round(float(lab.sum(axis=1).mean())))
        # labelled units are i.i.d. pairs: the real-only power at this many labels is read off the curve
        real_power = float(curve[labels - 1])
        need = int(np.searchsorted(curve, power) + 1) if power <= curve[-1] else None
        rows.append({"accuracy": acc, "proxy_power": power, "real_only_power_same_labels": real_power,
                     "real_labels": labels, "real_only_labels_for_equal_power": need,
                     "labels_saved": None if need is None else round(1 - labels / need, 3),
                     "wrong_direction": int((ppi["decision"] == -1).sum()),
                     "mean_proxy_weight": round(float(ppi["proxy_weight"].mean()), 3)})
    lie_rows = []
    for j, (py, name) in enumerate(((PX, "tied (0.50 vs 0.50)"), (PY, "Y better (0.50 vs 0.62)"))):
        x, y, fx, fy, lab = draw(np.random.default_rng(ss[-2 + j]), runs, N, PX, py, 0.9, PI, lie=0.5)
        out = proxy_batch(x, y, fx, fy, lab, PI, ALPHA)
        errors = int(((out["decision"] != 0) if py == PX else (out["decision"] == -1)).sum())
        hi = stats.binomtest(errors, runs).proportion_ci(0.95).high
        lie_rows.append({"truth": name, "errors": errors, "runs": runs, "error_rate": errors / runs,
                         "upper_95": round(hi, 4), "right_direction": int((out["decision"] == 1).sum())})
    print(f"n = {N} units, label rate {PI}, {PX} vs {PY}, alpha = {ALPHA}, {runs} runs per row "
          f"({time.time() - t0:.0f} s)\n")
    print("| proxy accuracy | power with proxy | real-only power, same labels | real labels | real-only labels "
          "for equal power | labels saved | mean proxy weight |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        need = "> 3000" if r["real_only_labels_for_equal_power"] is None else r["real_only_labels_for_equal_power"]
        saved = "-" if r["labels_saved"] is None else f"{r['labels_saved']:.0%}"
        print(f"| {r['accuracy']:.2f} | {r['proxy_power']:.3f} | {r['real_only_power_same_labels']:.3f} | "
              f"{r['real_labels']} | {need} | {saved} | {r['mean_proxy_weight']} |")
    print("\nLying proxy (90 % accurate, X's proxy score +0.5):\n")
    print("| truth | errors / runs | error rate | 95 % upper bound | right direction certified |")
    print("|---|---|---|---|---|")
    for r in lie_rows:
        print(f"| {r['truth']} | {r['errors']} / {r['runs']} | {r['error_rate']:.3f} | {r['upper_95']:.3f} | "
              f"{r['right_direction']} |")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"rows": rows, "lying": lie_rows, "runs": runs, "seed": args.seed}, fh, indent=1)


if __name__ == "__main__":
    main()
