"""`certirank compare`: the sequential paired comparison from the command line."""

from __future__ import annotations

import json


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
