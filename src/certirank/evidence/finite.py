"""Anytime-valid tests and confidence sequences for the mean of a finite population sampled without
replacement (Waudby-Smith & Ramdas, "Confidence sequences for sampling without replacement", NeurIPS 2020).

A benchmark is a finite list of N values (item scores, or item x epoch scores); evaluating items in a
uniformly random order is sampling them without replacement. The quantity of interest is the population
average ``mu`` itself, not the mean of some infinite super-population, and after t draws the mean of the
next draw given the past is exactly

    m_t(mu) = (N mu - S_{t-1}) / (N - t + 1),     S_{t-1} = x_1 + ... + x_{t-1}.

Betting on ``x_t - m_t(mu0)`` with a predictable stake gives a nonnegative martingale at the true mean,
and Ville's inequality makes it an e-process; see docs/finite-population.md for the argument, the
stake rules and the parameters. Everything here is vectorised over independent streams (runs) so the
Monte Carlo studies and the streaming objects run the same arithmetic.

Public API
----------
- ``FiniteMeanTest(N, null_mean, *, alpha=0.05, alternative="two-sided", bounds=(0, 1), c=0.5)``:
  streaming test of the population mean against ``null_mean``; ``update(x)``, ``update_many(xs)``,
  ``pvalue``, ``evalue``/``log_evalue``, ``decision`` ("greater" / "less" / None), ``decided_at``.
- ``FiniteConfidenceSequence(N, *, alpha=0.05, bounds=(0, 1), grid=2001, c=0.5)``: streaming
  confidence sequence; ``lower``, ``upper``, ``width``.
- ``finite_confidence_sequence(x, N, *, alpha, bounds, grid, c)`` -> ``FiniteCS`` with ``lower``/``upper``
  arrays (one entry per observation; (runs, time) for 2-D input).
- ``finite_mean_batch(x, N, null_mean, *, alpha, alternative, bounds, c)`` -> ``FiniteBatchResult``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from .._validate import check_alpha, check_choice, check_positive_int
from ..errors import DataError, ParameterError, StateError
from ..results import ResultMixin

__all__ = ["FiniteMeanTest", "FiniteConfidenceSequence", "FiniteCS", "FiniteBatchResult",
           "finite_confidence_sequence", "finite_mean_batch", "ALTERNATIVES"]

ALTERNATIVES = ("greater", "less", "two-sided")
GREATER, LESS = 0, 1
# A seen sum beyond the null's reach by less than this (relative to N) is treated as rounding, not as
# proof: a deterministic rejection must never come from floating-point noise.
_DET_TOL = 1e-9
_TINY = 1e-12


def _check_bounds(bounds: Any) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in bounds)
    except (TypeError, ValueError):
        raise ParameterError(f"bounds must be two numbers (lo, hi), got {bounds!r}") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ParameterError(f"bounds must be finite with lo < hi, got {bounds!r}")
    return lo, hi


def _check_c(c: Any) -> float:
    try:
        v = float(c)
    except (TypeError, ValueError):
        raise ParameterError(f"c must be a number in (0, 1), got {c!r}") from None
    if not 0.0 < v < 1.0:
        raise ParameterError(f"c must be in (0, 1) (largest fraction of wealth at stake), got {c!r}")
    return v


def _to_unit(values: Any, lo: float, hi: float, name: str = "x") -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise DataError(f"{name}: expected numbers in [{lo:g}, {hi:g}]") from None
    bad = ~np.isfinite(arr)
    if bad.any():
        pos = int(np.argwhere(bad.reshape(-1))[0][0])
        raise DataError(f"{name}: missing or non-finite value at position {pos}; expected numbers in "
                        f"[{lo:g}, {hi:g}]")
    out = (arr < lo) | (arr > hi)
    if out.any():
        pos = int(np.argwhere(out.reshape(-1))[0][0])
        raise DataError(f"{name}: value {float(arr.reshape(-1)[pos]):g} at position {pos} is outside the "
                        f"declared bounds [{lo:g}, {hi:g}]")
    return np.clip((arr - lo) / (hi - lo), 0.0, 1.0)


class _Population:
    """Running sums shared by both engines: draws seen, their sum, and a regularised variance."""

    def __init__(self, n: int, N: int) -> None:
        self.N = N
        self.t = np.zeros(n, dtype=np.int64)
        self.S = np.zeros(n)
        self.sum_sq = np.zeros(n)

    def check_room(self, sel: Any) -> None:
        if np.any(self.t[sel] >= self.N):
            raise StateError(f"the population has N={self.N} values and all of them were already seen; "
                             "a without-replacement sample cannot be longer than N")

    def m_next(self, sel: Any, mu0: Any) -> np.ndarray:
        """Conditional mean of the next draw if the population mean were `mu0` (unit scale)."""
        remaining = (self.N - self.t[sel]).astype(float)
        if np.ndim(mu0) == 0:
            return (self.N * mu0 - self.S[sel]) / remaining
        return (self.N * mu0 - self.S[sel][:, None]) / remaining[:, None]

    def estimates(self, sel: Any) -> tuple[np.ndarray, np.ndarray]:
        """Predictable mean and variance estimates, shrunk towards 1/2 and 1/4 by one pseudo-draw."""
        tp1 = self.t[sel] + 1.0
        return (0.5 + self.S[sel]) / tp1, (0.25 + self.sum_sq[sel]) / tp1

    def observe(self, sel: Any, x: np.ndarray) -> None:
        self.t[sel] += 1
        self.S[sel] += x
        mu = (0.5 + self.S[sel]) / (self.t[sel] + 1.0)
        self.sum_sq[sel] += (x - mu) ** 2

    def certain(self, sel: Any, mu0: float) -> tuple[np.ndarray, np.ndarray]:
        """(mean > mu0 is certain, mean < mu0 is certain) from the values seen alone."""
        slack = _DET_TOL * max(1.0, self.N)
        S = self.S[sel]
        unseen = (self.N - self.t[sel]).astype(float)
        return S > self.N * mu0 + slack, S + unseen < self.N * mu0 - slack


class _FiniteMeanEngine:
    """`n` independent one-sided pairs of e-processes against the population mean `mu0` (unit scale).

    Column GREATER tests H0: mu <= mu0 (payoff x - m_t), column LESS tests H0: mu >= mu0 (payoff m_t - x).
    Stakes: an aGRAPA-type plug-in lambda = gap / (var + gap^2), gap = (estimated mean) - m_t(mu0),
    clipped to [0, c / m_t] (resp. [0, c / (1 - m_t)]) so every factor is >= 1 - c > 0.
    """

    def __init__(self, n: int, N: int, mu0: float, c: float) -> None:
        self.pop = _Population(n, N)
        self.mu0 = mu0
        self.c = c
        self.log_w = np.zeros((n, 2))
        self.log_w_max = np.zeros((n, 2))

    def step(self, sel: Any, x: np.ndarray) -> None:
        pop = self.pop
        m = np.clip(pop.m_next(sel, self.mu0), 0.0, 1.0)
        mu_hat, var = pop.estimates(sel)
        gap = mu_hat - m
        kelly = gap / (var + gap * gap)
        lam_g = np.clip(kelly, 0.0, self.c / np.maximum(m, _TINY))
        lam_l = np.clip(-kelly, 0.0, self.c / np.maximum(1.0 - m, _TINY))
        log_f = np.stack([np.log1p(lam_g * (x - m)), np.log1p(lam_l * (m - x))], axis=1)
        lw = self.log_w[sel] + log_f
        pop.observe(sel, x)
        more, less = pop.certain(sel, self.mu0)
        lw[more, GREATER] = math.inf
        lw[less, LESS] = math.inf
        self.log_w[sel] = lw
        self.log_w_max[sel] = np.maximum(self.log_w_max[sel], lw)


#: stakes of the confidence sequence's mixture (each capped per candidate mean): a geometric grid, so the
#: sequence is close to the best fixed stake at every scale of the deviation, for a log(6) premium
CS_STAKES = (1 / 32, 1 / 16, 1 / 8, 1 / 4, 1 / 2, 1.0)


class _FiniteCSEngine:
    """`n` confidence sequences on a grid of candidate means (unit scale).

    Each candidate's capital is the average of the capital processes of the fixed stakes `CS_STAKES`, each
    clipped to c / m_t (lower side) or c / (1 - m_t) (upper side). No stake depends on the candidate except
    through that clip, so every candidate's capital is monotone in the candidate and the set of grid points
    ever rejected is a prefix (lower side) / suffix (upper side) of the grid: the bounds below are valid for
    every real mean, not only the grid points.
    """

    def __init__(self, n: int, N: int, alpha: float, grid: int, c: float) -> None:
        self.pop = _Population(n, N)
        self.alpha = alpha
        self.c = c
        self.grid = np.linspace(0.0, 1.0, grid)
        self.stakes = np.asarray(CS_STAKES)[None, :, None]
        # the mixture's capital is the mean over stakes: reject where log-sum-exp >= log(2/alpha) + log(J)
        self.log_thresh = math.log(2.0 / alpha) + math.log(len(CS_STAKES))
        self.log_w = np.zeros((2, n, len(CS_STAKES), grid))
        self.rejected = np.zeros((2, n, grid), dtype=bool)

    def step(self, sel: Any, x: np.ndarray) -> None:
        pop = self.pop
        m = pop.m_next(sel, self.grid)[:, None, :]  # (k, 1, G)
        xc = x[:, None, None]
        lam = self.stakes
        # Outside [0, 1] a candidate is impossible given the values seen; it is excluded below by the
        # deterministic bounds, and leaving its stake uncapped keeps its factor positive.
        cap_g = np.where(m > 0, self.c / np.maximum(m, _TINY), np.inf)
        cap_l = np.where(m < 1, self.c / np.maximum(1.0 - m, _TINY), np.inf)
        lw_g = self.log_w[GREATER][sel] + np.log1p(np.minimum(lam, cap_g) * (xc - m))
        lw_l = self.log_w[LESS][sel] + np.log1p(np.minimum(lam, cap_l) * (m - xc))
        self.log_w[GREATER][sel] = lw_g
        self.log_w[LESS][sel] = lw_l
        self.rejected[GREATER][sel] |= _logsumexp_stakes(lw_g) >= self.log_thresh
        self.rejected[LESS][sel] |= _logsumexp_stakes(lw_l) >= self.log_thresh
        pop.observe(sel, x)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) on the unit scale for every stream, after the draws seen so far."""
        pop = self.pop
        G = self.grid.size
        rg = self.rejected[GREATER]
        rl = self.rejected[LESS]
        last = np.where(rg.any(axis=1), G - 1 - np.argmax(rg[:, ::-1], axis=1), -1)
        first = np.where(rl.any(axis=1), np.argmax(rl, axis=1), G)
        lower = np.where(last >= 0, self.grid[np.clip(last, 0, G - 1)], 0.0)
        upper = np.where(first < G, self.grid[np.clip(first, 0, G - 1)], 1.0)
        det_lo = pop.S / pop.N
        det_hi = (pop.S + (pop.N - pop.t)) / pop.N
        lower = np.maximum(lower, det_lo)
        upper = np.minimum(upper, det_hi)
        return lower, np.maximum(upper, lower)


