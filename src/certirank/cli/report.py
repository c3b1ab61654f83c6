"""`certirank report`."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ._common import app, console, emit, parse_score_range, FORMAT_OPT, SCORE_RANGE_OPT, JSON_OPT


@app.command("report")
def report_cmd(result: Path = typer.Argument(..., help="A result file: the --json output of rank (also "
                                             "--shuffle, --group-by, battle data), leaderboard, compare, simulate, "
                                             "compose-test, baseline, inspect or demo."),
               html: Path = typer.Option(..., "--html", help="Write a self-contained HTML page here (inline SVG, "
                                         "works offline)."),
               data: Optional[Path] = typer.Option(None, "--data", help="Evaluation data: adds the score-distribution "
                                                   "plot. For simulate: its --out Parquet file (adds power curves)."),
               title: Optional[str] = typer.Option(None, "--title", help="Page title."),
               plot: Optional[Path] = typer.Option(None, "--plot", help="Also write the main figure (.png or .svg)."),
               format: Optional[str] = FORMAT_OPT, score_range: Optional[str] = SCORE_RANGE_OPT,
               as_json: bool = JSON_OPT) -> None:
    """Turn a result into one shareable HTML page: tables, letters, graph, curves and the guarantee."""
    from ..report.cli import report_command

    report_command(result, html=html, data=data, title=title, plot=plot, format=format,
                   score_range=parse_score_range(score_range), as_json=as_json, emit=emit, console=console)
