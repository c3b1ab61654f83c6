"""One way to run independent tasks: in this process, on joblib workers, or on a Dask cluster.

Every parallel path of certirank (``simulate``, the bootstrapped baselines, RPOSST's holdout protocol, the
validation battery, the BB-EDGE leaderboard) goes through :func:`run_tasks`, so they all accept the same three
arguments:

``backend``
    ``"serial"`` (this process), ``"joblib"`` (``jobs`` local worker processes), ``"dask"`` (a Dask
    cluster: a scheduler address, a ``Client``, or a cluster object such as dask-jobqueue's
    ``SLURMCluster``) or ``"ray"`` (a Ray cluster). ``None`` picks ``"ray"`` for a ``ray://`` address,
    ``"dask"`` for any other ``scheduler``, ``"joblib"`` when ``jobs > 1``, else ``"serial"``.
``jobs``
    Local workers: joblib processes, the worker processes of the ``LocalCluster`` that certirank starts
    (and closes) when ``backend="dask"`` has no ``scheduler``, or the CPUs of the local Ray runtime it
    starts (and shuts down) when ``backend="ray"`` has none.
``scheduler``
    Dask: a scheduler address (``"tcp://host:8786"``), a ``distributed.Client`` (left open) or a cluster
    object (``LocalCluster``, ``SLURMCluster``, ...; left running). Ray: the cluster's address
    (``"ray://head:10001"``, ``"auto"`` for the cluster this machine belongs to); a Ray runtime already
    initialised in this process is used as it is.

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

import contextlib
import logging
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from .errors import ParameterError

__all__ = ["BACKENDS", "resolve_backend", "run_tasks", "task_seeds", "describe_backend", "local_cluster", "session"]

BACKENDS = ("serial", "joblib", "dask", "ray")

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
        if scheduler is not None:
            return "ray" if _ray_address(scheduler) else "dask"
        return "joblib" if jobs > 1 else "serial"
    name = str(backend).strip().lower()
    if name not in BACKENDS:
        raise ParameterError(f"unknown backend {backend!r}; valid choices: {', '.join(BACKENDS)}")
    if scheduler is not None and name not in ("dask", "ray"):
        raise ParameterError(f"a scheduler is only used by backends 'dask' and 'ray', not {name!r}; drop "
                             "--scheduler or use --backend dask / --backend ray")
    if name == "ray" and scheduler is not None and not isinstance(scheduler, str):
        raise ParameterError(f"backend 'ray' takes the cluster's address as a string (e.g. 'ray://head:10001' or "
                             f"'auto'), got {type(scheduler).__name__}")
    return name


def _ray_address(scheduler: Any) -> bool:
    return isinstance(scheduler, str) and scheduler.strip().lower().startswith("ray://")


def describe_backend(backend: str | None, jobs: int = 1, scheduler: Any = None) -> dict[str, Any]:
    """Plain data naming where the tasks run (for logs and result metadata)."""
    name = resolve_backend(backend, jobs, scheduler)
    out: dict[str, Any] = {"backend": name, "jobs": int(jobs)}
    if name == "dask":
        out["scheduler"] = _address(scheduler) if scheduler is not None else "LocalCluster (started by certirank)"
    elif name == "ray":
        out["scheduler"] = scheduler if scheduler is not None else "local Ray runtime (started by certirank)"
    return out


def _address(scheduler: Any) -> str:
    if isinstance(scheduler, str):
        return scheduler
    addr = getattr(scheduler, "scheduler_address", None) or getattr(getattr(scheduler, "scheduler", None),
                                                                     "address", None)
    return str(addr) if addr else type(scheduler).__name__


def run_tasks(fn: Callable[..., Any], tasks: Sequence[tuple[Any, ...]], *, backend: str | None = None,
              jobs: int = 1, scheduler: Any = None, progress: Progress | None = None,
              weights: Sequence[int] | None = None, shared: tuple[Any, ...] = ()) -> list[Any]:
    """Return ``[fn(*shared, *args) for args in tasks]``, computed on the chosen backend.

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
    shared :
        Leading arguments common to every task (large arrays): shipped to each worker once (Dask scatter,
        Ray object store) instead of once per task.

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
    shared = tuple(shared)
    if name == "serial" or (name == "joblib" and (jobs == 1 or len(tasks) == 1)):
        out = []
        for i, args in enumerate(tasks):
            out.append(fn(*shared, *args))
            tick(i)
        return out
    if name == "joblib":
        from joblib import Parallel, delayed

        out = []
        par = Parallel(n_jobs=min(int(jobs), len(tasks)), return_as="generator")
        for i, res in enumerate(par(delayed(fn)(*shared, *args) for args in tasks)):
            out.append(res)
            tick(i)
        return out
    if name == "ray":
        return _run_ray(fn, tasks, int(jobs), scheduler, tick, shared)
    return _run_dask(fn, tasks, int(jobs), scheduler, tick, shared)


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