def _logsumexp_stakes(lw: np.ndarray) -> np.ndarray:
    top = lw.max(axis=1)
    return top + np.log(np.exp(lw - top[:, None, :]).sum(axis=1))


def _check_N(N: Any) -> int:
    return check_positive_int("N (population size)", N)


def _check_grid(grid: Any) -> int:
    return check_positive_int("grid", grid, minimum=11)


class FiniteMeanTest:
    """Streaming anytime-valid test of the mean of N values sampled without replacement.

    Parameters
    ----------
    N : int
        Population size (items x epochs). At most N values can be fed.
    null_mean : float
        The value tested against, in the units of `bounds` (e.g. a threshold accuracy tau).
    alpha : float
        Level of the sequential decision.
    alternative : "greater", "less" or "two-sided"
        "greater" tests H0: mean <= null_mean (decision "greater" claims mean > null_mean); "less" the
        mirror; "two-sided" runs both one-sided e-processes and rejects when
        min(1, 2 min(p_greater, p_less)) <= alpha, in the direction of the smaller p-value, so the
        chance of any wrong decision is <= alpha even when the mean equals null_mean exactly.
    bounds : (lo, hi)
        Range of the values, e.g. (-1, 1) for paired differences; values are rescaled to [0, 1].
    c : float
        Largest fraction of wealth ever at stake (stakes are clipped so every factor is >= 1 - c).

    The order of the values must be a uniformly random permutation of the population (shuffle the
    items); the guarantee is about that randomness, whatever the values are.
    """

    def __init__(self, N: int, null_mean: float, *, alpha: float = 0.05, alternative: str = "two-sided",
                 bounds: Any = (0.0, 1.0), c: float = 0.5) -> None:
        self.N = _check_N(N)
        self.alpha = check_alpha(alpha)
        self.alternative = check_choice("alternative", alternative, ALTERNATIVES)
        self.bounds = _check_bounds(bounds)
        lo, hi = self.bounds
        try:
            nm = float(null_mean)
        except (TypeError, ValueError):
            raise ParameterError(f"null_mean must be a number, got {null_mean!r}") from None
        if not lo <= nm <= hi:
            raise ParameterError(f"null_mean {null_mean!r} is outside the bounds [{lo:g}, {hi:g}]")
        self.null_mean = nm
        self.c = _check_c(c)
        self._engine = _FiniteMeanEngine(1, self.N, (nm - lo) / (hi - lo), self.c)
        self._decision: str | None = None
        self._decided_at: int | None = None

    def update(self, x: Any) -> "FiniteMeanTest":
        """Consume one value (the next item of the random order)."""
        xa = _to_unit(x, *self.bounds)
        if xa.ndim != 0:
            raise DataError("update takes one scalar value; use update_many for sequences")
        self._engine.pop.check_room(slice(None))
        self._engine.step(slice(None), xa.reshape(1))
        self._after_step()
        return self

    def update_many(self, xs: Any) -> "FiniteMeanTest":
        xa = _to_unit(xs, *self.bounds)
        if xa.ndim != 1:
            raise DataError(f"x must be a 1-D sequence, got shape {xa.shape}")
        if self.n + xa.size > self.N:
            raise StateError(f"{self.n} values seen plus {xa.size} new ones exceed the population size "
                             f"N={self.N}")
        for i in range(xa.size):
            self._engine.step(slice(None), xa[i:i + 1])
            self._after_step()
        return self

    def _after_step(self) -> None:
        if self._decision is None:
            p, sign = _pvalue_sign(self._engine.log_w_max, self.alternative)
            if p[0] <= self.alpha and sign[0] != 0:
                self._decision = "greater" if sign[0] > 0 else "less"
                self._decided_at = self.n

    @property
    def n(self) -> int:
        """Values consumed so far."""
        return int(self._engine.pop.t[0])

    @property
    def p_greater(self) -> float:
        """Anytime-valid p-value for H0: mean <= null_mean."""
        return float(_pvalue_sign(self._engine.log_w_max, "greater")[0][0])

    @property
    def p_less(self) -> float:
        """Anytime-valid p-value for H0: mean >= null_mean."""
        return float(_pvalue_sign(self._engine.log_w_max, "less")[0][0])

    @property
    def pvalue(self) -> float:
        """Running-minimum p-value of the chosen alternative (two-sided: min(1, 2 min(p_greater, p_less)))."""
        return float(_pvalue_sign(self._engine.log_w_max, self.alternative)[0][0])

    @property
    def log_evalue(self) -> float:
        """log of the current e-process value (two-sided: the mean of both one-sided e-processes)."""
        return float(_log_evalue(self._engine.log_w, self.alternative)[0])

    @property
    def evalue(self) -> float:
        return math.exp(min(self.log_evalue, 709.0)) if self.log_evalue < math.inf else math.inf

    @property
    def decision(self) -> str | None:
        """"greater" (mean certified > null_mean), "less", or None; fixed at the first rejection."""
        return self._decision

    @property
    def decided_at(self) -> int | None:
        """1-based number of values consumed when the decision was made."""
        return self._decided_at

    def to_dict(self) -> dict[str, Any]:
        return {"N": self.N, "null_mean": self.null_mean, "alpha": self.alpha, "alternative": self.alternative,
                "n": self.n, "decision": self.decision, "decided_at": self.decided_at, "pvalue": self.pvalue,
                "p_greater": self.p_greater, "p_less": self.p_less,
                "log_evalue": self.log_evalue if math.isfinite(self.log_evalue) else None}


