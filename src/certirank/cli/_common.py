"""Shared pieces of the `certirank` command: the app, consoles, common options and helpers."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console

from .. import __version__
from ..errors import CertirankError
from ._registry import LazyGroup

# markup off: policy, model and method names such as 'policy[v2]' or 'anyrank0[ties=assume_none]' must print
# as written, not be read as rich style tags (renderers pass style= for emphasis)
class _SafeConsole(Console):
    """A console that never passes a control character of the *content* to the terminal.

    Policy names come from data files; an escape sequence in a name (``\\x1b[2J``, a bidi override) must show
    as text, not act on the user's terminal. Rich's own styling codes are added after this point.
    """

    def _render_buffer(self, buffer: Any) -> str:
        from rich.segment import Segment

        from .._escape import visible_controls

        def clean(text: str) -> str:
            return "\n".join(visible_controls(part) for part in text.split("\n"))

        safe = [seg if seg.control else Segment(clean(seg.text), seg.style, seg.control) for seg in buffer]
        return super()._render_buffer(safe)

    def print(self, *objects: Any, **kwargs: Any) -> None:
        super().print(*(_one_line_content(o) for o in objects), **kwargs)


def _one_line_content(obj: Any) -> Any:
    """Text and table cells with their own newlines and controls shown as ``\\x0a`` …: a policy named "A\\nB"
    split the summary line, the table row and the list of undecided pairs in two. (Renderers write one line per
    Text; rich's own line breaks are added later, in rendering, and stay.)"""
    from rich.table import Table
    from rich.text import Text

    from .._escape import visible_controls
    if isinstance(obj, str):
        return visible_controls(obj)
    if isinstance(obj, Text) and not obj.spans and visible_controls(obj.plain) != obj.plain:
        return Text(visible_controls(obj.plain), style=obj.style, justify=obj.justify, overflow=obj.overflow,
                    no_wrap=obj.no_wrap, end=obj.end)
    if isinstance(obj, Table):
        for col in obj.columns:  # rich keeps a column's cells in _cells (no public setter)
            col._cells = [_one_line_content(c) for c in col._cells]
        if isinstance(obj.title, str):
            obj.title = visible_controls(obj.title)
    return obj


console = _SafeConsole(markup=False)
err_console = _SafeConsole(stderr=True)


def one_line(text: object) -> str:
    """A message folded onto one line, with terminal control characters made visible."""
    from .._escape import terminal_text
    return " ".join(terminal_text(" ".join(str(text).splitlines())).split())


#: the lines this command printed on stderr so far (``warning: ...`` from the API's CertirankWarnings, and the
#: record's own): each is printed once, and the record's JSON holds them all
_PRINTED: list[str] = []


@contextlib.contextmanager
def _one_line_warnings() -> Any:
    """Print each CertirankWarning once, as ``warning: <one line>`` on stderr (others keep Python's format)."""
    import warnings

    from ..errors import CertirankWarning
    _PRINTED.clear()
    previous = warnings.showwarning

    def show(message: Any, category: Any, filename: Any, lineno: Any, file: Any = None, line: Any = None) -> None:
        if isinstance(category, type) and issubclass(category, CertirankWarning):
            text = f"warning: {one_line(message)}"
            if text not in _PRINTED:
                _PRINTED.append(text)
                typer.echo(text, err=True)
        else:
            previous(message, category, filename, lineno, file, line)

    with warnings.catch_warnings():
        warnings.simplefilter("always", CertirankWarning)
        warnings.showwarning = show
        yield


class _Group(LazyGroup):
    """One rule for every command: success, or ``error: <one line>`` on stderr and exit code 2.

    CertirankErrors raised by a command and the parser's own usage errors (``--alpha x``, ``--seed -1``, an
    unknown option) are printed the same way, instead of typer's boxed multi-line panel.
    """

    def invoke(self, ctx: typer.Context) -> Any:
        try:
            return super().invoke(ctx)
        except CertirankError as exc:
            typer.echo(f"error: {one_line(exc)}", err=True)
            ctx.exit(2)

    def main(self, args: Any = None, prog_name: Any = None, complete_var: Any = None, standalone_mode: bool = True,
             **extra: Any) -> Any:
        import sys

        try:  # typer >= 0.20 carries its own copy of click
            from typer._click import exceptions as click
        except ImportError:  # pragma: no cover
            import click.exceptions as click  # type: ignore[no-redef]

        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        given = list(sys.argv[1:] if args is None else args)
        nul = next((i for i, a in enumerate(given) if isinstance(a, str) and "\x00" in a), None)
        if nul is not None:  # no shell passes one, but a caller's list can; typer's path check raises ValueError
            after = f" (after {given[nul - 1]})" if nul > 0 and given[nul - 1].startswith("-") else ""
            typer.echo(f"error: a command-line value holds a NUL byte: {given[nul]!r}{after}", err=True)
            sys.exit(2)
        try:
            with _one_line_warnings():
                rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.NoArgsIsHelpError as exc:
            typer.echo(exc.format_message(), err=True)  # the help text, as `certirank` alone has always shown
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            where = getattr(getattr(exc, "ctx", None), "command_path", None)
            hint = f" (see '{where} --help')" if where and isinstance(exc, click.UsageError) else ""
            typer.echo(f"error: {one_line(exc.format_message())}{hint}", err=True)
            sys.exit(2 if isinstance(exc, click.UsageError) else exc.exit_code)
        except typer.Abort:
            typer.echo("error: aborted", err=True)
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) and not isinstance(rv, bool) else 0)


