"""A pair the adaptive board sets aside as futile is deferred, not dropped (docs/adaptive-items.md).

The futility forecast reads a pair's first payoffs; when they ran low, a true pair looks futile. The board then
spends nothing on it until every other pair is decided and gives it the draws left of the budget, so its edge is
certified late instead of never.
"""

import numpy as np

from certirank.methods.bbedge.adaptive import AdaptiveBoard, run_board


def _board(seed: int) -> tuple[AdaptiveBoard, np.ndarray]:
    # A is far above B and C; B clearly above C: every pair has a true edge
    probs = np.array([0.95, 0.55, 0.3])
    board = AdaptiveBoard(["A", "B", "C"], 50, 0.05, strategy="adaptive", seed=seed, n_max=3000)
    return board, probs


def _score(rng: np.random.Generator, probs: np.ndarray):
    return lambda item, cols: (rng.random(cols.size) < probs[cols]).astype(float)


def test_a_pair_set_aside_is_taken_up_once_the_others_are_decided():
    board, probs = _board(0)
    board.dormant[1, 2] = board.dormant[2, 1] = True  # B vs C forecast futile before any draw
    run_board(board, _score(np.random.default_rng(1), probs), 3000)
    assert ("B", "C") in board.edges()
    assert {("A", "B"), ("A", "C")} <= set(board.edges())
    at = dict(zip(zip(board.a_idx.tolist(), board.b_idx.tolist()), board.certified_at.tolist()))
    # B vs C was certified after both of A's pairs: it waited for them
    assert at[(1, 2)] > max(at[(0, 1)], at[(0, 2)])
    assert not board.dormant.any()


def test_while_others_are_open_a_pair_set_aside_is_not_scored_for():
    board, probs = _board(2)
    board.dormant[1, 2] = board.dormant[2, 1] = True
    rng = np.random.default_rng(3)
    for _ in range(3):
        sug = board.suggest_items(1)[0]
        assert "A" in sug["models"]  # only A's pairs are open: C and B are scored for them, never for B vs C alone
        cols = np.array([board.models.index(m) for m in sug["models"]])
        board.record(sug["item"], dict(zip(sug["models"], _score(rng, probs)(sug["item"], cols).tolist())))
    assert board.dormant[1, 2]
