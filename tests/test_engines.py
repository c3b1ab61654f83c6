"""The engines users run (issue 37 item 3): BB-EDGE leaderboards on worker processes, Dask (in-process, and
dask-jobqueue's local stand-in for Slurm) and Ray give the serial result bit for bit, and so does simulate."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import certirank
from certirank._parallel import local_cluster
from certirank.methods.bbedge import betting
from certirank.sim import simulate

STUDY = dict(reps=4, seed=3, chunk_size=2, n_max=60)


def _board() -> pd.DataFrame:
    rng = np.random.default_rng(11)
    L, N, R = 9, 30, 3
    p = np.linspace(0.3, 0.7, L)[:, None] + rng.uniform(-0.1, 0.1, (1, N))
    rows = [(f"m{l}", f"i{i}", r, float(rng.random() < p[l, i])) for r in range(R) for l in range(L) for i in range(N)]
    return pd.DataFrame(rows, columns=["model", "item", "replicate", "score"])


def _same(a, b) -> None:
    assert a.to_dict() == b.to_dict()


@pytest.fixture()
def small_tasks(monkeypatch):
    # several tasks per update even on a 9-model board, so the gathering order is exercised
    monkeypatch.setattr(betting, "TASK_DIRECTIONS", 10)


def test_leaderboard_on_an_in_process_dask_cluster_equals_serial(small_tasks):
    pytest.importorskip("distributed", reason="needs the optional extra certirank[dask]")
    data = _board()
    ref = certirank.leaderboard(data)
    assert ref.edges, "a board with no edge would make the comparison vacuous"
    with local_cluster(2, processes=False) as cluster:
        _same(ref, certirank.leaderboard(data, scheduler=cluster))


def test_leaderboard_with_a_margin_on_dask_equals_serial(small_tasks):
    # tau > 0: the two directions of a pair are computed apart (no pairing), on the cluster too
    pytest.importorskip("distributed", reason="needs the optional extra certirank[dask]")
    data = _board()
    ref = certirank.leaderboard(data, tau=0.02)
    with local_cluster(1, processes=False) as cluster:
        _same(ref, certirank.leaderboard(data, tau=0.02, scheduler=cluster))


def test_simulate_and_leaderboard_on_dask_jobqueue_stand_in_for_slurm(small_tasks):
    # dask-jobqueue's LocalCluster submits "jobs" as local processes through the same JobQueueCluster machinery
    # as SLURMCluster; certirank sees only a cluster object, whatever queue system is behind it
    jq = pytest.importorskip("dask_jobqueue", reason="needs the optional extra certirank[slurm]")
    from dask_jobqueue.local import LocalCluster as JobQueueLocal

    data = _board()
    ref_board = certirank.leaderboard(data)
    ref_study = simulate("HO-I", "anyrank0", **STUDY)
    with JobQueueLocal(cores=1, processes=1, memory="1GB", silence_logs="error") as cluster:
        cluster.scale(jobs=1)
        _same(ref_board, certirank.leaderboard(data, scheduler=cluster))
        study = simulate("HO-I", "anyrank0", **STUDY, scheduler=cluster)
    a, b = ref_study.to_dict(), study.to_dict()
    a.pop("elapsed"), b.pop("elapsed")
    assert a == b
    # what a Slurm user writes: the job script certirank's tasks would run under (nothing is submitted)
    script = jq.SLURMCluster(cores=1, memory="1GB", queue="short", walltime="00:10:00").job_script()
    assert "#SBATCH -p short" in script and "distributed.cli.dask_worker" in script


def test_leaderboard_and_simulate_on_ray_equal_serial(small_tasks):
    ray = pytest.importorskip("ray", reason="needs the optional extra certirank[ray]")
    data = _board()
    ref_board = certirank.leaderboard(data)
    ref_study = simulate("HO-I", "anyrank0", **STUDY)
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        board = certirank.leaderboard(data, backend="ray")
        study = simulate("HO-I", "anyrank0", **STUDY, backend="ray")
        assert ray.is_initialized()  # a runtime the caller started is left running
    finally:
        ray.shutdown()
    _same(ref_board, board)
    a, b = ref_study.to_dict(), study.to_dict()
    a.pop("elapsed"), b.pop("elapsed")
    assert a == b


def test_ray_runtime_started_by_certirank_is_shut_down(small_tasks):
    ray = pytest.importorskip("ray", reason="needs the optional extra certirank[ray]")
    data = _board()
    ref = certirank.leaderboard(data)
    _same(ref, certirank.leaderboard(data, backend="ray", jobs=1))
    assert not ray.is_initialized()
