"""The statistical core of certified early stopping, free of any evaluation framework.

An evaluation of N samples x E epochs is run, by inspect_ai and most harnesses, as E passes over the same
sample order: pass 1 runs every sample once, pass 2 runs them again in the same order, and so on. The only
randomness the guarantee can use is that order (a shuffled dataset), and once pass 1 is over the order is
known, so pass 2 carries no *new* randomness for a test that also remembers pass 1. Each pass is therefore
tested on its own data only: seen alone, pass e is a uniformly random ordering of that pass's N scores, a
without-replacement sample whose population average A_e is pass e's average (see
docs/finite-population.md). The benchmark average is A = mean_e A_e, and

- "A > tau" is claimed only when every pass certified A_e > tau (each at level alpha). If A <= tau, some pass
  has A_e <= tau and its own test errs with probability <= alpha, so the claim errs with probability <= alpha
  with no union bound; likewise for "below", and for "better"/"worse"/"within" against a reference;
- the confidence sequence for A averages the passes' sequences, each at level alpha / E (all must hold).

Values are fed to `observe` in the order the samples were *scheduled*, which is the shuffled order. Feeding
them in completion order would let fast (and perhaps systematically easier) samples arrive first.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._validate import check_alpha, check_choice, check_positive_int
from ..errors import ParameterError
from ..evidence.finite import _FiniteCSEngine, _FiniteMeanEngine, _log_evalue, _pvalue_sign, _to_unit

__all__ = ["StoppingCore", "GOALS", "DECISIONS"]

GOALS = ("threshold", "precision", "reference")
#: decision codes of the vectorised core -> words, per goal
DECISIONS = {"threshold": {1: "above", -1: "below"}, "precision": {2: "narrow"},
             "reference": {1: "better", -1: "worse", 3: "within"}}
_C = 0.5


class _Pass:
    """One pass (epoch) over the N samples, for `runs` independent runs: test and confidence sequence."""

    def __init__(self, core: "StoppingCore") -> None:
        self.core = core
        self.n = 0
        lo, hi = core.bounds
        runs = core.runs
        self.test: _FiniteMeanEngine | None = None
        if core.goal in ("threshold", "reference"):
            null = core.threshold if core.goal == "threshold" else 0.0
            self.test = _FiniteMeanEngine(runs, core.n_samples, (null - lo) / (hi - lo), _C)
        # the sequence decides the precision goal and "within"; for the other goals it is reported only
        self.cs = _FiniteCSEngine(runs, core.n_samples, core.alpha_cs, core.grid, _C) \
            if core.track_cs or core.goal == "precision" or core.margin > 0 else None
        self.code = np.zeros(runs, dtype=np.int64)
        self.decided_at = np.zeros(runs, dtype=np.int64)
        self._bounds: tuple[np.ndarray, np.ndarray] | None = None

    def observe(self, values: np.ndarray) -> None:
        if self.n >= self.core.n_samples:
            from ..errors import StateError

            raise StateError(f"pass already has all {self.core.n_samples} samples")
        x = _to_unit(values, *self.core.bounds, name="score")
        self.n += 1
        if self.test is not None:
            self.test.step(slice(None), x)
        if self.cs is not None:
            self.cs.step(slice(None), x)
        self._bounds = None
        self._decide()

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) of this pass's confidence sequence, in the units of `bounds`."""
        if self._bounds is None:
            lo, hi = self.core.bounds
            if self.cs is None:
                nan = np.full(self.core.runs, np.nan)
                return nan, nan
            lower, upper = self.cs.bounds()
            self._bounds = (lo + (hi - lo) * lower, lo + (hi - lo) * upper)
        return self._bounds

    def pvalue(self) -> np.ndarray | None:
        return None if self.test is None else _pvalue_sign(self.test.log_w_max, "two-sided")[0]

    def log_evalue(self) -> np.ndarray | None:
        return None if self.test is None else _log_evalue(self.test.log_w, "two-sided")

    def _decide(self) -> None:
        core = self.core
        open_ = self.code == 0
        if not open_.any():
            return
        new = np.zeros_like(self.code)
        if core.goal == "precision":
            lower, upper = self.bounds()
            new = np.where(upper - lower < core.precision, 2, 0)
        else:
            assert self.test is not None
            p, sign = _pvalue_sign(self.test.log_w_max, "two-sided")
            new = np.where((p <= core.alpha_test) & (sign != 0), sign, 0)
            if core.goal == "reference" and core.margin > 0:
                lower, upper = self.bounds()
                new = np.where((new == 0) & (lower > -core.margin) & (upper < core.margin), 3, new)
        hit = open_ & (new != 0)
        self.code[hit] = new[hit]
        self.decided_at[hit] = self.n


