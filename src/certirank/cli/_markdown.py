"""The `--markdown` option shared by rank, compare, leaderboard and check."""

from __future__ import annotations

import typer

MARKDOWN_OPT = typer.Option(False, "--markdown", help="Print a GitHub-flavoured Markdown report (for a pull request "
                            "or a CI job summary) instead of the table.")


def check_output_flags(as_json: bool, markdown: bool) -> None:
    if as_json and markdown:
        from ..errors import ParameterError

        raise ParameterError("--json and --markdown are alternatives; give one")
