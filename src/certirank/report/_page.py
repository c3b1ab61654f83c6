"""The HTML page every report is drawn on: its frame, styles and table helpers (``certirank report``)."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import __version__
from ._mpl import figure_svg

_CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;
color:#222;line-height:1.45}
h1{font-size:1.5em;margin-bottom:.2em} h2{font-size:1.15em;border-bottom:1px solid #ddd;padding-bottom:.2em;
margin-top:1.8em} .sub{color:#666;margin-top:0}
table{border-collapse:collapse;margin:.6em 0;font-size:.92em} th,td{border:1px solid #ddd;padding:.25em .6em;
text-align:right} th{background:#f4f4f4} td.l,th.l{text-align:left}
.guarantee{background:#eef5fb;border-left:4px solid #0072B2;padding:.7em 1em}
.warn{background:#fdf1e8;border-left:4px solid #D55E00;padding:.7em 1em}
figure{margin:1em 0;overflow-x:auto} figure svg{max-width:100%;height:auto} figcaption{color:#555;font-size:.9em}
pre{background:#f7f7f7;padding:.6em;overflow-x:auto;font-size:.85em} ul.pairs{columns:2;font-size:.92em}
"""


class _Page:
    def __init__(self, title: str, subtitle: str) -> None:
        self.title = title
        self.subtitle = subtitle
        self.parts: list[str] = []
        self.sections: list[str] = []
        self.figures = 0
        self.notes: list[str] = []

    def section(self, sid: str, heading: str, body: str) -> None:
        self.sections.append(sid)
        self.parts.append(f'<section id="{sid}">\n<h2>{_e(heading)}</h2>\n{body}\n</section>')

    def figure(self, fig: Any, caption: str) -> str:
        self.figures += 1
        return f"<figure>{figure_svg(fig)}<figcaption>{_e(caption)}</figcaption></figure>"

    def render(self) -> str:
        body = "\n".join(self.parts)
        return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>{_e(self.title)}</title>\n'
                f'<meta name="generator" content="certirank {__version__}">\n<style>{_CSS}</style>\n</head>\n<body>\n'
                f'<h1>{_e(self.title)}</h1>\n<p class="sub">{_e(self.subtitle)}</p>\n{body}\n'
                f'<footer><p class="sub">Made by certirank {__version__}. Everything on this page is in this one '
                f"file.</p></footer>\n</body>\n</html>\n")


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _num(v: Any, fmt: str = ".3f") -> str:
    if v is None:
        return "–"
    if isinstance(v, (float, np.floating)) and not np.isfinite(v):
        return "–"
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return str(v)
    try:
        return format(float(v), fmt)
    except (TypeError, ValueError):
        return _e(v)


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]], left: int = 1) -> str:
    """An HTML table; the first ``left`` columns are left-aligned text. Cells are escaped unless pre-built."""
    th = "".join(f'<th class="l">{_e(h)}</th>' if k < left else f"<th>{_e(h)}</th>" for k, h in enumerate(header))
    out = [f"<table><thead><tr>{th}</tr></thead><tbody>"]
    for row in rows:
        tds = "".join(f'<td class="l">{_e(c)}</td>' if k < left else f"<td>{c if isinstance(c, _Raw) else _e(c)}</td>"
                      for k, c in enumerate(row))
        out.append(f"<tr>{tds}</tr>")
    out.append("</tbody></table>")
    return "".join(out)


class _Raw(str):
    """Already-escaped HTML for a table cell."""


def _pct(alpha: float) -> str:
    return f"{100 * (1 - alpha):g}%"


