"""`certirank compare`: the sequential paired comparison from the command line."""

from __future__ import annotations

import json

import pytest

from certirank.methods.compare import compare

from _records import flat


def test_compare_budget_options_need_a_budget(cli, wide, binary):
    cli.fails(["compare", wide, "--a", "a", "--b", "c", "--extendable"], "--extendable", "--n-max")
    cli.fails(["compare", wide, "--a", "a", "--b", "c", "--arms", "independent"], "--arms", "--n-max")
    cli.fails(["compare", wide, "--a", "a", "--b", "c", "--arms", "both"], "arms must be one of paired, independent (or None), got 'both'")
    out = json.loads(cli.ok(["compare", binary, "--a", "x", "--b", "y", "--bins", "binary", "--n-max", "80",
                          "--extendable", "--arms", "independent", "--json"]))
    assert out["inputs"]["arms"] == "independent" and "extendable" in out["details"]["test"]


def test_compare_group_by_and_shuffle_honour_markdown(cli, long_groups):
    grouped = cli.ok(["compare", long_groups, "--a", "a", "--b", "b", "--group-by", "site", "--markdown"])
    assert grouped.startswith("## ") and "### site = s0" in grouped and "┃" not in grouped
    shuffled = cli.ok(["compare", long_groups, "--a", "a", "--b", "b", "--shuffle", "2", "--markdown"])
    assert shuffled.startswith("## ") and "| rank | policy |" in shuffled


def test_compare_on_preference_file_is_a_clear_error(cli, prefs):
    # was: KeyError 'order' traceback
    cli.refuses(["compare", str(prefs), "--a", "p", "--b", "q"], "preferences", "baseline")


def test_compare_states_its_guarantee(cli, wide_markup):
    res = cli(["compare", str(wide_markup), "--a", "c/x", "--b", "[bold]b", "--alpha", "0.1"],
                        env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "Guarantee" in res.output and "alpha = 0.1" in res.output


def test_compare_on_repeated_runs_points_to_leaderboard(cli, panel_tied):
    cli.refuses(["compare", str(panel_tied), "--a", "m0", "--b", "m2"], "several replicates", "leaderboard")


def test_cli_compare_json_and_text(cli, tmp_path):
    path = tmp_path / "wide.csv"
    rows = ["old,new,other"] + ["0,1,0.5"] * 12 + [",1,0.5", "1,,0.5"]
    path.write_text("\n".join(rows) + "\n")
    res = cli(["compare", str(path), "--a", "old", "--b", "new", "--bins", "binary", "--bettor", "nscore", "--json"])
    assert res.exit_code == 0, res.output
    out = flat(json.loads(res.output))
    assert {k: out[k] for k in ("a", "b", "decided_at", "n", "alpha", "ties")} == {
        "a": "old", "b": "new", "decided_at": 8, "n": 12, "alpha": 0.05, "ties": "allow"}
    assert [(r["better"], r["worse"]) for r in out["ranking"]["relations"]] == [("new", "old")]
    assert out["pvalue"] == pytest.approx(compare([0] * 12, [1] * 12, bettor="nscore", bins="binary").pvalue)
    res = cli(["compare", str(path), "--a", "old", "--b", "new", "--bins", "binary", "--n-max", "12", "--arms",
                "independent", "--json"])
    assert res.exit_code == 0, res.output
    out = flat(json.loads(res.stdout))
    # independent arms declared on a wide table (rows pair the trials): allowed, with one warning line (issue 31)
    assert res.stderr.count("valid for any correlation") == 1 and any("valid for any correlation" in w
                                                                       for w in out["warnings"])
    assert out["horizon"] == 12 and out["arms"] == "independent" and "exact budget test" in out["test"]
    assert out["pvalue"] == compare([0] * 12, [1] * 12, bins="binary", n_max=12, arms="independent").pvalue
    res = cli(["compare", str(path), "--a", "old", "--b", "new", "--bins", "binary", "--n-max", "5"])
    assert res.exit_code == 2 and "n_max = 5 is smaller than the data in hand (12" in res.output
    res = cli(["compare", str(path), "--a", "new", "--b", "old", "--bins", "binary", "--ties", "assume_none"])
    assert res.exit_code == 0 and "new is better than old" in res.output
    res = cli(["compare", str(path), "--a", "other", "--b", "other"])
    assert res.exit_code == 2 and "same policy" in res.output


@pytest.mark.parametrize("extra,needle", [(["--alpha", "1.5"], "alpha"), (["--bettor", "magic"], "bettor"),
                                          (["--ties", "sometimes"], "ties"), (["--b", "ghost"], "ghost")])
def test_cli_compare_errors_exit_2(cli, tmp_path, extra, needle):
    path = tmp_path / "wide.csv"
    path.write_text("old,new\n0,1\n1,1\n")
    args = ["compare", str(path), "--a", "old"] + (extra if "--b" in extra else ["--b", "new"] + extra)
    res = cli(args)
    assert res.exit_code == 2
    assert needle in res.output


def test_cli_compare_on_roboarena(cli, shared_data):
    res = cli(["compare", str(shared_data / "roboarena" / "per_trial_progress_data.csv"), "--a", "pi0_droid",
                "--b", "paligemma_binning_droid", "--json"])
    assert res.exit_code == 0, res.output
    out = flat(json.loads(res.output))
    # pi0_droid (mean 0.34) vs PG-Bin (0.07): certified quickly, on the complete pairs only
    assert [(r["better"], r["worse"]) for r in out["ranking"]["relations"]] == [("pi0_droid", "paligemma_binning_droid")]
    assert out["decided_at"] < 100
    import pandas as pd

    wide = pd.read_csv(shared_data / "roboarena" / "per_trial_progress_data.csv")
    assert out["n"] == int(wide[["pi0_droid", "paligemma_binning_droid"]].notna().all(axis=1).sum())
