"""`certirank rank`: the certified ranking from recorded trials, its options, and the options it refuses."""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
import numpy as np
import pandas as pd
import pytest

from certirank.methods.anyrank import anyrank

from _records import flat
from test_bradley_terry_graph import _battles
from test_check_markdown import _tables, _write_long
from test_data_formats import robot_lists
from test_rank_margin import _close_pair  # the data of the API's margin tests


def test_rank_json_is_the_result_dict(cli, wide_trials):
    out = cli(["rank", str(wide_trials), "--alpha", "0.1", "--json"])
    assert out.exit_code == 0, out.output
    got = json.loads(out.stdout)
    assert got == json.loads(anyrank(str(wide_trials), alpha=0.1).to_json())
    assert got["ranking"]["stopped"] == "complete ranking"


def test_rank_human_output_in_words(cli, wide_trials):
    out = cli(["rank", str(wide_trials), "--alpha", "0.1"])
    assert out.exit_code == 0, out.output
    text = " ".join(out.stdout.split())
    assert "gamma_pol is better than alpha_pol (certified at 90%" in text
    assert "letters" in text and "trials used" in text


def test_rank_prior_options(cli, wide_trials, tmp_path):
    inline = cli(["rank", str(wide_trials), "--prior-means", "alpha_pol=0.1,beta_pol=0.5,gamma_pol=0.9",
                  "--gamma", "5", "--json"])
    assert inline.exit_code == 0, inline.output
    pfile = tmp_path / "prior.csv"
    pfile.write_text("policy,mean\nalpha_pol,0.1\nbeta_pol,0.5\ngamma_pol,0.9\n")
    viafile = cli(["rank", str(wide_trials), "--prior", str(pfile), "--gamma", "5", "--json"])
    assert viafile.exit_code == 0, viafile.output
    assert json.loads(inline.stdout) == json.loads(viafile.stdout)
    want = anyrank(str(wide_trials), prior={"alpha_pol": 0.1, "beta_pol": 0.5, "gamma_pol": 0.9}, gamma=5)
    assert json.loads(inline.stdout) == json.loads(want.to_json())


def test_rank_strict_and_ties_options(cli, wide_trials):
    out = cli(["rank", str(wide_trials), "--guarantee", "strict", "--ties", "assume-none",
               "--method", "anyrank_inf", "--n-max", "200", "--json"])
    assert out.exit_code == 0, out.output
    got = json.loads(out.stdout)["inputs"]
    assert got["guarantee"] == "strict" and got["method"] == "anyrank-inf" and got["ties"] == "assume_none"


@pytest.mark.parametrize("args, needle", [
    (["--prior-means", "alpha_pol=0.1,nobody=0.5,beta_pol=0.2,gamma_pol=0.3"], "nobody"),
    (["--alpha", "1.5"], "alpha"),
    (["--gamma", "-1"], "gamma"),
    (["--method", "magic"], "method"),
])
def test_rank_user_errors_exit_2(cli, wide_trials, args, needle):
    out = cli(["rank", str(wide_trials), *args])
    assert out.exit_code == 2
    assert needle in out.output


