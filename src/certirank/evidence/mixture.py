"""Mixture e-processes for paired comparisons (spec 01 §2.3 mixtures; issue 15).

Both bettors are mixtures, with weights fixed before data, of the constant-stake test martingales
M^lam_t = prod_{s<=t} (1 + lam * D_s), lam in [0, 1), D_s = y_s - x_s for `less` (x_s - y_s for `more`).
Each M^lam is a test supermartingale for E[D | past] <= 0, so every fixed mixture is one as well (spec 01
§2 item 3), for any within-pair correlation and for any scores in [0, 1].

- ``beta_mixture`` (binary scores only): the continuous conjugate mixture. On binary data D is in
  {-1, 0, 1}, concordant pairs leave every M^lam unchanged and, with lam = 2q - 1,
  prod (1 + lam D) = 2^k q^s (1 - q)^(k - s) for k discordant pairs with s won by the side tested. A
  Beta(a, a) prior on q restricted to [1/2, 1] gives the closed form of :func:`budget.log_statistic`.
- ``mixture`` (any scores in [0, 1]): the same prior discretised on a fixed grid of stakes, one wealth per
  grid point; on binary data it approximates ``beta_mixture``.

Concentration a = 1 (uniform prior on lam in [0, 1]) is the default: among the values measured in
benchmarks/studies/budget_tests_vs_step.py (--study mixture) it had the best worst-case ratio to oracle Kelly.

- ``calibrated`` (the default of `compare`): a mixture prior chosen by exact dynamic programming, with the
  Ville overshoot recovered by a predictable stake for the first discordant pairs (see :class:`Calibrated`).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from scipy import special

from ..errors import ParameterError
from ._core import _Bettor, _NScore, _check_unit, require_binary
from ._tails import log_statistic, log_upper_tail

__all__ = ["Adaptive", "BetaMixture", "Calibrated", "GridMixture", "ADAPTIVE_CONCENTRATION", "DEFAULT_CONCENTRATION",
           "GRID_SIZE", "CALIBRATION_PAIRS", "decision_time_dp"]

DEFAULT_CONCENTRATION = 1.0
#: prior concentration of the default `adaptive` bettor on binary data (see its docstring)
ADAPTIVE_CONCENTRATION = 1.5
GRID_SIZE = 48


class BetaMixture(_Bettor):
    """Conjugate Beta(a, a) mixture on the discordant pairs of binary data; d = 2 (less, more)."""

    name = "beta_mixture"

    def __init__(self, concentration: float = DEFAULT_CONCENTRATION) -> None:
        self.a = _check_unit("concentration", concentration, 0.0, math.inf)
        self.options = {"concentration": self.a}

    def fields(self, n: int, d: int) -> dict[str, np.ndarray]:
        # lam is reported for inspection only: the posterior-mean stake 2 E[q | data] - 1 per direction
        return {"disc": np.zeros(n), "wins": np.zeros(n), "lam": np.full((n, 2), self._stake(0.0, 0.0))}

    def _stake(self, k: Any, s: Any) -> Any:
        # E[q | q >= 1/2] under Beta(a + s, a + k - s) restricted to [1/2, 1], as 2 E[q] - 1
        wa, wb = self.a + np.asarray(s, dtype=float), self.a + np.asarray(k, dtype=float) - np.asarray(s)
        mean = wa / (wa + wb) * np.exp(log_upper_tail(wa + 1.0, wb) - log_upper_tail(wa, wb))
        return np.clip(2.0 * mean - 1.0, 0.0, 0.995)

    @staticmethod
    def check(x: np.ndarray, y: np.ndarray) -> None:
        for name, v in (("x", x), ("y", y)):
            require_binary(v, name, "bettor 'beta_mixture'", "use 'mixture' or 'nscore' for partial progress")

    def observe(self, st: dict, sel: Any, t_new: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        k0 = st["disc"][sel]
        s0 = st["wins"][sel]
        k1 = k0 + (x != y)
        s1 = s0 + (y > x)
        old = np.stack([log_statistic(k0, s0, self.a), log_statistic(k0, k0 - s0, self.a)], axis=1)
        new = np.stack([log_statistic(k1, s1, self.a), log_statistic(k1, k1 - s1, self.a)], axis=1)
        st["disc"][sel] = k1
        st["wins"][sel] = s1
        st["lam"][sel] = np.stack([self._stake(k1, s1), self._stake(k1, k1 - s1)], axis=1)
        return new - old


class GridMixture(_Bettor):
    """Mixture of constant stakes on a fixed grid; d = 2 (less, more); any paired scores in [0, 1].

    Grid: GRID_SIZE stakes at the mid-quantiles of the prior of lam = 2q - 1 (q ~ Beta(a, a) on
    [1/2, 1]), equal weights, capped at 0.995 so every factor stays positive.
    """

    name = "mixture"

    def __init__(self, concentration: float = DEFAULT_CONCENTRATION, grid_size: int = GRID_SIZE) -> None:
        self.a = _check_unit("concentration", concentration, 0.0, math.inf)
        g = int(grid_size)
        if g < 1:
            raise ParameterError(f"grid_size must be a positive integer, got {grid_size!r}")
        self.options = {"concentration": self.a, "grid_size": g}
        u = (np.arange(g) + 0.5) / g
        # q | q >= 1/2 has CDF (2 I_q(a, a) - 1); invert at u: I_q = (1 + u) / 2
        q = special.betaincinv(self.a, self.a, (1.0 + u) / 2.0)
        self.grid = np.minimum(2.0 * q - 1.0, 0.995)
        self.log_w = np.full(g, -math.log(g))

    def fields(self, n: int, d: int) -> dict[str, np.ndarray]:
        g = self.grid.size
        lam0 = float(np.exp(self.log_w) @ self.grid)
        return {"log_grid": np.zeros((n, 2, g)), "lam": np.full((n, 2), lam0)}

    def observe(self, st: dict, sel: Any, t_new: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        lg = st["log_grid"][sel]
        before = special.logsumexp(lg + self.log_w, axis=2)
        dd = (y - x)[:, None]
        pay = np.stack([dd, -dd], axis=1)  # (m, 2, 1)
        lg = lg + np.log1p(self.grid * pay)
        st["log_grid"][sel] = lg
        post = lg + self.log_w
        after = special.logsumexp(post, axis=2)
        # the wealth-weighted stake: the mixture's effective bet on the next pair
        st["lam"][sel] = (np.exp(post - after[..., None]) * self.grid).sum(axis=2)
        return after - before


def _observe_pair(nscore: Any, st: dict, sel: Any, x: np.ndarray, y: np.ndarray) -> tuple:
    """The bookkeeping shared by the bettors that run N-SCORE on partial scores and a mixture on 0/1
    scores: N-SCORE's log factors and bin counts, then the all-binary flag and the discordant / winning
    counts (k, s)."""
    logf, cx, cy = nscore.count(st, sel, x, y)
    binary = st["binary"][sel] & ((x == 0) | (x == 1)) & ((y == 0) | (y == 1))
    st["binary"][sel] = binary
    k = st["disc"][sel] + (x != y)
    s = st["wins"][sel] + (y > x)
    st["disc"][sel] = k
    st["wins"][sel] = s
    return logf, cx, cy, binary, k, s


class Adaptive(_Bettor):
    """Default paired bettor: the conjugate Beta-mixture stake while every score seen so far is 0 or 1,
    the N-SCORE stake (with the configured bins) from the first partial score on; d = 2 (less, more).

    Any predictable stake in [0, 1) gives a test martingale prod (1 + lam_t D_t) (spec 01 §2.7), and
    "all scores so far are binary" is known before the next pair, so the switch is predictable. On
    binary data the process equals the `beta_mixture` e-process exactly: a mixture of constant-bet
    martingales is the product of its wealth-weighted stakes, here the posterior mean of 2q - 1.
    N-SCORE's bin counts are kept from the first pair, so it starts warm.
    """

    name = "adaptive"

    def __init__(self, bins: tuple[float, ...], concentration: float = ADAPTIVE_CONCENTRATION) -> None:
        self.beta = BetaMixture(concentration)
        self.nscore = _NScore(bins)
        self.bins = bins
        self.options = {"concentration": self.beta.a}

    def fields(self, n: int, d: int) -> dict[str, np.ndarray]:
        f = self.nscore.fields(n, d)
        f.update({"disc": np.zeros(n), "wins": np.zeros(n), "binary": np.ones(n, dtype=bool),
                  "lam": np.full((n, 2), self.beta._stake(0.0, 0.0))})
        return f

    def observe(self, st: dict, sel: Any, t_new: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        logf, cx, cy, binary, k, s = _observe_pair(self.nscore, st, sel, x, y)
        nxt = np.empty_like(logf)
        nb = ~binary
        if nb.any():
            nxt[nb] = self.nscore.stakes(cx[nb], cy[nb])
        if binary.any():
            kb, sb = k[binary], s[binary]
            nxt[binary] = np.stack([self.beta._stake(kb, sb), self.beta._stake(kb, kb - sb)], axis=1)
        st["lam"][sel] = nxt
        return logf


# --------------------------------------------------------------------------------------------------
# calibrated mixture (issue 15 item 2)
# --------------------------------------------------------------------------------------------------

#: discordant pairs over which the calibrated stake recovers the overshoot (past it: the plain mixture)
CALIBRATION_PAIRS = 400
_LOG2 = math.log(2.0)


def _grid(lo: float, hi: float, gamma: float, size: int) -> np.ndarray:
    """Mid-quantiles of the density prop. to delta^-gamma on [lo, hi] (delta = q - 1/2)."""
    u = (np.arange(size) + 0.5) / size
    if gamma == 1.0:
        return lo * (hi / lo) ** u
    e = 1.0 - gamma
    return (lo ** e + u * (hi ** e - lo ** e)) ** (1.0 / e)


# Prior on q = P(the tested side wins | discordant pair), on (1/2, 1]: on delta = q - 1/2 a piecewise log-uniform
# density (_PRIOR_MASS on the pieces between _PRIOR_EDGES, 8 log-spaced points each) plus _PRIOR_UNIFORM uniform on
# [1/2, 1] (continuous: the test is consistent against every alternative). Chosen by the exact dynamic programme of
# `decision_time_dp` (issue 31 item 5) to bring the worst ratio to oracle Kelly on q in [0.6, 0.775] (Bernoulli gaps
# 0.1-0.3 around 1/2) down, without being worse than the previous prior (session 5: 85 % delta^(-1/2) on
# [0.04, 0.49], 10 % log-uniform on [0.01, 0.04], 5 % uniform) at q = 0.55 (gap 0.05) or anywhere in [0.845, 0.97]
# (gaps 0.4 and up), by more than 0.002; see docs/performance/evidence.md for the search, the curves and the lower
# bound no valid test can beat (`oracle.kelly_ratio_lower_bound`).
_PRIOR_EDGES = (0.01, 0.03, 0.05, 0.08, 0.12, 0.18, 0.26, 0.36, 0.49)
_PRIOR_MASS = (0.0047, 0.0409, 0.1341, 0.1323, 0.1427, 0.113, 0.2078, 0.1748)
_PRIOR_UNIFORM = 0.05
_PER_PIECE = 8


def _piecewise_prior(edges: tuple[float, ...], mass: tuple[float, ...], total: float) -> tuple[np.ndarray, np.ndarray]:
    """(q, log weight) of the grid: per piece [a, b] of delta, 8 points at the mid-quantiles of log-uniform on it; the
    pieces' masses scaled to sum to `total`."""
    qs, logw = [], []
    scale = total / math.fsum(mass)
    for a, b, m in zip(edges[:-1], edges[1:], mass):
        qs.append(0.5 + _grid(a, b, 1.0, _PER_PIECE))
        logw.append(np.full(_PER_PIECE, math.log(m * scale / _PER_PIECE)))
    return np.concatenate(qs), np.concatenate(logw)


