"""GitHub-flavoured Markdown reports: for a leaderboard pull request or a CI job summary.

``to_markdown(result)`` renders any of: a ranking (:class:`certirank.order.Ranking`, or any result that
exposes one as ``.ranking``: `certirank rank` with or without ``--shuffle``, preference graphs, `leaderboard`,
`baseline`), a ``--group-by`` result (one ranking per group), a paired comparison (`certirank compare`; pass
the policy names) or a CI gate verdict (`certirank check`). Every report has the same four parts: a summary,
a table (letters and rank intervals for rankings), the certified pairs (and the undecided ones, never
hidden), and the guarantee in one sentence. Every ranking report is drawn by :func:`ranking_markdown` from
the Ranking alone; a method adds only its title, the name of its ``n`` column and a closing note.

Every report fits in a GitHub comment (65,536 characters): one that would be longer than ``MAX_CHARS`` is
shortened (:func:`_fold_ranking`): the summary, the top ``TOP_ROWS`` rows, every certified relation (one line
per policy, the others named by rank: "#3 A is better than #12–#100") and the guarantee come first; the other
rows and the undecided pairs go into collapsed ``<details>`` blocks as far as the space allows, and the report
says how many rows and pairs it left out (``--json`` has them all). A `check` report keeps every failing claim
and, space allowing, every certified one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..order.result import Ranking

__all__ = ["MAX_CHARS", "TOP_ROWS", "to_markdown", "ranking_markdown"]

#: the longest report: GitHub refuses a comment over 65,536 characters; the rest is room for what a CI step adds
MAX_CHARS = 60_000
#: rows of a ranking's table always shown when a report is shortened
TOP_ROWS = 25


def _cell(v: Any) -> str:
    """A table cell: inline text whose pipes are escaped (they would split the cell) and no line breaks."""
    return _text(v).replace("\n", " ")


def _text(v: Any) -> str:
    """Inline text: escape the characters Markdown would read as emphasis or code."""
    s = str(v)
    for ch in ("\\", "`", "*", "_", "[", "]", "<", ">", "|"):
        s = s.replace(ch, "\\" + ch)
    return s


def _num(v: Any, fmt: str = ".3f") -> str:
    return "–" if v is None else format(float(v), fmt)


def _table(header: list[str], align: list[str], rows: list[list[Any]]) -> list[str]:
    sep = {"l": ":---", "r": "---:", "c": ":---:"}
    out = ["| " + " | ".join(_cell(h) for h in header) + " |",
           "| " + " | ".join(sep[a] for a in align) + " |"]
    out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return out


def ranking_markdown(r: Ranking, *, title: str | None = None, n_label: str | None = "n",
                     notes: Sequence[str] = (), level: int = 2, verb: str = "is better than",
                     max_chars: int = MAX_CHARS) -> str:
    """The Markdown report of a :class:`~certirank.order.Ranking`: summary, table, certified and undecided
    pairs, notes, guarantee. ``n_label``: header of the ``n`` column (None: no such column); ``verb``: how a
    relation reads ("A is better than B"); ``max_chars``: a longer report is shortened (module docstring)."""
    lines = _ranking_head(r, title, level)
    table = _ranking_table(r, n_label)
    lines += table
    lines += ["", _LETTERS_NOTE + (f" Every certified pair is {r.about_phrase}." if r.about else ""), ""]
    if r.relations:
        lines.append("**Certified pairs**")
        lines.append("")
        lines += [f"- {_text(x.better)} {verb} {_text(x.worse)}"
                  + (f" ({_text(r.how(x))})" if r.how(x) else "") for x in r.relations]
    else:
        lines.append("**Certified pairs:** none yet.")
    lines.append("")
    lines += _equivalent_lines(r)
    if r.undecided:
        lines.append("**Undecided:** " + ", ".join(f"{_text(a)} vs {_text(b)}" for a, b in r.undecided))
        lines.append("")
    lines += _ranking_tail(r, notes)
    full = "\n".join(lines) + "\n"
    if len(full) <= max_chars:
        return full
    return _fold_ranking(r, title=title, level=level, table=table, notes=notes, verb=verb, max_chars=max_chars)


_LETTERS_NOTE = ("Policies that share a letter are not certified to differ; the rank interval holds every rank the "
                 "certified relations allow.")


def _equivalent_lines(r: Ranking) -> list[str]:
    """Pairs certified equivalent (issue 35): a verdict of their own, never listed as undecided."""
    if not r.equivalent:
        return []
    return [f"**Equivalent** (|difference of means| < {r.margin:g}, certified): "
            + ", ".join(f"{_text(a)} ~ {_text(b)}" for a, b in r.equivalent), ""]


def _ranking_head(r: Ranking, title: str | None, level: int) -> list[str]:
    n = len(r.policies)
    total = r.n_pairs
    eq = "" if r.margin is None else f"{len(r.equivalent)} equivalent (within {r.margin:g}), "
    return [f"{'#' * level} {_text(title or f'Certified ranking ({r.kind})')}", "",
            f"**Summary.** {n} {'policy' if n == 1 else 'policies'}; {r.n_certified} certified relation(s); "
            f"{total - len(r.undecided) - len(r.equivalent)} of {total} pairs ordered, {eq}{len(r.undecided)} undecided.", ""]


def _ranking_table(r: Ranking, n_label: str | None) -> list[str]:
    with_n = n_label is not None and all(p.n is not None for p in r.policies)
    letters = "table letters" if r.about == "table" else "letters"
    header = ["rank", "policy", "mean"] + ([n_label] if with_n else []) + [letters, "rank interval"]
    align = ["r", "l", "r"] + (["r"] if with_n else []) + ["c", "c"]
    rows = [[i, p.name, _num(p.mean)] + ([p.n] if with_n else []) + [p.letters, f"[{p.rank_lo}, {p.rank_hi}]"]
            for i, p in enumerate(r.policies, start=1)]
    return _table(header, align, rows)


def _ranking_tail(r: Ranking, notes: Sequence[str]) -> list[str]:
    tail = [*r.notes, *([f"Warning: {r.cycle_note}"] if r.inconsistent else []), *notes]
    out = [_text(t) for t in tail]
    if tail:
        out.append("")
    out.append(f"> **Guarantee.** {_text(r.guarantee)}")
    return out


def _fit(lines: Sequence[str], budget: int) -> tuple[list[str], int]:
    """The leading `lines` that fit in `budget` characters (each with its newline), and how many did not."""
    used = 0
    for i, line in enumerate(lines):
        used += len(line) + 1
        if used > budget:
            return list(lines[:i]), len(lines) - i
    return list(lines), 0


def _details(summary: str, body: list[str]) -> list[str]:
    """A collapsed block (GitHub renders Markdown inside it after a blank line)."""
    return [f"<details><summary>{summary}</summary>", "", *body, "", "</details>", ""]


def _ranges(ranks: Sequence[int]) -> str:
    """Sorted rank numbers as runs: [12, 13, 14, 20] -> "#12–#14, #20"."""
    runs: list[list[int]] = []
    for k in ranks:
        if runs and k == runs[-1][1] + 1:
            runs[-1][1] = k
        else:
            runs.append([k, k])
    return ", ".join(f"#{a}" if a == b else f"#{a}–#{b}" for a, b in runs)


def _pairs_by_rank(r: Ranking, pairs: Sequence[tuple[str, str]], joiner: str) -> list[str]:
    """One list item per policy, the others by their rank in the table: "- #3 name is better than #12–#100"."""
    pos = {p.name: i for i, p in enumerate(r.policies, start=1)}
    by: dict[int, list[int]] = {}
    for a, b in pairs:
        by.setdefault(pos[a], []).append(pos[b])
    return [f"- #{a} {_text(r.policies[a - 1].name)} {joiner} {_ranges(sorted(bs))}" for a, bs in sorted(by.items())]


# what a shortened report keeps back for its summary sentence and the wrappers of its collapsed blocks
_FOLD_SLACK = 1_500


def _fold_ranking(r: Ranking, *, title: str | None, level: int, table: list[str], notes: Sequence[str], verb: str,
                  max_chars: int) -> str:
    """The shortened report (module docstring): what matters in full, the rest collapsed as far as it fits.

    Relations are listed one line per policy with the others by rank number ("#12–#100"), which keeps every
    certified relation of a 100-model board in a few thousand characters."""
    head = _ranking_head(r, title, level)
    top, rest = table[:2 + TOP_ROWS], table[2 + TOP_ROWS:]
    tail = _ranking_tail(r, notes)
    fixed = len("\n".join([*head, *top, "", _LETTERS_NOTE, "", *tail])) + _FOLD_SLACK
    budget = max_chars - fixed
    # the certified relations first, then the other rows, then the undecided pairs
    certified = _pairs_by_rank(r, [(x.better, x.worse) for x in r.relations], verb)
    shown_certified, lost_certified = _fit(certified, budget)
    budget -= sum(len(x) + 1 for x in shown_certified)
    shown_rows, lost_rows = _fit(rest, budget - len(table[0]) - len(table[1]))
    budget -= sum(len(x) + 1 for x in shown_rows) + len(table[0]) + len(table[1])
    shown_undecided, lost_undecided = _fit(_pairs_by_rank(r, r.undecided, "vs"), budget)

    left_out = []
    if lost_rows:
        left_out.append(f"{lost_rows} of {len(r.policies)} rows")
    if lost_certified:
        left_out.append(f"the certified relations of {lost_certified} policies")
    if lost_undecided:
        left_out.append(f"the undecided pairs of {lost_undecided} policies")
    head[2] += (f" Shortened to fit a GitHub comment: the first {TOP_ROWS} rows are shown"
                + (f", the other {len(rest) - lost_rows} are folded below" if len(rest) > lost_rows else "")
                + "; pairs name the other policies by rank (#12–#20: the rows ranked 12 to 20)"
                + (f"; left out: {'; '.join(left_out)}" if left_out else "")
                + "; `--json` has every row and pair.")
    lines = [*head, *top, ""]
    if shown_rows:
        lines += _details(f"Rows {TOP_ROWS + 1}–{TOP_ROWS + len(shown_rows)}", [table[0], table[1], *shown_rows])
    if lost_rows:
        lines += [f"({lost_rows} more rows left out.)", ""]
    lines += [_LETTERS_NOTE, ""]
    if certified:
        lines += [f"**Certified pairs** ({r.n_certified})", "", *shown_certified, ""]
        if lost_certified:
            lines += [f"(The certified relations of {lost_certified} more policies left out.)", ""]
    else:
        lines += ["**Certified pairs:** none yet.", ""]
    lines += _equivalent_lines(r)
    if r.undecided:
        lines += _details(f"Undecided: {len(r.undecided)} pairs", shown_undecided)
        if lost_undecided:
            lines += [f"(The undecided pairs of {lost_undecided} more policies left out.)", ""]
    lines += tail
    return "\n".join(lines) + "\n"


def _warnings(result: Any) -> list[str]:
    """The record's warnings and notes, as the terminal printed them."""
    return [f"> {_text(w)}" for w in getattr(result, "warnings", ())]


