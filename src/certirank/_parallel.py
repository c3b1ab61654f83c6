"""One way to run independent tasks: in this process, on joblib workers, or on a Dask cluster.

Every parallel path of certirank (``simulate``, the bootstrapped baselines, RPOSST's holdout protocol, the
validation battery) goes through :func:`run_tasks`, so they all accept the same three arguments:

``backend``
    ``"serial"`` (this process), ``"joblib"`` (``jobs`` local worker processes) or ``"dask"`` (a Dask
    cluster). ``None`` picks ``"dask"`` when a ``scheduler`` is given, ``"joblib"`` when ``jobs > 1``, else
    ``"serial"``.
``jobs``
    Local workers: joblib processes, or the worker processes of the ``LocalCluster`` that certirank starts
    (and closes) when ``backend="dask"`` has no ``scheduler``.
``scheduler``
    A Dask scheduler address (``"tcp://host:8786"``), a ``distributed.Client`` (left open) or a cluster
    object such as ``LocalCluster`` (left running).

Why results never depend on the backend: a task is a pure function of its arguments. Callers give every
task the randomness it needs *as an argument* (its own ``SeedSequence`` child from :func:`task_seeds`, never
a shared ``Generator``), the task boundaries do not depend on the number of workers, and results come back in
task order whatever order they finish in. Dask tasks are submitted with ``pure=False`` (a repeated task is
run again, never served from another task's result); a task lost with a dying worker is re-run elsewhere by
the scheduler and, being deterministic, gives the same value.

Progress is reported through a callback ``progress(done, total)`` called after every completed task (in
the caller's units, see ``weights``); drawing it is the CLI's business.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .errors import ParameterError

__all__ = ["BACKENDS", "resolve_backend", "run_tasks", "task_seeds", "describe_backend", "local_cluster"]

BACKENDS = ("serial", "joblib", "dask")

Progress = Callable[[int, int], Any]


def task_seeds(seed: Any, n: int) -> list[np.random.SeedSequence]:
    """``n`` independent child seeds of ``seed`` (an int or a ``SeedSequence``), one per task."""
    root = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    return root.spawn(n)


def resolve_backend(backend: str | None, jobs: int = 1, scheduler: Any = None) -> str:
    """The backend name that :func:`run_tasks` will use (checks the combination)."""
    if isinstance(jobs, bool) or not isinstance(jobs, (int, np.integer)) or jobs < 1:
        raise ParameterError(f"jobs must be a positive integer, got {jobs!r}")
    if backend is None:
        return "dask" if scheduler is not None else ("joblib" if jobs > 1 else "serial")
    name = str(backend).strip().lower()
    if name not in BACKENDS:
        raise ParameterError(f"unknown backend {backend!r}; valid choices: {', '.join(BACKENDS)}")
    if scheduler is not None and name != "dask":
        raise ParameterError(f"a scheduler is only used by backend 'dask', not {name!r}; drop --scheduler or "
                             "use --backend dask")
    return name


def describe_backend(backend: str | None, jobs: int = 1, scheduler: Any = None) -> dict[str, Any]:
    """Plain data naming where the tasks run (for logs and result metadata)."""
    name = resolve_backend(backend, jobs, scheduler)
    out: dict[str, Any] = {"backend": name, "jobs": int(jobs)}
    if name == "dask":
        out["scheduler"] = _address(scheduler) if scheduler is not None else "LocalCluster (started by certirank)"
    return out


def _address(scheduler: Any) -> str:
    if isinstance(scheduler, str):
        return scheduler
    addr = getattr(scheduler, "scheduler_address", None) or getattr(getattr(scheduler, "scheduler", None),
                                                                     "address", None)
    return str(addr) if addr else type(scheduler).__name__


def run_tasks(fn: Callable[..., Any], tasks: Sequence[tuple[Any, ...]], *, backend: str | None = None,
              jobs: int = 1, scheduler: Any = None, progress: Progress | None = None,
              weights: Sequence[int] | None = None) -> list[Any]:
    """Return ``[fn(*args) for args in tasks]``, computed on the chosen backend.

    Parameters
    ----------
    fn :
        A module-level function (it is pickled for joblib and Dask workers).
    tasks :
        One argument tuple per task. Put each task's randomness in its arguments (see :func:`task_seeds`).
    backend, jobs, scheduler :
        Where to run (see the module docstring).
    progress :
        Optional callback ``progress(done, total)``, called after each task completes.
    weights :
        Units of work per task for ``progress`` (e.g. runs per chunk); default 1 each.

    Returns
    -------
    list
        The results in task order.
    """
    name = resolve_backend(backend, jobs, scheduler)
    if progress is not None and not callable(progress):
        raise ParameterError(f"progress must be a callback progress(done, total) or None, got {progress!r}")
    tasks = list(tasks)
    w = [1] * len(tasks) if weights is None else [int(v) for v in weights]
    if len(w) != len(tasks):
        raise ParameterError(f"weights has {len(w)} entries for {len(tasks)} tasks")
    total = sum(w)
    done = 0

    def tick(i: int) -> None:
        nonlocal done
        done += w[i]
        if progress is not None:
            progress(done, total)

    if not tasks:
        return []
    if name == "serial" or (name == "joblib" and (jobs == 1 or len(tasks) == 1)):
        out = []
        for i, args in enumerate(tasks):
            out.append(fn(*args))
            tick(i)
        return out
    if name == "joblib":
        from joblib import Parallel, delayed

        out = []
        par = Parallel(n_jobs=min(int(jobs), len(tasks)), return_as="generator")
        for i, res in enumerate(par(delayed(fn)(*args) for args in tasks)):
            out.append(res)
            tick(i)
        return out
    return _run_dask(fn, tasks, int(jobs), scheduler, tick)


def local_cluster(n_workers: int, processes: bool = True, quiet: int = logging.ERROR) -> Any:
    """A Dask ``LocalCluster`` of single-threaded workers, as certirank starts it (for tests and benchmarks).

    The HTTP server binds a free port (not 8787, which another cluster may hold) and serves no dashboard.
    """
    try:
        from distributed import LocalCluster
    except ImportError:
        raise ParameterError("backend 'dask' needs the optional extra: pip install 'certirank[dask]'") from None
    return LocalCluster(n_workers=int(n_workers), threads_per_worker=1, processes=processes, dashboard_address=":0",
                        scheduler_kwargs={"dashboard": False}, silence_logs=quiet)


def _run_dask(fn: Callable[..., Any], tasks: list[tuple[Any, ...]], jobs: int, scheduler: Any,
              tick: Callable[[int], None]) -> list[Any]:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise ParameterError("backend 'dask' needs the optional extra: pip install 'certirank[dask]'") from None
    cluster = None
    client = None
    own_client = True
    try:
        if scheduler is None:
            cluster = local_cluster(jobs)
            client = Client(cluster, set_as_default=False)
        elif isinstance(scheduler, Client):
            client, own_client = scheduler, False
        else:
            try:  # an address or a cluster object
                client = Client(scheduler, timeout="10s", set_as_default=False)
            except (OSError, TimeoutError, ValueError) as exc:
                raise ParameterError(f"cannot reach the Dask scheduler at {_address(scheduler)!r} ({exc}); start "
                                     "one with `dask scheduler` and workers with `dask worker ADDRESS`") from None
        futures = [client.submit(fn, *args, pure=False) for args in tasks]
        index = {f.key: i for i, f in enumerate(futures)}
        out: list[Any] = [None] * len(tasks)
        try:
            for fut in as_completed(futures, loop=client.loop):
                i = index[fut.key]
                out[i] = fut.result()
                tick(i)
        finally:
            for f in futures:
                f.release()
        return out
    finally:
        if client is not None and own_client:
            client.close()
        if cluster is not None:
            cluster.close()
