"""Drawings of the confidence graph: a layered DAG of the certified order, and rank intervals.

The graph algorithms (closure, transitive reduction, tiers, rank intervals, letters, DOT / Mermaid text)
live in :mod:`certirank.order`; this module only turns a :class:`~certirank.order.Ranking` into pictures.
:func:`ranking_of` reads that ranking from any result: the ``.ranking`` of a result object, or the
``"ranking"`` entry (schema ``certirank.ranking/1``) of its ``to_dict()`` / ``--json`` form.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Rectangle

from ..errors import ParameterError
from ..order import Ranking
from ._mpl import PALETTE, new_figure, rc, text_size, wrap_label

__all__ = ["ranking_of", "graph_plot", "rank_interval_plot", "unresolved_groups"]

_FONT = 8.0
_MAX_ROW = 15.0       # inches; wider tiers wrap onto several sub-rows
_GAP = 0.18           # between boxes in a row
_TIER_GAP = 0.55      # between tiers (room for arrows)
_SUB_GAP = 0.22       # between sub-rows of one tier
_LEFT = 0.75          # tier labels
_MARGIN = 0.25
_MAX_GROUPS = 8       # letter groups spelled out under the graph; more only repeat what the boxes say


def ranking_of(result: Any) -> Ranking:
    """The :class:`~certirank.order.Ranking` of a result.

    Accepts a ``Ranking``; any result object with a ``.ranking``; or a ``to_dict()`` / ``--json`` record (also one
    written by an earlier version, :func:`certirank.report.records.read`) or a bare ``certirank.ranking/1`` object.
    """
    if isinstance(result, Ranking):
        return result
    if isinstance(getattr(result, "ranking", None), Ranking):
        return result.ranking
    if isinstance(result, Mapping):
        from .records import read
        found = read(result).ranking
        if found is not None:
            return found
    raise ParameterError("this result holds no ranking (expected a certirank.ranking/1 object, or the result or "
                         "--json of rank, leaderboard or baseline; a --group-by result has one per group)")


def unresolved_groups(pr: Ranking) -> list[tuple[str, list[str]]]:
    """Letter groups with two or more members: sets of items no certified relation separates."""
    groups: dict[str, list[str]] = {}
    for p in pr.policies:
        for letter in _split_letters(p.letters):
            groups.setdefault(letter, []).append(p.name)
    return [(k, v) for k, v in groups.items() if len(v) >= 2]


def _split_letters(s: str) -> list[str]:
    out, prefix = [], ""
    for ch in s:  # letters beyond 52 are written as "." * k + letter
        if ch == ".":
            prefix += ch
        else:
            out.append(prefix + ch)
            prefix = ""
    return out


def _node_label(pr: Ranking, i: int) -> str:
    name, tail = pr.label(i)
    return wrap_label(name, 26) + "\n" + tail


def _edges(pr: Ranking) -> list[tuple[int, int]]:
    return [(a, b) for a, b, _ in pr._edges("reduction")]


def graph_plot(ranking: Any, *, title: str | None = None, caption: str | None = None) -> Figure:
    """Draw the confidence graph as a layered DAG.

    Arrows are the transitive reduction of the certified relations (A → B: A certified better than B;
    implied arrows omitted). Rows are tiers (longest certified chain above a model); models in one tier are
    pairwise unresolved and share a shaded band; a dashed box marks a model with no certified relation.
    Each box shows name, mean, letters and the simultaneous rank interval. A cyclic (inconsistent) set is
    drawn in one tier with every direct relation, and the title says so.

    Parameters
    ----------
    ranking : Ranking, or anything :func:`ranking_of` reads
    title, caption : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    pr = ranking_of(ranking)
    n = len(pr.policies)
    labels = [_node_label(pr, i) for i in range(n)]
    sizes = [text_size(lab, _FONT) for lab in labels]
    boxes = [(w + 0.22, h + 0.12) for w, h in sizes]
    tiers = np.asarray([p.tier for p in pr.policies], dtype=int)
    edges = _edges(pr)
    parents: dict[int, list[int]] = {i: [] for i in range(n)}
    for a, b in edges:
        parents[b].append(a)
    touched = {a for a, _ in edges} | {b for _, b in edges}

    # --- layout in inches (x right, y down)
    x = np.zeros(n)
    y = np.zeros(n)
    rows: list[tuple[int, list[int]]] = []  # (tier, members) per sub-row
    for t in sorted(set(tiers.tolist())):
        members = [i for i in range(n) if tiers[i] == t]
        # barycentre of already placed parents reduces crossings; display order otherwise
        members.sort(key=lambda i: (float(np.mean([x[p] for p in parents[i]])) if parents[i] else -1.0, i))
        chunk: list[int] = []
        width = 0.0
        for i in members:
            w = boxes[i][0]
            if chunk and width + _GAP + w > _MAX_ROW:
                rows.append((t, chunk))
                chunk, width = [], 0.0
            width = width + (_GAP if chunk else 0.0) + w
            chunk.append(i)
        rows.append((t, chunk))
        for tt, ch in rows:
            if tt == t:  # provisional x for the barycentres of the next tier
                cx = 0.0
                for i in ch:
                    x[i] = cx + boxes[i][0] / 2
                    cx += boxes[i][0] + _GAP
    row_w = [sum(boxes[i][0] for i in ch) + _GAP * (len(ch) - 1) for _, ch in rows]
    inner = max(max(row_w), 4.2)  # a minimum width keeps the legend readable
    top = _MARGIN + (0.32 if title else 0.0) + (0.2 * (caption.count("\n") + 1) if caption else 0.0) + 0.1
    cy = top
    bands: dict[int, list[float]] = {}
    prev_tier = None
    for (t, ch), rw in zip(rows, row_w):
        h = max(boxes[i][1] for i in ch)
        if prev_tier is not None:
            cy += _SUB_GAP if t == prev_tier else _TIER_GAP
        cx = _LEFT + (inner - rw) / 2
        for i in ch:
            x[i] = cx + boxes[i][0] / 2
            y[i] = cy + h / 2
            cx += boxes[i][0] + _GAP
        band = bands.setdefault(t, [cy, cy + h])
        band[1] = cy + h
        cy += h
        prev_tier = t
    fig_w = _LEFT + inner + _MARGIN
    groups = unresolved_groups(pr)
    legend = _legend_text(groups, pr, fig_w)
    legend_h = 0.0 if not legend else 0.2 + 0.135 * (legend.count("\n") + 1)
    fig_h = cy + _MARGIN + legend_h

    with rc():
        fig = new_figure(fig_w, fig_h)
        ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
        ax.set_xlim(0, fig_w)
        ax.set_ylim(fig_h, 0)
        ax.set_axis_off()
        for t, (b0, b1) in bands.items():
            count = int(np.sum(tiers == t))
            if count >= 2:
                ax.add_patch(Rectangle((_LEFT - 0.1, b0 - 0.08), inner + 0.2, b1 - b0 + 0.16, facecolor="#f1f1f1",
                                       edgecolor="none", zorder=0))
            ax.text(0.12, (b0 + b1) / 2, f"tier {t}", ha="left", va="center", fontsize=7.5, color="#555555")
        outs = {i: sorted((b for a, b in edges if a == i), key=lambda j: (x[j], j)) for i in range(n)}
        ins = {i: sorted((a for a, b in edges if b == i), key=lambda j: (x[j], j)) for i in range(n)}

        def spread(i: int, k: int, m: int) -> float:
            # fan arrows out along the box edge instead of meeting in one point
            step = min(0.22, 0.8 * boxes[i][0] / max(m, 1))
            return float(x[i] + (k - (m - 1) / 2) * step)

        for a, b in edges:
            start = (spread(a, outs[a].index(b), len(outs[a])), y[a] + boxes[a][1] / 2)
            end = (spread(b, ins[b].index(a), len(ins[b])), y[b] - boxes[b][1] / 2)
            if tiers[b] <= tiers[a]:  # only in an inconsistent set: connect the sides
                start = (x[a] + np.sign(x[b] - x[a]) * boxes[a][0] / 2, y[a])
                end = (x[b] - np.sign(x[b] - x[a]) * boxes[b][0] / 2, y[b])
            # add_artist, not add_patch: the limits are fixed, and data-limit updates of hundreds of arrows
            # (Bezier extents) cost seconds on an 80-model board
            ax.add_artist(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=9, color="#555555", lw=0.9,
                                          shrinkA=0, shrinkB=0, zorder=1,
                                          connectionstyle="arc3,rad=0.0" if tiers[b] > tiers[a] else "arc3,rad=0.3"))
        for i in range(n):
            w, h = boxes[i]
            colour = PALETTE[(int(tiers[i]) - 1) % (len(PALETTE) - 1)]
            ax.add_patch(FancyBboxPatch((x[i] - w / 2, y[i] - h / 2), w, h, boxstyle="round,pad=0,rounding_size=0.06",
                                        facecolor="white", edgecolor=colour, lw=1.3,
                                        linestyle="-" if i in touched else "--", zorder=2))
            ax.text(x[i], y[i], labels[i], ha="center", va="center", fontsize=_FONT, zorder=3, linespacing=1.15)
        if title:
            ax.text(fig_w / 2, _MARGIN, title, ha="center", va="top", fontsize=10, fontweight="bold")
        if caption:
            ax.text(fig_w / 2, _MARGIN + (0.32 if title else 0.0), caption, ha="center", va="top", fontsize=8,
                    color="#444444")
        if legend:
            ax.text(0.12, cy + _MARGIN, legend, ha="left", va="top", fontsize=7.5, color="#333333")
    return fig


