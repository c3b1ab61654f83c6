"""What the campaign page shows, as plain data built from the campaign's own result objects.

The templates only place these values; every number and sentence comes from :class:`certirank.Campaign`
(``status()``, ``log()``) and its :class:`certirank.order.Ranking`, so the page, the CLI and ``--json`` agree.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..report.svg import order_svg

__all__ = ["campaign_view", "design_view", "entry_rows", "run_view", "estimates_svg", "openapi_reference"]

LETTERS_NOTE = ("Policies sharing a letter are not certified different; the table follows the certified order, "
                "ties by mean.")


def _mean(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


def _when(v: float | None) -> str:
    if v is None:
        return "-"
    return f"{v:g}"


def campaign_view(camp: Any) -> dict[str, Any]:
    """Everything the page header, run panel and ranking panel show for campaign ``camp``."""
    status = camp.status()
    rk = status.ranking
    leader = status.campaign == "leaderboard"
    items = status.campaign == "items"  # scored item by item: the counts are item evaluations, the records draws
    rows = [{"name": p.name, "letters": p.letters, "mean": _mean(p.mean),
             "count": "-" if status.rollouts.get(p.name) is None else status.rollouts[p.name],
             "interval": f"{p.rank_lo}-{p.rank_hi}" if p.rank_lo != p.rank_hi else str(p.rank_lo)}
            for p in rk.policies]
    pairs = [{"better": r.better, "worse": r.worse, "via": "direct test" if r.via == "test" else "transitivity",
              "when": _when(r.when)} for r in rk.relations]
    pairs.sort(key=lambda r: (r["via"] != "direct test", r["better"], r["worse"]))
    total = sum(v for v in status.rollouts.values() if v is not None)
    decided, n_pairs = len(rk.relations), rk.n_pairs
    unit = "replicates" if leader else "draws" if items else "rollouts"
    summary = (f"{len({(min(r.better, r.worse), max(r.better, r.worse)) for r in rk.relations})} of {n_pairs} "
               f"pairs certified, " + ("" if rk.margin is None else f"{len(rk.equivalent)} equivalent, ")
               + f"{len(rk.undecided)} undecided; {status.records} {unit} recorded")
    budget = _budget_sentence(status, total)
    if budget:
        summary += f"; {budget}"
    if status.done:
        summary += f". Stopped: {status.termination}."
    names = [p.name for p in rk.policies]
    lo, hi = camp.config.get("score_range") or (0.0, 1.0)
    captions = [f"{_mean(p.mean)}  {p.letters}" for p in rk.policies]
    return {"name": Path(status.path).name, "kind": status.campaign,
            "kind_label": "leaderboard (BB-EDGE)" if leader else "leaderboard, adaptive items" if items
            else "policy ranking (AnyRank)",
            "blind": bool(status.blind and not status.unblinded), "done": bool(status.done),
            "termination": status.termination, "head": status.last_record_id, "summary": summary,
            "item_label": "model" if leader or items else ("code" if status.blind and not status.unblinded
                                                           else "policy"),
            "count_label": "replicates" if leader else "evaluations" if items else "rollouts", "rows": rows,
            "pairs": pairs, "items": status.items,
            "undecided": [f"{a} vs {b}" for a, b in rk.undecided], "decided": decided,
            # the page's Content-Security-Policy allows no inline style: the stylesheet sizes the graph instead
            "svg": re.sub(r' style="[^"]*"', "", order_svg(names, [(r.better, r.worse) for r in rk.relations],
                                                         captions=captions), count=1),
            "guarantee": rk.guarantee, "letters_note": LETTERS_NOTE, "test": status.test,
            "verdicts": status.verdicts, "estimates_svg": estimates_svg(status.estimates) if status.estimates else "",
            "progress": _progress(status), "faults": {p: n for p, n in status.faults.items() if n},
            "open_faults": status.open_faults, "tags": status.tags, "checklist": status.checklist,
            "warnings": status.warnings, "about": status.about,
            # the buttons and the partial field send raw scores, in the range declared at init
            "score_lo": _exact(lo), "score_hi": _exact(hi)}


def _exact(v: float) -> str:
    # short when exact (10, not 10.0), else every digit: a rounded top of the range would be refused as outside it
    short = f"{v:g}"
    return short if float(short) == v else repr(float(v))


def _budget_sentence(status: Any, total: int) -> str:
    remaining = status.remaining
    if not remaining or remaining.get("total") is None:
        return ""
    return f"at most {remaining['total']} more to finish"


def entry_rows(entries: Sequence[Any]) -> list[dict[str, Any]]:
    """Audit-trail rows (records, undos, unblinding) as plain dicts, oldest first; ``shown_score`` is the score as
    the CLI's log prints it (the raw score with a declared range, 'missing' for a run not performed)."""
    return [{**e.to_dict(), "shown_score": e.score_text} for e in entries]


def _progress(status: Any) -> dict[str, Any] | None:
    """Rollouts recorded against the most the open comparisons may still take (``status.remaining``): the
    progress bar to the budget (None for a leaderboard: it has no budget)."""
    left = status.remaining
    if not left:
        return None
    done = sum(v for v in status.rollouts.values() if v is not None)
    target = done + int(left["total"])
    pct = 100 if target == 0 or status.done else min(100, round(100 * done / target))
    return {"done": done, "target": target, "percent": pct, "n_max": left["n_max"]}