class FiniteConfidenceSequence:
    """Streaming anytime-valid confidence sequence for the mean of N values sampled without replacement.

    P(the population mean lies in [lower, upper] after every draw) >= 1 - alpha. `grid` candidate means
    (evenly spaced on `bounds`) are tracked; the bounds are conservative by at most one grid step.
    """

    def __init__(self, N: int, *, alpha: float = 0.05, bounds: Any = (0.0, 1.0), grid: int = 2001,
                 c: float = 0.5) -> None:
        self.N = _check_N(N)
        self.alpha = check_alpha(alpha)
        self.bounds = _check_bounds(bounds)
        self.c = _check_c(c)
        self._engine = _FiniteCSEngine(1, self.N, self.alpha, _check_grid(grid), self.c)
        self._cache: tuple[float, float] | None = (self.bounds[0], self.bounds[1])

    def update(self, x: Any) -> "FiniteConfidenceSequence":
        xa = _to_unit(x, *self.bounds)
        if xa.ndim != 0:
            raise DataError("update takes one scalar value; use update_many for sequences")
        self._engine.pop.check_room(slice(None))
        self._engine.step(slice(None), xa.reshape(1))
        self._cache = None
        return self

    def update_many(self, xs: Any) -> "FiniteConfidenceSequence":
        xa = _to_unit(xs, *self.bounds)
        if xa.ndim != 1:
            raise DataError(f"x must be a 1-D sequence, got shape {xa.shape}")
        if self.n + xa.size > self.N:
            raise StateError(f"{self.n} values seen plus {xa.size} new ones exceed the population size "
                             f"N={self.N}")
        for i in range(xa.size):
            self._engine.step(slice(None), xa[i:i + 1])
        self._cache = None
        return self

    def _interval(self) -> tuple[float, float]:
        if self._cache is None:
            lo, hi = self.bounds
            lower, upper = self._engine.bounds()
            self._cache = (lo + (hi - lo) * float(lower[0]), lo + (hi - lo) * float(upper[0]))
        return self._cache

    @property
    def n(self) -> int:
        return int(self._engine.pop.t[0])

    @property
    def lower(self) -> float:
        return self._interval()[0]

    @property
    def upper(self) -> float:
        return self._interval()[1]

    @property
    def width(self) -> float:
        lo, hi = self._interval()
        return hi - lo

    @property
    def mean(self) -> float | None:
        """Mean of the values seen (None before the first)."""
        if self.n == 0:
            return None
        lo, hi = self.bounds
        return lo + (hi - lo) * float(self._engine.pop.S[0]) / self.n

    def to_dict(self) -> dict[str, Any]:
        return {"N": self.N, "alpha": self.alpha, "n": self.n, "mean": self.mean, "lower": self.lower,
                "upper": self.upper, "width": self.width}


