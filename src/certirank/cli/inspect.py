"""`certirank inspect`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from rich.table import Table

from ._common import (DATA_ARG, FORMAT_OPT, JSON_OPT, READ_OPT, SCORE_RANGE_OPT, app, console, emit,
                      group_columns, read_input, render_groups, group_options)


_GROUP = group_options("anyrank")  # the declaration of group_by (inspect has no verb of its own)


@app.command("inspect")
def inspect_cmd(data: Path = DATA_ARG, format: Optional[str] = FORMAT_OPT,
                score_range: Optional[str] = SCORE_RANGE_OPT, read_option: list[str] = READ_OPT,
                group_by: Optional[str] = _GROUP["group_by"], as_json: bool = JSON_OPT) -> None:
    """Summarise an evaluation file: per-policy count, mean and missing trials."""
    from ..data.summary import summarize

    cols = group_columns(group_by)
    table = read_input(data, format, score_range, read_option)
    if cols is not None:
        from ..methods.groups import run_by_group
        grouped = run_by_group(table, cols, lambda tab, level: summarize(tab), alpha=0.05, method="inspect")
        emit(grouped, as_json, lambda r: render_groups(r, f"{data}: {len(r.groups)} groups of {', '.join(cols)}"))
        return
    result = summarize(table)

    def render(res: Any) -> None:
        prefs = res.format == "preferences"
        what = "comparisons" if prefs else "observations"
        extra = f", {res.n_envs} environments" if res.n_envs is not None else ""
        extra += f", {res.n_replicates} replicates" if (res.n_replicates or 1) > 1 else ""
        t = Table(title=f"{data} — {res.format}: {len(res.policies)} policies, {res.n_observations} {what}{extra}")
        cols = (("policy", "comparisons", "win rate", "std", "opponents never met") if prefs
                else ("policy", "trials", "mean", "std", "missing"))
        for col in cols:
            t.add_column(col, justify="left" if col == "policy" else "right")

        def num(v: Any) -> str:
            return "-" if v is None else f"{v:.3f}"

        for p in res.policies:
            t.add_row(p["policy"], str(p["count"]), num(p["mean"]), num(p["std"]), str(p["missing"]))
        console.print(t)
        for run in res.early_stopping or []:
            console.print(_early_stopping_line(run))

    emit(result, as_json, render)


def _early_stopping_line(run: dict[str, Any]) -> str:
    """One line per early-stopped run: who stopped it, how many samples were skipped, and why."""
    meta = run.get("metadata") or {}
    head = (f"Early stopping ({run.get('manager') or 'manager'}) on {run.get('model')} / {run.get('task')}: "
            f"{run.get('stopped')} sample-epoch(s) stopped (skipped by design, not errors)")
    if "decision" in meta and "samples_used" in meta:
        cs = meta.get("confidence_sequence") or {}
        decision = meta.get("decision") or "undecided"
        goal = meta.get("goal")
        what = {"threshold": f" vs threshold {meta.get('threshold')}", "reference": " vs the reference",
                "precision": f" (precision {meta.get('precision')})"}.get(goal, "")
        # decided_at is when the test decided; samples in flight then still finish and count as used
        decided = [p.get("decided_at") for p in meta.get("passes") or [] if p.get("decided_at")]
        at = f" (decided at {', '.join(map(str, decided))})" if decided and meta.get("decision") else ""
        head += (f"; {goal} goal{what}: {decision} after {meta['samples_used']} of {meta.get('samples_total')} "
                 f"sample-epochs{at}")
        if "lower" in cs and "upper" in cs:
            head += f"; {100 * float(cs.get('level', 0.95)):g}% confidence sequence [{cs['lower']:.3f}, {cs['upper']:.3f}]"
        if meta.get("evalue") is not None:
            head += f"; e-value {meta['evalue']:.3g}"
    if meta.get("note"):  # errored samples held the test back: say so where the summary is read
        return f"{head}. Note: {meta['note']}"
    return head + "."
