"""`certirank check`: the CI gate's exit codes (0 certified, 1 not yet, 3 certified the other way) on every input
kind (tables, lm-eval and Inspect logs, a campaign file, where they agree with the campaign's own certified
ranking), its one-line refusals (bad claims and names, an edited campaign, a database that is not a campaign)
and its Markdown report."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pandas as pd
import pytest
from markdown_it import MarkdownIt

import certirank
from certirank.campaign import Campaign
from certirank.errors import ParameterError
from certirank.methods.check import parse_claim
from certirank.report.markdown import MAX_CHARS

from _records import flat
from test_check_markdown import N_ITEMS, _scores, _tables, _write_long
from test_inspect_audit import _long
from test_markdown_fits import NAMES, _board

MEANS = {"A": 0.9, "B": 0.2, "C": 0.88}


def _campaign(tmp_path):
    c = Campaign.init(tmp_path / "lab.campaign", list(MEANS), alpha=0.1, n_max=60)
    rng = np.random.default_rng(19)
    for _ in range(200):
        todo = c.next()
        if not todo:
            break
        for s in todo:
            c.record(s.policy, s.trial, float(rng.random() < MEANS[s.policy]))
    st = c.status()
    # the fixture this test needs: A>B and C>B certified, A vs C open
    assert st.ranking.better("A", "B") and st.ranking.better("C", "B")
    assert not st.ranking.better("A", "C") and not st.ranking.better("C", "A")
    c.close()
    return tmp_path / "lab.campaign"


def test_exit_codes_agree_with_the_campaign(cli, tmp_path):
    db = _campaign(tmp_path)
    for claim, code, status in (("A>B", 0, "certified"), ("A>C", 1, "not certified"),
                                ("B>A", 3, "certified the other way")):
        res = cli(["check", str(db), "--claim", claim])
        assert res.exit_code == code, (claim, res.stdout, res.stderr)
        assert [ln for ln in res.stdout.splitlines() if ln.startswith(f"{claim}: {status} ")], res.stdout
    out = certirank.check(db, ["A>B", "C>B", "A<C"])
    assert [c["status"] for c in out.claims] == ["certified", "certified", "not certified"]
    assert out.alpha == 0.1 and out.exit_code == 1
    res = cli(["check", str(db), "--claim", "A>B", "--json"])
    assert json.loads(res.stdout)["details"]["claims"][0]["status"] == "certified"
    # a smaller alpha than the locked one is refused; options that do not apply are refused
    assert cli(["check", str(db), "--claim", "A>B", "--alpha", "0.05"]).exit_code == 2
    assert cli(["check", str(db), "--claim", "A>B", "--bettor", "kelly"]).exit_code == 2
    res = cli(["check", str(db), "--claim", "A>Z"])
    assert res.exit_code == 2 and "'Z' is not in campaign" in res.stderr


def test_tampered_campaign_is_refused(cli, tmp_path):
    db = _campaign(tmp_path)
    con = sqlite3.connect(db)
    con.execute("UPDATE records SET score = 1.0 - score WHERE id = 2")
    con.commit()
    con.close()
    res = cli(["check", str(db), "--claim", "A>B"])
    assert res.exit_code == 2 and "failed verification" in res.stderr and "hash chain" in res.stderr
    assert "Traceback" not in res.stderr


def test_markdown_on_a_campaign(cli, tmp_path):
    db = _campaign(tmp_path)
    res = cli(["check", str(db), "--claim", "A>B", "--claim", "A>C", "--markdown"])
    assert res.exit_code == 1, res.stderr
    from test_check_markdown import _tables
    (table,) = _tables(res.stdout)
    assert table[0][:2] == ["claim", "status"]
    assert [r[:2] for r in table[1:]] == [["A>B", "certified"], ["A>C", "not certified"]]
    tokens = MarkdownIt("commonmark").enable("table").parse(res.stdout)
    assert sum(t.type == "blockquote_open" for t in tokens) == 1


def _write_lm_eval(root):
    out = root / "lm_eval_out"
    for model, s in _scores().items():
        folder = out / model
        folder.mkdir(parents=True)
        lines = [json.dumps({"doc_id": i, "doc": {"q": f"question {i}"}, "target": "0", "filter": "none",
                             "metrics": ["acc"], "acc": float(v)}) for i, v in enumerate(s)]
        (folder / "samples_arc_easy_2024-05-01T10-00-00.000001.jsonl").write_text("\n".join(lines) + "\n")
    return out


def _write_inspect(root):
    out = root / "inspect_logs"
    out.mkdir()
    for k, (model, s) in enumerate(_scores().items()):
        log = {"version": 2, "status": "success",
               "eval": {"task": "arith", "model": model, "dataset": {"samples": N_ITEMS, "shuffled": True}},
               "samples": [{"id": i + 1, "epoch": 1, "scores": {"match": {"value": "C" if v else "I"}}}
                           for i, v in enumerate(s)]}
        (out / f"2024-06-01T1{k}-00-00+00-00_arith_{model}.json").write_text(json.dumps(log))
    return out


WRITERS = {"long": _write_long, "lm-eval": _write_lm_eval, "inspect": _write_inspect}


@pytest.mark.parametrize("kind", list(WRITERS))
def test_exit_codes_on_every_input_kind(cli, tmp_path, kind):
    path = WRITERS[kind](tmp_path)
    for claim, code, status in (("A>B", 0, "certified"), ("A>C", 1, "not certified"),
                                ("B>A", 3, "certified the other way")):
        res = cli(["check", str(path), "--claim", claim])
        assert res.exit_code == code, (kind, claim, res.stdout, res.stderr)
        lines = [ln for ln in res.stdout.splitlines() if ln.startswith(claim + ":")]
        assert len(lines) == 1 and lines[0].startswith(f"{claim}: {status} "), res.stdout
    # several claims: one line each; the worst verdict sets the code; --json is the API's result
    res = cli(["check", str(path), "--claim", "A>B", "--claim", "C>B", "--claim", "A<C", "--json"])
    assert res.exit_code == 1
    out = flat(json.loads(res.stdout))
    assert [c["status"] for c in out["claims"]] == ["certified", "certified", "not certified"]
    assert out["claims"][2]["better"] == "C" and out["exit_code"] == 1


def test_sqlite_file_that_is_not_a_campaign(cli, tmp_path):
    """An SQLite file that is not a certirank campaign is refused in one line (the store's message), exit 2."""
    db = tmp_path / "campaign.db"
    db.write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)
    res = cli(["check", str(db), "--claim", "A>B"])
    assert res.exit_code == 2 and "error:" in res.stderr and "Traceback" not in res.stderr


