"""Monte-Carlo runner: evaluate several methods on one scenario over many seeded runs.

Reproducibility contract: run i draws its data from the i-th child of
``numpy.random.SeedSequence(seed).spawn(reps)`` and every method sees the *same* data for run i (common
random numbers); a method's own randomness (bootstrap, tie breaking) comes from a grandchild seed keyed by
the method's label. Runs are processed in fixed-size chunks that do not depend on ``jobs``; each chunk is one
task (:mod:`certirank._parallel`) that receives its runs' seeds as arguments, so the results are identical for
any number of workers and on every backend (serial, joblib, Dask).
"""

from __future__ import annotations

import math
import time as _time
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._params import validated
from .._parallel import resolve_backend, run_tasks
from .._compat import keyword_only
from .._validate import check_positive_int
from ..errors import ParameterError
from ..results import ResultMixin
from . import metrics as _metrics
from .adapters import MethodSpec, resolve_methods
from .scenarios import get_scenario

__all__ = ["simulate", "SimulationResult", "run_seeds"]

_SNAP_COLS = ["method", "run", "time", "evals", "n_correct", "n_false", "topk"]
#: Monte-Carlo runs per simulation; 10^7 runs of the smallest scenario already take days
MAX_REPS = 10**7


@dataclass(frozen=True)
class SimulationResult(ResultMixin):
    """Outcome of :func:`simulate`.

    Attributes
    ----------
    scenario:
        The scenario's parameters and truth (plain data).
    methods:
        Method labels with their names and options.
    reps, seed, jobs:
        Monte-Carlo size, root seed and workers used (results do not depend on ``jobs``).
    summary:
        Per method: ``fwer`` (any false claim at any time) with ``fwer_ci`` (Clopper–Pearson 95%),
        ``power`` (final), ``full_ranking_rate``, ``mean_samples`` (policy scenarios; AnyRank accounting,
        censored at the total cost) or ``mean_replicates`` (leaderboards), Top-k rates, and more.
    elapsed:
        Wall-clock seconds per method (summed over workers) and in total.
    runs:
        Tidy per-(method, run) DataFrame (not part of ``to_dict()``).
    snapshots:
        Tidy per-(method, run, snapshot) DataFrame: the decision trajectory (not part of ``to_dict()``).
    """

    RESULT_KIND = "simulate"

    scenario: dict[str, Any]
    methods: list[dict[str, Any]]
    reps: int
    seed: int
    jobs: int
    summary: dict[str, dict[str, Any]]
    elapsed: dict[str, float]
    _runs: pd.DataFrame = field(repr=False, compare=False)
    _snapshots: pd.DataFrame = field(repr=False, compare=False)
    _scenario_obj: Any = field(repr=False, compare=False, default=None)

    @property
    def runs(self) -> pd.DataFrame:
        return self._runs

    @property
    def snapshots(self) -> pd.DataFrame:
        return self._snapshots

    @property
    def results(self) -> pd.DataFrame:
        """Alias of :attr:`runs` (the tidy results table)."""
        return self._runs

    def curves(self, grid: Sequence[float] | None = None, axis: str = "time") -> pd.DataFrame:
        """Power, full-ranking rate, FWER and Top-k rates over time (``axis`` = ``time`` or ``evals``)."""
        if axis not in ("time", "evals"):
            raise ParameterError(f"unknown axis {axis!r}; valid choices: time, evals")
        if grid is None:
            hi = float(self._runs["end_time" if axis == "time" else "end_evals"].max()) if len(self._runs) else 1.0
            step = max(1.0, math.ceil(hi / 200))
            grid = np.arange(0.0, hi + step, step)
        return _metrics.curves(self._snapshots, self._runs, grid, axis)

    def write_parquet(self, path: str | Path) -> tuple[Path, Path]:
        """Write the per-run table to ``path`` and the snapshots to ``<stem>.snapshots.parquet``."""
        from .._io import atomic_path, check_target

        path = check_target(path, "path")
        snap = path.with_name(path.stem + ".snapshots" + (path.suffix or ".parquet"))
        runs = self._runs.copy()
        runs.attrs = {}
        with atomic_path(path) as tmp:
            runs.to_parquet(tmp, index=False)
        with atomic_path(snap) as tmp:
            self._snapshots.to_parquet(tmp, index=False)
        return path, snap


