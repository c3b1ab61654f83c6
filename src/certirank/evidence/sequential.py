"""Streaming tests for live use and their batch (runs x time) forms for simulation (spec 01 §2–§6).

The streaming objects (`PairedTest`, `OneSampleTest`) and the batch functions (`paired_batch`,
`one_sample_batch`) drive the same engine and the same decision rule, so for the same data they give
identical numbers, bit for bit.
"""

from __future__ import annotations

import copy
import dataclasses
import math
from typing import Any

import numpy as np

from .._validate import check_alpha
from ..errors import DataError, ParameterError
from ..results import ResultMixin
from ._core import DEFAULT_BETTOR, check_scores, check_ties
from .streams import OneSampleStreams, PairedStreams, combine

__all__ = ["PairedTest", "OneSampleTest", "paired_batch", "one_sample_batch", "BatchResult", "paired_to_unit",
           "DECISION_WORDS"]

#: decision codes used by the batch form -> the words used by `compare`
DECISION_WORDS = {1: "x<y", -1: "x>y", 0: None}


def _paired_signs(lwm: np.ndarray, ties: str, alpha: float) -> np.ndarray:
    """Signed decision from the running maxima of log-wealth (n, 2): +1 'x<y', -1 'x>y', 0 none.

    The one rule shared by the streaming and the batch forms: reject when the combined p-value is
    <= alpha, in the direction of the smaller one-sided p-value; no decision when they are equal.
    """
    p_less = np.exp(-lwm[:, 0])
    p_more = np.exp(-lwm[:, 1])
    sign = np.sign(lwm[:, 0] - lwm[:, 1]).astype(np.int64)
    return np.where(combine(p_less, p_more, ties) <= alpha, sign, 0)


def _with_target(bettor: Any, ties: Any, alpha: float, options: dict[str, Any]) -> dict[str, Any]:
    """`calibrated` aims its stake at the wealth where this test decides (spec 01 §4) unless told otherwise."""
    if bettor == "calibrated" and "target" not in options:
        return {**options, "target": (2.0 if check_ties(ties) == "allow" else 1.0) / alpha}
    return options


def paired_to_unit(x: Any, y: Any, tau: float = 0.0) -> tuple[np.ndarray, float]:
    """Map paired scores to the one-sample problem: Z = (y - x + 1)/2 in [0, 1] and m = (1 + tau)/2.

    H0: E[y - x] <= tau  <=>  E[Z] <= m (spec 01 §1), so a `OneSampleTest(m=m)` on Z tests the margin null.
    """
    xa = check_scores(x, "x")
    ya = check_scores(y, "y")
    if xa.shape != ya.shape:
        raise DataError(f"x and y must have the same length/shape, got {xa.shape} and {ya.shape}")
    try:
        tau = float(tau)
    except (TypeError, ValueError):
        raise ParameterError(f"tau must be a number in [0, 1), got {tau!r}") from None
    if not 0.0 <= tau < 1.0:
        raise ParameterError(f"margin tau must be in [0, 1), got {tau!r}")
    return ((ya - xa) + 1.0) / 2.0, (1.0 + tau) / 2.0


