"""`certirank report`: pages from a result's JSON, and the paths and data it checks before writing."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from certirank.order import Ranking

from test_ranking import _prefs, _scores_long, _wide
from test_report import _rank_result, parse_page, svg_texts


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


@pytest.fixture()
def wide_csv(tmp_path):
    df, _ = _rank_result()
    path = tmp_path / "trials.csv"
    df.to_csv(path, index=False)
    return path


def test_cli_rank_plot_then_report(cli, tmp_path, wide_csv):
    svg = tmp_path / "rank.svg"
    res = cli(["rank", str(wide_csv), "--alpha", "0.1", "--json", "--plot", str(svg)])
    assert res.exit_code == 0, res.output
    result = json.loads(res.stdout)  # --json output stays pure JSON with --plot
    texts = svg_texts(svg.read_text())
    for name, let in ((p["name"], p["letters"]) for p in result["ranking"]["policies"]):
        assert name in "".join(texts) and let in texts
    rj = tmp_path / "rank.json"
    rj.write_text(res.stdout)
    page = tmp_path / "page.html"
    res = cli(["report", str(rj), "--html", str(page), "--data", str(wide_csv), "--json"])
    assert res.exit_code == 0, res.output
    info = json.loads(res.stdout)
    assert info["details"]["page"] == "rank" and "scores" in info["details"]["sections"]
    parse_page(page.read_text())


def test_cli_leaderboard_and_simulate_plot(cli, tmp_path):
    rng = np.random.default_rng(5)
    rows = [{"model": f"m{l}", "item": f"i{i}", "replicate": r, "score": float(rng.random() < 0.2 + 0.2 * l)}
            for r in range(2) for i in range(60) for l in range(3)]
    data = tmp_path / "lb.csv"
    pd.DataFrame(rows).to_csv(data, index=False)
    png = tmp_path / "lb.png"
    res = cli(["leaderboard", str(data), "--plot", str(png)])
    assert res.exit_code == 0, res.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = tmp_path / "sim.svg"
    res = cli(["simulate", "HO-I", "-n", "2", "-p", "n_max=150", "--plot", str(svg)])
    assert res.exit_code == 0, res.output
    assert "anyrank0" in svg_texts(svg.read_text())


def test_cli_report_errors(cli, tmp_path, wide_csv):
    bad = tmp_path / "x.json"
    bad.write_text("[1, 2]")
    res = cli(["report", str(bad), "--html", str(tmp_path / "o.html")])
    assert res.exit_code == 2 and "JSON object" in res.output
    res = cli(["report", str(tmp_path / "missing.json"), "--html", str(tmp_path / "o.html")])
    assert res.exit_code == 2
    good = tmp_path / "c.json"
    good.write_text(json.dumps({"decision": None, "pvalue": 1.0, "decided_at": None, "n": 3}))
    res = cli(["report", str(good), "--html", str(tmp_path / "o.txt")])
    assert res.exit_code == 2 and ".html" in res.output
    res = cli(["rank", str(wide_csv), "--plot", str(tmp_path / "f.jpg")])
    assert res.exit_code == 2 and ".png or .svg" in res.output


def _json(cli, args, tmp_path, name):
    res = cli([*args, "--json"])
    assert res.exit_code == 0, res.output
    path = tmp_path / f"{name}.json"
    path.write_text(res.stdout)
    return path, json.loads(res.stdout)


def test_report_html_on_the_json_of_every_command(cli, tmp_path):
    wide = tmp_path / "wide.csv"
    _wide().to_csv(wide, index=False)
    lb = tmp_path / "lb.csv"
    _scores_long().to_csv(lb, index=False)
    matrix = tmp_path / "matrix.csv"
    rng = np.random.default_rng(3)
    pd.DataFrame(rng.random((6, 8)), index=[f"t{i}" for i in range(6)],
                 columns=[f"p{j}" for j in range(8)]).rename_axis("test_case").reset_index().to_csv(matrix, index=False)
    commands = {
        "rank": ["rank", str(wide)],
        "demo": ["demo"],
        "leaderboard": ["leaderboard", str(lb)],
        "baseline": ["baseline", "bt", str(_prefs(tmp_path))],
        "compare": ["compare", str(wide), "--a", "good", "--b", "mid"],
        "simulate": ["simulate", "HO-I", "-n", "2", "-p", "n_max=100"],
        "compose-test": ["compose-test", str(matrix), "--size", "2", "--rounds", "20"],
        "inspect": ["inspect", str(wide)],
    }
    # rank's other results: a shuffled replay, a preference graph (battle data) and a --group-by run
    grouped = tmp_path / "grouped.csv"
    long = _wide(n=80).reset_index().melt(id_vars="index", var_name="policy", value_name="score")
    long.assign(env=long["index"], half=np.where(long["index"] % 2 == 0, "even", "odd")).drop(
        columns="index").to_csv(grouped, index=False)
    commands.update({"table-rank": ["rank", str(wide), "--shuffle", "3"],
                     "preference-graph": ["rank", str(_prefs(tmp_path))],
                     "grouped": ["rank", str(grouped), "--group-by", "half"]})
    for kind, args in commands.items():
        path, d = _json(cli, args, tmp_path, kind)
        assert d["kind"] == kind
        page = tmp_path / f"{kind}.html"
        res = cli(["report", str(path), "--html", str(page), "--json"])
        assert res.exit_code == 0, (kind, res.output)
        info = json.loads(res.stdout)
        assert info["details"]["page"] == kind and page.read_text().startswith("<!DOCTYPE html>")
        if d["ranking"] is not None and kind != "compare":  # a comparison has a page of its own
            assert {"graph", "summary", "decisions"} <= set(info["details"]["sections"]), kind
            r = Ranking.from_dict(d["ranking"])
            text = page.read_text()
            assert all(f"<td class=\"l\">{p.name}</td>" in text for p in r.policies), kind
        if kind == "grouped":
            assert {"summary", "g0-summary", "g0-graph", "g1-decisions"} <= set(info["details"]["sections"])
        if kind == "preference-graph":
            assert "battles" in info["details"]["sections"]
    # a command without a page of its own (here check) still gets a page, chosen by its kind
    check_path, d = _json(cli, ["check", str(wide), "--claim", "good>bad"], tmp_path, "check")
    assert d["kind"] == "check"
    res = cli(["report", str(check_path), "--html", str(tmp_path / "check.html"), "--json"])
    assert res.exit_code == 0, res.output
    # a bare certirank.ranking/1 object is a page of its own
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(json.loads((tmp_path / "rank.json").read_text())["ranking"]))
    res = cli(["report", str(bare), "--html", str(tmp_path / "bare.html"), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["details"]["page"] == "ranking"
