"""`certirank leaderboard`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer
from ._common import (ALL_OPT, BACKEND_OPT, DATA_ARG, FORMAT_OPT, JSON_OPT, READ_OPT,
                      SCHEDULER_OPT, SCORE_RANGE_OPT, app, console, emit, group_columns, read_input, render_groups,
                      show, group_options)
from ._markdown import MARKDOWN_OPT, check_output_flags, emit_or_markdown
from ._options import declared


_GROUP = group_options("leaderboard")


@app.command("leaderboard")
def leaderboard_cmd(
    data: Path = DATA_ARG,
    alpha: float = typer.Option(0.05, "--alpha", help="Family-wise error rate of the whole leaderboard."),
    tau: float = typer.Option(0.0, "--tau", help="Margin: an edge A -> B certifies mean(A) - mean(B) > tau."),
    blocks: Optional[str] = typer.Option(None, "--blocks", help="Independent blocks within a run: 'items', "
                                         "'replicate', or a column name (default: the 'block' column if present, "
                                         "else items)."),
    top_k: Optional[int] = typer.Option(None, "--top-k", help="Certify a Top-k set."),
    pilot: Optional[int] = typer.Option(None, "--pilot", help="Pilot replicates choosing the Top-k candidates."),
    method: Optional[str] = typer.Option(None, "--method", help="bb-edge, bfh-e-holm, cr-edge or bb-edge-pi "
                                         "(default: the exact budget test of each pair on a whole single-run table "
                                         "of 0/1 scores, else bb-edge)."),
    # the values are checked by the engine against methods.bbedge.core.STAKES (a test keeps this help in step)
    stake: Optional[str] = typer.Option(None, "--stake", help="Stake rule of bb-edge and cr-edge: plugin (default; "
                                        "a predictable stake on the exact betting factor), plugin-eb (the same on "
                                        "the empirical-Bernstein factor: cheaper at many models, less powerful) or "
                                        "grid (the spec 04 41-point mixture). Other methods have their own."),
    margin: Optional[float] = declared("margin", None, verb="leaderboard",
                                       extra_help="Alpha is split in half between edges and equivalence claims."),
    n_max: Optional[int] = declared("n_max", None, verb="leaderboard", extra_help="At least the replicates in the "
                                    "file; BB-EDGE only (docs/futility.md)."),
    futility: float = declared("futility", 0.1, verb="leaderboard", extra_help="Used with --n-max."),
    graph: Optional[str] = typer.Option(None, "--graph", help="Also print the confidence graph: dot or mermaid."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Draw the confidence graph to FILE.png or FILE.svg."),
    format: Optional[str] = FORMAT_OPT,
    score_range: Optional[str] = SCORE_RANGE_OPT,
    read_option: list[str] = READ_OPT,
    group_by: Optional[str] = _GROUP["group_by"],
    alpha_across_groups: bool = _GROUP["alpha_across_groups"],
    about: Optional[str] = declared("about", None, verb="leaderboard", extra_help="Default: benchmark with two or "
                                    "more runs (the models' expected scores on this item set over runs), policy "
                                    "with one run (their expected scores on items like these)."),
    suggest_items: Optional[int] = declared("k", None, verb="Leaderboard.suggest_items",
                                            extra_help="Printed after the leaderboard; in --json under "
                                            "details.suggested_items."),
    seed: Optional[int] = declared("seed", None, verb="Leaderboard.suggest_items",
                                   extra_help="Of the item draws of --suggest-items (default 0)."),
    show_all: bool = ALL_OPT,
    as_json: bool = JSON_OPT,
    markdown: bool = MARKDOWN_OPT,
    jobs: int = typer.Option(1, "--jobs", "-j", help="Local worker processes for the update of large boards (or the "
                             "workers of a Dask LocalCluster / the CPUs of a local Ray runtime); results do not "
                             "depend on it."),
    backend: Optional[str] = BACKEND_OPT,
    scheduler: Optional[str] = SCHEDULER_OPT,
) -> None:
    """Certified leaderboard (BB-EDGE): edges, rank intervals and Top-k from repeated runs of L models."""
    check_output_flags(as_json, markdown)
    from .._validate import check_choice
    from ..methods.bbedge import leaderboard

    if graph is not None:
        graph = check_choice("--graph", graph, ("dot", "mermaid"))
    if plot is not None:
        from ..report.cli import check_plot_path
        check_plot_path(plot)
    cols = group_columns(group_by, alpha_across_groups, "leaderboard")
    _check_suggest(suggest_items, seed, cols)
    if cols is not None and (graph is not None or plot is not None):
        from ..errors import ParameterError
        raise ParameterError(f"{'--graph' if graph is not None else '--plot'} draws one confidence graph; it "
                             "cannot be combined with --group-by")
    source = read_input(data, format, score_range, read_option)
    if cols is not None:
        grouped = leaderboard(source, alpha=alpha, tau=tau, blocks=blocks, top_k=top_k, pilot=pilot, method=method,
                              stake=stake, backend=backend, jobs=jobs, scheduler=scheduler, about=about, margin=margin,
                              group_by=cols, alpha_across_groups=alpha_across_groups, n_max=n_max,
                              futility=futility)
        title = f"{data}: {method or 'leaderboard'} in {len(grouped.groups)} groups of {', '.join(cols)}"
        emit_or_markdown(grouped, as_json, markdown, lambda r: render_groups(r, title), title=title)
        return
    result = leaderboard(source, alpha=alpha, tau=tau, blocks=blocks, top_k=top_k, pilot=pilot, method=method,
                         stake=stake, backend=backend, jobs=jobs, scheduler=scheduler, about=about, margin=margin,
                         n_max=n_max, futility=futility)
    suggested = None if suggest_items is None else result.suggest_items(suggest_items, seed=seed or 0)

    def render(res: Any) -> None:
        from ..report.text import MAX_FORECASTS, forecast_sentence, ranking_renderables
        extra = []  # the block assumption is part of the guarantee sentence
        if res.top_k is not None:
            tk = res.top_k
            extra.append(f"Top-{tk['k']}: not certified yet." if tk["set"] is None else
                         f"Top-{tk['k']} certified at replicate {tk['certified_at']}: {', '.join(tk['set'])}.")
        if res.margin is not None:  # the ranking's own lines list the equivalent pairs no edge orders
            shown = {frozenset(p) for p in res.ranking.equivalent}
            also = "; ".join(f"{a} ~ {b}" for a, b in res.equivalent if frozenset((a, b)) not in shown)
            if also:
                extra.append(f"Also equivalent (certified different, by less than {res.margin:g}): {also}.")
            elif not shown:
                extra.append(f"Equivalent (|difference| < {res.margin:g}, certified): none yet.")
        said = forecast_sentence(res, None if show_all else MAX_FORECASTS)
        if said:
            extra.append(said)
        stake = "" if res.stake == "none" else f" (stake {res.stake})"
        budget = "" if res.n_max is None else f" of a budget of {res.n_max}"
        title = (f"{data}: {res.method}{stake}, {len(res.models)} models, {res.replicates} replicate(s){budget}, "
                 f"alpha = {res.alpha:g}, tau = {res.tau:g}")
        show(ranking_renderables(res.ranking, title=title, full=show_all, width=console.width,
                                 n_label="reps", extra=extra))
        if graph is not None:
            typer.echo(res.graph(graph), nl=False)
        if suggested is not None:
            typer.echo("\n".join(_suggestion_lines(suggested)))

    if markdown:
        emit_or_markdown(result, as_json, markdown, render, title=f"{data}: certified leaderboard ({result.method})")
        if graph is not None:
            typer.echo(f"\n```{'dot' if graph == 'dot' else 'mermaid'}\n{result.graph(graph)}```")
        if suggested is not None:
            typer.echo("\n" + "\n".join(f"- {line}" for line in _suggestion_lines(suggested)))
    elif as_json and (graph is not None or suggested is not None):
        # what the table output prints beside the ranking belongs in the JSON too
        from ._common import print_warnings, with_printed
        result = with_printed(result)
        print_warnings(result)
        d = result.to_dict()
        if graph is not None:
            d["details"]["graph"] = {"format": graph, "text": result.graph(graph)}
        if suggested is not None:
            d["details"]["suggested_items"] = suggested.to_dict()
        emit(d, as_json, render)
    else:
        emit(result, as_json, render)
    if plot is not None:
        from ..report.cli import save_plot
        save_plot(result, plot, console=None if (as_json or markdown) else console)


def _check_suggest(k: Optional[int], seed: Optional[int], cols: Any) -> None:
    from ..errors import ParameterError
    if seed is not None and k is None:
        raise ParameterError("--seed is the seed of the item draws: give --suggest-items K with it")
    if k is not None and cols is not None:
        raise ParameterError("--suggest-items draws items for one leaderboard; it cannot be combined with --group-by")


def _suggestion_lines(s: Any) -> list[str]:
    """The suggested items in words (the record's details.suggested_items)."""
    if not s.undecided:
        head = f"Every pair is decided: {s.k} item(s) drawn uniformly (seed {s.seed})"
    else:
        head = (f"Items to score next ({s.k} drawn with replacement, seed {s.seed}, toward {len(s.undecided)} "
                f"undecided pair(s); score {', '.join(s.models)}):")
    out = [head]
    for e in s.items:
        pairs = ", ".join(f"{a} vs {b}" for a, b in e["pairs"][:3]) + (" ..." if len(e["pairs"]) > 3 else "")
        out.append(f"  item {e['item']}: probability {e['probability']:.4g}, weight {e['weight']:.3g}"
                   + (f"; advances {pairs}" if pairs else ""))
    out.append(f"Note: {s.note}.")
    return out