_PRIOR_Q, _PRIOR_LOGW = _piecewise_prior(_PRIOR_EDGES, _PRIOR_MASS, 1.0 - _PRIOR_UNIFORM)
#: (q grid, log weights, uniform weight) of the default prior
PRIOR = (_PRIOR_Q, _PRIOR_LOGW, _PRIOR_UNIFORM)


def prior_log_statistic(k: Any, s: Any, prior: tuple | None = None) -> np.ndarray:
    """log T(k, s) = log of 2^k E_prior[q^s (1 - q)^(k - s)] for the calibrated bettor's prior (or `prior`, a
    (q grid, log weights, uniform weight) triple)."""
    q, log_w, uniform = PRIOR if prior is None else prior
    k = np.asarray(k, dtype=float)
    s = np.asarray(s, dtype=float)
    grid = log_w + s[..., None] * np.log(2.0 * q) + (k - s)[..., None] * np.log(2.0 * (1.0 - q))
    parts = np.concatenate([grid, (math.log(uniform) + log_statistic(k, s, 1.0))[..., None]], axis=-1)
    # a plain max-shifted log-sum-exp: the same formula as scipy's, without its per-call checks (3-5x faster on
    # long runs; agrees with scipy.special.logsumexp to ~1e-14, `tests/test_evidence_fast.py`)
    top = parts.max(axis=-1, keepdims=True)
    return (np.log(np.exp(parts - top).sum(axis=-1, keepdims=True)) + top)[..., 0]


