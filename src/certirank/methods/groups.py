"""Run one certified method within each group of a table (``--group-by COLUMN[,COLUMN]``).

The method sees each group's rows on their own (policies that never ran in a group are simply absent).
Alpha is either the level *within each group* (default: each group's statement holds at alpha; across G
groups, up to G x alpha of them may contain an error) or, with ``alpha_across_groups=True``, split over the
groups by Bonferroni (alpha / G each), so that every certified statement of every group holds together
with probability at least 1 - alpha.

A ranking method's result in each group exposes the one ranking result; ``GroupedResult.rankings`` holds
them (one per group, None where the group could not be run or the method ranks nothing, e.g. ``compare``),
and the summary's policies, certified pairs and letters are read from it. There is deliberately no single
ranking across groups: policies of different groups were never compared.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from ..errors import CertirankError, DataError
from ..order.result import Ranking
from ..results import ResultMixin, plain

__all__ = ["GroupedResult", "split_groups", "run_by_group", "summary_row"]


@dataclasses.dataclass(frozen=True)
class GroupedResult(ResultMixin):
    """One result per group. ``groups[i]``: ``group`` ({column: value}), ``policies``, ``certified_pairs``,
    ``letters`` (text or None), ``error`` (why the group could not be run, else None) and ``result`` (the
    method's own to_dict(), which holds its ``"ranking"`` when it ranks). ``rankings[i]`` is group i's
    :class:`~certirank.order.Ranking` or None (not in the JSON: it is ``groups[i]["result"]["ranking"]``)."""

    RESULT_KIND = "grouped"

    by: list[str]
    alpha: float
    alpha_per_group: float
    across_groups: bool
    groups: list[dict[str, Any]]
    method: str
    rankings: tuple[Ranking | None, ...] = ()

    @property
    def statement(self) -> str:
        g = len(self.groups)
        if self.across_groups:
            return (f"alpha = {self.alpha:g} across all {g} groups together (Bonferroni: {self.alpha_per_group:.4g} "
                    "within each group): with probability at least "
                    f"{100 * (1 - self.alpha):g}% every certified statement of every group is right.")
        return (f"alpha = {self.alpha:g} within each group, separately: each group's certified statements are "
                f"all right with probability at least {100 * (1 - self.alpha):g}%; over {g} groups, up to "
                f"{min(1.0, g * self.alpha):.3g} for all groups together (use --alpha-across-groups to split alpha "
                "over the groups).")

    def to_dict(self) -> dict[str, Any]:
        d = {f.name: plain(getattr(self, f.name)) for f in dataclasses.fields(self) if f.name != "rankings"}
        return {"kind": self.RESULT_KIND, "schema": "certirank.groups/1", **d, "statement": self.statement}

    def label(self, i: int) -> str:
        """Group i in words: "col = value, col = value"."""
        return ", ".join(f"{c} = {v}" for c, v in self.groups[i]["group"].items())


def split_groups(table: pd.DataFrame, by: Sequence[str]) -> list[tuple[dict[str, str], pd.DataFrame]]:
    """(group values, rows) per group, in order of first appearance; the rows keep the table's attrs."""
    cols = [c.strip() for c in by if c.strip()]
    if not cols:
        raise DataError("--group-by needs at least one column name")
    renamed = {c[4:]: c for c in table.columns if isinstance(c, str) and c.startswith("key:")}
    real = []
    for c in cols:
        if c in table.columns:
            real.append(c)
        elif c in renamed:
            real.append(renamed[c])
        else:
            shown = ", ".join(repr(x) for x in table.columns if x not in ("order",))
            raise DataError(f"no column {c!r} to group by; the table has {shown}", source=table.attrs.get("source"))
    keys = table[real].astype(str)
    out = []
    for vals, idx in keys.groupby(real if len(real) > 1 else real[0], sort=False).groups.items():
        vals = vals if isinstance(vals, tuple) else (vals,)
        sub = table.loc[idx].copy()
        sub.attrs = dict(table.attrs)
        out.append(({c: str(v) for c, v in zip(cols, vals)}, sub))
    return out


def summary_row(d: dict[str, Any], ranking: Ranking | None = None) -> dict[str, Any]:
    """Policies, certified pairs and letters of one group: from its Ranking when the method ranks, else (compare,
    inspect) from the result's to_dict()."""
    if ranking is not None:
        return {"policies": len(ranking.policies), "certified_pairs": ranking.n_certified,
                "letters": ", ".join(f"{p.name} {p.letters}" for p in ranking.policies)}
    letters = d.get("letters")
    pols = d.get("policies") or d.get("models") or (list(letters) if isinstance(letters, dict) else None)
    if isinstance(pols, list) and pols and isinstance(pols[0], dict):
        pols = [p.get("policy") or p.get("model") for p in pols]
    if "decisions" in d:
        pairs = len(d["decisions"])
    elif "edges" in d:
        pairs = len(d["edges"])
    elif "decision" in d:
        pairs = int(d["decision"] is not None)
    else:
        pairs = None
    text = None
    if isinstance(letters, dict) and letters:
        text = ", ".join(f"{p} {str(v).strip()}" for p, v in letters.items())
    return {"policies": len(pols) if pols is not None else None, "certified_pairs": pairs, "letters": text}


def run_by_group(table: pd.DataFrame, by: Sequence[str], run: Callable[[pd.DataFrame, float], Any], *,
                 alpha: float, alpha_across_groups: bool = False, method: str = "") -> GroupedResult:
    """Call ``run(rows, alpha_g)`` on each group; a group the method refuses is reported with its reason."""
    groups = split_groups(table, by)
    a_g = alpha / len(groups) if alpha_across_groups else alpha
    rows = []
    rankings: list[Ranking | None] = []
    for vals, sub in groups:
        try:
            res = run(sub, a_g)
        except CertirankError as exc:
            rows.append({"group": vals, "policies": int(sub["policy"].nunique()) if "policy" in sub else None,
                         "certified_pairs": None, "letters": None, "error": str(exc).splitlines()[0],
                         "result": None})
            rankings.append(None)
            continue
        d = res.to_dict() if hasattr(res, "to_dict") else dict(res)
        r = getattr(res, "ranking", None)
        r = r if isinstance(r, Ranking) else None
        rankings.append(r)
        rows.append({"group": vals, **summary_row(d, r), "error": None, "result": d})
    return GroupedResult(by=list(by), alpha=alpha, alpha_per_group=a_g, across_groups=alpha_across_groups,
                         groups=rows, method=method, rankings=tuple(rankings))
