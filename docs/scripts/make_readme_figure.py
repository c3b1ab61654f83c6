"""Make docs/roboarena.png: the 7 RoboArena policies' partial-progress scores with AnyRank's certified letters.

Run from the project root:  .venv/bin/python docs/scripts/make_readme_figure.py
Reads ../shared/data/roboarena/per_trial_progress_data.csv (see ../shared/data/README). Deterministic: the
same data gives the same picture.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import certirank
from certirank.report import save_figure, score_plot

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data" / "roboarena" / "per_trial_progress_data.csv"
OUT = ROOT / "docs" / "roboarena.png"
ALPHA = 0.1  # the AnyRank paper's real-data level


def anyrank_letters(table):
    res = certirank.anyrank(table, alpha=ALPHA)
    return res.letters, (f"letters: AnyRank at alpha = {ALPHA:g} ({res.total_samples} trials used, replayed in "
                         "recorded order); policies sharing a letter are not certified different\n"
                         "violins: all recorded trials; diamond = mean, bar = interquartile range, tick = median")


def bonferroni_letters(table):
    """Fallback: pairwise anytime-valid comparisons, each at alpha / K (Bonferroni)."""
    from certirank.methods.compare import _pairs_from_table

    names = certirank.data.table.policies(table)
    pairs = list(itertools.combinations(names, 2))
    different = []
    for a, b in pairs:
        x, y = _pairs_from_table(table, a, b)
        if certirank.compare(x, y, alpha=ALPHA / len(pairs)).decision is not None:
            different.append((a, b))
    means = table.groupby("policy")["score"].mean()
    return (certirank.letters(names, different, [means[n] for n in names]),
            f"letters: pairwise comparisons with Bonferroni at alpha = {ALPHA:g}\n"
            "violins: all recorded trials; diamond = mean, bar = interquartile range, tick = median")


def main() -> int:
    if not DATA.is_file():
        print(f"data not found: {DATA}", file=sys.stderr)
        return 1
    table = certirank.load(DATA)
    try:
        letters, caption = anyrank_letters(table)
    except (ImportError, AttributeError, NotImplementedError) as exc:  # AnyRank not available in this checkout
        print(f"AnyRank unavailable ({exc}); using pairwise Bonferroni letters", file=sys.stderr)
        letters, caption = bonferroni_letters(table)
    fig = score_plot(table, letters, title="RoboArena: partial-progress score per trial (7 DROID policies)",
                     caption=caption)
    save_figure(fig, OUT, dpi=90)
    print(f"wrote {OUT} ({OUT.stat().st_size / 1024:.0f} KB); letters: {letters}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
