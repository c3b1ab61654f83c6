"""A leaderboard of a whole single-run binary item table runs each pair of models by the exact budget test with
McNemar's share at the table's end (issue 31 item 7), routed by `certirank.methods.plan`; everything else BB-EDGE."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import certirank
from certirank.methods.plan import WHOLE_TABLE_SHARE


def _board(seed: int, models: int = 6, items: int = 300, spread: float = 0.25) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(0.0, 1.0, items)
    skill = np.linspace(-spread, spread, models) * 4
    p = 1.0 / (1.0 + np.exp(-(skill[:, None] - difficulty[None, :])))
    y = (rng.random((models, items)) < p).astype(float)
    return pd.DataFrame([(f"m{m}", f"q{i}", y[m, i]) for m in range(models) for i in range(items)],
                        columns=["model", "item", "score"])


def _mcnemar_holm(df: pd.DataFrame, alpha: float = 0.05) -> set[tuple[str, str]]:
    """Independent reference: McNemar's exact test (two-sided, scipy's binomial test) + Holm over all pairs."""
    wide = df.pivot(index="item", columns="model", values="score")
    rows = []
    for a, b in itertools.combinations(wide.columns, 2):
        wa, wb = int(((wide[a] == 1) & (wide[b] == 0)).sum()), int(((wide[a] == 0) & (wide[b] == 1)).sum())
        p = stats.binomtest(wa, wa + wb, 0.5).pvalue if wa + wb else 1.0
        rows.append((p, (a, b) if wa > wb else (b, a)))
    rows.sort(key=lambda r: r[0])
    out = set()
    for i, (p, pair) in enumerate(rows):
        if p > alpha / (len(rows) - i):
            break
        out.add(pair)
    return out


def test_bare_leaderboard_on_a_binary_item_table_runs_the_exact_budget_test_and_says_why():
    df = _board(0)
    res = certirank.leaderboard(df)
    assert res.method == "exact-budget" and res.about == "policy"
    line = [w for w in res.warnings if "exact budget test" in w]
    assert len(line) == 1
    assert "N = 300 (the pairing units in hand)" in line[0] and "Holm over 15 pairs" in line[0]
    assert f"{WHOLE_TABLE_SHARE:.0%} of each pair's level on McNemar's exact test" in line[0]
    assert res.to_dict()["inputs"]["order"] == {"kind": "random", "seed": 0}
    # every certified edge points from the higher mean to the lower one, and rank intervals follow the closure
    means = res.ranking.means
    assert res.edges and all(means[a] > means[b] for a, b in res.edges)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_it_certifies_at_least_98_percent_of_mcnemar_holm_and_nothing_mcnemar_reverses(seed):
    df = _board(seed, models=8, items=400, spread=0.15)
    ref = _mcnemar_holm(df)
    got = {tuple(e) for e in certirank.leaderboard(df).edges}
    assert len(ref) >= 5  # the board separates something, so the ratio means something
    assert len(got & ref) >= 0.98 * len(ref)
    assert not {(b, a) for a, b in got} & ref


def test_an_explicit_method_or_a_non_binary_table_keeps_bb_edge_with_its_reason():
    df = _board(3)
    assert certirank.leaderboard(df, method="bb-edge").method == "bb-edge"
    assert not [w for w in certirank.leaderboard(df, method="bb-edge").warnings if "exact budget" in w]
    tau = certirank.leaderboard(df, tau=0.05)
    assert tau.method == "bb-edge" and any("BB-EDGE (not the exact budget test of each pair) because of tau" in w
                                           for w in tau.warnings)
    frac = df.assign(score=df["score"] * 0.5 + 0.25)
    res = certirank.leaderboard(frac)
    assert res.method == "bb-edge"
    assert any(w.startswith("note: BB-EDGE: partial-progress scores") for w in res.warnings)
    runs = pd.concat([df.assign(replicate=r) for r in range(2)])
    assert certirank.leaderboard(runs).method == "bb-edge"  # two runs: the benchmark estimand


def test_level_under_ties_monte_carlo():
    """Six models of equal accuracy 0.6 (items shared, correlated within items): any certified edge is a false
    claim. 60 boards; the FWER bound is 0.05, tolerance 4 binomial SDs."""
    hits = 0
    runs = 60
    for seed in range(runs):
        rng = np.random.default_rng(100 + seed)
        ease = rng.random(120) < 0.6
        y = np.where(rng.random((6, 120)) < 0.7, ease[None, :], rng.random((6, 120)) < 0.6).astype(float)
        df = pd.DataFrame([(f"m{m}", f"q{i}", y[m, i]) for m in range(6) for i in range(120)],
                          columns=["model", "item", "score"])
        hits += bool(certirank.leaderboard(df).edges)
    assert hits / runs <= 0.05 + 4 * np.sqrt(0.05 * 0.95 / runs)


