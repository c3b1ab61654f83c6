"""`certirank compare`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer
from rich.table import Table

from ._common import (DATA_ARG, FORMAT_OPT, JSON_OPT, PAIRING_OPT, READ_OPT,
                      SCORE_RANGE_OPT, SHUFFLE_OPT, app, console, group_columns, pairing_arg, read_input,
                      read_options, render_groups, render_table_rank, shuffle_alias, group_options)
from ._markdown import MARKDOWN_OPT, check_output_flags, emit_or_markdown
from ._options import declared


_READ = read_options("compare")
_GROUP = group_options("compare")


@app.command("compare")
def compare_cmd(data: Path = DATA_ARG,
                a: str = typer.Option(..., "--a", help="Policy X (baseline)."),
                b: str = typer.Option(..., "--b", help="Policy Y (challenger)."),
                alpha: float = typer.Option(0.05, "--alpha", help="Level: P(ever declaring a wrong direction) <= alpha."),
                bettor: Optional[str] = typer.Option(None, "--bettor", help="calibrated (default), adaptive, beta_mixture, "
                                                     "mixture, nscore, bernoulli_kelly, agrapa, ons, prpl_eb or "
                                                     "hoeffding (changes power and decision times, never "
                                                     "validity)."),
                ties: str = declared("ties", "allow"),
                bins: Optional[str] = declared("bins", None, verb="anyrank",
                                               extra_help="Default: binary when every value of the file is 0 or 1 "
                                                          "(then the exact budget test, budget = the pairs in hand)."),
                pairing: str = PAIRING_OPT, about: Optional[str] = _READ["about"], order: str = _READ["order"],
                seed: int = _READ["seed"], order_by: Optional[str] = _READ["order_by"],
                orders: int = _READ["orders"], shuffle: Optional[int] = SHUFFLE_OPT,
                group_by: Optional[str] = _GROUP["group_by"],
                alpha_across_groups: bool = _GROUP["alpha_across_groups"],
                n_max: Optional[int] = typer.Option(None, "--n-max", help="Trial budget fixed before the data "
                                                    "(default: the pairs in hand); with binary scores, the exact "
                                                    "budget test (valid up to it)."),
                arms: Optional[str] = declared("arms", None, verb="anyrank"),
                extendable: bool = declared("extendable", False),
                margin: Optional[float] = declared("margin", None, verb="compare",
                                                   extra_help="Shares the level with the difference test."),
                futility: float = declared("futility", 0.1, verb="compare", extra_help="Used with --n-max."),
                proxy: Optional[str] = typer.Option(None, "--proxy", help="Column of a long file holding every "
                                                    "row's proxy score (simulator, world model, LLM judge); the "
                                                    "score is blank where no real label was drawn. Needs "
                                                    "--label-rate."),
                label_rate: Optional[float] = declared("label_rate", None, verb="compare",
                                                       extra_help="With --proxy."),
                format: Optional[str] = FORMAT_OPT, score_range: Optional[str] = SCORE_RANGE_OPT,
                read_option: list[str] = READ_OPT, as_json: bool = JSON_OPT, markdown: bool = MARKDOWN_OPT) -> None:
    """Sequentially compare two policies on their paired trials, read in a seeded random order (anytime-valid)."""
    check_output_flags(as_json, markdown)
    about, seed = shuffle_alias(shuffle, about, seed)
    about = about or "policy"
    from ..methods.compare import compare

    pair = pairing_arg(pairing)
    cols = group_columns(group_by, alpha_across_groups, "compare")
    if proxy is not None or label_rate is not None:
        from ..methods.proxyfile import label_rate_needed, proxy_compare, read_proxy_file
        from .rank import _refuse
        label_rate_needed(label_rate, proxy)
        _refuse("with --proxy (the proxy-assisted test takes --alpha, --margin, --n-max, --futility and the read "
                "order)", bettor=bettor is not None, ties=ties != "allow", bins=bins is not None,
                arms=arms is not None, extendable=extendable, about=about != "policy", orders=orders != 1,
                group_by=cols is not None, pairing=pair != "by_row")
        from ._common import key_values, parse_score_range
        views = read_proxy_file(data, proxy, format=format, score_range=parse_score_range(score_range),
                                read_options=key_values(read_option, "--read-option"), order=order, seed=seed,
                                order_by=order_by)
        result = proxy_compare(views, a, b, label_rate=label_rate, alpha=alpha, margin=margin, n_max=n_max,
                               futility=futility)
        emit_or_markdown(result, as_json, markdown, lambda r: _render(r, a, b), title=f"{data}: {a} vs {b}")
        return
    if about == "table":
        from .rank import refuse_with_table
        refuse_with_table(bettor=bettor is not None, ties=ties != "allow", bins=bins is not None,
                          n_max=n_max is not None, arms=arms is not None, extendable=extendable,
                          order=order != "random", order_by=order_by is not None, orders=orders != 1,
                          margin=margin is not None)
    table = read_input(data, format, score_range, read_option)

    def run(tab: Any, level: float, **groups: Any) -> Any:
        return compare(tab, alpha=level, a=a, b=b, pairing=pair, bettor=bettor, ties=ties, bins=bins, n_max=n_max,
                       arms=arms, extendable=extendable, about=about, order=order, seed=seed, order_by=order_by,
                       orders=orders, margin=margin, futility=futility, **groups)

    if cols is not None:
        grouped = run(table, alpha, group_by=cols, alpha_across_groups=alpha_across_groups)
        title = f"{data}: {a} vs {b} in {len(grouped.groups)} groups of {', '.join(cols)}"
        emit_or_markdown(grouped, as_json, markdown, lambda r: render_groups(r, title), title=title)
        return
    if about == "table":
        title = f"{data}: {a} vs {b}, table averages (rows read in a random order, seed {seed})"
        emit_or_markdown(run(table, alpha), as_json, markdown, lambda r: render_table_rank(r, title), title=title)
        return
    result = run(table, alpha)
    emit_or_markdown(result, as_json, markdown, lambda r: _render(r, a, b), title=f"{data}: {a} vs {b}")


def _render(res: Any, a: str, b: str) -> None:
    from ..report.text import order_sentence
    console.print(res.describe(a, b))
    said = order_sentence(res.order)
    if said:
        console.print(said)
    t = Table(show_header=True)
    # a decision stops the reading: its p-values are those at the deciding pair, not over every pair given
    for col in ("pairs given", "p-value (at the stop)", f"p-value: {a} worse", f"p-value: {a} better",
                "decided at pair"):
        t.add_column(col, justify="right")
    t.add_row(str(res.n), f"{res.pvalue:.4g}", f"{res.p_less:.4g}", f"{res.p_more:.4g}",
              "-" if res.decided_at is None else str(res.decided_at))
    console.print(t)
    console.print(f"Verdict: {res.verdict}" + ("" if res.margin is None else
                  f" (equivalence margin {res.margin:g}: p = {res.p_equivalent:.4g})"))
    if res.label_rate is not None:
        console.print(f"Real labels: {res.labels} of {res.n} units (label rate {res.label_rate:g}); proxy "
                      f"weight {res.proxy_weight:.3g} (learned from past labels only).")
    console.print(f"Guarantee: {res.guarantee}")
