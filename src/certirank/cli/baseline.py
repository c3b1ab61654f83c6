"""`certirank baseline`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer
from ._common import (ALL_OPT, DATA_ARG, FORMAT_OPT, JSON_OPT, READ_OPT, SCORE_RANGE_OPT, app, console, emit,
                      read_input, show)


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
    show_all: bool = ALL_OPT,
    as_json: bool = JSON_OPT,
) -> None:
    """Run a comparison baseline (Bradley–Terry family or leaderboard baseline); none controls the FWER of
    the mean ranking."""
    from ..baselines import baseline

    source = read_input(data, format, score_range, read_option)
    options: dict[str, Any] = {"alpha": alpha}
    for key, value in (("seed", seed), ("n_boot", n_boot), ("tau", tau), ("seeds", seeds)):
        if value is not None:
            options[key] = value
    if partials:
        options["use_partials"] = True
    options = {k: v for k, v in options.items() if v is not None or k == "alpha"}
    result = baseline(name, source, **options)

    def render(res: Any) -> None:
        from ..report.text import ranking_renderables
        cols: dict[str, dict[str, Any]] = {"score": res.scores}
        intervals = res.details.get("intervals")
        if intervals:
            cols["interval"] = {p: f"[{iv[0]:.3f}, {iv[1]:.3f}]" for p, iv in intervals.items()}
        point = res.method in ("bt", "bt-davidson", "bt-em", "emr")
        title = f"{data}: baseline {res.method}, {len(res.policies)} policies, n = {res.n}"
        show(ranking_renderables(res.ranking, title=title, full=show_all, width=console.width, columns=cols,
                                 verb="ranks above",
                                 qualifier="point estimate, not certified" if point else
                                 f"{res.method} at alpha = {res.alpha:g}",
                                 show_rank=not point))

    emit(result, as_json, render)
