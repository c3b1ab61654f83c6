"""How many item evaluations does adaptive item choice save, for the same certified edges? (issue 35 item 4)

Usage::

    .venv/bin/python benchmarks/studies/fewer_item_evaluations_adaptive.py --seeds 5 --runs 100
    .venv/bin/python benchmarks/studies/fewer_item_evaluations_adaptive.py --part gsm8k --seeds 6 --max-draws 3000

Two settings, the same test for both strategies (:class:`certirank.methods.bbedge.adaptive.AdaptiveBoard`:
items drawn with replacement, importance-weighted grid-mixture e-processes, direct e-Holm each draw):

- ``uniform``: every item equally likely, every model scored on every drawn item (the plain alternative);
- ``adaptive``: items drawn in proportion to the predicted disagreement of the still-undecided pairs (item
  success rates from *other* models, fixed before the data), only models with an undecided pair scored, and
  pairs forecast to miss the budget (`--max-draws`) by more than 8x set aside.

1. GSM8K (../shared/data/llm/helm_lite_gsm8k.csv, 83 models x 1,000 items, one run): 10 models drawn at
   random (seeded), item success rates from the other 73. Target: the edges BB-EDGE (``method="bb-edge"``)
   certifies on the full table (10 x 1,000 = 10,000 evaluations). Reported: item evaluations (model x item
   scores) until every target edge is certified, over `--seeds` draws of models and item order, for three runs of
   the board: uniform draws with replacement (``about="benchmark"``: a score is asked for again when its item is
   drawn again), the uniform order (``about="table"``, strategy uniform: items in a random order without
   repeats, every model scored) and adaptive (``about="table"``: toward the open pairs, only models with an open
   pair, a known score never asked for again). One run of a deterministic table is what ``about="table"`` is
   for (the claims are about these scores' averages).
2. Simulated IRT boards (2PL, 6 models with abilities (-0.5, -0.5, 0, 0, 0.5, 0.5): three exactly tied
   pairs, 200 items, fresh Bernoulli scores per draw, item rates from 40 other simulated models):
   FWER (any edge between tied models or against the truth) over `--runs` boards, and evaluations until
   every true edge is certified; ``oracle`` is the adaptive board told the tied pairs before the first draw
   (set aside from the start, no futility forecast): what any rule for which models to score could reach.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import special, stats

import certirank
from certirank.methods.bbedge.adaptive import EXPLORE_TABLE, AdaptiveBoard, item_probabilities, run_board

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "llm" / "helm_lite_gsm8k.csv"
ALPHA = 0.05


def evaluations_to(board: AdaptiveBoard, target: set) -> int | None:
    """Item evaluations at the draw where the cumulative edges first contain `target` (None if never)."""
    at = {(board.models[a], board.models[b]): int(t)
          for a, b, t, c in zip(board.a_idx, board.b_idx, board.certified_at, board.certified) if c}
    if not target <= set(at):
        return None
    last = max(at[e] for e in target)
    return board.evaluations_at[last - 1]


def gsm8k(seeds: int, max_draws: int, explore: float | None = None) -> list[dict]:
    df = pd.read_csv(DATA)
    wide = df.pivot(index="model", columns="item", values="score")
    rows = []
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        models = [str(m) for m in rng.choice(wide.index, 10, replace=False)]
        # BB-EDGE's edges (since the exact budget test became the default of a single-run binary table, the
        # default leaderboard certifies more: the study's target stays BB-EDGE's)
        target = {tuple(e) for e in certirank.leaderboard(df[df.model.isin(models)], ALPHA, method="bb-edge").edges}
        hist = wide.drop(index=models).mean(axis=0).to_numpy()
        scores = wide.loc[models].to_numpy()
        row = {"seed": seed, "target_edges": len(target), "full_table": scores.size}
        boards = {}
        for key, strategy, about in (("with_replacement", "uniform", "benchmark"), ("uniform", "uniform", "table"),
                                     ("adaptive", "adaptive", "table")):
            b = AdaptiveBoard(models, scores.shape[1], ALPHA, difficulty=hist if strategy == "adaptive" else None,
                              strategy=strategy, seed=seed, n_max=max_draws, about=about,
                              explore=explore if strategy == "adaptive" else None)
            boards[key] = run_board(b, lambda i, cols: scores[cols, i], max_draws)
            row[key] = evaluations_to(b, target)
        row["oracle"] = evaluations_to(oracle_focus(models, scores, hist, target, seed, max_draws, explore), target)
        row["gain"], row["rank_gain"], row["ideal_gain"] = variance_gain(boards["uniform"], scores,
                                                                          wide.drop(index=models).to_numpy(), target)
        rows.append(row)
    return rows


def oracle_focus(models, scores, hist, target, seed, max_draws, explore):
    """The adaptive board told, before the first draw, which pairs are certifiable on the full table (the others
    set aside from the start): the fewest evaluations any rule for *which models to score* can reach with these item
    draws and this test. Not available to users (it reads the whole table); valid all the same, since on a fixed table
    the choice is fixed before the draws."""
    b = AdaptiveBoard(models, scores.shape[1], ALPHA, difficulty=hist, strategy="adaptive", seed=seed, n_max=max_draws,
                      about="table", explore=explore)
    idx = {m: j for j, m in enumerate(models)}
    keep = np.zeros(b.dormant.shape, dtype=bool)
    for a, c in target:
        keep[idx[a], idx[c]] = keep[idx[c], idx[a]] = True
    b.dormant = ~keep
    np.fill_diagonal(b.dormant, False)
    return run_board(b, lambda i, cols: scores[cols, i], max_draws)


def variance_gain(uniform, scores, others, target):
    """For the target edge the uniform order (the board `uniform`) certifies last: how much item probabilities cut the
    variance of the pair's importance-weighted difference against uniform draws, N #disagreements / sum D^2 / q,
    (1) with the board's predictions (item success rates of the `others` models, each model's ability fitted on its
    whole row: the best case for them), (2) with a richer predictor: a logistic model on RANK item factors of the
    others' scores (their SVD), both models' loadings fitted on their whole rows (the best case again), and (3) the
    most any probabilities could (q proportional to |D|, which needs the answers: N / #disagreements)."""
    at = {(uniform.models[a], uniform.models[c]): int(t)
          for a, c, t in zip(uniform.a_idx, uniform.b_idx, uniform.certified_at)}
    a, c = (uniform.models.index(m) for m in max(target, key=lambda e: at.get(e, 0)))
    d = scores[a] - scores[c]
    lp = special.logit(np.clip(others.mean(axis=0), 0.02, 0.98))
    n, dis = d.size, float(np.sum(d * d))

    def gain(rates):
        q = item_probabilities(rates, np.array([[0, 1]]), EXPLORE_TABLE)
        return n * dis / float(np.sum(d * d / q))

    plain = gain(np.stack([special.expit(lp + _ability(scores[j], lp)) for j in (a, c)]))
    factors = np.linalg.svd(others - others.mean(axis=0), full_matrices=False)[2][:RANK].T * np.sqrt(n)
    x = np.column_stack([np.ones(n), lp, factors])
    richer = gain(np.stack([_logistic_fit(scores[j], x) for j in (a, c)]))
    return plain, richer, n / dis


#: item factors of the richer predictor in `variance_gain`
RANK = 10


def _logistic_fit(s, x, ridge=1.0):
    """Fitted success probabilities of a ridge logistic regression of the scores `s` on the item features `x`."""
    w = np.zeros(x.shape[1])
    for _ in range(50):
        p = special.expit(x @ w)
        h = (x * (p * (1 - p))[:, None]).T @ x + ridge * np.eye(x.shape[1])
        w += np.linalg.solve(h, x.T @ (s - p) - ridge * w)
    return special.expit(x @ w)


def _ability(s, lp):
    beta = 0.0
    for _ in range(30):
        p = special.expit(lp + beta)
        beta += (np.sum(s - p) - 0.1 * beta) / (np.sum(p * (1 - p)) + 0.1)
    return beta


def irt_board(rng, n_items=200, hist_models=40):
    a = np.exp(rng.normal(0, 0.3, n_items))
    b = rng.normal(0, 1, n_items)
    theta = np.array([-0.5, -0.5, 0.0, 0.0, 0.5, 0.5])
    probs = special.expit(a[None, :] * (theta[:, None] - b[None, :]))
    hist = special.expit(a[None, :] * (rng.normal(0, 1, hist_models)[:, None] - b[None, :])).mean(axis=0)
    return theta, probs, hist


def irt(runs: int, max_draws: int) -> dict:
    names = [f"M{j}" for j in range(6)]
    errors = {"uniform": 0, "adaptive": 0, "oracle": 0}
    evals = {"uniform": [], "adaptive": [], "oracle": []}
    for run in range(runs):
        rng = np.random.default_rng(1000 + run)
        theta, probs, hist = irt_board(rng)
        true = {(names[i], names[j]) for i in range(6) for j in range(6) if theta[i] > theta[j]}
        for strategy in ("uniform", "adaptive", "oracle"):
            srng = np.random.default_rng(rng.integers(2**32))
            b = AdaptiveBoard(names, probs.shape[1], ALPHA, difficulty=hist if strategy != "uniform" else None,
                              strategy="uniform" if strategy == "uniform" else "adaptive", seed=run,
                              n_max=None if strategy == "oracle" else max_draws)
            if strategy == "oracle":  # told the tied pairs before the first draw, no futility forecast
                tied = theta[:, None] == theta[None, :]
                np.fill_diagonal(tied, False)
                b.dormant = tied
            run_board(b, lambda i, cols: (srng.random(cols.size) < probs[cols, i]).astype(float), max_draws)
            if set(b.edges()) - true:
                errors[strategy] += 1
            evals[strategy].append(evaluations_to(b, true))
    return {"runs": runs, "errors": errors, "evals": evals}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--max-draws", type=int, default=4000)
    ap.add_argument("--part", choices=("both", "gsm8k", "irt"), default="both")
    ap.add_argument("--explore", type=float, default=None, help="uniform share of the adaptive board's draws on "
                    "GSM8K (default: the board's, 0.5 on a table)")
    args = ap.parse_args()
    t0 = time.process_time()
    if args.part != "irt":
        print_gsm8k(gsm8k(args.seeds, args.max_draws, args.explore), args.max_draws)
    if args.part != "gsm8k":
        print_irt(irt(args.runs, args.max_draws))
    print(f"\n({time.process_time() - t0:.0f} s of CPU)")


def _cell(v: int | None) -> str:
    return "never" if v is None else f"{v:,}"


def print_gsm8k(rows: list[dict], max_draws: int) -> None:
    print(f"GSM8K, 10 random models, alpha = {ALPHA}, target = BB-EDGE's edges on the full table, at most "
          f"{max_draws} draws\n")
    print("| seed | target edges | uniform, with replacement | uniform order | adaptive | saved vs uniform order | "
          "saved vs with replacement | saved vs full table | oracle focus | oracle saved vs uniform order | "
          f"variance gain, hardest pair: board's predictions, rank-{RANK} item model (ideal) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    saved, best = [], []
    for r in rows:
        w, u, a, o = r["with_replacement"], r["uniform"], r["adaptive"], r["oracle"]
        sv = "-" if u is None or a is None else f"{1 - a / u:.0%}"
        sw = "-" if w is None or a is None else f"{1 - a / w:.0%}"
        sf = "-" if a is None else f"{1 - a / r['full_table']:.0%}"
        so = "-" if u is None or o is None else f"{1 - o / u:.0%}"
        if u is not None and a is not None:
            saved.append(1 - a / u)
        if u is not None and o is not None:
            best.append(1 - o / u)
        print(f"| {r['seed']} | {r['target_edges']} | {_cell(w)} | {_cell(u)} | {_cell(a)} | {sv} | {sw} | {sf} | "
              f"{_cell(o)} | {so} | {r['gain']:.2f}, {r['rank_gain']:.2f} ({r['ideal_gain']:.2f}) |")
    if saved:
        print(f"\nmedian saving vs uniform order: {np.median(saved):.0%} (range {min(saved):.0%} to {max(saved):.0%})")
    if best:
        print(f"oracle focus (the non-certifiable pairs set aside from the start): median {np.median(best):.0%} "
              f"(range {min(best):.0%} to {max(best):.0%})")


def print_irt(res: dict) -> None:
    print(f"\nSimulated IRT boards (6 models, three tied pairs, 200 items), {res['runs']} boards\n")
    print("| strategy | boards with a false edge | FWER (95 % upper) | median evaluations to every true edge |")
    print("|---|---|---|---|")
    for s in ("uniform", "adaptive", "oracle"):
        e = res["errors"][s]
        hi = stats.binomtest(e, res["runs"]).proportion_ci(0.95).high
        ev = [v for v in res["evals"][s] if v is not None]
        med = f"{int(np.median(ev))} ({len(ev)} of {res['runs']} reached)" if ev else "never"
        print(f"| {s} | {e} | {e / res['runs']:.3f} ({hi:.3f}) | {med} |")


if __name__ == "__main__":
    main()
