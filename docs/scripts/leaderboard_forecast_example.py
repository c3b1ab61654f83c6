"""The worked LLM leaderboard forecast in docs/futility.md (issue 35 item 2).

Usage::

    .venv/bin/python docs/scripts/leaderboard_forecast_example.py [OUTDIR]

Four GSM8K models of ../shared/data/llm (m47, m63, m38, m59; 1,000 items, one run each) become repeated runs by
the semi-synthetic rule of spec 04 §14 (P(correct) = 0.05 + 0.9 x the observed score, independent draws, seed 0).
The first 3 runs are written to OUTDIR/runs.csv (default: a temporary folder) and ranked through the real CLI
(``certirank leaderboard runs.csv``: BB-EDGE, with the forecast line); then the same board is fed further runs of
the same model, one at a time, to show when each pair the forecast spoke of was certified; last, the first 3
runs again under a budget of 13 replicates (``--n-max 13``), with each open pair's verdict (futile or undecided).
Same output on every run.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from typer.testing import CliRunner

from certirank import Leaderboard
from certirank.cli import app
from certirank.sim.bbedge_dgp import semi_synthetic_panels

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "llm" / "helm_lite_gsm8k.csv"
MODELS = ["m47", "m63", "m38", "m59"]
FIRST, MORE = 3, 60
#: the budget of replicates of the last part (docs/futility.md, "A budget of replicates")
BUDGET = 13


def panels() -> tuple[np.ndarray, list[str]]:
    table = pd.read_csv(DATA if DATA.exists() else Path("/work/shared/data/llm/helm_lite_gsm8k.csv"))
    wide = table[table.model.isin(MODELS)].pivot(index="model", columns="item", values="score").loc[MODELS]
    return semi_synthetic_panels(0, wide.to_numpy(), FIRST + MORE), [str(i) for i in wide.columns]


def main(outdir: Path) -> None:
    runs, items = panels()
    rows = [(m, items[i], r + 1, runs[r, k, i]) for r in range(FIRST) for k, m in enumerate(MODELS)
            for i in range(len(items))]
    path = outdir / "runs.csv"
    pd.DataFrame(rows, columns=["model", "item", "replicate", "score"]).to_csv(path, index=False)
    out = CliRunner().invoke(app, ["leaderboard", str(path)], env={"COLUMNS": "110"})
    if out.exit_code != 0:
        raise SystemExit(out.output)
    print("$ certirank leaderboard runs.csv")
    print(out.stdout.replace(str(outdir) + "/", ""))
    board = Leaderboard(MODELS, items=items)
    for r in range(FIRST):
        board.add_replicate(runs[r])
    said = {frozenset(d["pair"]): d["more_needed"] for d in board.result().undecided_details}
    decided: dict[frozenset, int] = {}
    for r in range(FIRST, FIRST + MORE):
        board.add_replicate(runs[r])
        for x in board.result().ranking.relations:
            decided.setdefault(frozenset((x.better, x.worse)), board.R)
    print(f"Pairs open after {FIRST} runs: forecast vs the run that certified them (further runs, same model):")
    for pair, more in sorted(said.items(), key=lambda kv: (kv[1] is None, kv[1] or 0)):
        a, b = sorted(pair)
        at = decided.get(pair)
        real = f"certified at run {at} ({at - FIRST} more)" if at else f"still open after {FIRST + MORE} runs"
        print(f"  {a} vs {b}: forecast {'none' if more is None else f'about {more} more'}; {real}")
    # the same 3 runs under a budget of BUDGET replicates (BUDGET - 3 left): the forecast chance of a decision
    # within it, futile below the default 0.1
    out = CliRunner().invoke(app, ["leaderboard", str(path), "--n-max", str(BUDGET), "--json"])
    if out.exit_code != 0:
        raise SystemExit(out.output)
    details = json.loads(out.stdout)["details"]["undecided_details"]
    print(f"\n$ certirank leaderboard runs.csv --n-max {BUDGET} --json   (undecided_details, {BUDGET - FIRST} runs "
          "left)")
    for d in sorted(details, key=lambda d: -d["forecast"]["p_decide"]):
        a, b = sorted(d["pair"])
        print(f"  {a} vs {b}: {d['verdict']}, P(decide within the budget) = {d['forecast']['p_decide']:.2f}, "
              f"about {d['more_needed']} more")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        target = Path(sys.argv[1])
        target.mkdir(parents=True, exist_ok=True)
        main(target)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            main(Path(tmp))
