"""Report pages of the studies (a simulation, a composed test, the test-design protocols): no ranking, no
certificate, their own tables and figures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import DataError
from .records import Record
from ._page import _Page, _Raw, _e, _num, _table

def _simulate(page: _Page, rec: Record, data: Any, opts: dict[str, Any], sim_obj: Any) -> None:
    from .curves import curves_plot, summary_plot

    d = {**rec.inputs, **rec.details}
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


def _compose(page: _Page, rec: Record) -> None:
    from ._mpl import new_figure, rc, text_size

    d = {**rec.inputs, **rec.details}
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


def _designs(page: _Page, rec: Record) -> None:
    from ._mpl import PALETTE, new_figure, rc

    d = {**rec.inputs, **rec.details}
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


def _items(page: _Page, rec: Record) -> None:
    from .rposst_text import design_shares

    d = {**rec.inputs, **rec.details}
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


