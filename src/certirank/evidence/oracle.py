"""Oracle-Kelly efficiency yardstick (spec 01 §7).

For a paired difference D with a known distribution, the best constant stake lambda* maximises
E[log(1 + lambda D)] over [0, 1); the oracle expected rejection time at level a is approximately
log(1/a) / g* (Wald, no overshoot), or log(2/a) / g* for a mirrored comparison in `allow` (ranking) mode.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
from scipy.optimize import minimize_scalar

from .._validate import check_alpha
from ..errors import ParameterError
from ..results import ResultMixin
from ._core import check_ties

__all__ = ["OracleKelly", "oracle_kelly", "oracle_kelly_bernoulli", "oracle_kelly_independent", "oracle_time",
           "kelly_ratio_lower_bound"]

_LAM_MAX = 1.0 - 1e-9


@dataclasses.dataclass(frozen=True)
class OracleKelly(ResultMixin):
    """Best constant stake `lam` and its growth rate `growth` = E[log(1 + lam D)] (0 if D has no positive drift)."""

    lam: float
    growth: float

    def time(self, alpha: float = 0.05, ties: str | None = "allow") -> float:
        """Oracle rejection time: log(1/alpha)/g (one-sided, ``ties=None``), log(2/alpha)/g for ``allow``."""
        return oracle_time(self.growth, alpha, ties)


def oracle_time(growth: float, alpha: float = 0.05, ties: str | None = "allow") -> float:
    """log(c/alpha)/growth with c = 2 in `allow` mode and 1 otherwise (one-sided or `assume_none`)."""
    alpha = check_alpha(alpha)
    c = 1.0 if ties is None or check_ties(ties) == "assume_none" else 2.0
    return math.inf if growth <= 0 else math.log(c / alpha) / growth


def oracle_kelly(values: Any, probs: Any = None) -> OracleKelly:
    """Oracle Kelly for a discrete payoff D in [-1, 1] with the given probabilities (uniform if None).

    Uses bounded scalar maximisation on [0, 1 - 1e-9] (spec 01 §7).
    """
    d = np.asarray(values, dtype=float).ravel()
    if d.size == 0 or np.any(~np.isfinite(d)) or np.any(np.abs(d) > 1):
        raise ParameterError("payoff values must be finite numbers in [-1, 1]")
    w = np.full(d.size, 1.0 / d.size) if probs is None else np.asarray(probs, dtype=float).ravel()
    if w.shape != d.shape or np.any(w < 0) or not math.isclose(float(w.sum()), 1.0, rel_tol=1e-9):
        raise ParameterError("probabilities must be non-negative, match the values and sum to 1")
    keep = w > 0
    d, w = d[keep], w[keep]
    if float(np.dot(w, d)) <= 0:
        return OracleKelly(0.0, 0.0)

    def neg(lam: float) -> float:
        return -float(np.dot(w, np.log1p(lam * d)))

    res = minimize_scalar(neg, bounds=(0.0, _LAM_MAX), method="bounded", options={"xatol": 1e-12})
    lam = float(res.x)
    return OracleKelly(lam, -neg(lam))


def oracle_kelly_independent(x_values: Any, x_probs: Any, y_values: Any, y_probs: Any,
                             direction: str = "less") -> OracleKelly:
    """Oracle Kelly for independent arms X ~ (x_values, x_probs), Y ~ (y_values, y_probs).

    direction "less": payoff D = Y - X; "more": X - Y.
    """
    xv, xp = np.asarray(x_values, float).ravel(), np.asarray(x_probs, float).ravel()
    yv, yp = np.asarray(y_values, float).ravel(), np.asarray(y_probs, float).ravel()
    d = (yv[None, :] - xv[:, None]).ravel()
    p = (xp[:, None] * yp[None, :]).ravel()
    if direction not in ("less", "more"):
        raise ParameterError(f"direction must be 'less' or 'more', got {direction!r}")
    return oracle_kelly(d if direction == "less" else -d, p)


def oracle_kelly_bernoulli(p0: float, p1: float) -> OracleKelly:
    """Closed form for independent Bernoulli arms, payoff Y - X (spec 01 §7)."""
    q_plus = p1 * (1 - p0)
    q_minus = p0 * (1 - p1)
    if q_plus <= q_minus:
        return OracleKelly(0.0, 0.0)
    lam = (q_plus - q_minus) / (q_plus + q_minus)
    growth = q_plus * math.log1p(lam) + (q_minus * math.log1p(-lam) if q_minus > 0 else 0.0)
    return OracleKelly(lam, growth)


def kelly_ratio_lower_bound(q: Any, weights: Any, multiplier: float, *, alpha: float = 0.05,
                            pairs: int = 1200) -> float:
    """A lower bound on sum_j w_j E_{q_j}[tau] / (log(2/alpha) / KL(q_j || 1/2)) over every test of binary paired
    data that claims "the challenger is better" with probability at most alpha/2 when the discordant pairs are a
    fair coin (an exact tie): so max_j of the ratio to oracle Kelly is at least this too (issue 31 item 5).

    Only discordant pairs carry evidence on q = P(challenger wins | discordant); the ratio counts them (the
    discordance rate cancels against oracle Kelly's). By Lagrange duality, for every multiplier mu >= 0,
    sum_j w_j ratio_j >= V_mu - mu alpha/2, where V_mu is the least value of sum_j w_j ratio_j + mu P_tie(claim)
    over all stopping rules: a backward induction over (discordant pairs k, wins s), computed here with the
    relaxation that every path may stop for free at k = `pairs` (which only lowers V_mu). Any multiplier gives
    a valid bound (V_mu - mu alpha/2 is concave in mu: the caller searches mu in one dimension).
    """
    qs = np.asarray(q, dtype=float).ravel()
    w = np.asarray(weights, dtype=float).ravel()
    if qs.size == 0 or w.shape != qs.shape or np.any((qs <= 0.5) | (qs >= 1.0)) or np.any(w < 0) or w.sum() <= 0:
        raise ParameterError("q must be rates in (1/2, 1) with as many non-negative weights (not all zero)")
    alpha = check_alpha(alpha)
    kl = qs * np.log(2 * qs) + (1 - qs) * np.log(2 * (1 - qs))
    per_pair = (w / w.sum()) * kl / math.log(2 / alpha)  # the cost of one more discordant pair, per unit of L_j
    log_up, log_down = np.log(2 * qs), np.log(2 * (1 - qs))
    mu = float(multiplier)
    v = np.zeros(int(pairs) + 1)  # relaxation: every path may stop for free at k = pairs
    for k in range(int(pairs) - 1, -1, -1):
        s = np.arange(k + 1)[:, None]
        # likelihood ratios to the fair coin; past ~e^700 the state is deep in the stopping region anyway
        cost = np.exp(np.minimum(s * log_up + (k - s) * log_down, 700.0)) @ per_pair
        v = np.minimum(mu, cost + 0.5 * (v[1:k + 2] + v[:k + 1]))
    return float(v[0]) - mu * alpha / 2
