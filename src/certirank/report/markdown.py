"""GitHub-flavoured Markdown reports: for a leaderboard pull request or a CI job summary.

``to_markdown(result)`` renders any of: a ranking (:class:`certirank.order.Ranking`, or any result that
exposes one as ``.ranking``: `certirank rank` with or without ``--shuffle``, preference graphs, `leaderboard`,
`baseline`), a ``--group-by`` result (one ranking per group), a paired comparison (`certirank compare`; pass
the policy names) or a CI gate verdict (`certirank check`). Every report has the same four parts: a summary,
a table (letters and rank intervals for rankings), the certified pairs (and the undecided ones, never
hidden), and the guarantee in one sentence. Every ranking report is drawn by :func:`ranking_markdown` from
the Ranking alone; a method adds only its title, the name of its ``n`` column and a closing note.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..order.result import Ranking

__all__ = ["to_markdown", "ranking_markdown"]


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
                     notes: Sequence[str] = (), level: int = 2, verb: str = "is better than") -> str:
    """The Markdown report of a :class:`~certirank.order.Ranking`: summary, table, certified and undecided
    pairs, notes, guarantee. ``n_label``: header of the ``n`` column (None: no such column); ``verb``: how a
    relation reads ("A is better than B")."""
    n = len(r.policies)
    total = r.n_pairs
    lines = [f"{'#' * level} {_text(title or f'Certified ranking ({r.kind})')}", ""]
    lines.append(f"**Summary.** {n} {'policy' if n == 1 else 'policies'}; {r.n_certified} certified "
                 f"relation(s); {total - len(r.undecided)} of {total} pairs ordered, {len(r.undecided)} "
                 "undecided.")
    lines.append("")
    with_n = n_label is not None and all(p.n is not None for p in r.policies)
    letters = "table letters" if r.about == "table" else "letters"
    header = ["rank", "policy", "mean"] + ([n_label] if with_n else []) + [letters, "rank interval"]
    align = ["r", "l", "r"] + (["r"] if with_n else []) + ["c", "c"]
    rows = [[i, p.name, _num(p.mean)] + ([p.n] if with_n else []) + [p.letters, f"[{p.rank_lo}, {p.rank_hi}]"]
            for i, p in enumerate(r.policies, start=1)]
    lines += _table(header, align, rows)
    lines += ["", "Policies that share a letter are not certified to differ; the rank interval holds every rank "
              "the certified relations allow." + (f" Every certified pair is {r.about_phrase}." if r.about else ""),
              ""]
    if r.relations:
        lines.append("**Certified pairs**")
        lines.append("")
        lines += [f"- {_text(x.better)} {verb} {_text(x.worse)}"
                  + (f" ({_text(r.how(x))})" if r.how(x) else "") for x in r.relations]
    else:
        lines.append("**Certified pairs:** none yet.")
    lines.append("")
    if r.undecided:
        lines.append("**Undecided:** " + ", ".join(f"{_text(a)} vs {_text(b)}" for a, b in r.undecided))
        lines.append("")
    tail = [*r.notes, *([f"Warning: {r.cycle_note}"] if r.inconsistent else []), *notes]
    lines += [_text(t) for t in tail]
    if tail:
        lines.append("")
    lines.append(f"> **Guarantee.** {_text(r.guarantee)}")
    return "\n".join(lines) + "\n"


def _warnings(result: Any) -> list[str]:
    """The record's warnings and notes, as the terminal printed them."""
    return [f"> {_text(w)}" for w in getattr(result, "warnings", ())]


def _grouped_markdown(res: Any, title: str | None) -> str:
    lines = [f"## {_text(title or f'{res.method} in {len(res.groups)} groups')}", "",
             f"> **Guarantee.** {_text(res.statement)}", ""]
    for k, (g, r) in enumerate(zip(res.groups, res.rankings)):
        if r is None:
            why = g["error"] or "the method ranks nothing"
            lines += [f"### {_text(res.label(k))}", "", f"Not ranked: {_text(why)}.", ""]
        else:
            lines.append(ranking_markdown(r, title=res.label(k), level=3))
    return "\n".join(lines).rstrip("\n") + "\n"


def _compare_markdown(result: Any, x: str, y: str, title: str | None) -> str:
    lines = [f"## {_text(title or f'{x} vs {y}')}", ""]
    lines.append(f"**Summary.** {_text(result.describe(x, y))}.")
    lines.append("")
    lines += _table(["policy X", "policy Y", "pairs used", "p-value", f"p: {x} worse", f"p: {x} better",
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


def _check_markdown(result: Any, title: str | None) -> str:
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
    return "\n".join(lines) + "\n"


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
    if isinstance(result, RankingResult):
        return ranking_markdown(r, title=title or f"AnyRank ({result.method}, {result.guarantee} guarantee)",
                                n_label="trials", notes=[f"Rollouts used: {result.total_samples}; stopped because: "
                                                         f"{r.stopped}."])
    if isinstance(result, LeaderboardResult):
        tk = result.top_k
        notes = [] if tk is None else [f"Top-{tk['k']}: " + (
            "not certified yet." if tk["set"] is None else
            f"certified at replicate {tk['certified_at']}: " + ", ".join(map(str, tk["set"])) + ".")]
        return ranking_markdown(r, title=title or f"Leaderboard ({result.method}, {result.replicates} replicate(s))",
                                n_label=None, notes=notes)
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
