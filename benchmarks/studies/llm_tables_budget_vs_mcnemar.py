"""On a whole single-run LLM item table, does the exact budget test certify as many pairs as McNemar + Holm?

Usage::

    .venv/bin/python benchmarks/studies/llm_tables_budget_vs_mcnemar.py --boards 5
    .venv/bin/python benchmarks/studies/llm_tables_budget_vs_mcnemar.py --boards 3 --leaderboard --bb-edge

For every pair of models the items are paired trials, read in a seeded random order (spec 09, seed 0), and the
number of items is a known budget. Columns (alpha = 0.05, two-sided and tie-safe, Holm over all pairs at the
end of the table):

- ``McNemar + Holm`` — the fixed-size exact test lm-eval users ask for (valid only when read once, at the end);
- ``budget test`` — the exact max-statistic budget test of spec 08 alone (valid at every stop up to the table size);
- ``budget + McNemar share f`` — the same p-process combined with McNemar's exact test at the budget,
  p = min(1, p_seq / (1 - f), p_McNemar / f) per side (`certirank.evidence.budget.final_pvalues`): still valid at
  every stop up to the table size, and at the end nearly McNemar's test at the full level;
- ``certirank.leaderboard`` (``--leaderboard``) — the bare call on the long table (what ``certirank leaderboard
  FILE`` runs: the plan routes a whole single-run binary item table to the budget test with McNemar's share,
  reading the items in its own seeded random order); ``leaderboard bb-edge`` (``--bb-edge``) — the same call with
  ``method="bb-edge"`` (the default before issue 31 item 7). Pairs counted: certified edges.

Boards: the GSM8K table of ../shared/data/llm (83 models x 1000 items) and simulated boards (`--boards`; 40 models
x 1000 items, item difficulty shared by all models, accuracies spread 0.3-0.9).
"""

from __future__ import annotations

import argparse
import itertools
import os

import numpy as np
from scipy import special, stats

from certirank.evidence.budget import final_pvalues, make_design

ALPHA = 0.05
DATA = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data", "llm", "helm_lite_gsm8k.csv")


def holm(p: np.ndarray, alpha: float = ALPHA) -> int:
    order = np.sort(p)
    thresholds = alpha / (p.size - np.arange(p.size))
    fail = np.flatnonzero(order > thresholds)
    return int(p.size if fail.size == 0 else fail[0])


def certified(scores: np.ndarray, shares: list[float]) -> dict[str, int]:
    """scores (items, models) binary, already in reading order."""
    n, L = scores.shape
    pairs = np.array(list(itertools.combinations(range(L), 2)))
    x, y = scores[:, pairs[:, 0]].T, scores[:, pairs[:, 1]].T
    win, loss = np.cumsum(y > x, axis=1), np.cumsum(x > y, axis=1)
    k, s = win + loss, win
    fin = final_pvalues(k[:, -1], s[:, -1])
    out = {"McNemar + Holm": holm(np.minimum(1.0, 2 * fin.min(axis=1)))}
    des = make_design(n, arms="paired", statistic="mixture")
    gm, gp = des.pvalue_grid()
    r = np.maximum(des.stats(None, None, None, k, s).max(axis=1), des.r0)  # running maxima at the end (pairs, 2)
    j = np.searchsorted(gm, r + 1e-12 * (1 + np.abs(r)), side="right") - 1
    seq = gp[np.clip(j, 0, gm.size - 1)]
    out["budget test"] = holm(np.minimum(1.0, 2 * seq.min(axis=1)))
    for f in shares:
        side = np.minimum(1.0, np.minimum(seq / (1 - f), fin / f))
        out[f"budget + McNemar share {f:g}"] = holm(np.minimum(1.0, 2 * side.min(axis=1)))
    return out


def leaderboard_edges(scores: np.ndarray, method: str | None = None) -> int:
    """Certified edges of ``certirank.leaderboard`` on the long table of `scores` (items, models)."""
    import pandas as pd

    import certirank

    n, L = scores.shape
    long = pd.DataFrame({"model": np.repeat([f"m{j}" for j in range(L)], n), "item": np.tile(np.arange(n), L),
                         "score": scores.T.reshape(-1)})
    return len(certirank.leaderboard(long, method=method).edges)


def gsm8k() -> np.ndarray | None:
    if not os.path.exists(DATA):
        return None
    import pandas as pd

    wide = pd.read_csv(DATA).pivot(index="item", columns="model", values="score")
    order = np.random.default_rng(0).permutation(len(wide))
    return wide.to_numpy()[order]


def board(seed: int, models: int = 40, items: int = 1000) -> np.ndarray:
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(0, 1.5, items)
    skill = special.logit(np.linspace(0.3, 0.9, models)) + rng.normal(0, 0.05, models)
    p = special.expit(skill[None, :] - difficulty[:, None] + 0.0)
    return (rng.random((items, models)) < p).astype(float)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=5)
    ap.add_argument("--shares", type=float, nargs="+", default=[0.9, 0.95])
    ap.add_argument("--leaderboard", action="store_true", help="add the bare certirank.leaderboard call")
    ap.add_argument("--bb-edge", action="store_true", help="add certirank.leaderboard(method='bb-edge')")
    args = ap.parse_args()
    tables = [("GSM8K (83 x 1000)", gsm8k())] + [(f"simulated board {i}", board(i)) for i in range(args.boards)]
    header = None
    for name, tab in tables:
        if tab is None:
            print(f"{name}: data not found, skipped")
            continue
        res = certified(tab, args.shares)
        if args.leaderboard:
            res["certirank.leaderboard"] = leaderboard_edges(tab)
        if args.bb_edge:
            res["leaderboard bb-edge"] = leaderboard_edges(tab, "bb-edge")
        if header is None:
            header = list(res)
            print("| table | pairs | " + " | ".join(header) + " |")
            print("|---|---:|" + "---:|" * len(header))
        pairs = tab.shape[1] * (tab.shape[1] - 1) // 2
        ref = res["McNemar + Holm"]
        cells = [f"{v} ({v / ref:.1%})" if ref else str(v) for v in res.values()]
        print(f"| {name} | {pairs} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