def _num(v: float) -> float | None:
    return v if math.isfinite(v) else None


def _finite(v: float) -> float | None:
    """JSON has no infinity: an e-value made infinite by values that settle the question is reported as None."""
    return v if math.isfinite(v) else None


class StoppingCore:
    """Certified stopping for one evaluation of `n_samples` samples x `epochs` epochs.

    Parameters
    ----------
    goal : "threshold", "precision" or "reference"
    threshold : tau for "threshold" (in the units of `bounds`).
    precision : epsilon for "precision": stop once the confidence sequence is narrower than epsilon.
    margin : for "reference", also stop once the mean difference is certified inside (-margin, margin).
    bounds : range of the values fed to `observe` ((0, 1) for scores; (-1, 1) for differences to a
        reference scored in [0, 1]).
    """

    def __init__(self, goal: str, n_samples: int, epochs: int = 1, *, alpha: float = 0.05,
                 threshold: float | None = None, precision: float | None = None, margin: float = 0.0,
                 bounds: tuple[float, float] = (0.0, 1.0), grid: int = 2001, runs: int = 1,
                 track_cs: bool = True) -> None:
        self.goal = check_choice("goal", goal, GOALS)
        self.track_cs = bool(track_cs)
        self.runs = check_positive_int("runs", runs)
        self.n_samples = check_positive_int("number of samples", n_samples)
        self.epochs = check_positive_int("epochs", epochs)
        self.alpha = check_alpha(alpha)
        self.bounds = (float(bounds[0]), float(bounds[1]))
        self.grid = grid
        self.threshold = threshold
        self.precision = precision
        self.margin = float(margin)
        if self.goal == "threshold" and threshold is None:
            raise ParameterError("goal 'threshold' needs threshold=tau")
        if self.goal == "threshold" and not self.bounds[0] <= float(threshold) <= self.bounds[1]:
            raise ParameterError(f"threshold {threshold!r} is outside the score range {self.bounds}")
        if self.goal == "precision" and (precision is None or not 0 < precision):
            raise ParameterError(f"goal 'precision' needs precision=epsilon > 0, got {precision!r}")
        if self.margin < 0 or not math.isfinite(self.margin):
            raise ParameterError(f"margin must be a number >= 0, got {margin!r}")
        # "within" and "better"/"worse" are two claims that can both be wrong for one difference
        # (|d| >= margin on the wrong side), so they share alpha
        self.alpha_test = self.alpha / 2 if (self.goal == "reference" and self.margin > 0) else self.alpha
        # the reported sequence for A averages the passes' sequences: all E must hold at once
        cs_alpha = self.alpha / 2 if (self.goal == "reference" and self.margin > 0) else self.alpha
        self.alpha_cs = cs_alpha / self.epochs
        self.passes = [_Pass(self) for _ in range(self.epochs)]

    def _pass(self, epoch: int) -> _Pass:
        if not 1 <= epoch <= self.epochs:
            raise ParameterError(f"epoch {epoch} is outside 1..{self.epochs}")
        return self.passes[epoch - 1]

    def observe(self, epoch: int, value: Any) -> None:
        """The next value of pass `epoch`, in scheduled order (an array of one value per run if runs > 1)."""
        v = np.asarray(value, dtype=float).reshape(-1)
        if v.size != self.runs:
            raise ParameterError(f"expected {self.runs} value(s) (one per run), got {v.size}")
        self._pass(epoch).observe(v)

    def pass_done(self, epoch: int) -> bool:
        """True once pass `epoch` has met its goal in every run (its remaining samples need not run)."""
        return bool(np.all(self._pass(epoch).code != 0))

    # -- per-run arrays (the vectorised view used by simulations) -------------------------------------

    def decision_codes(self) -> np.ndarray:
        """(runs,) code of the certified outcome (see DECISIONS; 0 = none): every pass must agree."""
        codes = np.stack([p.code for p in self.passes])
        agree = np.all(codes == codes[0], axis=0)
        return np.where(agree, codes[0], 0)

    def intervals(self) -> tuple[np.ndarray, np.ndarray]:
        """(runs,) lower and upper confidence bounds for the benchmark average (mean over passes)."""
        lows, highs = zip(*(p.bounds() for p in self.passes))
        return np.mean(lows, axis=0), np.mean(highs, axis=0)

    # -- single-run view (the manager) -------------------------------------------------------------

    @property
    def decision(self) -> str | None:
        """The certified outcome for the benchmark average in run 0, or None."""
        return DECISIONS[self.goal].get(int(self.decision_codes()[0]))

    @property
    def samples_used(self) -> int:
        return sum(p.n for p in self.passes)

    @property
    def interval(self) -> tuple[float, float]:
        """Confidence sequence for the benchmark average A (mean over passes), level 1 - alpha."""
        lo, hi = self.intervals()
        return float(lo[0]), float(hi[0])

    @property
    def evalue(self) -> float | None:
        """Smallest e-value over the passes: the evidence for the claim every pass must make (None: precision)."""
        if self.goal == "precision":
            return None
        return float(min(math.exp(min(float(p.log_evalue()[0]), 709.0)) if math.isfinite(p.log_evalue()[0])
                         else math.inf for p in self.passes))

    def pass_summary(self, epoch: int) -> dict[str, Any]:
        """Run 0's state of pass `epoch`: samples used, decision, decided_at, mean, bounds, p- and e-value."""
        p = self.passes[epoch - 1]
        lower, upper = p.bounds()
        mean = None
        if p.n:
            lo, hi = self.bounds
            pop = (p.test if p.test is not None else p.cs).pop
            mean = lo + (hi - lo) * float(pop.S[0]) / p.n
        out: dict[str, Any] = {"epoch": epoch, "samples_used": p.n,
                               "decision": DECISIONS[self.goal].get(int(p.code[0])),
                               "decided_at": int(p.decided_at[0]) or None, "mean": mean,
                               "lower": _num(float(lower[0])), "upper": _num(float(upper[0]))}
        if p.test is not None:
            le = float(p.log_evalue()[0])
            out["pvalue"] = float(p.pvalue()[0])
            out["evalue"] = _finite(math.exp(min(le, 709.0))) if math.isfinite(le) else None
        return out

    def to_dict(self) -> dict[str, Any]:
        lo, hi = self.interval
        used = self.samples_used
        total = self.n_samples * self.epochs
        ev = self.evalue
        out: dict[str, Any] = {
            "goal": self.goal, "alpha": self.alpha, "decision": self.decision,
            "samples_used": used, "samples_total": total, "samples_saved": total - used,
            "n_samples": self.n_samples, "epochs": self.epochs,
            "confidence_sequence": {"lower": _num(lo), "upper": _num(hi), "width": _num(hi - lo),
                                    "level": 1 - (self.alpha_cs * self.epochs)},
            "evalue": None if ev is None else _finite(ev),
            "passes": [self.pass_summary(e + 1) for e in range(self.epochs)],
        }
        if self.goal == "threshold":
            out["threshold"] = self.threshold
        elif self.goal == "precision":
            out["precision"] = self.precision
        else:
            out["margin"] = self.margin
        out["guarantee"] = self.guarantee()
        return out

    def guarantee(self) -> str:
        a = f"{self.alpha:g}"
        if self.goal == "threshold":
            return (f"The chance of declaring the benchmark average above or below {self.threshold:g} when it is "
                    f"not is at most {a}, whenever the evaluation stops, provided the samples run in a random order.")
        if self.goal == "precision":
            return (f"The confidence sequence contains the benchmark average at every point of the run with "
                    f"probability at least {1 - self.alpha:g}, provided the samples run in a random order.")
        return (f"The chance of declaring the model better, worse or within the margin of the reference when it "
                f"is not is at most {a}, whenever the evaluation stops, provided the samples run in a random order.")
