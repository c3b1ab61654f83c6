"""GitHub-flavoured Markdown reports: for a leaderboard pull request or a CI job summary.

``to_markdown(result)`` renders any of: an AnyRank ranking (`certirank rank`), a BB-EDGE leaderboard
(`certirank leaderboard`), a paired comparison (`certirank compare`; pass the policy names), a CI gate
verdict (`certirank check`), or an `order` partial ranking. Every report has the same four parts: a
summary, a table (letters and rank intervals for rankings), the certified pairs (and the undecided ones,
never hidden), and the guarantee in one sentence.

Rankings go through one neutral view (`RankingView`) so that a new ranking result type only needs an
adapter here; objects exposing ``items``, ``letters``, ``rank_lo``/``rank_hi`` (as `order.PartialRanking`
does) are rendered as they are.
"""

from __future__ import annotations

import dataclasses
from typing import Any

__all__ = ["to_markdown", "RankingView", "ranking_view", "render_ranking_view"]


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


@dataclasses.dataclass
class RankingView:
    """What a ranking report shows, independent of the method that produced it."""

    title: str
    policies: list[str]  # display order
    means: dict[str, float | None]
    letters: dict[str, str]
    rank_intervals: dict[str, tuple[int, int]]
    certified: list[tuple[str, str, str]]  # (better, worse, how)
    undecided: list[tuple[str, str]]
    guarantee: str
    trials: dict[str, int] | None = None
    notes: list[str] = dataclasses.field(default_factory=list)


def _from_partial(pr: Any, title: str, guarantee: str, certified: list[tuple[str, str, str]] | None = None,
                  means: dict[str, float | None] | None = None) -> RankingView:
    items = [str(v) for v in pr.items]
    mu = means if means is not None else ({n: m for n, m in zip(items, pr.means)} if pr.means is not None
                                          else dict.fromkeys(items))
    intervals = {n: (int(lo), int(hi)) for n, lo, hi in zip(items, pr.rank_lo, pr.rank_hi)}
    if certified is None:
        certified = [(str(r["winner"]), str(r["loser"]), str(r.get("kind", "direct"))) for r in pr.relations]
    pos = {n: i for i, n in enumerate(items)}
    closure = pr.closure
    undecided = [(a, b) for i, a in enumerate(items) for b in items[i + 1:]
                 if not closure[pos[a], pos[b]] and not closure[pos[b], pos[a]]]
    return RankingView(title=title, policies=items, means=mu, letters=dict(pr.letters), rank_intervals=intervals,
                       certified=certified, undecided=undecided, guarantee=guarantee)


def _from_ranking(r: Any, title: str) -> RankingView:
    """The view of a :class:`certirank.order.Ranking` (the one ranking result every method exposes)."""
    certified = []
    for x in r.relations:
        if x.via == "closure":
            how = "by transitivity"
        elif x.when is not None and r.when_unit:
            how = f"after {x.when:g} {r.when_unit}"
        else:
            how = "direct"
        certified.append((x.better, x.worse, how))
    trials = {p.name: p.n for p in r.policies} if all(p.n is not None for p in r.policies) else None
    view = RankingView(title=title, policies=list(r.names), means=dict(r.means), letters=dict(r.letters),
                       rank_intervals={p.name: (p.rank_lo, p.rank_hi) for p in r.policies}, certified=certified,
                       undecided=[tuple(u) for u in r.undecided], guarantee=r.guarantee, trials=trials,
                       notes=list(r.notes))
    if r.inconsistent:
        view.notes.append("Warning: the certified relations contain a cycle (only possible after an error); rank "
                          "intervals fail closed to [1, L].")
    return view


