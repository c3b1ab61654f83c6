"""The command-line worked examples of docs/equivalence.md and docs/prediction-powered.md.

Usage::

    .venv/bin/python docs/scripts/fewer_cli_examples.py [OUTDIR]

Writes two seeded files into OUTDIR (default: a temporary folder) and runs, through the real CLI:

- ``certirank rank grasp.csv --margin 0.1`` (three grasping policies, two of them ten points apart at most);
- ``certirank compare judged.csv --a A --b B --proxy sim --label-rate 0.3`` and
  ``certirank rank judged.csv --proxy sim --label-rate 0.3 --margin 0.2`` (a simulator score on every episode, a
  real outcome on 30 % of them, drawn at random);
- ``certirank leaderboard quiz.csv --suggest-items 5 --seed 1`` (docs/adaptive-items.md: four models on 200 items,
  one run; which items to score next).

Every number those pages quote is printed here (same output on every run).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from typer.testing import CliRunner

from certirank.cli import app


def grasp_file(path: Path) -> None:
    """300 environments; A and B share each environment's difficulty (means 0.50 / 0.51), C is 0.25 better."""
    rng = np.random.default_rng(7)
    n = 300
    base = rng.uniform(0.3, 0.7, n)
    noise = lambda: rng.normal(0, 0.1, n)  # noqa: E731
    pd.DataFrame({"A": np.clip(base + noise(), 0, 1).round(2), "B": np.clip(base + noise(), 0, 1).round(2),
                  "C": np.clip(base + 0.25 + noise(), 0, 1).round(2)}).to_csv(path, index_label="env")


def judged_file(path: Path) -> None:
    """300 episodes of three policies (success 0.3, 0.8, 0.8); a simulator that agrees with the real outcome 95 %
    of the time scores every episode; each episode got a real outcome with probability 0.3."""
    rng = np.random.default_rng(0)
    n = 300
    labelled = rng.random(n) < 0.3
    rows = []
    for e in range(n):
        for p, mu in (("A", 0.3), ("B", 0.8), ("C", 0.8)):
            y = float(rng.random() < mu)
            f = y if rng.random() < 0.95 else 1.0 - y
            rows.append((f"e{e}", p, y if labelled[e] else np.nan, f))
    pd.DataFrame(rows, columns=["env", "policy", "score", "sim"]).to_csv(path, index=False)


def quiz_file(path: Path) -> None:
    """Four models on 200 items, one run: item difficulty varies; m1 and m2 are close (0.62 / 0.60 on average)."""
    rng = np.random.default_rng(11)
    ease = rng.normal(0, 1.5, 200)
    rows = []
    for m, ability in (("m0", 0.0), ("m1", 0.55), ("m2", 0.5), ("m3", 2.0)):
        p = 1 / (1 + np.exp(-(ease + ability)))
        rows += [(m, f"q{i}", float(rng.random() < p[i])) for i in range(200)]
    pd.DataFrame(rows, columns=["model", "item", "score"]).to_csv(path, index=False)


def run(*args: str) -> dict:
    out = CliRunner().invoke(app, [*args, "--json"])
    if out.exit_code != 0:
        raise SystemExit(out.output)
    return json.loads(out.stdout)


def main(outdir: Path) -> None:
    grasp, judged, quiz = outdir / "grasp.csv", outdir / "judged.csv", outdir / "quiz.csv"
    grasp_file(grasp)
    judged_file(judged)
    quiz_file(quiz)
    print("== certirank rank grasp.csv --margin 0.1 ==")
    d = run("rank", str(grasp), "--margin", "0.1")
    rk = d["ranking"]
    print("means:", {p["name"]: round(p["mean"], 3) for p in rk["policies"]})
    print("certified:", [(r["better"], r["worse"], r["when"]) for r in rk["relations"]])
    print("equivalent:", rk["equivalent"], "undecided:", rk["undecided"])
    print("== certirank compare judged.csv --a A --b B --proxy sim --label-rate 0.3 ==")
    d = run("compare", str(judged), "--a", "A", "--b", "B", "--proxy", "sim", "--label-rate", "0.3")
    det = d["details"]
    rel = d["ranking"]["relations"]
    print(f"{det['verdict']}: {[(r['better'], r['worse']) for r in rel]} at unit {det['decided_at']} of {det['n']}, "
          f"real labels {det['labels']}, proxy weight {det['proxy_weight']:.3f}, p = {det['pvalue']:.4g}")
    print("== certirank rank judged.csv --proxy sim --label-rate 0.3 --margin 0.2 ==")
    d = run("rank", str(judged), "--proxy", "sim", "--label-rate", "0.3", "--margin", "0.2")
    rk = d["ranking"]
    print("means (real labels):", {p["name"]: round(p["mean"], 3) for p in rk["policies"]},
          "labels:", {p["name"]: p["n"] for p in rk["policies"]})
    print("certified:", [(r["better"], r["worse"], r["when"]) for r in rk["relations"]])
    print("equivalent:", rk["equivalent"], "undecided:", rk["undecided"])
    print("== certirank leaderboard quiz.csv --suggest-items 5 --seed 1 ==")
    d = run("leaderboard", str(quiz), "--suggest-items", "5", "--seed", "1")
    rk, sug = d["ranking"], d["details"]["suggested_items"]
    print("means:", {p["name"]: round(p["mean"], 3) for p in rk["policies"]}, "method:", d["inputs"]["method"])
    print("certified:", [(r["better"], r["worse"]) for r in rk["relations"]], "undecided:", rk["undecided"])
    print("score:", sug["models"])
    for e in sug["items"]:
        print(f"  {e['item']}: probability {e['probability']:.4f} (uniform {1 / sug['n_items']:.4f}), weight "
              f"{e['weight']:.3f}, advances {e['pairs']}")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(Path(sys.argv[1]))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            main(Path(tmp))
