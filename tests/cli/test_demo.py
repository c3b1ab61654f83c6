"""`certirank demo`: the simulated campaign compared with Bonferroni."""

from __future__ import annotations

import json


def test_demo_json_reports_savings_against_bonferroni(cli):
    out = cli(["demo", "--seed", "1", "--json"])
    assert out.exit_code == 0, out.output
    got = json.loads(out.stdout)
    det = got["details"]
    assert det["rollouts_saved"] == det["bonferroni"]["details"]["total_samples"] - det["total_samples"]
    assert got["ranking"]["stopped"] == "complete ranking" and det["bonferroni"]["kind"] == "rank"
    # same seed, same campaign
    again = json.loads(cli(["demo", "--seed", "1", "--json"]).stdout)
    assert again == got


def test_demo_human_output(cli):
    out = cli(["demo", "--seed", "0"])
    assert out.exit_code == 0, out.output
    text = " ".join(out.stdout.split())
    assert "is better than" in text and "rollouts" in text and "against Bonferroni" in text


def test_demo_takes_alpha_like_every_other_command(cli):
    res = cli(["demo", "--alpha", "0.1", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["inputs"]["alpha"] == 0.1 and out["ranking"]["alpha"] == 0.1
    assert out["details"]["bonferroni"]["inputs"]["alpha"] == 0.1
    cli.refuses(["demo", "--alpha", "1.5"], "alpha")
