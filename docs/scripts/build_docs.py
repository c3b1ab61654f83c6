"""Assemble docs/performance.md and docs/reproduction.md from the per-area pages in docs/parts/.

Each area's benchmark or reproduction script writes (or its author maintains) `docs/parts/<area>-performance.md`
and `docs/parts/<area>-reproduction.md`; this script stitches them, in layer order, under one title, so the
numbers live in one place per area and the two top-level pages never drift from them.

Run:  .venv/bin/python docs/scripts/build_docs.py
"""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1]
PARTS = DOCS / "parts"
AREAS = ["evidence", "multitest", "anyrank", "bbedge", "baselines", "rposst", "sim", "data", "report"]

INTRO = {
    "performance": (
        "# Performance\n\n"
        "Measured speed and sample efficiency, area by area. Every number below was produced by a script in\n"
        "`benchmarks/` (named in each section) on the project's 2-core machine, usually while other work shared it;\n"
        "re-run the script to refresh a table (`make bench` runs them all). Goals come from the issues; a goal that\n"
        "is not met says so and explains why.\n"
    ),
    "reproduction": (
        "# Reproduction\n\n"
        "Our numbers beside the papers' anchors and the specs' test vectors, area by area, with every\n"
        "discrepancy explained. Each section names the command that regenerates it.\n"
    ),
}


def _demote(text: str) -> str:
    """Shift headings so each part's title becomes a level-2 section (parts start at level 1 or 2)."""
    levels = [len(m.group(1)) for m in re.finditer(r"^(#+) ", text, flags=re.M)]
    shift = 2 - min(levels) if levels else 0
    if shift <= 0:
        return text
    return re.sub(r"^(#+) ", lambda m: "#" * (len(m.group(1)) + shift) + " ", text, flags=re.M)


def build(kind: str) -> str:
    pieces = [INTRO[kind]]
    contents = []
    for area in AREAS:
        part = PARTS / f"{area}-{kind}.md"
        if part.exists():
            body = _demote(part.read_text().strip())
            title = body.splitlines()[0].lstrip("# ").strip()
            contents.append(f"- [{title}](parts/{part.name})")
            pieces.append(f"<!-- from docs/parts/{part.name} -->\n{body}\n")
    pieces.insert(1, "Sections (each also stands alone in `docs/parts/`):\n\n" + "\n".join(contents) + "\n")
    return "\n".join(pieces)


def main() -> None:
    for kind in ("performance", "reproduction"):
        out = DOCS / f"{kind}.md"
        tmp = out.with_suffix(".md.tmp")
        tmp.write_text(build(kind))
        tmp.replace(out)
        print(f"wrote {out.relative_to(DOCS.parent)}")


if __name__ == "__main__":
    main()
