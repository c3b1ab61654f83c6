"""`certirank rank` and `certirank demo` (CLI over AnyRank)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from certirank.cli import app
from certirank.methods.anyrank import anyrank

runner = CliRunner()


@pytest.fixture()
def wide_csv(tmp_path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"alpha_pol": (rng.random(200) < 0.2).astype(float),
                       "beta_pol": (rng.random(200) < 0.5).astype(float),
                       "gamma_pol": (rng.random(200) < 0.9).astype(float)})
    df.iloc[3, 1] = np.nan
    path = tmp_path / "trials.csv"
    df.to_csv(path, index=False)
    return path


def test_rank_json_is_the_result_dict(wide_csv):
    out = runner.invoke(app, ["rank", str(wide_csv), "--alpha", "0.1", "--json"])
    assert out.exit_code == 0, out.output
    got = json.loads(out.stdout)
    assert got == json.loads(anyrank(str(wide_csv), alpha=0.1).to_json())
    assert got["ranking"]["stopped"] == "complete ranking"


def test_rank_human_output_in_words(wide_csv):
    out = runner.invoke(app, ["rank", str(wide_csv), "--alpha", "0.1"])
    assert out.exit_code == 0, out.output
    text = " ".join(out.stdout.split())
    assert "gamma_pol is better than alpha_pol (certified at 90%" in text
    assert "letters" in text and "trials used" in text


def test_rank_prior_options(wide_csv, tmp_path):
    inline = runner.invoke(app, ["rank", str(wide_csv), "--prior-means", "alpha_pol=0.1,beta_pol=0.5,gamma_pol=0.9",
                                 "--gamma", "5", "--json"])
    assert inline.exit_code == 0, inline.output
    pfile = tmp_path / "prior.csv"
    pfile.write_text("policy,mean\nalpha_pol,0.1\nbeta_pol,0.5\ngamma_pol,0.9\n")
    viafile = runner.invoke(app, ["rank", str(wide_csv), "--prior", str(pfile), "--gamma", "5", "--json"])
    assert viafile.exit_code == 0, viafile.output
    assert json.loads(inline.stdout) == json.loads(viafile.stdout)
    want = anyrank(str(wide_csv), prior={"alpha_pol": 0.1, "beta_pol": 0.5, "gamma_pol": 0.9}, gamma=5)
    assert json.loads(inline.stdout) == json.loads(want.to_json())


def test_rank_strict_and_ties_options(wide_csv):
    out = runner.invoke(app, ["rank", str(wide_csv), "--guarantee", "strict", "--ties", "assume-none",
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
def test_rank_user_errors_exit_2(wide_csv, args, needle):
    out = runner.invoke(app, ["rank", str(wide_csv), *args])
    assert out.exit_code == 2
    assert needle in out.output


def test_rank_single_policy_file_is_an_error(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("only\n0.5\n0.2\n")
    out = runner.invoke(app, ["rank", str(path)])
    assert out.exit_code == 2 and "at least two policies" in out.output


def test_demo_json_reports_savings_against_bonferroni():
    out = runner.invoke(app, ["demo", "--seed", "1", "--json"])
    assert out.exit_code == 0, out.output
    got = json.loads(out.stdout)
    det = got["details"]
    assert det["rollouts_saved"] == det["bonferroni"]["details"]["total_samples"] - det["total_samples"]
    assert got["ranking"]["stopped"] == "complete ranking" and det["bonferroni"]["kind"] == "rank"
    # same seed, same campaign
    again = json.loads(runner.invoke(app, ["demo", "--seed", "1", "--json"]).stdout)
    assert again == got


def test_demo_human_output():
    out = runner.invoke(app, ["demo", "--seed", "0"])
    assert out.exit_code == 0, out.output
    text = " ".join(out.stdout.split())
    assert "is better than" in text and "rollouts" in text and "against Bonferroni" in text


def test_rank_budget_and_arms_options(wide_csv, tmp_path):
    # binary data (the NaN makes that comparison skip a row) with an explicit budget: the exact test by default
    base = ["rank", str(wide_csv), "--alpha", "0.1", "--bins", "binary", "--n-max", "200", "--json"]
    auto = runner.invoke(app, base)
    assert auto.exit_code == 0, auto.output
    got = json.loads(auto.stdout)
    assert "exact budget test" in got["ranking"]["guarantee"] and "paired arms" in got["ranking"]["guarantee"]
    assert got == json.loads(anyrank(str(wide_csv), alpha=0.1, bins="binary", n_max=200, budget="final").to_json())
    none = json.loads(runner.invoke(app, [*base, "--budget", "none"]).stdout)
    assert "exact budget test" not in none["ranking"]["guarantee"]
    assert none == json.loads(anyrank(str(wide_csv), alpha=0.1, bins="binary", n_max=200,
                                      budget="none").to_json())
    ind = runner.invoke(app, [*base, "--budget", "extendable", "--arms", "independent"])
    assert ind.exit_code == 0, ind.output
    assert "independent arms" in json.loads(ind.stdout)["ranking"]["guarantee"]
    # a budget below the rows in hand is refused, naming both numbers (spec 09 §6: the rows in hand are known)
    small = runner.invoke(app, ["rank", str(wide_csv), "--n-max", "150", "--budget", "final"])
    assert small.exit_code == 2 and "n_max = 150 is smaller than the data in hand (200" in small.output
    assert runner.invoke(app, [*base, "--arms", "sideways"]).exit_code == 2
    # the statistic: the mixture below n_max 500 by default, the fastest-decision one on request
    assert "Beta-mixture statistic" in got["ranking"]["guarantee"]
    fast = runner.invoke(app, [*base, "--statistic", "bayes"])
    assert fast.exit_code == 0, fast.output
    assert "fastest-decision statistic" in json.loads(fast.stdout)["ranking"]["guarantee"]
    assert json.loads(fast.stdout) == json.loads(anyrank(str(wide_csv), alpha=0.1, bins="binary", n_max=200,
                                                         statistic="bayes").to_json())
    wrong = runner.invoke(app, [*base, "--statistic", "fast"])
    assert wrong.exit_code == 2 and "statistic" in wrong.output
