"""A single self-contained HTML page for any certirank result (``certirank report``).

The page holds tables, letters, the confidence graph (inline SVG plus DOT and Mermaid text), rank intervals,
simulation curves and a plain statement of the guarantee with its assumptions. Figures are inline SVG and the
styles are inline, so the file opens offline and can be mailed or attached as it is.

The page is chosen by the result's ``"kind"`` (:func:`detect_kind`), so it can be built from the ``--json``
output of every command (``rank``, also ``--shuffle``, ``--group-by`` and on battle data, ``demo``,
``leaderboard``, ``baseline``, ``compare``, ``simulate``, ``compose-test`` also with ``--evaluate``,
``inspect``), from a bare ``certirank.ranking/1`` object, or from
the result objects themselves. Every ranking page is drawn from the result's :class:`~certirank.order.Ranking`.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import __version__
from ..errors import DataError, ParameterError
from ..order.result import SCHEMA, Ranking
from ..results import ResultMixin
from ._mpl import figure_svg

__all__ = ["detect_kind", "html_report", "write_report", "ReportResult", "KINDS", "read_result"]

KINDS = ("rank", "demo", "leaderboard", "baseline", "compare", "simulate", "compose-test", "test-designs",
         "item-evaluation", "inspect",
         "ranking", "shuffled-rank", "preference-graph", "grouped")
_MAX_GROUP_GRAPHS = 6  # groups drawn with their graph; the rest show table and pairs only


@dataclass(frozen=True)
class ReportResult(ResultMixin):
    """What ``certirank report`` wrote: the page, the result kind and the sections it holds."""

    RESULT_KIND = "report"

    path: str
    kind: str
    sections: list[str]
    figures: int
    bytes: int
    notes: list[str] = field(default_factory=list)


def detect_kind(d: Mapping[str, Any]) -> str:
    """Which command produced a result dict: its ``"kind"`` entry (every command's ``--json`` carries one).

    A bare ``certirank.ranking/1`` object is kind ``"ranking"``; a result of a kind this version has no page
    for, but which holds a ``"ranking"``, is drawn as a ranking. Raises ``ParameterError`` otherwise.
    """
    kind = d.get("kind")
    if d.get("schema") == SCHEMA:
        return "ranking"
    if isinstance(kind, str) and kind in KINDS:
        return kind
    if isinstance(d.get("ranking"), Mapping) and d["ranking"].get("schema") == SCHEMA:
        return "ranking"
    if isinstance(kind, str) and kind:
        return kind  # a command with no page of its own: a generic page of its fields
    if kind is None:
        raise ParameterError("this JSON has no 'kind' entry: pass the --json output of a certirank command "
                             "(rank, demo, leaderboard, baseline, compare, simulate, compose-test, inspect); a file "
                             "written before certirank 0.2 must be produced again")
    raise ParameterError(f"no report page for results of kind {kind!r} (expected a command name)")


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


# ----------------------------------------------------------------------------------------------- page

_CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;
color:#222;line-height:1.45}
h1{font-size:1.5em;margin-bottom:.2em} h2{font-size:1.15em;border-bottom:1px solid #ddd;padding-bottom:.2em;
margin-top:1.8em} .sub{color:#666;margin-top:0}
table{border-collapse:collapse;margin:.6em 0;font-size:.92em} th,td{border:1px solid #ddd;padding:.25em .6em;
text-align:right} th{background:#f4f4f4} td.l,th.l{text-align:left}
.guarantee{background:#eef5fb;border-left:4px solid #0072B2;padding:.7em 1em}
.warn{background:#fdf1e8;border-left:4px solid #D55E00;padding:.7em 1em}
figure{margin:1em 0;overflow-x:auto} figure svg{max-width:100%;height:auto} figcaption{color:#555;font-size:.9em}
pre{background:#f7f7f7;padding:.6em;overflow-x:auto;font-size:.85em} ul.pairs{columns:2;font-size:.92em}
"""


class _Page:
    def __init__(self, title: str, subtitle: str) -> None:
        self.title = title
        self.subtitle = subtitle
        self.parts: list[str] = []
        self.sections: list[str] = []
        self.figures = 0
        self.notes: list[str] = []

    def section(self, sid: str, heading: str, body: str) -> None:
        self.sections.append(sid)
        self.parts.append(f'<section id="{sid}">\n<h2>{_e(heading)}</h2>\n{body}\n</section>')

    def figure(self, fig: Any, caption: str) -> str:
        self.figures += 1
        return f"<figure>{figure_svg(fig)}<figcaption>{_e(caption)}</figcaption></figure>"

    def render(self) -> str:
        body = "\n".join(self.parts)
        return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>{_e(self.title)}</title>\n'
                f'<meta name="generator" content="certirank {__version__}">\n<style>{_CSS}</style>\n</head>\n<body>\n'
                f'<h1>{_e(self.title)}</h1>\n<p class="sub">{_e(self.subtitle)}</p>\n{body}\n'
                f'<footer><p class="sub">Made by certirank {__version__}. Everything on this page is in this one '
                f"file.</p></footer>\n</body>\n</html>\n")


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _num(v: Any, fmt: str = ".3f") -> str:
    if v is None:
        return "–"
    if isinstance(v, (float, np.floating)) and not np.isfinite(v):
        return "–"
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return str(v)
    try:
        return format(float(v), fmt)
    except (TypeError, ValueError):
        return _e(v)


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]], left: int = 1) -> str:
    """An HTML table; the first ``left`` columns are left-aligned text. Cells are escaped unless pre-built."""
    th = "".join(f'<th class="l">{_e(h)}</th>' if k < left else f"<th>{_e(h)}</th>" for k, h in enumerate(header))
    out = [f"<table><thead><tr>{th}</tr></thead><tbody>"]
    for row in rows:
        tds = "".join(f'<td class="l">{_e(c)}</td>' if k < left else f"<td>{c if isinstance(c, _Raw) else _e(c)}</td>"
                      for k, c in enumerate(row))
        out.append(f"<tr>{tds}</tr>")
    out.append("</tbody></table>")
    return "".join(out)


