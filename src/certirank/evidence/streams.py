"""Low-level vectorised banks of anytime-valid tests (the layer AnyRank and the simulators build on).

`PairedStreams` holds ``n`` independent mirrored paired comparisons (for AnyRank: one per hypothesis, or
``runs * K`` for a simulation), each with its two one-sided directions; `OneSampleStreams` holds ``n``
one-sided tests of H0: E[X] <= m for X in [0, 1]. Both are updated with one observation for a chosen
subset of streams at a time and serialise to plain JSON-able data that resumes bit-for-bit.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._validate import check_alpha, check_positive_int
from ..errors import DataError, ParameterError
from ._core import check_bettor, check_scores, check_ties, resolve_bins
from .engine import Engine

__all__ = ["PairedStreams", "OneSampleStreams", "LESS", "MORE", "STATE_FORMAT"]

#: column of the `less` direction (claim mu_x < mu_y, payoff y - x) in every (n, 2) array
LESS = 0
#: column of the `more` direction (claim mu_x > mu_y, payoff x - y)
MORE = 1
STATE_FORMAT = "certirank.evidence.streams.v1"
_LOG2 = math.log(2.0)


def _index(n: int, index: Any) -> tuple[Any, int]:
    """Normalise `index` to a slice (all streams) or a unique int64 array; return it and its length."""
    if index is None:
        return slice(None), n
    idx = np.asarray(index)
    if idx.dtype == bool:
        if idx.shape != (n,):
            raise ParameterError(f"a boolean index must have shape ({n},), got {idx.shape}")
        idx = np.flatnonzero(idx)
    elif idx.dtype.kind not in "iu":
        raise ParameterError(f"stream index must be integers, got {idx.dtype}")
    idx = np.atleast_1d(idx).astype(np.int64, copy=False).ravel()
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise ParameterError(f"stream index out of range: streams are 0..{n - 1}")
    if idx.size > 1 and np.unique(idx).size != idx.size:
        raise ParameterError("stream index contains duplicates; update a stream at most once per call")
    return idx, idx.size


def _values(v: Any, k: int, name: str) -> np.ndarray:
    arr = np.atleast_1d(check_scores(v, name)).ravel()
    if arr.size == 1 and k != 1:
        arr = np.full(k, arr[0])
    if arr.size != k:
        raise DataError(f"{name}: got {arr.size} values for {k} streams (lengths must match)")
    return arr


class _Streams:
    _mode = ""

    engine: Engine

    @property
    def n(self) -> int:
        """Number of streams."""
        return self.engine.n

    @property
    def count(self) -> np.ndarray:
        """Observations consumed per stream, shape (n,)."""
        return self.engine.state["t"].copy()

    @property
    def log_wealth(self) -> np.ndarray:
        """Current log e-process (log M_t) per stream and direction, shape (n, d)."""
        return self.engine.state["log_wealth"].copy()

    @property
    def log_wealth_max(self) -> np.ndarray:
        """Running maximum of log M_s over s <= t (>= 0), shape (n, d)."""
        return self.engine.state["log_wealth_max"].copy()

    @property
    def stakes(self) -> np.ndarray:
        """Stakes already fixed for each stream's next observation (predictable), shape (n, d)."""
        return self.engine.state["lam"].copy()

    @property
    def one_sided_pvalues(self) -> np.ndarray:
        """Canonical p-process per direction, min(1, inf_s 1/M_s) = exp(-log_wealth_max), shape (n, d)."""
        return np.exp(-self.engine.state["log_wealth_max"])

    def to_state(self) -> dict[str, Any]:
        """Plain JSON-able data (dicts, lists, floats, ints, strings) that `from_state` resumes bit-for-bit."""
        out = {"format": STATE_FORMAT, "kind": type(self).__name__, **self._extra_config(), **self.engine.dump()}
        return out

    def _extra_config(self) -> dict[str, Any]:
        return {}

    def _check_state(self, state: Any) -> dict[str, Any]:
        if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
            raise ParameterError(f"not a saved evidence state (expected format {STATE_FORMAT!r})")
        if state.get("kind") != type(self).__name__:
            raise ParameterError(f"saved state is a {state.get('kind')!r}, not a {type(self).__name__}")
        return state


