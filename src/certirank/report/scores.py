"""Per-policy score distributions with compact letters (the AnyRank paper's violin figures).

One violin per policy (a jittered strip plus box when a policy has few trials, a success-rate bar for 0/1
scores), ordered by mean score, best first, with the policy's compact letters above it: two policies that
share a letter are *not* certified different.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from .._validate import check_choice
from ..errors import DataError, ParameterError
from ._mpl import PALETTE, new_figure, rc, text_size, wrap_label

__all__ = ["score_plot", "policy_scores", "MIN_VIOLIN"]

#: fewer trials than this -> strip + box instead of a kernel-density violin
MIN_VIOLIN = 20
_FONT = 9.0


def policy_scores(data: Any, *, format: str | None = None,
                  score_range: tuple[float, float] | None = None) -> dict[str, np.ndarray]:
    """Per-policy score arrays from a table, a DataFrame, a file path or a mapping ``name -> scores``.

    With repeated runs (``replicate`` > 1 for some item), each item contributes its mean over runs, so that
    a violin shows the spread over items rather than run-to-run noise.
    """
    return _policy_scores(data, format=format, score_range=score_range)[0]


def _policy_scores(data: Any, *, format: str | None = None,
                   score_range: tuple[float, float] | None = None) -> tuple[dict[str, np.ndarray], bool]:
    if isinstance(data, Mapping):
        out = {}
        for name, values in data.items():
            arr = np.asarray(values, dtype=float).ravel()
            out[str(name)] = arr[np.isfinite(arr)]
        if not out:
            raise DataError("no policies to plot (the score mapping is empty)")
        return out, False
    if isinstance(data, pd.DataFrame):
        from ..data.table import validate_table
        table = data if {"policy", "score", "order"} <= set(data.columns) else validate_table(
            data, score_range=score_range)
    else:
        from ..data.readers import load
        table = load(data, format=format, score_range=score_range)
    if "score" not in table.columns:
        raise DataError("the score-distribution plot needs per-trial scores (a 'score' column); preference "
                        "files have none", source=str(getattr(table, "attrs", {}).get("source", "")) or None)
    table = table[np.isfinite(table["score"].to_numpy(dtype=float))]
    averaged = bool("replicate" in table.columns and "env" in table.columns and table["replicate"].nunique() > 1)
    if averaged:
        table = table.groupby(["policy", "env"], sort=False, observed=True)["score"].mean().reset_index()
    out = {}
    for name, grp in table.groupby("policy", sort=False, observed=True):
        out[str(name)] = grp["score"].to_numpy(dtype=float)
    if not out:
        raise DataError("no scores to plot")
    return out, averaged


def _order(names: list[str], means: Mapping[str, float | None]) -> list[str]:
    def key(n: str) -> tuple[float, str]:
        m = means.get(n)
        return (np.inf if m is None or not np.isfinite(m) else -float(m), n)
    return sorted(names, key=key)


def _is_binary(values: np.ndarray) -> bool:
    return values.size > 0 and bool(np.all((values == 0) | (values == 1)))


def score_plot(data: Any, letters: Mapping[str, str] | None = None, *, means: Mapping[str, float] | None = None,
               order: Sequence[str] | None = None, title: str | None = None, caption: str | None = None,
               kind: str = "auto", orientation: str = "auto", format: str | None = None,
               score_range: tuple[float, float] | None = None) -> Figure:
    """Draw per-policy score distributions with compact letters.

    Parameters
    ----------
    data : table, DataFrame, path or mapping
        Per-trial scores (anything :func:`certirank.load` reads, or ``{policy: scores}``).
    letters : mapping, optional
        Compact letter display ``{policy: letters}`` (e.g. ``result.letters``); policies sharing a letter
        are not certified different. Policies without letters get none.
    means : mapping, optional
        Means used to order the policies (default: the plotted scores' means). Order is mean descending,
        ties by name.
    order : sequence of str, optional
        Explicit left-to-right (top-to-bottom) order; overrides ``means``.
    title, caption : str, optional
        Title, and a smaller line under it (e.g. what the letters certify).
    kind : {"auto", "violin", "strip", "bar"}
        ``auto``: a violin when a policy has at least :data:`MIN_VIOLIN` non-constant scores, else a
        jittered strip with a box; a success-rate bar for each policy when every score is 0 or 1.
    orientation : {"auto", "vertical", "horizontal"}
        ``auto`` lays many policies (more than 10) or long names out as rows, so labels never collide.

    Returns
    -------
    matplotlib.figure.Figure
    """
    kind = check_choice("kind", kind, ("auto", "violin", "strip", "bar"))
    orientation = check_choice("orientation", orientation, ("auto", "vertical", "horizontal"))
    scores, averaged = _policy_scores(data, format=format, score_range=score_range)
    letters = dict(letters or {})
    if letters and scores and not set(letters) & set(scores):
        # a data file of other policies (the wrong --data) would draw its scores beside letters it never had
        raise ParameterError(f"the data has none of the ranked policies ({', '.join(list(letters)[:5])}"
                             f"{', ...' if len(letters) > 5 else ''}); pass the data the result was computed from")
    names = list(scores) + [n for n in letters if n not in scores]
    data_means = {n: (float(np.mean(scores[n])) if n in scores and scores[n].size else None) for n in names}
    if order is not None:
        missing = [n for n in order if n not in names]
        if missing:
            raise ParameterError(f"order names policies that are not in the data: {', '.join(missing)}")
        names = list(order) + [n for n in names if n not in order]
    else:
        names = _order(names, dict(means) if means is not None else data_means)
    all_binary = all(_is_binary(scores.get(n, np.empty(0))) or n not in scores for n in names) and any(
        n in scores and scores[n].size for n in names)
    if kind == "auto" and all_binary:
        kind = "bar"
    longest = max(len(n) for n in names)
    if orientation == "auto":
        orientation = "vertical" if len(names) <= 10 and longest <= 32 else "horizontal"
    with rc():
        if orientation == "vertical":
            fig = _vertical(names, scores, letters, data_means, kind, title, caption)
        else:
            fig = _horizontal(names, scores, letters, data_means, kind, title, caption)
        if averaged:
            ax = fig.axes[0]
            what = "item score, mean over runs" if kind != "bar" else "success rate (item means)"
            (ax.set_ylabel if orientation == "vertical" else ax.set_xlabel)(what)
    return fig


def _colour(letter_str: str) -> str:
    if not letter_str:
        return "#888888"
    from ..order.letters import letter_name
    first = letter_str.lstrip(".")[:1]
    for k in range(52):
        if letter_name(k) == first:
            return PALETTE[k % (len(PALETTE) - 1)]  # skip black, kept for marks
    return "#888888"


def _draw(ax: Any, names: list[str], scores: Mapping[str, np.ndarray], letters: Mapping[str, str], kind: str,
          vertical: bool) -> None:
    rng = np.random.default_rng(0)  # jitter only; fixed so figures are reproducible
    pos = np.arange(len(names), dtype=float)
    for i, name in enumerate(names):
        vals = scores.get(name, np.empty(0))
        colour = _colour(letters.get(name, ""))
        p = pos[i]
        if vals.size == 0:
            ax.text(*((p, 0.5) if vertical else (0.5, p)), "no trials", ha="center", va="center", color="#666666",
                    fontsize=8, rotation=90 if vertical else 0)
            continue
        this = kind
        if kind == "auto":
            this = "violin" if vals.size >= MIN_VIOLIN and np.ptp(vals) > 0 and np.unique(vals).size >= 3 else "strip"
        if this == "violin" and (np.ptp(vals) == 0 or vals.size < 2):
            this = "strip"  # a kernel density of a constant sample does not exist
        mean = float(np.mean(vals))
        if this == "bar":
            if vertical:
                ax.bar(p, mean, width=0.6, color=colour, alpha=0.6, edgecolor=colour)
            else:
                ax.barh(p, mean, height=0.6, color=colour, alpha=0.6, edgecolor=colour)
        elif this == "violin":
            parts = ax.violinplot([vals], positions=[p], vert=vertical, widths=0.8, showextrema=False) \
                if _old_violin() else ax.violinplot([vals], positions=[p], orientation="vertical" if vertical else
                                                    "horizontal", widths=0.8, showextrema=False)
            for body in parts["bodies"]:
                body.set_facecolor(colour)
                body.set_edgecolor(colour)
                body.set_alpha(0.45)
            q1, med, q3 = np.percentile(vals, [25, 50, 75])
            if vertical:
                ax.plot([p, p], [q1, q3], color="#333333", lw=3, solid_capstyle="butt")
                ax.plot([p - 0.08, p + 0.08], [med, med], color="white", lw=1.5)
            else:
                ax.plot([q1, q3], [p, p], color="#333333", lw=3, solid_capstyle="butt")
                ax.plot([med, med], [p - 0.08, p + 0.08], color="white", lw=1.5)
        else:  # strip + box
            jitter = rng.uniform(-0.18, 0.18, size=vals.size)
            xy = (p + jitter, vals) if vertical else (vals, p + jitter)
            ax.scatter(*xy, s=10, color=colour, alpha=0.7, linewidths=0)
            ax.boxplot([vals], positions=[p], widths=0.45, showfliers=False, manage_ticks=False,
                       medianprops={"color": "#333333"}, boxprops={"color": "#333333"},
                       whiskerprops={"color": "#333333"}, capprops={"color": "#333333"},
                       **({"vert": vertical} if _old_violin() else
                          {"orientation": "vertical" if vertical else "horizontal"}))
        ax.scatter(*((p, mean) if vertical else (mean, p)), marker="D", s=22, color="white", edgecolors="black",
                   linewidths=0.8, zorder=5)


def _old_violin() -> bool:
    import matplotlib
    major, minor = (int(v) for v in matplotlib.__version__.split(".")[:2])
    return (major, minor) < (3, 10)


def _labels(names: list[str], scores: Mapping[str, np.ndarray], width: int, sep: str) -> list[str]:
    return [wrap_label(n, width) + sep + f"n = {scores[n].size if n in scores else 0}" for n in names]


def _y_limits(scores: Mapping[str, np.ndarray], kind: str) -> tuple[float, float] | None:
    vals = [v for v in scores.values() if v.size]
    if not vals:
        return None
    lo = min(float(v.min()) for v in vals)
    hi = max(float(v.max()) for v in vals)
    if kind == "bar":
        # bars show means: zoom to them (the axis still starts at 0, so bar heights compare honestly)
        top = max(float(np.mean(v)) for v in vals)
        return 0.0, min(1.04, top * 1.25 + 0.02) if lo >= 0.0 and hi <= 1.0 else top * 1.25 + 0.02
    if lo >= 0.0 and hi <= 1.0:
        return -0.04, 1.04
    pad = 0.04 * (hi - lo or 1.0)
    return lo - pad, hi + pad


def _titles(fig: Figure, title: str | None, caption: str | None) -> None:
    if title and caption:
        fig.suptitle(f"{title}\n{caption}", fontsize=9.5)
    elif title or caption:
        fig.suptitle(title or caption, fontsize=9.5)


def _score_label(kind: str, scores: Mapping[str, np.ndarray]) -> str:
    return "success rate" if kind == "bar" else "score per trial"


def _vertical(names: list[str], scores: Mapping[str, np.ndarray], letters: Mapping[str, str],
              means: Mapping[str, float | None], kind: str, title: str | None, caption: str | None) -> Figure:
    labels = _labels(names, scores, 16, "\n")
    sizes = [text_size(lab, _FONT) for lab in labels]
    letter_w = max([text_size(letters.get(n, ""), 10.0)[0] * 1.1 for n in names] + [0.0])  # bold is wider
    slot = max(0.8, max(w for w, _ in sizes) + 0.2, letter_w + 0.15)
    label_h = max(h for _, h in sizes)
    width = max(4.5, slot * len(names) + 1.0)
    extra_title = (0.25 if title else 0.0) + (0.2 if caption else 0.0)
    height = 3.2 + label_h + extra_title
    fig = new_figure(width, height, layout="constrained")
    ax = fig.add_subplot()
    _draw(ax, names, scores, letters, kind, vertical=True)
    ax.set_xticks(np.arange(len(names)), labels)
    ax.set_xlim(-0.6, len(names) - 0.4)
    lim = _y_limits(scores, kind)
    if lim:
        ax.set_ylim(*lim)
    ax.set_ylabel(_score_label(kind, scores))
    ax.grid(axis="y", color="#e5e5e5", lw=0.6)
    ax.set_axisbelow(True)
    tr = ax.get_xaxis_transform()
    for i, n in enumerate(names):
        if letters.get(n):
            ax.text(i, 1.015, letters[n], transform=tr, ha="center", va="bottom", fontsize=10, fontweight="bold",
                    clip_on=False)
    _titles(fig, title, caption)
    return fig


def _horizontal(names: list[str], scores: Mapping[str, np.ndarray], letters: Mapping[str, str],
                means: Mapping[str, float | None], kind: str, title: str | None, caption: str | None) -> Figure:
    labels = _labels(names, scores, 44, "  ")
    sizes = [text_size(lab, _FONT) for lab in labels]
    row = max(0.3, max(h for _, h in sizes) + 0.08)
    letter_w = max([text_size(letters.get(n, ""), 10.0)[0] for n in names] + [0.1])
    label_w = max(w for w, _ in sizes)
    width = max(6.0, 4.5 + label_w + letter_w)
    extra_title = (0.3 if title else 0.0) + (0.2 if caption else 0.0)
    height = max(2.5, row * len(names) + 0.9 + extra_title)
    fig = new_figure(width, height, layout="constrained")
    ax = fig.add_subplot()
    _draw(ax, names, scores, letters, kind, vertical=False)
    ax.set_yticks(np.arange(len(names)), labels)
    ax.set_ylim(len(names) - 0.5, -0.5)  # best at the top
    lim = _y_limits(scores, kind)
    if lim:
        ax.set_xlim(*lim)
    ax.set_xlabel(_score_label(kind, scores))
    ax.grid(axis="x", color="#e5e5e5", lw=0.6)
    ax.set_axisbelow(True)
    tr = ax.get_yaxis_transform()
    for i, n in enumerate(names):
        if letters.get(n):
            ax.text(1.01, i, letters[n], transform=tr, ha="left", va="center", fontsize=10, fontweight="bold",
                    clip_on=False)
    _titles(fig, title, caption)
    return fig
