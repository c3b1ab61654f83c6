"""What the campaign page shows, as plain data built from the campaign's own result objects.

The templates only place these values; every number and sentence comes from :class:`certirank.Campaign`
(``status()``, ``log()``) and its :class:`certirank.order.Ranking`, so the page, the CLI and ``--json`` agree.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..order.result import Ranking
from ..report.svg import order_svg

__all__ = ["campaign_view", "entry_rows", "ranking_of"]

LETTERS_NOTE = ("Policies sharing a letter are not certified different; the table follows the certified order, "
                "ties by mean.")


def ranking_of(result: Any) -> Ranking:
    """The :class:`Ranking` of a status' method result (every certified method exposes it as ``.ranking``)."""
    return result if isinstance(result, Ranking) else result.ranking


def _mean(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


def _when(v: float | None) -> str:
    if v is None:
        return "-"
    return f"{v:g}"


def campaign_view(camp: Any) -> dict[str, Any]:
    """Everything the page header, run panel and ranking panel show for campaign ``camp``."""
    status = camp.status()
    rk = ranking_of(status.ranking)
    leader = status.kind == "leaderboard"
    rows = [{"name": p.name, "letters": p.letters, "mean": _mean(p.mean),
             "count": "-" if status.rollouts.get(p.name) is None else status.rollouts[p.name],
             "interval": f"{p.rank_lo}-{p.rank_hi}" if p.rank_lo != p.rank_hi else str(p.rank_lo)}
            for p in rk.policies]
    pairs = [{"better": r.better, "worse": r.worse, "via": "direct test" if r.via == "test" else "transitivity",
              "when": _when(r.when)} for r in rk.relations]
    pairs.sort(key=lambda r: (r["via"] != "direct test", r["better"], r["worse"]))
    total = sum(v for v in status.rollouts.values() if v is not None)
    decided, n_pairs = len(rk.relations), rk.n_pairs
    unit = "replicates" if leader else "rollouts"
    summary = (f"{len({(min(r.better, r.worse), max(r.better, r.worse)) for r in rk.relations})} of {n_pairs} "
               f"pairs certified, {len(rk.undecided)} undecided; {status.records} {unit} recorded")
    budget = _budget_sentence(status, total)
    if budget:
        summary += f"; {budget}"
    if status.done:
        summary += f". Stopped: {status.termination}."
    names = [p.name for p in rk.policies]
    lo, hi = camp.config.get("score_range") or (0.0, 1.0)
    captions = [f"{_mean(p.mean)}  {p.letters}" for p in rk.policies]
    return {"name": Path(status.path).name, "kind": status.kind,
            "kind_label": "leaderboard (BB-EDGE)" if leader else "policy ranking (AnyRank)",
            "blind": bool(status.blind and not status.unblinded), "done": bool(status.done),
            "termination": status.termination, "head": status.last_record_id, "summary": summary,
            "item_label": "model" if leader else ("code" if status.blind and not status.unblinded else "policy"),
            "count_label": "replicates" if leader else "rollouts", "rows": rows, "pairs": pairs,
            "undecided": [f"{a} vs {b}" for a, b in rk.undecided], "decided": decided,
            # the page's Content-Security-Policy allows no inline style: the stylesheet sizes the graph instead
            "svg": re.sub(r' style="[^"]*"', "", order_svg(names, [(r.better, r.worse) for r in rk.relations],
                                                         captions=captions), count=1),
            "guarantee": rk.guarantee, "letters_note": LETTERS_NOTE, "test": status.test,
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