class PairedTest:
    """Streaming mirrored comparison of two policies on paired trials (spec 01 §4).

    Parameters
    ----------
    alpha : float
        Level of the sequential decision (default 0.05).
    bettor, ties, bins, **options
        As for :class:`certirank.evidence.PairedStreams`.

    Notes
    -----
    ``decision`` is fixed at the first trial where the combined p-value is <= alpha ("x<y": y is better,
    "x>y": x is better) and is never revoked; `pvalue` keeps decreasing as data arrive.
    """

    def __init__(self, alpha: float = 0.05, *, bettor: str = DEFAULT_BETTOR, ties: str = "allow",
                 bins: Any = "progress", **options: Any) -> None:
        self.alpha = check_alpha(alpha)
        options = _with_target(bettor, ties, self.alpha, options)
        self._streams = PairedStreams(1, bettor=bettor, ties=ties, bins=bins, **options)
        self._sign = 0
        self._decided_at: int | None = None

    @property
    def bettor(self) -> str:
        return self._streams.bettor

    @property
    def ties(self) -> str:
        return self._streams.ties

    def update(self, x: Any, y: Any) -> "PairedTest":
        """Consume one paired trial (x = score of policy X, y = score of policy Y, same environment)."""
        xa = check_scores(x, "x")
        ya = check_scores(y, "y")
        if xa.ndim != 0 or ya.ndim != 0:
            raise DataError("update takes one pair of scalar scores; use update_many for sequences")
        self._streams.engine.check(xa.reshape(1), ya.reshape(1))
        self._streams.engine.step(slice(None), xa.reshape(1), ya.reshape(1))
        self._after_step()
        return self

    def update_many(self, xs: Any, ys: Any, *, until_decided: bool = False) -> "PairedTest":
        """Consume paired trials in order (same result as calling `update` on each pair).

        With ``until_decided=True`` reading stops at the pair that decides (the test is then exactly what
        `update` on the pairs up to that one leaves), so a stream decided early costs what its first pairs cost,
        whatever its length (issue 37 item 1).
        """
        xa = check_scores(xs, "x")
        ya = check_scores(ys, "y")
        if xa.ndim != 1 or xa.shape != ya.shape:
            raise DataError(f"x and y must be 1-D sequences of the same length, got shapes {xa.shape} and "
                            f"{ya.shape}")
        eng = self._streams.engine
        eng.check(xa, ya)
        if not until_decided or self._sign != 0:
            self._consume(eng, xa, ya)
            return self
        # chunks growing 4x: an early decision costs one small chunk; any decision costs at most about four
        # times the pairs up to it (the chunk that holds it is read twice)
        start, size = 0, 64
        while start < xa.size and self._sign == 0:
            stop = min(start + size, xa.size)
            saved = (copy.deepcopy(eng.state), self._sign, self._decided_at)
            t0 = self.n
            self._consume(eng, xa[start:stop], ya[start:stop])
            if self._sign != 0 and self._decided_at is not None and self._decided_at < t0 + stop - start:
                # decided inside the chunk: go back and read only up to the deciding pair
                cut = start + self._decided_at - t0
                eng.state, self._sign, self._decided_at = saved
                self._consume(eng, xa[start:cut], ya[start:cut])
                break
            start, size = stop, size * 4
        return self

    def _consume(self, eng: Any, xa: np.ndarray, ya: np.ndarray) -> None:
        if xa.size and self._fast(eng, xa, ya):
            return
        for i in range(xa.size):
            eng.step(slice(None), xa[i:i + 1], ya[i:i + 1])
            self._after_step()

    def _fast(self, eng: Any, xa: np.ndarray, ya: np.ndarray) -> bool:
        """Binary pairs for the `calibrated` bettor in one vectorised pass (issue 37 item 1); False = not taken."""
        from .mixture import Calibrated, binary_run

        if not isinstance(eng.bettor, Calibrated) or not (((xa == 0) | (xa == 1)).all() and ((ya == 0) | (ya == 1)).all()):
            return False
        st = eng.state
        t0 = int(st["t"][0])
        logf = binary_run(eng.bettor, st, xa, ya)
        if logf is None:
            return False
        lw = np.cumsum(np.vstack([st["log_wealth"], logf]), axis=0)[1:]
        lwm = np.maximum.accumulate(np.vstack([st["log_wealth_max"], lw]), axis=0)[1:]
        st["log_wealth"][0] = lw[-1]
        st["log_wealth_max"][0] = lwm[-1]
        st["t"][0] = t0 + xa.size
        if self._sign == 0:
            signs = _paired_signs(lwm, self.ties, self.alpha)
            hit = np.flatnonzero(signs != 0)
            if hit.size:
                self._sign = int(signs[hit[0]])
                self._decided_at = t0 + int(hit[0]) + 1
        return True

    def _after_step(self) -> None:
        if self._sign == 0:
            s = int(_paired_signs(self._streams.engine.state["log_wealth_max"], self.ties, self.alpha)[0])
            if s != 0:
                self._sign = s
                self._decided_at = self.n

    @property
    def n(self) -> int:
        """Pairs consumed."""
        return int(self._streams.engine.state["t"][0])

    @property
    def p_less(self) -> float:
        """One-sided p-process for 'x<y' (mu_x < mu_y)."""
        return float(self._streams.pvalue_less[0])

    @property
    def p_more(self) -> float:
        """One-sided p-process for 'x>y' (mu_x > mu_y)."""
        return float(self._streams.pvalue_more[0])

    @property
    def pvalue(self) -> float:
        """Combined anytime-valid p-value (per the tie mode)."""
        return float(combine(self.p_less, self.p_more, self.ties))

    @property
    def log_pvalue(self) -> float:
        """log of `pvalue`, exact even where the p-value underflows to 0 (log-wealth beyond ~745)."""
        lo = -float(np.max(self._streams.engine.state["log_wealth_max"][0]))
        return min(0.0, lo + math.log(2.0)) if self.ties == "allow" else lo

    @property
    def log_evalue_less(self) -> float:
        return float(self._streams.engine.state["log_wealth"][0, 0])

    @property
    def log_evalue_more(self) -> float:
        return float(self._streams.engine.state["log_wealth"][0, 1])

    @property
    def log_evalue(self) -> float:
        """log((E_less + E_more)/2): a valid e-process against mu_x = mu_y (spec 01 §6 rule 3)."""
        return float(self._streams.log_evalue_tie[0])

    @property
    def lam_next(self) -> tuple[float, float]:
        """Stakes (less, more) already fixed for the next pair."""
        lam = self._streams.engine.state["lam"][0]
        return float(lam[0]), float(lam[1])

    @property
    def decision(self) -> str | None:
        """"x<y", "x>y" or None (undecided) at level alpha; fixed at the first rejection."""
        return DECISION_WORDS[self._sign]

    @property
    def decided_at(self) -> int | None:
        """1-based index of the pair at which the decision was made, or None."""
        return self._decided_at

    def to_state(self) -> dict[str, Any]:
        return {"alpha": self.alpha, "sign": self._sign, "decided_at": self._decided_at,
                "streams": self._streams.to_state()}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> "PairedTest":
        try:
            streams = PairedStreams.from_state(state["streams"])
            obj = cls(state["alpha"], bettor=streams.bettor, ties=streams.ties)
            obj._streams = streams
            obj._sign = int(state["sign"])
            obj._decided_at = state["decided_at"]
        except (KeyError, TypeError):
            raise ParameterError("not a saved PairedTest state (expected a dict from to_state())") from None
        return obj