def _grouped_markdown(res: Any, title: str | None) -> str:
    lines = [f"## {_text(title or f'{res.method} in {len(res.groups)} groups')}", "",
             f"> **Guarantee.** {_text(res.statement)}", ""]
    share = max(2_000, (MAX_CHARS - 1_000) // max(1, len(res.groups)))  # each group's part of the comment
    for k, (g, r) in enumerate(zip(res.groups, res.rankings)):
        if r is None:
            why = g["error"] or "the method ranks nothing"
            lines += [f"### {_text(res.label(k))}", "", f"Not ranked: {_text(why)}.", ""]
        else:
            lines.append(ranking_markdown(r, title=res.label(k), level=3, max_chars=share))
    return "\n".join(lines).rstrip("\n") + "\n"


def _compare_markdown(result: Any, x: str, y: str, title: str | None) -> str:
    lines = [f"## {_text(title or f'{x} vs {y}')}", ""]
    lines.append(f"**Summary.** {_text(result.describe(x, y))}.")
    lines.append("")
    lines += _table(["policy X", "policy Y", "pairs given", "p-value (at the stop)", f"p: {x} worse", f"p: {x} better",
                     "decided at pair"], ["l", "l", "r", "r", "r", "r", "r"],
                    [[x, y, result.n, f"{result.pvalue:.4g}", f"{result.p_less:.4g}", f"{result.p_more:.4g}",
                      "–" if result.decided_at is None else result.decided_at]])
    lines.append("")
    if result.decision == "x>y":
        lines.append(f"**Certified pairs**\n\n- {_text(x)} is better than {_text(y)}")
    elif result.decision == "x<y":
        lines.append(f"**Certified pairs**\n\n- {_text(y)} is better than {_text(x)}")
    else:
        lines.append(f"**Certified pairs:** none yet. **Undecided:** {_text(x)} vs {_text(y)}")
    lines.append("")
    lines.append(f"> **Guarantee.** {_text(result.ranking.guarantee)}")
    return "\n".join(lines) + "\n"


def _check_markdown(result: Any, title: str | None, max_chars: int = MAX_CHARS) -> str:
    n = len(result.claims)
    counts = {s: sum(c["status"] == s for c in result.claims)
              for s in ("certified", "not certified", "certified the other way")}
    verdict = {0: "PASS: every claim is certified", 1: "NOT YET: some claim is not certified",
               3: "FAIL: some claim is certified the other way"}[result.exit_code]
    lines = [f"## {_text(title or 'certirank check')}", ""]
    lines.append(f"**Summary.** {verdict} (exit code {result.exit_code}). {counts['certified']} of {n} certified, "
                 f"{counts['not certified']} not certified, {counts['certified the other way']} certified the "
                 "other way.")
    lines.append("")
    rows = [[c["claim"], c["status"], _num(c["mean_better"]), _num(c["mean_worse"]), c["pairs"],
             "-" if c["pvalue"] is None else f"{c['pvalue']:.4g}"] for c in result.claims]
    lines += _table(["claim", "status", "mean (claimed better)", "mean (claimed worse)", "paired trials",
                     "p-value"], ["l", "l", "r", "r", "r", "r"], rows)
    lines.append("")
    certified = [c for c in result.claims if c["status"] != "not certified"]
    if certified:
        lines.append("**Certified pairs**")
        lines.append("")
        for c in certified:
            if c.get("margin") is not None:  # a claim "A>=B": not worse by the margin, no order of the pair
                lines.append(f"- {_text(c['better'])} is not worse than {_text(c['worse'])} by {c['margin']:g} or more")
                continue
            b, w = (c["better"], c["worse"]) if c["status"] == "certified" else (c["worse"], c["better"])
            lines.append(f"- {_text(b)} is better than {_text(w)}")
    else:
        lines.append("**Certified pairs:** none yet.")
    lines.append("")
    undecided = [c for c in result.claims if c["status"] == "not certified"]
    if undecided:
        lines.append("**Undecided:** " + ", ".join(f"{_text(c['better'])} vs {_text(c['worse'])}" for c in undecided))
        lines.append("")
    lines.append(f"> **Guarantee.** {_text(result.statement)}")
    full = "\n".join(lines) + "\n"
    if len(full) <= max_chars:
        return full
    # shortened: the failing claims in full (certified the other way first), then the certified ones as far as
    # they fit (collapsed); only thousands of failing claims would not fit, and then the count says so
    header, align = lines[4], lines[5]
    rank = {"certified the other way": 0, "not certified": 1}
    failing = [line for _, line in sorted(((rank[c["status"]], line) for c, line in zip(result.claims, lines[6:6 + n])
                                           if c["status"] != "certified"), key=lambda x: x[0])]
    passing = [line for c, line in zip(result.claims, lines[6:6 + n]) if c["status"] == "certified"]
    guarantee = lines[-1]
    budget = max_chars - len("\n".join([*lines[:4], header, align, header, align, guarantee])) - _FOLD_SLACK
    failing, lost_failing = _fit(failing, budget)
    budget -= sum(len(x) + 1 for x in failing)
    shown, lost = _fit(passing, budget)
    out = lines[:4]
    out[2] += (" Shortened to fit a GitHub comment: "
               + ("every failing claim is listed" if not lost_failing else
                  f"{len(failing)} failing claims are listed, {lost_failing} more left out")
               + (f", {len(shown)} certified ones are folded below" if shown else "")
               + (f"; {lost} certified claim(s) left out" if lost else "") + "; `--json` has every claim.")
    if failing:
        out += ["**Failing claims**", "", header, align, *failing, ""]
    if lost_failing:
        out += [f"({lost_failing} more failing claims left out.)", ""]
    if shown:
        out += _details(f"Certified claims: {len(shown)}" + (f" of {len(passing)}" if lost else ""),
                        [header, align, *shown])
    if lost:
        out += [f"({lost} more certified claims left out.)", ""]
    out.append(guarantee)
    return "\n".join(out) + "\n"


def to_markdown(result: Any, *, title: str | None = None, x: str | None = None, y: str | None = None) -> str:
    """GitHub-flavoured Markdown for a ranking (a :class:`~certirank.order.Ranking`, or any result exposing one
    as ``.ranking``), a ``--group-by`` result, a comparison or a check result; the record's warnings and notes
    close it."""
    text = _to_markdown(result, title=title, x=x, y=y)
    warns = _warnings(result)
    return text + ("\n" + "\n".join(warns) + "\n" if warns else "")


def _to_markdown(result: Any, *, title: str | None, x: str | None, y: str | None) -> str:
    from ..methods.compare import CompareResult
    from ..methods.anyrank import RankingResult
    from ..methods.bbedge.result import LeaderboardResult
    from ..methods.check import CheckResult
    from ..methods.groups import GroupedResult
    from ..methods.preferences import PreferenceGraph
    from ..methods.shuffled import TableRanking

    if isinstance(result, CheckResult):
        return _check_markdown(result, title)
    if isinstance(result, CompareResult):
        return _compare_markdown(result, x or result.a, y or result.b, title)
    if isinstance(result, GroupedResult):
        return _grouped_markdown(result, title)
    r = result if isinstance(result, Ranking) else getattr(result, "ranking", None)
    if not isinstance(r, Ranking):
        raise TypeError(f"no Markdown report for {type(result).__name__} (it holds no Ranking)")
    # what each method adds to its ranking's report: a title, the name of its n, a closing note
    from .text import forecast_sentence
    forecasts = [s for s in (forecast_sentence(result),) if s]  # AnyRank and leaderboards: undecided_details
    if isinstance(result, RankingResult):
        return ranking_markdown(r, title=title or f"AnyRank ({result.method}, {result.guarantee} guarantee)",
                                n_label="trials", notes=[f"Rollouts used: {result.total_samples}; stopped because: "
                                                         f"{r.stopped}.", *forecasts])
    if isinstance(result, LeaderboardResult):
        tk = result.top_k
        notes = [] if tk is None else [f"Top-{tk['k']}: " + (
            "not certified yet." if tk["set"] is None else
            f"certified at replicate {tk['certified_at']}: " + ", ".join(map(str, tk["set"])) + ".")]
        return ranking_markdown(r, title=title or f"Leaderboard ({result.method}, {result.replicates} replicate(s))",
                                n_label=None, notes=[*notes, *forecasts])
    if isinstance(result, TableRanking):
        return ranking_markdown(r, title=title or f"Table averages (random order, seed {result.seed})",
                                n_label="rows", notes=[f"All {result.rows} rows seen: these averages are exact, nothing "
                                                       "is inferred beyond this table."])
    if isinstance(result, PreferenceGraph):
        never = [f"Never met ({len(result.never_met)} pair(s), nothing can be said): "
                 + ", ".join(f"{a} vs {b}" for a, b in result.never_met) + "."] if result.never_met else []
        return ranking_markdown(r, title=title or "Certified preference graph", n_label="battles", notes=never,
                                verb="is preferred to")
    return ranking_markdown(r, title=title or (None if result is r else f"Ranking ({r.kind})"))
