"""`certirank compare`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer
from rich.table import Table

from ._common import (ALPHA_ACROSS_OPT, DATA_ARG, FORMAT_OPT, GROUP_BY_OPT, JSON_OPT, PAIRING_OPT, READ_OPT,
                      SCORE_RANGE_OPT, SHUFFLE_OPT, app, console, emit, group_columns, pairing_arg, read_input,
                      render_groups, render_shuffled, warn_order, warn_order_groups)
from ._markdown import MARKDOWN_OPT, check_output_flags, emit_or_markdown
from ._options import declared


@app.command("compare")
def compare_cmd(data: Path = DATA_ARG,
                a: str = typer.Option(..., "--a", help="Policy X (baseline)."),
                b: str = typer.Option(..., "--b", help="Policy Y (challenger)."),
                alpha: float = typer.Option(0.05, "--alpha", help="Level: P(ever declaring a wrong direction) <= alpha."),
                bettor: Optional[str] = typer.Option(None, "--bettor", help="calibrated (default), adaptive, beta_mixture, "
                                                     "mixture, nscore, bernoulli_kelly, agrapa, ons, prpl_eb or "
                                                     "hoeffding (changes speed, never validity)."),
                ties: str = declared("ties", "allow"),
                bins: str = declared("bins", "progress", extra_help="binary declares the scores binary (needed by "
                                                                    "--n-max)."),
                pairing: str = PAIRING_OPT, shuffle: Optional[int] = SHUFFLE_OPT, group_by: Optional[str] = GROUP_BY_OPT,
                alpha_across_groups: bool = ALPHA_ACROSS_OPT,
                n_max: Optional[int] = typer.Option(None, "--n-max", help="Trial budget fixed before the data: "
                                                    "with --bins binary, the exact budget test (valid up to it)."),
                arms: str = declared("arms", "paired", extra_help="independent: rollouts paired by order only."),
                extendable: bool = declared("extendable", False),
                margin: Optional[float] = declared("margin", None, verb="compare",
                                                   extra_help="Shares the level with the difference test."),
                futility: float = declared("futility", 0.1, verb="compare", extra_help="Used with --n-max."),
                format: Optional[str] = FORMAT_OPT, score_range: Optional[str] = SCORE_RANGE_OPT,
                read_option: list[str] = READ_OPT, as_json: bool = JSON_OPT, markdown: bool = MARKDOWN_OPT) -> None:
    """Sequentially compare two policies on their paired trials, in recorded order (anytime-valid)."""
    check_output_flags(as_json, markdown)
    from ..evidence.compare import _pairs_from_table, compare

    pair = pairing_arg(pairing)
    cols = group_columns(group_by)
    if shuffle is not None:
        from .rank import _refuse_with_shuffle
        _refuse_with_shuffle(bettor=bettor is not None, ties=ties != "allow", bins=bins != "progress",
                             n_max=n_max is not None, arms=arms != "paired", extendable=extendable,
                             margin=margin is not None)
    table, _, _ = read_input(data, format, score_range, read_option)

    def run(tab: Any, level: float) -> Any:
        if shuffle is not None:
            from ..methods.shuffled import shuffled_ranking
            return shuffled_ranking(tab, level, seed=shuffle, policies=[a, b])
        xs, ys = _pairs_from_table(tab, a, b, pairing=pair)
        return compare(xs, ys, alpha=level, bettor=bettor, ties=ties, bins=bins, n_max=n_max, arms=arms,
                       extendable=extendable, margin=margin, futility=futility)

    if cols is not None:
        from ..methods.groups import run_by_group
        grouped = run_by_group(table, cols, run, alpha=alpha, alpha_across_groups=alpha_across_groups,
                               method="compare")
        warn_order_groups(table, cols)
        title = f"{data}: {a} vs {b} in {len(grouped.groups)} groups of {', '.join(cols)}"
        emit_or_markdown(grouped, as_json, markdown, lambda r: render_groups(r, title), title=title)
        return
    if shuffle is not None:
        from ..errors import ParameterError
        if pair != "by_row":
            raise ParameterError("--shuffle replays whole rows (paired by environment); not with --pairing by-order")
        title = f"{data}: {a} vs {b}, shuffled replay (seed {shuffle}), tested without replacement"
        emit_or_markdown(run(table, alpha), as_json, markdown, lambda r: render_shuffled(r, title), title=title)
        return
    warn_order(table)
    result = run(table, alpha)

    def render(res: Any) -> None:
        console.print(res.describe(a, b))
        t = Table(show_header=True)
        for col in ("pairs used", "p-value", f"p-value: {a} worse", f"p-value: {a} better",
                    "decided at pair"):
            t.add_column(col, justify="right")
        t.add_row(str(res.n), f"{res.pvalue:.4g}", f"{res.p_less:.4g}", f"{res.p_more:.4g}",
                  "-" if res.decided_at is None else str(res.decided_at))
        console.print(t)
        console.print(f"Verdict: {res.verdict}" + ("" if res.margin is None else
                      f" (equivalence margin {res.margin:g}: p = {res.p_equivalent:.4g})"))
        tie_note = ("valid even if the two are exactly tied" if res.ties == "allow"
                    else "assumes the two are never exactly tied")
        where = ("at whatever pair you stop" if res.horizon is None
                 else f"at whatever pair you stop up to the budget of {res.horizon} trials")
        what = ("declaring the wrong policy better or declaring equivalence wrongly" if res.margin is not None
                else "declaring the wrong policy better")
        console.print(f"Guarantee: the chance of ever {what}, {where}, is at most "
                      f"alpha = {res.alpha:g} (ties = {res.ties}: {tie_note}). Test: {res.test}.")

    if markdown:
        from ..report.markdown import to_markdown

        typer.echo(to_markdown(result, x=a, y=b, title=f"{data}: {a} vs {b}"), nl=False)
        return
    # the JSON names the two policies so it stands on its own (reports read it without the command line)
    emit({"x": a, "y": b, **result.to_dict()} if as_json else result, as_json, render)