class _Raw(str):
    """Already-escaped HTML for a table cell."""


def _pct(alpha: float) -> str:
    return f"{100 * (1 - alpha):g}%"


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
                      graph: bool = True, verb: str = "is better than") -> None:
    """Guarantee, table, pairs and graph of any :class:`Ranking` (the one renderer of every ranking page).

    ``prefix`` / ``heading`` go before each section id / title (several rankings on one page: groups)."""
    cls = "guarantee" if r.alpha is not None else "warn"
    page.section(f"{prefix}guarantee", f"{heading}Guarantee", f'<p class="{cls}">{_e(r.guarantee)}{guarantee}</p>')
    columns = dict(columns or {})
    head = ["policy", "mean", "n", "letters", "rank interval", "tier", *columns]
    rows = [[p.name, _Raw(_num(p.mean)), "–" if p.n is None else p.n, p.letters, f"[{p.rank_lo}, {p.rank_hi}]",
             p.tier, *[_Raw(_num(c.get(p.name), ".4g")) for c in columns.values()]] for p in r.policies]
    counts = (f"<p>{r.n_certified} of {r.n_pairs} pairs certified ({r.n_direct} by a direct test, the rest by "
              f"transitivity); {len(r.undecided)} undecided."
              + (f" Stopped because: {_e(r.stopped)}." if r.stopped else "") + "</p>")
    notes = "".join(f'<p class="warn">{_e(n)}</p>' for n in r.notes)
    page.section(f"{prefix}summary", f"{heading}{what[:1].upper()}{what[1:]} and letters",
                 counts + notes + _letters_para() + _table(head, rows) + summary_extra)
    conf = "certified" + ("" if r.alpha is None else f", alpha = {r.alpha:g}")
    items = []
    for rel in r.relations:
        how = r.how(rel) or "direct"
        items.append(f"<li>{_e(rel.better)} {_e(verb)} {_e(rel.worse)} ({_e(conf)}, {_e(how)})</li>")
    items += [f"<li>{_e(a)} vs {_e(b)}: undecided</li>" for a, b in r.undecided]
    tail = "" if r.undecided else "<p>Every pair is decided: the ranking is complete.</p>"
    page.section(f"{prefix}decisions", f"{heading}Pairs", f'<ul class="pairs">{"".join(items) or "<li>none</li>"}</ul>'
                 f"{tail}")
    if graph:
        _graph_sections(page, r, what, prefix, heading)


