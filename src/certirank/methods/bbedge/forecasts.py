"""How many more replicates would decide each undecided pair of a BB-EDGE board (issue 35 item 2).

A forecast, never a guarantee. Each tested direction's log e-value is seen as a random walk over replicates,
read from the state the board already keeps (nothing more is stored or saved):

- with the plug-in stakes (``stake="plugin"``, ``"plugin-eb"``): the bettor's own running sums give, per
  replicate, the mean linear term a (``lin_sum / r``) and the squared prediction error v it will see once it
  has learnt each block (:func:`_settled_error`, from ``s2`` and the block sums ``C``); at the stake it
  converges to, lambda = clip(a / v, 0, cap), the log e-value grows by g = lambda a - lambda^2 v / 2 per
  replicate (the second-order expansion the stake maximises, :func:`~certirank.methods.bbedge.core.kelly_stake`)
  with variance lambda^2 v;
- otherwise (the grid mixture, B10): the mean growth so far, g = log_e / r, with the variance 2 g of a
  log-optimal bet's increments (to second order, as above: lambda^2 v = 2 g at lambda = a / v).

What a direction still needs is its family's *current* e-Holm threshold (what would reject it now) minus its log
e-value. The Brownian first passage of :mod:`certirank.evidence.forecast` (the formula's one home) then gives, per
pair, the fewest further replicates along either direction (``more_needed``), the chance of a decision within a
budget of replicates (``p_decide``) and, with a budget, ``futile``. With an equivalence margin
(:class:`~certirank.methods.bbedge.margin.MarginBoards`) an equivalence is a third route that needs both
directions of the equivalence board. It takes the current estimates as the truth and ignores the mixture's
cost and the overshoot, and the threshold falls as other directions are rejected, so it leans cautious
(docs/futility.md: 1.6 to 4.8 times too many replicates after 3 runs of four GSM8K models).
tests/test_leaderboard_forecast.py measures it against the real continuation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...evidence.forecast import FUTILITY, Walk, forecast
from .core import PLUGIN_CAP

__all__ = ["open_pair_forecasts", "MIN_REPLICATES"]

#: a direction needs this many replicates before its changes have a variance
MIN_REPLICATES = 2


def _walks(board: Any) -> dict[tuple[str, str], tuple[Walk, float]]:
    """(better, worse) -> (its walk, its log e-value) for every tested direction whose family has seen
    MIN_REPLICATES replicates."""
    out: dict[tuple[str, str], tuple[Walk, float]] = {}
    names, d = board.models, board._design
    for fam in board._families:
        r = int(fam.r)
        if r < MIN_REPLICATES or d is None:
            continue
        if board.stake in ("plugin", "plugin-eb"):
            th_sum, size = fam.C @ d.block_weight, np.abs(fam.C) @ d.block_weight
            gap = th_sum[fam.a_row] - th_sum[fam.b_row]
            # a tie (equal weighted sums) can differ in the last bits: a growth of 1e-30 and a forecast of 1e30
            # replicates; a gap below the sums' rounding is none
            gap[np.abs(gap) <= 1e-9 * (size[fam.a_row] + size[fam.b_row])] = 0.0
            a = (gap - r * board.tau) / (2.0 * d.w_star) / r
            v = _settled_error(fam, d.block_weight / d.w_star, r)
            lam = np.clip(a / v, 0.0, PLUGIN_CAP)
            growth, var = lam * a - lam ** 2 * v / 2.0, lam ** 2 * v
        else:
            growth = fam.log_e / r
            var = 2.0 * np.maximum(growth, 0.0)
        for k, (i, j) in enumerate(zip(fam.a.tolist(), fam.b.tolist())):
            if np.isfinite(growth[k]) and np.isfinite(fam.log_e[k]):
                out[(names[i], names[j])] = (Walk(float(growth[k]), float(var[k]), fam.log_c - float(fam.log_e[k])),
                                             float(fam.log_e[k]))
    return out


def _settled_error(fam: Any, ratio: np.ndarray, r: int) -> np.ndarray:
    """Per direction, the squared prediction error v the plug-in bettor will see per replicate once it has learnt
    each block, from the errors it has seen (``fam.s2``) and the blocks' running sums (``fam.C``).

    A block's half difference z (mean delta, variance sigma^2) is predicted at replicate k by the sum of the k - 1
    before over k, so its expected squared error is sigma^2 (1 + (k - 1) / k^2) + delta^2 / k^2: over r replicates
    s2 = V A + D B with V = sum_m q_m^2 sigma_m^2 (what is wanted), D = sum_m q_m^2 delta_m^2, A = sum_k (1 + (k - 1)
    / k^2), B = sum_k 1 / k^2 (q = w_m / w_*). The running sums give S = sum_m q_m^2 (Z_m / r)^2 with E S = D + V / r,
    so V = (s2 - B S) / (A - B / r), kept within (0, s2 / r] (s2 / r: the mean error so far, learning included).
    The margin's kappa (tau / 2r per block) is left out of this correction."""
    k = np.arange(1, r + 1, dtype=float)
    big_a, big_b = float(np.sum(1.0 + (k - 1.0) / k ** 2)), float(np.sum(1.0 / k ** 2))
    cq = fam.C * ratio
    gram = cq @ (fam.C * ratio).T  # (models, models): sum_m q_m^2 C_i,m C_j,m
    diag = np.diag(gram)
    s = (diag[fam.a_row] + diag[fam.b_row] - 2.0 * gram[fam.a_row, fam.b_row]) / (4.0 * r * r)
    mean = fam.s2 / r
    v = (fam.s2 - big_b * s) / (big_a - big_b / r)
    return np.clip(v, 1e-3 * np.maximum(mean, 1e-12), np.maximum(mean, 1e-12))


def open_pair_forecasts(board: Any, pairs: Sequence[Sequence[str]], *, equivalence: Any = None,
                        n_max: int | None = None, futility: float = FUTILITY) -> list[dict[str, Any]]:
    """One entry per pair of `pairs` (the undecided ones, as the ranking lists them): ``pair``, ``replicates``
    (of the board so far), ``log_e`` (of both directions, None where not tested), ``more_needed`` (further
    replicates, a forecast; None when no direction grows, too few replicates are in, or the pair is not tested),
    ``forecast`` (:class:`~certirank.evidence.forecast.Forecast` as a dict, or None) and ``verdict``
    (``futile`` with a budget `n_max` of replicates whose forecast chance is below `futility`, else
    ``undecided``). `equivalence`: the equivalence board of a margin (adds the equivalence route)."""
    walks = _walks(board)
    eq_walks = _walks(equivalence) if equivalence is not None else {}
    seen = int(board.R)
    out = []
    for a, b in pairs:
        a, b = str(a), str(b)
        routes = [[walks[d][0]] for d in ((a, b), (b, a)) if d in walks]
        if (a, b) in eq_walks and (b, a) in eq_walks:
            routes.append([eq_walks[(a, b)][0], eq_walks[(b, a)][0]])
        fc = forecast(routes, n_seen=seen, n_max=n_max, futility=futility) if routes else None
        out.append({"pair": [a, b], "replicates": seen,
                    "log_e": [walks[d][1] if d in walks else None for d in ((a, b), (b, a))],
                    "more_needed": None if fc is None else fc.more_needed,
                    "forecast": None if fc is None else fc.to_dict(),
                    "verdict": "futile" if fc is not None and fc.futile else "undecided"})
    return out
