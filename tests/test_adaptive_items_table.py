"""Adaptive item choice on a fixed table (`AdaptiveBoard(..., about="table")`, issue 35 item 4): a score once seen
is known, so no model is scored twice on an item, and each pair's evidence uses the exactly known part of its
mean difference (sampling the rest without replacement)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from certirank.errors import ParameterError
from certirank.methods.bbedge.adaptive import AdaptiveBoard, run_board


def test_the_payoff_is_unbiased_whatever_was_seen_and_whatever_q_is():
    """E over the draw of (K_e + 1{i unseen} D_i / q(i)) / (2N) is (theta_a - theta_b) / 2, exactly, at any state."""
    rng = np.random.default_rng(2)
    n = 30
    table = (rng.random((3, n)) < rng.random(n)).astype(float)
    board = AdaptiveBoard(["a", "b", "c"], n, difficulty=rng.random(n), about="table", seed=1)
    run_board(board, lambda i, cols: table[cols, i], 12)  # some items seen, some not
    q = board.probabilities()
    assert np.isclose(q.sum(), 1.0) and (q[board._open_items()] > 0).all()
    for e in range(board.a_idx.size):
        a, b = board.a_idx[e], board.b_idx[e]
        d = table[a] - table[b]
        unseen = ~board._seen_pair[e]
        assert board._k_sum[e] == pytest.approx(d[~unseen].sum(), abs=1e-12)
        expect = sum(q[i] * (board._k_sum[e] + (d[i] / q[i] if unseen[i] else 0.0)) / (2 * n)
                     for i in range(n) if q[i] > 0)
        if unseen.any():  # q covers every item the pair has not seen
            assert (q[unseen] > 0).all()
        assert expect == pytest.approx(d.mean() / 2, abs=1e-12)


def test_no_score_is_asked_for_twice_and_uniform_is_a_random_order():
    rng = np.random.default_rng(3)
    table = (rng.random((4, 50)) < 0.5).astype(float)
    asked = []
    for strategy in ("uniform", "adaptive"):
        board = AdaptiveBoard(list("abcd"), 50, about="table", strategy=strategy, seed=4)

        def score(i, cols):
            asked.extend((int(c), int(i)) for c in cols)
            return table[cols, i]
        run_board(board, score, 50)
        assert len(asked) == len(set(asked)) and board.evaluations == len(asked)
        if strategy == "uniform":  # a new item on every draw (a uniform random order), every model scored on it
            assert board.draws > 10 and board.evaluations == 4 * board.draws
        asked.clear()


def _tied_tables(runs, alpha, draws, n=60):
    """Tables where A and B have exactly the same mean (they disagree on a third of the items) and C is better:
    boards with an edge between A and B or against C."""
    errors = 0
    for run in range(runs):
        rng = np.random.default_rng(100 + run)
        base = (rng.random(n) < 0.5).astype(float)
        a, b = base.copy(), base.copy()
        idx = rng.permutation(n)[: n // 3]
        a[idx[: n // 6]], b[idx[: n // 6]] = 1.0, 0.0
        a[idx[n // 6:]], b[idx[n // 6:]] = 0.0, 1.0
        c = np.maximum(base, (rng.random(n) < 0.6).astype(float))
        table = np.stack([a, b, c])
        board = AdaptiveBoard(["A", "B", "C"], n, alpha, difficulty=rng.random(n),
                              about="table", seed=run)
        run_board(board, lambda i, cols: table[cols, i], draws)
        errors += any(e not in {("C", "A"), ("C", "B")} for e in board.edges())
    return errors


def test_level_on_tied_tables():
    runs, alpha = 40, 0.1
    assert _tied_tables(runs, alpha, 120) <= int(stats.binom.isf(1e-4, runs, alpha))


@pytest.mark.slow
def test_level_on_tied_tables_many():
    runs, alpha = 400, 0.1
    assert _tied_tables(runs, alpha, 200) <= int(stats.binom.isf(1e-4, runs, alpha))


def test_the_table_is_found_out_once_it_is_all_seen():
    """C above A on every item: once every item is known, the pair's payoff is its exact mean difference."""
    table = np.stack([np.zeros(20), np.ones(20)])
    board = AdaptiveBoard(["A", "C"], 20, 0.05, about="table", strategy="uniform", seed=0)
    run_board(board, lambda i, cols: table[cols, i], 200)
    assert board.edges() == [("C", "A")] and board.evaluations <= 40


def test_about_is_checked():
    with pytest.raises(ParameterError, match="about"):
        AdaptiveBoard(["a", "b"], 5, about="policy")
