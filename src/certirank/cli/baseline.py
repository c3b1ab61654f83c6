"""`certirank baseline`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer
from rich.table import Table

from ._common import app, console, emit, DATA_ARG, FORMAT_OPT, SCORE_RANGE_OPT, READ_OPT, read_input, JSON_OPT


@app.command("baseline")
def baseline_cmd(
    name: str = typer.Argument(..., help="bt, bt-davidson, bt-em, bt-bootstrap (preferences or scores); emr, t-holm, "
                               "cbtl, serpant, serpant-r, beb-holm, asympcs-bonf (per-item scores over replicates)."),
    data: Path = DATA_ARG,
    alpha: float = typer.Option(0.05, "--alpha", help="Error level of the interval and testing methods "
                                "(bt, bt-davidson, bt-em and emr are point estimates: they only record it)."),
    seed: Optional[int] = typer.Option(None, "--seed", min=0, help="Bootstrap seed (bt-bootstrap, cbtl)."),
    n_boot: Optional[int] = typer.Option(None, "--n-boot", help="Bootstrap replicates (bt-bootstrap, cbtl)."),
    tau: Optional[float] = typer.Option(None, "--tau", help="Margin (leaderboard methods)."),
    seeds: Optional[int] = typer.Option(None, "--seeds", help="Number of EM seeds (bt-em; default 100)."),
    partials: bool = typer.Option(False, "--partials", help="bt-em: add the partial-progress term (score data)."),
    format: Optional[str] = FORMAT_OPT,
    score_range: Optional[str] = SCORE_RANGE_OPT,
    read_option: list[str] = READ_OPT,
    as_json: bool = JSON_OPT,
) -> None:
    """Run a comparison baseline (Bradley–Terry family or leaderboard baseline); none controls the FWER of
    the mean ranking."""
    from ..baselines import baseline

    source, fmt, sr = read_input(data, format, score_range, read_option)
    options: dict[str, Any] = {"alpha": alpha, "format": fmt, "score_range": sr}
    for key, value in (("seed", seed), ("n_boot", n_boot), ("tau", tau), ("seeds", seeds)):
        if value is not None:
            options[key] = value
    if partials:
        options["use_partials"] = True
    options = {k: v for k, v in options.items() if v is not None or k == "alpha"}
    result = baseline(name, source, **options)

    def render(res: Any) -> None:
        t = Table(title=f"{data} — baseline {res.method}: {len(res.policies)} policies, n = {res.n}")
        intervals = res.details.get("intervals")
        cols = ["policy", "score", "mean"] + (["interval"] if intervals else [])
        for col in cols:
            t.add_column(col, justify="left" if col == "policy" else "right")
        for p in res.order:
            row = [p, f"{res.scores[p]:.4f}", "-" if res.means[p] is None else f"{res.means[p]:.3f}"]
            if intervals:
                row.append(f"[{intervals[p][0]:.3f}, {intervals[p][1]:.3f}]")
            t.add_row(*row)
        console.print(t)
        point = res.method in ("bt", "bt-davidson", "bt-em", "emr")
        pos = {p: k for k, p in enumerate(res.order)}
        for d in sorted(res.decisions, key=lambda d: (pos[d["better"]], pos[d["worse"]])):
            how = "point estimate, not certified" if point else f"{res.method} at alpha = {res.alpha:g}"
            extra = ", implied" if d["kind"] == "implied" else ""
            console.print(f"{d['better']} ranks above {d['worse']} ({how}{extra})", markup=False)
        if res.undecided:
            console.print(f"Undecided ({len(res.undecided)}): "
                          + ", ".join(f"{a} vs {b}" for a, b in res.undecided), markup=False)
        console.print(f"Guarantee: {res.guarantee}.", markup=False)

    emit(result, as_json, render)
