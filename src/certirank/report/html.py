"""A single self-contained HTML page for any certirank result (``certirank report``).

The page holds tables, letters, the confidence graph (inline SVG plus DOT and Mermaid text), rank intervals,
simulation curves and a plain statement of the guarantee with its assumptions. Figures are inline SVG and the
styles are inline, so the file opens offline and can be mailed or attached as it is.

The page is chosen by the record's ``"kind"`` (:func:`detect_kind`; the kinds are
:data:`certirank.results.KINDS`), so it can be built from the ``--json`` output of every command (also JSON
written by earlier versions, read through :func:`certirank.report.records.read`), from a bare ``certirank.ranking/1``
object, or from the result objects themselves. Every ranking page is drawn from the record's
:class:`~certirank.order.Ranking`; its warnings and notes are on the page.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from ..errors import DataError, ParameterError
from ..order.result import Ranking
from ..results import Result, inputs, note
from .records import Record, read

__all__ = ["detect_kind", "html_report", "write_report", "ReportResult", "read_result"]

_MAX_GROUP_GRAPHS = 6  # groups drawn with their graph; the rest show table and pairs only


@dataclass(frozen=True)
class ReportResult(Result):
    """What ``certirank report`` wrote (record kind ``"report"``): the page, the kind of result it shows
    (``page``) and the sections it holds; what the page could not show is in ``warnings``."""

    KIND: ClassVar[str] = "report"

    path: str = inputs()
    page: str
    sections: list[str]
    figures: int
    bytes: int


def detect_kind(d: Mapping[str, Any]) -> str:
    """Which kind of result a ``--json`` dict is (read through :func:`certirank.report.records.read`, so JSON of earlier
    versions works too): a key of :data:`certirank.results.KINDS`, or ``"ranking"`` for a bare
    ``certirank.ranking/1`` object. Raises ``ParameterError`` otherwise."""
    return read(d).kind


def read_result(path: str | Path) -> dict[str, Any]:
    """Read a ``--json`` result file."""
    from .._io import read_saved_text

    p = Path(path)
    text = read_saved_text(p, "result file", DataError)  # a binary file (a campaign) is one line, not a traceback
    try:
        d = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(f"not valid JSON ({exc.msg} at line {exc.lineno}); pass the output of a command run "
                        "with --json", source=str(p)) from None
    except RecursionError:
        raise DataError("JSON nested too deeply to be a certirank result; pass the output of a command run with "
                        "--json", source=str(p)) from None
    if not isinstance(d, dict):
        raise DataError("expected a JSON object (the --json output of a certirank command)", source=str(p))
    return d

from ._page import _Page, _Raw, _e, _num, _table
from ._study_pages import _compose, _designs, _items, _simulate

# ----------------------------------------------------------------------------------------- by kind

def _graph_sections(page: _Page, pr: Any, what: str, prefix: str = "", heading: str = "") -> None:
    from .graph import graph_plot, rank_interval_plot

    fig = graph_plot(pr)
    dot, mermaid = pr.to_dot(), pr.to_mermaid()
    body = page.figure(fig, f"Confidence graph of the {what}: arrows are the transitive reduction of the certified "
                       "relations (better → worse); rows are tiers; boxes show mean | letters | rank interval.")
    if pr.inconsistent:
        body = f'<p class="warn">{_e(pr.cycle_note)}</p>' + body
    body += (f"<details><summary>Graphviz DOT</summary><pre>{_e(dot)}</pre></details>"
             f"<details><summary>Mermaid</summary><pre>{_e(mermaid)}</pre></details>")
    page.section(f"{prefix}graph", f"{heading}Confidence graph", body)
    page.section(f"{prefix}rank-intervals", f"{heading}Rank intervals",
                 page.figure(rank_interval_plot(pr), "Simultaneous rank intervals: every rank still possible for "
                             "each item given the certified relations (1 = best)."))


def _scores_section(page: _Page, data: Any, letters: Mapping[str, str] | None, caption: str, *,
                    format: str | None, score_range: tuple[float, float] | None) -> None:
    from .scores import score_plot

    fig = score_plot(data, letters, format=format, score_range=score_range)
    page.section("scores", "Score distributions", page.figure(fig, caption))


def _letters_para() -> str:
    return "<p>Items that share a letter are <em>not</em> certified to differ; items with no letter in common are.</p>"


def _ranking_sections(page: _Page, r: Ranking, what: str, *, guarantee: str = "", summary_extra: str = "",
                      columns: Mapping[str, Mapping[str, Any]] | None = None, prefix: str = "", heading: str = "",
                      graph: bool = True, verb: str = "is better than", letters_title: str | None = None) -> None:
    """Guarantee, table, pairs and graph of any :class:`Ranking` (the one renderer of every ranking page).

    ``prefix`` / ``heading`` go before each section id / title (several rankings on one page: groups)."""
    cls = "guarantee" if r.alpha is not None else "warn"
    page.section(f"{prefix}guarantee", f"{heading}Guarantee", f'<p class="{cls}">{_e(r.guarantee)}{guarantee}</p>')
    columns = dict(columns or {})
    letters_title = letters_title or ("table letters" if r.about == "table" else "letters")
    head = ["policy", "mean", "n", letters_title, "rank interval", "tier", *columns]
    rows = [[p.name, _Raw(_num(p.mean)), "–" if p.n is None else p.n, p.letters, f"[{p.rank_lo}, {p.rank_hi}]",
             p.tier, *[_Raw(_num(c.get(p.name), ".4g")) for c in columns.values()]] for p in r.policies]
    counts = (f"<p>{r.n_certified} of {r.n_pairs} pairs certified ({r.n_direct} by a direct test, the rest by "
              f"transitivity); "
              + ("" if r.margin is None else f"{len(r.equivalent)} equivalent (within {r.margin:g}); ")
              + f"{len(r.undecided)} undecided."
              + (f" Stopped because: {_e(r.stopped)}." if r.stopped else "") + "</p>")
    notes = "".join(f'<p class="warn">{_e(n)}</p>' for n in r.notes)
    page.section(f"{prefix}summary", f"{heading}{what[:1].upper()}{what[1:]} and {letters_title}",
                 counts + notes + _letters_para() + _table(head, rows) + summary_extra)
    conf = r.qualifier
    items = []
    for rel in r.relations:
        how = r.how(rel) or "direct"
        items.append(f"<li>{_e(rel.better)} {_e(verb)} {_e(rel.worse)} ({_e(conf)}, {_e(how)})</li>")
    items += [f"<li>{_e(a)} and {_e(b)} are equivalent: |difference of means| &lt; {r.margin:g} ({_e(conf)})</li>"
              for a, b in r.equivalent]
    items += [f"<li>{_e(a)} vs {_e(b)}: undecided</li>" for a, b in r.undecided]
    tail = "" if r.undecided else "<p>Every pair is decided: the ranking is complete.</p>"
    page.section(f"{prefix}decisions", f"{heading}Pairs", f'<ul class="pairs">{"".join(items) or "<li>none</li>"}</ul>'
                 f"{tail}")
    if graph:
        _graph_sections(page, r, what, prefix, heading)


def _warnings_section(page: _Page, rec: Record) -> None:
    """Every warning and note the terminal printed for this run (the record's ``warnings``)."""
    if rec.warnings:
        page.section("warnings", "Warnings and notes",
                     "".join(f'<p class="warn">{_e(w)}</p>' for w in rec.warnings))


def _order_text(order: Any) -> str:
    """How the data were read, in words (``inputs.order`` of the record)."""
    if not isinstance(order, Mapping):
        return ""
    kind = order.get("kind")
    if kind == "random":
        k = order.get("orders")
        return (f"rows read in {k} random orders (seeds from {order.get('seed')})" if k
                else f"rows read in a random order (seed {order.get('seed')})")
    if kind == "column":
        return f"rows read in the order of column {order.get('column')!r}"
    if kind == "given":
        return "rows read in file order"
    if kind == "arrival":
        return "data read in arrival order"
    return ""


def _forecasts(rec: Record) -> str:
    """The forecasts of a record's undecided pairs (AnyRank, leaderboards), in the words of the text report."""
    from types import SimpleNamespace

    from .text import forecast_sentence
    said = forecast_sentence(SimpleNamespace(undecided_details=rec.get("undecided_details"), n_max=rec.get("n_max"),
                                             forecast_unit=rec.get("forecast_unit", "paired trials")))
    return f"<p>{_e(said)}</p>" if said else ""


def _rank(page: _Page, rec: Record, data: Any, opts: dict[str, Any]) -> None:
    r = rec.ranking
    order = _order_text(rec.inputs.get("order"))
    assumptions = ("each policy's trials are independent draws from the same distribution of environments "
                   f"(i.i.d.){', ' + order if order else ''}; trials of different policies on the same row are "
                   "paired")
    ties = ("exact ties allowed (each direction tested at alpha/2)" if rec.inputs.get("ties") == "allow"
            else "assumes no two policies are exactly tied")
    _ranking_sections(page, r, "ranking",
                      guarantee=f"<br>Method: <b>{_e(r.kind)}</b> ({_e(rec.inputs.get('guarantee', ''))} guarantee), "
                      f"alpha = <b>{r.alpha:g}</b>: the family-wise error rate of the whole ranking, over all pairs "
                      f"and all stopping times. Assumptions: {_e(assumptions)}; {_e(ties)}.",
                      summary_extra=f"<p>{rec.details.get('total_samples')} trials used in total.</p>"
                      + _forecasts(rec))
    if data is not None:
        _scores_section(page, data, r.letters, f"Scores per trial of each policy (all recorded trials), ordered "
                        f"by mean, with the certified letters at alpha = {r.alpha:g} ({r.kind}). Diamond = mean.",
                        **opts)


def _demo(page: _Page, rec: Record, data: Any, opts: dict[str, Any]) -> None:
    _rank(page, rec, data, opts)
    bonf = read(rec.details["bonferroni"])
    b = bonf.ranking
    page.section("comparison", "Against Bonferroni",
                 f"<p>Bonferroni on the same simulated rollouts used {bonf.details.get('total_samples')} rollouts "
                 f"and certified {b.n_certified} of {b.n_pairs} pairs; AnyRank saved "
                 f"{rec.details['rollouts_saved']} rollouts. True means (unknown to the ranking): "
                 + ", ".join(f"{_e(k)} {v:.2f}" for k, v in rec.details["true_means"].items()) + ".</p>")


def _leaderboard(page: _Page, rec: Record, data: Any, opts: dict[str, Any]) -> None:
    r = rec.ranking
    extra = ""
    tk = rec.details.get("top_k")
    if tk:
        extra = (f"<p>Top-{tk['k']}: not certified yet.</p>" if tk.get("set") is None else
                 f"<p>Top-{tk['k']} certified at replicate {tk.get('certified_at')}: {_e(', '.join(tk['set']))}.</p>")
    extra += _forecasts(rec)
    how = ("each pair by the exact budget test, Holm" if r.kind == "exact-budget" else "direct e-Holm")
    _ranking_sections(page, r, "leaderboard", summary_extra=extra,
                      guarantee=f" ({_e(r.kind)}, {how}, alpha = <b>{r.alpha:g}</b>, "
                      f"{rec.details.get('replicates')} replicate(s); the mean is over the benchmark's items of the "
                      "expected score.)")
    if data is not None:
        _scores_section(page, data, r.letters, f"Per-item scores (mean over replicates), ordered by mean, with the "
                        f"certified letters at alpha = {r.alpha:g}.", **opts)


def _baseline(page: _Page, rec: Record, data: Any, opts: dict[str, Any]) -> None:
    r = rec.ranking
    _ranking_sections(page, r, "baseline ranking", columns={"score": rec.details.get("scores") or {}})
    if data is not None:
        _scores_section(page, data, r.letters, "Scores per trial, ordered by mean, with the baseline's letters "
                        "(not a certified guarantee).", **opts)


def _plain_ranking(page: _Page, rec: Record, data: Any, opts: dict[str, Any]) -> None:
    r = rec.ranking
    _ranking_sections(page, r, f"{r.kind} ranking")
    if data is not None:
        _scores_section(page, data, r.letters, "Scores per trial, with the ranking's letters.", **opts)


def _table_rank(page: _Page, rec: Record, data: Any, opts: dict[str, Any]) -> None:
    r = rec.ranking
    rows = rec.details.get("rows")
    _ranking_sections(page, r, "table ranking", letters_title="table letters",
                      summary_extra=f"<p>{rows} rows read in a random order (seed {_e(rec.inputs.get('seed'))}); "
                      "mean = the policy's average over the rows it ran. After every row these averages are exact: "
                      "the letters are arithmetic on this table, nothing is inferred beyond it.</p>")
    if data is not None:
        _scores_section(page, data, r.letters, "Scores per trial, with the table letters (about this table's "
                        "averages only).", **opts)


def _preferences(page: _Page, rec: Record, data: Any, opts: dict[str, Any]) -> None:
    if data is not None:
        raise ParameterError("--data adds nothing to a preference-graph report (battles have no per-trial scores)")
    r = rec.ranking
    never = rec.details.get("never_met") or []
    extra = ("<p>Mean = the policy's share of its battles (a draw is half a win); n = its battles.</p>"
             + (f"<p>Never met ({len(never)} pair(s), nothing can be said): "
                f"{_e(', '.join(f'{a} vs {b}' for a, b in never))}.</p>" if never else ""))
    _ranking_sections(page, r, "preference graph", summary_extra=extra, verb="is preferred to")
    rows = []
    for p in rec.details.get("pairs") or []:
        word = (f"{p['a']} > {p['b']}" if r.better(p["a"], p["b"]) else
                f"{p['b']} > {p['a']}" if r.better(p["b"], p["a"]) else "undecided")
        rows.append([p["a"], p["b"], p["battles"], p["wins_a"], p["wins_b"], p["draws"],
                     _Raw(_num(p["pvalue"], ".4g")), word])
    page.section("battles", "Battles per pair", _table(["A", "B", "battles", "A won", "B won", "draws", "p-value",
                                                        "certified"], rows, left=2))


def _grouped(page: _Page, rec: Record, data: Any, opts: dict[str, Any]) -> None:
    if data is not None:
        raise ParameterError("--data is not available for a --group-by report (one page holds every group)")
    by = list(rec.inputs.get("by") or [])
    groups = rec.details.get("groups") or []
    page.section("guarantee", "Guarantee", f'<p class="guarantee">{_e(rec.details.get("statement", ""))}</p>')
    rows = [[*[g["group"].get(c, "") for c in by], "–" if g.get("policies") is None else g["policies"],
             "–" if g.get("certified_pairs") is None else g["certified_pairs"],
             f"not run: {g['error']}" if g.get("error") else (g.get("letters") or "–")] for g in groups]
    page.section("summary", f"{len(groups)} groups of {', '.join(by)}",
                 _table([*by, "policies", "certified pairs", "letters"], rows, left=len(by)))
    drawn = 0
    for k, g in enumerate(groups):
        res = g.get("result")
        if not isinstance(res, Mapping):
            continue
        sub = read(res)
        if sub.ranking is None:
            continue
        label = ", ".join(f"{c} = {v}" for c, v in g["group"].items())
        _ranking_sections(page, sub.ranking, "ranking", prefix=f"g{k}-", heading=f"{label}: ",
                          graph=drawn < _MAX_GROUP_GRAPHS,
                          letters_title="table letters" if sub.about == "table" else "letters")
        drawn += 1
    if drawn > _MAX_GROUP_GRAPHS:
        page.notes.append(f"graphs drawn for the first {_MAX_GROUP_GRAPHS} of {drawn} ranked groups")


def _fields(page: _Page, rec: Record, heading: str = "Data summary") -> None:
    """The generic page of a record's inputs and details (and its ranking, when it has one)."""
    if rec.ranking is not None:
        _ranking_sections(page, rec.ranking, f"{rec.ranking.kind} ranking")
    items = [*rec.inputs.items(), *rec.details.items()]
    rows = [[k, _Raw(_e(json.dumps(v) if isinstance(v, (list, dict)) else v))] for k, v in items]
    page.section("fields", heading if rec.ranking is None else "Details", _table(["field", "value"], rows, left=2))


def _compare(page: _Page, rec: Record, data: Any, opts: dict[str, Any]) -> None:
    d = rec.details
    alpha = rec.inputs.get("alpha")
    level = f"alpha = {alpha:g}" if alpha is not None else "the alpha chosen for the run (--alpha, default 0.05)"
    about = rec.ranking.about_phrase if rec.ranking is not None else ""
    page.section("guarantee", "Guarantee",
                 f'<p class="guarantee">Anytime-valid sequential test: the probability of <em>ever</em> declaring a '
                 f"wrong direction, at any of the {d['n']} pairs or whenever one stops, is at most {_e(level)}"
                 + (f" (a claim {_e(about)})" if about else "") + ". Assumptions: the pairs of trials (x_t, y_t) are "
                 "independent across t (environments drawn i.i.d.); the two scores of one pair may depend on each "
                 "other.</p>")
    x, y = rec.inputs.get("a", "X (--a)"), rec.inputs.get("b", "Y (--b)")
    r = rec.ranking
    if r is not None and r.better(x, y):
        word = f"{x} is certified better than {y}"
    elif r is not None and r.better(y, x):
        word = f"{y} is certified better than {x}"
    else:
        word = "undecided: no certified difference yet"
    rows = [[word, _Raw(_num(d["pvalue"], ".4g")), "–" if d["decided_at"] is None else d["decided_at"], d["n"]]]
    page.section("summary", "Decision", _table(["decision", "p-value", "decided at pair", "pairs used"], rows))
    if alpha is None:
        page.notes.append("the compare JSON does not record alpha, bettor or tie mode")
    if data is not None:
        _scores_section(page, data, None, "Scores per trial of every policy in the data (no letters: a paired "
                        "comparison certifies one pair only).", **opts)


# ----------------------------------------------------------------------------------------------- API

def html_report(result: Any, *, data: Any = None, title: str | None = None, format: str | None = None,
                score_range: tuple[float, float] | None = None, source: str | None = None) -> tuple[str, _Page]:
    """Build the report page.

    Parameters
    ----------
    result : dict, result object or path
        The ``--json`` output (dict or file) of rank, demo, leaderboard, baseline, compare, simulate or
        compose-test, or the result object itself.
    data : path or table, optional
        Per-trial evaluation data: adds the score-distribution plot. For a simulation, the ``--out`` Parquet
        file instead (adds the power curves).
    title : str, optional

    Returns
    -------
    (str, page)
        The HTML text, and the page object (``sections``, ``figures``, ``notes``).
    """
    sim_obj = None
    if isinstance(result, (str, Path)):
        source = source or str(result)
        rec = read(read_result(result))
    elif isinstance(result, (Mapping, Result, Ranking, Record)):
        if hasattr(result, "curves") and hasattr(result, "scenario"):
            sim_obj = result
        rec = read(result)
    else:
        raise ParameterError(f"cannot report on {type(result).__name__}")
    kind = rec.kind
    if data is not None and kind in ("compose-test", "test-designs", "item-evaluation", "inspect"):
        raise ParameterError(f"--data adds nothing to a {kind} report (the test matrix is summarised already)")
    with_data = {"rank": _rank, "demo": _demo, "leaderboard": _leaderboard, "baseline": _baseline,
                 "compare": _compare, "ranking": _plain_ranking, "campaign-status": _plain_ranking,
                 "table-rank": _table_rank, "preference-graph": _preferences, "grouped": _grouped}
    if data is not None and kind not in with_data and kind != "simulate":
        # the generic page (check, validate, ...) has no score plot: the file would be ignored without a word
        raise ParameterError(f"--data adds nothing to a {kind} report (it has no score plot)")
    name = {"rank": "Certified ranking", "demo": "Certified ranking (simulated demo)",
            "leaderboard": "Certified leaderboard", "baseline": "Baseline ranking", "compare": "Paired comparison",
            "simulate": "Simulation study", "compose-test": "Composed test", "test-designs": "Test-design evaluation",
            "item-evaluation": "Item-selection evaluation", "inspect": "Data summary", "ranking": "Ranking",
            "table-rank": "Table ranking (averages over this table)", "campaign-status": "Campaign status",
            "preference-graph": "Certified preference graph", "grouped": "Certified rankings by group"}
    page = _Page(title or name.get(kind, f"certirank {kind}"), f"certirank {kind}" + (f" — {source}" if source else ""))
    opts = {"format": format, "score_range": score_range}
    if kind in with_data:
        with_data[kind](page, rec, data, opts)
    elif kind == "simulate":
        _simulate(page, rec, data, opts, sim_obj)
    else:  # a kind with no page of its own gets the generic page of its fields
        {"compose-test": _compose, "test-designs": _designs, "item-evaluation": _items}.get(kind, _fields)(page, rec)
    _warnings_section(page, rec)
    page.kind = kind  # type: ignore[attr-defined]
    return page.render(), page


def write_report(result: Any, path: str | Path, **kwargs: Any) -> ReportResult:
    """Write :func:`html_report` to ``path``; returns what was written."""
    text, page = html_report(result, **kwargs)
    p = Path(path)
    try:
        p.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ParameterError(f"cannot write {p}: {exc.strerror or exc}") from None
    return ReportResult(path=str(p), page=page.kind, sections=list(page.sections),  # type: ignore[attr-defined]
                        figures=page.figures, bytes=len(text.encode("utf-8")),
                        warnings=tuple(note(n) for n in page.notes))
