"""Prediction-powered evidence: a cheap proxy on every unit, the real outcome on a random few (issue 35 item 3).

Each unit t (a paired trial: both policies on one environment, or one item) has proxy scores f^x_t, f^y_t in
[0, 1] (a simulator, a world model, an LLM judge) and, with probability ``label_rate`` pi drawn independently
of everything else (xi_t ~ Bernoulli(pi)), the real scores x_t, y_t. With f_t = f^y_t - f^x_t and
d_t = y_t - x_t, the unit contributes the rectified value

    v_t = theta_t f_t + (xi_t / pi) (d_t - theta_t f_t),

where the proxy weight theta_t in [-1, 1] is learned from the labelled units seen before t only (PPI++:
theta = sum f d / (1 + sum f^2) over past labels, the least-squares coefficient shrunk to 0). Because
theta_t is fixed before unit t and xi_t is independent of (f_t, d_t) with known mean pi,

    E[v_t | past] = theta_t E[f_t] + E[d_t - theta_t f_t] = E[d_t] = mu_y - mu_x,

whatever the proxy's bias: a proxy that lies toward one policy changes the variance, never the mean. And
v_t >= -B_t with B_t = (1/pi - 1)|theta_t| + 1/pi known before unit t, so the betting e-processes of
:mod:`certirank.evidence.betgrid` on v_t (and on -v_t, v_t + margin, margin - v_t) are test
supermartingales under the corresponding nulls: the decision rules and the level accounting are those of
`compare` (spec 01 §4) and of :mod:`certirank.evidence.equivalence`.

A useless proxy costs nothing: with theta = 0 the value is (xi/pi) d, and a factor 1 + lam (xi/pi) d / B equals
1 on every unlabelled unit, so the test is the real-only test of the labelled units with the same stakes.

Validity conditions (the docs repeat them): which units get a real label is drawn at random with the
declared pi, independently of the outcomes and the proxy; units arrive in an order independent of their
outcomes (spec 09); the proxy of a unit is recorded whether or not it is labelled.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import stats

from .._params import LABEL_RATE
from .._validate import check_alpha, refuse
from ..errors import DataError
from ._core import check_scores
from .betgrid import BetGrid
from .equivalence import check_margin

__all__ = ["ProxyTest", "proxy_batch", "check_label_rate", "check_proxy_inputs", "rectified"]

LESS, MORE, LOWER, UPPER = 0, 1, 2, 3
# a label count this unlikely under the declared rate means the rate is wrong (the values would be biased)
_RATE_CHECK = 1e-6


def check_label_rate(label_rate: Any) -> float:
    """The label rate as the parameter contract declares it (``certirank._params.LABEL_RATE``), required."""
    if label_rate is None:
        raise refuse("label_rate", "a number in (0, 1]", label_rate)
    return LABEL_RATE.check(label_rate)


def _real(values: Any, name: str) -> np.ndarray:
    """Real scores with NaN where not observed; anything else outside [0, 1] is refused."""
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise DataError(f"{name}: expected numbers in [0, 1] or blank (NaN) where not observed") from None
    if arr.ndim != 1:
        raise DataError(f"{name} must be a 1-D sequence, got shape {arr.shape}")
    seen = ~np.isnan(arr)
    check_scores(arr[seen], name)
    return arr


def check_proxy_inputs(x: Any, y: Any, proxy_x: Any, proxy_y: Any, label_rate: Any, *, check_rate: bool = True
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    """Validate one proxy-assisted comparison; returns x, y (0 where unlabelled), f^x, f^y, labelled mask, pi."""
    pi = check_label_rate(label_rate)
    xa = _real(x, "x")
    ya = _real(y, "y")
    for name, p in (("proxy_x", proxy_x), ("proxy_y", proxy_y)):
        try:
            arr = np.asarray(p, dtype=float)
        except (TypeError, ValueError):
            raise DataError(f"{name}: expected proxy scores in [0, 1]") from None
        if arr.ndim != 1:
            raise DataError(f"{name} must be a 1-D sequence, got shape {arr.shape}")
        blank = np.isnan(arr)
        if blank.any():
            raise DataError(f"{name}: blank proxy score at position {int(np.flatnonzero(blank)[0])}; every unit "
                            "needs a proxy score (the real score may be blank)")
        check_scores(arr, name)
    fx = np.asarray(proxy_x, dtype=float)
    fy = np.asarray(proxy_y, dtype=float)
    sizes = {xa.size, ya.size, fx.size, fy.size}
    if len(sizes) != 1:
        raise DataError(f"x, y, proxy_x and proxy_y must have the same length (one per unit), got "
                        f"{xa.size}, {ya.size}, {fx.size} and {fy.size}")
    if xa.size == 0:
        raise DataError("no units: a proxy-assisted comparison needs at least one unit")
    lx, ly = ~np.isnan(xa), ~np.isnan(ya)
    half = np.flatnonzero(lx != ly)
    if half.size:
        t = int(half[0])
        raise DataError(f"unit {t}: a real score for {'x' if lx[t] else 'y'} but not for {'y' if lx[t] else 'x'}; "
                        "a unit is labelled for both policies or for neither")
    labelled = lx
    k, n = int(labelled.sum()), xa.size
    if pi == 1.0 and k < n:
        raise DataError(f"label_rate = 1 says every unit was labelled, but unit {int(np.flatnonzero(~labelled)[0])} "
                        "has no real score")
    if check_rate and pi < 1.0 and min(stats.binom.cdf(k, n, pi), stats.binom.sf(k - 1, n, pi)) < _RATE_CHECK:
        raise DataError(f"{k} of {n} units have real scores, implausible if each was labelled with probability "
                        f"label_rate = {pi:g}; declare the rate at which labels were drawn (a wrong rate biases "
                        "the test)")
    return (np.where(labelled, xa, 0.0), np.where(labelled, ya, 0.0), fx, fy, labelled, pi)


def rectified(f: np.ndarray, d: np.ndarray, labelled: np.ndarray, theta: np.ndarray, pi: float) -> np.ndarray:
    """v = theta f + (xi/pi)(d - theta f): unbiased for E[d] whatever the proxy (module docstring)."""
    return theta * f + labelled * (d - theta * f) / pi


class _ProxyBank:
    """Vectorised state of ``runs`` proxy-assisted comparisons (4 directions each)."""

    def __init__(self, runs: int, pi: float, margin: float | None, weight: float | None) -> None:
        self.pi = pi
        self.margin = margin
        self.weight = weight  # None = learned (PPI++); a number = fixed (0 = real-only)
        self.grid = BetGrid(runs, 4 if margin else 2)
        self.sum_fd = np.zeros(runs)
        self.sum_ff = np.zeros(runs)
        self.labels = np.zeros(runs, dtype=np.int64)

    def theta(self) -> np.ndarray:
        if self.weight is not None:
            return np.full(self.sum_fd.shape, float(self.weight))
        return np.clip(self.sum_fd / (1.0 + self.sum_ff), -1.0, 1.0)

    def step(self, x: np.ndarray, y: np.ndarray, fx: np.ndarray, fy: np.ndarray, lab: np.ndarray) -> None:
        th = self.theta()
        f = fy - fx
        d = y - x
        labf = lab.astype(float)
        v = rectified(f, d, labf, th, self.pi)
        bound = (1.0 / self.pi - 1.0) * np.abs(th) + 1.0 / self.pi
        cols = [v, -v]
        loss = [bound, bound]
        if self.margin:
            cols += [v + self.margin, self.margin - v]
            loss += [bound - self.margin, bound - self.margin]
        self.grid.step(np.stack(cols, axis=1), np.stack(loss, axis=1))
        # the weight for the next unit learns from this unit's label only now (predictable)
        self.sum_fd += labf * f * d
        self.sum_ff += labf * f * f
        self.labels += lab.astype(np.int64)

    def p(self) -> np.ndarray:
        return self.grid.pvalues

    def signs(self, alpha: float) -> np.ndarray:
        p = self.p()
        diff = np.minimum(1.0, 2.0 * np.minimum(p[:, LESS], p[:, MORE]))
        s = np.sign(p[:, MORE] - p[:, LESS]).astype(np.int64)  # +1: y better (x<y)
        return np.where(diff <= alpha, s, 0)

    def equivalent(self, alpha: float) -> np.ndarray:
        if not self.margin:
            return np.zeros(self.p().shape[0], dtype=bool)
        p = self.p()
        return np.minimum(1.0, 2.0 * np.maximum(p[:, LOWER], p[:, UPPER])) <= alpha


def proxy_batch(x: np.ndarray, y: np.ndarray, proxy_x: np.ndarray, proxy_y: np.ndarray, labelled: np.ndarray,
                label_rate: float, alpha: float = 0.05, *, margin: float | None = None,
                weight: float | None = None) -> dict[str, np.ndarray]:
    """Run (runs, units) arrays through the proxy-assisted test (validated inputs; x, y any value where
    unlabelled). ``weight=None`` learns the proxy weight (PPI++), ``weight=0.0`` is the real-only test of the
    labelled units. Returns ``decision`` (+1 x<y, -1 x>y, 0), ``decided_at``, ``equivalent_at`` (0 = never),
    ``labels_at_decision`` (real labels used when decided; 0 if undecided) and final p-values."""
    runs, n = x.shape
    bank = _ProxyBank(runs, label_rate, margin, weight)
    sign = np.zeros(runs, dtype=np.int64)
    decided = np.zeros(runs, dtype=np.int64)
    labels_at = np.zeros(runs, dtype=np.int64)
    eq_at = np.zeros(runs, dtype=np.int64)
    for t in range(n):
        bank.step(x[:, t], y[:, t], proxy_x[:, t], proxy_y[:, t], labelled[:, t])
        s = bank.signs(alpha)
        new = (sign == 0) & (s != 0)
        sign[new] = s[new]
        decided[new] = t + 1
        labels_at[new] = bank.labels[new]
        if margin:
            eq_at[(eq_at == 0) & bank.equivalent(alpha)] = t + 1
    p = bank.p()
    out = {"decision": sign, "decided_at": decided, "labels_at_decision": labels_at, "equivalent_at": eq_at,
           "p_less": p[:, LESS], "p_more": p[:, MORE], "labels": bank.labels, "proxy_weight": bank.theta(),
           "log_wealth": bank.grid.log_wealth}
    if margin:
        out.update(p_lower=p[:, LOWER], p_upper=p[:, UPPER])
    return out


class ProxyTest:
    """Streaming proxy-assisted comparison of two policies (module docstring).

    ``update(x, y, proxy_x, proxy_y)`` with x = y = NaN (or None) for a unit without a real label.
    """

    def __init__(self, label_rate: float, alpha: float = 0.05, *, margin: float | None = None) -> None:
        self.label_rate = check_label_rate(label_rate)
        self.alpha = check_alpha(alpha)
        self.margin = None if margin is None else check_margin(margin)
        self._bank = _ProxyBank(1, self.label_rate, self.margin, None)
        self._sign = 0
        self._decided_at: int | None = None
        self._equivalent_at: int | None = None
        self.n = 0

    def update(self, x: Any, y: Any, proxy_x: float, proxy_y: float) -> "ProxyTest":
        xv = math.nan if x is None else x
        yv = math.nan if y is None else y
        # one unit says nothing about the rate: the count check is for whole arrays
        xa, ya, fx, fy, lab, _ = check_proxy_inputs([xv], [yv], [proxy_x], [proxy_y], self.label_rate,
                                                    check_rate=False)
        self._bank.step(xa, ya, fx, fy, lab)
        self.n += 1
        if self._sign == 0:
            s = int(self._bank.signs(self.alpha)[0])
            if s:
                self._sign, self._decided_at = s, self.n
        if self._equivalent_at is None and bool(self._bank.equivalent(self.alpha)[0]):
            self._equivalent_at = self.n
        return self

    @property
    def p_less(self) -> float:
        return float(self._bank.p()[0, LESS])

    @property
    def p_more(self) -> float:
        return float(self._bank.p()[0, MORE])

    @property
    def pvalue(self) -> float:
        return min(1.0, 2.0 * min(self.p_less, self.p_more))

    @property
    def p_equivalent(self) -> float | None:
        if not self.margin:
            return None
        p = self._bank.p()[0]
        return min(1.0, 2.0 * max(p[LOWER], p[UPPER]))

    @property
    def decision(self) -> str | None:
        return {1: "x<y", -1: "x>y", 0: None}[self._sign]

    @property
    def decided_at(self) -> int | None:
        return self._decided_at

    @property
    def equivalent_at(self) -> int | None:
        return self._equivalent_at

    @property
    def labels(self) -> int:
        return int(self._bank.labels[0])

    @property
    def proxy_weight(self) -> float:
        """The proxy weight theta that the next unit will use."""
        return float(self._bank.theta()[0])
