"""`certirank check` (the CI gate) on every input kind, and the `--markdown` reports parsed back.

Every input kind holds the same three models on 200 items: A (accuracy ~0.85), B (~0.4) and C (~0.85, the
same as A). "A>B" is certified (exit 0), "A>C" cannot be (exit 1), "B>A" is certified the other way (exit 3).
"""

from __future__ import annotations


import numpy as np
import pandas as pd
from markdown_it import MarkdownIt

from certirank.methods.check import check

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


