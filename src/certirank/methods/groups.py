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
import json
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import pandas as pd

from ..errors import CertirankError, DataError
from ..order.result import Ranking
from ..results import Result, inputs, reader_warnings, warning

__all__ = ["GroupedResult", "split_groups", "run_by_group", "run_verb_by_group", "summary_row"]


@dataclasses.dataclass(frozen=True)
class GroupedResult(Result):
    """One result per group (record kind ``"grouped"``; ``ranking`` is None: policies of different groups were
    never compared). ``groups[i]``: ``group`` ({column: value}), ``policies``, ``certified_pairs``, ``letters``
    (text or None), ``error`` (why the group could not be run, else None) and ``result`` (the group's own
    record, which holds its ``"ranking"`` when the method ranks). ``rankings[i]`` is group i's
    :class:`~certirank.order.Ranking` or None."""

    KIND: ClassVar[str] = "grouped"

    by: list[str] = inputs()
    alpha: float = inputs()
    alpha_across_groups: bool = inputs()
    method: str = inputs()
    alpha_per_group: float
    groups: list[dict[str, Any]]
    _rankings: tuple[Ranking | None, ...] = ()

    @property
    def rankings(self) -> tuple[Ranking | None, ...]:
        return self._rankings

    @property
    def statement(self) -> str:
        g = len(self.groups)
        if self.alpha_across_groups:
            return (f"alpha = {self.alpha:g} across all {g} groups together (Bonferroni: {self.alpha_per_group:.4g} "
                    "within each group): with probability at least "
                    f"{100 * (1 - self.alpha):g}% every certified statement of every group is right.")
        return (f"alpha = {self.alpha:g} within each group, separately: each group's certified statements are "
                f"all right with probability at least {100 * (1 - self.alpha):g}%; over {g} groups, up to "
                f"{min(1.0, g * self.alpha):.3g} for all groups together (use --alpha-across-groups to split alpha "
                "over the groups).")

    def _details(self) -> dict[str, Any]:
        return {"statement": self.statement}

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
    from ..data.readers import is_validated, mark_rows_validated

    keys = table[real].astype(str)
    whole = is_validated(table)  # then each group's rows are too: the verb run on them does not validate again
    out = []
    for vals, idx in keys.groupby(real if len(real) > 1 else real[0], sort=False).groups.items():
        vals = vals if isinstance(vals, tuple) else (vals,)
        sub = table.loc[idx].copy()
        sub.attrs = dict(table.attrs)
        if whole:
            mark_rows_validated(sub)
        out.append(({c: str(v) for c, v in zip(cols, vals)}, sub))
    return out


def summary_row(d: dict[str, Any], ranking: Ranking | None = None) -> dict[str, Any]:
    """Policies, certified pairs and letters of one group: from its Ranking when the method ranks, else (a data
    summary) the policies of its record's details."""
    if ranking is not None:
        return {"policies": len(ranking.policies), "certified_pairs": ranking.n_certified,
                "letters": ", ".join(f"{p.name} {p.letters}" for p in ranking.policies)}
    pols = (d.get("details") or {}).get("policies")
    return {"policies": len(pols) if isinstance(pols, list) else None, "certified_pairs": None, "letters": None}


def run_by_group(table: pd.DataFrame, by: Sequence[str], run: Callable[[pd.DataFrame, float], Any], *,
                 alpha: float, alpha_across_groups: bool = False, method: str = "") -> GroupedResult:
    """Call ``run(rows, alpha_g)`` on each group; a group the method refuses is reported with its reason."""
    groups = split_groups(table, by)
    for _, sub in groups:  # what the reader noted is said once, by the grouped result
        sub.attrs.pop("notes", None)
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
    done = [g["result"] for g in rows if g["result"]]
    # a group's warnings stay in its record; the grouped result says the first, and in how many groups
    hits = [(g["group"], w) for g in rows if g["result"]
            for w in [x for x in g["result"].get("warnings") or () if x.startswith("warning: ")][:1]]
    said = list(reader_warnings(table))
    if hits:
        where, first = hits[0]
        more = f" (and {len(hits) - 1} more group(s))" if len(hits) > 1 else ""
        said.append(warning(f"in group {', '.join(where.values())}: {first.removeprefix('warning: ')}{more}"))
    abouts = {r.get("about") for r in done}
    orders = {json.dumps((r.get("inputs") or {}).get("order"), sort_keys=True) for r in done}
    src = table.attrs.get("source")
    return GroupedResult(by=list(by), alpha=alpha, alpha_per_group=a_g, alpha_across_groups=alpha_across_groups,
                         groups=rows, method=method, _rankings=tuple(rankings),
                         about=abouts.pop() if len(abouts) == 1 else None,
                         order=json.loads(orders.pop()) if len(orders) == 1 else None, source=None if src is None else str(src),
                         warnings=tuple(said))


def run_verb_by_group(verb: Callable[..., Any], args: dict[str, Any], *, data: str = "data",
                      method: str) -> GroupedResult:
    """A public verb's ``group_by=`` (issue 36): `verb` run on each group's rows with the other arguments as
    given (`args`: the call's arguments, checked by the verb's declaration). The table is read once, here (with
    its ``format`` and ``score_range``); each group's rows pass to the verb as a validated table."""
    from ..data.readers import load

    args = dict(args)
    args.update(args.pop("options", None) or {})  # a verb's **options go back as keywords
    by, across = args.pop("group_by"), args.pop("alpha_across_groups")
    table = load(args.pop(data), format=args.pop("format", None), score_range=args.pop("score_range", None))
    columns = [by] if isinstance(by, str) else list(by)
    return run_by_group(table, columns, lambda rows, level: verb(rows, **{**args, "alpha": level}),
                        alpha=args["alpha"], alpha_across_groups=across, method=method)
