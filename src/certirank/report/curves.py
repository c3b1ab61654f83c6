"""Power and sample-complexity pictures of a simulation study (:func:`certirank.simulate`).

:func:`curves_plot` draws, from the per-run decision trajectories, the rate of each quantity against the
number of evaluations (or replicates): power, full-ranking rate and the FWER with the alpha line, one line per
method. :func:`summary_plot` needs only the summary (the ``--json`` output): the FWER with its exact 95%
interval against alpha, final power / full-ranking rate, and the mean cost per method.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from .._validate import check_choice
from ..errors import ParameterError
from ._mpl import PALETTE, new_figure, rc, text_size, unique

__all__ = ["curves_plot", "summary_plot", "METRIC_LABELS"]

METRIC_LABELS = {
    "power": "power (fraction of true orderings certified)",
    "full_ranking": "full ranking certified, no error",
    "fwer": "FWER (any false claim so far)",
    "topk_certified": "Top-k set certified",
    "topk_false": "false Top-k certificate",
}
_METRICS = tuple(METRIC_LABELS)


def _curves_from(sim: Any, axis: str | None) -> tuple[pd.DataFrame, float | None, str]:
    if isinstance(sim, pd.DataFrame):
        need = {"method", "x"}
        if not need <= set(sim.columns):
            raise ParameterError("a curves table needs columns 'method', 'x' and the metrics (see "
                                 "SimulationResult.curves)")
        ax_name = str(sim["axis"].iloc[0]) if "axis" in sim.columns and len(sim) else (axis or "evals")
        return sim, None, ax_name
    if hasattr(sim, "curves") and hasattr(sim, "scenario"):
        leader = sim.scenario.get("kind") == "leaderboard"
        ax_name = axis or ("time" if leader else "evals")
        return sim.curves(axis=ax_name), float(sim.scenario.get("alpha")), ax_name
    raise ParameterError(f"curves_plot needs a SimulationResult or a curves DataFrame, got {type(sim).__name__}")


def _x_label(axis: str, unit: str | None) -> str:
    if axis == "evals":
        return "evaluations used (all policies)"
    return f"{unit or 'time'}s" if unit else "time"


def curves_plot(sim: Any, *, metrics: Sequence[str] = ("power", "full_ranking", "fwer"), axis: str | None = None,
                alpha: float | None = None, title: str | None = None) -> Figure:
    """Rate curves per method against the evaluation budget.

    Parameters
    ----------
    sim : SimulationResult or DataFrame
        A simulation result (its ``curves()`` are computed) or a curves table with columns ``method``,
        ``x`` and the metrics.
    metrics : sequence of str
        Panels, any of ``power``, ``full_ranking``, ``fwer``, ``topk_certified``, ``topk_false``.
    axis : {"evals", "time"}, optional
        x axis: evaluations, or native time (iterations / replicates). Default: replicates for leaderboard
        scenarios, evaluations otherwise.
    alpha : float, optional
        Level drawn as a horizontal line on FWER panels (default: the scenario's alpha).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    if axis is not None:
        axis = check_choice("axis", axis, ("evals", "time"))
    curves, sim_alpha, ax_name = _curves_from(sim, axis)
    alpha = sim_alpha if alpha is None else float(alpha)
    metrics = [check_choice("metric", m, _METRICS) for m in metrics]
    missing = [m for m in metrics if m not in curves.columns]
    if missing:
        raise ParameterError(f"the curves table has no column(s) {', '.join(missing)}")
    methods = unique(curves["method"].tolist())
    unit = None
    if hasattr(sim, "runs") and "time_unit" in getattr(sim, "runs").columns and len(sim.runs):
        unit = str(sim.runs["time_unit"].iloc[0])
    with rc():
        fig = new_figure(3.4 * len(metrics) + 0.4, 3.3 + (0.3 if title else 0.0), layout="constrained")
        axes = fig.subplots(1, len(metrics), squeeze=False)[0]
        for ax, metric in zip(axes, metrics):
            for k, method in enumerate(methods):
                c = curves[curves["method"] == method]
                ax.plot(c["x"].to_numpy(float), c[metric].to_numpy(float), color=PALETTE[k % len(PALETTE)],
                        lw=1.6, label=str(method), drawstyle="steps-post")
            if metric in ("fwer", "topk_false") and alpha is not None:
                ax.axhline(alpha, color="#B00020", ls="--", lw=1.0)
                ax.text(1.0, alpha, f" alpha = {alpha:g}", transform=ax.get_yaxis_transform(), color="#B00020",
                        va="bottom", ha="right", fontsize=8)
                top = max(float(curves[metric].max()) if len(curves) else 0.0, alpha) * 1.6 + 0.01
                ax.set_ylim(0, min(1.0, top))
            else:
                ax.set_ylim(0, 1.02)
            ax.set_title(METRIC_LABELS[metric], fontsize=9)
            ax.set_xlabel(_x_label(ax_name, unit))
            ax.grid(color="#e8e8e8", lw=0.6)
            ax.set_axisbelow(True)
        axes[0].set_ylabel("rate over simulated runs")
        axes[0].legend(loc="lower right" if metrics[0] != "fwer" else "upper left", fontsize=8)
        if title:
            fig.suptitle(title, fontsize=10)
    return fig


def summary_plot(summary: Mapping[str, Mapping[str, Any]], *, alpha: float, title: str | None = None,
                 cost_key: str | None = None) -> Figure:
    """Per-method summary of a simulation: FWER with its exact 95% interval and alpha, power, cost.

    Parameters
    ----------
    summary : mapping
        ``SimulationResult.summary`` (also the ``summary`` field of ``certirank simulate --json``).
    alpha : float
        The scenario's level.
    cost_key : str, optional
        ``mean_samples`` (policy scenarios) or ``mean_replicates`` (leaderboards); detected by default.
    """
    if not summary:
        raise ParameterError("the simulation summary is empty")
    methods = list(summary)
    if cost_key is None:
        first = summary[methods[0]]
        cost_key = "mean_samples" if "mean_samples" in first else ("mean_replicates" if "mean_replicates" in first
                                                                    else None)
    label_w = max(text_size(m, 9.0)[0] for m in methods)
    n = len(methods)
    pos = np.arange(n)
    with rc():
        panels = 3 if cost_key else 2
        fig = new_figure(label_w + 2.6 * panels + 0.6, max(2.4, 0.32 * n + 1.4 + (0.3 if title else 0.0)),
                         layout="constrained")
        axes = fig.subplots(1, panels, sharey=True, squeeze=False)[0]
        ax = axes[0]
        for k, m in enumerate(methods):
            s = summary[m]
            lo, hi = (s.get("fwer_ci") or [s["fwer"], s["fwer"]])
            colour = PALETTE[k % len(PALETTE)]
            ax.errorbar([s["fwer"]], [k], xerr=[[s["fwer"] - lo], [hi - s["fwer"]]], fmt="o", color=colour,
                        capsize=3, ms=5)
        ax.axvline(alpha, color="#B00020", ls="--", lw=1.0)
        ax.text(alpha, 1.0, f"alpha = {alpha:g}", transform=ax.get_xaxis_transform(), color="#B00020",
                ha="left", va="bottom", fontsize=8)
        ax.set_xlim(0, min(1.0, max(3 * alpha, max((summary[m].get("fwer_ci") or [0, 0])[1] for m in methods)
                                    * 1.1) + 0.01))
        ax.set_title("FWER with exact 95% interval", fontsize=9, loc="left", pad=14)
        ax.set_yticks(pos, methods)
        ax.set_ylim(n - 0.5, -0.5)
        ax = axes[1]
        power = [summary[m].get("power", np.nan) for m in methods]
        full = [summary[m].get("full_ranking_rate", np.nan) for m in methods]
        ax.barh(pos - 0.18, power, height=0.34, color=PALETTE[0], label="power")
        ax.barh(pos + 0.18, full, height=0.34, color=PALETTE[2], label="full ranking")
        ax.set_xlim(0, 1.0)
        ax.set_title("final power / full-ranking rate", fontsize=9, loc="left", pad=14)
        ax.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2)
        if cost_key:
            ax = axes[2]
            cost = [np.nan if summary[m].get(cost_key) is None else summary[m][cost_key] for m in methods]
            ax.barh(pos, cost, height=0.5, color=PALETTE[4])
            for k, v in enumerate(cost):
                if np.isfinite(v):
                    ax.text(v, k, f" {v:.0f}", va="center", ha="left", fontsize=7.5)
            finite = [v for v in cost if np.isfinite(v)]
            ax.set_xlim(0, max(finite) * 1.3 if finite and max(finite) > 0 else 1.0)
            what = "evaluations" if cost_key == "mean_samples" else "replicates"
            ax.set_title(f"mean {what} used", fontsize=9, loc="left", pad=14)
        for a in axes:
            a.grid(axis="x", color="#e8e8e8", lw=0.6)
            a.set_axisbelow(True)
        if title:
            fig.suptitle(title, fontsize=10)
    return fig
