"""`certirank check`: a CI gate on claims like "A>B"."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from ._common import app, console, DATA_ARG, FORMAT_OPT, SCORE_RANGE_OPT, READ_OPT, read_input, read_options, JSON_OPT
from ._markdown import MARKDOWN_OPT, check_output_flags, emit_or_markdown
from ._options import declared

_READ = read_options("check")


@app.command("check")
def check_cmd(data: Path = DATA_ARG,
              claim: list[str] = typer.Option(..., "--claim", help="A claim 'A>B' (A is better than B) or 'A<B'; "
                                              "'A>=B' (A not worse than B by --margin); repeatable."),
              alpha: Optional[float] = typer.Option(None, "--alpha", help="Family-wise level over all claims (Holm); default 0.05, or a campaign file's own locked alpha."),
              bettor: Optional[str] = typer.Option(None, "--bettor", help="Bettor of the paired tests, as for compare "
                                                   "(default calibrated): it changes power and decision times, "
                                                   "never validity."),
              ties: str = typer.Option("allow", "--ties", help="allow (valid under exact ties) or assume_none."),
              about: Optional[str] = _READ["about"], order: str = _READ["order"], seed: int = _READ["seed"],
              order_by: Optional[str] = _READ["order_by"], orders: int = _READ["orders"],
              fail_on: str = declared("fail_on", "any", verb="check", extra_help="reversed: pass unless a claim is "
                                      "certified the other way (a pull-request gate)."),
              margin: Optional[float] = declared("margin", None, verb="check", extra_help="e.g. 0.02: a claim "
                                                 "'new>=old' passes when new is certified less than 2 points below "
                                                 "old."),
              format: Optional[str] = FORMAT_OPT, score_range: Optional[str] = SCORE_RANGE_OPT,
              read_option: list[str] = READ_OPT, as_json: bool = JSON_OPT, markdown: bool = MARKDOWN_OPT) -> None:
    """CI gate: exit 0 if every claim is certified, 1 if one is not (yet), 3 if one is certified the other way
    (--fail-on reversed: 0 unless one is certified the other way)."""
    from ..campaign._check import is_campaign_file
    from ..integrations.check import check

    check_output_flags(as_json, markdown)
    if is_campaign_file(data):
        # a campaign file: verified, then read off its own certified ranking (never through the table readers)
        result = check(data, claim, alpha=alpha, bettor=bettor, ties=ties, format=format,
                       score_range=score_range, about=about or "policy", order=order, seed=seed, order_by=order_by,
                       orders=orders, fail_on=fail_on, margin=margin,
                       **({"read_option": read_option} if read_option else {}))
    else:
        source = read_input(data, format, score_range, read_option)
        result = check(source, claim, alpha=alpha, bettor=bettor, ties=ties, about=about or "policy", order=order,
                       seed=seed, order_by=order_by, orders=orders, fail_on=fail_on, margin=margin)

    def render(res: Any) -> None:
        from ..report.text import order_sentence
        for line in res.lines():
            console.print(line)
        said = order_sentence(res.order)
        if said:
            console.print(said)
        console.print(f"Guarantee: {res.statement}")

    emit_or_markdown(result, as_json, markdown, render, title=f"certirank check: {data}")
    raise typer.Exit(result.exit_code)
