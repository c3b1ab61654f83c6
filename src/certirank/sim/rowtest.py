"""The sequential test behind each row of ``certirank validate``: is this method's family-wise error rate at
most its bound, or clearly above it?

A row simulates runs one after the other; run i is a *false run* (x_i = 1) when the method made any false claim
at any time. With p the method's true FWER in the row's scenario, the row tests

    H0: p <= p0 (the bound, usually alpha)      against      H1: p >= p1 (= ``ratio`` x p0, 2 by default)

by Wald's sequential probability ratio test, truncated:

- ``fail`` as soon as L_n = prod_i (p1/p0)^x_i ((1 - p1)/(1 - p0))^(1 - x_i) >= 1/delta. Under any p <= p0 the
  likelihood ratio L_n is a nonnegative supermartingale (E[one factor] = 1 at p = p0 and increases with p), so
  by Ville's inequality P(a row fails | p <= p0) <= delta at every stopping time: the ``fail`` side is
  anytime-valid, whatever the truncation or the lower boundary.
- ``pass`` as soon as L_n <= A (the runs are clearly more consistent with p0 than with p1), or at the cap
  ``max_runs`` without a failure.

The lower boundary A is chosen before any run, by exact dynamic programming over the number of false runs: the
largest A (the earliest passes) whose truncated test still fails a method with p = p1 with probability at least
``power``. :func:`operating_characteristic` computes the exact probabilities and expected runs at any p, so a
row's guarantee is a computation, not a simulation (tests/test_validate.py also checks it on a deliberately
miscalibrated method).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError

__all__ = ["RowTest", "design", "operating_characteristic"]

#: per-row probability of failing a method that respects its bound (a battery of 20 rows: <= 2 %)
DELTA = 0.001
#: the probability of failing a method whose FWER is ``ratio`` x its bound
POWER = 0.9
#: the lower boundaries tried (log scale, coarse: the design is computed once per bound and cached)
_A_GRID = tuple(float(a) for a in np.exp(np.linspace(np.log(0.005), np.log(0.5), 60)))


@dataclass(frozen=True)
class RowTest:
    """A truncated SPRT of H0: p <= p0 against H1: p >= p1 (see the module docstring)."""

    p0: float
    p1: float
    delta: float
    lower: float  # A: pass when the likelihood ratio falls to or below it
    max_runs: int
    power: float  # P(fail | p = p1), exact

    @property
    def log_up(self) -> float:
        return math.log(1.0 / self.delta)

    @property
    def log_lower(self) -> float:
        return math.log(self.lower)

    @property
    def steps(self) -> tuple[float, float]:
        """The log likelihood ratio's step after a false run and after a clean run."""
        return math.log(self.p1 / self.p0), math.log((1.0 - self.p1) / (1.0 - self.p0))

    def walk(self, false_runs: np.ndarray) -> tuple[str | None, int, float]:
        """Read runs in order: (verdict or None if still open, runs used, final log likelihood ratio)."""
        up, down = self.steps
        x = np.asarray(false_runs, dtype=bool)
        log_l = np.cumsum(np.where(x, up, down))
        hit = np.flatnonzero((log_l >= self.log_up) | (log_l <= self.log_lower))
        if hit.size:
            i = int(hit[0])
            return ("fail" if log_l[i] >= self.log_up else "pass"), i + 1, float(log_l[i])
        n = int(x.size)
        last = float(log_l[-1]) if n else 0.0
        if n >= self.max_runs:
            return "pass", n, last  # truncated without evidence against the bound
        return None, n, last


def operating_characteristic(test: RowTest, p: float) -> tuple[float, float]:
    """(P(fail), expected runs) of `test` when each run is false with probability `p` (exact)."""
    up, down = test.steps
    n_max = test.max_runs
    # after n runs, the walk is still open only for k false runs with lower < k up + (n - k) down < upper:
    # k_fail(n) = the fewest false runs that fail, so the open states are k < k_fail(n) (a band, kept short)
    k_fail = np.ceil((test.log_up - 1e-12 - np.arange(n_max + 1) * down) / (up - down)).astype(np.int64)
    dist = np.zeros(int(k_fail.max()) + 2)
    dist[0] = 1.0
    fail = runs = 0.0
    for n in range(1, n_max + 1):
        top = min(n, int(k_fail[n]))  # states k = 0 .. top are reachable and not failed before this run
        new = np.empty(top + 1)
        new[:] = dist[:top + 1] * (1.0 - p)
        new[1:] += dist[:top] * p
        kk = np.arange(top + 1)
        log_l = kk * up + (n - kk) * down
        f = log_l >= test.log_up - 1e-12
        s = log_l <= test.log_lower + 1e-12
        pf, ps = new[f].sum(), new[s].sum()
        fail += pf
        runs += n * (pf + ps)
        new[f | s] = 0.0
        dist[:top + 1] = new
        dist[top + 1:] = 0.0
    runs += n_max * dist.sum()
    return float(fail), float(runs)


@functools.lru_cache(maxsize=64)
def design(p0: float, *, ratio: float = 2.0, delta: float = DELTA, power: float = POWER,
           max_runs: int = 1000) -> RowTest:
    """The row test for the bound `p0`: fails a method at `ratio` x p0 with probability >= `power`, and a
    method within its bound with probability <= `delta`; the earliest passes that keep that power."""
    if not 0.0 < p0 < 1.0 or not 1.0 < ratio or not p0 * ratio < 1.0:
        raise ParameterError(f"a row test needs 0 < bound < bound x ratio < 1, got bound {p0!r}, ratio {ratio!r}")
    p1 = p0 * ratio

    def with_lower(i: int) -> RowTest:
        t = RowTest(p0, p1, delta, _A_GRID[i], max_runs, 0.0)
        return RowTest(p0, p1, delta, _A_GRID[i], max_runs, operating_characteristic(t, p1)[0])

    # the power falls as the lower boundary rises (more early passes): bisect for the last one that keeps it
    lo, hi, best = 0, len(_A_GRID) - 1, None
    while lo <= hi:
        mid = (lo + hi) // 2
        t = with_lower(mid)
        if t.power >= power:
            best, lo = t, mid + 1
        else:
            hi = mid - 1
    if best is None:
        raise ParameterError(f"no row test reaches power {power} at {max_runs} runs for bound {p0:g} x {ratio:g}; "
                             "allow more runs")
    return best
