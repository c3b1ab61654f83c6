"""The engine every test in :mod:`certirank.evidence` drives, and the bettor factory (spec 01).

Split from `_core` so that the bettor modules (`_core`'s own bettors, `mixture`) never import the engine that builds
them: `_core` (checks, the spec 01 bettors) and `_tails` (the Beta-mixture tail maths) are leaves, `mixture` builds on
them, and this module on all three.

One engine instance holds ``n`` independent streams; each stream carries ``d`` one-sided processes ("directions")
that consume the same observations. All updates are elementwise numpy operations (no BLAS), whose result for one
element does not depend on the array length.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ParameterError
from ._core import (PAIRED_ONLY, PROGRESS_BINS, _AGrapa, _BernoulliKelly, _Bettor, _Hoeffding, _NScore, _ONS, _PrPlEB,
                    _ZBettor, check_bettor)
from .mixture import Adaptive, BetaMixture, Calibrated, GridMixture

__all__ = ["Engine", "make_bettor"]


def make_bettor(name: str, *, d: int, m: np.ndarray | None, bins: tuple[float, ...] | None,
                options: dict[str, Any]) -> _Bettor:
    name = check_bettor(name)
    known = {"agrapa": {"c"}, "ons": set(), "prpl_eb": {"c", "alpha_bet", "predictor"},
             "hoeffding": {"alpha_bet"}, "nscore": set(), "bernoulli_kelly": set(),
             "mixture": {"concentration", "grid_size"}, "beta_mixture": {"concentration"},
             "adaptive": {"concentration"}, "calibrated": {"target"}}[name]
    extra = set(options) - known
    if extra:
        raise ParameterError(f"bettor {name!r} does not take option(s) {', '.join(sorted(extra))}"
                             + (f"; it takes: {', '.join(sorted(known))}" if known else ""))
    if name == "nscore":
        return _NScore(bins if bins is not None else PROGRESS_BINS)
    if name == "bernoulli_kelly":
        return _BernoulliKelly()
    if name == "adaptive":
        return Adaptive(bins if bins is not None else PROGRESS_BINS, **options)
    if name == "calibrated":
        return Calibrated(bins if bins is not None else PROGRESS_BINS, **options)
    if name in ("mixture", "beta_mixture"):
        return (GridMixture if name == "mixture" else BetaMixture)(**options)
    assert m is not None
    cls = {"agrapa": _AGrapa, "ons": _ONS, "prpl_eb": _PrPlEB, "hoeffding": _Hoeffding}[name]
    return cls(m, **options)



# --------------------------------------------------------------------------------------------------
# the engine
# --------------------------------------------------------------------------------------------------

class Engine:
    """State arrays for n streams x d directions and the one update rule they share.

    mode ``"paired"``: inputs (x, y), d = 2, Z-bettors see Z = ((y - x) + 1)/2 for `less` and
    ((x - y) + 1)/2 for `more`, with m = 1/2. mode ``"one_sample"``: input z, d = 1, null E[z] <= m.
    """

    def __init__(self, n: int, *, mode: str, bettor: str, m: float = 0.5,
                 bins: tuple[float, ...] | None = None, options: dict[str, Any] | None = None) -> None:
        self.mode = mode
        self.d = 2 if mode == "paired" else 1
        self.m = float(m)
        self.bettor_name = check_bettor(bettor)
        if mode != "paired" and self.bettor_name in PAIRED_ONLY:
            raise ParameterError(f"bettor {self.bettor_name!r} compares two policies; for a one-sample test use "
                                 "one of: agrapa, ons, prpl_eb, hoeffding")
        self.bins = bins if self.bettor_name in ("nscore", "adaptive", "calibrated") else None
        self.options = dict(options or {})
        self.bettor = make_bettor(self.bettor_name, d=self.d, m=np.full(self.d, self.m), bins=self.bins,
                                  options=self.options)
        self.n = int(n)
        self.state = self.fresh(self.n)

    def fresh(self, n: int) -> dict[str, np.ndarray]:
        st = {"t": np.zeros(n, dtype=np.int64), "log_wealth": np.zeros((n, self.d)),
              "log_wealth_max": np.zeros((n, self.d))}
        st.update(self.bettor.fields(n, self.d))
        return st

    def config(self) -> dict[str, Any]:
        cfg: dict[str, Any] = {"mode": self.mode, "bettor": self.bettor_name, "options": self.bettor.options}
        if self.mode == "one_sample":
            cfg["m"] = self.m
        return cfg

    def check(self, a: np.ndarray, b: np.ndarray | None = None) -> None:
        """Bettor-specific input checks (range checks are done by the callers); raises before any update."""
        chk = getattr(self.bettor, "check", None)
        if chk is not None:
            chk(a, b)

    def step(self, sel: Any, a: np.ndarray, b: np.ndarray | None = None) -> None:
        """Update the streams `sel` (slice or unique int indices) with validated inputs (a = x or z, b = y)."""
        st = self.state
        t_new = st["t"][sel] + 1
        if self.mode == "paired":
            if isinstance(self.bettor, _ZBettor):
                z = np.stack([((b - a) + 1.0) / 2.0, ((a - b) + 1.0) / 2.0], axis=1)
                logf = self.bettor.observe(st, sel, t_new, z)
            else:
                logf = self.bettor.observe(st, sel, t_new, a, b)
        else:
            logf = self.bettor.observe(st, sel, t_new, a[:, None])
        lw = st["log_wealth"][sel] + logf
        st["log_wealth"][sel] = lw
        st["log_wealth_max"][sel] = np.maximum(st["log_wealth_max"][sel], lw)
        st["t"][sel] = t_new

    # ---- serialisation -----------------------------------------------------------------------
    def dump(self) -> dict[str, Any]:
        arrays = {k: v.tolist() for k, v in self.state.items()}
        return {"config": self.config(), "n": self.n, "bins": list(self.bins) if self.bins else None,
                "arrays": arrays}

    def load_arrays(self, arrays: dict[str, Any]) -> None:
        fresh = self.fresh(self.n)
        if set(arrays) != set(fresh):
            raise ParameterError(f"state arrays {sorted(arrays)} do not match this configuration "
                                 f"(expected {sorted(fresh)})")
        for k, ref in fresh.items():
            arr = np.asarray(arrays[k], dtype=ref.dtype)
            if arr.shape != ref.shape:
                raise ParameterError(f"state array {k!r} has shape {arr.shape}, expected {ref.shape}")
            fresh[k] = np.ascontiguousarray(arr)
        self.state = fresh
