"""certirank.report -- pictures and pages people can trust and share (headless matplotlib, no pyplot).

API summary
-----------
Figures (each returns a :class:`matplotlib.figure.Figure`; save with :func:`save_figure` to .png / .svg,
or get text with :func:`figure_svg`):
    ``score_plot(data, letters=None, *, means=None, order=None, title=None, caption=None, kind="auto",
        orientation="auto")``   per-policy violins (strip + box for few trials, bars for 0/1 scores), ordered by
        mean, compact letters above each policy (the AnyRank paper's figure)
    ``graph_plot(ranking, *, title=None, caption=None)``   layered DAG of the transitive reduction of the
        certified relations; rows = tiers, unresolved tiers shaded, isolated models dashed
    ``rank_interval_plot(ranking, *, title=None)``   simultaneous rank intervals
    ``curves_plot(sim, *, metrics=("power", "full_ranking", "fwer"), axis=None, alpha=None)``   one line per
        method against evaluations, alpha line on FWER panels
    ``summary_plot(summary, *, alpha)``   FWER with exact interval vs alpha, power, cost (from --json)
    ``result_figure(result, data=None)`` / ``plot_result(result, path, data=None)``   the ``--plot`` picture
Graph input: ``ranking_of(result)`` -> :class:`certirank.order.Ranking` from any ranking result (object or
    ``--json`` dict); DOT / Mermaid text come from ``Ranking.to_dot`` / ``to_mermaid`` (the one writer).
Pages: ``html_report(result, data=None, title=None) -> (html, page)``, ``write_report(result, path, ...)
    -> ReportResult``, ``detect_kind(dict)``.
"""

from __future__ import annotations

import importlib
from typing import Any

# names -> defining module, imported on first use: the terminal renderers (report.text) must not pull in
# matplotlib for every `certirank compare` (tests/test_startup.py checks the import set)
_HOMES = {"figure_png": "_mpl", "figure_svg": "_mpl", "save_figure": "_mpl", "curves_plot": "curves",
          "summary_plot": "curves", "graph_plot": "graph", "rank_interval_plot": "graph", "ranking_of": "graph",
          "unresolved_groups": "graph", "ReportResult": "html", "detect_kind": "html", "html_report": "html",
          "read_result": "html", "write_report": "html", "plot_result": "plots", "result_figure": "plots",
          "policy_scores": "scores", "score_plot": "scores"}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        value = getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["ReportResult", "curves_plot", "detect_kind", "figure_png", "figure_svg", "graph_plot",
           "html_report", "plot_result", "policy_scores", "rank_interval_plot", "ranking_of", "read_result",
           "result_figure", "save_figure", "score_plot", "summary_plot", "unresolved_groups", "write_report"]
