"""Equivalence: certify |mu_y - mu_x| < margin with an anytime-valid test (issue 35 item 1).

Two one-sided e-processes on the paired difference D_t = y_t - x_t in [-1, 1] (intersection-union):

- ``lower``: H0 E[D] <= -margin, payoff D + margin >= -(1 - margin); rejecting it certifies mu_y - mu_x > -margin;
- ``upper``: H0 E[D] >= +margin, payoff margin - D >= -(1 - margin); rejecting it certifies mu_y - mu_x < margin.

Each is a grid mixture of constant bets (:mod:`certirank.evidence.betgrid`), a test supermartingale under its
null for any within-pair dependence and any stopping time. The pair is **equivalent** at level a when

    p_equivalent = min(1, 2 * max(p_lower, p_upper)) <= a,

that is when both halves pass at a/2.

Why a/2 per half, and why that shares a pair's level with the difference test
-----------------------------------------------------------------------------
A pair's possible claims are "x<y" (rejects L0: D <= 0), "x>y" (rejects U0: D >= 0) and "equivalent"
(rejects L-: D <= -margin and U+: D >= +margin). The difference test of spec 01 §4 (``ties="allow"``) tests
L0 and U0 at a/2 each. Whatever the true difference Delta = mu_y - mu_x, at most two of the four one-sided
nulls are true and each is tested at a/2:

    Delta <= -margin: L0, L-      -margin < Delta < 0: L0      Delta = 0: L0, U0
    0 < Delta < margin: U0        Delta >= margin: U0, U+

A false claim about the pair rejects a true one-sided null (a false equivalence claim needs the true one of
L-/U+ rejected; the other is false when margin > 0), so by Ville and a union over at most two true nulls,

    P(some false claim about the pair is ever made) <= a/2 + a/2 = a,

at every stopping time, for every Delta, with no split of the level between the two kinds of claim.
Under ``ties="assume_none"`` each difference side is tested at a, and the sum would reach 1.5a when
|Delta| >= margin, so a margin requires ``ties="allow"``.

The margin is part of the analysis plan: it must be fixed before the data are seen.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._params import MARGIN
from .._validate import check_alpha, refuse
from ..errors import DataError
from ._core import check_scores
from .betgrid import BetGrid

__all__ = ["EquivalenceTest", "check_margin", "equivalence_batch", "LOWER", "UPPER"]

#: column of the half that certifies mu_y - mu_x > -margin
LOWER = 0
#: column of the half that certifies mu_y - mu_x < +margin
UPPER = 1


def check_margin(margin: Any) -> float:
    """A margin as the parameter contract declares it (``certirank._params.MARGIN``), required here."""
    if margin is None:
        raise refuse("margin", "a number in (0, 1)", margin)
    return MARGIN.check(margin)


def halves(d: np.ndarray, margin: float) -> tuple[np.ndarray, np.ndarray]:
    """Payoffs (k, 2) of the lower and upper halves for differences `d` (k,), and their loss bounds."""
    pay = np.stack([d + margin, margin - d], axis=-1)
    return pay, np.full_like(pay, 1.0 - margin)


class EquivalenceTest:
    """Streaming equivalence test of two policies on paired trials: is |mu_y - mu_x| < margin?

    Parameters
    ----------
    margin : float
        In (0, 1), fixed before the data.
    alpha : float
        Level of the claim "equivalent"; each half is tested at alpha/2 (module docstring).
    """

    def __init__(self, margin: float, alpha: float = 0.05) -> None:
        self.margin = check_margin(margin)
        self.alpha = check_alpha(alpha)
        self._bank = BetGrid(1, 2)
        self._decided_at: int | None = None

    def update(self, x: Any, y: Any) -> "EquivalenceTest":
        """Consume one paired trial."""
        xa = check_scores(x, "x")
        ya = check_scores(y, "y")
        if xa.ndim != 0 or ya.ndim != 0:
            raise DataError("update takes one pair of scalar scores; use update_many for sequences")
        return self.update_many(xa.reshape(1), ya.reshape(1))

    def update_many(self, xs: Any, ys: Any) -> "EquivalenceTest":
        """Consume paired trials in order."""
        xa = check_scores(xs, "x")
        ya = check_scores(ys, "y")
        if xa.ndim != 1 or xa.shape != ya.shape:
            raise DataError(f"x and y must be 1-D sequences of the same length, got shapes {xa.shape} and "
                            f"{ya.shape}")
        pay, loss = halves(ya - xa, self.margin)
        for t in range(xa.size):
            self._bank.step(pay[t:t + 1], loss[t:t + 1])
            if self._decided_at is None and self.pvalue <= self.alpha:
                self._decided_at = self.n
        return self

    @property
    def n(self) -> int:
        return int(self._bank.count[0])

    @property
    def p_lower(self) -> float:
        """p-process of H0: mu_y - mu_x <= -margin."""
        return float(self._bank.pvalues[0, LOWER])

    @property
    def p_upper(self) -> float:
        """p-process of H0: mu_y - mu_x >= +margin."""
        return float(self._bank.pvalues[0, UPPER])

    @property
    def pvalue(self) -> float:
        """min(1, 2 max(p_lower, p_upper)): the claim's p-value with each half at alpha/2."""
        return min(1.0, 2.0 * max(self.p_lower, self.p_upper))

    @property
    def equivalent(self) -> bool:
        """True from the first trial at which |mu_y - mu_x| < margin was certified (never revoked)."""
        return self._decided_at is not None

    @property
    def decided_at(self) -> int | None:
        return self._decided_at

    @property
    def bank(self) -> BetGrid:
        return self._bank


def equivalence_batch(x: np.ndarray, y: np.ndarray, margin: float, alpha: float = 0.05) -> dict[str, np.ndarray]:
    """Run (runs, time) arrays of paired scores through `EquivalenceTest`; same numbers, vectorised.

    Returns ``decided_at`` (runs,) 1-based time of the equivalence claim (0 = never) and the final
    ``p_lower``, ``p_upper``, ``pvalue``.
    """
    margin = check_margin(margin)
    alpha = check_alpha(alpha)
    xa = np.atleast_2d(check_scores(x, "x"))
    ya = np.atleast_2d(check_scores(y, "y"))
    if xa.shape != ya.shape:
        raise DataError(f"x and y must have the same shape (runs, time), got {xa.shape} and {ya.shape}")
    runs, horizon = xa.shape
    bank = BetGrid(runs, 2)
    decided = np.zeros(runs, dtype=np.int64)
    for t in range(horizon):
        pay, loss = halves(ya[:, t] - xa[:, t], margin)
        bank.step(pay, loss)
        p = np.minimum(1.0, 2.0 * bank.pvalues.max(axis=1))
        decided[(decided == 0) & (p <= alpha)] = t + 1
    pv = bank.pvalues
    return {"decided_at": decided, "p_lower": pv[:, LOWER], "p_upper": pv[:, UPPER],
            "pvalue": np.minimum(1.0, 2.0 * pv.max(axis=1))}
