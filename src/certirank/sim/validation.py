"""The adversarial validity battery behind ``certirank validate`` (issue 20) and docs/validity.md.

For each certified method and mode, a seeded Monte-Carlo estimate of the family-wise error rate (a run
counts as an error when *any* false claim is made at *any* time) with an exact Clopper–Pearson interval, on
scenarios chosen to break the guarantee if it can be broken: exact ties at 0, 0.5 and 1, near ties, many equal
policies, heterogeneous and dependent items with a zero average difference, tiny budgets, continuous scores
with equal means and different shapes, a finite table replayed in sorted order, the strict guarantee on
near-tie configurations, and model addition and benchmark updates for leaderboards.

Verdict of a row: ``pass`` unless the exact interval lies entirely above the row's bound (the data refute
"FWER <= bound" at the interval's confidence). The bound is alpha, except for documented exceptions:

* ``ties="assume_none"`` under exact ties: each direction is tested at the full level, so a tied pair may be
  ordered with probability up to 2 alpha (spec 00 / 01); its bound is 2 alpha.
* A finite table replayed *sorted by item* while policies differ item by item (zero average difference):
  replay assumes the rows are in the order they were run, so nothing is promised; the row is reported as
  ``not covered`` and shows why a table must be replayed in run order (or shuffled with a seed).

Every row is one call of :func:`certirank.sim.simulate` with a fixed seed, so the battery is reproducible
bit for bit and runs on any backend the simulator offers.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from .._validate import check_alpha, check_positive_int
from ..errors import ParameterError
from ..results import Result, inputs
from .metrics import clopper_pearson
from .scenarios import MatrixScenario, PolicyRun, PolicyScenario, bernoulli_scenario, get_scenario

__all__ = ["Check", "ValidationResult", "validation_checks", "validate", "LEVELS"]

LEVELS = ("quick", "full")
MAX_REPS = 1_000_000


@dataclass(frozen=True)
class Check:
    """One row of the battery: a scenario, a certified method in one mode, and the bound it must respect."""

    name: str
    scenario: str  # what is simulated, in words
    method: str  # simulate() method string, options in brackets
    build: Callable[[float, bool], Any] = field(repr=False)  # (alpha, quick) -> scenario object or name
    params: dict[str, Any] = field(default_factory=dict)  # scenario parameters for registered scenarios
    bound_factor: float | None = 1.0  # bound = factor * alpha; None = not covered by any guarantee
    exception: str = ""
    reps: tuple[int, int] = (60, 2000)  # (quick, full)
    #: a row that is not a simulate() study: (alpha, reps, seed) -> (runs with a false claim, extra fields)
    run: Callable[[float, int, int], tuple[int, dict[str, Any]]] | None = field(default=None, repr=False)


# ---------------------------------------------------------------------------------------------------
# scenario builders

def _bern(means: Sequence[float], n_max: int) -> Callable[[float, bool], PolicyScenario]:
    def build(alpha: float, quick: bool) -> PolicyScenario:
        return bernoulli_scenario("validate", tuple(means), n_max=n_max if not quick else min(n_max, 400),
                                  alpha=alpha, n_games=10)
    return build


def _matrix(rows: Sequence[Sequence[float]], weights: Sequence[float], n_max: int, what: str,
            cls: type = MatrixScenario) -> Callable[[float, bool], PolicyScenario]:
    """Environments drawn from weighted item types; every policy's score on an item type is fixed."""
    a = np.asarray(rows, dtype=float)
    w = np.asarray(weights, dtype=float)
    counts = np.round(w / w.min()).astype(int)
    mat = np.repeat(a, counts, axis=0)  # uniform row draws reproduce the weights

    def build(alpha: float, quick: bool) -> PolicyScenario:
        mu = mat.mean(axis=0)
        return cls(name="validate", values=tuple((0.0, 1.0) for _ in mu), probs=tuple((1 - p, p) for p in mu),
                   n_max=n_max if not quick else min(n_max, 400), alpha=alpha, metric="binary",
                   preference="scores", n_games=10, matrix=mat, description=what)
    return build


@dataclass(frozen=True)
class _SortedReplay(MatrixScenario):
    """A finite table of i.i.d. environments, stored sorted by item type (as exported tables often are), and
    replayed either in that order (``shuffle=False``) or after a seeded shuffle of its rows."""

    shuffle: bool = True

    def draw(self, seed: Any) -> PolicyRun:
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        run = MatrixScenario.draw(self, rng)
        scores = run.scores[np.lexsort(run.scores.T[::-1])]  # sorted by item (row contents)
        if self.shuffle:
            scores = scores[rng.permutation(scores.shape[0])]
        return PolicyRun(scores=scores, pref_a=run.pref_a, pref_b=run.pref_b, pref_y=run.pref_y)