class OneSampleTest:
    """Streaming one-sided test of H0: E[X_t | past] <= m for X in [0, 1] (spec 01 §5).

    `decision` is True from the first t with p_t <= alpha (H0 rejected: the mean exceeds m).
    """

    def __init__(self, m: float = 0.5, alpha: float = 0.05, *, bettor: str = "agrapa", **options: Any) -> None:
        self.alpha = check_alpha(alpha)
        self._streams = OneSampleStreams(1, m=m, bettor=bettor, **options)
        self._decided_at: int | None = None

    def update(self, x: Any) -> "OneSampleTest":
        xa = check_scores(x, "x")
        if xa.ndim != 0:
            raise DataError("update takes one scalar score; use update_many for sequences")
        self._streams.engine.step(slice(None), xa.reshape(1))
        self._after_step()
        return self

    def update_many(self, xs: Any) -> "OneSampleTest":
        xa = check_scores(xs, "x")
        if xa.ndim != 1:
            raise DataError(f"x must be a 1-D sequence, got shape {xa.shape}")
        for i in range(xa.size):
            self._streams.engine.step(slice(None), xa[i:i + 1])
            self._after_step()
        return self

    def _after_step(self) -> None:
        if self._decided_at is None and self.pvalue <= self.alpha:
            self._decided_at = self.n

    @property
    def n(self) -> int:
        return int(self._streams.engine.state["t"][0])

    @property
    def pvalue(self) -> float:
        return float(self._streams.pvalue[0])

    @property
    def log_evalue(self) -> float:
        return float(self._streams.engine.state["log_wealth"][0, 0])

    @property
    def lam_next(self) -> float:
        return float(self._streams.engine.state["lam"][0, 0])

    @property
    def decision(self) -> bool:
        return self._decided_at is not None

    @property
    def decided_at(self) -> int | None:
        return self._decided_at

    def lower_bound(self, alpha: float | None = None) -> float:
        """PrPl-EB lower confidence bound L_t for the mean (bettor 'prpl_eb' only)."""
        return float(self._streams.lower_bound(self.alpha if alpha is None else alpha)[0])

    def to_state(self) -> dict[str, Any]:
        return {"alpha": self.alpha, "decided_at": self._decided_at, "streams": self._streams.to_state()}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> "OneSampleTest":
        try:
            streams = OneSampleStreams.from_state(state["streams"])
            obj = cls(streams.m, state["alpha"], bettor=streams.bettor)
            obj._streams = streams
            obj._decided_at = state["decided_at"]
        except (KeyError, TypeError):
            raise ParameterError("not a saved OneSampleTest state (expected a dict from to_state())") from None
        return obj