def _rank(page: _Page, d: Mapping[str, Any], data: Any, opts: dict[str, Any]) -> None:
    r = Ranking.from_dict(d)
    assumptions = ("each policy's trials are independent draws from the same distribution of environments "
                   "(i.i.d.), in the recorded order; trials of different policies on the same row are paired")
    ties = ("exact ties allowed (each direction tested at alpha/2)" if d.get("ties") == "allow"
            else "assumes no two policies are exactly tied")
    _ranking_sections(page, r, "ranking",
                      guarantee=f"<br>Method: <b>{_e(r.kind)}</b> ({_e(d.get('guarantee', ''))} guarantee), alpha = "
                      f"<b>{r.alpha:g}</b>: the family-wise error rate of the whole ranking, over all pairs and all "
                      f"stopping times. Assumptions: {_e(assumptions)}; {_e(ties)}.",
                      summary_extra=f"<p>{d.get('total_samples')} trials used in total.</p>")
    if data is not None:
        _scores_section(page, data, r.letters, f"Scores per trial of each policy (all recorded trials), ordered "
                        f"by mean, with the certified letters at alpha = {r.alpha:g} ({r.kind}). Diamond = mean.",
                        **opts)


def _demo(page: _Page, d: Mapping[str, Any], data: Any, opts: dict[str, Any]) -> None:
    _rank(page, d["anyrank"], data, opts)
    b = Ranking.from_dict(d["bonferroni"])
    page.section("comparison", "Against Bonferroni",
                 f"<p>Bonferroni on the same simulated rollouts used {d['bonferroni']['total_samples']} rollouts and "
                 f"certified {b.n_certified} of {b.n_pairs} pairs; AnyRank saved "
                 f"{d['rollouts_saved']} rollouts. True means (unknown to the ranking): "
                 + ", ".join(f"{_e(k)} {v:.2f}" for k, v in d["true_means"].items()) + ".</p>")


def _leaderboard(page: _Page, d: Mapping[str, Any], data: Any, opts: dict[str, Any]) -> None:
    r = Ranking.from_dict(d)
    extra = ""
    tk = d.get("top_k")
    if tk:
        extra = (f"<p>Top-{tk['k']}: not certified yet.</p>" if tk.get("set") is None else
                 f"<p>Top-{tk['k']} certified at replicate {tk.get('certified_at')}: {_e(', '.join(tk['set']))}.</p>")
    _ranking_sections(page, r, "leaderboard", summary_extra=extra,
                      guarantee=f" ({_e(r.kind)}, direct e-Holm, alpha = <b>{r.alpha:g}</b>, {d.get('replicates')} "
                      "replicate(s); the mean is over the benchmark's items of the expected score.)")
    if data is not None:
        _scores_section(page, data, r.letters, f"Per-item scores (mean over replicates), ordered by mean, with the "
                        f"certified letters at alpha = {r.alpha:g}.", **opts)


def _baseline(page: _Page, d: Mapping[str, Any], data: Any, opts: dict[str, Any]) -> None:
    r = Ranking.from_dict(d)
    _ranking_sections(page, r, "baseline ranking", columns={"score": d.get("scores") or {}})
    if data is not None:
        _scores_section(page, data, r.letters, "Scores per trial, ordered by mean, with the baseline's letters "
                        "(not a certified guarantee).", **opts)


