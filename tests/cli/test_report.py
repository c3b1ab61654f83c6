"""`certirank report`: pages from a result's JSON, and the paths and data it checks before writing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.fixture
def rank_json(cli, wide, tmp_path) -> Path:
    path = tmp_path / "rank.json"
    path.write_text(cli.ok(["rank", wide, "--json"]))
    return path


def test_report_checks_its_paths_before_writing(cli, rank_json, tmp_path):
    html = tmp_path / "page.html"
    cli.fails(["report", rank_json, "--html", html, "--plot", tmp_path / "no" / "f.png"], "does not exist")
    cli.fails(["report", rank_json, "--html", html, "--plot", tmp_path / "f.pdf"], ".png or .svg")
    assert not html.exists()  # nothing half-done
    cli.fails(["report", rank_json, "--html", tmp_path / "no" / "page.html"], "does not exist")


def test_report_data_must_belong_to_the_result(cli, rank_json, wide, binary, tmp_path):
    cli.fails(["report", rank_json, "--html", tmp_path / "p.html", "--data", binary],
                   "none of the ranked policies")
    cli.ok(["report", rank_json, "--html", tmp_path / "p.html", "--data", wide])
    check = tmp_path / "check.json"
    res = cli(["check", str(wide), "--claim", "c>a", "--json"])
    assert res.exit_code == 0, res.output
    check.write_text(res.stdout)
    cli.fails(["report", check, "--html", tmp_path / "c.html", "--data", wide], "adds nothing", "check")
    cli.ok(["report", check, "--html", tmp_path / "c.html"])


@pytest.mark.parametrize("args", [
    ["inspect", "{wide}"], ["rank", "{wide}"], ["rank", "{wide}", "--shuffle", "3"], ["rank", "{prefs}"],
    ["rank", "{long}", "--group-by", "site"], ["compare", "{wide}", "--a", "a", "--b", "c"],
    ["leaderboard", "{panel}", "--top-k", "1"], ["baseline", "bt", "{wide}"], ["check", "{wide}", "--claim", "c>a"],
])
def test_every_json_parses_and_makes_a_page(cli, args, wide, prefs, long_groups, panel, tmp_path):
    paths = {"wide": wide, "prefs": prefs, "long": long_groups, "panel": panel}
    res = cli([a.format(**paths) for a in args] + ["--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert isinstance(out.get("kind"), str)
    (tmp_path / "r.json").write_text(res.stdout)
    page = json.loads(cli.ok(["report", tmp_path / "r.json", "--html", tmp_path / "r.html", "--json"]))
    assert page["details"]["page"] == out["kind"] and (tmp_path / "r.html").stat().st_size > 500