@dataclasses.dataclass(frozen=True)
class BatchResult(ResultMixin):
    """Outcome of many independent streams run at once (arrays over runs).

    decision: (runs,) int, +1 = "x<y" (paired) / rejected (one-sample), -1 = "x>y", 0 = undecided.
    decided_at: (runs,) int, 1-based time of the first rejection, 0 if never.
    pvalue: (runs,) final combined p-value; p_less / p_more: final one-sided p-values (paired; for a
    one-sample test p_less holds the p-value and p_more is NaN). log_wealth: (runs, d) final log M.
    crossed_at (paired): (runs, 2) first time each one-sided p-process is <= alpha (0 if never), i.e. the
    rejection time of the one-sided test of each direction at level alpha.
    log_wealth_trace / pvalue_trace: (runs, time, d) / (runs, time) if `trace=True`, else None.
    """

    decision: np.ndarray
    decided_at: np.ndarray
    pvalue: np.ndarray
    p_less: np.ndarray
    p_more: np.ndarray
    log_wealth: np.ndarray
    n: int
    crossed_at: np.ndarray | None = None
    log_wealth_trace: np.ndarray | None = None
    pvalue_trace: np.ndarray | None = None


def _as_runs(a: Any, name: str) -> np.ndarray:
    arr = check_scores(a, name)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise DataError(f"{name} must be shaped (runs, time) or (time,), got {arr.shape}")
    return arr


def _columns(*arrays: np.ndarray, chunk: int = 16):
    """Yield (t, column t of each (runs, time) array) as contiguous vectors.

    Transposing in narrow column blocks is several times faster than one big transpose (cache).
    """
    horizon = arrays[0].shape[1]
    for start in range(0, horizon, chunk):
        blocks = [np.ascontiguousarray(a[:, start:start + chunk].T) for a in arrays]
        for j in range(blocks[0].shape[0]):
            yield (start + j, *(b[j] for b in blocks))


