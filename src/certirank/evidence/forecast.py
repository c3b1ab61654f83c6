"""How many more trials, and is it futile? A forecast for an undecided comparison (issue 35 item 2).

At the current estimates, each one-sided test of the comparison is seen as a random walk of its
log-wealth: the best constant bet lam* on the payoffs seen so far (their empirical distribution) grows the
log-wealth by g = mean log(1 + lam* u) per pair with variance s^2 = var log(1 + lam* u), where u is the
payoff scaled by its largest possible loss. A side that still needs r = log(1/level) - log W_n reaches it
after about r / g more pairs (Wald), and within h more pairs with the Brownian first-passage probability

    P(h) = Phi((h g - r) / (s sqrt h)) + exp(2 g r / s^2) Phi((-r - h g) / (s sqrt h)).

A difference needs one side; an equivalence needs both halves (its time is the later of the two, its
probability the smaller). Then

- ``more_needed``: the fewest further pairs (or units / items) along any route, None when no side grows;
- ``p_decide``: the forecast probability of a decision within the budget (``n_max``), or within
  `horizon` without one;
- ``futile``: with a budget, ``p_decide < futility`` (default 0.1).

This is a **forecast, not a guarantee**: it takes the current estimates as the truth (noisy when few pairs
are in) and ignores what the bettor still has to learn (so it leans optimistic). It never changes what is
certified, and the guarantee of the test does not depend on whether or when anyone stops because of it
(stopping is free for anytime-valid tests). Measured against the real continuation in
tests/test_forecast.py.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Sequence

import numpy as np
from scipy import special

from .._params import FUTILITY as DECLARED_FUTILITY
from ..results import ResultMixin

__all__ = ["Forecast", "Side", "Walk", "forecast", "open_pair_sentence", "FUTILITY", "FORECAST_NOTE"]

#: a pair is futile when the forecast probability of deciding by the budget is below this
FUTILITY = 0.1
#: without a budget, p_decide looks this many pairs ahead
HORIZON = 1000
FORECAST_NOTE = "a forecast at the current estimates, not a guarantee"
_LAMBDAS = np.linspace(0.0, 0.98, 197)


@dataclasses.dataclass(frozen=True)
class Side:
    """One one-sided test of a comparison: scaled payoffs seen (u >= -1), current log-wealth, log(1/level)."""

    u: np.ndarray
    log_wealth: float
    target: float

    def outlook(self) -> tuple[float, float, float]:
        """(g, s^2, r): growth per pair of the best constant bet, its variance, log-wealth still needed."""
        r = max(self.target - self.log_wealth, 0.0)
        u = np.asarray(self.u, dtype=float)
        if u.size == 0 or r == 0.0:
            return (math.inf if r == 0.0 else 0.0), 0.0, r
        # payoffs take few distinct values (binary or binned scores): one column per value, weighted by its count,
        # so a long stream costs its distinct values, not 197 logs per pair
        vals, counts = np.unique(u, return_counts=True)
        w = counts / u.size
        logs = np.log1p(np.maximum(_LAMBDAS[:, None] * vals[None, :], -0.999999))
        growth = logs @ w
        best = int(np.argmax(growth))
        var = float(((logs[best] - growth[best]) ** 2) @ w)
        return float(growth[best]), var, r

    def needed_and_chance(self, h: int) -> tuple[float, float]:
        return _passage(*self.outlook(), h)


@dataclasses.dataclass(frozen=True)
class Walk:
    """One one-sided test seen directly as a random walk of its log-wealth: ``growth`` per step, its
    ``variance``, and the log-wealth ``remaining`` to its threshold (a test whose bettor is not a constant bet on
    scalar payoffs, e.g. a BB-EDGE direction, whose per-replicate log e-increments give the growth and variance)."""

    growth: float
    variance: float
    remaining: float

    def outlook(self) -> tuple[float, float, float]:
        r = max(float(self.remaining), 0.0)
        return (math.inf if r == 0.0 else float(self.growth)), float(self.variance), r

    def needed_and_chance(self, h: int) -> tuple[float, float]:
        return _passage(*self.outlook(), h)


def _passage(g: float, s2: float, r: float, h: int) -> tuple[float, float]:
    """(Wald's steps to pass r at drift g, the Brownian first-passage probability within h steps): the one home
    of the formula in the module docstring."""
    if r == 0.0:
        return 0.0, 1.0
    if not g > 0.0:
        return math.inf, 0.0
    need = r / g
    if h <= 0:
        return need, 0.0
    sd = math.sqrt(max(s2, 1e-12) * h)
    # log-space: exp(2 g r / s^2) can overflow where its Phi factor underflows
    a = special.log_ndtr((h * g - r) / sd)
    b = 2.0 * g * r / max(s2, 1e-12) + special.log_ndtr((-r - h * g) / sd)
    return need, float(min(1.0, math.exp(a) + math.exp(b)))


@dataclasses.dataclass(frozen=True)
class Forecast(ResultMixin):
    """Forecast for one undecided comparison.

    Attributes
    ----------
    more_needed : int or None
        Median further pairs until a decision, at the current estimates; None if not within `horizon`.
    p_decide : float
        Forecast probability of a decision within the budget (or within `horizon` more pairs without one).
    futile : bool or None
        With a budget: p_decide < futility. None without a budget.
    horizon : int
        Further pairs looked at (the budget's remainder, or a look-ahead of 1,000).
    """

    more_needed: int | None
    p_decide: float
    futile: bool | None
    horizon: int
    futility: float = FUTILITY
    note: str = FORECAST_NOTE

    def describe(self, unit: str = "pairs") -> str:
        if self.more_needed is None:
            head = f"no decision in sight (no test gains evidence at the current estimates)"
        else:
            head = f"about {self.more_needed} more {unit} to a decision"
        tail = f"P(decide by the budget) ≈ {self.p_decide:.2f}" if self.futile is not None else ""
        verdict = " — futile" if self.futile else ""
        return f"{head}{'; ' + tail if tail else ''}{verdict} ({self.note})"


def open_pair_sentence(a: str, b: str, detail: Any, unit: str) -> str:
    """An open pair of a ranking or leaderboard in words, from its ``undecided_details`` entry (``verdict``,
    ``more_needed``): the one wording of a forecast of every method; `unit` says what ``more_needed`` counts
    ("paired trials", "replicates", "items like these")."""
    if detail.get("verdict") == "futile":
        return f"{a} vs {b}: futile (forecast: unlikely to be decided within the budget; not a guarantee)"
    if detail.get("more_needed") is not None:
        return (f"{a} vs {b}: undecided (forecast: about {detail['more_needed']} more {unit} at the current "
                "estimates; not a guarantee)")
    return f"{a} vs {b}: undecided (not enough evidence yet)"


def check_futility(futility: Any) -> float:
    """The futility level as the parameter contract declares it (``certirank._params.FUTILITY``)."""
    return DECLARED_FUTILITY.check(futility)


def forecast(routes: Sequence[Sequence[Side | Walk]], *, n_seen: int, n_max: int | None = None,
             futility: float = FUTILITY) -> Forecast:
    """Forecast of an undecided comparison whose decision is the first route to have all its sides pass.

    A difference is two routes of one side each (less, more); an equivalence is one route of two sides.
    """
    futility = check_futility(futility)
    h = HORIZON if n_max is None else max(int(n_max) - int(n_seen), 0)
    best_need, best_p = math.inf, 0.0
    for route in routes:
        outs = [side.needed_and_chance(h) for side in route]
        best_need = min(best_need, max(o[0] for o in outs))
        best_p = max(best_p, min(o[1] for o in outs))
    more = None if not math.isfinite(best_need) else max(1, int(math.ceil(best_need)))
    return Forecast(more_needed=more, p_decide=round(best_p, 4), futile=None if n_max is None else best_p < futility,
                    horizon=h, futility=futility)