def _plain_ranking(page: _Page, d: Mapping[str, Any], data: Any, opts: dict[str, Any]) -> None:
    r = Ranking.from_dict(d)
    _ranking_sections(page, r, f"{r.kind} ranking")
    if data is not None:
        _scores_section(page, data, r.letters, "Scores per trial, with the ranking's letters.", **opts)


def _shuffled(page: _Page, d: Mapping[str, Any], data: Any, opts: dict[str, Any]) -> None:
    r = Ranking.from_dict(d)
    _ranking_sections(page, r, "shuffled-replay ranking", summary_extra=f"<p>{d.get('rows')} rows replayed in a "
                      f"random order (seed {_e(d.get('seed'))}); mean = the policy's average over the rows it ran.</p>")
    if data is not None:
        _scores_section(page, data, r.letters, "Scores per trial, with the certified letters of the shuffled "
                        "replay.", **opts)


def _preferences(page: _Page, d: Mapping[str, Any], data: Any, opts: dict[str, Any]) -> None:
    if data is not None:
        raise ParameterError("--data adds nothing to a preference-graph report (battles have no per-trial scores)")
    r = Ranking.from_dict(d)
    never = d.get("never_met") or []
    extra = ("<p>Mean = the policy's share of its battles (a draw is half a win); n = its battles.</p>"
             + (f"<p>Never met ({len(never)} pair(s), nothing can be said): "
                f"{_e(', '.join(f'{a} vs {b}' for a, b in never))}.</p>" if never else ""))
    _ranking_sections(page, r, "preference graph", summary_extra=extra, verb="is preferred to")
    rows = [[p["a"], p["b"], p["battles"], p["wins_a"], p["wins_b"], p["draws"], _Raw(_num(p["pvalue"], ".4g")),
             {"a>b": f"{p['a']} > {p['b']}", "a<b": f"{p['b']} > {p['a']}"}.get(p["decision"], "undecided")]
            for p in d.get("pairs") or []]
    page.section("battles", "Battles per pair", _table(["A", "B", "battles", "A won", "B won", "draws", "p-value",
                                                        "certified"], rows, left=2))


def _grouped(page: _Page, d: Mapping[str, Any], data: Any, opts: dict[str, Any]) -> None:
    if data is not None:
        raise ParameterError("--data is not available for a --group-by report (one page holds every group)")
    by = list(d.get("by") or [])
    groups = d.get("groups") or []
    page.section("guarantee", "Guarantee", f'<p class="guarantee">{_e(d.get("statement", ""))}</p>')
    rows = [[*[g["group"].get(c, "") for c in by], "–" if g.get("policies") is None else g["policies"],
             "–" if g.get("certified_pairs") is None else g["certified_pairs"],
             f"not run: {g['error']}" if g.get("error") else (g.get("letters") or "–")] for g in groups]
    page.section("summary", f"{len(groups)} groups of {', '.join(by)}",
                 _table([*by, "policies", "certified pairs", "letters"], rows, left=len(by)))
    drawn = 0
    for k, g in enumerate(groups):
        res = g.get("result")
        if not isinstance(res, Mapping) or not isinstance(res.get("ranking"), Mapping):
            continue
        label = ", ".join(f"{c} = {v}" for c, v in g["group"].items())
        _ranking_sections(page, Ranking.from_dict(res), "ranking", prefix=f"g{k}-", heading=f"{label}: ",
                          graph=drawn < _MAX_GROUP_GRAPHS)
        drawn += 1
    if drawn > _MAX_GROUP_GRAPHS:
        page.notes.append(f"graphs drawn for the first {_MAX_GROUP_GRAPHS} of {drawn} ranked groups")


def _inspect(page: _Page, d: Mapping[str, Any]) -> None:
    rows = [[k, _Raw(_e(json.dumps(v) if isinstance(v, (list, dict)) else v))] for k, v in d.items() if k != "kind"]
    page.section("summary", "Data summary", _table(["field", "value"], rows, left=2))


