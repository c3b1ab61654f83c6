"""Headless matplotlib plumbing shared by every report figure.

Figures are plain :class:`matplotlib.figure.Figure` objects rendered through the Agg / SVG backends directly,
so nothing here touches pyplot's global state (safe in servers, tests and worker processes). SVG text is
written as ``<text>`` elements (``svg.fonttype = none``): the pages stay small and searchable, and tests can
read policy names and letters back from the markup.
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import matplotlib
from matplotlib.figure import Figure

from .._escape import visible_controls
from ..errors import ParameterError

__all__ = ["rc", "new_figure", "save_figure", "figure_svg", "figure_png", "wrap_label", "text_size",
           "PALETTE"]

# Colour-blind-safe (Okabe–Ito) cycle; methods and tiers keep their colour across panels.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")

_RC: dict[str, Any] = {
    "svg.fonttype": "none",
    # fixed salt: identical inputs give byte-identical SVG (clip-path ids are hashes)
    "svg.hashsalt": "certirank",
    "font.family": "DejaVu Sans",
    "font.size": 9.0,
    "axes.titlesize": 10.0,
    "axes.labelsize": 9.0,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    # a policy called "gpt$4" must not switch on mathtext
    "text.parse_math": False,
    "text.usetex": False,
}


@contextlib.contextmanager
def rc() -> Iterator[None]:
    """The report's matplotlib settings, applied only inside the block (never globally).

    A name in a script the font lacks (CJK, emoji) makes matplotlib warn "Glyph N missing from font(s)" on
    stderr, several lines per name; the SVG keeps the text (the browser draws it) and the PNG a box, so the
    warning says nothing the user can act on and is dropped here.
    """
    with matplotlib.rc_context(_RC), _quiet_glyphs():
        yield


@contextlib.contextmanager
def _quiet_glyphs() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from")
        yield


def _visible_texts(fig: Figure) -> None:
    """Make control and bidi characters in every text of `fig` visible (``\\x1b``), as the terminal shows them:
    XML 1.0 forbids most of them, so one ESC in a policy name made the whole SVG file unreadable. Newlines
    stay (labels wrap at them); tick labels set from a list are fixed in their formatter, which redraws them."""
    from matplotlib.text import Text
    from matplotlib.ticker import FixedFormatter

    for t in fig.findobj(Text):
        text = t.get_text()
        if isinstance(text, str) and visible_controls(text, keep="\n") != text:
            t.set_text(visible_controls(text, keep="\n"))
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for fmt in (axis.get_major_formatter(), axis.get_minor_formatter()):
                if isinstance(fmt, FixedFormatter):
                    fmt.seq = [visible_controls(v, keep="\n") for v in fmt.seq]


def new_figure(width: float, height: float, **kwargs: Any) -> Figure:
    """A pyplot-free figure of the given size in inches."""
    return Figure(figsize=(float(width), float(height)), **kwargs)


def _format_of(path: Path) -> str:
    suffix = path.suffix.lower().lstrip(".")
    if suffix not in ("png", "svg"):
        raise ParameterError(f"figure file must end in .png or .svg, got {str(path)!r}")
    return suffix


def save_figure(fig: Figure, path: str | Path, *, dpi: int = 110) -> Path:
    """Write ``fig`` to ``path`` (``.png`` or ``.svg``, chosen by the suffix)."""
    p = Path(path)
    fmt = _format_of(p)
    _visible_texts(fig)
    with rc():
        try:
            fig.savefig(p, format=fmt, dpi=dpi, metadata=_metadata(fmt))
        except OSError as exc:
            raise ParameterError(f"cannot write figure {p}: {exc.strerror or exc}") from None
    return p


def _metadata(fmt: str) -> dict[str, Any]:
    # no creation date: reruns give identical files
    return {"Date": None} if fmt == "svg" else {"Software": "certirank"}


def figure_svg(fig: Figure) -> str:
    """The figure as an SVG document string (``<svg>`` root, no XML prologue: ready to inline in HTML)."""
    buf = io.StringIO()
    _visible_texts(fig)
    with rc():
        fig.savefig(buf, format="svg", metadata=_metadata("svg"))
    text = buf.getvalue()
    start = text.find("<svg")
    text = text[start:] if start >= 0 else text
    # the RDF metadata names external vocabularies by URL; an inlined figure needs none of it
    return re.sub(r"\s*<metadata>.*?</metadata>", "", text, count=1, flags=re.S)


def figure_png(fig: Figure, *, dpi: int = 110) -> bytes:
    """The figure as PNG bytes."""
    buf = io.BytesIO()
    _visible_texts(fig)
    with rc():
        fig.savefig(buf, format="png", dpi=dpi, metadata=_metadata("png"))
    return buf.getvalue()


_BREAK = re.compile(r"(?<=[_\-/. ])")


def wrap_label(name: str, width: int) -> str:
    """Wrap a policy name onto lines of about ``width`` characters, breaking after ``_ - / .`` or spaces.

    The separators stay at the end of their line, so joining the lines gives the name back (with its control
    characters, a newline of its own included, shown as ``\\xNN``: only the wrapping breaks lines).
    """
    name = visible_controls(name)
    if len(name) <= width:
        return name
    parts = [p for p in _BREAK.split(name) if p]
    lines: list[str] = []
    cur = ""
    for part in parts:
        if cur and len(cur) + len(part) > width:
            lines.append(cur)
            cur = ""
        while len(part) > width:  # a single unbreakable run: hard-wrap it
            take = width - len(cur)
            if take <= 0:
                lines.append(cur)
                cur, take = "", width
            cur += part[:take]
            part = part[take:]
            lines.append(cur)
            cur = ""
        cur += part
    if cur:
        lines.append(cur)
    return "\n".join(lines)


def text_size(text: str, fontsize: float) -> tuple[float, float]:
    """Approximate (width, height) in inches of a (multi-line) label in the report font."""
    from matplotlib.font_manager import FontProperties

    prop = FontProperties(family=_RC["font.family"], size=fontsize)
    lines = text.split("\n") or [""]
    renderer = _measurer()
    width = 0.0
    with _quiet_glyphs():
        for line in lines:
            if line:
                w, _, _ = renderer.get_text_width_height_descent(line, prop, ismath=False)
                width = max(width, w)
    height = len(lines) * fontsize * 1.25
    return width / 72.0, height / 72.0


_MEASURER: Any = None


def _measurer() -> Any:
    # one small Agg renderer at 72 dpi: widths come out in points; cheaper than outlining glyphs
    global _MEASURER
    if _MEASURER is None:
        from matplotlib.backends.backend_agg import RendererAgg
        _MEASURER = RendererAgg(8, 8, 72)
    return _MEASURER


def unique(seq: Sequence[Any]) -> list[Any]:
    seen: set[Any] = set()
    out = []
    for v in seq:
        if v not in seen:
            seen.add(v)
            out.append(v)
    return out
