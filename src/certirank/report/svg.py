"""A small, dependency-free SVG drawing of a certified order (for pages that redraw every few seconds).

The matplotlib figures of :mod:`certirank.report.graph` are the publication plots; a live page re-renders on
every record, so it needs a drawing that costs microseconds. Nodes are laid out in layers by longest path
from the top (a policy sits one layer below the lowest policy certified better than it), edges are the
transitive reduction, and every label is XML-escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape

import numpy as np

from .._escape import visible_controls
from ..order.closure import transitive_closure, transitive_reduction

__all__ = ["order_svg"]

_NODE_W, _NODE_H, _GAP_X, _GAP_Y, _PAD = 132, 34, 16, 46, 12


def _xml(text: object) -> str:
    """Text for an SVG element or attribute: controls made visible first (XML 1.0 forbids most of them, and
    one ESC in a name made the file unreadable), then ``& < > "`` escaped."""
    return escape(visible_controls(text), {'"': "&quot;"})


def _label(text: str, limit: int = 18) -> str:
    text = " ".join(str(text).split())  # newlines and tabs inside names would break the drawing
    text = visible_controls(text)
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _layers(closure: np.ndarray) -> list[int]:
    n = closure.shape[0]
    depth = [0] * n
    # closure is acyclic when consistent; n passes of relaxation reach the longest path either way
    for _ in range(n):
        changed = False
        for i in range(n):
            for j in np.nonzero(closure[:, i])[0]:
                if j != i and depth[j] + 1 > depth[i]:
                    depth[i] = depth[j] + 1
                    changed = True
        if not changed:
            break
    return [min(d, n - 1) for d in depth]


def order_svg(names: Sequence[str], better: Sequence[tuple[str, str]], *,
              captions: Sequence[str] | None = None, title: str = "certified order") -> str:
    """SVG of the certified relation ``better`` (pairs (winner, loser)) over ``names``.

    ``captions`` (one per name, optional) is a second, smaller line under each name, e.g. the mean and the
    letters. Arrows point from the better policy to the worse one; only the transitive reduction is drawn.
    """
    names = [str(n) for n in names]
    idx = {n: i for i, n in enumerate(names)}
    n = len(names)
    rel = np.zeros((n, n), dtype=bool)
    for a, b in better:
        if a in idx and b in idx and a != b:
            rel[idx[a], idx[b]] = True
    clo = transitive_closure(rel)
    red = transitive_reduction(clo) if not np.any(np.diag(clo)) else rel
    depth = _layers(clo)
    rows: dict[int, list[int]] = {}
    for i in range(n):
        rows.setdefault(depth[i], []).append(i)
    width = max(len(r) for r in rows.values()) if rows else 1
    w = 2 * _PAD + width * _NODE_W + (width - 1) * _GAP_X
    h = 2 * _PAD + len(rows) * _NODE_H + max(len(rows) - 1, 0) * _GAP_Y
    pos: dict[int, tuple[float, float]] = {}
    for d, members in sorted(rows.items()):
        row_w = len(members) * _NODE_W + (len(members) - 1) * _GAP_X
        x0 = (w - row_w) / 2
        for k, i in enumerate(members):
            pos[i] = (x0 + k * (_NODE_W + _GAP_X), _PAD + d * (_NODE_H + _GAP_Y))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w:.0f} {h:.0f}" width="100%" '
           f'style="max-width:{w:.0f}px" role="img" aria-label="{_xml(title)}">',
           f"<title>{_xml(title)}</title>",
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#555"/></marker></defs>']
    for a, b in zip(*np.nonzero(red)):
        (xa, ya), (xb, yb) = pos[int(a)], pos[int(b)]
        out.append(f'<line x1="{xa + _NODE_W / 2:.1f}" y1="{ya + _NODE_H:.1f}" x2="{xb + _NODE_W / 2:.1f}" '
                   f'y2="{yb - 2:.1f}" stroke="#555" stroke-width="1.4" marker-end="url(#arrow)"/>')
    for i, name in enumerate(names):
        x, y = pos[i]
        out.append(f'<g><title>{_xml(name)}</title><rect x="{x:.1f}" y="{y:.1f}" width="{_NODE_W}" '
                   f'height="{_NODE_H}" rx="6" fill="#eef3fb" stroke="#4a6fa5"/>')
        cap = captions[i] if captions is not None else ""
        ty = y + (13 if cap else 21)
        out.append(f'<text x="{x + _NODE_W / 2:.1f}" y="{ty:.1f}" text-anchor="middle" font-size="12" '
                   f'font-family="sans-serif">{_xml(_label(name))}</text>')
        if cap:
            out.append(f'<text x="{x + _NODE_W / 2:.1f}" y="{y + 27:.1f}" text-anchor="middle" font-size="10" '
                       f'fill="#555" font-family="sans-serif">{_xml(_label(cap, 24))}</text>')
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out)
