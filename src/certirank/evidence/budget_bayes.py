"""The fastest-decision statistic for the exact budget test (spec 08 §3: any fixed statistic, monotone in the
wins, is valid; this one is chosen to decide as early as possible within the budget; this project's choice).

Spec 08 thresholds one statistic T(k, s) at every level a; its Beta-mixture likelihood ratio is a good
statistic but not the one that decides soonest. For a fixed cost of a false rejection, lambda, the rule that
minimises

    E_prior[trials until the decision, at most n]  +  lambda * P_{q = 1/2}(reject within the budget)

is found by backward induction over the states (k discordant pairs, s of them won). Dividing every path's
cost by its fair-coin probability 2^-k, the value of a state is

    v(k, s) = min( lambda * S0(k),  L(k, s) * c(k)  +  (v(k + 1, s + 1) + v(k + 1, s)) / 2 ),

where L is the prior-mixture likelihood ratio (the Beta(a, a) mixture on q >= 1/2 of `budget.log_statistic`),
c(k) the expected trials between the k-th and the (k + 1)-th discordant pair (truncated at the budget),
and S0(k) the null probability that the k-th discordant pair arrives within the budget (1 for paired arms,
P(Binomial(n, 1/2) >= k) for independent arms, spec 08 §3b). "Reject" is optimal exactly where
lambda * S0(k) <= continuation; the continuation is concave in lambda with slope at most S0(k), so the
rejection sets grow as lambda shrinks: they are nested, and

    T*(k, s) = the largest log lambda (on a grid) at which (k, s) is rejected

is one statistic whose level sets are these Bayes rules. The spec-08 p-process p = G(max T*) then rejects at
each level with the Bayes rule for that level's lambda (rounded to the grid), and its guarantee is spec 08's
Claim: the level is computed exactly for T* itself, so the design choices (prior, the discordance rate 1/2
used for c, the grid) can only cost power, never validity.

Two projections keep the proofs of `budget` intact: T* is replaced by its least majorant that is
non-decreasing in the wins and non-increasing in the losses (so T(k + 1, s + 1) >= T(k, s) >= T(k + 1, s),
which the independent-arms worst case and the futility bound use), and it is shifted so that T*(0, 0) = 0
(p = 1 before any data, as for the mixture).

Cost: one backward pass over the budget for all grid values of lambda at once, O(n^2 * grid), cached per
(n, a, arms); with its p-value grid about 1.5x the mixture's design cost (`benchmarks/studies/anyrank_efficiency_and_fwer.py --part
design`).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import special  # not scipy.stats: it costs ~1 s to import (a small compare runs this)

from ._walk import discordance_weights, level_of_table, mixture_table

__all__ = ["LAMBDA_STEP", "bayes_table"]

#: spacing of the log-lambda grid, in nats: the same as the p-value grid of `budget_streams` (GRID_STEP), so
#: the statistic's values fall on that grid and reading p there loses nothing
LAMBDA_STEP = 0.02
#: design discordance rate: independent arms at a tie discord at most half the time (spec 08 §3b)
_DESIGN_RATE = 0.5
#: the smallest p-value the table must resolve (budget_streams.GRID_FLOOR is 1e-10)
_FLOOR = 1e-12


def _trial_costs(n: int, rate: float) -> np.ndarray:
    """c[k] = E[min(T_{k+1}, n)] - E[min(T_k, n)], T_k the trial of the k-th discordant pair (k = 0..n)."""
    k = np.arange(n + 1)
    # E[min(T_k, n)] = sum_{t < n} P(T_k > t) = sum_{t < n} P(Binomial(t, rate) <= k - 1)
    km1, t = k[:, None] - 1, np.arange(n)[None, :]
    cdf = special.bdtr(np.clip(km1, 0, t), t, rate)  # = binom.cdf(k - 1, t, rate) for 0 <= k - 1 (1 from k - 1 >= t)
    e = np.where(km1 < 0, 0.0, cdf).sum(axis=1)
    return np.append(np.diff(e), 0.0)


def _backward(log_l: np.ndarray, s0: np.ndarray, cost: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """T*(k, s) = max grid value whose Bayes rule rejects at (k, s), -inf where none does."""
    n = log_l.shape[0] - 1
    # single precision halves the memory traffic of this pass (the whole cost of a table); it only decides
    # which side of a boundary a near-tie falls, and the level is computed exactly for whatever table results.
    # Values stay below lambda_max = e^grid[-1] and the capped step, far under float32's e^88.
    small = grid[-1] < 75.0
    dt, cap = (np.float32, 80.0) if small else (np.float64, 700.0)
    lam = np.exp(grid).astype(dt)[:, None]
    out = np.full((n + 1, n + 1), -np.inf)
    with np.errstate(divide="ignore"):
        log_cost = np.log(cost)  # -inf past the design horizon, where a step costs nothing
    v = np.zeros((grid.size, n + 1), dtype=dt)  # at the budget nothing is left to gain: never reject there
    for k in range(n - 1, -1, -1):
        # capped: a state worth e^cap is rejected at every lambda of the grid anyway
        step = np.exp(np.minimum(log_l[k, :k + 1] + log_cost[k], cap)).astype(dt)
        cont = v[:, 1:k + 2] + v[:, :k + 1]
        cont *= dt(0.5)
        cont += step
        stop = lam * dt(s0[k])
        # nested (module docstring): a state is rejected for the first `count` values of lambda
        count = (stop <= cont).sum(axis=0)
        out[k, :k + 1] = np.where(count > 0, grid[np.maximum(count - 1, 0)], -np.inf)
        v = np.minimum(stop, cont)
    return out


def _monotone(tab: np.ndarray) -> np.ndarray:
    """Least majorant on the triangle that is non-decreasing in wins s and non-increasing in losses k - s."""
    n = tab.shape[0] - 1
    k, s = np.tril_indices(n + 1)
    sl = np.full((n + 1, n + 1), -np.inf)  # indexed (wins, losses)
    sl[s, k - s] = tab[k, s]
    sl = np.maximum.accumulate(sl, axis=0)
    sl = np.maximum.accumulate(sl[:, ::-1], axis=1)[:, ::-1]
    out = np.full_like(tab, np.inf)
    out[k, s] = sl[s, k - s]
    return out


@functools.lru_cache(maxsize=8)
def bayes_table(n: int, a: float, arms: str) -> np.ndarray:
    """log T*(k, s) for 0 <= s <= k <= n, padded with +inf above the diagonal (the `_walk.mixture_table` layout).

    The grid of log lambda starts at 0 (the state (0, 0) is rejected for every lambda <= 1, because its
    continuation costs at least the first trial) and is extended while states rejected at its top value (whose
    statistic the grid caps) can be reached with null probability above `_FLOOR`, so every p-value a campaign
    can use is resolved.
    """
    log_l = mixture_table(n, a)
    s0 = discordance_weights(n, arms)
    cost = _trial_costs(n, _DESIGN_RATE)
    top = math.log(n + 1.0) + math.log(1.0 / _FLOOR) + 4.0
    while True:
        grid = np.arange(0.0, top + LAMBDA_STEP / 2, LAMBDA_STEP)
        raw = _backward(log_l, s0, cost, grid)
        tab = _monotone(raw)
        tab = tab - tab[0, 0]
        tab[np.triu_indices(n + 1, 1)] = np.inf
        capped = raw >= grid[-1]
        if not capped.any() or level_of_table(float(tab[capped].min()), tab, arms) <= _FLOOR:
            return tab
        top *= 1.5