def _compare(page: _Page, d: Mapping[str, Any], data: Any, opts: dict[str, Any]) -> None:
    alpha = d.get("alpha")
    level = f"alpha = {alpha:g}" if alpha is not None else "the alpha chosen for the run (--alpha, default 0.05)"
    page.section("guarantee", "Guarantee",
                 f'<p class="guarantee">Anytime-valid sequential test: the probability of <em>ever</em> declaring a '
                 f"wrong direction, at any of the {d['n']} pairs or whenever one stops, is at most {_e(level)}. "
                 "Assumptions: the pairs of trials (x_t, y_t) are independent across t (environments drawn i.i.d.); "
                 "the two scores of one pair may depend on each other.</p>")
    x, y = d.get("x", "X (--a)"), d.get("y", "Y (--b)")
    word = {"x>y": f"{x} is certified better than {y}", "x<y": f"{y} is certified better than {x}",
            None: "undecided: no certified difference yet"}.get(d["decision"], str(d["decision"]))
    rows = [[word, _Raw(_num(d["pvalue"], ".4g")), "–" if d["decided_at"] is None else d["decided_at"], d["n"]]]
    page.section("summary", "Decision", _table(["decision", "p-value", "decided at pair", "pairs used"], rows))
    if alpha is None:
        page.notes.append("the compare JSON does not record alpha, bettor or tie mode")
    if data is not None:
        _scores_section(page, data, None, "Scores per trial of every policy in the data (no letters: a paired "
                        "comparison certifies one pair only).", **opts)


def _simulate(page: _Page, d: Mapping[str, Any], data: Any, opts: dict[str, Any], sim_obj: Any) -> None:
    from .curves import curves_plot, summary_plot

    scen = d["scenario"]
    alpha = float(scen.get("alpha", 0.05))
    leader = scen.get("kind") == "leaderboard"
    page.section("guarantee", "What this shows",
                 f'<p class="guarantee">A simulation study, not a certificate. Scenario <b>{_e(scen.get("name"))}</b>, '
                 f"{d['reps']} seeded runs (root seed {d['seed']}). FWER = fraction of runs in which a method ever "
                 f"made a false claim, with an exact (Clopper–Pearson) 95% interval; a method is consistent with "
                 f"its level alpha = <b>{alpha:g}</b> when that interval reaches alpha. Power = fraction of the true "
                 "orderings certified at the end.</p>")
    srows = [[k, _e(json.dumps(v) if isinstance(v, (list, dict)) else v)] for k, v in scen.items()]
    page.section("scenario", "Scenario", _table(["parameter", "value"], [[a, _Raw(b)] for a, b in srows], left=2))
    cost_key = "mean_replicates" if leader else "mean_samples"
    rows = []
    for label, s in d["summary"].items():
        lo, hi = s.get("fwer_ci", [None, None])
        rows.append([label, _Raw(_num(s["fwer"])), f"[{_num(lo)}, {_num(hi)}]",
                     "yes" if s.get("fwer_controlled") else "NO", _Raw(_num(s.get("power"))),
                     _Raw(_num(s.get("full_ranking_rate"))), _Raw(_num(s.get(cost_key), ".1f"))])
    cost_head = "mean replicates" if leader else "mean evaluations"
    body = _table(["method", "FWER", "95% interval", "consistent with alpha", "power", "full ranking", cost_head], rows)
    body += page.figure(summary_plot(d["summary"], alpha=alpha),
                        f"Per method: FWER with its exact 95% interval (dashed line: alpha = {alpha:g}), final "
                        "power and full-ranking rate, and mean cost.")
    page.section("summary", "Summary", body)
    curves = None
    if sim_obj is not None:
        curves = sim_obj
    elif data is not None:
        curves = _curves_from_parquet(data, leader)
    if curves is not None:
        fig = curves_plot(curves, alpha=alpha)
        page.section("curves", "Power and sample-complexity curves",
                     page.figure(fig, "Rate over the simulated runs against the evaluations spent, one line per "
                                 f"method; the FWER panel shows alpha = {alpha:g} dashed."))
    else:
        page.notes.append("no per-run trajectories: run simulate with --out FILE.parquet and pass --data FILE.parquet "
                          "for power curves")


