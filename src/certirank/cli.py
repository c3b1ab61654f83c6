"""The `certirank` command: a thin shell over the Python API.

Every command computes a result object through the public API and either prints it for people or, with
`--json`, prints exactly `result.to_dict()`. User errors (`CertirankError`) become one or two lines on
stderr and exit code 2; implementations are imported inside each command so `certirank --help` is fast.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.table import Table
from typer.core import TyperGroup

from . import __version__
from .errors import CertirankError

console = Console()
err_console = Console(stderr=True)


class _Group(TyperGroup):
    """Turns every CertirankError raised by a command into a short message and exit code 2."""

    def invoke(self, ctx: typer.Context) -> Any:
        try:
            return super().invoke(ctx)
        except CertirankError as exc:
            typer.echo(f"error: {exc}", err=True)
            ctx.exit(2)


app = typer.Typer(cls=_Group, add_completion=False, no_args_is_help=True, pretty_exceptions_show_locals=False,
                  help="Certified, anytime-valid ranking of policies and models, and small robust tests.")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"certirank {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit.")) -> None:
    """certirank: which of your policies is *really* better, with a guarantee that holds whenever you stop."""


def emit(result: Any, as_json: bool, render: Callable[[Any], None]) -> None:
    """Print `result.to_dict()` as JSON, or call `render(result)` for people."""
    if as_json:
        data = result.to_dict() if hasattr(result, "to_dict") else result
        typer.echo(json.dumps(data, indent=2, allow_nan=False))
    else:
        render(result)


def parse_score_range(text: Optional[str]) -> Optional[tuple[float, float]]:
    """`--score-range lo,hi` -> (lo, hi)."""
    if text is None:
        return None
    from .errors import ParameterError
    try:
        lo, hi = (float(v) for v in text.split(","))
    except ValueError:
        raise ParameterError(f"--score-range must be 'lo,hi' (two numbers), got {text!r}") from None
    return lo, hi


DATA_ARG = typer.Argument(..., help="Evaluation data file (CSV/TSV, Parquet, JSONL, wide per-trial table, "
                          "preferences, lm-eval samples folder, inspect_ai log).")
FORMAT_OPT = typer.Option(None, "--format", "-f", help="Input format (default: detected from the file). One of: "
                          "long, wide, preferences, parquet, jsonl, lm-eval, inspect.")
SCORE_RANGE_OPT = typer.Option(None, "--score-range", help="Rescale scores from 'lo,hi' to [0, 1].")
JSON_OPT = typer.Option(False, "--json", help="Print the result as JSON.")


@app.command("inspect")
def inspect_cmd(data: Path = DATA_ARG, format: Optional[str] = FORMAT_OPT,
                score_range: Optional[str] = SCORE_RANGE_OPT, as_json: bool = JSON_OPT) -> None:
    """Summarise an evaluation file: per-policy count, mean and missing trials."""
    from .data.summary import summarize
    from .data.readers import load

    table = load(data, format=format, score_range=parse_score_range(score_range))
    result = summarize(table)

    def render(res: Any) -> None:
        t = Table(title=f"{data} — {res.format}: {len(res.policies)} policies, {res.n_observations} observations")
        for col in ("policy", "trials", "mean", "std", "missing"):
            t.add_column(col, justify="left" if col == "policy" else "right")
        for p in res.policies:
            t.add_row(p["policy"], str(p["count"]), f"{p['mean']:.3f}", f"{p['std']:.3f}", str(p["missing"]))
        console.print(t)

    emit(result, as_json, render)


def main() -> None:
    """Console-script entry point."""
    app(prog_name="certirank")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