def test_rank_single_policy_file_is_an_error(cli, tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("only\n0.5\n0.2\n")
    out = cli(["rank", str(path)])
    assert out.exit_code == 2 and "at least two policies" in out.output


def test_rank_budget_and_arms_options(cli, wide_trials, tmp_path):
    # binary data (the NaN makes that comparison skip a row) with an explicit budget: the exact test by default
    base = ["rank", str(wide_trials), "--alpha", "0.1", "--bins", "binary", "--n-max", "200", "--json"]
    auto = cli(base)
    assert auto.exit_code == 0, auto.output
    got = json.loads(auto.stdout)
    assert "exact budget test" in got["ranking"]["guarantee"] and "paired arms" in got["ranking"]["guarantee"]
    assert got == json.loads(anyrank(str(wide_trials), alpha=0.1, bins="binary", n_max=200, budget="final").to_json())
    none = json.loads(cli([*base, "--budget", "none"]).stdout)
    assert "exact budget test" not in none["ranking"]["guarantee"]
    assert none == json.loads(anyrank(str(wide_trials), alpha=0.1, bins="binary", n_max=200,
                                      budget="none").to_json())
    ind = cli([*base, "--budget", "extendable", "--arms", "independent"])
    assert ind.exit_code == 0, ind.output
    assert "independent arms" in json.loads(ind.stdout)["ranking"]["guarantee"]
    # a budget below the rows in hand is refused, naming both numbers (spec 09 §6: the rows in hand are known)
    small = cli(["rank", str(wide_trials), "--n-max", "150", "--budget", "final"])
    assert small.exit_code == 2 and "n_max = 150 is smaller than the data in hand (200" in small.output
    assert cli([*base, "--arms", "sideways"]).exit_code == 2
    # the statistic: the fastest-decision one by default (compare's rule, issue 31), the Beta-mixture on request
    assert "fastest-decision statistic" in got["ranking"]["guarantee"]
    mix = cli([*base, "--statistic", "mixture"])
    assert mix.exit_code == 0, mix.output
    assert "Beta-mixture statistic" in json.loads(mix.stdout)["ranking"]["guarantee"]
    assert json.loads(mix.stdout) == json.loads(anyrank(str(wide_trials), alpha=0.1, bins="binary", n_max=200,
                                                        statistic="mixture").to_json())
    wrong = cli([*base, "--statistic", "fast"])
    assert wrong.exit_code == 2 and "statistic" in wrong.output


def test_rank_statistic_and_arms_need_the_budget_test(cli, wide, binary):
    cli.fails(["rank", wide, "--statistic", "bayes"], "--statistic", "exact budget test")
    cli.fails(["rank", wide, "--arms", "independent"], "--arms", "exact budget test")
    cli.fails(["rank", wide, "--statistic", "fastest"], "statistic must be one of mixture, bayes, barnard")
    cli.fails(["rank", binary, "--bins", "binary", "--n-max", "100", "--budget", "none", "--statistic",
                    "mixture"], "--statistic")
    out = json.loads(cli.ok(["rank", binary, "--bins", "binary", "--n-max", "80", "--statistic", "mixture",
                          "--json"]))
    assert "exact budget test" in out["ranking"]["guarantee"] and "Beta-mixture" in out["ranking"]["guarantee"]


def test_rank_gamma_needs_a_prior_and_a_method_that_uses_it(cli, wide):
    cli.fails(["rank", wide, "--gamma", "5"], "--gamma", "give a prior")
    cli.fails(["rank", wide, "--gamma", "5", "--prior-means", "a=0.1,b=0.5,c=0.9", "--method", "bonferroni"],
                   "--gamma", "not bonferroni")
    weak, strong = (json.loads(cli.ok(["rank", wide, "--prior-means", "a=0.1,b=0.5,c=0.9", "--gamma", g, "--json"]))
                    for g in ("0.5", "5"))
    assert weak["kind"] == strong["kind"] == "rank"


def test_about_table_refuses_options_of_the_other_test(cli, wide):
    # the table's own test (without replacement, its own bettor): the policy test's options are refused
    cli.fails(["rank", wide, "--about", "table", "--method", "bonferroni", "--ties", "assume_none"],
                   "--method, --ties do not apply with --about table")
    cli.fails(["compare", wide, "--a", "a", "--b", "c", "--about", "table", "--bettor", "agrapa"],
                   "--bettor does not apply with --about table")


def test_rank_on_preferences_refuses_anyrank_options(cli, prefs):
    cli.fails(["rank", prefs, "--method", "bonferroni"], "--method", "preference data")
    cli.fails(["rank", prefs, "--pairing", "by-order"], "--pairing", "preference data")


def test_deprecated_alias_conflict_is_one_line(cli, wide):
    cli.fails(["rank", wide, "--nmax", "5", "--n-max", "6"], "not both")


def test_seeded_runs_repeat(cli, wide):
    first = cli.ok(["rank", wide, "--shuffle", "7", "--json"])
    assert first == cli.ok(["rank", wide, "--shuffle", "7", "--json"])
    boot = ["baseline", "bt-bootstrap", wide, "--seed", "4", "--n-boot", "30", "--json"]
    assert cli.ok(boot) == cli.ok(boot)


def test_heldout_prior_rows_message_states_the_real_minimum(cli, wide_markup):
    # the default 0 is valid, so "must be >= 1" was wrong
    cli.refuses(["rank", str(wide_markup), "--heldout-prior-rows", "-1"], "non-negative integer")


def test_plot_into_missing_folder_fails_before_the_analysis(cli, wide_markup, tmp_path):
    missing = tmp_path / "nope" / "fig.png"
    text = cli.refuses(["rank", str(wide_markup), "--plot", str(missing)], "does not exist")
    assert "better than" not in text  # no ranking was computed and printed first


def test_names_with_brackets_print_as_written(cli, wide_markup):
    # rich markup swallowed '[v2]' and '[bold]' in policy names
    res = cli(["rank", str(wide_markup)], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "policy[v2]" in res.output and "[bold]b" in res.output
    res = cli(["inspect", str(wide_markup)], env={"COLUMNS": "200"})
    assert "policy[v2]" in res.output and "[bold]b" in res.output


# ----------------------------------------------------------------------------- --margin (issue 35)

@pytest.fixture(scope="module")
def close_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("margin") / "close.csv"
    _close_pair().to_csv(path, index_label="env")
    return path


def test_rank_margin_terminal_json_markdown(cli, close_csv):
    out = cli(["rank", str(close_csv), "--margin", "0.1"])
    assert out.exit_code == 0, out.output
    text = " ".join(out.stdout.split())
    assert "1 equivalent (within 0.1); 0 undecided" in text
    assert "Equivalent (1; |difference of means| < 0.1" in text and "B ~ A" in text
    out = cli(["rank", str(close_csv), "--margin", "0.1", "--json"])
    d = json.loads(out.stdout)
    assert d["inputs"]["margin"] == 0.1
    assert d["ranking"]["equivalent"] == [["B", "A"]] and d["ranking"]["undecided"] == []
    assert d["ranking"]["counts"]["equivalent"] == 1 and d["ranking"]["margin"] == 0.1
    assert "covers equivalence claims too" in d["ranking"]["guarantee"]
    schema = json.loads(resources.files("certirank").joinpath("schemas/result-1.json").read_text("utf-8"))
    jsonschema.validate(d, schema)
    md = cli(["rank", str(close_csv), "--margin", "0.1", "--markdown"]).stdout
    assert "**Equivalent** (|difference of means| < 0.1, certified): B ~ A" in md
    assert "1 equivalent (within 0.1), 0 undecided" in md and "**Undecided:**" not in md


def test_rank_margin_html_report(cli, close_csv, tmp_path):
    js = tmp_path / "r.json"
    js.write_text(cli(["rank", str(close_csv), "--margin", "0.1", "--json"]).stdout)
    html = tmp_path / "r.html"
    out = cli(["report", str(js), "--html", str(html)])
    assert out.exit_code == 0, out.output
    page = html.read_text()
    assert "B and A are equivalent: |difference of means| &lt; 0.1" in page
    assert "B vs A: undecided" not in page


def test_without_margin_the_record_is_unchanged(cli, close_csv):
    d = json.loads(cli(["rank", str(close_csv), "--json"]).stdout)
    assert "equivalent" not in d["ranking"] and "margin" not in d["ranking"]
    assert "equivalent" not in d["ranking"]["counts"]
    assert ["B", "A"] in d["ranking"]["undecided"] or ["A", "B"] in d["ranking"]["undecided"]


@pytest.mark.parametrize("args, needle", [
    (["--margin", "0"], "margin"), (["--margin", "1"], "margin"), (["--margin", "-0.2"], "margin"),
    (["--margin", "nan"], "margin"), (["--margin", "0.1", "--guarantee", "strict"], "guarantee='paper'"),
    (["--margin", "0.1", "--orders", "3"], "orders"), (["--margin", "0.1", "--about", "table"], "--margin"),
])
def test_rank_margin_bad_input_is_one_line_exit_2(cli, close_csv, args, needle):
    out = cli(["rank", str(close_csv), *args])
    assert out.exit_code == 2, out.output
    assert needle in out.output and "Traceback" not in out.output


def test_markdown_rank_table_matches_the_json(cli, tmp_path):
    path = _write_long(tmp_path)
    md = cli(["rank", str(path), "--markdown"])
    js = cli(["rank", str(path), "--json"])
    assert md.exit_code == 0 and js.exit_code == 0, md.stderr
    result = json.loads(js.stdout)
    (table,) = _tables(md.stdout)
    header, rows = table[0], table[1:]
    assert header == ["rank", "policy", "mean", "trials", "letters", "rank interval"]
    pols = result["ranking"]["policies"]
    assert {r[1]: r[4] for r in rows} == {p["name"]: p["letters"] for p in pols}
    assert [r[1] for r in rows] == [p["name"] for p in pols]
    assert {r[1]: int(r[3]) for r in rows} == {p["name"]: p["n"] for p in pols}
    # B is certified below both others: rank interval [3, 3]
    assert {r[1]: r[5] for r in rows}["B"] == "[3, 3]"
    assert "is better than B" in md.stdout and "Undecided" in md.stdout


def test_markdown_escapes_names_that_look_like_markup(cli, tmp_path):
    rng = np.random.default_rng(1)
    names = {"gpt*4|mini": 0.9, "<b>x</b>": 0.2}
    rows = [(m, f"i{i}", float(rng.random() < p)) for m, p in names.items() for i in range(150)]
    path = tmp_path / "odd.csv"
    pd.DataFrame(rows, columns=["policy", "env", "score"]).to_csv(path, index=False)
    md = cli(["rank", str(path), "--markdown"])
    assert md.exit_code == 0, md.stderr
    (table,) = _tables(md.stdout)
    assert sorted(r[1] for r in table[1:]) == sorted(names) and all(len(r) == 6 for r in table)


def test_cli_rank_model_bt(cli, tmp_path):
    a, b, s = _battles(np.linspace(-1.5, 1.5, 6), 900, seed=9, draw=0.1)
    path = tmp_path / "battles.csv"
    winner = np.where(s == 1.0, "model_a", np.where(s == 0.0, "model_b", "tie"))
    pd.DataFrame({"model_a": [f"m{i}" for i in a], "model_b": [f"m{i}" for i in b], "winner": winner}).to_csv(
        path, index=False)
    out = cli(["rank", str(path), "--model", "bt", "--draws", "davidson", "--json"])
    assert out.exit_code == 0, out.output
    d = json.loads(out.stdout)
    assert d["kind"] == "bradley-terry" and d["inputs"]["draws"] == "davidson" and d["details"]["nu"] > 0
    bad = cli(["rank", str(path), "--home"])
    assert bad.exit_code == 2 and "--home does not apply without --model bt" in bad.output
    bad = cli(["rank", str(path), "--model", "bt", "--method", "bonferroni"])
    assert bad.exit_code == 2 and "asymptotic (default) or exact" in bad.output


def test_football_table_cli(cli, tmp_path):
    """A football-results battle table (home, away, result) as model_a, model_b, winner."""
    rng = np.random.default_rng(5)
    teams = {"Arsenal": 1.6, "Burnley": 0.7, "Chelsea": 1.3, "Derby": 0.9}
    lines = ["model_a,model_b,winner"]
    for _ in range(6):
        for h in teams:
            for a in teams:
                if h != a:
                    gh, ga = rng.poisson(teams[h] + 0.3), rng.poisson(teams[a])
                    lines.append(f"{h},{a},{h if gh > ga else a if ga > gh else 'tie'}")
    f = tmp_path / "football.csv"
    f.write_text("\n".join(lines) + "\n")
    out = cli(["rank", str(f), "--json"])
    assert out.exit_code == 0, out.output
    d = flat(json.loads(out.output))
    assert d["kind"] == "preference-graph" and len(d["pairs"]) == 6
    assert sum(p["battles"] for p in d["pairs"]) == len(lines) - 1
    human = cli(["rank", str(f)])
    assert human.exit_code == 0 and "half a win" in human.output


def test_roboarena_preferences(cli, shared_data):
    out = cli(["rank", str(shared_data / "roboarena" / "policy_preferences.csv"), "--json"])
    assert out.exit_code == 0, out.output
    d = json.loads(out.output)
    assert d["details"]["n_battles"] == 796 and len(d["ranking"]["relations"]) >= 1
    for e in d["ranking"]["relations"]:
        assert e["details"]["score"] > 0.5 and 1 <= e["when"] <= 796


def test_rank_group_by_prints_one_table(cli, tmp_path):
    f = robot_lists(tmp_path / "robot.csv")
    out = cli(["rank", str(f), "--group-by", "Panel,Task"])
    assert out.exit_code == 0, out.output
    assert out.stdout.count("groups of Panel, Task") == 1
    for task in ("stack cups", "open drawer", "wipe table"):
        assert out.stdout.count(task) == 2  # one row per panel
    assert "within each group" in out.stdout
    js = cli(["rank", str(f), "--group-by", "Panel,Task", "--json", "--alpha-across-groups"])
    d = flat(json.loads(js.stdout))
    assert d["kind"] == "grouped" and len(d["groups"]) == 6
    assert d["alpha_per_group"] == pytest.approx(0.05 / 6)
    assert all(g["result"]["inputs"]["alpha"] == pytest.approx(0.05 / 6) for g in d["groups"])
    assert "across all 6 groups" in d["statement"]
