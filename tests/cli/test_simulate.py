"""`certirank simulate`: the simulation command's output checks."""

from __future__ import annotations




def test_simulate_out_is_checked_before_the_runs(cli, tmp_path):
    # was: OSError traceback after all runs (missing folder); a .csv name silently received Parquet bytes
    cli.refuses(["simulate", "HO-I", "-n", "1", "--out", str(tmp_path / "nope" / "r.parquet")], "does not exist")
    cli.refuses(["simulate", "HO-I", "-n", "1", "--out", str(tmp_path / "r.csv")], ".parquet")
    assert not (tmp_path / "r.csv").exists()
