"""`certirank simulate`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import typer
from rich.table import Table

from ._common import BACKEND_OPT, SCHEDULER_OPT, app, console, emit, progress_bar, JSON_OPT


@app.command("simulate")
def simulate_cmd(
    scenario: Optional[str] = typer.Argument(None, help="Scenario name (e.g. HO-I, HE-F, bbedge-heterogeneity); "
                                             "omit or use --list to see them all."),
    methods: str = typer.Option("anyrank0,bonferroni", "--methods", "-m",
                                help="Comma-separated methods; options in brackets, e.g. anyrank0\\[ties=assume_none]."),
    reps: int = typer.Option(200, "--reps", "-n", help="Monte-Carlo runs."),
    seed: int = typer.Option(0, "--seed", min=0, help="Root seed (run i uses child i of SeedSequence(seed).spawn(reps))."),
    jobs: int = typer.Option(1, "--jobs", "-j", help="Local worker processes (joblib, or the workers of the Dask "
                             "LocalCluster with --backend dask); results do not depend on it."),
    backend: Optional[str] = BACKEND_OPT,
    scheduler: Optional[str] = SCHEDULER_OPT,
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Write the per-run table to this Parquet file."),
    param: list[str] = typer.Option([], "--param", "-p", help="Scenario parameter KEY=VALUE (repeatable), "
                                    "e.g. -p n_max=1000 -p means=0.2,0.4,0.6."),
    option: list[str] = typer.Option([], "--option", help="Method option KEY=VALUE for every method accepting it."),
    list_all: bool = typer.Option(False, "--list", help="List scenarios and methods, then exit."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Draw power, full-ranking and FWER curves (alpha "
                                        "line) to FILE.png or FILE.svg."),
    as_json: bool = JSON_OPT,
) -> None:
    """Check guarantees and efficiency on a simulated scenario: FWER, power, full ranking, sample cost."""
    from ..errors import ParameterError
    if plot is not None:
        from ..report.cli import check_plot_path
        check_plot_path(plot)
    if out is not None:
        # checked before the runs: a bad path would otherwise fail only after all of them
        if out.suffix.lower() != ".parquet":
            raise ParameterError(f"--out writes a Parquet file; name it FILE.parquet, got {str(out)!r}")
        if not out.expanduser().parent.is_dir():
            raise ParameterError(f"cannot write {out}: folder {out.expanduser().parent} does not exist")
    from ..sim import describe_methods, describe_scenarios, parse_options, simulate

    if list_all or scenario is None:
        listing = {"scenarios": describe_scenarios(), "methods": describe_methods()}
        if as_json:
            typer.echo(json.dumps(listing, indent=2, default=str))
            return
        t = Table(title="scenarios")
        t.add_column("name")
        t.add_column("kind")
        t.add_column("description")
        for s in listing["scenarios"]:
            t.add_row(s["name"], s["kind"], s["description"])
        console.print(t)
        t = Table(title="methods")
        for col in ("name", "applies to", "available", "description"):
            t.add_column(col)
        for m in listing["methods"]:
            t.add_row(m["name"], ", ".join(m["kinds"]), "yes" if m["available"] else "not yet", m["description"])
        console.print(t)
        return

    from ..sim.runner import MAX_REPS
    params, options = parse_options(param, what="--param"), parse_options(option, what="--option")
    from ..errors import ParameterError as _PE
    if not 1 <= reps <= MAX_REPS:
        raise _PE(f"--reps must be between 1 and {MAX_REPS:,}, got {reps:,}")
    if reps >= 500:  # long work: say what it will cost before it starts
        from ._common import announce_cost

        def pilot(n: int) -> Any:
            return simulate(scenario, methods, n, seed=seed, method_options=options,
                            progress=False, **params)
        pilot(1)  # imports and first-call set-up are not part of the per-run cost
        announce_cost(f"simulate {scenario}: {reps:,} runs", lambda: pilot(20), 20, reps, jobs)
    with progress_bar(f"simulate {scenario}", "runs") as progress:
        result = simulate(scenario, methods, reps=reps, seed=seed, jobs=jobs, backend=backend, scheduler=scheduler,
                          progress=progress, out=out, method_options=options,
                          **params)

    def render(res: Any) -> None:
        leader = res.scenario.get("kind") == "leaderboard"
        t = Table(title=f"{res.scenario['name']}: {res.reps} runs, alpha = {res.scenario['alpha']}, seed {res.seed}")
        cols = ["method", "FWER", "95% CI", "power", "full ranking",
                "mean replicates" if leader else "mean samples", "time (s)"]
        for c in cols:
            t.add_column(c, justify="left" if c == "method" else "right")
        for label, s in res.summary.items():
            cost = s.get("mean_replicates") if leader else s.get("mean_samples")
            t.add_row(label, f"{s['fwer']:.3f}", f"[{s['fwer_ci'][0]:.3f}, {s['fwer_ci'][1]:.3f}]",
                      f"{s['power']:.3f}", f"{s['full_ranking_rate']:.3f}",
                      "-" if cost is None else f"{cost:.1f}", f"{res.elapsed.get(label, 0.0):.1f}")
        console.print(t)
        for label, s in res.summary.items():
            verdict = "consistent with" if s["fwer_controlled"] else "ABOVE"
            console.print(f"{label}: FWER {s['fwer']:.3f} is {verdict} alpha = {res.scenario['alpha']} "
                          f"(exact 95% interval {s['fwer_ci'][0]:.3f}-{s['fwer_ci'][1]:.3f})")
        if out is not None:
            console.print(f"per-run results written to {out}")

    emit(result, as_json, render)
    if plot is not None:
        from ..report.cli import save_plot
        save_plot(result, plot, console=None if as_json else console)
