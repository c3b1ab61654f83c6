"""`certirank rank`."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ._common import app, console, emit, DATA_ARG, FORMAT_OPT, SCORE_RANGE_OPT, READ_OPT, read_input, JSON_OPT
from ._markdown import MARKDOWN_OPT, check_output_flags


@app.command("rank")
def rank_cmd(data: Path = DATA_ARG,
             alpha: float = typer.Option(0.05, "--alpha", help="Family-wise error rate of the whole ranking."),
             method: str = typer.Option("anyrank", "--method", help="anyrank, anyrank0, anyrank-inf, bonferroni, "
                                        "weighted-bonferroni."),
             prior: Optional[Path] = typer.Option(None, "--prior", help="Prior means: JSON {policy: mean} or CSV "
                                                  "'policy,mean'. Fixed before the data."),
             prior_means: Optional[str] = typer.Option(None, "--prior-means", help="Prior means inline, e.g. "
                                                       "'p=0.3,q=0.5'."),
             gamma: float = typer.Option(1.0, "--gamma", help="Prior strength (>= 0)."),
             nmax: Optional[int] = typer.Option(None, "--nmax", help="Per-comparison trial budget (default: all "
                                                "rows)."),
             ties: str = typer.Option("allow", "--ties", help="allow (valid under exact ties) or assume_none "
                                      "(the papers' setting)."),
             guarantee: str = typer.Option("paper", "--guarantee", help="paper or strict (directional graph)."),
             heldout_prior_rows: int = typer.Option(0, "--heldout-prior-rows", help="Use the first N rows as the "
                                                    "prior and remove them from the test."),
             metric: str = typer.Option("progress", "--metric", help="progress (partial credit) or binary."),
             format: Optional[str] = FORMAT_OPT, score_range: Optional[str] = SCORE_RANGE_OPT,
             read_option: list[str] = READ_OPT,
             plot: Optional[Path] = typer.Option(None, "--plot", help="Write the score violins with the certified "
                                                 "letters to FILE.png or FILE.svg."),
             as_json: bool = JSON_OPT, markdown: bool = MARKDOWN_OPT) -> None:
    """Certified ranking of policies from recorded trials (AnyRank), replayed in recorded order."""
    check_output_flags(as_json, markdown)
    from ..methods.anyrank_cli import rank_command
    if plot is not None:
        from ..report.cli import check_plot_path
        check_plot_path(plot)

    source, fmt, sr = read_input(data, format, score_range, read_option)
    out = emit
    if markdown:
        from ..report.markdown import to_markdown

        def out(result, _as_json, _render) -> None:  # noqa: ANN001 - same shape as `emit`
            typer.echo(to_markdown(result, title=f"{data}: AnyRank ({result.method}, {result.guarantee} guarantee), "
                                   f"alpha = {result.alpha:g}"), nl=False)
    res = rank_command(source, alpha=alpha, method=method, prior=prior, prior_means=prior_means, gamma=gamma,
                       nmax=nmax, ties=ties, guarantee=guarantee, as_json=as_json, emit=out, console=console,
                       format=fmt, score_range=sr, heldout_prior_rows=heldout_prior_rows, metric=metric, label=data)
    if plot is not None:
        from ..report.cli import save_plot
        save_plot(res, plot, data=source, format=fmt, score_range=sr,
                  console=None if (as_json or markdown) else console)