def _mixture_stake(k: Any, s: Any) -> np.ndarray:
    # a mixture of constant-stake martingales moves by the factor T(k+1, s+1) / T(k, s) = 1 + lam on a win
    return np.clip(np.expm1(prior_log_statistic(np.asarray(k) + 1, np.asarray(s) + 1) - prior_log_statistic(k, s)),
                   0.0, 0.995)


# log c found by `_Calibration._bisect` for the targets of alpha = 0.1, 0.05 and 0.01 (2 / alpha with ties
# allowed, 1 / alpha without): the 45 backward passes of the bisection are most of a small `certirank compare`'s
# run time. Bit for bit the bisection's result (`tests/test_startup.py` re-runs it); any other target bisects.
_SOLVED_LOG_C = {10.0: "0x1.1174d49201dd6p+1", 20.0: "0x1.66b1f440a3051p+1", 40.0: "0x1.c629519ceb58dp+1",
                 100.0: "0x1.1a8e435b8ae16p+2", 200.0: "0x1.4b3f83724eab3p+2"}
# lam[0, 0] of the same tables: a bettor fixes its first stake before any pair, so a run whose first pair has a
# partial score (it never uses the table) does not build the table, about 0.1 s of CPU. Bit for bit the table's
# (`tests/test_calibration_lazy.py` builds it).
_FIRST_STAKE = {10.0: "0x1.8aed86ca71eacp-2", 20.0: "0x1.92cc5513927a0p-2", 40.0: "0x1.aee5de7411664p-2",
                100.0: "0x1.941b08d0284f0p-2", 200.0: "0x1.a6f874d5f4000p-2"}


