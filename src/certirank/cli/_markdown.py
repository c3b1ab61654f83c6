"""The `--markdown` option shared by rank, compare, leaderboard and check."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import typer

MARKDOWN_OPT = typer.Option(False, "--markdown", help="Print a GitHub-flavoured Markdown report (for a pull request "
                            "or a CI job summary) instead of the table.")


def check_output_flags(as_json: bool, markdown: bool) -> None:
    if as_json and markdown:
        from ..errors import ParameterError

        raise ParameterError("--json and --markdown are alternatives; give one")


def emit_or_markdown(result: Any, as_json: bool, markdown: bool, render: Callable[[Any], None], *,
                     title: str) -> None:
    """`--markdown`: the Markdown report of `result` (drawn from its Ranking); otherwise `emit`."""
    if markdown:
        from ..report.markdown import to_markdown
        from ._common import print_warnings, with_printed
        result = with_printed(result)
        print_warnings(result)
        typer.echo(to_markdown(result, title=title), nl=False)
    else:
        from ._common import emit
        emit(result, as_json, render)
