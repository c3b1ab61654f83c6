"""CLI audit: options that would be dropped without a word are refused, every --json carries what the text
shows, `report` fails before writing anything, and seeded runs repeat exactly."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from certirank.cli import app

runner = CliRunner()


def _fails_cleanly(args: list[str], *needles: str) -> str:
    """Exit code 2, no traceback, one line on stderr mentioning every needle."""
    res = runner.invoke(app, [str(a) for a in args])
    assert res.exit_code == 2, (res.exit_code, res.output, res.exception)
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def _ok(args: list[str]) -> str:
    res = runner.invoke(app, [str(a) for a in args])
    assert res.exit_code == 0, (res.output, res.exception)
    return res.stdout


@pytest.fixture
def wide(tmp_path: Path) -> Path:
    """Wide per-trial table: a clearly worse than c, b in between."""
    rng = np.random.default_rng(0)
    n = 60
    path = tmp_path / "wide.csv"
    pd.DataFrame({"a": rng.binomial(10, 0.1, n) / 10, "b": rng.binomial(10, 0.5, n) / 10,
                  "c": rng.binomial(10, 0.9, n) / 10}).to_csv(path, index=False)
    return path


@pytest.fixture
def binary(tmp_path: Path) -> Path:
    rng = np.random.default_rng(1)
    path = tmp_path / "binary.csv"
    pd.DataFrame({"x": rng.binomial(1, 0.2, 80), "y": rng.binomial(1, 0.8, 80)}).to_csv(path, index=False)
    return path


@pytest.fixture
def long_groups(tmp_path: Path) -> Path:
    """Long table policy,env,site,score: two sites."""
    rng = np.random.default_rng(2)
    rows = [(p, e, f"s{e % 2}", float(rng.binomial(10, m) / 10)) for p, m in (("a", 0.2), ("b", 0.8))
            for e in range(40)]
    path = tmp_path / "long.csv"
    pd.DataFrame(rows, columns=["policy", "env", "site", "score"]).to_csv(path, index=False)
    return path


@pytest.fixture
def panel(tmp_path: Path) -> Path:
    """Long model,item,replicate,score table with a `split` column."""
    rng = np.random.default_rng(3)
    rows = [(m, i, r, float(rng.random() < p), i % 2) for m, p in (("m0", 0.2), ("m1", 0.6), ("m2", 0.95))
            for r in range(2) for i in range(40)]
    path = tmp_path / "panel.csv"
    pd.DataFrame(rows, columns=["model", "item", "replicate", "score", "split"]).to_csv(path, index=False)
    return path


@pytest.fixture
def prefs(tmp_path: Path) -> Path:
    path = tmp_path / "prefs.csv"
    rows = [("p", "q", 0.0), ("q", "p", 1.0), ("p", "r", 0.5), ("r", "q", 0.0)] * 5
    pd.DataFrame(rows, columns=["A", "B", "preference"]).to_csv(path, index=False)
    return path


# ----------------------------------------------------------------------------- options dropped silently

def test_rank_statistic_and_arms_need_the_budget_test(wide, binary):
    _fails_cleanly(["rank", wide, "--statistic", "bayes"], "--statistic", "exact budget test")
    _fails_cleanly(["rank", wide, "--arms", "independent"], "--arms", "exact budget test")
    _fails_cleanly(["rank", wide, "--statistic", "fastest"], "statistic must be one of mixture, bayes, barnard")
    _fails_cleanly(["rank", binary, "--bins", "binary", "--n-max", "100", "--budget", "none", "--statistic",
                    "mixture"], "--statistic")
    out = json.loads(_ok(["rank", binary, "--bins", "binary", "--n-max", "40", "--statistic", "mixture",
                          "--json"]))
    assert "exact budget test" in out["statement"] and "Beta-mixture" in out["statement"]


def test_rank_gamma_needs_a_prior_and_a_method_that_uses_it(wide):
    _fails_cleanly(["rank", wide, "--gamma", "5"], "--gamma", "give a prior")
    _fails_cleanly(["rank", wide, "--gamma", "5", "--prior-means", "a=0.1,b=0.5,c=0.9", "--method", "bonferroni"],
                   "--gamma", "not bonferroni")
    weak, strong = (json.loads(_ok(["rank", wide, "--prior-means", "a=0.1,b=0.5,c=0.9", "--gamma", g, "--json"]))
                    for g in ("0.5", "5"))
    assert weak["kind"] == strong["kind"] == "rank"


def test_shuffle_refuses_options_of_the_other_test(wide):
    _fails_cleanly(["rank", wide, "--shuffle", "1", "--method", "bonferroni", "--ties", "assume_none"],
                   "--method, --ties do not apply with --shuffle")
    _fails_cleanly(["compare", wide, "--a", "a", "--b", "c", "--shuffle", "1", "--bettor", "agrapa"],
                   "--bettor does not apply with --shuffle")


def test_compare_budget_options_need_a_budget(wide, binary):
    _fails_cleanly(["compare", wide, "--a", "a", "--b", "c", "--extendable"], "--extendable", "--n-max")
    _fails_cleanly(["compare", wide, "--a", "a", "--b", "c", "--arms", "independent"], "--arms", "--n-max")
    _fails_cleanly(["compare", wide, "--a", "a", "--b", "c", "--arms", "both"], "arms must be one of paired, independent, got 'both'")
    out = json.loads(_ok(["compare", binary, "--a", "x", "--b", "y", "--bins", "binary", "--n-max", "80",
                          "--extendable", "--arms", "independent", "--json"]))
    assert out["arms"] == "independent" and "extendable" in out["test"]


def test_rank_on_preferences_refuses_anyrank_options(prefs):
    _fails_cleanly(["rank", prefs, "--method", "bonferroni"], "--method", "preference data")
    _fails_cleanly(["rank", prefs, "--pairing", "by-order"], "--pairing", "preference data")


def test_leaderboard_group_by_refuses_graph_and_plot(panel, tmp_path):
    _fails_cleanly(["leaderboard", panel, "--group-by", "split", "--graph", "dot"], "--graph", "--group-by")
    _fails_cleanly(["leaderboard", panel, "--group-by", "split", "--plot", tmp_path / "g.svg"], "--plot")
    assert not (tmp_path / "g.svg").exists()


def test_deprecated_alias_conflict_is_one_line(wide):
    _fails_cleanly(["rank", wide, "--nmax", "5", "--n-max", "6"], "not both")


# ----------------------------------------------------------------------------- --markdown and --json

def test_compare_group_by_and_shuffle_honour_markdown(long_groups):
    grouped = _ok(["compare", long_groups, "--a", "a", "--b", "b", "--group-by", "site", "--markdown"])
    assert grouped.startswith("## ") and "### site = s0" in grouped and "┃" not in grouped
    shuffled = _ok(["compare", long_groups, "--a", "a", "--b", "b", "--shuffle", "2", "--markdown"])
    assert shuffled.startswith("## ") and "| rank | policy |" in shuffled


def test_leaderboard_json_carries_the_graph_text(panel):
    text = _ok(["leaderboard", panel, "--graph", "mermaid"])
    out = json.loads(_ok(["leaderboard", panel, "--graph", "mermaid", "--json"]))
    assert out["graph"]["format"] == "mermaid"
    assert out["graph"]["text"].strip() and out["graph"]["text"].strip() in text
    assert "graph" not in json.loads(_ok(["leaderboard", panel, "--json"]))


def test_validate_json_names_its_kind_and_reports(tmp_path, monkeypatch):
    import certirank.sim.validation as validation

    class Fake:  # the battery itself is a long Monte Carlo; only the command's shell is under test
        passed = True

        def to_dict(self):
            return {"level": "quick", "alpha": 0.05, "rows": [{"name": "tie-0", "verdict": "pass"}],
                    "passed": True, "statement": "1 of 1 covered rows pass"}

    monkeypatch.setattr(validation, "validate", lambda *a, **k: Fake())
    out = json.loads(_ok(["validate", "--json"]))
    assert out["kind"] == "validate" and out["rows"][0]["name"] == "tie-0"
    res_file = tmp_path / "val.json"
    res_file.write_text(json.dumps(out))
    page = json.loads(_ok(["report", res_file, "--html", tmp_path / "val.html", "--json"]))
    assert page["kind"] == "validate" and (tmp_path / "val.html").is_file()


# ----------------------------------------------------------------------------- report

@pytest.fixture
def rank_json(wide, tmp_path) -> Path:
    path = tmp_path / "rank.json"
    path.write_text(_ok(["rank", wide, "--json"]))
    return path


def test_report_checks_its_paths_before_writing(rank_json, tmp_path):
    html = tmp_path / "page.html"
    _fails_cleanly(["report", rank_json, "--html", html, "--plot", tmp_path / "no" / "f.png"], "does not exist")
    _fails_cleanly(["report", rank_json, "--html", html, "--plot", tmp_path / "f.pdf"], ".png or .svg")
    assert not html.exists()  # nothing half-done
    _fails_cleanly(["report", rank_json, "--html", tmp_path / "no" / "page.html"], "does not exist")


def test_report_data_must_belong_to_the_result(rank_json, wide, binary, tmp_path):
    _fails_cleanly(["report", rank_json, "--html", tmp_path / "p.html", "--data", binary],
                   "none of the ranked policies")
    _ok(["report", rank_json, "--html", tmp_path / "p.html", "--data", wide])
    check = tmp_path / "check.json"
    res = runner.invoke(app, ["check", str(wide), "--claim", "c>a", "--json"])
    assert res.exit_code == 0, res.output
    check.write_text(res.stdout)
    _fails_cleanly(["report", check, "--html", tmp_path / "c.html", "--data", wide], "adds nothing", "check")
    _ok(["report", check, "--html", tmp_path / "c.html"])


@pytest.mark.parametrize("args", [
    ["inspect", "{wide}"], ["rank", "{wide}"], ["rank", "{wide}", "--shuffle", "3"], ["rank", "{prefs}"],
    ["rank", "{long}", "--group-by", "site"], ["compare", "{wide}", "--a", "a", "--b", "c"],
    ["leaderboard", "{panel}", "--top-k", "1"], ["baseline", "bt", "{wide}"], ["check", "{wide}", "--claim", "c>a"],
])
def test_every_json_parses_and_makes_a_page(args, wide, prefs, long_groups, panel, tmp_path):
    paths = {"wide": wide, "prefs": prefs, "long": long_groups, "panel": panel}
    res = runner.invoke(app, [a.format(**paths) for a in args] + ["--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert isinstance(out.get("kind"), str)
    (tmp_path / "r.json").write_text(res.stdout)
    page = json.loads(_ok(["report", tmp_path / "r.json", "--html", tmp_path / "r.html", "--json"]))
    assert page["kind"] == out["kind"] and (tmp_path / "r.html").stat().st_size > 500


# ----------------------------------------------------------------------------- reproducibility

def test_seeded_runs_repeat(wide):
    first = _ok(["rank", wide, "--shuffle", "7", "--json"])
    assert first == _ok(["rank", wide, "--shuffle", "7", "--json"])
    boot = ["baseline", "bt-bootstrap", wide, "--seed", "4", "--n-boot", "30", "--json"]
    assert _ok(boot) == _ok(boot)
