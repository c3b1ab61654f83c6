"""The one picture behind ``--plot FILE.png|FILE.svg`` of ``rank``, ``leaderboard`` and ``simulate``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from ._mpl import save_figure

__all__ = ["result_figure", "plot_result"]


def result_figure(result: Any, *, data: Any = None, format: str | None = None,
                  score_range: tuple[float, float] | None = None, title: str | None = None) -> Figure:
    """The main figure of a result.

    - AnyRank ranking: score distributions with the certified letters when ``data`` is given (the paper's
      violin figure), else the confidence graph;
    - BB-EDGE leaderboard or baseline: the confidence graph;
    - simulation: power / full-ranking / FWER curves (summary chart from a ``--json`` dict).
    """
    from .records import read

    rec = read(result)
    kind = rec.kind
    d = {**rec.inputs, **rec.details}
    if kind in ("rank", "demo", "table-rank", "leaderboard", "baseline", "ranking", "campaign-status"):
        from .graph import graph_plot
        r = rec.ranking
        what = "table letters" if r.about == "table" else "letters"
        if kind in ("rank", "demo", "table-rank") and data is not None:
            from .scores import score_plot
            return score_plot(data, r.letters, title=title or "Scores by policy, ordered by mean",
                              caption=f"{what}: {r.kind} at alpha = {r.alpha:g} (policies sharing a letter are not "
                              "certified different"
                              + ("; about this table's averages only" if r.about == "table" else "")
                              + "); distributions: all recorded trials", format=format, score_range=score_range)
        cap = r.kind + (f", alpha = {r.alpha:g}" if r.alpha is not None else "")
        cap += "; table letters: about this table's averages only" if r.about == "table" else ""
        return graph_plot(r, title=title or "Confidence graph", caption=cap)
    if kind == "simulate":
        alpha = float(d["scenario"].get("alpha", 0.05))
        name = d["scenario"].get("name", "")
        if hasattr(result, "curves"):
            from .curves import curves_plot
            return curves_plot(result, alpha=alpha, title=title or f"{name}: {d['reps']} simulated runs")
        from .curves import summary_plot
        return summary_plot(d["summary"], alpha=alpha, title=title or f"{name}: {d['reps']} simulated runs")
    from ..errors import ParameterError
    raise ParameterError(f"--plot is not available for a {kind} result; use 'certirank report' for a page")


def plot_result(result: Any, path: str | Path, **kwargs: Any) -> Path:
    """Write :func:`result_figure` to ``path`` (``.png`` or ``.svg``)."""
    from ._mpl import _format_of
    _format_of(Path(path))  # fail on a bad suffix before any drawing
    return save_figure(result_figure(result, **kwargs), path)
