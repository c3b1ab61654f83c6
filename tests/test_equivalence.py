"""Equivalence verdict (issue 35 item 1): numerics against a brute-force reference, level by seeded Monte Carlo."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import certirank
from certirank.errors import ParameterError
from certirank.evidence.betgrid import GRID_SIZE
from certirank.evidence.equivalence import EquivalenceTest, equivalence_batch


def _binom_upper(runs: int, p: float, tail: float = 1e-4) -> int:
    """Largest count of a Binomial(runs, p) that a valid procedure exceeds with probability < tail."""
    return int(stats.binom.isf(tail, runs, p))


def test_wealth_matches_brute_force_mixture():
    rng = np.random.default_rng(3)
    x, y = rng.random(25), rng.random(25)
    margin = 0.15
    t = EquivalenceTest(margin, alpha=0.05).update_many(x, y)
    grid = [0.98 * (g + 0.5) / GRID_SIZE for g in range(GRID_SIZE)]
    for side, pay in ((0, lambda d: d + margin), (1, lambda d: margin - d)):
        best = 0.0
        for n in range(1, 26):
            w = sum(math.prod(1 + lam * pay(y[s] - x[s]) / (1 - margin) for s in range(n)) for lam in grid) / len(grid)
            best = max(best, math.log(w))
        p = t.p_lower if side == 0 else t.p_upper
        assert p == pytest.approx(math.exp(-best), rel=1e-10)


def test_stream_and_batch_agree_bit_for_bit():
    rng = np.random.default_rng(4)
    x = (rng.random((6, 80)) < 0.5).astype(float)
    y = (rng.random((6, 80)) < 0.52).astype(float)
    out = equivalence_batch(x, y, 0.2, 0.1)
    for r in range(6):
        t = EquivalenceTest(0.2, 0.1).update_many(x[r], y[r])
        assert (t.decided_at or 0) == out["decided_at"][r]
        assert t.p_lower == out["p_lower"][r] and t.p_upper == out["p_upper"][r]


def test_equivalent_pair_is_certified_and_described():
    rng = np.random.default_rng(5)
    x = (rng.random(700) < 0.5).astype(float)
    y = (rng.random(700) < 0.5).astype(float)
    r = certirank.compare(x, y, margin=0.15)
    assert r.verdict == "equivalent" and r.equivalent_at is not None and r.decision is None
    assert "equivalent" in r.describe("A", "B") and "0.15" in r.describe("A", "B")
    d = r.to_dict()  # the record: the margin defines the run, the verdict and forecast are details
    assert d["details"]["verdict"] == "equivalent" and d["inputs"]["margin"] == 0.15 and d["details"]["forecast"] is None


def test_no_margin_means_no_equivalence():
    r = certirank.compare([0.5] * 50, [0.5] * 50)
    assert r.margin is None and r.p_equivalent is None and not r.equivalent


def test_level_at_the_margin_exactly():
    """True difference = margin: the equivalence claim is false; P(ever claimed) <= alpha/2 (its half's level)."""
    runs, n, margin, alpha = 400, 400, 0.1, 0.1
    rng = np.random.default_rng(11)
    x = (rng.random((runs, n)) < 0.45).astype(float)
    y = (rng.random((runs, n)) < 0.45 + margin).astype(float)
    claims = int((equivalence_batch(x, y, margin, alpha)["decided_at"] > 0).sum())
    assert claims <= _binom_upper(runs, alpha / 2)


def test_pair_fwer_over_all_claims_at_the_margin():
    """Difference and equivalence claims together: a wrong direction or a false equivalence, <= alpha."""
    from certirank.evidence.sequential import paired_batch

    runs, n, margin, alpha = 300, 300, 0.1, 0.1
    rng = np.random.default_rng(12)
    x = (rng.random((runs, n)) < 0.5).astype(float)
    y = (rng.random((runs, n)) < 0.5 + margin).astype(float)
    wrong_dir = paired_batch(x, y, alpha, bettor="calibrated", bins="binary", target=2 / alpha).decision == -1
    false_eq = equivalence_batch(x, y, margin, alpha)["decided_at"] > 0
    assert int((wrong_dir | false_eq).sum()) <= _binom_upper(runs, alpha)


def test_power_under_a_tie():
    """Exactly tied binary policies, margin 0.1: most runs certify equivalence within 1,500 pairs."""
    runs, n = 60, 1500
    rng = np.random.default_rng(13)
    x = (rng.random((runs, n)) < 0.5).astype(float)
    y = (rng.random((runs, n)) < 0.5).astype(float)
    got = (equivalence_batch(x, y, 0.1, 0.05)["decided_at"] > 0).mean()
    assert got >= 0.8


@pytest.mark.parametrize("bad", [0, 1, -0.1, 1.5, float("nan"), "a", True])
def test_bad_margin_is_one_line(bad):
    with pytest.raises(ParameterError, match="margin") as e:
        certirank.compare([0.1, 0.2], [0.3, 0.4], margin=bad)
    assert "\n" not in str(e.value)


def test_margin_needs_ties_allow():
    with pytest.raises(ParameterError, match="ties='allow'"):
        certirank.compare([0.1, 0.2], [0.3, 0.4], margin=0.1, ties="assume_none")


def _table(rng, n, means):
    import pandas as pd

    return pd.DataFrame({name: (rng.random(n) < m).astype(float) for name, m in means.items()})


def test_ranking_shows_equivalent_pairs_as_such():
    rng = np.random.default_rng(0)
    # the rows as drawn (order="given"; any order fixed before the data is valid, this one decides the pair)
    r = certirank.anyrank(_table(rng, 400, {"A": 0.5, "B": 0.5, "C": 0.8}), 0.05, bins="binary", margin=0.15,
                          order="given")
    assert [sorted(p) for p in r.equivalent] == [["A", "B"]] and r.undecided == [] and r.margin == 0.15
    assert any("equivalent" in s for s in r.sentences())
    d = r.undecided_details[0]
    assert d["verdict"] == "equivalent" and d["p_equivalent"] <= d["level"]


def test_ranking_forecast_for_open_pairs():
    rng = np.random.default_rng(1)
    table = _table(rng, 60, {"A": 0.5, "B": 0.6, "C": 0.9})
    r = certirank.anyrank(table, 0.05, bins="binary", budget="none")  # the anytime e-process: no budget
    for d in r.undecided_details:
        assert d["verdict"] in ("undecided", "futile") and "forecast" in d
    assert any("forecast" in s for s in r.sentences() if "undecided" in s)
    # by default the rows in hand are the budget (spec 09 §6): a pair still open at the end of the table is futile
    d = certirank.anyrank(table, 0.05).undecided_details
    assert d and all(x["verdict"] == "futile" and x["budget_exhausted"] for x in d)


def _ranking_errors(runs, alpha, margin):
    """Bonferroni (no recycling): a pair exactly at the margin and a tied pair; any false claim (a direction
    against the truth, an order on the tie, or equivalence at the margin) counts."""
    errors = 0
    for run in range(runs):
        rng = np.random.default_rng(100 + run)
        tab = _table(rng, 300, {"A": 0.5, "B": 0.6, "C": 0.5})
        r = certirank.anyrank(tab, alpha, method="bonferroni", bins="binary", margin=margin)
        wrong = {("A", "B"), ("C", "B"), ("A", "C"), ("C", "A")}
        bad_eq = [p for p in r.equivalent if set(p) in ({"A", "B"}, {"B", "C"})]
        errors += bool(bad_eq or any(pair in wrong for pair in r.better_pairs()))
    return errors


def test_ranking_fwer_over_difference_and_equivalence_claims_bonferroni():
    runs, alpha = 15, 0.1
    assert _ranking_errors(runs, alpha, 0.1) <= _binom_upper(runs, alpha)


@pytest.mark.slow
def test_ranking_fwer_over_difference_and_equivalence_claims_bonferroni_many():
    runs, alpha = 300, 0.1
    assert _ranking_errors(runs, alpha, 0.1) <= _binom_upper(runs, alpha)


def test_ranking_margin_refusals():
    rng = np.random.default_rng(2)
    tab = _table(rng, 20, {"A": 0.5, "B": 0.5})
    with pytest.raises(ParameterError, match="margin"):
        certirank.anyrank(tab, bins="binary", margin=0.0)
    with pytest.raises(ParameterError, match="guarantee='paper'"):
        certirank.anyrank(tab, bins="binary", margin=0.1, guarantee="strict")


def _board(rng, n_items, shifts, reps=3):
    import pandas as pd

    p = rng.uniform(0.2, 0.7, n_items)
    rows = []
    for r in range(reps):
        for m, shift in shifts.items():
            s = (rng.random(n_items) < np.clip(p + shift, 0, 1)).astype(float)
            rows += [(m, i, r, s[i]) for i in range(n_items)]
    return pd.DataFrame(rows, columns=["model", "item", "replicate", "score"])


def test_leaderboard_equivalence():
    rng = np.random.default_rng(0)
    res = certirank.leaderboard(_board(rng, 400, {"A": 0.0, "B": 0.0, "C": 0.3}), 0.05, margin=0.1)
    assert res.equivalent == [["A", "B"]] and ["C", "A"] in res.edges and res.alpha == 0.05
    assert any("split in half" in n for n in res.ranking.notes)
    assert res.to_dict()["details"]["equivalent"] == [["A", "B"]]  # the record: equivalent pairs are details


def test_leaderboard_equivalence_level_at_the_margin():
    """B is better than A by exactly the margin (on every item): P(A, B certified equivalent) <= alpha/2."""
    runs, alpha, margin = 30, 0.2, 0.1
    false = 0
    for run in range(runs):
        rng = np.random.default_rng(run)
        res = certirank.leaderboard(_board(rng, 200, {"A": 0.0, "B": margin}, reps=2), alpha, margin=margin)
        false += bool(res.equivalent)
    assert false <= _binom_upper(runs, alpha / 2)


def test_leaderboard_margin_refusals():
    rng = np.random.default_rng(1)
    df = _board(rng, 20, {"A": 0.0, "B": 0.0}, reps=1)
    with pytest.raises(ParameterError, match="margin"):
        certirank.leaderboard(df, margin=1.0)
    with pytest.raises(ParameterError, match="top_k"):
        certirank.leaderboard(df, margin=0.1, top_k=1)
