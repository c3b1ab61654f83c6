"""`--markdown` on a 100-model board fits in a GitHub comment (issue 32, item 5: at most 60,000 characters).

A report that would be longer is shortened: the summary, the top rows, the certified relations that matter and
the guarantee stay; the other rows and the undecided pairs are folded into `<details>` as far as they fit, and the
report says how many it left out. A `check` report keeps every failing claim.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from certirank.methods.check import CheckResult
from certirank.order.result import make_ranking
from certirank.report.markdown import MAX_CHARS, TOP_ROWS, ranking_markdown, to_markdown

L = 100
NAMES = [f"example-org-{i:03d}/assistant-model-{i:03d}-instruct-2026-preview" for i in range(L)]
ROW = re.compile(r"^\| (\d+) \| ")


def _listed_pairs(md: str, joiner: str) -> set[tuple[int, int]]:
    """The (rank, rank) pairs of the "- #3 name <joiner> #12–#20, #25" list items."""
    out = set()
    for line in md.splitlines():
        m = re.match(rf"^- #(\d+) .* {joiner} ((?:#\d+(?:–#\d+)?(?:, )?)+)$", line)
        if m:
            for run in m[2].split(", "):
                lo, _, hi = run.partition("–")
                out |= {(int(m[1]), k) for k in range(int(lo[1:]), int((hi or lo)[1:]) + 1)}
    return out


def _as_ranks(r, pairs) -> set[tuple[int, int]]:
    pos = {n: i for i, n in enumerate(r.names, start=1)}
    return {(pos[a], pos[b]) for a, b in pairs}


def _rows_accounted(md: str) -> tuple[list[int], int]:
    shown = [int(m[1]) for m in map(ROW.match, md.splitlines()) if m]
    left = re.search(r"\((\d+) more rows left out\.\)", md)
    return shown, int(left[1]) if left else 0


def _board(tmp_path, items: int = 150):
    rng = np.random.default_rng(32)
    acc = np.linspace(0.95, 0.3, L)
    scores = rng.random((L, items)) < acc[:, None]
    rows = [(NAMES[m], f"item{i}", int(scores[m, i])) for m in range(L) for i in range(items)]
    path = tmp_path / "board.csv"
    pd.DataFrame(rows, columns=["policy", "env", "score"]).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("name_length", [60, 600])
def test_worst_case_rankings_fit_and_count_what_they_leave_out(name_length: int) -> None:
    # certified relations that need not chain (preference-like), every other pair: no rank runs to merge
    names = [f"{i:03d}-" + "x" * (name_length - 4) for i in range(L)]
    rels = [(names[i], names[j]) for i in range(L) for j in range(i + 1, L) if (i + j) % 2]
    r = make_ranking(names, rels, kind="bt", alpha=0.05, guarantee="FWER <= 0.05.",
                     means=list(np.linspace(0.9, 0.1, L)), n=[400] * L, closure=False)
    assert len("\n".join(r.sentences())) > 3 * MAX_CHARS  # the unshortened report could not be posted
    md = ranking_markdown(r, n_label="trials")
    assert len(md) <= MAX_CHARS
    shown, left = _rows_accounted(md)
    assert len(shown) + left == L and shown[:TOP_ROWS] == list(range(1, TOP_ROWS + 1))
    listed, certified = _listed_pairs(md, "is better than"), _as_ranks(r, [(x.better, x.worse) for x in r.relations])
    m = re.search(r"certified relations of (\d+) more policies left out", md)
    if m is None:  # everything fits
        assert listed == certified and left == 0 and name_length == 60
    else:  # as many policies' relations as fit, each line whole, and the count of the others
        assert listed < certified and name_length == 600
        assert len({a for a, _ in listed}) + int(m[1]) == len({a for a, _ in certified})
        assert {(a, b) for a, b in certified if a in {x for x, _ in listed}} == listed


def test_check_markdown_keeps_every_failing_claim() -> None:
    rng = np.random.default_rng(5)
    claims = []
    for k in range(3000):
        a, b = rng.choice(L, 2, replace=False)
        status = ("certified", "not certified", "certified the other way")[0 if k % 40 else 1 + (k // 40) % 2]
        claims.append({"claim": f"{NAMES[a]}>{NAMES[b]}", "better": NAMES[a], "worse": NAMES[b], "status": status,
                       "pvalue": 0.01, "p_claim": 0.01, "p_reverse": 1.0, "pairs": 150, "mean_better": 0.7,
                       "mean_worse": 0.5})
    from certirank.order.result import make_ranking
    ranking = make_ranking(list(NAMES), [], kind="check", alpha=0.05, guarantee="Holm over all claims.",
                           closure=False, about="policy")
    res = CheckResult(claims=claims, alpha=0.05, ranking=ranking, exit_code=3, statement="Holm over all claims.")
    md = to_markdown(res, title="certirank check: board.csv")
    assert len(md) <= MAX_CHARS
    failing = [c for c in claims if c["status"] != "certified"]
    body = md.split("**Failing claims**")[1].split("<details>")[0]
    cells = [f"| {c['claim']} | {c['status']} |".replace(">", "\\>") for c in failing]  # the cell escapes '>'
    assert all(cell in body for cell in cells)
    assert [ln.split(" | ")[1] for ln in body.splitlines() if ln.startswith("| example")][:5] == \
        ["certified the other way"] * 5  # the worst verdicts first
    m = re.search(r"(\d+) certified ones are folded below; (\d+) certified claim\(s\) left out", md)
    assert m and int(m[1]) + int(m[2]) == len(claims) - len(failing)


def test_small_reports_are_not_shortened() -> None:
    r = make_ranking(["a", "b", "c", "d"], [("a", "c"), ("b", "d")], kind="anyrank", alpha=0.05, guarantee="g",
                     means=[0.9, 0.8, 0.3, 0.2])
    md = ranking_markdown(r)
    assert "<details>" not in md and "Shortened" not in md and "- a is better than c" in md
