"""`certirank rank`."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ._common import (ALPHA_ACROSS_OPT, DATA_ARG, FORMAT_OPT, GROUP_BY_OPT, JSON_OPT, PAIRING_OPT, READ_OPT,
                      SCORE_RANGE_OPT, SHUFFLE_OPT, app, console, emit, group_columns, pairing_arg, read_input,
                      render_groups, render_shuffled, warn_order, warn_order_groups)
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
             pairing: str = PAIRING_OPT,
             shuffle: Optional[int] = SHUFFLE_OPT,
             group_by: Optional[str] = GROUP_BY_OPT,
             alpha_across_groups: bool = ALPHA_ACROSS_OPT,
             format: Optional[str] = FORMAT_OPT, score_range: Optional[str] = SCORE_RANGE_OPT,
             read_option: list[str] = READ_OPT,
             plot: Optional[Path] = typer.Option(None, "--plot", help="Write the score violins with the certified "
                                                 "letters to FILE.png or FILE.svg."),
             as_json: bool = JSON_OPT, markdown: bool = MARKDOWN_OPT) -> None:
    """Certified ranking of policies from recorded trials (AnyRank), replayed in recorded order; for battle /
    preference data, the certified preference graph."""
    check_output_flags(as_json, markdown)
    from ..methods.anyrank_cli import compute_ranking, rank_command, render_preferences
    if plot is not None:
        from ..report.cli import check_plot_path
        check_plot_path(plot)
    pair = pairing_arg(pairing)
    cols = group_columns(group_by)
    table, fmt, sr = read_input(data, format, score_range, read_option)

    if table.attrs.get("format") == "preferences":
        from ..errors import ParameterError
        from ..methods.preferences import preference_graph
        if cols is not None:
            raise ParameterError("--group-by is not available for preference tables (they keep only the two "
                                 "policies and the preference of each battle)")
        if plot is not None:
            raise ParameterError("--plot draws score violins; preference data has no per-trial scores")
        res = preference_graph(table, alpha)
        emit(res, as_json, lambda r: render_preferences(r, console, title=f"{data}: certified preference graph, "
                                                        f"{r.n_battles} battles (alpha = {r.alpha:g})"))
        return

    if shuffle is not None:
        from ..errors import ParameterError
        from ..methods.shuffled import shuffled_ranking
        if plot is not None or pair != "by_row":
            raise ParameterError("--shuffle replays whole rows (paired by environment); it cannot be combined with "
                                 "--plot or --pairing by-order")

        def shuffled(tab, level):  # noqa: ANN001, ANN202
            return shuffled_ranking(tab, level, seed=shuffle)

        if cols is not None:
            from ..methods.groups import run_by_group
            res = run_by_group(table, cols, shuffled, alpha=alpha, alpha_across_groups=alpha_across_groups,
                               method="shuffled-without-replacement")
            emit(res, as_json, lambda r: render_groups(r, f"{data}: shuffled replay (seed {shuffle}) in "
                                                       f"{len(r.groups)} groups of {', '.join(cols)}"))
        else:
            emit(shuffled(table, alpha), as_json, lambda r: render_shuffled(
                r, f"{data}: shuffled replay (seed {shuffle}), tested without replacement"))
        return

    opts = dict(method=method, prior=prior, prior_means=prior_means, gamma=gamma, nmax=nmax, ties=ties,
                guarantee=guarantee, heldout_prior_rows=heldout_prior_rows, metric=metric, pairing=pair)
    if cols is not None:
        from ..methods.groups import run_by_group
        if plot is not None:
            from ..errors import ParameterError
            raise ParameterError("--plot draws one ranking; it cannot be combined with --group-by")
        res = run_by_group(table, cols, lambda sub, a: compute_ranking(sub, alpha=a, **opts), alpha=alpha,
                           alpha_across_groups=alpha_across_groups, method=f"anyrank:{method}")
        warn_order_groups(table, cols)
        emit(res, as_json, lambda r: render_groups(r, f"{data}: AnyRank ({method}) in {len(r.groups)} groups of "
                                                   f"{', '.join(cols)}"))
        return
    warn_order(table)
    out = emit
    if markdown:
        from ..report.markdown import to_markdown

        def out(result, _as_json, _render) -> None:  # noqa: ANN001 - same shape as `emit`
            typer.echo(to_markdown(result, title=f"{data}: AnyRank ({result.method}, {result.guarantee} guarantee), "
                                   f"alpha = {result.alpha:g}"), nl=False)
    res = rank_command(table, alpha=alpha, as_json=as_json, emit=out, console=console, label=data, **opts)
    if plot is not None:
        from ..report.cli import save_plot
        save_plot(res, plot, data=table, format=fmt, score_range=sr,
                  console=None if (as_json or markdown) else console)