class PairedStreams(_Streams):
    """``n`` independent mirrored comparisons of two policies X and Y on paired trials.

    Stream i consumes pairs (x, y) (x = score of the baseline/"data0" policy, y = the challenger/"data1"
    on the same environment) and runs the two one-sided tests of spec 01 §4: column ``LESS`` (0) tests
    H0: E[y - x] <= 0, whose rejection claims mu_x < mu_y; column ``MORE`` (1) tests H0: E[x - y] <= 0,
    claiming mu_x > mu_y. Both directions consume every pair.

    Parameters
    ----------
    n : int
        Number of streams (e.g. K hypotheses, or runs * K for a simulation).
    bettor : str
        ``nscore`` (default), ``bernoulli_kelly`` (binary scores only), ``agrapa``, ``ons``, ``prpl_eb``,
        ``hoeffding``. Validity never depends on it.
    ties : str
        ``allow`` (spec 01 `ranking`, default): p = min(1, 2 min(p_less, p_more)); ``assume_none``
        (`assume_no_ties`): p = min(p_less, p_more). Only the p-value combination depends on it.
    bins : str or sequence
        N-SCORE score bins: ``"progress"`` (0, 0.1, ..., 1; default), ``"binary"`` (0, 1), or an explicit
        increasing grid. Configuration, never chosen from the data being tested. Ignored by other bettors.
    **options
        Bettor tuning constants: agrapa ``c``; prpl_eb ``c``, ``alpha_bet``, ``predictor``;
        hoeffding ``alpha_bet``.
    """

    _mode = "paired"

    def __init__(self, n: int, *, bettor: str = "nscore", ties: str = "allow", bins: Any = "progress",
                 **options: Any) -> None:
        n = check_positive_int("n", n)
        self.ties = check_ties(ties)
        bettor = check_bettor(bettor)
        self.engine = Engine(n, mode="paired", bettor=bettor, bins=resolve_bins(bins), options=options)

    def _extra_config(self) -> dict[str, Any]:
        return {"ties": self.ties}

    @property
    def bettor(self) -> str:
        return self.engine.bettor_name

    # ---- updating --------------------------------------------------------------------------------
    def update(self, index: Any, x: Any, y: Any) -> None:
        """Feed one pair to each stream in `index` (int, int array or bool mask; ``None`` = all streams).

        `x`, `y` are scores in [0, 1] (scalars broadcast). Inputs are validated before any state changes.
        """
        sel, k = _index(self.n, index)
        xa = _values(x, k, "x")
        ya = _values(y, k, "y")
        if k == 0:
            return
        self.engine.check(xa, ya)
        self.engine.step(sel, xa, ya)

    # ---- reading ---------------------------------------------------------------------------------
    @property
    def log_pvalue_less(self) -> np.ndarray:
        return -self.engine.state["log_wealth_max"][:, 0]

    @property
    def pvalue_less(self) -> np.ndarray:
        """p-process of the `less` direction (small => mu_x < mu_y), shape (n,)."""
        return np.exp(-self.engine.state["log_wealth_max"][:, 0])

    @property
    def pvalue_more(self) -> np.ndarray:
        """p-process of the `more` direction (small => mu_x > mu_y), shape (n,)."""
        return np.exp(-self.engine.state["log_wealth_max"][:, 1])

    @property
    def pvalue(self) -> np.ndarray:
        """Combined two-sided p-process per the tie mode, shape (n,)."""
        return combine(self.pvalue_less, self.pvalue_more, self.ties)

    @property
    def sign(self) -> np.ndarray:
        """+1 where p_less < p_more (evidence mu_x < mu_y), -1 where p_more < p_less, 0 if equal; (n,)."""
        lm = self.engine.state["log_wealth_max"]
        return np.sign(lm[:, 0] - lm[:, 1]).astype(np.int64)

    def rejects(self, level: Any) -> np.ndarray:
        """Signed decision at `level` (scalar or (n,) array): sign where pvalue <= level and sign != 0, else 0."""
        lv = np.asarray(level, dtype=float)
        s = self.sign
        return np.where((self.pvalue <= lv) & (s != 0), s, 0)

    @property
    def log_evalue_tie(self) -> np.ndarray:
        """log((E_less + E_more)/2): an e-process for the tie null mu_x = mu_y (spec 01 §6 rule 3)."""
        lw = self.engine.state["log_wealth"]
        return np.logaddexp(lw[:, 0], lw[:, 1]) - _LOG2

    # ---- persistence -----------------------------------------------------------------------------
    @classmethod
    def from_state(cls, state: dict[str, Any]) -> "PairedStreams":
        """Rebuild from `to_state()` output; further updates give exactly the numbers the original would."""
        if not isinstance(state, dict):
            raise ParameterError("not a saved evidence state (expected a dict from to_state())")
        cfg = state.get("config", {})
        obj = cls(state.get("n", 1), bettor=cfg.get("bettor", "nscore"), ties=state.get("ties", "allow"),
                  bins=state.get("bins") or "progress", **cfg.get("options", {}))
        obj._check_state(state)
        obj.engine.load_arrays(state["arrays"])
        return obj


