"""`certirank campaign init`: a new campaign file from options or a design file: what it says about its budget, arms and test, and its one-line refusals."""

from __future__ import annotations

import pytest

from certirank import Campaign
from certirank.campaign._engines import AnyRankEngine
from certirank.errors import ParameterError

from test_campaign_lock import DESIGN


def test_budget_and_arms_come_from_the_design(cli, tmp_path):
    db = tmp_path / "ab.campaign"
    r = cli.campaign("init", db, "--policies", "A,B", "--bins", "binary", "--budget", 50, "--arms", "independent")
    assert r.exit_code == 0, r.output
    with Campaign.open(db) as c:
        ranker = c.config["engine"]["ranker"]
        assert (ranker["budget"], ranker["arms"], ranker["n_max"], ranker["budget_horizon"]) == \
            ("final", "independent", 50, 50)
        line = c.status().test
    assert "exact budget test" in line and "Barnard" in line and "N = 50" in line and "independent arms" in line
    r = cli.campaign("status", db)
    assert r.exit_code == 0 and f"Test: {line}." in cli.words(r)
    assert cli.campaign("status", db, "--json").output.count('"test"') == 1


def test_a_paired_budget_and_the_anytime_default_say_so(cli, tmp_path):
    paired = tmp_path / "p.campaign"
    assert cli.campaign("init", paired, "--policies", "A,B,C", "--bins", "binary", "--budget", 200).exit_code == 0
    with Campaign.open(paired) as c:
        line = c.status().test
        assert c.config["engine"]["ranker"]["arms"] == "paired"
    assert "exact budget test" in line and "paired arms" in line and "N = 200" in line
    anytime = tmp_path / "a.campaign"
    assert cli.campaign("init", anytime, "--policies", "A,B", "--budget", 300).exit_code == 0
    with Campaign.open(anytime) as c:
        assert c.config["engine"]["ranker"]["n_max"] == 300
        assert c.status().test.startswith("anytime e-process (partial-progress scores)")


@pytest.mark.parametrize("args, words", [
    (["--arms", "independent"], "declare binary scores (--bins binary) and the budget"),
    (["--bins", "binary", "--arms", "independent"], "and the budget (--budget N)"),
    (["--budget", 50, "--n-max", 60], "--budget 50 and --n-max 60 disagree"),
    (["--budget", 0], "--budget must be a positive number"),
    (["--bins", "binary", "--budget", 50, "--arms", "crossed"], "--arms must be one of paired, independent"),
])
def test_design_refusals_are_one_line(cli, tmp_path, args, words):
    r = cli.campaign("init", tmp_path / "x.campaign", "--policies", "A,B", *args)
    assert r.exit_code == 2 and words in cli.words(r), r.output
    assert not (tmp_path / "x.campaign").exists()


def test_independent_arms_over_shared_environments_get_one_warning_line(cli, tmp_path):
    envs = tmp_path / "envs.txt"
    envs.write_text("kitchen\nsink\n")
    r = cli.campaign("init", tmp_path / "w.campaign", "--policies", "A,B", "--bins", "binary", "--budget", 40, "--arms",
             "independent", "--environments", envs, "--seed", 1)
    assert r.exit_code == 0 and "the paired test is valid for any correlation" in cli.words(r)


def test_the_campaign_runs_the_rankers_exact_test_for_its_design(cli, tmp_path):
    """`--budget 40 --arms independent --bins binary` gives the engine exactly the Ranker configured with those
    options (whose exact test's level is tested in tests/test_evidence_barnard.py and the Ranker's tests)."""
    from certirank import Ranker

    db = tmp_path / "tie.campaign"
    assert cli.campaign("init", db, "--policies", "A,B", "--alpha", 0.1, "--bins", "binary", "--budget", 40, "--arms",
                "independent").exit_code == 0
    with Campaign.open(db) as c:
        engine = AnyRankEngine.fresh(c.config["engine"])
    direct = Ranker(["A", "B"], alpha=0.1, n_max=40, bins="binary", budget="final", arms="independent")
    assert engine.ranker._setup == direct._setup
    assert direct._setup.statistic == "barnard" and direct._setup.budget_horizon == 40


@pytest.mark.parametrize("text, words", [
    ("alpha = 0.1\npolicies = ['a', 'b']\nbogus = 1\n", "unknown key 'bogus'"),
    ("policies = ['a', 'b'\n", "is not valid TOML"),
    ("policies = ['a', 'b']\nalpha = 'high'\n", "design file"),
    ("policies = ['a', 'b']\nlaunch = 'run {model}'\n", "unknown field {model}"),
    ("policies = ['a', 'b']\nlaunch = 'run {checkpoint}'\n[checkpoints]\na = '/x'\n", "'b' has no checkpoint path"),
    ("policies = ['a', 'b']\nabout = 'table'\n", "about must be 'policy' for a anyrank campaign"),
    ("policies = ['a', 'b']\n[tags]\nnames = ['x']\nclosed = true\n", "[tags] takes 'names' and 'open'"),
])
def test_bad_design_files_are_one_line_errors_naming_the_file(cli, tmp_path, text, words):
    toml = tmp_path / "bad.toml"
    toml.write_text(text)
    with pytest.raises(ParameterError) as info:
        Campaign.init(tmp_path / "x.campaign", design=toml)
    assert words in str(info.value) and "\n" not in str(info.value) and "bad.toml" in str(info.value)
    assert not (tmp_path / "x.campaign").exists()
    r = cli(["campaign", "init", str(tmp_path / "y.campaign"), "--design", str(toml)])
    assert r.exit_code == 2 and r.output.startswith("error:") and r.output.count("\n") == 1, r.output


def test_a_setting_in_both_places_is_refused(cli, tmp_path):
    toml = tmp_path / "d.toml"
    toml.write_text(DESIGN)
    with pytest.raises(ParameterError, match="alpha is set both in"):
        Campaign.init(tmp_path / "a.campaign", design=toml, alpha=0.2)
    r = cli(["campaign", "init", str(tmp_path / "b.campaign"), "--design", str(toml),
             "--alpha", "0.05"])
    assert r.exit_code == 2 and "--alpha is given beside --design" in r.output
