"""Checks, constants and the spec 01 bettors behind every test in :mod:`certirank.evidence` (a leaf module).

The engine that holds the streams and the factory that builds a bettor by name live in `engine`; the mixture
bettors in `mixture`. Every public object (streaming tests, batch functions, `PairedStreams`) drives one engine,
so the streaming and the batch forms run literally the same arithmetic and agree to the bit.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._validate import check_choice
from ..errors import DataError, ParameterError

BETTORS = ("nscore", "bernoulli_kelly", "agrapa", "ons", "prpl_eb", "hoeffding", "mixture", "beta_mixture",
           "adaptive", "calibrated")
#: default bettor of `compare` and `PairedTest` (issue 15); `PairedStreams` keeps nscore
DEFAULT_BETTOR = "calibrated"
PAIRED_ONLY = ("nscore", "bernoulli_kelly", "mixture", "beta_mixture", "adaptive", "calibrated")
TIES = ("allow", "assume_none")
_TIE_ALIASES = {"ranking": "allow", "assume_no_ties": "assume_none", "assume-no-ties": "assume_none"}

BINARY_BINS = (0.0, 1.0)
PROGRESS_BINS = tuple(k / 10 for k in range(11))

#: the N-SCORE stake grid {0.005, 0.015, ..., 0.995} (spec 01 §3.6)
NSCORE_GRID = (np.arange(100) + 0.5) / 100
_BIN_GUARD = 1e-9
# Means that agree to this many units are treated as equal by the null-favouring rule. Mathematically
# equal Dirichlet means can differ in the last bits (0.1 + 0.2 != 0.3); without the guard such a tie
# would place a tiny bet. Validity never depends on it (any predictable stake is valid).
_MEAN_TIE_TOL = 1e-12
_ONS_C = 2.0 / (2.0 - math.log(3.0))


def check_ties(ties: Any) -> str:
    if isinstance(ties, str) and ties.strip().lower() in _TIE_ALIASES:
        return _TIE_ALIASES[ties.strip().lower()]
    return check_choice("ties", ties, TIES)


def check_bettor(bettor: Any) -> str:
    return check_choice("bettor", bettor, BETTORS)


def resolve_bins(bins: Any) -> tuple[float, ...]:
    """`"binary"` -> (0, 1), `"progress"` -> (0, 0.1, ..., 1), or an explicit increasing grid in [0, 1]."""
    if isinstance(bins, str):
        name = check_choice("bins", bins, ("binary", "progress"))
        return BINARY_BINS if name == "binary" else PROGRESS_BINS
    try:
        c = np.asarray(bins, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(f"bins must be 'binary', 'progress' or a list of numbers, got {bins!r}") from None
    if c.ndim != 1 or c.size < 2 or not np.all(np.isfinite(c)) or np.any(np.diff(c) <= 0) \
            or c[0] < 0 or c[-1] > 1:
        raise ParameterError(f"bins must be at least two strictly increasing numbers in [0, 1], got {bins!r}")
    return tuple(float(v) for v in c)


def check_scores(values: Any, name: str) -> np.ndarray:
    """Scores as a float array in [0, 1]; booleans map to 1.0/0.0; anything else is a DataError."""
    try:
        arr = np.asarray(values)
    except Exception:  # pragma: no cover - exotic inputs
        raise DataError(f"{name}: expected numbers in [0, 1]") from None
    if arr.dtype == bool:
        return arr.astype(float)
    if arr.dtype.kind not in "iuf":
        try:
            arr = arr.astype(float)
        except (TypeError, ValueError):
            raise DataError(f"{name}: expected numeric scores in [0, 1], got values of type {arr.dtype}") from None
    arr = arr.astype(float, copy=False)
    bad = ~np.isfinite(arr)
    if bad.any():
        pos = np.argwhere(bad)[0]
        raise DataError(f"{name}: missing or non-finite score (NaN/inf) at position {_pos(pos)}; "
                        "scores must be numbers in [0, 1]")
    out = (arr < 0) | (arr > 1)
    if out.any():
        pos = np.argwhere(out)[0]
        raise DataError(f"{name}: score {float(arr[tuple(pos)]):g} at position {_pos(pos)} is outside [0, 1] "
                        "(rescale it first, e.g. score_range=(lo, hi))")
    return arr


def _pos(pos: np.ndarray) -> str:
    p = [int(v) for v in pos]
    return str(p[0]) if len(p) == 1 else str(tuple(p))


def require_binary(v: np.ndarray, name: str, what: str, hint: str) -> None:
    """Refuse any score other than 0 or 1 in ``v`` (``what`` needs binary scores; ``hint`` says what to use)."""
    bad = (v != 0) & (v != 1)
    if np.any(bad):
        raise DataError(f"{name}: {what} needs binary scores (0 or 1), got {v[bad].ravel()[0]!r}; {hint}")


def _check_unit(name: str, value: Any, lo: float, hi: float, *, lo_open: bool = True, hi_open: bool = True) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"{name} must be a number, got {value!r}") from None
    ok = (v > lo if lo_open else v >= lo) and (v < hi if hi_open else v <= hi)
    if not ok or math.isnan(v):
        raise ParameterError(f"{name} must be in {'(' if lo_open else '['}{lo}, {hi}{')' if hi_open else ']'}, "
                             f"got {value!r}")
    return v


# --------------------------------------------------------------------------------------------------
# bettors
# --------------------------------------------------------------------------------------------------

class _Bettor:
    """A stake rule plus the process it drives, for state arrays of shape (n, d).

    `fields` returns the bettor's own state; `observe` takes the selected streams' inputs, returns the
    log of each process factor (computed with the stakes fixed before the observation) and updates the
    statistics and the next stake `lam` in place.
    """

    name = ""
    options: dict[str, Any] = {}

    def fields(self, n: int, d: int) -> dict[str, np.ndarray]:
        raise NotImplementedError

    def config(self) -> dict[str, Any]:
        return {"bettor": self.name, **self.options}


class _ZBettor(_Bettor):
    """Bettors of spec 01 §5, on Z in [0, 1] with null E[Z] <= m (m per direction)."""

    def __init__(self, m: np.ndarray) -> None:
        self.m = m  # shape (d,)


class _AGrapa(_ZBettor):
    name = "agrapa"

    def __init__(self, m: np.ndarray, c: float = 0.5) -> None:
        super().__init__(m)
        self.c = _check_unit("agrapa c", c, 0.0, 1.0)
        self.options = {"c": self.c}

    def fields(self, n: int, d: int) -> dict[str, np.ndarray]:
        return {"sum_z": np.zeros((n, d)), "sum_sq": np.zeros((n, d)), "lam": np.zeros((n, d))}

    def observe(self, st: dict, sel: Any, t_new: np.ndarray, z: np.ndarray) -> np.ndarray:
        lam = st["lam"][sel]
        logf = np.log1p(lam * (z - self.m))
        sum_z = st["sum_z"][sel] + z
        tp1 = (t_new + 1.0)[:, None]
        mu = (0.5 + sum_z) / tp1
        sum_sq = st["sum_sq"][sel] + (z - mu) ** 2
        var = (0.25 + sum_sq) / tp1
        gap = mu - self.m
        st["sum_z"][sel] = sum_z
        st["sum_sq"][sel] = sum_sq
        st["lam"][sel] = np.clip(gap / (var + gap * gap), 0.0, self.c / self.m)
        return logf


class _ONS(_ZBettor):
    name = "ons"

    def fields(self, n: int, d: int) -> dict[str, np.ndarray]:
        return {"a": np.ones((n, d)), "lam": np.zeros((n, d))}

    def observe(self, st: dict, sel: Any, t_new: np.ndarray, z: np.ndarray) -> np.ndarray:
        lam = st["lam"][sel]
        f = z - self.m
        lf = lam * f
        logf = np.log1p(lf)
        g = -f / (1.0 + lf)
        a = st["a"][sel] + g * g
        st["a"][sel] = a
        st["lam"][sel] = np.clip(lam - _ONS_C * g / a, 0.0, 0.5)
        return logf


def _psi_e(lam: np.ndarray) -> np.ndarray:
    return -np.log1p(-lam) - lam


class _PrPlEB(_ZBettor):
    name = "prpl_eb"

    def __init__(self, m: np.ndarray, c: float = 0.5, alpha_bet: float = 0.05,
                 predictor: str = "regularized") -> None:
        super().__init__(m)
        self.c = _check_unit("prpl_eb c", c, 0.0, 0.95, hi_open=False)
        self.alpha_bet = _check_unit("alpha_bet", alpha_bet, 0.0, 1.0)
        self.predictor = check_choice("predictor", predictor, ("regularized", "running_mean"))
        self.options = {"c": self.c, "alpha_bet": self.alpha_bet, "predictor": self.predictor}
        self._log_k = 2.0 * math.log(1.0 / self.alpha_bet)

    def fields(self, n: int, d: int) -> dict[str, np.ndarray]:
        f = {"sum_z": np.zeros((n, d)), "sum_sq": np.zeros((n, d)), "lam": np.full((n, d), self._stake0()),
             # sums for the lower confidence sequence (spec 01 §5.3)
             "cs_lam_z": np.zeros((n, d)), "cs_psi": np.zeros((n, d)), "cs_lam": np.zeros((n, d))}
        return f

    def _stake0(self) -> float:
        return float(np.minimum(self.c, np.sqrt(self._log_k / (0.25 * 1.0 * math.log(2.0)))))

    def observe(self, st: dict, sel: Any, t_new: np.ndarray, z: np.ndarray) -> np.ndarray:
        lam = st["lam"][sel]
        sum_z_old = st["sum_z"][sel]
        t_old = (t_new - 1.0)[:, None]
        if self.predictor == "regularized":
            zhat = (0.5 + sum_z_old) / (t_old + 1.0)
        else:
            zhat = np.where(t_old > 0, sum_z_old / np.maximum(t_old, 1.0), 0.0)
        psi = _psi_e(lam)
        pen = psi * (z - zhat) ** 2
        logf = lam * (z - self.m) - pen
        st["cs_lam_z"][sel] = st["cs_lam_z"][sel] + lam * z
        st["cs_psi"][sel] = st["cs_psi"][sel] + pen
        st["cs_lam"][sel] = st["cs_lam"][sel] + lam
        sum_z = sum_z_old + z
        tp1 = (t_new + 1.0)[:, None]
        mu = (0.5 + sum_z) / tp1
        sum_sq = st["sum_sq"][sel] + (z - mu) ** 2
        var = (0.25 + sum_sq) / tp1
        st["sum_z"][sel] = sum_z
        st["sum_sq"][sel] = sum_sq
        s = tp1  # index of the next observation
        st["lam"][sel] = np.minimum(self.c, np.sqrt(self._log_k / (var * s * np.log1p(s))))
        return logf


class _Hoeffding(_ZBettor):
    name = "hoeffding"

    def __init__(self, m: np.ndarray, alpha_bet: float = 0.05) -> None:
        super().__init__(m)
        self.alpha_bet = _check_unit("alpha_bet", alpha_bet, 0.0, 1.0)
        self.options = {"alpha_bet": self.alpha_bet}
        self._log_k = 8.0 * math.log(1.0 / self.alpha_bet)

    def stake(self, s: np.ndarray) -> np.ndarray:
        return np.minimum(1.0, np.sqrt(self._log_k / (s * np.log1p(s))))

    def fields(self, n: int, d: int) -> dict[str, np.ndarray]:
        return {"lam": np.full((n, d), float(self.stake(np.array(1.0))))}

    def observe(self, st: dict, sel: Any, t_new: np.ndarray, z: np.ndarray) -> np.ndarray:
        lam = st["lam"][sel]
        logf = lam * (z - self.m) - lam * lam / 8.0
        nxt = self.stake(t_new + 1.0)[:, None]
        st["lam"][sel] = np.broadcast_to(nxt, lam.shape)
        return logf


class _BernoulliKelly(_Bettor):
    """Closed-form Kelly stake for binary pairs (spec 01 §3.8); d = 2 (less, more)."""

    name = "bernoulli_kelly"

    def fields(self, n: int, d: int) -> dict[str, np.ndarray]:
        lam0 = self._stake(np.zeros(n), np.zeros(n), np.zeros(n))
        return {"sum_x": np.zeros(n), "sum_y": np.zeros(n), "lam": lam0}

    @staticmethod
    def _one(s_base: np.ndarray, s_chal: np.ndarray, denom: np.ndarray, out: np.ndarray) -> None:
        p0 = (1.0 + s_base) / denom
        gap = np.maximum((2.0 + s_chal) / denom - p0, 0.0)
        # gap <= 0 gives 0 / (positive) = 0, the null-favouring stake, without a branch
        np.divide(gap, gap + 2.0 * p0 * (1.0 - p0 - gap), out=out)

    def _stake(self, sx: np.ndarray, sy: np.ndarray, t: np.ndarray) -> np.ndarray:
        denom = 3.0 + t
        out = np.empty((sx.shape[0], 2))
        a = np.empty(sx.shape[0])
        b = np.empty(sx.shape[0])
        self._one(sx, sy, denom, a)
        self._one(sy, sx, denom, b)
        out[:, 0] = a
        out[:, 1] = b
        return out

    @staticmethod
    def check(x: np.ndarray, y: np.ndarray) -> None:
        for name, v in (("x", x), ("y", y)):
            require_binary(v, name, "bettor 'bernoulli_kelly'", "use 'nscore' for partial progress")

    def observe(self, st: dict, sel: Any, t_new: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        lam = st["lam"][sel]
        dd = y - x
        logf = np.log1p(lam * np.stack([dd, -dd], axis=1))
        sx = st["sum_x"][sel] + x
        sy = st["sum_y"][sel] + y
        st["sum_x"][sel] = sx
        st["sum_y"][sel] = sy
        st["lam"][sel] = self._stake(sx, sy, t_new.astype(float))
        return logf


class _NScore(_Bettor):
    """Kelly grid with Dirichlet plug-in over score bins (spec 01 §3); d = 2 (less, more)."""

    name = "nscore"

    def __init__(self, bins: tuple[float, ...]) -> None:
        self.bins = bins
        self.options = {}  # the bins are saved by the engine
        c = np.asarray(bins)
        k = c.size
        self.c = c
        self.prior = 2.0 / k
        # group the off-diagonal cells (a, b) by their difference c_b - c_a: the plug-in growth is then
        # sum_j w_j log(1 + s lam d_j) with w_j the summed cell probabilities (spec 01 §3.5)
        a_idx, b_idx = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
        off = a_idx != b_idx
        diffs = (c[None, :] - c[:, None])[off]
        cells = (a_idx * k + b_idx)[off]
        keys = np.round(diffs, 12)
        uniq, inverse = np.unique(keys, return_inverse=True)
        order = np.argsort(inverse, kind="stable")
        self._cells = cells[order]
        self._starts = np.searchsorted(inverse[order], np.arange(uniq.size))
        reps = np.array([diffs[inverse == j][0] for j in range(uniq.size)])
        # equally spaced bins: group j is exactly the cells with b - a = j - (K - 1) (j < K - 1) or
        # j - (K - 2) (j >= K - 1), so the weights are sums along diagonals (no gather needed)
        self._shifts: list[int] | None = None
        if uniq.size == 2 * (k - 1):
            shifts = [int(v) for v in np.concatenate([np.arange(-(k - 1), 0), np.arange(1, k)])]
            by_shift = [set((cells[(b_idx - a_idx)[off] == sh]).tolist()) for sh in shifts]
            by_group = [set(cells[inverse == j].tolist()) for j in range(uniq.size)]
            if by_shift == by_group:
                self._shifts = shifts
        # Increments of the log table between consecutive grid points: f(g) - f(g - 1) = sum_j w_j inc[g, j],
        # so the search compares one weighted sum with 0 instead of two. Rows: `less` grid points, then
        # `more` grid points, each block padded to 128 rows with a huge negative increment so that the
        # fixed-step search below may probe past the grid's end and simply finds "f decreases" there.
        # The weights are computed laid out (group, stream) so that their reductions run over axis 0;
        # every reduction then adds the same terms in the same order for any number of streams, which is
        # what makes the batch and streaming forms agree to the bit.
        log_pos = np.log1p(NSCORE_GRID[:, None] * reps[None, :])
        log_neg = np.log1p(-NSCORE_GRID[:, None] * reps[None, :])
        inc_pos = np.vstack([log_pos[:1], np.diff(log_pos, axis=0)])
        inc_neg = np.vstack([log_neg[:1], np.diff(log_neg, axis=0)])
        n_grid = NSCORE_GRID.size
        self._span = 1 << int(math.ceil(math.log2(n_grid)))
        pad = np.full((self._span - n_grid, reps.size), -1e300)
        self._inc = np.ascontiguousarray(np.vstack([inc_pos, pad, inc_neg, pad]))  # (2 * span, G)

    def bin_of(self, v: np.ndarray) -> np.ndarray:
        b = np.searchsorted(self.c, v + _BIN_GUARD, side="right") - 1
        return np.clip(b, 0, self.c.size - 1)

    def fields(self, n: int, d: int) -> dict[str, np.ndarray]:
        k = self.c.size
        return {"counts_x": np.zeros((n, k), dtype=np.int64), "counts_y": np.zeros((n, k), dtype=np.int64),
                "lam": np.zeros((n, 2))}

    def count(self, st: dict, sel: Any, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """This pair's log factors at the stakes set before it, then the updated bin counts of x and y.
        Shared with the mixture bettors that fall back on N-SCORE for partial scores."""
        lam = st["lam"][sel]
        dd = y - x
        logf = np.log1p(lam * np.stack([dd, -dd], axis=1))
        cx = st["counts_x"][sel]
        cy = st["counts_y"][sel]
        rows = np.arange(cx.shape[0])
        cx[rows, self.bin_of(x)] += 1
        cy[rows, self.bin_of(y)] += 1
        st["counts_x"][sel] = cx
        st["counts_y"][sel] = cy
        return logf, cx, cy

    def observe(self, st: dict, sel: Any, t_new: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        logf, cx, cy = self.count(st, sel, x, y)
        st["lam"][sel] = self.stakes(cx, cy)
        return logf

    def stakes(self, cx: np.ndarray, cy: np.ndarray) -> np.ndarray:
        """Next stakes (m, 2) from bin counts (m, K) of x and y (spec 01 §3.3–3.6)."""
        ax = cx.T + self.prior
        ay = cy.T + self.prior
        p0 = ax / ax.sum(axis=0)
        p1 = ay / ay.sum(axis=0)
        cc = self.c[:, None]
        gap = (p1 * cc).sum(axis=0) - (p0 * cc).sum(axis=0)
        out = np.zeros((cx.shape[0], 2))
        # null-favouring rule: only the direction the plug-in means favour bets
        idx = np.flatnonzero(np.abs(gap) > _MEAN_TIE_TOL)
        if idx.size:
            direction = (gap[idx] < 0).astype(np.int64)
            w = self._weights(p0[:, idx], p1[:, idx])
            out[idx, direction] = NSCORE_GRID[self._first_argmax(w, direction)]
        return out

    def _weights(self, p0: np.ndarray, p1: np.ndarray) -> np.ndarray:
        """Plug-in probability of each difference group, (G, m), from bin probabilities (K, m)."""
        k, m = p0.shape
        if self._shifts is None:
            cell = (p0[:, None, :] * p1[None, :, :]).reshape(k * k, m)
            return np.add.reduceat(cell[self._cells], self._starts, axis=0)
        w = np.empty((len(self._shifts), m))
        for j, sh in enumerate(self._shifts):
            if sh > 0:
                w[j] = (p0[:k - sh] * p1[sh:]).sum(axis=0)
            else:
                w[j] = (p0[-sh:] * p1[:k + sh]).sum(axis=0)
        return w

    def _first_argmax(self, w: np.ndarray, direction: np.ndarray) -> np.ndarray:
        """First maximiser over the grid of f(g) = sum_j w_j log(1 + s lam_g d_j), per stream (column of w).

        f is strictly concave in lambda (all plug-in weights are positive), so it rises then falls on the
        grid: the first maximiser is the last g with f(g) - f(g - 1) = sum_j w_j inc[j, g] > 0 (0 if none).
        A branchless vectorised binary search (steps 64, 32, ..., 1) finds it with 7 weighted sums instead
        of 100 evaluations; rows of the increment table are gathered whole and reduced along their
        contiguous length-G axis.
        """
        wt = np.ascontiguousarray(w.T)
        base = direction * self._span
        pos = base.copy()
        step = self._span // 2
        while step:
            cand = pos + step
            up = (wt * self._inc[cand]).sum(axis=1) > 0
            pos = np.where(up, cand, pos)
            step //= 2
        return pos - base