class OneSampleStreams(_Streams):
    """``n`` independent one-sided tests of H0: E[X_t | past] <= m for X in [0, 1] (spec 01 §5).

    Bettors: ``agrapa`` (default), ``ons`` (betting form), ``prpl_eb`` (empirical Bernstein),
    ``hoeffding``. For a paired difference with margin tau feed Z = (y - x + 1)/2 with m = (1 + tau)/2
    (see :func:`certirank.evidence.paired_to_unit`).
    """

    _mode = "one_sample"

    def __init__(self, n: int, *, m: float = 0.5, bettor: str = "agrapa", **options: Any) -> None:
        n = check_positive_int("n", n)
        m = check_alpha(m, "m")  # same range check: m in (0, 1)
        self.engine = Engine(n, mode="one_sample", bettor=bettor, m=m, options=options)

    @property
    def bettor(self) -> str:
        return self.engine.bettor_name

    @property
    def m(self) -> float:
        return self.engine.m

    def update(self, index: Any, z: Any) -> None:
        """Feed one observation in [0, 1] to each stream in `index` (``None`` = all streams)."""
        sel, k = _index(self.n, index)
        za = _values(z, k, "x")
        if k == 0:
            return
        self.engine.step(sel, za)

    @property
    def pvalue(self) -> np.ndarray:
        """Canonical p-process, shape (n,)."""
        return np.exp(-self.engine.state["log_wealth_max"][:, 0])

    def lower_bound(self, alpha: float) -> np.ndarray:
        """PrPl-EB lower confidence sequence L_t at level alpha (spec 01 §5.3); prpl_eb only. Shape (n,)."""
        if self.bettor != "prpl_eb":
            raise ParameterError("lower_bound is defined for bettor 'prpl_eb' only")
        alpha = check_alpha(alpha)
        st = self.engine.state
        lam = st["cs_lam"][:, 0]
        num = st["cs_lam_z"][:, 0] - math.log(1.0 / alpha) - st["cs_psi"][:, 0]
        with np.errstate(divide="ignore", invalid="ignore"):
            val = np.where(lam > 0, num / np.where(lam > 0, lam, 1.0), 0.0)
        return np.maximum(0.0, val)

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> "OneSampleStreams":
        if not isinstance(state, dict):
            raise ParameterError("not a saved evidence state (expected a dict from to_state())")
        cfg = state.get("config", {})
        obj = cls(state.get("n", 1), m=cfg.get("m", 0.5), bettor=cfg.get("bettor", "agrapa"),
                  **cfg.get("options", {}))
        obj._check_state(state)
        obj.engine.load_arrays(state["arrays"])
        return obj


def combine(p_less: Any, p_more: Any, ties: str) -> np.ndarray:
    """Two-sided p-value from the two one-sided p-processes (spec 01 §4)."""
    lo = np.minimum(p_less, p_more)
    if ties == "allow":
        return np.minimum(1.0, 2.0 * lo)
    return lo
