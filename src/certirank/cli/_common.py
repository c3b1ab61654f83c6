"""Shared pieces of the `certirank` command: the app, consoles, common options and helpers."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from typer.core import TyperGroup

from .. import __version__
from ..errors import CertirankError

# markup off: policy, model and method names such as 'policy[v2]' or 'anyrank0[ties=assume_none]' must print
# as written, not be read as rich style tags (renderers pass style= for emphasis)
console = Console(markup=False)
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
    from ..errors import ParameterError
    try:
        lo, hi = (float(v) for v in text.split(","))
    except ValueError:
        raise ParameterError(f"--score-range must be 'lo,hi' (two numbers), got {text!r}") from None
    return lo, hi


DATA_ARG = typer.Argument(..., help="Evaluation data file (CSV/TSV, Parquet, JSONL, wide per-trial table, "
                          "preferences, lm-eval samples folder, inspect_ai log).")
FORMAT_OPT = typer.Option(None, "--format", "-f", help="Input format (default: detected from the file). A layout "
                          "(long, wide, preferences), a file type (csv, tsv, parquet, jsonl, json) or an importer "
                          "(lm-eval, inspect).")
SCORE_RANGE_OPT = typer.Option(None, "--score-range", help="Rescale scores from 'lo,hi' to [0, 1].")
READ_OPT = typer.Option([], "--read-option", help="Reader option KEY=VALUE (repeatable): metric, filter, task "
                        "(lm-eval logs); scorer, task (inspect_ai logs); sep (CSV delimiter).")


def key_values(items: list[str], what: str) -> dict[str, str]:
    """Repeated ``KEY=VALUE`` options -> dict (values kept as text)."""
    from ..errors import ParameterError
    out: dict[str, str] = {}
    for it in items:
        k, eq, v = it.partition("=")
        if not eq or not k.strip():
            raise ParameterError(f"{what} must be KEY=VALUE, got {it!r}")
        out[k.strip()] = v.strip()
    return out


def read_input(data: Path, format: Optional[str], score_range: Optional[str],
               read_option: list[str]) -> tuple[Any, Optional[str], Optional[tuple[float, float]]]:
    """(data, format, score_range) for the Python API. With ``--read-option`` the file is read here, with those
    options, and the table is handed on (format and range already applied); otherwise the path goes on."""
    sr = parse_score_range(score_range)
    if not read_option:
        return data, format, sr
    from ..data.readers import load
    return load(data, format=format, score_range=sr, **key_values(read_option, "--read-option")), None, None

JSON_OPT = typer.Option(False, "--json", help="Print the result as JSON.")


BACKEND_OPT = typer.Option(None, "--backend", help="Where the tasks run: serial, joblib (--jobs local processes) or "
                           "dask (a Dask cluster: --scheduler, else a LocalCluster of --jobs workers). Default: dask "
                           "with --scheduler, joblib with --jobs > 1, else serial. Results do not depend on it.")
SCHEDULER_OPT = typer.Option(None, "--scheduler", help="Dask scheduler address, e.g. tcp://host:8786 (start it with "
                             "`dask scheduler` and workers with `dask worker ADDRESS`).")


class progress_bar:
    """Context manager giving a ``progress(done, total)`` callback that draws a bar on stderr.

    The bar shows only when stderr is a terminal; otherwise the callback is ``None`` (nothing is drawn).
    """

    def __init__(self, label: str, unit: str = "tasks") -> None:
        self.label, self.unit = label, unit
        self._bar: Any = None

    def __enter__(self) -> Optional[Callable[[int, int], None]]:
        if not getattr(err_console.file, "isatty", lambda: False)():
            return None
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self._bar = Progress(TextColumn(self.label), BarColumn(), MofNCompleteColumn(), TextColumn(self.unit),
                             TimeRemainingColumn(), console=err_console, transient=True)
        self._bar.__enter__()
        task = self._bar.add_task(self.unit, total=None)

        def update(done: int, total: int) -> None:
            self._bar.update(task, completed=done, total=total)

        return update

    def __exit__(self, *exc: Any) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)
