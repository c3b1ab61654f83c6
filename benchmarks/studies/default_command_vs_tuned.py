"""Does the command a robot lab types with no options run the test that beats STEP? Bare `rank` / `compare` on
published outcome lists, against the tuned call the STEP study measures, on the same streams.

Usage::

    .venv/bin/python benchmarks/studies/default_command_vs_tuned.py --runs 200 --budgets 50 200

For the five Bernoulli pairs of issue 31 (independent arms, alpha = 0.05, valid under exact ties), each run draws
N rollouts per policy and writes them as a published outcome-list table (``Task,Method,Outcomes``, one list per
policy). Columns:

- ``tuned`` — ``compare(x, y, bins="binary", n_max=N, arms="independent")``: the test whose power and rollouts
  `independent_arms_vs_step.py` measures beside STEP (power >= STEP - 0.005, rollouts <= STEP + 2 on every pair);
- ``compare`` — ``certirank compare FILE --a A --b B`` with nothing else (through the CLI);
- ``rank`` — ``certirank.anyrank(FILE)`` with nothing else (what ``certirank rank FILE`` runs);
- ``same`` — the fraction of runs where the bare command's decision and decision time equal the tuned call's.

Before spec 09 §6 the bare commands ran the anytime e-process with progress bins on these files: power 0.17
(`rank`) and 0.22 (`compare`) at N = 50 on (0.3, 0.5)-like pairs, where STEP has 0.43 (issue 31).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from typer.testing import CliRunner

import certirank
from certirank.cli import app
from certirank import compare

PAIRS = [(0.3, 0.5), (0.5, 0.7), (0.4, 0.5), (0.6, 0.8), (0.7, 0.9)]


def lists_file(path: Path, x: np.ndarray, y: np.ndarray) -> Path:
    fmt = lambda o: "[" + ",".join(str(int(v)) for v in o) + "]"  # noqa: E731
    pd.DataFrame([{"Task": "t", "Method": "A", "Outcomes": fmt(x)},
                  {"Task": "t", "Method": "B", "Outcomes": fmt(y)}]).to_csv(path, index=False)
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--budgets", type=int, nargs="+", default=[50, 200])
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    runner = CliRunner()
    print("| N | pair | tuned power | bare compare power | bare rank power | compare same as tuned | "
          "rank same as tuned |\n|---:|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.budgets:
            for k, (p0, p1) in enumerate(PAIRS):
                rng = np.random.default_rng([args.seed, n, k])
                won = {"tuned": 0, "compare": 0, "rank": 0}
                same = {"compare": 0, "rank": 0}
                for r in range(args.runs):
                    x = (rng.random(n) < p0).astype(float)
                    y = (rng.random(n) < p1).astype(float)
                    path = lists_file(Path(tmp) / f"run{r}.csv", x, y)
                    tuned = compare(x, y, bins="binary", n_max=n, arms="independent")
                    out = runner.invoke(app, ["compare", str(path), "--a", "A", "--b", "B", "--json"])
                    bare = json.loads(out.stdout)
                    ranked = certirank.anyrank(path)
                    rank_dec = next(((d.better, d.worse) for d in ranked.ranking.relations), None)
                    bare_dec = next(((d["better"], d["worse"]) for d in bare["ranking"]["relations"]), None)
                    won["tuned"] += tuned.decision == "x<y"
                    won["compare"] += bare_dec == ("B", "A")
                    won["rank"] += rank_dec == ("B", "A")
                    same["compare"] += ((bare_dec == ("B", "A")) == (tuned.decision == "x<y")
                                        and bare["details"]["decided_at"] == tuned.decided_at)
                    same["rank"] += (rank_dec == ("B", "A")) == (tuned.decision == "x<y")
                m = args.runs
                print(f"| {n} | {p0}/{p1} | {won['tuned'] / m:.3f} | {won['compare'] / m:.3f} | "
                      f"{won['rank'] / m:.3f} | {same['compare'] / m:.3f} | {same['rank'] / m:.3f} |", flush=True)


if __name__ == "__main__":
    main()
