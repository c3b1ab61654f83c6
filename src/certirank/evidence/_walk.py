"""The walk of the discordant pairs under the null, shared by the exact budget test's statistics (spec 08 §3).

`budget` (the Beta-mixture statistic and the level of any statistic) and `budget_bayes` (the fastest-decision
statistic, built from the mixture's table and checked with `level_of_table` while it is built) both read these;
they live below both so that neither imports the other's module to build its table.
"""

from __future__ import annotations

import functools

import numpy as np

from ._tails import binom_sf, log_statistic

__all__ = ["TOL", "TABLE_MAX", "reaches", "mixture_table", "first_passage", "discordance_weights", "level_of_table"]

# A value counts as reaching a threshold m when it is >= m - TOL * (1 + |m|). The observed maxima are
# values of the same function, so this only absorbs last-bit differences between evaluations; it enlarges
# the crossing region used by the level computation too, so it can only make the test more conservative.
TOL = 1e-12
#: largest budget whose statistic is tabulated whole (above: bisection on the closed form)
TABLE_MAX = 2500


def reaches(values: np.ndarray, m: float) -> np.ndarray:
    return values >= m - TOL * (1.0 + abs(m))


@functools.lru_cache(maxsize=16)
def mixture_table(n: int, a: float) -> np.ndarray | None:
    """log T(k, s) of the Beta(a, a) mixture for 0 <= s <= k <= n, padded with +inf above the diagonal (None
    when n > TABLE_MAX)."""
    if n > TABLE_MAX:
        return None
    k, s = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    out = np.full((n + 1, n + 1), np.inf)
    low = s <= k
    out[low] = log_statistic(k[low], s[low], a)
    return out


def first_passage(boundary: np.ndarray, q: float = 0.5) -> np.ndarray:
    """f[..., k] = P(the walk of wins first reaches the boundary at discordant pair k), k = 0..n.

    Wins are i.i.d. Bernoulli(q); the walk is absorbed at step k when S_k >= boundary[k]. O(n^2) per
    boundary, one vectorised update per step for all boundaries (rows of a 2-D `boundary`) at once.
    """
    bnd = np.atleast_2d(np.asarray(boundary, dtype=np.int64))
    rows, n = bnd.shape[0], bnd.shape[1] - 1
    f = np.zeros((rows, n + 1))
    u = np.zeros((rows, n + 2))
    u[:, 0] = 1.0
    start = bnd[:, 0] <= 0
    f[start, 0] = 1.0
    u[start, 0] = 0.0
    sidx = np.arange(n + 2)
    for k in range(1, n + 1):
        new = (1.0 - q) * u[:, :k + 1]
        new[:, 1:] += q * u[:, :k]
        b = bnd[:, k]
        if (b <= k).any():
            absorbed = sidx[None, :k + 1] >= b[:, None]
            f[:, k] = np.where(absorbed, new, 0.0).sum(axis=1)
            new[absorbed] = 0.0
        u[:, :k + 1] = new
    return f[0] if np.ndim(boundary) == 1 else f


@functools.lru_cache(maxsize=8)
def _discordance_tail(n: int) -> np.ndarray:
    """P(Binomial(n, 1/2) >= k) for k = 0..n: the worst-case discordant-pair count under a tie (§3b)."""
    return binom_sf(np.arange(n + 1) - 1, n, 0.5)


def discordance_weights(n: int, arms: str) -> np.ndarray:
    """w[k] = worst-case null probability that the k-th discordant pair arrives within n trials, k = 0..n."""
    return np.ones(n + 1) if arms == "paired" else _discordance_tail(n)


def level_of_table(m: float, tab: np.ndarray, arms: str) -> float:
    """G(m) for a statistic given as a table in the `mixture_table` layout (used while building one)."""
    if m <= TOL:
        return 1.0
    bnd = (~reaches(tab, m)).sum(axis=1)
    return float(min(1.0, first_passage(bnd) @ discordance_weights(tab.shape[0] - 1, arms)))