def _sorted(shuffle: bool) -> Callable[[float, bool], PolicyScenario]:
    rows = [[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]

    def build(alpha: float, quick: bool) -> PolicyScenario:
        mat = np.asarray(rows)
        mu = mat.mean(axis=0)
        return _SortedReplay(name="validate", values=tuple((0.0, 1.0) for _ in mu),
                             probs=tuple((1 - p, p) for p in mu), n_max=400 if quick else 1000, alpha=alpha,
                             metric="binary", preference="scores", n_games=10, matrix=mat, shuffle=shuffle)
    return build


def _shapes(alpha: float, quick: bool) -> PolicyScenario:
    # equal means 0.5: a coin, a narrow symmetric spread, a constant and a skewed distribution
    return PolicyScenario(name="validate",
                          values=((0.0, 1.0), (0.4, 0.5, 0.6), (0.5,), (0.3, 0.9)),
                          probs=((0.5, 0.5), (1 / 3, 1 / 3, 1 / 3), (1.0,), (2 / 3, 1 / 3)),
                          n_max=400 if quick else 1000, alpha=alpha, metric="progress", preference="scores",
                          n_games=10)


def _registered(name: str) -> Callable[[float, bool], Any]:
    def build(alpha: float, quick: bool) -> Any:
        return name
    return build


_TIE_NOTE = ("ties='assume_none' tests each direction at the full level, so an exactly tied pair may be "
             "ordered with probability up to 2 alpha (spec 00, spec 01)")
_SORT_NOTE = ("replay assumes rows in the order they were run; a table sorted by item, whose policies differ "
              "item by item, breaks that assumption (replay in run order, or shuffle the rows with a seed)")


def _sorted_pair(rng: np.random.Generator, n: int = 200) -> Any:
    """Two equal policies (Bernoulli(0.5) each), the table sorted so that A's successes come first (spec 09 §8)."""
    import pandas as pd
    a = (rng.random(n) < 0.5).astype(float)
    b = (rng.random(n) < 0.5).astype(float)
    rows = np.argsort(-a, kind="stable")
    return pd.DataFrame({"A": a[rows], "B": b[rows]})


def _read_sorted(order: str) -> Callable[[float, int, int], tuple[int, dict[str, Any]]]:
    """AnyRank on sorted tables of two equal policies, read in the default (random) order or in file order."""
    def run(alpha: float, reps: int, seed: int) -> tuple[int, dict[str, Any]]:
        from ..methods.anyrank import anyrank
        rng = np.random.default_rng(seed)
        false = warned = 0
        for _ in range(reps):
            res = anyrank(_sorted_pair(rng), alpha, bins="binary", order=order)
            false += bool(res.ranking.relations)
            warned += any(w.startswith("warning:") and "trend with row order" in w for w in res.warnings)
        return false, {"warned": warned / reps}
    return run


def _table_estimand(alpha: float, reps: int, seed: int) -> tuple[int, dict[str, Any]]:
    """The table estimand on tables whose three policies have exactly equal averages (each column a
    permutation of one set of scores): certifying any pair is an error."""
    import pandas as pd

    from ..methods.shuffled import table_ranking
    rng = np.random.default_rng(seed)
    false = 0
    for r in range(reps):
        base = (rng.random(120) < 0.5).astype(float)
        table = pd.DataFrame({p: rng.permutation(base) for p in ("A", "B", "C")})
        false += bool(table_ranking(table, alpha, seed=r).ranking.relations)
    return false, {}


_FILE_NOTE = ("read in file order, a table sorted so that one policy's successes come first is tested as if its "
              "rows were fresh draws: the guarantee does not cover it, and the order check warns (the 'warned' "
              "share of runs)")


def validation_checks() -> list[Check]:
    """The battery's rows, in display order."""
    het = [[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
    dep = [[1.0, 1.0, 1.0], [0.0, 0.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
    return [
        Check("tie-0", "3 policies, all scores 0 (exact tie at 0)", "anyrank", _bern((0.0,) * 3, 1000)),
        Check("tie-0.5", "3 policies Bernoulli(0.5) (exact tie)", "anyrank", _bern((0.5,) * 3, 1000)),
        Check("tie-0.5-assume-none", "3 policies Bernoulli(0.5), ties='assume_none'", "anyrank[ties=assume_none]",
              _bern((0.5,) * 3, 1000), bound_factor=2.0, exception=_TIE_NOTE),
        Check("tie-1", "3 policies, all scores 1 (exact tie at 1)", "anyrank", _bern((1.0,) * 3, 1000)),
        Check("tie-0.5-bonferroni", "3 policies Bernoulli(0.5), Bonferroni", "bonferroni", _bern((0.5,) * 3, 1000)),
        Check("tie-0.5-fixed-sequence", "3 policies Bernoulli(0.5), AnyRank-inf", "anyrank-inf",
              _bern((0.5,) * 3, 1000)),
        Check("near-tie", "Bernoulli 0.50 vs 0.51 (and 0.30): a reversal is the error", "anyrank",
              _bern((0.50, 0.51, 0.30), 2000)),
        Check("near-tie-strict", "0.50, 0.51, 0.50, 0.51: ties and near ties, guarantee='strict'",
              "anyrank[guarantee=strict]", _bern((0.50, 0.51, 0.50, 0.51), 2000)),
        Check("equal-20", "20 equal policies Bernoulli(0.5) (190 pairs)", "anyrank0", _bern((0.5,) * 20, 300),
              reps=(25, 1000)),
        Check("heterogeneous-items", "items where A and B swap (A=1,B=0 or A=0,B=1): zero average difference",
              "anyrank", _matrix(het, [1, 1], 1000, "heterogeneous items")),
        Check("dependent-items", "paired scores dependent within an item, equal means", "anyrank",
              _matrix(dep, [3, 3, 1, 1], 1000, "dependent items")),
        Check("tiny-n", "3 policies Bernoulli(0.5) with n_max = 5", "anyrank", _bern((0.5,) * 3, 5)),
        Check("tiny-n-strict", "Bernoulli 0.4, 0.5, 0.6 with n_max = 5, guarantee='strict'",
              "anyrank[guarantee=strict]", _bern((0.4, 0.5, 0.6), 5)),
        Check("continuous-shapes", "equal means 0.5, different shapes (coin, spread, constant, skewed), "
              "metric progress", "anyrank", _shapes),
        Check("sorted-replay-shuffled", "finite heterogeneous table sorted by item, shuffled with a seed before "
              "replay", "anyrank", _sorted(True)),
        Check("sorted-replay-as-is", "finite heterogeneous table replayed sorted by item", "anyrank", _sorted(False),
              bound_factor=None, exception=_SORT_NOTE, reps=(20, 500)),
        Check("order-default-sorted", "2 equal policies, 200 rows sorted so one's successes come first, read in the "
              "default random order (spec 09 §8)", "anyrank[order=random]", _registered("-"),
              run=_read_sorted("random"), reps=(60, 1000)),
        Check("order-file-sorted", "the same sorted tables read in file order (--order file): the order check "
              "must warn", "anyrank[order=given]", _registered("-"), bound_factor=None, exception=_FILE_NOTE,
              run=_read_sorted("given"), reps=(20, 500)),
        Check("about-table", "3 policies with exactly equal averages over a 120-row table, --about table (claims "
              "about the table's averages)", "table_ranking", _registered("-"), run=_table_estimand,
              reps=(60, 1000)),
        Check("leaderboard-heterogeneity", "BB-EDGE DGP, tied pairs with opposite item effects", "bbedge",
              _registered("bbedge-heterogeneity"), params={"R": 30}, reps=(40, 1000)),
        Check("leaderboard-dependence", "BB-EDGE DGP, within-block dependence (kappa1 = 0.5)", "bbedge",
              _registered("bbedge-dependence"), params={"R": 30}, reps=(40, 1000)),
        Check("leaderboard-model-addition", "a model joins a running board (spec 04 §9.2)", "bbedge-addition",
              _registered("bbedge-addition"), params={"R": 30}, reps=(40, 1000)),
        Check("leaderboard-benchmark-update", "benchmark grows 40 -> 70 -> 100 items with epoch reset",
              "bbedge-epoch", _registered("bbedge-expansion"), params={"R": 30}, reps=(40, 1000)),
    ]


# ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ValidationResult(Result):
    """Outcome of :func:`validate`: one row per check, and whether every covered row passed.

    ``rows``: name, scenario, method, reps, false_runs, estimate (FWER), interval (Clopper–Pearson at
    ``confidence``), alpha, bound (None = not covered), verdict (``pass`` / ``fail`` / ``not covered``),
    exception (the documented reason a bound differs from alpha), seconds.
    """

    KIND: ClassVar[str] = "validate"

    level: str = inputs()
    alpha: float = inputs()
    confidence: float = inputs()
    seed: int = inputs()
    backend: str | None = inputs()
    rows: list[dict[str, Any]]
    passed: bool
    elapsed: float
    statement: str


def _simulate_kwargs(backend: str | None) -> dict[str, Any]:
    from .runner import simulate

    if backend is None:
        return {}
    if "backend" not in inspect.signature(simulate).parameters:
        raise ParameterError(f"backend {backend!r} was asked for, but this simulator runs in-process only "
                             "(no backend option)")
    return {"backend": backend}


def validate(level: str = "quick", *, alpha: float = 0.05, seed: int = 2020, reps: int | None = None,
             checks: Sequence[str] | None = None, confidence: float = 0.99, jobs: int = 1,
             backend: str | None = None, progress: Callable[[dict[str, Any]], None] | None = None
             ) -> ValidationResult:
    """Run the validity battery.

    Parameters
    ----------
    level:
        ``quick`` (a smoke test, well under 2 minutes on 2 cores) or ``full`` (the study in docs/validity.md).
    alpha:
        Family-wise level given to every method.
    seed:
        Root seed; row i uses ``seed + i`` (rows are reproducible one by one).
    reps:
        Monte-Carlo runs per row (default: the level's, per row).
    checks:
        Names of the rows to run (default: all, see :func:`validation_checks`).
    confidence:
        Confidence of the Clopper–Pearson intervals used for the verdicts (two-sided).
    jobs, backend:
        Passed to :func:`certirank.sim.simulate` (results never depend on them).
    progress:
        Called with each finished row (for a live display).
    """
    from .runner import simulate

    if level not in LEVELS:
        raise ParameterError(f"unknown level {level!r}; valid choices: {', '.join(LEVELS)}")
    alpha = check_alpha(alpha)
    confidence = check_alpha(confidence, "confidence")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2 ** 63:
        raise ParameterError(f"seed must be a non-negative integer, got {seed!r}")
    if reps is not None:
        reps = check_positive_int("reps", reps)
        if reps > MAX_REPS:
            raise ParameterError(f"reps must be at most {MAX_REPS:,} per row, got {reps:,}")
    jobs = check_positive_int("jobs", jobs)
    extra = _simulate_kwargs(backend)
    table = validation_checks()
    if checks is not None:
        if isinstance(checks, str):
            checks = [c.strip() for c in checks.split(",") if c.strip()]
        known = {c.name for c in table}
        bad = [c for c in checks if c not in known]
        if bad or not checks:
            raise ParameterError(f"unknown check(s) {bad or checks!r}; valid: {', '.join(sorted(known))}")
        table = [c for c in table if c.name in set(checks)]
    quick = level == "quick"
    rows: list[dict[str, Any]] = []
    t_all = time.perf_counter()
    selected = {c.name for c in table}
    for i, chk in enumerate(validation_checks()):
        if chk.name not in selected:
            continue
        n = reps if reps is not None else chk.reps[0 if quick else 1]
        t0 = time.perf_counter()
        more: dict[str, Any] = {}
        if chk.run is not None:
            k, more = chk.run(alpha, n, int(seed) + i)
            s = {"fwer": k / n, "runs": n, "power": None}
        else:
            scen = chk.build(alpha, quick)
            params = dict(chk.params)
            if isinstance(scen, str):
                params["alpha"] = alpha
            else:
                scen = get_scenario(scen)
            res = simulate(scen, chk.method, reps=n, seed=int(seed) + i, jobs=jobs, progress=False, **params, **extra)
            s = next(iter(res.summary.values()))
            k = int(round(s["fwer"] * s["runs"]))
        lo, hi = clopper_pearson(k, int(s["runs"]), confidence)
        bound = None if chk.bound_factor is None else min(1.0, chk.bound_factor * alpha)
        verdict = "not covered" if bound is None else ("pass" if lo <= bound else "fail")
        row = {"name": chk.name, "scenario": chk.scenario, "method": chk.method, "reps": int(s["runs"]),
               "false_runs": k, "estimate": s["fwer"], "interval": [lo, hi], "alpha": alpha, "bound": bound,
               "verdict": verdict, "exception": chk.exception or None, "power": s.get("power"),
               "seconds": round(time.perf_counter() - t0, 3), **more}
        rows.append(row)
        if progress is not None:
            progress(row)
    passed = all(r["verdict"] != "fail" for r in rows)
    statement = (f"{sum(r['verdict'] == 'pass' for r in rows)} of {sum(r['bound'] is not None for r in rows)} "
                 f"covered rows pass (FWER consistent with its bound at {confidence:.0%} confidence); "
                 f"{sum(r['verdict'] == 'not covered' for r in rows)} row(s) outside every guarantee, shown "
                 "for what they teach")
    return ValidationResult(level=level, alpha=alpha, confidence=confidence, seed=int(seed), backend=backend,
                            rows=rows, passed=passed, elapsed=round(time.perf_counter() - t_all, 3),
                            statement=statement)
