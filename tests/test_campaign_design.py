"""A campaign's design carries its test (issue 31 item 1, campaign part): `campaign init --budget N --arms
paired|independent` (with the scale `--bins`) fixes budget, scale and arms before any rollout, never from the
data; `status` (and the page, and --json) says which test runs and why in one line."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from certirank.campaign import Campaign
from certirank.campaign._engines import AnyRankEngine
from certirank.cli import app


def _cli(*args):
    return CliRunner().invoke(app, ["campaign", *map(str, args)])


def _text(r):
    return " ".join(r.output.split())


def test_budget_and_arms_come_from_the_design(tmp_path):
    db = tmp_path / "ab.campaign"
    r = _cli("init", db, "--policies", "A,B", "--bins", "binary", "--budget", 50, "--arms", "independent")
    assert r.exit_code == 0, r.output
    with Campaign.open(db) as c:
        ranker = c.config["engine"]["ranker"]
        assert (ranker["budget"], ranker["arms"], ranker["n_max"], ranker["budget_horizon"]) == \
            ("final", "independent", 50, 50)
        line = c.status().test
    assert "exact budget test" in line and "Barnard" in line and "N = 50" in line and "independent arms" in line
    r = _cli("status", db)
    assert r.exit_code == 0 and f"Test: {line}." in _text(r)
    assert _cli("status", db, "--json").output.count('"test"') == 1


def test_a_paired_budget_and_the_anytime_default_say_so(tmp_path):
    paired = tmp_path / "p.campaign"
    assert _cli("init", paired, "--policies", "A,B,C", "--bins", "binary", "--budget", 200).exit_code == 0
    with Campaign.open(paired) as c:
        line = c.status().test
        assert c.config["engine"]["ranker"]["arms"] == "paired"
    assert "exact budget test" in line and "paired arms" in line and "N = 200" in line
    anytime = tmp_path / "a.campaign"
    assert _cli("init", anytime, "--policies", "A,B", "--budget", 300).exit_code == 0
    with Campaign.open(anytime) as c:
        assert c.config["engine"]["ranker"]["n_max"] == 300
        assert c.status().test.startswith("anytime e-process (partial-progress scores)")


def test_the_scale_is_never_inferred_from_what_is_recorded(tmp_path):
    """Every recorded score is 0 or 1, but the design said partial progress: the campaign keeps its test."""
    c = Campaign.init(tmp_path / "s.campaign", ["A", "B"], alpha=0.1, n_max=100)
    before = (c.config_sha256, c.status().test)
    for _ in range(10):
        for s in c.next():
            c.record(s.policy, s.trial, 1.0 if s.policy == "A" else 0.0)
    assert (c.config_sha256, c.status().test) == before and "partial-progress" in before[1]


@pytest.mark.parametrize("args, words", [
    (["--arms", "independent"], "declare binary scores (--bins binary) and the budget"),
    (["--bins", "binary", "--arms", "independent"], "and the budget (--budget N)"),
    (["--budget", 50, "--n-max", 60], "--budget 50 and --n-max 60 disagree"),
    (["--budget", 0], "--budget must be a positive number"),
    (["--bins", "binary", "--budget", 50, "--arms", "crossed"], "--arms must be one of paired, independent"),
])
def test_design_refusals_are_one_line(tmp_path, args, words):
    r = _cli("init", tmp_path / "x.campaign", "--policies", "A,B", *args)
    assert r.exit_code == 2 and words in _text(r), r.output
    assert not (tmp_path / "x.campaign").exists()


def test_independent_arms_over_shared_environments_get_one_warning_line(tmp_path):
    envs = tmp_path / "envs.txt"
    envs.write_text("kitchen\nsink\n")
    r = _cli("init", tmp_path / "w.campaign", "--policies", "A,B", "--bins", "binary", "--budget", 40, "--arms",
             "independent", "--environments", envs, "--seed", 1)
    assert r.exit_code == 0 and "the paired test is valid for any correlation" in _text(r)


def test_the_campaign_runs_the_rankers_exact_test_for_its_design(tmp_path):
    """`--budget 40 --arms independent --bins binary` gives the engine exactly the Ranker configured with those
    options (whose exact test's level is tested in tests/test_evidence_barnard.py and the Ranker's tests)."""
    from certirank import Ranker

    db = tmp_path / "tie.campaign"
    assert _cli("init", db, "--policies", "A,B", "--alpha", 0.1, "--bins", "binary", "--budget", 40, "--arms",
                "independent").exit_code == 0
    with Campaign.open(db) as c:
        engine = AnyRankEngine.fresh(c.config["engine"])
    direct = Ranker(["A", "B"], alpha=0.1, n_max=40, bins="binary", budget="final", arms="independent")
    assert engine.ranker._setup == direct._setup
    assert direct._setup.statistic == "barnard" and direct._setup.budget_horizon == 40
