"""Text output of any :class:`~certirank.order.Ranking` for a terminal or a log (the one text renderer).

Summary first (counts, top of the table, why it stopped, dropped data), then a table of at most
``MAX_ROWS`` rows, then the certified relations and undecided pairs in a few wrapped lines, then the
guarantee. ``full=True`` (``--all``) shows every row and pair. Everything is built as rich renderables that
wrap at word boundaries, so the output stays within the console width (80 columns in a pipe).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text

from ..order.result import Ranking

__all__ = ["MAX_ROWS", "ranking_renderables", "table_renderables", "capped_list", "summary_line", "order_sentence",
           "forecast_sentence"]

# ASCII rules: logs are often read with byte-counting tools (awk 'length > 80'), where "─" counts three
_HEAD_RULE = box.Box("    \n    \n -- \n    \n    \n    \n    \n    \n", ascii=True)

MAX_ROWS = 30          # table rows shown by default (the rest: --all, or --json)
MAX_LIST_LINES = 3     # wrapped lines of relations / undecided pairs shown by default
MAX_SENTENCES = 10     # up to this many relations are written out one sentence per line
MAX_FORECASTS = 10     # undecided pairs whose forecast is written out (the nearest to a decision first)


def _fmt(v: Any, spec: str = ".3f") -> str:
    if v is None:
        return "-"
    if isinstance(v, str):
        return v
    try:
        return format(float(v), spec)
    except (TypeError, ValueError):
        return str(v)


def order_sentence(order: Mapping[str, Any] | None, what: str = "rows") -> str | None:
    """How the data were read (a record's ``inputs.order``), as one sentence; None when not said."""
    if not order:
        return None
    kind = order.get("kind")
    if kind == "random":
        k = order.get("orders")
        if k:
            return (f"Averaged over {k} random orders of the {what} (seeds {order.get('seed')} to "
                    f"{int(order.get('seed') or 0) + int(k) - 1}): a statement at this size, not at every stop.")
        return f"{what[:1].upper()}{what[1:]} read in a random order (seed {order.get('seed')})."
    if kind == "column":
        return f"{what[:1].upper()}{what[1:]} read in the order of column {order.get('column')!r} (the run order)."
    if kind == "given":
        return f"{what[:1].upper()}{what[1:]} read in file order."
    return None


def forecast_sentence(result: Any, limit: int | None = MAX_FORECASTS) -> str | None:
    """The forecasts of a result's undecided pairs (``undecided_details``: AnyRank, leaderboards) in one sentence,
    the nearest to a decision first, at most `limit` of them (None: all); None when no pair has one. The text,
    the Markdown report and every other renderer say it in these words."""
    unit = getattr(result, "forecast_unit", "paired trials")
    # a pair at its budget, or that its exact budget test can no longer decide (AnyRank's own ``futile``, certain),
    # has nothing to forecast: no more trials may be run for it (a file's data used up still may be)
    n_max = getattr(result, "n_max", None)
    details = [d for d in getattr(result, "undecided_details", None) or []
               if not d.get("futile") and not (n_max is not None and int(d.get("trials", 0)) >= int(n_max))]
    futile = [d for d in details if d.get("verdict") == "futile"]
    more = sorted((d for d in details if d.get("verdict") != "futile" and d.get("more_needed") is not None),
                  key=lambda d: (int(d["more_needed"]), d["pair"]))
    if not futile and not more:
        return None
    said = [f"{d['pair'][0]} vs {d['pair'][1]} about {int(d['more_needed'])}" for d in more]
    said += [f"{d['pair'][0]} vs {d['pair'][1]} futile" for d in futile]
    shown = said if limit is None else said[:limit]
    tail = "" if len(shown) == len(said) else f"; ... and {len(said) - len(shown)} more (--json has them all)"
    return (f"Forecast, more {unit} to a decision (at the current estimates, not a guarantee): "
            + "; ".join(shown) + tail + ".")


def summary_line(r: Ranking) -> str:
    """"K of N pairs certified (D by a direct test), U undecided, alpha = a." in words."""
    if r.n_pairs == 0:
        return "Only one policy: nothing to compare."
    direct = (f" ({r.n_direct} by a direct test, {r.n_certified - r.n_direct} by transitivity)"
              if r.n_certified and r.transitive else "")
    alpha = "" if r.alpha is None else f", alpha = {r.alpha:g}"
    eq = "" if r.margin is None else f"; {len(r.equivalent)} equivalent (within {r.margin:g})"
    return (f"{r.n_certified} of {r.n_pairs} pairs certified{direct}{eq}; {len(r.undecided)} undecided"
            f"{alpha}.")


def _top(r: Ranking, k: int = 3) -> str:
    parts = []
    for p in r.policies[:k]:
        ival = f"rank {p.rank_lo}" if p.rank_lo == p.rank_hi else f"ranks {p.rank_lo}-{p.rank_hi}"
        parts.append(f"{p.name} ({ival})")
    rest = len(r.policies) - len(parts)
    return "Top of the table: " + ", ".join(parts) + (f" and {rest} more." if rest > 0 else ".")


def capped_list(items: Sequence[str], *, width: int, lines: int | None, sep: str = "; ") -> tuple[str, int]:
    """Join ``items`` into at most ``lines`` wrapped lines of ``width``; returns (text, number left out)."""
    if lines is None:
        return sep.join(items), 0
    budget = max(width, 40) * lines - 40  # room for the "... and N more" tail
    out: list[str] = []
    used = 0
    for it in items:
        cost = len(it) + len(sep)
        if out and used + cost > budget:
            break
        out.append(it)
        used += cost
    return sep.join(out), len(items) - len(out)


def table_renderables(header: Sequence[str], rows: Sequence[Sequence[str]], *, left: Sequence[int] = (0,),
                      limit: int | None = MAX_ROWS) -> list[Any]:
    """A table in the ranking table's style (columns in ``left``: text that folds; the rest: right-aligned,
    never wrapped), at most ``limit`` rows and a line saying how many more there are."""
    t = Table(box=_HEAD_RULE, show_edge=False, pad_edge=False, expand=False)
    for k, head in enumerate(header):
        if k in left:
            t.add_column(head, overflow="fold")
        else:
            t.add_column(head, justify="right", no_wrap=True)
    shown = rows if limit is None else rows[:limit]
    for row in shown:
        t.add_row(*row)
    out: list[Any] = [t]
    if len(rows) > len(shown):
        out.append(Text(f"... {len(rows) - len(shown)} more not shown (--all shows every row, --json everything)."))
    return out


def ranking_renderables(r: Ranking, *, title: str | None = None, full: bool = False, width: int = 80,
                        columns: Mapping[str, Mapping[str, Any]] | None = None, n_label: str = "n",
                        mean_label: str = "mean", extra: Sequence[str] = (), verb: str = "is better than",
                        qualifier: str | None = None, show_rank: bool = True) -> list[Any]:
    """Renderables (rich Text / Table) for a ranking, summary first.

    ``columns``: extra table columns, header -> {policy: value}. ``extra``: sentences printed after the
    summary (method-specific facts). ``full``: every row and pair (``--all``). ``verb`` / ``qualifier``: how
    a relation is worded ("A is better than B (certified, alpha = 0.05)" by default).
    """
    if qualifier is None:
        qualifier = "certified" + ("" if r.alpha is None else f" at {100 * (1 - r.alpha):g}%, alpha = {r.alpha:g}")
        qualifier += f", {r.about_phrase}" if r.about else ""
    out: list[Any] = []
    if title:
        out.append(Text(title, style="bold"))
    out.append(Text(summary_line(r)))
    if r.policies:
        out.append(Text(_top(r)))
    if r.stopped:
        out.append(Text(f"Stopped because: {r.stopped}."))
    for note in r.notes:
        out.append(Text(f"Note: {note}", style="yellow"))
    for line in extra:
        out.append(Text(line))
    if r.inconsistent:
        out.append(Text(f"Warning: {r.cycle_note}", style="red"))

    extra_cols = dict(columns or {})
    letters = "table letters" if r.about == "table" else "letters"
    header = ["#", "policy", mean_label, n_label, *extra_cols, letters] + (["rank"] if show_rank else [])
    rows = []
    for k, p in enumerate(r.policies, start=1):
        cells = [str(k), p.name, _fmt(p.mean), "-" if p.n is None else str(p.n),
                 *[_fmt(c.get(p.name), ".4g") if not isinstance(c.get(p.name), str) else c.get(p.name)
                   for c in extra_cols.values()], p.letters]
        if show_rank:
            cells.append(str(p.rank_lo) if p.rank_lo == p.rank_hi else f"{p.rank_lo}-{p.rank_hi}")
        rows.append(cells)
    out += table_renderables(header, rows, left=(1, 4 + len(extra_cols)), limit=None if full else MAX_ROWS)
    out.append(Text("Policies sharing a letter are not certified to differ; rank = every rank still possible."))

    lines = None if full else MAX_LIST_LINES
    if r.relations and (full or len(r.relations) <= MAX_SENTENCES):
        for x in r.relations:
            how = f", {r.how(x)}" if r.how(x) else ""
            out.append(Text(f"  {x.better} {verb} {x.worse} ({qualifier}{how})"))
    elif r.relations:
        rels = [f"{x.better} > {x.worse}" for x in r.relations if x.via == "test"]
        text, left = capped_list(rels, width=width, lines=lines)
        tail = f" ... and {left} more" if left else ""
        implied = r.n_certified - r.n_direct
        head = f"A > B: A {verb} B ({qualifier}); {len(rels)} by a direct test" + (
            f", {implied} more by transitivity" if implied else "") + ": "
        out.append(Text(head + text + tail + "."))
    if r.equivalent:
        text, left = capped_list([f"{a} ~ {b}" for a, b in r.equivalent], width=width, lines=lines)
        tail = f" ... and {left} more" if left else ""
        out.append(Text(f"Equivalent ({len(r.equivalent)}; |difference of means| < {r.margin:g}, {qualifier}): "
                        + text + tail + "."))
    if r.undecided:
        text, left = capped_list([f"{a} vs {b}" for a, b in r.undecided], width=width, lines=lines)
        tail = f" ... and {left} more" if left else ""
        out.append(Text(f"Undecided ({len(r.undecided)}): " + text + tail + "."))
    elif r.n_pairs:
        out.append(Text("Every pair is decided: the ranking is complete."))
    if r.guarantee:
        out.append(Text(f"Guarantee: {r.guarantee}" if r.alpha is not None else f"Note: {r.guarantee}"))
    return out
