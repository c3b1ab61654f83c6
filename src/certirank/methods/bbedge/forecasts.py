"""How many more replicates would decide each undecided pair of a BB-EDGE board (issue 35 item 2).

A forecast, never a guarantee. Each tested direction's log e-value is seen as a random walk over replicates,
read from the state the board already keeps (nothing more is stored or saved):

- with the plug-in stakes (``stake="plugin"``, ``"plugin-eb"``): the bettor's own running sums give, per
  replicate, the mean linear term a (``lin_sum / r``) and the mean squared prediction error v (``s2 / r``); at the
  stake it converges to, lambda = clip(a / v, 0, cap), the log e-value grows by g = lambda a - lambda^2 v / 2 per
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
cost and the overshoot; v still holds the prediction errors of the first replicates (before the bettor has learnt
each block), so on boards whose models differ a lot item by item it leans cautious (docs/futility.md: 3 to 11
times too many replicates after 3 runs of four GSM8K models). tests/test_leaderboard_forecast.py measures it
against the real continuation.
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
            th_sum = fam.C @ d.block_weight
            a = (th_sum[fam.a_row] - th_sum[fam.b_row] - r * board.tau) / (2.0 * d.w_star) / r
            v = np.maximum(fam.s2 / r, 1e-12)
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