app = typer.Typer(cls=_Group, add_completion=False, no_args_is_help=True, pretty_exceptions_show_locals=False,
                  help="Certified, anytime-valid ranking of policies and models, and small robust tests.")
_Group.app = app


def _version(value: bool) -> None:
    if value:
        typer.echo(f"certirank {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit.")) -> None:
    """certirank: which of your policies is *really* better, with a guarantee that holds whenever you stop."""


def with_printed(result: Any) -> Any:
    """The result with the warnings the API raised while computing it (printed already) added to its record."""
    from ..results import Result
    if not isinstance(result, Result):
        return result
    extra = tuple(w for w in _PRINTED if w not in result.warnings)
    if not extra:
        return result
    import dataclasses
    return dataclasses.replace(result, warnings=(*extra, *result.warnings))


def emit(result: Any, as_json: bool, render: Callable[[Any], None]) -> None:
    """Print the record's warnings and notes on stderr (with --json only the warnings: the notes are in the
    JSON), then `result.to_dict()` as JSON, or call `render(result)` for people."""
    result = with_printed(result)
    # with --json the notes are in the record for the program that reads it; warnings still reach the terminal
    print_warnings(result, notes=not as_json)
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
                          "(long, wide, preferences), a file type (csv, tsv, parquet, jsonl, json), an importer "
                          "(lm-eval, inspect) or a reader: outcome-lists, folder, helm, arena, lerobot, eee, "
                          "openai-evals (docs/data-formats.md).")
SCORE_RANGE_OPT = typer.Option(None, "--score-range", help="Rescale scores from 'lo,hi' to [0, 1].")
READ_OPT = typer.Option([], "--read-option", help="Reader option KEY=VALUE (repeatable): metric, filter, task "
                        "(lm-eval logs); scorer, task (inspect_ai logs); sep (CSV delimiter); trial, score, env "
                        "(folder); policy, outcomes, keys (outcome-lists); stat, split, perturbation (helm); tie, "
                        "bothbad (arena); metric, policy (lerobot); score, evaluation (eee); field, policy "
                        "(openai-evals).")
SHUFFLE_OPT = typer.Option(None, "--shuffle", min=0, hidden=True, help="Deprecated: --about table --seed SEED.")


