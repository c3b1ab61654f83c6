"""The leaderboard campaign with an equivalence margin in docs/equivalence.md (issue 35).

Usage::

    .venv/bin/python docs/scripts/leaderboard_margin_example.py [OUTDIR]

Writes three seeded runs of three models on 400 items into OUTDIR (default: a temporary folder): m-a and m-b share
every item's difficulty (the same success probability per item, independent draws), m-c is 0.3 better on every
item. Then, through the real CLI: ``campaign init --kind leaderboard --margin 0.1``, ``campaign add-run`` run by
run with ``campaign status`` after each, and ``certirank leaderboard all.csv --margin 0.1`` on the same runs.
Every number the page quotes is printed here (same output on every run).
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


def run_files(outdir: Path) -> tuple[list[Path], Path]:
    rng = np.random.default_rng(0)
    n = 400
    p = rng.uniform(0.2, 0.7, n)
    files, frames = [], []
    for r in range(3):
        rows = []
        for m, shift in (("m-a", 0.0), ("m-b", 0.0), ("m-c", 0.3)):
            x = (rng.random(n) < np.clip(p + shift, 0, 1)).astype(float)
            rows += [(m, f"q{i}", x[i]) for i in range(n)]
        df = pd.DataFrame(rows, columns=["model", "item", "score"])
        files.append(outdir / f"run{r + 1}.csv")
        df.to_csv(files[-1], index=False)
        frames.append(df.assign(replicate=r + 1))
    whole = outdir / "all.csv"
    pd.concat(frames).to_csv(whole, index=False)
    return files, whole


def cli(*args: str) -> str:
    out = CliRunner().invoke(app, list(args), env={"COLUMNS": "110"})
    if out.exit_code != 0:
        raise SystemExit(out.output)
    return out.stdout


def main(outdir: Path) -> None:
    files, whole = run_files(outdir)
    db = str(outdir / "board.campaign")
    print(f"$ certirank campaign init board.campaign --kind leaderboard --models m-a,m-b,m-c --margin 0.1")
    print(cli("campaign", "init", db, "--kind", "leaderboard", "--models", "m-a,m-b,m-c", "--margin", "0.1",
              "--by", "docs").replace(str(outdir) + "/", ""), end="")
    for f in files:
        cli("campaign", "add-run", db, str(f), "--by", "docs")
        st = json.loads(cli("campaign", "status", db, "--json"))
        rk = st["ranking"]
        print(f"after {f.name}: certified {[(r['better'], r['worse']) for r in rk['relations']]}, equivalent "
              f"{rk['equivalent']}, undecided {rk['undecided']}, complete {st['details']['complete']}")
    print("$ certirank campaign status board.campaign")
    print(cli("campaign", "status", db).replace(str(outdir) + "/", ""), end="")
    batch = json.loads(cli("leaderboard", str(whole), "--margin", "0.1", "--json"))["ranking"]
    print("certirank leaderboard all.csv --margin 0.1: certified",
          [(r["better"], r["worse"]) for r in batch["relations"]], "equivalent", batch["equivalent"])


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(Path(sys.argv[1]))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            main(Path(tmp))
