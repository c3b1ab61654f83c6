"""The adversarial validity battery behind ``certirank validate`` (issues 20 and 33) and docs/validity.md.

Each row is a scenario chosen to break the family-wise guarantee if it can be broken, a certified method in one
mode, and the bound its family-wise error rate (FWER: a run counts as an error when *any* false claim is made at
*any* time) must respect. The bound is alpha, except for documented exceptions (``Check.exception``):

* ``ties="assume_none"`` under exact ties: each direction is tested at the full level, so a tied pair may be
  ordered with probability up to 2 alpha (spec 00 / 01); its bound is 2 alpha.
* A finite table replayed *sorted by item* while policies differ item by item (zero average difference): replay
  assumes the rows are in the order they were run, so nothing is promised; the row is ``not covered`` and shows
  why a table must be read in run order (or in a seeded random order).

A covered row is a sequential test (:mod:`certirank.sim.rowtest`): runs are simulated in seeded chunks and read
one by one until the row is clearly within its bound (``pass``) or clearly above it (``fail``). It fails a method
whose FWER is twice its bound (``--quick``; 1.5 times with ``--full``) with probability at least 0.9, and a method
within its bound with probability at most 0.001 (an anytime-valid likelihood-ratio test), so a battery of 20 rows
fails a correct implementation at most 2 % of the time and an implementation at twice its level almost always.

Rows are registered (:func:`register_check`): the built-in ones live in :mod:`certirank.sim._checks`; a module
listed in :data:`ROW_MODULES` adds its own rows the same way. Every run is one call of
:func:`certirank.sim.simulate` with a seed derived from the root seed, the row and the chunk, so the battery is
reproducible bit for bit, row by row, on any backend and worker count.
"""

from __future__ import annotations

import importlib
import inspect
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from .._validate import check_alpha, check_positive_int
from ..errors import ParameterError
from ..results import Result, inputs
from .metrics import clopper_pearson
from .rowtest import RowTest, design
from .scenarios import get_scenario

__all__ = ["Check", "ValidationResult", "validation_checks", "validate", "register_check", "run_row", "LEVELS"]

LEVELS = ("quick", "full")
MAX_REPS = 1_000_000
#: the alternative each row test must detect with probability >= 0.9: ratio x the bound (quick, full)
RATIO = {"quick": 2.0, "full": 1.5}
#: the most runs a covered row may take (quick, full); the row test is designed for it
MAX_RUNS = {"quick": 1000, "full": 3000}
#: runs simulated per chunk (fixed, so the runs and the verdict never depend on how the work is split)
CHUNK = 40
#: modules whose import registers rows (the built-in battery first); other work adds its module here
ROW_MODULES = ("certirank.sim._checks", "certirank.sim._order_checks", "certirank.sim._fewer_checks")


@dataclass(frozen=True)
class Check:
    """One row of the battery: a scenario, a certified method in one mode, and the bound it must respect.

    ``params``: scenario parameters of a registered scenario, or a callable ``quick -> parameters``.
    ``reps``: runs of a row no guarantee covers (quick, full), shown for what it teaches; a covered row's runs
    are decided by its sequential test.
    """

    name: str
    scenario: str  # what is simulated, in words
    method: str  # simulate() method string, options in brackets
    build: Callable[[float, bool], Any] | None = field(repr=False)  # (alpha, quick) -> scenario object or name
    params: Mapping[str, Any] | Callable[[bool], Mapping[str, Any]] = field(default_factory=dict)
    bound_factor: float | None = 1.0  # bound = factor * alpha; None = not covered by any guarantee
    exception: str = ""
    reps: tuple[int, int] = (20, 200)  # (quick, full), rows not covered only
    #: a row that is not one simulate() study: (alpha, n, seed) -> the false-run flags of n new runs
    runs: Callable[[float, int, int], np.ndarray] | None = field(default=None, repr=False)


_ROWS: dict[str, Check] = {}


def register_check(check: Check) -> Check:
    """Add a row to the battery (rows run in registration order; a name is registered once)."""
    if check.name in _ROWS and _ROWS[check.name] != check:
        raise ParameterError(f"a validation row named {check.name!r} is already registered")
    _ROWS[check.name] = check
    return check


def validation_checks() -> list[Check]:
    """The battery's rows, in registration order (the built-in rows first)."""
    for module in ROW_MODULES:
        importlib.import_module(module)
    return list(_ROWS.values())


# ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ValidationResult(Result):
    """Outcome of :func:`validate`: one row per check, and whether every covered row passed.

    ``rows``: name, scenario, method, reps (runs used), false_runs, estimate (FWER), interval (Clopper-Pearson at
    ``confidence`` on the runs used: descriptive, since a covered row stops when its test decides), alpha, bound
    (None = not covered), verdict (``pass`` / ``fail`` / ``not covered``), test (the row test: the alternative
    it detects, its exact power there, its level, the final log likelihood ratio), exception (the documented
    reason a bound differs from alpha), seconds.
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


def chunk_seed(seed: int, row: int, chunk: int) -> int:
    """The simulation seed of chunk `chunk` of row `row` (independent streams; fixed by the root seed)."""
    return int(np.random.SeedSequence([int(seed), int(row), int(chunk)]).generate_state(1, np.uint64)[0] >> 1)


def run_row(test: RowTest, draw: Callable[[int, int], np.ndarray]) -> dict[str, Any]:
    """Run one covered row: ``draw(chunk, n)`` returns the false-run flags of `n` new runs (chunk 0, 1, ...);
    runs are read in order until the row test decides. Returns verdict, runs used, false runs and the final
    log likelihood ratio."""
    flags = np.zeros(0, dtype=bool)
    chunk = 0
    while True:
        n = min(CHUNK, test.max_runs - flags.size)
        flags = np.concatenate([flags, np.asarray(draw(chunk, n), dtype=bool)[:n]])
        chunk += 1
        verdict, used, log_lr = test.walk(flags)
        if verdict is not None:
            return {"verdict": verdict, "reps": used, "false_runs": int(flags[:used].sum()), "log_lr": log_lr}


def validate(level: str = "quick", *, alpha: float = 0.05, seed: int = 2020, reps: int | None = None,
             checks: Sequence[str] | None = None, confidence: float = 0.99, jobs: int = 1,
             backend: str | None = None, progress: Callable[[dict[str, Any]], None] | None = None
             ) -> ValidationResult:
    """Run the validity battery.

    Parameters
    ----------
    level:
        ``quick`` (about a minute on 2 cores; each row detects twice its bound) or ``full`` (the study of
        docs/validity.md: larger budgets and boards, each row detects 1.5 times its bound).
    alpha:
        Family-wise level given to every method.
    seed:
        Root seed; row i's chunk c is simulated with a seed derived from (seed, i, c): rows are reproducible
        one by one.
    reps:
        The most runs a covered row may use (default: the level's, 1,000 / 3,000; fewer than its test needs for
        its power is refused); the runs of a row no guarantee covers.
    checks:
        Names of the rows to run (default: all, see :func:`validation_checks`).
    confidence:
        Confidence of the descriptive Clopper-Pearson intervals.
    jobs, backend:
        Passed to :func:`certirank.sim.simulate` (results never depend on them).
    progress:
        Called with each finished row (for a live display).
    """
    from .runner import simulate

    if level not in LEVELS:
        raise ParameterError(f"level must be one of {', '.join(LEVELS)}, got {level!r}")
    alpha = check_alpha(alpha)
    confidence = check_alpha(confidence, "confidence")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2 ** 63:
        raise ParameterError(f"seed must be a non-negative integer, got {seed!r}")
    if reps is not None:
        reps = check_positive_int("reps", reps, maximum=MAX_REPS)
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
    selected = set(checks) if checks is not None else {c.name for c in table}
    quick = level == "quick"
    cap = MAX_RUNS[level] if reps is None else reps
    rows: list[dict[str, Any]] = []
    t_all = time.perf_counter()
    for i, chk in enumerate(table):
        if chk.name not in selected:
            continue
        t0 = time.perf_counter()
        scen = None if chk.runs is not None else chk.build(alpha, quick)
        params = dict(chk.params(quick) if callable(chk.params) else chk.params)
        if isinstance(scen, str):
            params["alpha"] = alpha
        elif scen is not None:
            scen = get_scenario(scen)

        def draw(chunk: int, n: int, *, scen: Any = scen, params: dict[str, Any] = params, i: int = i,
                 chk: Check = chk) -> np.ndarray:
            if chk.runs is not None:
                return np.asarray(chk.runs(alpha, n, chunk_seed(seed, i, chunk)), dtype=bool)
            res = simulate(scen, chk.method, reps=n, seed=chunk_seed(seed, i, chunk), jobs=jobs, progress=False,
                           **params, **extra)
            return res.runs.sort_values("run")["false_ever"].to_numpy(dtype=bool)

        bound = None if chk.bound_factor is None else min(1.0, chk.bound_factor * alpha)
        if bound is None:
            n = reps if reps is not None else chk.reps[0 if quick else 1]
            flags = np.concatenate([draw(c, min(CHUNK, n - c * CHUNK)) for c in range(-(-n // CHUNK))])
            out: dict[str, Any] = {"verdict": "not covered", "reps": int(flags.size),
                                   "false_runs": int(flags.sum()), "test": None}
        else:
            test = design(bound, ratio=RATIO[level], max_runs=cap)
            out = run_row(test, draw)
            out["test"] = {"alternative": test.p1, "power": round(test.power, 4), "level": test.delta,
                           "max_runs": test.max_runs, "log_lr": round(out.pop("log_lr"), 4)}
        k, m = out["false_runs"], out["reps"]
        lo, hi = clopper_pearson(k, m, confidence)
        row = {"name": chk.name, "scenario": chk.scenario, "method": chk.method, "reps": m, "false_runs": k,
               "estimate": k / m, "interval": [lo, hi], "alpha": alpha, "bound": bound, "verdict": out["verdict"],
               "test": out["test"], "exception": chk.exception or None, "seconds": round(time.perf_counter() - t0, 3)}
        rows.append(row)
        if progress is not None:
            progress(row)
    passed = all(r["verdict"] != "fail" for r in rows)
    ratio = RATIO[level]
    statement = (f"{sum(r['verdict'] == 'pass' for r in rows)} of {sum(r['bound'] is not None for r in rows)} "
                 f"covered rows pass (each a sequential test that fails a method at {ratio:g} times its bound with "
                 "probability >= 0.9 and one within it with probability <= 0.001); "
                 f"{sum(r['verdict'] == 'not covered' for r in rows)} row(s) outside every guarantee, shown "
                 "for what they teach")
    return ValidationResult(level=level, alpha=alpha, confidence=confidence, seed=int(seed), backend=backend,
                            rows=rows, passed=passed, elapsed=round(time.perf_counter() - t_all, 3),
                            statement=statement)
