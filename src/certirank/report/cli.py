"""Implementation of ``certirank report`` and of the ``--plot`` option of other commands."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import ParameterError

__all__ = ["report_command", "save_plot", "check_plot_path"]


def report_command(result: Path, *, html: Path, data: Path | None, title: str | None, plot: Path | None,
                   format: str | None, score_range: tuple[float, float] | None, as_json: bool, emit: Callable,
                   console: Any) -> Any:
    """Write the HTML page (and optionally the main figure) for a ``--json`` result file."""
    from .html import read_result, write_report

    if html.suffix.lower() not in (".html", ".htm"):
        raise ParameterError(f"--html must name an .html file, got {str(html)!r}")
    if not html.expanduser().parent.is_dir():
        raise ParameterError(f"cannot write {html}: folder {html.expanduser().parent} does not exist")
    if plot is not None:
        check_plot_path(plot)  # before the page is written: a bad --plot would otherwise fail after it
    if data is None and (format is not None or score_range is not None):
        # they say how to read --data; without it they would be dropped without a word
        raise ParameterError(f"{'--format' if format is not None else '--score-range'} says how to read --data; "
                             "give --data FILE, or leave it out")
    d = read_result(result)
    res = write_report(d, html, data=data, title=title, format=format, score_range=score_range,
                       source=str(result))
    if plot is not None:
        save_plot(d, plot, data=data, format=format, score_range=score_range)

    def render(r: Any) -> None:
        console.print(f"Wrote {r.path} ({r.kind} report, {len(r.sections)} sections, {r.figures} figures, "
                      f"{r.bytes / 1024:.0f} KB, self-contained).", markup=False)
        for note in r.notes:
            console.print(f"Note: {note}.", markup=False)
        if plot is not None:
            console.print(f"Figure written to {plot}.", markup=False)

    emit(res, as_json, render)
    return res


def save_plot(result: Any, path: Path, *, data: Any = None, format: str | None = None,
              score_range: tuple[float, float] | None = None, console: Any = None) -> Path:
    """``--plot FILE.png|FILE.svg``: write the result's main figure (see :func:`result_figure`)."""
    from .plots import plot_result

    out = plot_result(result, path, data=data, format=format, score_range=score_range)
    if console is not None:
        console.print(f"Figure written to {out}.", markup=False)
    return out


def check_plot_path(path: Path) -> Path:
    """Fail fast on a ``--plot`` file that is neither .png nor .svg (before a long computation)."""
    from ._mpl import _format_of
    _format_of(Path(path))
    parent = Path(path).expanduser().parent
    if not parent.is_dir():
        # otherwise the whole analysis runs and only the final save fails
        raise ParameterError(f"cannot write figure {path}: folder {parent} does not exist")
    return Path(path)