def read_options(verb: str) -> dict[str, Any]:
    """The typer options of spec 09 (--about, --order, --seed, --order-by, --orders) from `verb`'s declarations."""
    from ._options import declared
    return {"about": declared("about", None, verb=verb, extra_help="Default: policy (the policies' expected scores "
                                                                   "on new trials); table: only about these rows."),
            "order": declared("order", "random", verb=verb, extra_help="random: a seeded random order of the rows "
                              "(default); file: as recorded, with a check that warns about a sorted file."),
            "seed": declared("seed", 0, verb=verb, extra_help="Seed of the random order (trying seeds until one "
                             "certifies voids the guarantee; use --orders instead)."),
            "order_by": declared("order_by", None, verb=verb, extra_help="(A column named order, time or timestamp "
                                 "is recognised and announced.)"),
            "orders": declared("orders", 1, verb=verb, extra_help="K > 1: averaged over K random orders, a "
                               "statement at the table's size (docs/estimand.md).")}


def group_options(verb: str | None = None) -> dict[str, Any]:
    """The typer options --group-by and --alpha-across-groups, from the declarations of `verb`'s ``group_by`` and
    ``alpha_across_groups`` (the API verb takes the same parameters; the CLI splits COLUMN[,COLUMN])."""
    from ._options import declared
    return {"group_by": declared("group_by", None, verb=verb, extra_help="COLUMN[,COLUMN]; prints one summary "
                                 "table (the full result per group in --json)."),
            "alpha_across_groups": declared("alpha_across_groups", False, verb=verb)}


def shuffle_alias(shuffle: Optional[int], about: Optional[str], seed: int) -> tuple[Optional[str], int]:
    """The deprecated --shuffle SEED: says what it now means and returns (about, seed) = ("table", SEED)."""
    if shuffle is None:
        return about, seed
    from ..errors import ParameterError
    if about not in (None, "table") or seed not in (0, shuffle):
        raise ParameterError("--shuffle SEED is the old spelling of --about table --seed SEED; give one of them")
    typer.echo(f"warning: --shuffle is deprecated and will be removed in certirank 0.3: it now means --about "
               f"table --seed {shuffle} (claims about this table's averages only)", err=True)
    return "table", shuffle


PAIRING_OPT = typer.Option("by-env", "--pairing", help="by-env: trials of different policies on the same env label "
                           "are paired; by-order: each policy's trials in recorded order, the n-th of each paired "
                           "(unmatched rollouts; see docs/data-formats.md).")


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


def read_input(data: Path, format: Optional[str], score_range: Optional[str], read_option: list[str]) -> Any:
    """The validated table for the Python API: the file is read here once, with the reader options, and the
    table is handed on (format and range applied; `load` does not validate it again). What the reader decided
    (columns ignored, rows dropped, a draw rule) is in the result's warnings."""
    sr = parse_score_range(score_range)
    from ..data.readers import load
    return load(data, format=format, score_range=sr, **key_values(read_option, "--read-option"))


def print_warnings(result: Any, *, notes: bool = True) -> None:
    """The record's warnings and (with `notes`) notes, one line each on stderr, as they are in its JSON (each
    once)."""
    for line in getattr(result, "warnings", ()) or ():
        text = one_line(line)
        if not notes and text.startswith("note:"):
            continue
        if text not in _PRINTED:
            _PRINTED.append(text)
            typer.echo(text, err=True)


def pairing_arg(text: str) -> str:
    from .._validate import check_choice
    return {"by-env": "by_row", "by-order": "by_order"}[check_choice("--pairing", text.replace("_", "-"),
                                                                       ("by-env", "by-order"))]


def group_columns(text: Optional[str], alpha_across_groups: bool = False,
                  verb: Optional[str] = None) -> Optional[list[str]]:
    """The columns of --group-by COLUMN[,COLUMN]; with `verb`, checked with --alpha-across-groups against its
    declaration (the rule that joins them is the API's)."""
    cols = None
    if text is not None:
        cols = [c.strip() for c in text.split(",") if c.strip()]
        if not cols:
            from ..errors import ParameterError
            raise ParameterError("--group-by needs COLUMN[,COLUMN]")
    if verb is not None:
        from .._params import validate
        validate(verb, group_by=cols, alpha_across_groups=alpha_across_groups)
    return cols


