"""Is the recorded order safe to replay? A cheap check for sorted or trended tables (issue 16, item 3a).

A sequential test replayed over a finite table in recorded order speaks about the trials in that order.
If the rows are sorted by task (all of task A, then all of task B …) or drift with time, an early
certification is a statement about the first tasks, not about the table's average. Two checks, O(n):

* **grouped labels.** For every label column with repeated values (``env`` when labels repeat, and any
  text column other than the canonical ones, e.g. ``Task``), count the label changes between consecutive
  rows of each policy, R, and compare with a random order: E[R] = (n - 1)(1 - sum_g n_g (n_g - 1) /
  (n (n - 1))). Flag ``R <= E[R] / 4`` when there are at least 2 labels and n >= 20 (a table sorted by
  the column has R = G - 1).
* **trend in the scores.** Spearman's rank correlation of each policy's scores with their position;
  flag |rho| sqrt(n - 1) > 4 (a 4-sigma trend under a random order) with n >= 20.

`replay_order_warnings` returns one line per finding (empty: nothing found); callers print them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["replay_order_warnings", "order_findings", "average_ranks"]


def average_ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, ties sharing their average rank: ``scipy.stats.rankdata(values)`` (its default, "average"),
    in numpy, because importing scipy.stats costs about a second of every `certirank compare` on a small file
    (`tests/test_startup.py` checks the two agree)."""
    v = np.asarray(values, dtype=float).ravel()
    order = np.argsort(v, kind="mergesort")
    ordered = v[order]
    first = np.r_[True, ordered[1:] != ordered[:-1]]
    starts = np.flatnonzero(first)
    ends = np.r_[starts[1:], v.size]
    ranks = np.empty(v.size)
    ranks[order] = ((starts + ends + 1) / 2.0)[np.cumsum(first) - 1]
    return ranks

_CANONICAL = frozenset({"policy", "score", "replicate", "order", "block", "weight", "rollout", "trial_label",
                        "episode"})
_MIN_N = 20


def _label_columns(table: pd.DataFrame) -> list[str]:
    cols = []
    for c in table.columns:
        if c in _CANONICAL:
            continue
        s = table[c]
        if s.isna().all():
            continue
        if c != "env" and pd.api.types.is_numeric_dtype(s) and s.nunique() > 50:
            continue
        if s.nunique() < len(s) / 1.0 and s.nunique() >= 2:
            cols.append(c)
    return cols


def order_findings(table: pd.DataFrame) -> list[dict]:
    """Structured findings: ``{"kind": "grouped"|"trend", "column", "policy", "statistic"}``."""
    t = table.sort_values("order", kind="stable")
    out: list[dict] = []
    for c in _label_columns(t):
        for pol, sub in t.groupby("policy", sort=False):
            lab = sub[c].astype(str).to_numpy()
            n = lab.size
            _, counts = np.unique(lab, return_counts=True)
            if n < _MIN_N or counts.size < 2 or counts.max() < 2:
                continue
            changes = int((lab[1:] != lab[:-1]).sum())
            expected = (n - 1) * (1 - float((counts * (counts - 1)).sum()) / (n * (n - 1)))
            if changes <= expected / 4:
                out.append({"kind": "grouped", "column": c, "policy": pol, "statistic": changes,
                            "expected": expected})
                break
    for pol, sub in t.groupby("policy", sort=False):
        s = sub["score"].to_numpy(dtype=float)
        n = s.size
        if n < _MIN_N or np.ptp(s) == 0:
            continue
        rho = float(np.corrcoef(average_ranks(s), np.arange(n))[0, 1])
        z = rho * np.sqrt(n - 1)
        if abs(z) > 4:
            out.append({"kind": "trend", "column": "score", "policy": pol, "statistic": rho, "z": z})
    return out


def replay_order_warnings(table: pd.DataFrame) -> list[str]:
    """One-line warnings about the recorded order of a per-trial table (preference tables: battles' order)."""
    if "score" not in table.columns or "order" not in table.columns:
        return []
    msgs = []
    seen = set()
    for f in order_findings(table):
        if f["kind"] == "grouped" and ("g", f["column"]) not in seen:
            seen.add(("g", f["column"]))
            msgs.append(f"the rows are grouped by {f['column']!r} (for {f['policy']}: {f['statistic']} label changes "
                        f"where a random order would give about {f['expected']:.0f}); replayed in this order, an "
                        "early certification speaks about the first groups, not the table's average (use --shuffle "
                        "SEED, or --group-by)")
        elif f["kind"] == "trend" and "t" not in seen:
            seen.add("t")
            msgs.append(f"the scores of {f['policy']} trend with row order (Spearman rho = {f['statistic']:.2f}, "
                        f"{abs(f['z']):.1f} sigma); replayed in this order, the test speaks about the early rows (use "
                        "--shuffle SEED to test the table's average)")
    return msgs
