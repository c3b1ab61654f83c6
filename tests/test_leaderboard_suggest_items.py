"""`Leaderboard.suggest_items` / `LeaderboardResult.suggest_items` (issue 35 item 4): items drawn with known
probabilities toward the undecided pairs, returned as data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import certirank
from certirank.errors import ParameterError, StateError
from certirank.methods.bbedge.adaptive import EXPLORE, PRIOR_WEIGHT


def _tied_board(replicates: int = 2) -> certirank.Leaderboard:
    """A and B tie on average but disagree on items 0-19 (A solves 0-9, B 10-19); both fail items 20-39."""
    a = np.zeros(40)
    a[:10] = 1.0
    b = np.zeros(40)
    b[10:20] = 1.0
    lb = certirank.Leaderboard(["A", "B"], items=[f"q{i}" for i in range(40)])
    for _ in range(replicates):
        lb.add_replicate(np.stack([a, b]))
    return lb


def _reference_q(rates_a: np.ndarray, rates_b: np.ndarray) -> np.ndarray:
    """The draw probabilities written out by hand (docs/adaptive-items.md)."""
    d = np.sqrt(rates_a * (1 - rates_b) + rates_b * (1 - rates_a))
    return (1 - EXPLORE) * d / d.sum() + EXPLORE / d.size


def test_probabilities_follow_the_undecided_pairs_disagreement():
    lb = _tied_board(2)
    assert lb.result().ranking.undecided == (("A", "B"),) or lb.result().ranking.undecided == (("B", "A"),)
    s = lb.suggest_items(400, seed=1)
    shrunk = lambda x: (2 * x + PRIOR_WEIGHT / 2) / (2 + PRIOR_WEIGHT)  # noqa: E731
    a = np.r_[np.ones(10), np.zeros(30)]
    b = np.r_[np.zeros(10), np.ones(10), np.zeros(20)]
    q = _reference_q(shrunk(a), shrunk(b))
    for e in s.items:
        i = int(e["item"][1:])
        assert e["probability"] == pytest.approx(q[i], rel=1e-12)
        assert e["weight"] == pytest.approx(1 / (40 * q[i]), rel=1e-12)
        # items 0-19 are where the pair can move; both models fail items 20-39
        assert (sorted(map(sorted, e["pairs"])) == [["A", "B"]]) == (i < 20)
    informative = sum(int(e["item"][1:]) < 20 for e in s.items)
    share = q[:20].sum()
    assert share > 0.7
    # binomial tolerance: 4 standard deviations of 400 draws
    assert abs(informative - 400 * share) < 4 * np.sqrt(400 * share * (1 - share))
    assert s.models == ["A", "B"] and s.n_items == 40 and s.k == 400


def test_same_seed_same_items_and_another_seed_other_items():
    lb = _tied_board(1)
    one, two = lb.suggest_items(20, seed=5).to_dict(), lb.suggest_items(20, seed=5).to_dict()
    assert one == two
    assert [e["item"] for e in lb.suggest_items(20, seed=6).items] != [e["item"] for e in one["items"]]
    assert lb.suggest_items(20, seed=5).to_dict() == lb.result().suggest_items(20, seed=5).to_dict()


def test_decided_boards_draw_uniformly():
    lb = certirank.Leaderboard(["A", "B"], items=[f"q{i}" for i in range(30)])
    for _ in range(8):
        lb.add_replicate(np.stack([np.ones(30), np.zeros(30)]))
    assert lb.result().edges == [["A", "B"]]
    s = lb.suggest_items(5, seed=0)
    assert s.undecided == [] and s.models == []
    assert all(e["probability"] == pytest.approx(1 / 30) and e["pairs"] == [] for e in s.items)


def test_a_board_with_items_and_no_runs_yet_draws_uniformly():
    lb = certirank.Leaderboard(["A", "B", "C"], items=["x", "y", "z", "w"])
    s = lb.suggest_items(3, seed=0)
    assert len(s.undecided) == 3 and all(e["probability"] == pytest.approx(0.25) for e in s.items)


def test_the_leaderboard_of_a_table_suggests_from_its_item_means():
    """Both routes of `certirank.leaderboard`: BB-EDGE on runs and the exact budget test on one binary run."""
    rng = np.random.default_rng(3)
    rows = [(m, f"i{i}", r, float(rng.random() < p)) for r in range(3) for i in range(50)
            for m, p in (("x", 0.5), ("y", 0.5), ("z", 0.95))]
    runs = pd.DataFrame(rows, columns=["model", "item", "replicate", "score"])
    for table in (runs, runs[runs["replicate"] == 0].drop(columns="replicate")):
        res = certirank.leaderboard(table)
        s = res.suggest_items(10, seed=2)
        assert {tuple(sorted(p)) for p in s.undecided} == {tuple(sorted(p)) for p in res.ranking.undecided}
        assert s.n_items == 50 and all(e["item"].startswith("i") for e in s.items)
        assert all(e["probability"] >= EXPLORE / 50 for e in s.items)


def test_bad_k_and_seed_are_refused_in_one_line():
    lb = _tied_board(1)
    for kw in (dict(k=0), dict(k=1.5), dict(k=True), dict(k=10**6), dict(seed=-1), dict(seed="x")):
        with pytest.raises(ParameterError) as exc:
            lb.suggest_items(**{"k": 1, **kw})
        assert "\n" not in str(exc.value) and next(iter(kw)) in str(exc.value)


def test_a_board_that_knows_no_items_yet_is_a_state_error():
    with pytest.raises(StateError, match="per-item scores"):
        certirank.Leaderboard(["A", "B"]).suggest_items(1)