@dataclasses.dataclass(frozen=True)
class FiniteCS(ResultMixin):
    """Confidence sequence after each draw: `lower[t-1]`, `upper[t-1]` hold the interval after t draws."""

    lower: np.ndarray
    upper: np.ndarray
    N: int
    alpha: float

    @property
    def width(self) -> np.ndarray:
        return self.upper - self.lower


@dataclasses.dataclass(frozen=True)
class FiniteBatchResult(ResultMixin):
    """Many independent finite-population tests: decision +1 "greater", -1 "less", 0 none (per run)."""

    decision: np.ndarray
    decided_at: np.ndarray
    pvalue: np.ndarray
    log_evalue: np.ndarray
    n: int


def _as_runs(x: Any, bounds: tuple[float, float], N: int) -> tuple[np.ndarray, bool]:
    xa = _to_unit(x, *bounds)
    one = xa.ndim == 1
    if one:
        xa = xa[None, :]
    if xa.ndim != 2:
        raise DataError(f"x must be shaped (time,) or (runs, time), got {xa.shape}")
    if xa.shape[1] > N:
        raise DataError(f"{xa.shape[1]} values given but the population has only N={N}")
    return xa, one


def finite_confidence_sequence(x: Any, N: int, alpha: float = 0.05, *, bounds: Any = (0.0, 1.0),
                               grid: int = 2001, c: float = 0.5) -> FiniteCS:
    """Confidence sequence for the mean of the N-value population that `x` was drawn from, in order.

    `x` is (time,) or (runs, time) (one independent sample per row); the result has the same shape.
    """
    N = _check_N(N)
    alpha = check_alpha(alpha)
    bounds = _check_bounds(bounds)
    xa, one = _as_runs(x, bounds, N)
    runs, horizon = xa.shape
    eng = _FiniteCSEngine(runs, N, alpha, _check_grid(grid), _check_c(c))
    lower = np.empty((runs, horizon))
    upper = np.empty((runs, horizon))
    for t in range(horizon):
        eng.step(slice(None), np.ascontiguousarray(xa[:, t]))
        lower[:, t], upper[:, t] = eng.bounds()
    lo, hi = bounds
    lower = lo + (hi - lo) * lower
    upper = lo + (hi - lo) * upper
    if one:
        lower, upper = lower[0], upper[0]
    return FiniteCS(lower=lower, upper=upper, N=N, alpha=alpha)