def test_bad_claims_and_names(cli, tmp_path):
    path = _write_long(tmp_path)
    assert parse_claim(" A < B ") == ("B", "A")
    for bad in ("A>B>C", "AB", "A>A", ">B"):
        with pytest.raises(ParameterError):
            parse_claim(bad)
    res = cli(["check", str(path), "--claim", "A>Z"])
    assert res.exit_code == 2 and "'Z' not found" in res.stderr
    res = cli(["check", str(path), "--claim", "A>B", "--json", "--markdown"])
    assert res.exit_code == 2


def _headings_and_quotes(text: str) -> tuple[list[str], int]:
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    heads = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    return heads, sum(t.type == "blockquote_open" for t in tokens)


def test_markdown_check_and_compare_render(cli, tmp_path):
    path = _write_long(tmp_path)
    res = cli(["check", str(path), "--claim", "A>B", "--claim", "B>C", "--markdown"])
    assert res.exit_code == 3
    (table,) = _tables(res.stdout)
    assert table[0][:2] == ["claim", "status"]
    assert [r[:2] for r in table[1:]] == [["A>B", "certified"], ["B>C", "certified the other way"]]
    heads, quotes = _headings_and_quotes(res.stdout)
    # the guarantee, and the record's note saying which test ran (binary items: the exact budget test, spec 09 §6)
    assert heads and quotes == 2 and "Guarantee" in res.stdout and "exact budget test, N = 200" in res.stdout
    res = cli(["compare", str(path), "--a", "A", "--b", "B", "--markdown"])
    assert res.exit_code == 0
    (table,) = _tables(res.stdout)
    assert table[1][:3] == ["A", "B", str(N_ITEMS)]


@pytest.mark.parametrize("claims, code", [(["A>B"], 0), (["B<A"], 0), (["A>C"], 1), (["B>A"], 3),
                                          (["A>B", "A>C", "B>A"], 3), (["A>B", "A>C"], 1)])
def test_check_exit_codes(cli, tmp_path, claims, code):
    res = cli(["check", str(_long(tmp_path)), *[x for c in claims for x in ("--claim", c)]])
    assert res.exit_code == code, res.output


def test_check_line_names_each_mean_whichever_way_the_claim_is_written(cli, tmp_path):
    data = _long(tmp_path)
    means = pd.read_csv(data).groupby("policy")["score"].mean()
    for claim in ("A>B", "B<A"):
        out = " ".join(cli(["check", str(data), "--claim", claim]).output.split())
        assert f"means A {means['A']:.3f} vs B {means['B']:.3f})" in out


@pytest.mark.parametrize("claim, message", [
    ("A>>B", "one '>' or '<'"), ("A>B>C", "one '>' or '<'"), ("A=B", "one '>' or '<'"), ("", "one '>' or '<'"),
    ("A>", "must look like 'A>B'"), (">B", "must look like 'A>B'"), ("A>A", "compares 'A' with itself"),
    ("A>Z", "policy 'Z' not found; policies in the data: A, B, C"),
])
def test_check_malformed_claims_are_one_line_errors(cli, tmp_path, claim, message):
    res = cli(["check", str(_long(tmp_path)), "--claim", "A>B", "--claim", claim])
    assert res.exit_code == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], res.stderr


def test_check_markdown_on_the_100_model_board_is_unshortened_when_it_fits(cli, tmp_path) -> None:
    path = _board(tmp_path, items=60)
    args = ["check", str(path), "--markdown"]
    for i in range(0, 20, 2):
        args += ["--claim", f"{NAMES[i]}>{NAMES[i + 1]}"]
    res = cli(args)
    assert res.exit_code in (0, 1), res.output
    assert len(res.stdout) <= MAX_CHARS and "Shortened" not in res.stdout and res.stdout.count("| example-org") == 10
