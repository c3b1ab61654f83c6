"""Rows of the validity battery for the verdicts that save evaluations (issue 35 item 6): equivalence with the
true difference exactly at the margin, a proxy that lies in favour of one of two tied policies, and adaptive item
choice on leaderboards with exactly tied models.

Each row draws its runs in vectorised batches (the engines' own batch functions, bit-for-bit the streaming tests:
tests/test_equivalence.py, tests/test_ppi.py), so a covered row's sequential test costs seconds.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .validation import Check, register_check

#: equivalence row: the margin and the paired units of each run
MARGIN, EQ_UNITS = 0.1, 400
#: lying-proxy row: units, label rate, and how far B's proxy is pushed up (the truth: A and B tied)
PROXY_UNITS, LABEL_RATE, LIE = 300, 0.3, 0.5
#: adaptive-items row: items of each board and item draws of each run
ITEMS, DRAWS = 40, 60


def _equivalence_at_margin(alpha: float, n: int, seed: int) -> np.ndarray:
    """Paired scores whose mean difference is exactly the margin (y = x + margin in expectation, no clipping:
    shared difficulty in [0.2, 0.7] plus bounded noise), low noise so the test is as close to claiming as it can
    be: any equivalence claim (|difference| < margin) is false. The test is `compare(..., margin=)`'s
    (two one-sided e-processes, each at alpha/2)."""
    from ..evidence.equivalence import equivalence_batch
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.2, 0.7, (n, EQ_UNITS))
    x = base + rng.uniform(-0.05, 0.05, (n, EQ_UNITS))
    y = base + MARGIN + rng.uniform(-0.05, 0.05, (n, EQ_UNITS))
    return equivalence_batch(x, y, MARGIN, alpha)["decided_at"] > 0


def _lying_proxy(alpha: float, n: int, seed: int) -> np.ndarray:
    """Two tied policies (Bernoulli(0.5) each); the proxy of A is its real outcome 90 % of the time, B's proxy
    the same pushed up by 0.5 (capped at 1): a proxy biased toward B. Each unit labelled with probability 0.3;
    any certified direction is false. The test is `compare(..., proxy_x=, proxy_y=, label_rate=)`'s."""
    from ..evidence.ppi import proxy_batch
    rng = np.random.default_rng(seed)
    shape = (n, PROXY_UNITS)
    a = (rng.random(shape) < 0.5).astype(float)
    b = (rng.random(shape) < 0.5).astype(float)
    flip = lambda v: np.where(rng.random(shape) < 0.9, v, 1.0 - v)  # noqa: E731
    fa, fb = flip(a), np.minimum(1.0, flip(b) + LIE)
    labelled = rng.random(shape) < LABEL_RATE
    out = proxy_batch(np.where(labelled, a, 0.0), np.where(labelled, b, 0.0), fa, fb, labelled, LABEL_RATE, alpha)
    return out["decided_at"] > 0


def _adaptive_tied(alpha: float, n: int, seed: int) -> np.ndarray:
    """IRT boards (Rasch-type items, random discrimination) with two pairs of exactly tied models (abilities
    0, 0, 0.8, 0.8), items drawn by `AdaptiveBoard` toward the open pairs: an edge between tied models, or one
    pointing the wrong way, is false."""
    from scipy import special

    from ..methods.bbedge.adaptive import AdaptiveBoard, run_board
    names = ["A", "B", "C", "D"]
    theta = np.array([0.0, 0.0, 0.8, 0.8])
    true = {("C", "A"), ("C", "B"), ("D", "A"), ("D", "B")}
    out = []
    for run_seed in np.random.SeedSequence(seed).generate_state(n):
        rng = np.random.default_rng(int(run_seed))
        disc, diff = np.exp(rng.normal(0, 0.3, ITEMS)), rng.normal(0, 1, ITEMS)
        probs = special.expit(disc * (theta[:, None] - diff))
        board = AdaptiveBoard(names, ITEMS, alpha, difficulty=probs.mean(axis=0), seed=int(rng.integers(2**31)),
                              n_max=DRAWS)
        run_board(board, lambda i, cols, probs=probs, rng=rng: (rng.random(cols.size) < probs[cols, i]).astype(float),
                  DRAWS)
        out.append(any(e not in true for e in board.edges()))
    return np.array(out, dtype=bool)


def _none(alpha: float, quick: bool) -> Any:  # these rows are not simulate() studies
    return None


for _check in (
    Check("equivalence-at-margin", f"2 policies whose mean difference is exactly the margin {MARGIN:g}, "
          f"{EQ_UNITS} paired units (an equivalence claim is false)", f"compare[margin={MARGIN:g}]", _none,
          runs=_equivalence_at_margin),
    Check("lying-proxy", f"2 tied policies, {PROXY_UNITS} units, real labels at rate {LABEL_RATE:g}, B's proxy "
          f"pushed up by {LIE:g} (biased toward B)", f"compare[proxy, label_rate={LABEL_RATE:g}]", _none,
          runs=_lying_proxy),
    Check("adaptive-items-tied", f"IRT boards of {ITEMS} items, 4 models in two exactly tied pairs, {DRAWS} item "
          "draws chosen adaptively", "AdaptiveBoard", _none, runs=_adaptive_tied),
):
    register_check(_check)