def ranking_view(result: Any, *, title: str | None = None) -> RankingView:
    """Adapt a ranking-like result to a `RankingView` (through its ``.ranking`` when it has one)."""
    from ..methods.anyrank import RankingResult
    from ..methods.bbedge.result import LeaderboardResult
    from ..order.result import Ranking

    if isinstance(result, Ranking):
        return _from_ranking(result, title or f"Certified ranking ({result.kind})")
    if isinstance(result, RankingResult) and result.ranking is not None:
        view = _from_ranking(result.ranking, title or f"AnyRank ({result.method}, {result.guarantee} guarantee)")
        view.notes.append(f"Rollouts used: {result.total_samples}; stopped because: {result.termination}.")
        return view
    if isinstance(result, LeaderboardResult) and result.ranking is not None:
        view = _from_ranking(result.ranking, title or f"Leaderboard ({result.method}, {result.replicates} "
                             "replicate(s))")
        view.trials = None
        if result.top_k is not None:
            tk = result.top_k
            view.notes.append(f"Top-{tk['k']}: " + ("not certified yet." if tk["set"] is None
                                                   else f"certified at replicate {tk['certified_at']}: "
                                                   + ", ".join(map(str, tk["set"])) + "."))
        return view
    if isinstance(getattr(result, "ranking", None), Ranking):
        return _from_ranking(result.ranking, title or f"Ranking ({result.ranking.kind})")
    if all(hasattr(result, a) for a in ("items", "letters", "rank_lo", "rank_hi", "closure", "relations")):
        statement = getattr(result, "statement", None) or "Certified relations as given (see the producing method)."
        return _from_partial(result, title or "Certified ranking", statement)
    raise TypeError(f"no Markdown ranking view for {type(result).__name__}")


def render_ranking_view(view: RankingView) -> str:
    n = len(view.policies)
    total = n * (n - 1) // 2
    lines = [f"## {_text(view.title)}", ""]
    lines.append(f"**Summary.** {n} {'policy' if n == 1 else 'policies'}; {len(view.certified)} certified "
                 f"relation(s); {total - len(view.undecided)} of {total} pairs ordered, {len(view.undecided)} "
                 "undecided.")
    lines.append("")
    header = ["rank", "policy", "mean"] + (["trials"] if view.trials is not None else []) + ["letters",
                                                                                              "rank interval"]
    align = ["r", "l", "r"] + (["r"] if view.trials is not None else []) + ["c", "c"]
    rows = []
    for i, p in enumerate(view.policies, start=1):
        lo, hi = view.rank_intervals.get(p, (1, n))
        row = [i, p, _num(view.means.get(p))]
        if view.trials is not None:
            row.append(view.trials.get(p, 0))
        row += [view.letters.get(p, ""), f"[{lo}, {hi}]"]
        rows.append(row)
    lines += _table(header, align, rows)
    lines += ["", "Policies that share a letter are not certified to differ; the rank interval holds every rank "
              "the certified relations allow.", ""]
    if view.certified:
        lines.append("**Certified pairs**")
        lines.append("")
        lines += [f"- {_text(b)} is better than {_text(w)}" + (f" ({_text(how)})" if how and how != "direct" else "")
                  for b, w, how in view.certified]
    else:
        lines.append("**Certified pairs:** none yet.")
    lines.append("")
    if view.undecided:
        lines.append("**Undecided:** " + ", ".join(f"{_text(a)} vs {_text(b)}" for a, b in view.undecided))
        lines.append("")
    lines += [_text(n) for n in view.notes]
    if view.notes:
        lines.append("")
    lines.append(f"> **Guarantee.** {_text(view.guarantee)}")
    return "\n".join(lines) + "\n"


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
    tie = ("valid even if the two are exactly tied" if result.ties == "allow"
           else "assumes the two are never exactly tied")
    lines.append(f"> **Guarantee.** The chance of ever declaring the wrong policy better, at whatever pair you stop, "
                 f"is at most alpha = {result.alpha:g} (ties = {result.ties}: {tie}).")
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
    """GitHub-flavoured Markdown for a ranking, leaderboard, comparison (give `x`, `y`) or check result."""
    from ..evidence.compare import CompareResult
    from ..methods.check import CheckResult

    if isinstance(result, CheckResult):
        return _check_markdown(result, title)
    if isinstance(result, CompareResult):
        return _compare_markdown(result, x or "X", y or "Y", title)
    return render_ranking_view(ranking_view(result, title=title))
