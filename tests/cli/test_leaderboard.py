"""`certirank leaderboard`: BB-EDGE from the command line (JSON = the API's record, options, graph, errors,
Markdown, the items to score next)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from markdown_it import MarkdownIt

import certirank
from certirank.methods.bbedge import leaderboard
from certirank.report.markdown import MAX_CHARS, TOP_ROWS

from _records import flat
from test_check_markdown import _tables
from test_leaderboard_item_tables import _board
from test_markdown_fits import L, NAMES, ROW, _as_ranks, _listed_pairs, _rows_accounted
from test_markdown_fits import _board as _board_of_100_models


def test_json_output_equals_result_to_dict(cli, board):
    out = cli(["leaderboard", str(board), "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data == json.loads(json.dumps(leaderboard(board).to_dict()))
    data = flat(data)
    assert data["blocks"]["resolution"] == "protocol"  # the file has a block column
    assert data["blocks"]["source"].startswith("default")
    assert data["replicates"] == 4


def test_human_output_has_table_and_block_statement(cli, board):
    out = cli(["leaderboard", str(board), "--blocks", "items", "--top-k", "1"])
    assert out.exit_code == 0, out.output
    text = " ".join(out.output.split())
    assert "rank" in text and "letters" in text and "M0" in text and "pairs certified" in text
    assert "one block per item" in text and "--blocks replicate" in text
    assert "Top-1" in text


def test_options_reach_the_method(cli, board):
    res = flat(json.loads(cli(["leaderboard", str(board), "--json", "--alpha", "0.1", "--tau",
                               "0.02", "--blocks", "replicate", "--top-k", "2", "--pilot",
                               "2"]).output))
    assert res["alpha"] == 0.1 and res["tau"] == 0.02
    assert res["blocks"]["resolution"] == "replicate"
    assert res["top_k"]["k"] == 2 and res["top_k"]["method"] == "pilot" and res["top_k"]["pilot_replicates"] == 2
    assert res["stages"][0]["directions"] == 2 * 2


def test_graph_output(cli, board):
    out = cli(["leaderboard", str(board), "--graph", "dot"])
    assert out.exit_code == 0 and "digraph certirank {" in out.output
    out = cli(["leaderboard", str(board), "--graph", "mermaid"])
    assert out.exit_code == 0 and "flowchart TD" in out.output


def test_stake_option_reaches_the_result(cli, board):
    got = {}
    for stake in ("grid", "plugin-eb", "plugin"):
        out = cli(["leaderboard", str(board), "--json", "--stake", stake])
        assert out.exit_code == 0, out.output
        got[stake] = json.loads(out.output)
        assert got[stake]["inputs"]["stake"] == stake
        assert got[stake] == json.loads(json.dumps(leaderboard(board, stake=stake).to_dict()))
    default = json.loads(cli(["leaderboard", str(board), "--json"]).output)
    assert default == got["plugin"]  # the engine's default, not a second default in the CLI
    evidence = {k: [d["evidence"] for d in v["ranking"]["relations"]] for k, v in got.items()}
    assert evidence["grid"] and evidence["grid"] != evidence["plugin"]  # the stake changed the e-values too


def test_stake_help_names_every_allowed_value(cli):
    from certirank.methods.bbedge.core import STAKES
    help_text = " ".join(cli(["leaderboard", "--help"], env={"COLUMNS": "200"}).output.split())
    assert all(v in help_text for v in STAKES), help_text


@pytest.mark.parametrize("args, msg", [
    (["--stake", "nope"], "stake must be one of plugin, plugin-eb, grid (or None), got 'nope'"),
    (["--stake", "plugin", "--method", "bfh-e-holm"], "has its own stake rule"),
    (["--tau", "-0.1"], "tau"),
    (["--blocks", "nope"], "blocks column 'nope' not found"),
    (["--graph", "png"], "graph"),
    (["--pilot", "2"], "pilot (--pilot) needs top_k (--top-k)"),
    (["--top-k", "9"], "top_k"),
])
def test_bad_options_exit_2_with_one_line(cli, board, args, msg):
    out = cli(["leaderboard", str(board), *args])
    assert out.exit_code == 2
    assert msg in out.output
    assert "Traceback" not in out.output


def test_incomplete_panel_exits_2(cli, tmp_path, board):
    df = pd.read_csv(board)
    df = df.drop(index=df.index[(df["model"] == "M2") & (df["item"] == "q3") & (df["replicate"] == 3)])
    path = tmp_path / "holes.csv"
    df.to_csv(path, index=False)
    out = cli(["leaderboard", str(path)])
    assert out.exit_code == 2
    assert "'M2' is missing item 'q3'" in out.output


def test_gsm8k_single_run(cli, shared_data):
    out = cli(["leaderboard", str(shared_data / "llm" / "helm_lite_gsm8k.csv"), "--json"])
    assert out.exit_code == 0, out.output[-500:]
    res = json.loads(out.stdout)
    rk = res["ranking"]
    # one run per item: the claims are about the models on items like these (spec 09 §2), said in one line
    assert res["about"] == "policy" and any("one run per item" in w for w in res["warnings"])
    assert res["details"]["replicates"] == 1 and len(rk["policies"]) == 83
    assert res["details"]["blocks"]["resolution"] == "singleton"
    # edges point from a higher single-run mean to a lower one (a single run: the estimate is the evidence)
    mean = {m["name"]: m["mean"] for m in rk["policies"]}
    edges = [(e["better"], e["worse"]) for e in rk["relations"] if e["via"] == "test"]
    assert edges and all(mean[a] > mean[b] for a, b in edges)
    assert not rk["inconsistent"]
    out = cli(["leaderboard", str(shared_data / "llm" / "helm_lite_gsm8k.csv"), "--json",
               "--blocks", "replicate"])
    assert json.loads(out.stdout)["ranking"]["relations"] == []  # one run, one block: nothing can be certified


def test_leaderboard_group_by_refuses_graph_and_plot(cli, panel, tmp_path):
    cli.fails(["leaderboard", panel, "--group-by", "split", "--graph", "dot"], "--graph", "--group-by")
    cli.fails(["leaderboard", panel, "--group-by", "split", "--plot", tmp_path / "g.svg"], "--plot")
    assert not (tmp_path / "g.svg").exists()


def test_leaderboard_json_carries_the_graph_text(cli, panel):
    text = cli.ok(["leaderboard", panel, "--graph", "mermaid"])
    out = json.loads(cli.ok(["leaderboard", panel, "--graph", "mermaid", "--json"]))
    assert out["details"]["graph"]["format"] == "mermaid"
    assert out["details"]["graph"]["text"].strip() and out["details"]["graph"]["text"].strip() in text
    assert "graph" not in json.loads(cli.ok(["leaderboard", panel, "--json"]))["details"]


def test_leaderboard_on_preference_file_is_a_clear_error(cli, prefs):
    # was: KeyError 'env' traceback
    cli.refuses(["leaderboard", str(prefs)], "preferences", "baseline")


def test_leaderboard_lists_edges_undecided_pairs_and_guarantee(cli, panel_tied):
    res = cli(["leaderboard", str(panel_tied)], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    out = json.loads(cli(["leaderboard", str(panel_tied), "--json"]).stdout)
    edges = [[r["better"], r["worse"]] for r in out["ranking"]["relations"] if r["via"] == "test"]
    for better, worse in edges:
        assert f"{better} is better than {worse}" in res.output
    assert ["m0", "m1"] not in edges and ["m1", "m0"] not in edges
    assert "Undecided" in res.output and ("m0 vs m1" in res.output or "m1 vs m0" in res.output)
    assert "Guarantee" in res.output and "95%" in res.output


def test_markdown_leaderboard_rank_intervals(cli, tmp_path):
    rng = np.random.default_rng(3)
    rows = [(m, f"item{i}", r, float(rng.random() < p)) for r in range(3) for m, p in (("A", 0.9), ("B", 0.3))
            for i in range(100)]
    path = tmp_path / "lb.csv"
    pd.DataFrame(rows, columns=["policy", "env", "replicate", "score"]).to_csv(path, index=False)
    md = cli(["leaderboard", str(path), "--markdown"])
    js = cli(["leaderboard", str(path), "--json"])
    assert md.exit_code == 0 and js.exit_code == 0, md.stderr
    result = json.loads(js.stdout)
    (table,) = _tables(md.stdout)
    got = {r[1]: r[4] for r in table[1:]}
    assert got == {m["name"]: f"[{m['rank_lo']}, {m['rank_hi']}]" for m in result["ranking"]["policies"]}
    assert got == {"A": "[1, 1]", "B": "[2, 2]"}


def test_cli_json_names_the_test(cli, tmp_path):
    path = tmp_path / "board.csv"
    _board(4).to_csv(path, index=False)
    out = cli(["leaderboard", str(path), "--json"])
    assert out.exit_code == 0, out.output
    rec = json.loads(out.stdout)
    assert rec["kind"] == "leaderboard" and rec["inputs"]["method"] == "exact-budget"
    assert any("exact budget test" in w for w in rec["warnings"])
    text = cli(["leaderboard", str(path)])
    assert text.exit_code == 0 and "exact-budget" in text.output and "stake" not in text.output.splitlines()[0]


# --suggest-items K [--seed S]: the API's `LeaderboardResult.suggest_items` printed, and in `--json` under
# `details.suggested_items` (issue 35 item 4)

def test_json_is_the_api_suggestion(cli, board):
    d = json.loads(cli.ok(["leaderboard", board, "--suggest-items", "6", "--seed", "4", "--json"]))
    api = certirank.leaderboard(certirank.load(board)).suggest_items(6, seed=4).to_dict()
    assert d["details"]["suggested_items"] == api
    assert d["kind"] == "leaderboard" and len(api["items"]) == 6
    open_pairs = {tuple(sorted(p)) for p in d["ranking"]["undecided"]}
    assert {tuple(sorted(p)) for p in api["undecided"]} == open_pairs


def test_the_text_lists_each_item_with_its_probability(cli, board):
    out = cli.ok(["leaderboard", board, "--suggest-items", "3"])
    api = certirank.leaderboard(certirank.load(board)).suggest_items(3, seed=0)
    assert "Items to score next (3 drawn with replacement, seed 0" in out or "Every pair is decided" in out
    for e in api.items:
        assert f"item {e['item']}: probability {e['probability']:.4g}" in out
    assert "a suggestion is a design choice, not evidence" in out


def test_markdown_lists_the_items(cli, scores):
    out = cli.ok(["leaderboard", scores, "--suggest-items", "2", "--markdown"])
    api = certirank.leaderboard(certirank.load(scores)).suggest_items(2, seed=0)
    for e in api.items:
        assert f"- " in out and f"item {e['item']}: probability" in out


def test_refusals_are_one_line(cli, board, long_groups):
    cli.fails(["leaderboard", board, "--seed", "3"], "--seed", "--suggest-items")
    cli.refuses(["leaderboard", board, "--suggest-items", "0"], "--suggest-items")
    cli.refuses(["leaderboard", board, "--suggest-items", "2", "--seed", "-1"], "--seed")
    cli.fails(["leaderboard", long_groups, "--group-by", "site", "--suggest-items", "2"], "--group-by")


def test_leaderboard_markdown_of_a_100_model_board_fits_and_keeps_what_matters(cli, tmp_path) -> None:
    import certirank
    from certirank.data.readers import load

    path = _board_of_100_models(tmp_path)
    res = cli(["leaderboard", str(path), "--markdown"])
    assert res.exit_code == 0, res.output
    md = res.stdout
    assert len(md) <= MAX_CHARS
    assert "Shortened to fit a GitHub comment" in md and "<details>" in md
    MarkdownIt("gfm-like").parse(md)  # well-formed enough to parse
    shown, left = _rows_accounted(md)
    assert shown[:TOP_ROWS] == list(range(1, TOP_ROWS + 1)) and len(shown) + left == L
    assert len(set(shown)) == len(shown)
    # every certified relation and every undecided pair is listed (by rank), nothing is left out
    r = certirank.leaderboard(load(path)).ranking
    assert r.names[:3] == tuple(ln.split(" | ")[1] for ln in md.splitlines() if ROW.match(ln))[:3]
    assert _listed_pairs(md, "is better than") == _as_ranks(r, [(x.better, x.worse) for x in r.relations])
    assert _listed_pairs(md, "vs") == _as_ranks(r, r.undecided)
    assert "left out" not in md
    # the guarantee closes the report; the record's notes (which test ran, what was read) may follow as quotes
    assert "> **Guarantee.**" in md and all(ln.startswith("> ") for ln in
                                            md.rstrip().split("> **Guarantee.**")[1].splitlines()[1:] if ln)