def paired_batch(x: Any, y: Any, alpha: float = 0.05, *, bettor: str = "nscore", ties: str = "allow",
                 bins: Any = "progress", trace: bool = False, **options: Any) -> BatchResult:
    """Run ``runs`` independent mirrored comparisons over (runs, time) arrays of paired scores.

    Row r of `x` and `y` is one stream, consumed in time order; the numbers equal those of a
    `PairedTest` fed the same row. Decisions use the level `alpha` as in `PairedTest`.
    """
    alpha = check_alpha(alpha)
    xa = _as_runs(x, "x")
    ya = _as_runs(y, "y")
    if xa.shape != ya.shape:
        raise DataError(f"x and y must have the same shape (runs, time), got {xa.shape} and {ya.shape}")
    runs, horizon = xa.shape
    options = _with_target(bettor, ties, alpha, options)
    streams = PairedStreams(runs, bettor=bettor, ties=ties, bins=bins, **options)
    eng = streams.engine
    eng.check(xa, ya)
    sign = np.zeros(runs, dtype=np.int64)
    decided_at = np.zeros(runs, dtype=np.int64)
    crossed = np.zeros((runs, 2), dtype=np.int64)
    lw_tr = np.empty((runs, horizon, 2)) if trace else None
    p_tr = np.empty((runs, horizon)) if trace else None
    st = eng.state
    all_ = slice(None)
    # A rejection needs max log-wealth >= log(1/alpha) in either tie mode; the margin absorbs rounding,
    # so screening with it leaves the decisions exactly those of `_paired_signs` on every stream.
    screen = math.log(1.0 / alpha) - 0.5
    for t, xt, yt in _columns(xa, ya):
        eng.step(all_, xt, yt)
        lwm = st["log_wealth_max"]
        high = lwm >= screen
        cross = np.flatnonzero((high & (crossed == 0)).ravel())
        if cross.size:
            flat = crossed.reshape(-1)
            hit = np.exp(-lwm.reshape(-1)[cross]) <= alpha
            flat[cross[hit]] = t + 1
        cand = np.flatnonzero((sign == 0) & (high[:, 0] | high[:, 1]))
        if cand.size:
            s = _paired_signs(lwm[cand], streams.ties, alpha)
            hit = s != 0
            sign[cand[hit]] = s[hit]
            decided_at[cand[hit]] = t + 1
        if trace:
            lw_tr[:, t] = st["log_wealth"]
            p_tr[:, t] = streams.pvalue
    return BatchResult(decision=sign, decided_at=decided_at, pvalue=streams.pvalue, p_less=streams.pvalue_less,
                       p_more=streams.pvalue_more, log_wealth=streams.log_wealth, n=horizon, crossed_at=crossed,
                       log_wealth_trace=lw_tr, pvalue_trace=p_tr)


def one_sample_batch(z: Any, m: float = 0.5, alpha: float = 0.05, *, bettor: str = "agrapa",
                     trace: bool = False, **options: Any) -> BatchResult:
    """Run ``runs`` independent one-sided tests of H0: E[Z] <= m over a (runs, time) array."""
    alpha = check_alpha(alpha)
    za = _as_runs(z, "x")
    runs, horizon = za.shape
    streams = OneSampleStreams(runs, m=m, bettor=bettor, **options)
    eng = streams.engine
    decided_at = np.zeros(runs, dtype=np.int64)
    lw_tr = np.empty((runs, horizon, 1)) if trace else None
    p_tr = np.empty((runs, horizon)) if trace else None
    for t, zt in _columns(za):
        eng.step(slice(None), zt)
        p = streams.pvalue
        new = (decided_at == 0) & (p <= alpha)
        decided_at[new] = t + 1
        if trace:
            lw_tr[:, t] = eng.state["log_wealth"]
            p_tr[:, t] = p
    p = streams.pvalue
    return BatchResult(decision=(decided_at > 0).astype(np.int64), decided_at=decided_at, pvalue=p, p_less=p,
                       p_more=np.full(runs, math.nan), log_wealth=streams.log_wealth, n=horizon,
                       log_wealth_trace=lw_tr, pvalue_trace=p_tr)