@contextlib.contextmanager
def session(backend: str | None, jobs: int = 1, scheduler: Any = None) -> Iterator[Any]:
    """The ``scheduler`` to pass to many :func:`run_tasks` calls in a row (one leaderboard update per replicate):
    a backend that would start a runtime per call (Dask's ``LocalCluster``, a local Ray runtime) is started
    once here and closed on exit; anything else is passed through unchanged."""
    name = resolve_backend(backend, jobs, scheduler)
    if name == "dask" and scheduler is None:
        try:
            from distributed import Client
        except ImportError:
            raise ParameterError("backend 'dask' needs the optional extra: pip install 'certirank[dask]'") from None
        with local_cluster(jobs) as cluster, Client(cluster, set_as_default=False) as client:
            yield client
        return
    if name == "ray":
        try:
            import ray
        except ImportError:
            raise ParameterError("backend 'ray' needs the optional extra: pip install 'certirank[ray]'") from None
        if not ray.is_initialized():
            _ray_init(jobs, scheduler)
            try:
                yield scheduler
            finally:
                ray.shutdown()
            return
    yield scheduler


def _ray_init(jobs: int, scheduler: Any) -> None:
    import ray

    try:
        if scheduler is None:
            # a private local runtime sized to jobs, no dashboard: it starts in seconds
            ray.init(num_cpus=jobs, include_dashboard=False, log_to_driver=False, configure_logging=False)
        else:
            ray.init(address=scheduler, log_to_driver=False, configure_logging=False)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise ParameterError(f"cannot reach the Ray cluster at {scheduler!r} ({str(exc).splitlines()[0]}); start "
                             "one with `ray start --head` and pass its address") from None


def _run_dask(fn: Callable[..., Any], tasks: list[tuple[Any, ...]], jobs: int, scheduler: Any,
              tick: Callable[[int], None], shared: tuple[Any, ...] = ()) -> list[Any]:
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
        common = client.scatter(list(shared), broadcast=True, hash=False) if shared else []
        futures = [client.submit(fn, *common, *args, pure=False) for args in tasks]
        index = {f.key: i for i, f in enumerate(futures)}
        out: list[Any] = [None] * len(tasks)
        try:
            for fut in as_completed(futures, loop=client.loop):
                i = index[fut.key]
                out[i] = fut.result()
                tick(i)
        finally:
            for f in [*futures, *common]:
                f.release()
        return out
    finally:
        if client is not None and own_client:
            client.close()
        if cluster is not None:
            cluster.close()


def _run_ray(fn: Callable[..., Any], tasks: list[tuple[Any, ...]], jobs: int, scheduler: Any,
             tick: Callable[[int], None], shared: tuple[Any, ...] = ()) -> list[Any]:
    try:
        import ray
    except ImportError:
        raise ParameterError("backend 'ray' needs the optional extra: pip install 'certirank[ray]'") from None
    started = False
    if not ray.is_initialized():
        _ray_init(jobs, scheduler)  # shut down below
        started = True
    try:
        remote = ray.remote(num_cpus=1)(fn)
        common = [ray.put(v) for v in shared]
        refs = [remote.remote(*common, *args) for args in tasks]
        index = {r: i for i, r in enumerate(refs)}
        out: list[Any] = [None] * len(tasks)
        pending = list(refs)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                i = index[ref]
                out[i] = ray.get(ref)
                tick(i)
        return out
    finally:
        if started:
            ray.shutdown()
