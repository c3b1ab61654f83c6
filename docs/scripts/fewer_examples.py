"""The worked examples of docs/equivalence.md, docs/futility.md and docs/prediction-powered.md.

Usage::

    .venv/bin/python docs/scripts/fewer_examples.py

Every number those pages quote is printed by this script (seeded; same output on every run).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

import certirank

GSM8K = Path(__file__).resolve().parents[3] / "shared" / "data" / "llm" / "helm_lite_gsm8k.csv"


def robot_pair(seed, n, px, py):
    rng = np.random.default_rng(seed)
    return (rng.random(n) < px).astype(float), (rng.random(n) < py).astype(float)


def gsm8k_pair(a, b, seed=0):
    df = pd.read_csv(GSM8K)
    wide = df.pivot(index="item", columns="model", values="score")
    order = np.random.default_rng(seed).permutation(len(wide))  # spec 09: a seeded random order of the items
    return wide[a].to_numpy()[order], wide[b].to_numpy()[order]


def main() -> None:
    print("== equivalence ==")
    x, y = robot_pair(1, 400, 0.60, 0.62)
    r = certirank.compare(x, y, bins="binary", margin=0.1)
    print(f"robot: 400 paired rollouts, success {x.mean():.3f} vs {y.mean():.3f}, margin 0.1: {r.verdict}, "
          f"equivalent at pair {r.equivalent_at}, p_equivalent = {r.p_equivalent:.3g}")
    df = pd.read_csv(GSM8K)
    acc = df.groupby("model")["score"].mean()
    print(f"gsm8k: m14 {acc['m14']:.3f}, m62 {acc['m62']:.3f}")
    x, y = gsm8k_pair("m14", "m62")
    r = certirank.compare(x, y, bins="binary", margin=0.05)
    print(f"llm: m14 vs m62 on 1000 GSM8K items (random order, seed 0), margin 0.05: {r.verdict}, "
          f"equivalent at item {r.equivalent_at}; difference decided at {r.decided_at}; forecast {r.more_needed}")
    r = certirank.compare(x, y, bins="binary", margin=0.1)
    print(f"llm: same, margin 0.1: {r.verdict}, equivalent at item {r.equivalent_at}")

    print("== futility and how many more ==")
    x, y = robot_pair(2, 40, 0.50, 0.65)
    r = certirank.compare(x, y, bins="binary")
    print(f"robot: 40 rollouts each, {x.mean():.3f} vs {y.mean():.3f}: {r.verdict}; more_needed = {r.more_needed}")
    r = certirank.compare(x, y, bins="binary", n_max=50)
    print(f"robot with a budget of 50: {r.verdict}; p_decide = {r.forecast.p_decide:.3f}")
    r = certirank.compare(x, y, bins="binary", n_max=200)
    print(f"robot with a budget of 200: {r.verdict}; p_decide = {r.forecast.p_decide:.3f}")
    x, y = robot_pair(5, 40, 0.55, 0.57)
    r = certirank.compare(x, y, bins="binary", n_max=60)
    print(f"robot: 40 rollouts each, {x.mean():.3f} vs {y.mean():.3f}, budget 60: {r.verdict}; "
          f"p_decide = {r.forecast.p_decide:.3f}")
    print(f"gsm8k: m47 {acc['m47']:.3f}, m38 {acc['m38']:.3f}")
    x, y = gsm8k_pair("m47", "m38")
    r = certirank.compare(x[:150], y[:150], bins="binary")
    print(f"llm: m47 vs m38 after 150 items: {r.verdict}; more_needed = {r.more_needed}; "
          f"then on all 1000: {certirank.compare(x, y, bins='binary').verdict} at "
          f"{certirank.compare(x, y, bins='binary').decided_at}")

    print("== prediction-powered ==")
    rng = np.random.default_rng(3)
    n, pi = 1000, 0.2
    x, y = robot_pair(3, n, 0.50, 0.62)
    fx = np.where(rng.random(n) < 0.95, x, 1 - x)  # a simulator that agrees with the real outcome 95 % of the time
    fy = np.where(rng.random(n) < 0.95, y, 1 - y)
    lab = rng.random(n) < pi
    r = certirank.compare(np.where(lab, x, np.nan), np.where(lab, y, np.nan), proxy_x=fx, proxy_y=fy, label_rate=pi)
    real = certirank.compare(x[lab], y[lab], bins="binary")
    print(f"robot: {n} trials, {int(lab.sum())} real labels, simulator 95 % accurate: {r.verdict} ({r.decision}) at "
          f"unit {r.decided_at}, proxy weight {r.proxy_weight:.2f}; real-only on the same labels: {real.verdict}")
    x, y = gsm8k_pair("m47", "m20")
    judge = np.random.default_rng(4)
    jx = np.where(judge.random(x.size) < 0.9, x, 1 - x)  # a judge that agrees with the gold grade 90 % of the time
    jy = np.where(judge.random(y.size) < 0.9, y, 1 - y)
    lab = judge.random(x.size) < 0.1
    r = certirank.compare(np.where(lab, x, np.nan), np.where(lab, y, np.nan), proxy_x=jx, proxy_y=jy, label_rate=0.1)
    real = certirank.compare(x[lab], y[lab], bins="binary")
    print(f"llm: m47 ({acc['m47']:.3f}) vs m20 ({acc['m20']:.3f}), 1000 items, judge 90 % accurate, "
          f"{int(lab.sum())} gold labels: {r.verdict} ({r.decision}) at item {r.decided_at} "
          f"(labels used: {r.labels}); gold-only on the same labels: {real.verdict}")


if __name__ == "__main__":
    main()
