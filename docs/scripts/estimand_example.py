"""The numbers of docs/estimand.md: a file sorted by difficulty read in file order vs the default random order,
the order-averaged answer, the table estimand on 7/50 vs 6/50, and the real HELM GSM8K table.

    .venv/bin/python docs/scripts/estimand_example.py [N] [--no-helm]   # a few minutes on one core
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np
import pandas as pd

import certirank
from certirank.data.table import to_wide

ROOT = Path(__file__).resolve().parents[2]
GSM8K = ROOT.parent / "shared" / "data" / "llm" / "helm_lite_gsm8k.csv"


def difficulty_table() -> pd.DataFrame:
    """50 items sorted by difficulty: B solves the 10 easiest, A the next 15 (means 0.30 vs 0.20)."""
    a, b = np.zeros(50), np.zeros(50)
    b[:10] = 1.0
    a[10:25] = 1.0
    return pd.DataFrame({"A": a, "B": b})


def sorted_file(seeds: int) -> None:
    t = difficulty_table()
    print(f"## sorted file: 50 items, A {t.A.mean():.2f} vs B {t.B.mean():.2f} over the whole file")
    given = certirank.check(t, ["A>B"], order="given")
    c = given.claims[0]
    print(f"check --order file: {c['status']} (p = {c['pvalue']:.2g}), exit {given.exit_code}")
    for w in given.warnings:
        print(f"  {w}")
    default = certirank.check(t, ["A>B"])
    c = default.claims[0]
    print(f"check (default, seed 0): {c['status']} (p = {c['pvalue']:.2g}), exit {default.exit_code}")
    x, y = t["A"].to_numpy(), t["B"].to_numpy()
    res = [certirank.compare(x, y, seed=s).decision for s in range(seeds)]
    print(f"compare over seeds 0..{seeds - 1}: B > A certified {res.count('x<y')} times, A > B {res.count('x>y')} "
          f"times, undecided {res.count(None)}")
    avg = certirank.compare(x, y, orders=20)
    print(f"compare --orders 20: decision {avg.decision}, p = {avg.pvalue:.3g} ({avg.test})")


def sorted_equal(tables: int) -> None:
    """Two equal policies (Bernoulli 0.5), 200 rows sorted so that A's successes come first (spec 09 §8)."""
    print(f"## sorted tables of two equal policies, {tables} tables, alpha = 0.05")
    rng = np.random.default_rng(90)
    counts = {"file order": 0, "seed 0 for every table": 0, "seed k for table k": 0}
    for k in range(tables):
        a = (rng.random(200) < 0.5).astype(float)
        b = (rng.random(200) < 0.5).astype(float)
        rows = np.argsort(-a, kind="stable")
        a, b = a[rows], b[rows]
        counts["file order"] += certirank.compare(a, b, bins="binary", order="given").decision is not None
        counts["seed 0 for every table"] += certirank.compare(a, b, bins="binary").decision is not None
        counts["seed k for table k"] += certirank.compare(a, b, bins="binary", seed=k).decision is not None
    for what, n in counts.items():
        print(f"{what}: a difference certified on {n} of {tables} tables")


def seven_of_fifty() -> None:
    a, b = np.zeros(50), np.zeros(50)
    a[:7], b[:6] = 1.0, 1.0
    t = pd.DataFrame({"A": a, "B": b})
    print("## 7/50 vs 6/50")
    pol = certirank.anyrank(t)
    print(f"rank (about policy): relations {[(r.better, r.worse) for r in pol.ranking.relations]}")
    tab = certirank.anyrank(t, about="table")
    print(f"rank --about table: relations {[(r.better, r.worse) for r in tab.ranking.relations]}")
    print(f"  {tab.ranking.guarantee}")


def helm_gsm8k() -> None:
    if not GSM8K.exists():
        print(f"## HELM GSM8K: {GSM8K} not found, skipped")
        return
    wide = to_wide(certirank.load(GSM8K))
    print(f"## HELM GSM8K ({wide.shape[1]} models x {wide.shape[0]} items), every pair with different means")
    from certirank.data.order import order_check
    lines = order_check(wide)
    print(f"order check in file order: {len(lines)} of {wide.shape[1]} models trend with row position")
    means = wide.mean()
    counts = {"given": [0, 0], "random": [0, 0]}
    pairs = 0
    for a, b in itertools.combinations(wide.columns, 2):
        if means[a] == means[b]:
            continue
        pairs += 1
        x, y = wide[a].to_numpy(), wide[b].to_numpy()
        truth = "x>y" if means[a] > means[b] else "x<y"
        for kind in counts:
            d = certirank.compare(x, y, order=kind).decision
            if d is not None:
                counts[kind][0] += 1
                counts[kind][1] += d != truth
    for kind, (decided, against) in counts.items():
        print(f"order {kind}: {decided} of {pairs} pairs certified, {against} of them against the full-file means")


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    sorted_file(n)
    sorted_equal(n)
    seven_of_fifty()
    if "--no-helm" not in sys.argv:
        helm_gsm8k()
