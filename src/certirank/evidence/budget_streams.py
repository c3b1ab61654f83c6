"""A vectorised bank of exact budget tests (spec 08) with the `PairedStreams` interface.

AnyRank and the simulators feed one pair per stream at a time and read two one-sided p-processes per
stream. `BudgetStreams` does the same for the exact max-statistic p-process of spec 08 §3, so a campaign
can switch tests without changing its loop.

Reading p = G(R) exactly costs an O(n_max^2) dynamic programme per distinct running maximum R, far too
slow per update. Instead G is computed once per design on a grid m_0 = 0 < m_1 < ... of log-statistic
thresholds (step `GRID_STEP` nats) and the p-value is read conservatively:

    p_k = G(m_j),  j = largest grid index with m_j <= R_k   (p_k = 1 while R_k < m_1).

G is non-increasing, so p_k >= G(R_k): {p_k <= a} is contained in {G(R_k) <= a}, the event spec 08's Claim
bounds by a, so this rounded p-process is still valid at every stopping time up to the budget, and it is
non-increasing in k because R_k is. The rounding costs at most a factor exp(GRID_STEP) on p (about 2 %).
Past the last grid point (p below `GRID_FLOOR`) the p-value stays at that floor.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from .._validate import check_alpha, check_positive_int
from ..errors import DataError, ParameterError
from ._walk import TOL
from .budget import (GRID_FLOOR, GRID_STEP, MAX_BUDGET, BudgetDesign, check_arms, check_statistic, make_design,
                     pvalue_grid)
from .streams import _index, _values, combine

__all__ = ["GRID_FLOOR", "GRID_STEP", "BudgetStreams", "out_of_reach", "pvalue_grid"]

@functools.lru_cache(maxsize=16)
def _fixed_design(n_max: int, alpha: float, arms: str, ties: str, a: float, statistic: str) -> BudgetDesign:
    return BudgetDesign(n_max, alpha=alpha, arms=arms, ties=ties, concentration=a, statistic=statistic)


def out_of_reach(reach: np.ndarray, m: np.ndarray) -> np.ndarray:
    """True where both directions' reachable maxima (last axis: less, more) stay below their thresholds,
    with a margin that keeps a borderline case live (the rounding tolerance of `BudgetStreams._read`)."""
    fin = np.where(np.isfinite(reach), reach, 0.0)
    margin = 1e-9 + 4 * TOL * (1.0 + np.abs(fin))
    return ((reach + margin) < m).all(axis=-1)


class _BankState:
    """The bank's arrays in the ``engine.state`` / ``engine.load_arrays`` form that engine snapshots use
    (``certirank.methods.anyrank.state``), so a live campaign on the budget test checkpoints like any other."""

    def __init__(self, owner: BudgetStreams) -> None:
        self._o = owner
        # the counts the design's statistic reads (saved states of the discordant-pair test keep their layout)
        self._KEYS = (("t", np.int64),) + tuple((key, np.int64) for key in owner.design.state) + (
            ("log_r", np.float64), ("p", np.float64))

    @property
    def state(self) -> dict[str, np.ndarray]:
        o = self._o
        out = {key: getattr(o, "_" + key) for key, _ in self._KEYS}
        if o._ville is not None:
            out.update({f"ville.{k}": v for k, v in o._ville.engine.state.items()})
        return out

    def load_arrays(self, arrays: dict[str, Any]) -> None:
        o = self._o
        want = {key for key, _ in self._KEYS}
        if o._ville is not None:
            want |= {f"ville.{k}" for k in o._ville.engine.state}
        if set(arrays) != want:
            raise ParameterError(f"state arrays {sorted(arrays)} do not match this budget test (expected "
                                 f"{sorted(want)})")
        new = {}
        for key, dt in self._KEYS:
            ref = getattr(o, "_" + key)
            arr = np.array(arrays[key], dtype=dt)
            if arr.shape != ref.shape:
                raise ParameterError(f"state array {key!r} has shape {arr.shape}, expected {ref.shape}")
            new[key] = arr
        if o._ville is not None:
            o._ville.engine.load_arrays({k[6:]: v for k, v in arrays.items() if k.startswith("ville.")})
        for key, arr in new.items():
            setattr(o, "_" + key, arr)


class BudgetStreams:
    """``n`` independent mirrored exact budget tests on binary paired trials (spec 08), vectorised.

    Same reading interface as :class:`certirank.evidence.streams.PairedStreams` (``update``,
    ``pvalue_less``, ``pvalue_more``, ``pvalue``, ``count``), so AnyRank's engine uses either.

    Parameters
    ----------
    n : int
        Number of streams.
    n_max : int
        Trial budget of every stream, fixed before data.
    alpha : float
        Family level; with `ties` it fixes the level the Beta-mixture concentration is tuned for (spec 08:
        the concentration depends on (n_max, level, arms) only, never on data).
    ties : str
        ``allow`` or ``assume_none`` (spec 01 §4), for ``pvalue``.
    arms : str
        ``paired`` (default; valid for any within-pair correlation) or ``independent`` (spec 08 §3b).
    concentration : float, optional
        Beta(a, a) concentration of the statistic; default: `budget.tune_concentration` (power at n_max).
    statistic : str
        ``mixture`` (default: the Beta-mixture likelihood ratio) or ``bayes`` (the fastest-decision boundaries
        for the same prior, `budget_bayes`; needs `concentration`): see `budget.STATISTICS`.
    final_share : float
        Share of each side's level kept for McNemar's exact test at the budget (`budget.final_pvalues`); 0 (default)
        = the sequential test alone. For tables read whole (LLM items: the budget is the table size).
    extendable : bool
        False (``final`` budget): a stream refuses trial n_max + 1 with a `DataError`. True: per direction
        p = min(1, p_exact / w, p_ville / (1 - w)), p_ville the `bettor` e-process's p-process over the
        whole stream (spec 08 §4); valid for ever.
    """

    _mode = "budget"

    def __init__(self, n: int, n_max: int, *, alpha: float = 0.05, ties: str = "allow", arms: str = "paired",
                 extendable: bool = False, weight: float = 0.9, bettor: str = "adaptive",
                 concentration: float | None = None, statistic: str | None = "mixture",
                 final_share: float = 0.0) -> None:
        from ._core import check_ties

        self._n = check_positive_int("n", n)
        n_max = check_positive_int("n_max", n_max)
        if n_max > MAX_BUDGET:
            raise ParameterError(f"n_max = {n_max} is above the exact test's limit {MAX_BUDGET}")
        self.ties = check_ties(ties)
        if statistic is None or statistic == "barnard" or (concentration is None and statistic == "mixture"):
            self.design = make_design(n_max, alpha=check_alpha(alpha), arms=check_arms(arms), ties=self.ties,
                                      statistic=statistic)
        else:
            self.design = _fixed_design(n_max, check_alpha(alpha), check_arms(arms), self.ties, concentration,
                                        check_statistic(statistic))
        self.extendable = bool(extendable)
        from .budget import check_final_share

        self.final_share = check_final_share(final_share, self.design, self.extendable)
        self.weight = float(weight)
        if not 0.0 < self.weight < 1.0:
            raise ParameterError(f"weight must be in (0, 1), got {weight!r}")
        self._grid_m, self._grid_p = self.design.pvalue_grid()
        self._t = np.zeros(self._n, dtype=np.int64)
        self._k = np.zeros(self._n, dtype=np.int64)
        self._s = np.zeros(self._n, dtype=np.int64)
        self._a = np.zeros(self._n, dtype=np.int64)
        self._b = np.zeros(self._n, dtype=np.int64)
        # running maxima of the statistic, (less, more): log T(0, 0) = 0 for the discordant-pair test, -inf for the
        # Barnard-type one (no step may reject before the first trial)
        self._log_r = np.full((self._n, 2), self.design.r0)
        self._p = np.ones((self._n, 2))
        self._ville = None
        if self.extendable:
            from .streams import PairedStreams

            self._ville = PairedStreams(self._n, bettor=bettor, ties=self.ties, bins="binary")
        self.engine = _BankState(self)

    # ---- description -----------------------------------------------------------------------------
    @property
    def n(self) -> int:
        return self._n

    @property
    def n_max(self) -> int:
        return self.design.n_max

    @property
    def bettor(self) -> str:
        return "exact budget test"

    @property
    def name(self) -> str:
        base = self.design.name
        if self._ville is not None:
            return base + f" + {self._ville.bettor} e-process (extendable, w = {self.weight:g})"
        return base + " (final budget)"

    @property
    def horizon(self) -> int | None:
        """Trials per stream up to which the guarantee holds (None = for ever)."""
        return None if self.extendable else self.design.n_max

    @property
    def count(self) -> np.ndarray:
        return self._t.copy()

    # ---- updating --------------------------------------------------------------------------------
    def update(self, index: Any, x: Any, y: Any) -> None:
        """Feed one binary pair to each stream in `index` (int, int array, bool mask; ``None`` = all)."""
        sel, k = _index(self._n, index)
        xa = _values(x, k, "x")
        ya = _values(y, k, "y")
        if k == 0:
            return
        bad = ((xa != 0) & (xa != 1)) | ((ya != 0) & (ya != 1))
        if bad.any():
            v = xa[bad][0] if ((xa[bad] != 0) & (xa[bad] != 1)).any() else ya[bad][0]
            raise DataError(f"the exact budget test needs binary scores (0 or 1), got {float(v):g}; declare "
                            "binary only for success/failure data (partial progress: use the e-process)")
        t = self._t[sel] + 1
        if not self.extendable and (t > self.design.n_max).any():
            raise DataError(f"trial {int(t.max())} exceeds the final budget n_max = {self.design.n_max} of the "
                            "exact test; a final budget cannot be extended (use the extendable form)")
        self._t[sel] = t
        within = t <= self.design.n_max
        if within.any():
            idx = np.arange(self._n)[sel][within]
            self._a[idx] += xa[within].astype(np.int64)
            self._b[idx] += ya[within].astype(np.int64)
        live = within if self.design.r0 == -math.inf else (xa != ya) & within
        if live.any():
            idx = np.arange(self._n)[sel][live]
            disc = xa[live] != ya[live]
            self._k[idx] += disc
            self._s[idx] += (ya[live] > xa[live]).astype(np.int64)
            lt = self.design.stats(self._t[idx], self._a[idx], self._b[idx], self._k[idx], self._s[idx])
            r = np.maximum(self._log_r[idx], lt)
            self._log_r[idx] = r
            self._p[idx] = self._read(r)
        if self._ville is not None:
            self._ville.update(None if isinstance(sel, slice) else sel, xa, ya)

    def _read(self, log_r: np.ndarray) -> np.ndarray:
        """Conservative p = G(largest grid point <= R) (the tolerance is the one thresholds use)."""
        gm = self._grid_m
        fin = np.isfinite(log_r)
        key = np.where(fin, log_r + TOL * (1.0 + np.abs(np.where(fin, log_r, 0.0))), log_r)
        j = np.searchsorted(gm, key, side="right") - 1
        return self._grid_p[np.clip(j, 0, gm.size - 1)]

    # ---- reading ---------------------------------------------------------------------------------
    def _side(self, col: int) -> np.ndarray:
        p = self._p[:, col]
        if self.final_share > 0:
            from .budget import final_pvalues

            f = self.final_share
            last = np.where(self._t == self.design.n_max, final_pvalues(self._k, self._s)[:, col], 1.0)
            return np.minimum(1.0, np.minimum(p / (1.0 - f), last / f))
        if self._ville is None:
            return p.copy()
        pv = self._ville.pvalue_less if col == 0 else self._ville.pvalue_more
        return np.minimum(1.0, np.minimum(p / self.weight, pv / (1.0 - self.weight)))

    @property
    def pvalue_less(self) -> np.ndarray:
        """p-process of the `less` direction (small => mu_x < mu_y), shape (n,)."""
        return self._side(0)

    @property
    def pvalue_more(self) -> np.ndarray:
        """p-process of the `more` direction (small => mu_x > mu_y), shape (n,)."""
        return self._side(1)

    @property
    def pvalue(self) -> np.ndarray:
        return combine(self.pvalue_less, self.pvalue_more, self.ties)

    # ---- futility --------------------------------------------------------------------------------
    @property
    def reachable(self) -> np.ndarray:
        """Largest log R any continuation can reach within the budget, per stream and direction, (n, 2).

        Every remaining trial a discordant win: T(k + 1, s + 1) >= T(k, s) >= T(k + 1, s) and
        T(k, s) <= T(k + 1, s + 1) make that the maximal path, ending at T(k + r, s + r), r = trials left.
        +inf for the extendable form (its e-process part has no horizon). Non-increasing in time: a loss or
        a concordant pair lowers the end point, a win keeps it.
        """
        if self.extendable or self.final_share > 0:  # no horizon, or a final test the bound does not cover
            return np.full((self._n, 2), np.inf)
        ends = self.design.reachable(self._t, self._a, self._b, self._k, self._s)
        return np.maximum(self._log_r, ends)

    def threshold_for(self, level: Any) -> np.ndarray:
        """Least log R at which the (grid-rounded) p-value is <= level; +inf where no R within the grid is."""
        lv = np.asarray(level, dtype=float)
        # the grid p-values are non-increasing: the first index with p <= level
        j = np.searchsorted(-self._grid_p, -lv, side="left")
        out = np.full(lv.shape, np.inf)
        ok = j < self._grid_m.size
        out[ok] = self._grid_m[np.minimum(j, self._grid_m.size - 1)][ok]
        return out

    def futile(self, level_less: Any, level_more: Any) -> np.ndarray:
        """True where neither direction can reach p <= its level (an upper bound on any level it may still
        get) before the budget ends: such a comparison cannot be decided by its own test any more, so
        sampling it is wasted. The margin keeps a borderline case live (the rounding of `_read`)."""
        m = np.stack([self.threshold_for(level_less), self.threshold_for(level_more)], axis=-1)
        return out_of_reach(self.reachable, m)

    @property
    def log_running_max(self) -> np.ndarray:
        """log R_k per stream and direction, shape (n, 2)."""
        return self._log_r.copy()
