"""Mixtures of constant bets on a bounded payoff: the e-process behind equivalence and proxy-assisted tests.

A direction tests H0: E[g_t | past] <= 0 for a payoff g_t whose worst loss -L_t (g_t >= -L_t) is known
before g_t is seen. Each grid component bets a fixed fraction lam of the largest safe stake,

    M^lam_t = prod_{s<=t} (1 + lam * g_s / L_s),    lam in (0, 1),

which is positive and, under H0, a test supermartingale (E[1 + lam g/L | past] = 1 + lam E[g | past]/L <= 1
because lam/L >= 0 is predictable). A mixture with weights fixed before the data is one too (spec 01 §2
item 3), so Ville's inequality gives the anytime p-process p_t = min(1, inf_{s<=t} 1 / W_s).

Why a grid mixture rather than a plug-in stake: the payoffs here can be heavy-tailed (a proxy-rectified
unit is usually small, rarely as large as L = 2/pi - 1), and a plug-in stake that has not yet seen a rare
large loss over-bets. The mixture needs no estimate and pays only the log prior mass near the best
constant stake.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

__all__ = ["BetGrid", "GRID_SIZE"]

#: number of constant stakes in the mixture (uniform prior on the fraction of the safe stake)
GRID_SIZE = 40
# the top stake keeps every factor >= 1 - 0.98 > 0 even at the worst possible payoff
_TOP = 0.98


class BetGrid:
    """``n`` streams x ``d`` directions of grid-mixture wealth; updated with a payoff and its loss bound."""

    def __init__(self, n: int, d: int, grid_size: int = GRID_SIZE) -> None:
        self.grid = _TOP * (np.arange(grid_size) + 0.5) / grid_size
        self.log_w = -math.log(grid_size)
        self.log_grid = np.zeros((n, d, grid_size))
        self.log_wealth = np.zeros((n, d))
        self.log_wealth_max = np.zeros((n, d))
        self.count = np.zeros(n, dtype=np.int64)

    def step(self, payoff: np.ndarray, loss: np.ndarray, sel: slice | np.ndarray = slice(None)) -> None:
        """One observation for streams `sel`: payoff (k, d) with payoff >= -loss, loss (k, d) > 0."""
        frac = np.asarray(payoff, dtype=float) / np.asarray(loss, dtype=float)
        # the caller proves payoff >= -loss; clipping only absorbs rounding at the boundary
        frac = np.maximum(frac, -1.0)
        lg = self.log_grid[sel] + np.log1p(self.grid * frac[..., None])
        self.log_grid[sel] = lg
        lw = special.logsumexp(lg, axis=2) + self.log_w
        self.log_wealth[sel] = lw
        self.log_wealth_max[sel] = np.maximum(self.log_wealth_max[sel], lw)
        self.count[sel] += 1

    @property
    def pvalues(self) -> np.ndarray:
        """Canonical p-process per stream and direction, exp(-running max of log wealth), shape (n, d)."""
        return np.exp(-self.log_wealth_max)

    def tile(self, runs: int) -> "BetGrid":
        """A bank of `runs` copies of stream 0 (for forecasts that continue one test many ways)."""
        out = BetGrid.__new__(BetGrid)
        out.grid = self.grid
        out.log_w = self.log_w
        out.log_grid = np.repeat(self.log_grid[:1], runs, axis=0)
        out.log_wealth = np.repeat(self.log_wealth[:1], runs, axis=0)
        out.log_wealth_max = np.repeat(self.log_wealth_max[:1], runs, axis=0)
        out.count = np.repeat(self.count[:1], runs, axis=0)
        return out