class _Calibration:
    """Tables of the calibrated stake for k < CALIBRATION_PAIRS discordant pairs and one target wealth, built on
    first use."""

    def __init__(self, target: float, pairs: int = CALIBRATION_PAIRS, prior: tuple | None = None) -> None:
        self.target = target
        self.pairs = pairs
        self.prior = prior

    @functools.cached_property
    def _low(self) -> np.ndarray:
        n = self.pairs
        k, s = np.meshgrid(np.arange(n + 2), np.arange(n + 2), indexing="ij")
        return s <= k

    @functools.cached_property
    def log_t(self) -> np.ndarray:
        n = self.pairs
        k, s = np.meshgrid(np.arange(n + 2), np.arange(n + 2), indexing="ij")
        tab = np.full((n + 2, n + 2), -np.inf)
        tab[self._low] = prior_log_statistic(k[self._low], s[self._low], self.prior)
        return tab

    @functools.cached_property
    def log_c(self) -> float:
        # least log c (to ~1e-10 nats) with H(0, 0) <= level: the wealth H / H(0, 0) then reaches 1 / level
        # (>= target, with a 1e-9 relative margin against rounding) exactly when T first reaches c
        solved = _SOLVED_LOG_C.get(self.target) if self.pairs == CALIBRATION_PAIRS and self.prior is None else None
        return self._bisect(self.target) if solved is None else float.fromhex(solved)

    @functools.cached_property
    def h(self) -> np.ndarray:
        return self._backward(self.log_c)

    @functools.cached_property
    def log_h0(self) -> float:
        return math.log(self.h[0, 0])

    @functools.cached_property
    def lam(self) -> np.ndarray:
        n, h = self.pairs, self.h
        with np.errstate(divide="ignore", invalid="ignore"):
            lam = h[1:n + 1, 1:n + 1] / h[:n, :n] - 1.0
        # no 0.995 cap here: the stakes must telescope to H exactly, and lam < 1 because H(k + 1, s) > 0
        return np.where(self._low[:n, :n], np.clip(np.nan_to_num(lam), 0.0, 1.0 - 1e-12), 0.0)  # lam[k, s], k < n

    @functools.cached_property
    def first_stake(self) -> float:
        """lam[0, 0], the stake of the first pair (kept for the usual targets, so it needs no table)."""
        kept = _FIRST_STAKE.get(self.target) if self.pairs == CALIBRATION_PAIRS and self.prior is None else None
        return float(self.lam[0, 0]) if kept is None else float.fromhex(kept)

    def _bisect(self, target: float) -> float:
        level = (1.0 - 1e-9) / target
        lo, hi = math.log(target) - 3.0, math.log(target)
        for _ in range(45):
            mid = 0.5 * (lo + hi)
            if self._backward(mid)[0, 0] <= level:
                hi = mid
            else:
                lo = mid
        return hi

    def _backward(self, log_c: float) -> np.ndarray:
        """H(k, s) = P_{q=1/2}(T reaches c from (k, s) by pair n) + E[T_n / c; not reached], k <= n."""
        n = self.pairs
        cross = self.log_t[:n + 1, :n + 1] >= log_c
        h = np.zeros((n + 1, n + 1))
        h[n] = np.where(cross[n], 1.0, np.exp(np.minimum(self.log_t[n, :n + 1] - log_c, 0.0)))
        for k in range(n - 1, -1, -1):
            h[k, :k + 1] = np.where(cross[k, :k + 1], 1.0, 0.5 * (h[k + 1, 1:k + 2] + h[k + 1, :k + 1]))
        return h

    def log_wealth(self, k: int, s: int) -> float:
        """log-wealth at (k, s) of a path that has not yet reached the target (one direction)."""
        if k <= self.pairs:
            return math.log(self.h[k, s]) - self.log_h0
        return float(prior_log_statistic(k, s, self.prior)) - self.log_c - self.log_h0


