"""`certirank compare`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer
from rich.table import Table

from ._common import app, console, emit, parse_score_range, DATA_ARG, FORMAT_OPT, SCORE_RANGE_OPT, READ_OPT, key_values, JSON_OPT
from ._markdown import MARKDOWN_OPT, check_output_flags


@app.command("compare")
def compare_cmd(data: Path = DATA_ARG,
                a: str = typer.Option(..., "--a", help="Policy X (baseline)."),
                b: str = typer.Option(..., "--b", help="Policy Y (challenger)."),
                alpha: float = typer.Option(0.05, "--alpha", help="Level: P(ever declaring a wrong direction) <= alpha."),
                bettor: str = typer.Option("nscore", "--bettor", help="nscore, bernoulli_kelly, agrapa, ons, "
                                           "prpl_eb or hoeffding (changes speed, never validity)."),
                ties: str = typer.Option("allow", "--ties", help="allow (valid under exact ties) or assume_none "
                                         "(the papers' setting)."),
                bins: str = typer.Option("progress", "--bins", help="N-SCORE score bins: progress (0, 0.1, ..., 1) "
                                         "or binary (0, 1)."),
                format: Optional[str] = FORMAT_OPT, score_range: Optional[str] = SCORE_RANGE_OPT,
                read_option: list[str] = READ_OPT, as_json: bool = JSON_OPT, markdown: bool = MARKDOWN_OPT) -> None:
    """Sequentially compare two policies on their paired trials, in recorded order (anytime-valid)."""
    check_output_flags(as_json, markdown)
    from ..data.readers import load
    from ..evidence.compare import _pairs_from_table, compare

    table = load(data, format=format, score_range=parse_score_range(score_range),
                 **key_values(read_option, "--read-option"))
    xs, ys = _pairs_from_table(table, a, b)
    result = compare(xs, ys, alpha=alpha, bettor=bettor, ties=ties, bins=bins)

    def render(res: Any) -> None:
        console.print(res.describe(a, b))
        t = Table(show_header=True)
        for col in ("pairs used", "p-value", f"p-value: {a} worse", f"p-value: {a} better",
                    "decided at pair"):
            t.add_column(col, justify="right")
        t.add_row(str(res.n), f"{res.pvalue:.4g}", f"{res.p_less:.4g}", f"{res.p_more:.4g}",
                  "-" if res.decided_at is None else str(res.decided_at))
        console.print(t)
        tie_note = ("valid even if the two are exactly tied" if res.ties == "allow"
                    else "assumes the two are never exactly tied")
        console.print(f"Guarantee: the chance of ever declaring the wrong policy better, at whatever pair you "
                      f"stop, is at most alpha = {res.alpha:g} (ties = {res.ties}: {tie_note}).")

    if markdown:
        from ..report.markdown import to_markdown

        typer.echo(to_markdown(result, x=a, y=b, title=f"{data}: {a} vs {b}"), nl=False)
        return
    # the JSON names the two policies so it stands on its own (reports read it without the command line)
    emit({"x": a, "y": b, **result.to_dict()} if as_json else result, as_json, render)
