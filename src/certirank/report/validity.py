"""The ``certirank validate --plot`` figure: each row's FWER estimate with its exact interval against its bound."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from ..errors import ParameterError
from ._mpl import PALETTE, new_figure, rc, text_size

__all__ = ["validity_plot"]


def validity_plot(result: Any, *, title: str | None = None) -> Figure:
    """One line per battery row: estimate (dot), Clopper–Pearson interval (bar), bound (red tick).

    ``result``: a :class:`certirank.sim.validation.ValidationResult` or its ``to_dict()``.
    """
    from .records import read
    rec = read(result)
    d: Mapping[str, Any] = {**rec.inputs, **rec.details}
    rows = list(d.get("rows") or [])
    if not rows:
        raise ParameterError("the validation result has no rows to plot")
    names = [str(r["name"]) for r in rows]
    label_w = max(text_size(n, 9.0)[0] for n in names)
    with rc():
        fig = new_figure(label_w + 5.0, 0.3 * len(rows) + 1.4, layout="constrained")
        ax = fig.subplots()
        pos = np.arange(len(rows))[::-1]
        for y, r in zip(pos, rows):
            lo, hi = r["interval"]
            colour = {"pass": PALETTE[0], "fail": "#B00020"}.get(r["verdict"], "#888888")
            ax.plot([lo, hi], [y, y], color=colour, lw=2)
            ax.plot([r["estimate"]], [y], "o", color=colour, ms=4)
            if r["bound"] is not None:
                ax.plot([r["bound"]], [y], "|", color="#B00020", ms=12, mew=1.5)
            else:
                ax.text(0.99, y, f"not covered: FWER {r['estimate']:.3f}", transform=ax.get_yaxis_transform(),
                        ha="right", va="center", fontsize=8, color="#666666")
        ax.set_yticks(pos, names)
        ax.axvline(d["alpha"], color="#B00020", ls="--", lw=0.8)
        covered_hi = max([r["interval"][1] for r in rows if r["bound"] is not None] + [2.2 * d["alpha"]])
        ax.set_xlim(0, min(1.0, covered_hi * 1.05))
        ax.set_xlabel(f"FWER, exact {d['confidence']:.0%} interval (red tick: bound; dashed: alpha)")
        ax.set_title(title or f"certirank validate --{d['level']}: {d['statement']}", fontsize=8, loc="left",
                     wrap=True)
    return fig