def estimates_svg(estimates: dict[str, dict[str, Any]], width: int = 520) -> str:
    """Each policy's mean so far and its anytime interval, one row per policy on a shared [0, 1] axis (no inline
    style: the page's Content-Security-Policy allows none)."""
    from markupsafe import escape
    names = list(estimates)
    label, pad, row = 150, 12, 26
    plot = width - label - 2 * pad - 40  # room for the n= column on the right
    height = row * len(names) + 34

    def x(v: float) -> float:
        return label + pad + plot * min(1.0, max(0.0, v))

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="estimates" viewBox="0 0 {width} {height}" '
             f'width="{width}" height="{height}" role="img" aria-label="each policy\'s mean with its anytime '
             'interval">']
    for t in (0.0, 0.25, 0.5, 0.75, 1.0):
        parts.append(f'<line x1="{x(t):.1f}" y1="4" x2="{x(t):.1f}" y2="{height - 22}" stroke="#d6dbe3"/>'
                     f'<text x="{x(t):.1f}" y="{height - 8}" font-size="11" text-anchor="middle" '
                     f'fill="#5b6576">{t:g}</text>')
    for i, name in enumerate(names):
        e = estimates[name]
        y = 16 + i * row
        shown = str(name) if len(str(name)) <= 22 else str(name)[:21] + "\u2026"
        parts.append(f'<text x="{label - 4}" y="{y + 4}" font-size="13" text-anchor="end" fill="#1d2430">'
                     f'{escape(shown)}<title>{escape(name)}</title></text>')
        parts.append(f'<line x1="{x(e["lower"]):.1f}" y1="{y}" x2="{x(e["upper"]):.1f}" y2="{y}" stroke="#2f5d9a" '
                     'stroke-width="4" stroke-linecap="round"/>')
        if e.get("mean") is not None:
            parts.append(f'<circle cx="{x(e["mean"]):.1f}" cy="{y}" r="5" fill="#1d2430"/>')
        parts.append(f'<text x="{width - 2}" y="{y + 4}" font-size="11" text-anchor="end" fill="#5b6576">'
                     f'n={int(e["n"])}</text>')
    parts.append("</svg>")
    return "".join(parts)


#: the fault reasons the page offers in one tap (any other can be typed)
FAULT_REASONS = ("e-stop", "reset failure", "robot error", "scene not set up")


def run_view(camp: Any) -> dict[str, Any]:
    """The run page at the robot: the current rollout in large type (block, trial, environment, policy or code,
    its place in the trial's order, the command that starts it), the rest of what is needed, the design's tags,
    the fault reasons offered, the last entry to undo."""
    if camp.kind == "leaderboard":
        return {"current": None, "later": [], "tags": [], "last": None, "reasons": FAULT_REASONS}
    if camp.kind == "items":  # the pending draw, recorded with one score per model it lists
        todo = camp.next(remember=False)
        entries = [e for e in camp.log().entries if e.action == "record" and e.undone_by is None]
        return {"current": None, "draw": todo[0].to_dict() if todo else None, "later": [], "tags": [],
                "last": entry_rows(entries[-1:])[0] if entries else None, "reasons": FAULT_REASONS}
    todo = [s.to_dict() for s in camp.next(count=None, remember=False)]
    per_trial: dict[int, int] = {}
    for t in todo:
        per_trial[t["trial"]] = per_trial.get(t["trial"], 0) + 1
    for t in todo:
        t["of"] = per_trial[t["trial"]]
    design = camp.design
    entries = [e for e in camp.log().entries if e.action in ("record", "fault") and e.undone_by is None]
    last = entry_rows(entries[-1:])[0] if entries else None
    return {"current": todo[0] if todo else None, "later": todo[1:], "tags": list(design.tags),
            "open_tags": design.open_tags, "last": last, "reasons": FAULT_REASONS}


def openapi_reference(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The API reference the /docs page renders: one entry per documented route of the OpenAPI document."""
    out = []
    for path, methods in sorted(doc.get("paths", {}).items()):
        for method, op in methods.items():
            body = (op.get("requestBody") or {}).get("content", {})
            fields: list[dict[str, Any]] = []
            for kind, media in body.items():
                schema = media.get("schema", {})
                required = set(schema.get("required", []))
                fields = [{"name": k, "type": _type_text(v), "required": k in required}
                          for k, v in schema.get("properties", {}).items()]
                if fields:
                    break
            params = [{"name": q["name"], "where": q.get("in", ""), "type": _type_text(q.get("schema", {})),
                       "required": bool(q.get("required"))} for q in op.get("parameters", [])]
            answer = (op.get("responses", {}).get("200", {}).get("content", {}).get("application/json", {})
                      .get("schema", {}))
            out.append({"method": method.upper(), "path": path, "summary": op.get("summary", ""),
                        "media": list(body), "fields": fields, "params": params,
                        "answer": answer.get("title") or "", "answer_keys": list(answer.get("properties", {}))})
    return out


def _type_text(schema: dict[str, Any]) -> str:
    kind = schema.get("type", "")
    if isinstance(kind, list):
        return " or ".join(kind)
    if kind == "array":
        return f"list of {_type_text(schema.get('items', {}))}"
    if not kind and "anyOf" in schema:
        return " or ".join(_type_text(x) for x in schema["anyOf"])
    return kind or "any"


def design_view(camp: Any) -> dict[str, Any]:
    """The design page: the design in force (``/api/v1/design``) and the next two blocks of the schedule
    (``campaign plan``), or why there is none."""
    from ..errors import CertirankError
    design = {"config_sha256": camp.config_sha256, **camp.design.to_dict()}
    plan, problem = None, None
    if camp.kind not in ("leaderboard", "items"):
        try:
            plan = camp.plan(2).to_dict()
        except CertirankError as exc:  # no environments: the schedule is the engine's trial order
            problem = str(exc)
    return {"design": design, "plan": plan, "plan_problem": problem}