@functools.lru_cache(maxsize=8)
def calibration(target: float) -> _Calibration:
    return _Calibration(float(target))


class Calibrated(_Bettor):
    """Default paired bettor (issue 15): a calibrated mixture on binary data, N-SCORE on partial progress.

    On binary data only discordant pairs move the wealth. Write k for their number and s for those won by
    the tested side, T(k, s) for the mixture likelihood ratio of the prior above (a test martingale), and
    H(k, s) for the fair-coin probability that T ever reaches a level c from (k, s) (up to pair
    n = CALIBRATION_PAIRS; past it Ville's bound T / c). H is a martingale in the fair-coin walk, so
    W = H / H(0, 0) is the wealth of the predictable stake lam = H(k + 1, s + 1) / H(k, s) - 1 in [0, 1):
    a test supermartingale for E[D | past] <= 0 under any dependence (spec 01 §2.7: lam >= 0 because H
    rises in s). c is the least level with H(0, 0) <= 1 / target, so W reaches `target` exactly when T
    reaches c < target: the overshoot Ville's inequality wastes (P(T ever reaches target) < 1 / target
    because T jumps past it) is spent instead. After the first crossing, past pair n, or once a partial
    score is seen, the stake is the plain mixture's (resp. N-SCORE's, counts kept from pair 1).

    ``target`` is the wealth at which the comparison decides: 2 / alpha in `allow` mode, 1 / alpha with
    `assume_none` (`PairedTest` and `compare` set it from their alpha); validity never depends on it.
    """

    name = "calibrated"

    def __init__(self, bins: tuple[float, ...], target: float = 40.0) -> None:
        self.target = _check_unit("target", target, 1.0, math.inf)
        self.cal = calibration(self.target)
        self.nscore = _NScore(bins)
        self.options = {"target": self.target}

    def fields(self, n: int, d: int) -> dict[str, np.ndarray]:
        f = self.nscore.fields(n, d)
        f.update({"disc": np.zeros(n), "wins": np.zeros(n), "binary": np.ones(n, dtype=bool),
                  "reached": np.zeros((n, 2), dtype=bool), "lam": np.full((n, 2), self.cal.first_stake)})
        return f

    def _stakes(self, k: np.ndarray, s: np.ndarray, reached: np.ndarray) -> np.ndarray:
        ki, si = k.astype(np.int64), s.astype(np.int64)
        out = np.empty((k.size, 2))
        for j, wins in enumerate((si, ki - si)):
            cal = (~reached[:, j]) & (ki < self.cal.pairs)
            if cal.any():
                out[cal, j] = self.cal.lam[ki[cal], wins[cal]]
            rest = ~cal
            if rest.any():
                out[rest, j] = _mixture_stake(ki[rest], wins[rest])
        return out

    def observe(self, st: dict, sel: Any, t_new: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        logf, cx, cy, binary, k, s = _observe_pair(self.nscore, st, sel, x, y)
        # the calibrated stake is only right while the wealth is H / H(0, 0), i.e. before the first crossing
        reached = st["reached"][sel] | (st["log_wealth"][sel] + logf >= math.log(self.target) - 1e-9)
        st["reached"][sel] = reached
        nxt = np.empty_like(logf)
        nb = ~binary
        if nb.any():
            nxt[nb] = self.nscore.stakes(cx[nb], cy[nb])
        if binary.any():
            nxt[binary] = self._stakes(k[binary], s[binary], reached[binary])
        st["lam"][sel] = nxt
        return logf


def _stakes_once(k: np.ndarray, w: np.ndarray) -> np.ndarray:
    """`_mixture_stake(k, w)` with log T evaluated once per distinct state (a run revisits states: every concordant
    pair keeps the counts, and a win's (k + 1, w + 1) is the next state); the same numbers elementwise."""
    key = np.concatenate([k * (k.max(initial=0) + 2) + w, (k + 1) * (k.max(initial=0) + 2) + w + 1])
    uniq, inv = np.unique(key, return_inverse=True)
    base = k.max(initial=0) + 2
    lt = prior_log_statistic(uniq // base, uniq % base)[inv]
    return np.clip(np.expm1(lt[k.size:] - lt[:k.size]), 0.0, 0.995)


def binary_run(bettor: Calibrated, st: dict, x: np.ndarray, y: np.ndarray) -> np.ndarray | None:
    """The log factors (T, 2) of one stream (state arrays of length 1) fed the binary pairs x, y at once, with the
    state advanced as T calls of `Calibrated.observe` would leave it; None (state untouched) if the stream has seen
    a partial score, so the caller steps pair by pair.

    Vectorised (issue 37 item 1): every stake is the table or mixture stake of the counts before its pair, and the
    switch to the mixture stake happens once per direction, at the first pair whose wealth reaches the target. So
    the factors are computed for the whole run with the calibrated stake, the first crossing is found on their
    cumulative sum, and the factors after it are recomputed with the mixture stake. Each factor is the same
    `log1p(lam * d)` of the same stake as the pair-by-pair path, and `np.cumsum` adds them in the same order as the
    engine's running sum, so the wealth is identical to the bit (`tests/test_evidence_fast.py`).
    """
    if not bool(st["binary"][0]):
        return None
    n = x.size
    d = y - x
    k0, s0 = int(st["disc"][0]), int(st["wins"][0])
    k = k0 + np.concatenate([[0], np.cumsum(d != 0)])  # counts before pair i (i = 0..n-1), then after the last
    s = s0 + np.concatenate([[0], np.cumsum(d > 0)])
    lw0 = st["log_wealth"][0]
    bound = math.log(bettor.target) - 1e-9
    logf = np.empty((n, 2))
    reached = st["reached"][0].copy()
    lam_next = np.empty(2)
    for j, (wins, pay) in enumerate(((s, d), (k - s, -d))):
        lam = np.empty(n + 1)
        first = 0
        if not reached[j]:
            cal = k < bettor.cal.pairs
            lam[cal] = bettor.cal.lam[k[cal], wins[cal]]
            if (~cal).any():
                lam[~cal] = _stakes_once(k[~cal], wins[~cal])
            lam[0] = st["lam"][0, j]  # the stake fixed before this call
            lf = np.log1p(lam[:n] * pay)
            # the engine adds the factors one at a time: lw_i = lw_{i-1} + f_i, as cumsum does
            path = np.cumsum(np.concatenate([[lw0[j]], lf]))[1:]
            hit = np.flatnonzero(path >= bound)
            first = int(hit[0]) + 1 if hit.size else n + 1  # stakes from pair `first` on are the mixture's
            logf[:first, j] = lf[:first]
        if first <= n:
            lam[first:] = _stakes_once(k[first:], wins[first:])
            if first == 0:
                lam[0] = st["lam"][0, j]
            logf[first:, j] = np.log1p(lam[first:n] * pay[first:])
            reached[j] = True
        lam_next[j] = lam[n]
    for key, val in (("disc", k[-1]), ("wins", s[-1])):
        st[key][0] = val
    st["reached"][0] = reached
    st["lam"][0] = lam_next
    cx, cy = st["counts_x"][0], st["counts_y"][0]
    b0, b1 = bettor.nscore.bin_of(np.array([0.0, 1.0]))
    ones_x, ones_y = int(x.sum()), int(y.sum())
    cx[b1] += ones_x
    cx[b0] += n - ones_x
    cy[b1] += ones_y
    cy[b0] += n - ones_y
    return logf


def decision_time_dp(q: float, *, target: float = 40.0, k_max: int | None = None,
                     prior: tuple | None = None) -> dict[str, float]:
    """Exact law of the mirrored decision of the `calibrated` bettor on binary data, by dynamic programming.

    The discordant pairs are i.i.d. with P(challenger wins) = q; the comparison decides at the first
    discordant pair k where either direction's wealth reaches `target` (before any crossing the wealth is a
    function of (k, s), so the walk's law gives the decision's law exactly). Returns the expected number of
    discordant pairs at the decision ``mean_pairs`` (undecided paths counted at k_max), ``p_right`` /
    ``p_wrong`` (decided for the challenger / against it by k_max) and ``p_undecided``. With independent
    rollouts the trials per discordant pair are geometric with mean 1 / r, so the expected number of trials
    is mean_pairs / r. ``prior`` (a (q grid, log weights, uniform weight) triple, default the bettor's own)
    lets a study compare priors under the same construction.
    """
    cal = calibration(float(target)) if prior is None else _Calibration(float(target), prior=prior)
    if k_max is None:
        k_max = 4 * cal.pairs
    bound = math.log(float(target)) - 1e-9
    # u[k] = least s whose wealth reaches the target: wealth rises in s, and u[k+1] - u[k] is 0 or 1
    u = np.empty(k_max + 1, dtype=np.int64)
    u[0] = 0 if cal.log_wealth(0, 0) >= bound else 1
    for k in range(1, k_max + 1):
        c = int(u[k - 1])
        u[k] = c if c <= k and cal.log_wealth(k, c) >= bound else c + 1
    p = np.zeros(k_max + 2)
    p[0] = 1.0
    mean = right = wrong = 0.0
    for k in range(1, k_max + 1):
        new = np.empty(k + 1)
        new[0] = (1.0 - q) * p[0]
        new[1:k] = q * p[:k - 1] + (1.0 - q) * p[1:k]
        new[k] = q * p[k - 1]
        b = int(u[k])
        if b <= k:
            fr = new[b:].sum()
            new[b:] = 0.0
            fw = new[:k - b + 1].sum() if k - b >= 0 else 0.0
            new[:max(k - b + 1, 0)] = 0.0
            mean += k * (fr + fw)
            right += fr
            wrong += fw
        p[:k + 1] = new
    alive = float(p.sum())
    return {"mean_pairs": mean + alive * k_max, "p_right": right, "p_wrong": wrong, "p_undecided": alive}