def run_seeds(seed: int, reps: int) -> list[np.random.SeedSequence]:
    """One child SeedSequence per run (independent of the number of workers)."""
    return np.random.SeedSequence(seed).spawn(reps)


def _method_seed(child: np.random.SeedSequence, label: str) -> np.random.SeedSequence:
    # keyed by the label, so adding or reordering methods never changes another method's randomness
    return np.random.SeedSequence(child.entropy, spawn_key=tuple(child.spawn_key) + (1, zlib.crc32(label.encode())))


def _data_seed(child: np.random.SeedSequence) -> np.random.SeedSequence:
    return np.random.SeedSequence(child.entropy, spawn_key=tuple(child.spawn_key) + (0,))


def _run_chunk(scenario: Any, specs: Sequence[MethodSpec], children: Sequence[np.random.SeedSequence],
               run_ids: Sequence[int]) -> tuple[list[dict[str, Any]], list[pd.DataFrame], dict[str, float]]:
    """Draw the data of a chunk of runs and apply every method; returns rows, snapshot frames, timings."""
    data = [scenario.draw(np.random.default_rng(_data_seed(c))) for c in children]
    truth = scenario.truth()
    k = getattr(scenario, "k", None) if scenario.kind == "leaderboard" else None
    true_topk = scenario.true_topk() if k is not None else None
    rows: list[dict[str, Any]] = []
    snaps: list[pd.DataFrame] = []
    timing: dict[str, float] = {}
    for spec in specs:
        t0 = _time.perf_counter()
        seeds = [_method_seed(c, spec.label) for c in children]
        trajs = spec.adapter.run_many(scenario, data, spec.options, seeds)
        timing[spec.label] = _time.perf_counter() - t0
        for rid, traj in zip(run_ids, trajs):
            row, sn = _metrics.score_run(traj, truth, k=k, true_topk=true_topk)
            rows.append({"method": spec.label, "run": int(rid), **row})
            if sn["time"].size:
                snaps.append(pd.DataFrame({"method": spec.label, "run": int(rid), **sn}))
    return rows, snaps, timing