def _curves_from_parquet(path: Any, leader: bool) -> pd.DataFrame:
    from ..sim.metrics import curves as curves_fn

    p = Path(path)
    snap = p.with_name(p.stem + ".snapshots" + (p.suffix or ".parquet"))
    try:
        runs = pd.read_parquet(p)
        snapshots = pd.read_parquet(snap)
    except (OSError, ValueError) as exc:
        raise DataError(f"cannot read the simulation tables ({exc}); pass the --out Parquet file of "
                        "'certirank simulate' (its snapshots file must sit beside it)", source=str(p)) from None
    axis = "time" if leader else "evals"
    hi = float(runs["end_time" if leader else "end_evals"].max()) if len(runs) else 1.0
    step = max(1.0, float(np.ceil(hi / 200)))
    return curves_fn(snapshots, runs, np.arange(0.0, hi + step, step), axis)


def _compose(page: _Page, d: Mapping[str, Any]) -> None:
    from ._mpl import new_figure, rc, text_size

    page.section("guarantee", "What this is",
                 f'<p class="guarantee">RPOSST chose {d["m"]} of {d["n_test_cases"]} test cases and their weights so '
                 f"that new policies are scored like the full pool. This is an optimisation, not a statistical "
                 f"certificate: the error below is the training CVaR({d['eta']:g}) of the absolute score error over "
                 f"{d['n_policies']} tuning policies and the targets (betas {_e(d['betas'])}); check it on held-out "
                 "policies with <code>compose-test --evaluate</code>.</p>")
    rows = [[c, _Raw(_num(w, ".4f"))] for c, w in zip(d["test_cases"], d["weights"])]
    body = _table(["test case", "weight"], rows)
    body += _table(["training CVaR loss", "max error", "mean error", "solver"],
                   [[_Raw(_num(d["loss"], ".4f")), _Raw(_num(d["max_error"], ".4f")),
                     _Raw(_num(d["mean_error"], ".4f")), d["solver"]]], left=0)
    with rc():
        lw = max(text_size(c, 9.0)[0] for c in d["test_cases"])
        fig = new_figure(lw + 4.0, 0.35 * len(d["test_cases"]) + 1.0, layout="constrained")
        ax = fig.add_subplot()
        ax.barh(np.arange(len(d["weights"])), d["weights"], color="#0072B2")
        ax.set_yticks(np.arange(len(d["weights"])), d["test_cases"])
        ax.set_ylim(len(d["weights"]) - 0.5, -0.5)
        ax.set_xlabel("weight")
    body += page.figure(fig, "Weights of the chosen test cases.")
    page.section("summary", "Composed test", body)