def finite_mean_batch(x: Any, N: int, null_mean: float, alpha: float = 0.05, *, alternative: str = "two-sided",
                      bounds: Any = (0.0, 1.0), c: float = 0.5) -> FiniteBatchResult:
    """Run independent `FiniteMeanTest`s over the rows of a (runs, time) array (same numbers per row)."""
    N = _check_N(N)
    alpha = check_alpha(alpha)
    alternative = check_choice("alternative", alternative, ALTERNATIVES)
    bounds = _check_bounds(bounds)
    lo, hi = bounds
    nm = float(null_mean)
    if not lo <= nm <= hi:
        raise ParameterError(f"null_mean {null_mean!r} is outside the bounds [{lo:g}, {hi:g}]")
    xa, _ = _as_runs(x, bounds, N)
    runs, horizon = xa.shape
    eng = _FiniteMeanEngine(runs, N, (nm - lo) / (hi - lo), _check_c(c))
    decision = np.zeros(runs, dtype=np.int64)
    decided_at = np.zeros(runs, dtype=np.int64)
    for t in range(horizon):
        eng.step(slice(None), np.ascontiguousarray(xa[:, t]))
        p, sign = _pvalue_sign(eng.log_w_max, alternative)
        new = (decision == 0) & (p <= alpha) & (sign != 0)
        decision[new] = sign[new]
        decided_at[new] = t + 1
    p, _ = _pvalue_sign(eng.log_w_max, alternative)
    return FiniteBatchResult(decision=decision, decided_at=decided_at, pvalue=p,
                             log_evalue=_log_evalue(eng.log_w, alternative), n=horizon)


def _log_evalue(lw: np.ndarray, alternative: str) -> np.ndarray:
    if alternative == "greater":
        return lw[:, GREATER].copy()
    if alternative == "less":
        return lw[:, LESS].copy()
    return np.logaddexp(lw[:, GREATER], lw[:, LESS]) - math.log(2.0)


def _pvalue_sign(lwm: np.ndarray, alternative: str) -> tuple[np.ndarray, np.ndarray]:
    pg = np.minimum(1.0, np.exp(-lwm[:, GREATER]))
    pl = np.minimum(1.0, np.exp(-lwm[:, LESS]))
    if alternative == "greater":
        return pg, np.ones(pg.size, dtype=np.int64)
    if alternative == "less":
        return pl, -np.ones(pl.size, dtype=np.int64)
    sign = np.where(pg < pl, 1, np.where(pl < pg, -1, 0)).astype(np.int64)
    return np.minimum(1.0, 2.0 * np.minimum(pg, pl)), sign
