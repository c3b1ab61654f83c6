"""`certirank leaderboard` command (typer CliRunner)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from certirank.cli import app
from certirank.methods.bbedge import leaderboard
from certirank.sim.bbedge_dgp import bbedge_panels
from _records import flat

runner = CliRunner()


@pytest.fixture()
def small_csv(tmp_path):
    p = np.repeat([[0.9], [0.6], [0.55], [0.2]], 40, axis=1)
    P = bbedge_panels(3, "iid", L=4, N=40, R=4, block_size=5, p=p)
    rows = [(f"M{l}", f"q{i}", r + 1, i // 5, P[r, l, i]) for r in range(4) for l in range(4) for i in range(40)]
    path = tmp_path / "board.csv"
    pd.DataFrame(rows, columns=["model", "item", "replicate", "block", "score"]).to_csv(path, index=False)
    return path


def test_json_output_equals_result_to_dict(small_csv):
    out = runner.invoke(app, ["leaderboard", str(small_csv), "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data == json.loads(json.dumps(leaderboard(small_csv).to_dict()))
    data = flat(data)
    assert data["blocks"]["resolution"] == "protocol"  # the file has a block column
    assert data["blocks"]["source"].startswith("default")
    assert data["replicates"] == 4


def test_human_output_has_table_and_block_statement(small_csv):
    out = runner.invoke(app, ["leaderboard", str(small_csv), "--blocks", "items", "--top-k", "1"])
    assert out.exit_code == 0, out.output
    text = " ".join(out.output.split())
    assert "rank" in text and "letters" in text and "M0" in text and "pairs certified" in text
    assert "one block per item" in text and "--blocks replicate" in text
    assert "Top-1" in text


def test_options_reach_the_method(small_csv):
    res = flat(json.loads(runner.invoke(app, ["leaderboard", str(small_csv), "--json", "--alpha", "0.1", "--tau",
                                              "0.02", "--blocks", "replicate", "--top-k", "2", "--pilot",
                                              "2"]).output))
    assert res["alpha"] == 0.1 and res["tau"] == 0.02
    assert res["blocks"]["resolution"] == "replicate"
    assert res["top_k"]["k"] == 2 and res["top_k"]["method"] == "pilot" and res["top_k"]["pilot_replicates"] == 2
    assert res["stages"][0]["directions"] == 2 * 2


def test_graph_output(small_csv):
    out = runner.invoke(app, ["leaderboard", str(small_csv), "--graph", "dot"])
    assert out.exit_code == 0 and "digraph certirank {" in out.output
    out = runner.invoke(app, ["leaderboard", str(small_csv), "--graph", "mermaid"])
    assert out.exit_code == 0 and "flowchart TD" in out.output


def test_stake_option_reaches_the_result(small_csv):
    got = {}
    for stake in ("grid", "plugin-eb", "plugin"):
        out = runner.invoke(app, ["leaderboard", str(small_csv), "--json", "--stake", stake])
        assert out.exit_code == 0, out.output
        got[stake] = json.loads(out.output)
        assert got[stake]["inputs"]["stake"] == stake
        assert got[stake] == json.loads(json.dumps(leaderboard(small_csv, stake=stake).to_dict()))
    default = json.loads(runner.invoke(app, ["leaderboard", str(small_csv), "--json"]).output)
    assert default == got["plugin"]  # the engine's default, not a second default in the CLI
    evidence = {k: [d["evidence"] for d in v["ranking"]["relations"]] for k, v in got.items()}
    assert evidence["grid"] and evidence["grid"] != evidence["plugin"]  # the stake changed the e-values too


def test_stake_help_names_every_allowed_value():
    from certirank.methods.bbedge.core import STAKES
    help_text = " ".join(runner.invoke(app, ["leaderboard", "--help"], env={"COLUMNS": "200"}).output.split())
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
def test_bad_options_exit_2_with_one_line(small_csv, args, msg):
    out = runner.invoke(app, ["leaderboard", str(small_csv), *args])
    assert out.exit_code == 2
    assert msg in out.output
    assert "Traceback" not in out.output


def test_incomplete_panel_exits_2(tmp_path, small_csv):
    df = pd.read_csv(small_csv)
    df = df.drop(index=df.index[(df["model"] == "M2") & (df["item"] == "q3") & (df["replicate"] == 3)])
    path = tmp_path / "holes.csv"
    df.to_csv(path, index=False)
    out = runner.invoke(app, ["leaderboard", str(path)])
    assert out.exit_code == 2
    assert "'M2' is missing item 'q3'" in out.output


def test_gsm8k_single_run(shared_data):
    out = runner.invoke(app, ["leaderboard", str(shared_data / "llm" / "helm_lite_gsm8k.csv"), "--json"])
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
    out = runner.invoke(app, ["leaderboard", str(shared_data / "llm" / "helm_lite_gsm8k.csv"), "--json",
                              "--blocks", "replicate"])
    assert json.loads(out.stdout)["ranking"]["relations"] == []  # one run, one block: nothing can be certified
