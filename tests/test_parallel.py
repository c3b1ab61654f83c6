"""Backends (certirank._parallel): serial, joblib and Dask give identical results; a dying worker changes nothing."""

from __future__ import annotations

import os
import signal

import numpy as np
import pandas as pd
import pytest

from certirank._parallel import describe_backend, local_cluster, resolve_backend, run_tasks, task_seeds
from certirank.baselines import bootstrap_bt
from certirank.errors import ParameterError
from certirank.methods.rposst import evaluate_test_designs
from certirank.sim import simulate

distributed = pytest.importorskip("distributed", reason="needs the optional extra certirank[dask]")

# a small but non-trivial study: 6 tasks of 2 runs, two methods with data-dependent stopping
STUDY = dict(scenario="HO-I", methods="anyrank0,bonferroni", reps=8, seed=7, chunk_size=2, n_max=100)


def _study(**kw):
    args = {**STUDY, **kw}
    return simulate(args.pop("scenario"), args.pop("methods"), reps=args.pop("reps"), **args)


def _assert_same_study(a, b):
    da, db = a.to_dict(), b.to_dict()
    da["details"].pop("elapsed"), db["details"].pop("elapsed")
    assert da.keys() == db.keys()
    for key in da:  # field by field, so a failure names the field
        assert da[key] == db[key], key
    pd.testing.assert_frame_equal(a.runs, b.runs, check_exact=True)
    pd.testing.assert_frame_equal(a.snapshots, b.snapshots, check_exact=True)


@pytest.fixture(scope="module")
def serial_study():
    return _study()


@pytest.fixture(scope="module")
def process_cluster():
    with local_cluster(2) as cluster:
        yield cluster


def _draw(seed):
    return float(np.random.default_rng(seed).random())


def test_run_tasks_order_progress_and_seeds():
    seeds = task_seeds(3, 5)
    calls = []
    out = run_tasks(_draw, [(s,) for s in seeds], progress=lambda d, t: calls.append((d, t)), weights=[2] * 5)
    assert out == [_draw(s) for s in task_seeds(3, 5)]  # same children from the same root
    assert len(set(out)) == 5
    assert calls == [(2, 10), (4, 10), (6, 10), (8, 10), (10, 10)]
    with local_cluster(2, processes=False) as c:
        seen = []
        got = run_tasks(_draw, [(s,) for s in seeds], backend="dask", scheduler=c,
                        progress=lambda d, t: seen.append(d))
    assert got == out and sorted(seen) == [1, 2, 3, 4, 5]


def test_backend_choice_is_checked():
    assert resolve_backend(None) == "serial"
    assert resolve_backend(None, jobs=2) == "joblib"
    assert resolve_backend(None, scheduler="tcp://h:8786") == "dask"
    assert describe_backend("dask", 2)["scheduler"].startswith("LocalCluster")
    assert resolve_backend(None, scheduler="ray://head:10001") == "ray"
    assert resolve_backend("ray", scheduler="auto") == "ray"
    with pytest.raises(ParameterError, match="valid choices: serial, joblib, dask, ray"):
        resolve_backend("spark")
    with pytest.raises(ParameterError, match="only used by backends 'dask' and 'ray'"):
        resolve_backend("joblib", scheduler="tcp://h:8786")
    with pytest.raises(ParameterError, match="backend 'ray' takes the cluster's address as a string"):
        resolve_backend("ray", scheduler=object())
    with pytest.raises(ParameterError, match="progress must be a callback"):
        _study(reps=2, progress=True)


def test_simulate_on_threads_and_on_two_worker_processes_equals_serial(serial_study, process_cluster):
    with local_cluster(2, processes=False) as c:
        threads = _study(backend="dask", scheduler=c)
    _assert_same_study(serial_study, threads)
    ticks = []
    procs = _study(backend="dask", scheduler=process_cluster, progress=lambda d, t: ticks.append((d, t)))
    _assert_same_study(serial_study, procs)
    assert [t for _, t in ticks] == [8] * 4 and sorted(d for d, _ in ticks) == [2, 4, 6, 8]
    # an address works as well as a cluster object
    by_address = _study(scheduler=process_cluster.scheduler_address)
    _assert_same_study(serial_study, by_address)


def test_bootstrap_and_rposst_protocol_on_dask_equal_serial(process_cluster):
    block = [("1", "2")] * 6 + [("2", "1")] * 2 + [("2", "3")] * 5 + [("3", "2")] * 3 + [("1", "3")] * 7 + \
        [("3", "1")] * 1
    data = pd.DataFrame([{"policy_a": w, "policy_b": l, "preference": 0.0} for w, l in block * 3])
    ref = bootstrap_bt(data, n_boot=300, seed=0, chunk=100)
    got = bootstrap_bt(data, n_boot=300, seed=0, chunk=100, backend="dask", scheduler=process_cluster)
    assert got.to_dict() == ref.to_dict()
    assert ref.details["intervals"] != bootstrap_bt(data, n_boot=300, seed=1, chunk=100).details["intervals"]

    rng = np.random.default_rng(2)
    matrix = rng.random((8, 12))
    kw = dict(methods=["rposst-kofn", "minimax-uniform"], holdout=0.25, sets=4, seed=3, rounds=20, n_samples=10)
    a = evaluate_test_designs(matrix, m=[1, 2], **kw)
    b = evaluate_test_designs(matrix, m=[1, 2], backend="dask", scheduler=process_cluster, **kw)
    pd.testing.assert_frame_equal(a.per_set, b.per_set, check_exact=True)
    pd.testing.assert_frame_equal(a.table, b.table, check_exact=True)


def _killer(client, state):
    """Progress callback that SIGKILLs, after the first finished task, a worker process that is running a task."""
    def cb(done, total):
        if state.get("victim") is None:
            busy = {w: len(keys) for w, keys in client.processing().items() if keys}
            addr = max(sorted(busy), key=busy.get)
            pid = client.run(os.getpid, workers=[addr])[addr]
            os.kill(pid, signal.SIGKILL)
            state.update(victim=pid, lost=busy[addr])
    return cb


def test_a_worker_killed_mid_study_does_not_change_the_result(serial_study, process_cluster):
    # runs after the other tests of the shared cluster: its nanny replaces the killed worker meanwhile
    with distributed.Client(process_cluster, set_as_default=False) as client:
        state: dict = {}
        got = _study(backend="dask", scheduler=client, progress=_killer(client, state))
        assert state["lost"] >= 1  # the dead worker held at least one unfinished task
        after = set(client.run(os.getpid).values())
    assert state["victim"] not in after  # the process really died
    _assert_same_study(serial_study, got)