def _legend_text(groups: list[tuple[str, list[str]]], pr: Ranking, fig_w: float) -> str:
    head = ("A → B: A is certified better than B (implied arrows omitted). Box: name, "
            + ("mean | " if any(p.mean is not None for p in pr.policies) else "") + "letters | rank interval. Dashed box: no certified "
            "relation. Same tier: not ordered.")
    if pr.inconsistent:
        head = f"{pr.cycle_note} Every direct relation is drawn."
    chars = max(40, int((fig_w - 0.12 - _MARGIN) * 72 / (7.5 * 0.56)))
    lines = textwrap.wrap(head, chars)
    if groups:
        shown = groups[:_MAX_GROUPS]
        text = "Not certified different (share a letter): " + "; ".join(f"{k} = {{{', '.join(v)}}}" for k, v in shown)
        if len(groups) > len(shown):
            text += f"; and {len(groups) - len(shown)} more letter groups (see the letters in each box)"
        lines += textwrap.wrap(text, chars, break_on_hyphens=False, break_long_words=True)
    return "\n".join(lines)


def rank_interval_plot(ranking: Any, *, title: str | None = None) -> Figure:
    """Simultaneous rank intervals [1 + #certified superiors, L − #certified inferiors], one row per model.

    Rows follow the ranking's display order (certified order, best first); colour = tier.
    """
    pr = ranking_of(ranking)
    n = len(pr.policies)
    order = list(range(n))
    labels = [wrap_label(pr.names[i], 44) for i in order]
    label_w = max(text_size(lab, 8.5)[0] for lab in labels)
    row = max(0.26, max(text_size(lab, 8.5)[1] for lab in labels) + 0.06)
    with rc():
        fig = new_figure(max(5.5, label_w + 4.0), max(2.2, row * n + 1.0 + (0.3 if title else 0.0)),
                         layout="constrained")
        ax = fig.add_subplot()
        for r, i in enumerate(order):
            lo, hi = pr.policies[i].rank_lo, pr.policies[i].rank_hi
            colour = PALETTE[(pr.policies[i].tier - 1) % (len(PALETTE) - 1)]
            ax.plot([lo, hi], [r, r], color=colour, lw=4, solid_capstyle="round", alpha=0.75)
            if lo == hi:
                ax.scatter([lo], [r], color=colour, s=30, zorder=3)
        ax.set_yticks(np.arange(n), labels, fontsize=8.5)
        ax.set_ylim(n - 0.5, -0.5)
        ax.set_xlim(0.5, n + 0.5)
        step = max(1, int(np.ceil(n / 15)))
        ax.set_xticks(np.arange(1, n + 1, step))
        ax.set_xlabel("rank (1 = best); the bar spans every rank still possible")
        ax.grid(axis="x", color="#e5e5e5", lw=0.6)
        ax.set_axisbelow(True)
        if title:
            ax.set_title(title)
    return fig
