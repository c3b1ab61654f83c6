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
benchmarks/bench_budget.py (--study mixture) it had the best worst-case ratio to oracle Kelly.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special

from ..errors import ParameterError
from ._core import _Bettor, _check_unit, require_binary
from .budget import log_statistic, log_upper_tail

__all__ = ["Adaptive", "BetaMixture", "GridMixture", "ADAPTIVE_CONCENTRATION", "DEFAULT_CONCENTRATION", "GRID_SIZE"]

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
        from ._core import _NScore

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
        lam = st["lam"][sel]
        dd = y - x
        logf = np.log1p(lam * np.stack([dd, -dd], axis=1))
        cx = st["counts_x"][sel]
        cy = st["counts_y"][sel]
        rows = np.arange(cx.shape[0])
        cx[rows, self.nscore.bin_of(x)] += 1
        cy[rows, self.nscore.bin_of(y)] += 1
        st["counts_x"][sel] = cx
        st["counts_y"][sel] = cy
        binary = st["binary"][sel] & ((x == 0) | (x == 1)) & ((y == 0) | (y == 1))
        st["binary"][sel] = binary
        k = st["disc"][sel] + (x != y)
        s = st["wins"][sel] + (y > x)
        st["disc"][sel] = k
        st["wins"][sel] = s
        nxt = np.empty_like(lam)
        nb = ~binary
        if nb.any():
            nxt[nb] = self.nscore.stakes(cx[nb], cy[nb])
        if binary.any():
            kb, sb = k[binary], s[binary]
            nxt[binary] = np.stack([self.beta._stake(kb, sb), self.beta._stake(kb, kb - sb)], axis=1)
        st["lam"][sel] = nxt
        return logf