def render_table_rank(res: Any, title: str, full: bool = False) -> None:
    """A ranking of the table's averages (estimand ``table``), drawn from its Ranking (the one text renderer)."""
    from ..report.text import order_sentence, ranking_renderables
    show(ranking_renderables(res.ranking, title=title, full=full, width=console.width, mean_label="table average",
                             n_label="rows", extra=[order_sentence(res.order) or "",
                                                    f"All {res.rows} rows seen: these averages are exact, nothing is "
                                                    "inferred beyond this table."]))


def render_groups(res: Any, title: str) -> None:
    """The one summary table of a --group-by run (read from each group's Ranking), and its alpha statement."""
    from rich.table import Table
    t = Table(title=title)
    for col in (*res.by, "policies", "certified pairs", "letters"):
        t.add_column(col, justify="right" if col in ("policies", "certified pairs") else "left")
    for g in res.groups:
        vals = [g["group"][c] for c in res.by]
        if g["error"]:
            t.add_row(*vals, "-" if g["policies"] is None else str(g["policies"]), "-", f"not run: {g['error']}")
        else:
            t.add_row(*vals, "-" if g["policies"] is None else str(g["policies"]),
                      "-" if g["certified_pairs"] is None else str(g["certified_pairs"]), g["letters"] or "-")
    console.print(t)
    console.print(res.statement)

JSON_OPT = typer.Option(False, "--json", help="Print the result as JSON.")
ALL_OPT = typer.Option(False, "--all", help="Show every row and pair (default: the summary and the first rows).")
QUIET_OPT = typer.Option(False, "--quiet", "-q", help="No progress bar.")


def show(renderables: list[Any]) -> None:
    """Print renderables (from certirank.report.text) on stdout, one after the other."""
    for r in renderables:
        console.print(r)


def deprecated_alias(new_value: Any, old_value: Any, old: str, new: str, default: Any = None) -> Any:
    """Resolve an option given under its old name (one release, with a warning on stderr)."""
    if old_value is None:
        return new_value
    if new_value is not None and new_value != default:  # before the warning: an error is one line
        from ..errors import ParameterError
        raise ParameterError(f"give {new} or its old spelling {old}, not both")
    typer.echo(f"warning: {old} is deprecated and will be removed in certirank 0.3; use {new}", err=True)
    return old_value




BACKEND_OPT = typer.Option(None, "--backend", help="Where the tasks run: serial, joblib (--jobs local processes), "
                           "dask (a Dask cluster: --scheduler, else a LocalCluster of --jobs workers) or ray (a Ray "
                           "cluster: --scheduler, else a local runtime of --jobs CPUs). Default: ray with a ray:// "
                           "--scheduler, dask with any other, joblib with --jobs > 1, else serial. Results do not "
                           "depend on it.")
SCHEDULER_OPT = typer.Option(None, "--scheduler", help="Dask scheduler address, e.g. tcp://host:8786 (start it with "
                             "`dask scheduler` and workers with `dask worker ADDRESS`), or a Ray cluster address "
                             "(ray://head:10001, or auto) with --backend ray.")


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


def announce_cost(what: str, pilot: Callable[[], Any], pilot_units: int, units: int, jobs: int = 1) -> None:
    """Before long work, time a small pilot and print one line on stderr with the extrapolated cost."""
    import time
    t0 = time.perf_counter()
    pilot()
    per_unit = (time.perf_counter() - t0) / max(1, pilot_units)
    seconds = per_unit * units / max(1, jobs)
    if seconds < 30:
        return
    text = f"{seconds / 3600:.1f} hours" if seconds >= 5400 else (f"{seconds / 60:.0f} minutes" if seconds >= 90
                                                                  else f"{seconds:.0f} s")
    err_console.print(f"{what}: estimated {text} (measured on a pilot of {pilot_units:,}; Ctrl-C stops it)",
                      markup=False)