@keyword_only(("reps", "seed", "jobs"))
@validated("simulate")
def simulate(scenario: Any, methods: Any, *, reps: int, seed: int = 0, jobs: int = 1,
             method_options: Mapping[str, Any] | None = None, chunk_size: int = 20,
             backend: str | None = None, scheduler: Any = None,
             progress: Callable[[int, int], Any] | None = None, out: str | Path | None = None,
             **params: Any) -> SimulationResult:
    """Evaluate methods on a simulated scenario over ``reps`` seeded runs.

    Parameters
    ----------
    scenario:
        Registered scenario name (see :func:`certirank.sim.scenario_names`; e.g. ``"HO-I"``,
        ``"bbedge-heterogeneity"``) or a scenario object.
    methods:
        Method names (comma-separated string or list), :class:`MethodSpec` objects, or a mapping
        ``label -> name`` / ``label -> (name, options)``. Names: :func:`certirank.sim.method_names`. A string
        may carry options in brackets, e.g. ``"anyrank0[ties=assume_none]"``.
    reps:
        Number of Monte-Carlo runs (>= 1).
    seed:
        Root seed; run i uses ``SeedSequence(seed).spawn(reps)[i]``.
    jobs:
        Local worker processes (joblib, or the workers of the Dask ``LocalCluster`` certirank starts when
        ``backend="dask"`` has no ``scheduler``). Results are identical for any value.
    method_options:
        Options applied to every method that accepts them (e.g. ``{"ties": "assume_none"}``).
    chunk_size:
        Runs per work unit (vectorised methods process a chunk at once); fixed, so results never depend on
        ``jobs`` or the backend.
    backend:
        ``"serial"``, ``"joblib"`` or ``"dask"`` (default: ``"dask"`` with a scheduler, ``"joblib"`` when
        ``jobs > 1``, else serial). Every chunk of runs is one task that receives its runs' own
        ``SeedSequence`` children, so results are identical bit for bit on every backend.
    scheduler:
        Dask scheduler address (``"tcp://host:8786"``), ``distributed.Client`` or cluster object; ``None``
        with ``backend="dask"`` starts a ``LocalCluster`` of ``jobs`` workers and closes it afterwards.
    progress:
        Optional callback ``progress(runs_done, reps)``, called as chunks complete (nothing is printed).
    out:
        Optional Parquet path for the per-run table (snapshots go beside it).
    **params:
        Scenario parameters (e.g. ``n_max=1000``, ``means=(0.2, 0.4, 0.6)``); unknown ones raise an error
        listing the valid parameters.

    Returns
    -------
    SimulationResult
        ``.runs`` and ``.snapshots`` (tidy DataFrames), ``.summary`` (per method), ``.curves(...)``.
    """
    reps = check_positive_int("reps", reps, maximum=MAX_REPS)
    jobs = check_positive_int("jobs", jobs, maximum=1024)
    resolve_backend(backend, jobs, scheduler)
    if progress is False:
        progress = None
    chunk_size = check_positive_int("chunk_size", chunk_size)
    if out is not None:  # refused before hours of simulation, not after (a folder, a missing folder, not a path)
        from .._io import check_target
        out = check_target(out, "out")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError(f"seed must be a non-negative integer, got {seed!r}")
    scen = get_scenario(scenario, **params)
    specs = resolve_methods(methods, scen, method_options or {})

    children = run_seeds(int(seed), reps)
    chunks = [list(range(s, min(reps, s + chunk_size))) for s in range(0, reps, chunk_size)]
    tasks = [(scen, specs, [children[i] for i in ch], ch) for ch in chunks]

    t_start = _time.perf_counter()
    results = run_tasks(_run_chunk, tasks, backend=backend, jobs=jobs, scheduler=scheduler, progress=progress,
                        weights=[len(ch) for ch in chunks])
    elapsed_total = _time.perf_counter() - t_start

    rows = [r for res in results for r in res[0]]
    snap_frames = [f for res in results for f in res[1]]
    timing: dict[str, float] = {}
    for res in results:
        for lab, sec in res[2].items():
            timing[lab] = timing.get(lab, 0.0) + sec
    runs = pd.DataFrame(rows)
    order = {s.label: i for i, s in enumerate(specs)}
    runs = runs.sort_values(["method", "run"], key=lambda c: c.map(order) if c.name == "method" else c,
                            kind="stable").reset_index(drop=True)
    if snap_frames:
        snapshots = pd.concat(snap_frames, ignore_index=True)
        snapshots = snapshots.sort_values(["method", "run", "time"], kind="stable",
                                          key=lambda c: c.map(order) if c.name == "method" else c
                                          ).reset_index(drop=True)
    else:
        snapshots = pd.DataFrame({c: pd.Series(dtype=float) for c in _SNAP_COLS})
    summary = _metrics.summarize(runs, alpha=scen.alpha, policies=list(scen.policies), kind=scen.kind)
    for spec in specs:
        if spec.label in summary:
            # which claims the method makes: certified methods promise FWER <= alpha, baselines do not
            summary[spec.label] = {"method": spec.name, "certified": spec.adapter.certified, **summary[spec.label]}
    result = SimulationResult(
        scenario=scen.to_dict(),
        methods=[{"label": s.label, "method": s.name, "options": dict(s.options)} for s in specs],
        reps=reps, seed=int(seed), jobs=jobs, summary=summary,
        elapsed={**{k: round(v, 4) for k, v in timing.items()}, "total": round(elapsed_total, 4)},
        _runs=runs, _snapshots=snapshots, _scenario_obj=scen)
    if out is not None:
        result.write_parquet(out)
    return result
