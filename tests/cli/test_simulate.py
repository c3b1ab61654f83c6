"""`certirank simulate`: the simulation command's output checks."""

from __future__ import annotations

import json

import pytest

from _records import flat
from test_sim import _alpha_tol


def test_simulate_out_is_checked_before_the_runs(cli, tmp_path):
    # was: OSError traceback after all runs (missing folder); a .csv name silently received Parquet bytes
    cli.refuses(["simulate", "HO-I", "-n", "1", "--out", str(tmp_path / "nope" / "r.parquet")], "does not exist")
    cli.refuses(["simulate", "HO-I", "-n", "1", "--out", str(tmp_path / "r.csv")], ".parquet")
    assert not (tmp_path / "r.csv").exists()


def test_cli_json_summary_and_errors(cli):
    r = cli(["simulate", "HO-I", "--methods", "bt", "--reps", "4", "--seed", "1", "-p", "n_games=200",
             "--json"])
    assert r.exit_code == 0, r.output
    d = flat(json.loads(r.stdout))
    s = d["summary"]["bt"]
    for key in ("fwer", "fwer_ci", "power", "mean_samples", "full_ranking_rate"):
        assert key in s
    assert s["fwer"] == 1.0
    bad = cli(["simulate", "HO-Z", "--methods", "bt", "--reps", "2"])
    assert bad.exit_code == 2 and "must be one of" in bad.output
    bad = cli(["simulate", "HO-I", "--methods", "bt", "--reps", "0"])
    assert bad.exit_code == 2 and "reps" in bad.output
    bad = cli(["simulate", "HO-I", "--methods", "bt", "-p", "means=0.5,1.5"])
    assert bad.exit_code == 2 and "[0, 1]" in bad.output


@pytest.mark.slow
def test_cli_done_criterion_ho_i_200_runs(cli):
    r = cli(["simulate", "HO-I", "--methods", "anyrank0,bonferroni,bt", "--reps", "200", "--seed", "1",
             "--jobs", "2", "--json"])
    assert r.exit_code == 0, r.output
    s = json.loads(r.stdout)["details"]["summary"]
    for m in ("anyrank0", "bonferroni"):
        assert s[m]["fwer"] <= _alpha_tol(0.05, 200) and s[m]["fwer_controlled"]
    assert s["bt"]["fwer"] == 1.0 and not s["bt"]["fwer_controlled"]


def test_cli_backend_dask_equals_jobs_1_except_timings(cli):
    base = ["simulate", "HO-I", "--methods", "anyrank0,bonferroni", "--reps", "4", "--seed", "1",
            "-p", "n_max=100", "--json"]
    serial = cli(base + ["--jobs", "1"])
    dask = cli(base + ["--backend", "dask"])  # a LocalCluster of --jobs (1) workers
    assert serial.exit_code == 0 and dask.exit_code == 0, dask.output
    a, b = json.loads(serial.stdout), json.loads(dask.stdout)
    a["details"].pop("elapsed"), b["details"].pop("elapsed")
    assert a == b
    bad = cli(base + ["--backend", "joblib", "--scheduler", "tcp://127.0.0.1:1"])
    assert bad.exit_code == 2 and "only used by backends 'dask' and 'ray'" in bad.output


@pytest.mark.slow
def test_cli_done_criterion_dask_200_runs(cli):
    base = ["simulate", "HO-I", "--methods", "anyrank0,bonferroni", "--reps", "200", "--seed", "1", "--json"]
    a = json.loads(cli(base + ["--jobs", "1"]).stdout)
    b = json.loads(cli(base + ["--backend", "dask"]).stdout)
    a["details"].pop("elapsed"), b["details"].pop("elapsed")
    assert a == b
