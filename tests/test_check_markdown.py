"""`certirank check` (the CI gate) on every input kind, and the `--markdown` reports parsed back.

Every input kind holds the same three models on 200 items: A (accuracy ~0.85), B (~0.4) and C (~0.85, the
same as A). "A>B" is certified (exit 0), "A>C" cannot be (exit 1), "B>A" is certified the other way (exit 3).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from markdown_it import MarkdownIt
from typer.testing import CliRunner

from certirank.cli import app
from certirank.errors import ParameterError
from certirank.methods.check import check, parse_claim
from _records import flat

runner = CliRunner()
N_ITEMS = 200


def _scores() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(19)
    a = (rng.random(N_ITEMS) < 0.85).astype(float)
    b = (rng.random(N_ITEMS) < 0.4).astype(float)
    # C: A's answers with 10% of them swapped between right and wrong in pairs, so the means stay close
    c = a.copy()
    # as many right answers turned wrong as wrong turned right: the same mean, nothing to certify at any power
    c[rng.choice(np.flatnonzero(a == 1), 10, replace=False)] = 0.0
    c[rng.choice(np.flatnonzero(a == 0), 10, replace=False)] = 1.0
    return {"A": a, "B": b, "C": c}


def _write_long(root):
    rows = [(m, f"item{i}", v) for m, s in _scores().items() for i, v in enumerate(s)]
    path = root / "long.csv"
    pd.DataFrame(rows, columns=["policy", "env", "score"]).to_csv(path, index=False)
    return path


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
def test_exit_codes_on_every_input_kind(tmp_path, kind):
    path = WRITERS[kind](tmp_path)
    for claim, code, status in (("A>B", 0, "certified"), ("A>C", 1, "not certified"),
                                ("B>A", 3, "certified the other way")):
        res = runner.invoke(app, ["check", str(path), "--claim", claim])
        assert res.exit_code == code, (kind, claim, res.stdout, res.stderr)
        lines = [ln for ln in res.stdout.splitlines() if ln.startswith(claim + ":")]
        assert len(lines) == 1 and lines[0].startswith(f"{claim}: {status} "), res.stdout
    # several claims: one line each; the worst verdict sets the code; --json is the API's result
    res = runner.invoke(app, ["check", str(path), "--claim", "A>B", "--claim", "C>B", "--claim", "A<C", "--json"])
    assert res.exit_code == 1
    out = flat(json.loads(res.stdout))
    assert [c["status"] for c in out["claims"]] == ["certified", "certified", "not certified"]
    assert out["claims"][2]["better"] == "C" and out["exit_code"] == 1


def test_sqlite_file_that_is_not_a_campaign(tmp_path):
    """An SQLite file that is not a certirank campaign is refused in one line (the store's message), exit 2."""
    db = tmp_path / "campaign.db"
    db.write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)
    res = runner.invoke(app, ["check", str(db), "--claim", "A>B"])
    assert res.exit_code == 2 and "error:" in res.stderr and "Traceback" not in res.stderr


def test_bad_claims_and_names(tmp_path):
    path = _write_long(tmp_path)
    assert parse_claim(" A < B ") == ("B", "A")
    for bad in ("A>B>C", "AB", "A>A", ">B"):
        with pytest.raises(ParameterError):
            parse_claim(bad)
    res = runner.invoke(app, ["check", str(path), "--claim", "A>Z"])
    assert res.exit_code == 2 and "'Z' not found" in res.stderr
    res = runner.invoke(app, ["check", str(path), "--claim", "A>B", "--json", "--markdown"])
    assert res.exit_code == 2


def test_holm_over_claims_is_no_weaker_than_one_claim(tmp_path):
    path = _write_long(tmp_path)
    one = check(path, "A>B")
    many = check(path, ["A>B", "C>B", "A>C"])
    assert one.claims[0]["pvalue"] == many.claims[0]["pvalue"]
    assert "Holm over 3 claims" in many.statement


# ------------------------------------------------------------------------------------------- Markdown