def _designs(page: _Page, d: Mapping[str, Any]) -> None:
    from ._mpl import PALETTE, new_figure, rc

    page.section("guarantee", "What this is",
                 f'<p class="guarantee">Holdout protocol: {d["sets"]} random sets of held-out policies '
                 f"(fraction {d['holdout']:g}); each method composes a test on the remaining policies and is scored "
                 "by its worst absolute error on the held-out ones. An empirical comparison, not a certificate.</p>")
    table = d["table"]
    rows = [[r["method"], r["m"], _Raw(_num(r.get("mean_max_error"), ".4f")), _Raw(_num(r.get("se_max_error"), ".4f")),
             _Raw(_num(r.get("mean_error"), ".4f")), r.get("modal_test", "")] for r in table]
    body = _table(["method", "m", "mean max error", "s.e.", "mean error", "most chosen test"], rows)
    with rc():
        fig = new_figure(8.0, 3.4, layout="constrained")
        ax = fig.add_subplot()
        methods = list(dict.fromkeys(r["method"] for r in table))
        for k, meth in enumerate(methods):
            for r in table:
                if r["method"] == meth and r.get("curve"):
                    ax.plot(np.arange(1, len(r["curve"]) + 1), r["curve"], color=PALETTE[k % len(PALETTE)],
                            label=f"{meth} (m = {r['m']})", lw=1.4)
        ax.set_xlabel("rank of the holdout error (1 = worst)")
        ax.set_ylabel("mean absolute error")
        from matplotlib.ticker import MaxNLocator
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.legend(fontsize=7.5, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    body += page.figure(fig, "Sorted holdout errors, mean over holdout sets, one line per method and m.")
    page.section("summary", "Protocol table", body)


def _items(page: _Page, d: Mapping[str, Any]) -> None:
    from .rposst_text import design_shares

    page.section("guarantee", "What this is",
                 f'<p class="guarantee">Item-scale holdout: {d["sets"]} random splits hold out {d["holdout_size"]} '
                 f"of {d['n_models']} models; each method picks m = {d['m']} of {d['n_items']:,} items from the other "
                 "models and predicts every held-out model's mean score over all items. An empirical comparison, "
                 "not a certificate.</p>")
    rows = [[r["method"], _Raw(_num(r.get("mae"), ".4f")), _Raw(_num(r.get("se_mae"), ".4f")),
             _Raw(_num(r.get("max_error"), ".4f")), _Raw(_num(r.get("kendall_tau"), ".3f")),
             design_shares(r.get("designs", {}))]
            for r in d["table"]]
    page.section("summary", "Held-out prediction error",
                 _table(["method", "MAE", "s.e.", "max error", "Kendall tau", "designs"], rows))


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
        d: Mapping[str, Any] = read_result(result)
    elif isinstance(result, Mapping):
        d = result
    elif hasattr(result, "to_dict"):
        if hasattr(result, "curves") and hasattr(result, "scenario"):
            sim_obj = result
        d = result.to_dict()
        if type(result).__name__ == "CompareResult":
            d = {**d, "alpha": getattr(result, "alpha", None)}
    else:
        raise ParameterError(f"cannot report on {type(result).__name__}")
    kind = detect_kind(d)
    if data is not None and kind in ("compose-test", "test-designs", "item-evaluation", "inspect"):
        raise ParameterError(f"--data adds nothing to a {kind} report (the test matrix is summarised already)")
    if data is not None and kind not in KINDS:
        # the generic page (check, validate, ...) has no score plot: the file would be ignored without a word
        raise ParameterError(f"--data adds nothing to a {kind} report (it has no score plot)")
    name = {"rank": "Certified ranking", "demo": "Certified ranking (simulated demo)",
            "leaderboard": "Certified leaderboard", "baseline": "Baseline ranking", "compare": "Paired comparison",
            "simulate": "Simulation study", "compose-test": "Composed test", "test-designs": "Test-design evaluation",
            "item-evaluation": "Item-selection evaluation",
            "inspect": "Data summary", "ranking": "Ranking", "shuffled-rank": "Certified ranking (shuffled replay)",
            "preference-graph": "Certified preference graph", "grouped": "Certified rankings by group"}
    page = _Page(title or name.get(kind, f"certirank {kind}"), f"certirank {kind}" + (f" — {source}" if source else ""))
    opts = {"format": format, "score_range": score_range}
    with_data = {"rank": _rank, "demo": _demo, "leaderboard": _leaderboard, "baseline": _baseline,
                 "compare": _compare, "ranking": _plain_ranking, "shuffled-rank": _shuffled,
                 "preference-graph": _preferences, "grouped": _grouped}
    if kind in with_data:
        with_data[kind](page, d, data, opts)
    elif kind == "simulate":
        _simulate(page, d, data, opts, sim_obj)
    else:  # a kind with no page of its own gets the generic page of its fields
        {"compose-test": _compose, "test-designs": _designs, "item-evaluation": _items}.get(kind, _inspect)(page, d)
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
    return ReportResult(path=str(p), kind=page.kind, sections=list(page.sections),  # type: ignore[attr-defined]
                        figures=page.figures, bytes=len(text.encode("utf-8")), notes=list(page.notes))
