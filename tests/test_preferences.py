"""Certified preference graph (certirank.methods.preferences): validity by Monte Carlo, cycles, real data."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from certirank.methods.preferences import preference_graph
from _records import decisions


def battles(strength: dict[tuple[str, str], float], n: int, rng: np.random.Generator, draw: float = 0.2) -> pd.DataFrame:
    """n battles between random pairs; P(first wins | not a draw) = strength[pair]."""
    pairs = list(strength)
    k = rng.integers(0, len(pairs), n)
    rows = []
    for t in range(n):
        a, b = pairs[k[t]]
        u = rng.random()
        pref = 0.5 if u < draw else (0.0 if rng.random() < strength[(a, b)] else 1.0)
        if rng.random() < 0.5:  # either side may be named first
            a, b, pref = b, a, 1.0 - pref
        rows.append((a, b, pref))
    return pd.DataFrame(rows, columns=["policy_a", "policy_b", "preference"])


def test_fwer_all_coins(tmp_path):
    """Every pair an exact 50/50 coin (with draws): P(any certified edge) <= alpha within 3 sigma."""
    rng = np.random.default_rng(2026)
    names = [f"p{i}" for i in range(6)]
    strength = {(a, b): 0.5 for i, a in enumerate(names) for b in names[i + 1:]}
    alpha, reps = 0.2, 100
    errors = sum(bool(preference_graph(battles(strength, 300, rng), alpha).ranking.relations) for _ in range(reps))
    bound = alpha + 3 * math.sqrt(alpha * (1 - alpha) / reps)
    assert errors / reps <= bound, (errors, reps)


def test_power_and_decided_at_is_anytime():
    rng = np.random.default_rng(7)
    strength = {("good", "bad"): 0.9, ("good", "mid"): 0.5, ("mid", "bad"): 0.5}
    tab = battles(strength, 400, rng)
    assert preference_graph(tab, 0.05).ranking.better("good", "bad")  # the default: a seeded random order
    # decided_at counts battles in the order read; in file order (order="given") that is the table's prefix
    res = preference_graph(tab, 0.05, order="given")
    edge = next(e for e in decisions(res) if e["better"] == "good" and e["worse"] == "bad")
    t = edge["decided_at"]
    assert preference_graph(tab.iloc[:t], 0.05, order="given").ranking.relations  # certified with the battles up to then
    before = preference_graph(tab.iloc[:t - 1], 0.05, order="given")
    assert not any(e["better"] == "good" and e["worse"] == "bad" for e in decisions(before))
    pair = next(p for p in res.pairs if {p["a"], p["b"]} == {"good", "bad"})
    assert pair["wins_a"] + pair["wins_b"] + pair["draws"] == pair["battles"]
    bonf = preference_graph(tab, 0.05, procedure="bonferroni", order="given")
    assert {(e["better"], e["worse"]) for e in decisions(bonf)} <= {(e["better"], e["worse"]) for e in decisions(res)}


def test_cycle_shown_not_closed():
    rng = np.random.default_rng(11)
    strength = {("rock", "scissors"): 0.95, ("scissors", "paper"): 0.95, ("paper", "rock"): 0.95}
    res = preference_graph(battles(strength, 600, rng, draw=0.0), 0.05)
    got = {(e["better"], e["worse"]) for e in decisions(res)}
    assert got == {("rock", "scissors"), ("scissors", "paper"), ("paper", "rock")}
    assert [sorted(c) for c in res.cycles] == [["paper", "rock", "scissors"]]