def _tables(text: str) -> list[list[list[str]]]:
    """Every GFM table in `text` as rows of cell texts (header first), via markdown-it-py."""
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    tables, rows, row, cell = [], None, None, None
    for tok in tokens:
        if tok.type == "table_open":
            rows = []
        elif tok.type == "tr_open":
            row = []
        elif tok.type in ("th_open", "td_open"):
            cell = ""
        elif tok.type == "inline" and cell is not None:
            cell = "".join(c.content for c in tok.children if c.type in ("text", "code_inline"))
        elif tok.type in ("th_close", "td_close"):
            row.append(cell)
            cell = None
        elif tok.type == "tr_close":
            rows.append(row)
        elif tok.type == "table_close":
            tables.append(rows)
    return tables


def _headings_and_quotes(text: str) -> tuple[list[str], int]:
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    heads = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    return heads, sum(t.type == "blockquote_open" for t in tokens)


def test_markdown_check_and_compare_render(tmp_path):
    path = _write_long(tmp_path)
    res = runner.invoke(app, ["check", str(path), "--claim", "A>B", "--claim", "B>C", "--markdown"])
    assert res.exit_code == 3
    (table,) = _tables(res.stdout)
    assert table[0][:2] == ["claim", "status"]
    assert [r[:2] for r in table[1:]] == [["A>B", "certified"], ["B>C", "certified the other way"]]
    heads, quotes = _headings_and_quotes(res.stdout)
    # the guarantee, and the record's note saying which test ran (binary items: the exact budget test, spec 09 §6)
    assert heads and quotes == 2 and "Guarantee" in res.stdout and "exact budget test, N = 200" in res.stdout
    res = runner.invoke(app, ["compare", str(path), "--a", "A", "--b", "B", "--markdown"])
    assert res.exit_code == 0
    (table,) = _tables(res.stdout)
    assert table[1][:3] == ["A", "B", str(N_ITEMS)]


def test_markdown_rank_table_matches_the_json(tmp_path):
    path = _write_long(tmp_path)
    md = runner.invoke(app, ["rank", str(path), "--markdown"])
    js = runner.invoke(app, ["rank", str(path), "--json"])
    assert md.exit_code == 0 and js.exit_code == 0, md.stderr
    result = json.loads(js.stdout)
    (table,) = _tables(md.stdout)
    header, rows = table[0], table[1:]
    assert header == ["rank", "policy", "mean", "trials", "letters", "rank interval"]
    pols = result["ranking"]["policies"]
    assert {r[1]: r[4] for r in rows} == {p["name"]: p["letters"] for p in pols}
    assert [r[1] for r in rows] == [p["name"] for p in pols]
    assert {r[1]: int(r[3]) for r in rows} == {p["name"]: p["n"] for p in pols}
    # B is certified below both others: rank interval [3, 3]
    assert {r[1]: r[5] for r in rows}["B"] == "[3, 3]"
    assert "is better than B" in md.stdout and "Undecided" in md.stdout


def test_markdown_leaderboard_rank_intervals(tmp_path):
    rng = np.random.default_rng(3)
    rows = [(m, f"item{i}", r, float(rng.random() < p)) for r in range(3) for m, p in (("A", 0.9), ("B", 0.3))
            for i in range(100)]
    path = tmp_path / "lb.csv"
    pd.DataFrame(rows, columns=["policy", "env", "replicate", "score"]).to_csv(path, index=False)
    md = runner.invoke(app, ["leaderboard", str(path), "--markdown"])
    js = runner.invoke(app, ["leaderboard", str(path), "--json"])
    assert md.exit_code == 0 and js.exit_code == 0, md.stderr
    result = json.loads(js.stdout)
    (table,) = _tables(md.stdout)
    got = {r[1]: r[4] for r in table[1:]}
    assert got == {m["name"]: f"[{m['rank_lo']}, {m['rank_hi']}]" for m in result["ranking"]["policies"]}
    assert got == {"A": "[1, 1]", "B": "[2, 2]"}


def test_markdown_escapes_names_that_look_like_markup(tmp_path):
    rng = np.random.default_rng(1)
    names = {"gpt*4|mini": 0.9, "<b>x</b>": 0.2}
    rows = [(m, f"i{i}", float(rng.random() < p)) for m, p in names.items() for i in range(150)]
    path = tmp_path / "odd.csv"
    pd.DataFrame(rows, columns=["policy", "env", "score"]).to_csv(path, index=False)
    md = runner.invoke(app, ["rank", str(path), "--markdown"])
    assert md.exit_code == 0, md.stderr
    (table,) = _tables(md.stdout)
    assert sorted(r[1] for r in table[1:]) == sorted(names) and all(len(r) == 6 for r in table)
