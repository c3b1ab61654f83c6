"""`certirank validate`: the adversarial validity battery (certirank.sim.validation) on the user's machine."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer
from rich.table import Table

from ._common import JSON_OPT, app, console, emit, err_console


@app.command("validate")
def validate_cmd(
    quick: bool = typer.Option(False, "--quick", help="The smoke-test battery (the default; about a minute on 2 "
                               "cores): each row fails a method at twice its bound with probability >= 0.9."),
    full: bool = typer.Option(False, "--full", help="The full study behind docs/validity.md: larger budgets and "
                              "boards, each row detects 1.5 times its bound (several times the runs)."),
    backend: Optional[str] = typer.Option(None, "--backend", help="Simulation backend, passed to the simulator."),
    alpha: float = typer.Option(0.05, "--alpha", help="Family-wise level given to every method."),
    seed: int = typer.Option(2020, "--seed", help="Root seed (row i uses seed + i)."),
    reps: Optional[int] = typer.Option(None, "--reps", help="The most runs a row may use (default 1,000 quick, "
                                       "3,000 full; each row stops when its test decides)."),
    check: list[str] = typer.Option([], "--check", help="Run only this row (repeatable); see the table's names."),
    jobs: int = typer.Option(1, "--jobs", "-j", help="Worker processes; results do not depend on it."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Draw estimates, intervals and bounds to FILE.png "
                                        "or FILE.svg."),
    as_json: bool = JSON_OPT,
) -> None:
    """Check the family-wise error guarantees by seeded Monte Carlo on adversarial scenarios (pass/fail per row)."""
    from ..errors import ParameterError
    from ..sim.validation import validate, validation_checks

    if quick and full:
        raise ParameterError("choose one of --quick and --full")
    level = "full" if full else "quick"
    if plot is not None:
        from ..report.cli import check_plot_path
        check_plot_path(plot)
    if level == "full" and not as_json:
        err_console.print(f"validate --full: {len(validation_checks())} rows, each run until its sequential test "
                          "decides (about 100 to 1,000 runs a row); tens of minutes per core (use --jobs, or --quick "
                          "for a smoke test).", markup=False)

    def progress(row: dict[str, Any]) -> None:
        if not as_json:
            err_console.print(f"  {row['name']}: {row['verdict']} ({row['seconds']:.1f} s)", markup=False)

    res = validate(level, alpha=alpha, seed=seed, reps=reps, checks=check or None, jobs=jobs, backend=backend,
                   progress=progress)

    def render(r: Any) -> None:
        t = Table(title=f"certirank validate --{r.level}: alpha = {r.alpha:g}, seed {r.seed}, "
                        f"exact {r.confidence:.0%} intervals")
        for c in ("check", "method", "runs", "FWER", "interval", "bound", "verdict"):
            t.add_column(c, justify="left" if c in ("check", "method", "verdict") else "right")
        for row in r.rows:
            lo, hi = row["interval"]
            t.add_row(row["name"], row["method"], str(row["reps"]), f"{row['estimate']:.3f}", f"[{lo:.3f}, {hi:.3f}]",
                      "-" if row["bound"] is None else f"{row['bound']:.3f}",
                      row["verdict"].upper() if row["verdict"] == "fail" else row["verdict"])
        console.print(t)
        notes = {row["exception"] for row in r.rows if row["exception"]}
        for note in sorted(notes):
            console.print(f"Documented exception: {note}.")
        console.print(f"{r.statement}. {'All covered rows pass.' if r.passed else 'Some rows FAIL.'} "
                      f"({r.elapsed:.0f} s)")

    # the kind names the command, as in every other command's JSON, so `certirank report` can read it
    emit({"kind": "validate", **res.to_dict()} if as_json else res, as_json, render)
    if plot is not None:
        from ..report._mpl import save_figure
        from ..report.validity import validity_plot
        save_figure(validity_plot(res), plot)
        if not as_json:
            console.print(f"Figure written to {plot}.")
    if not res.passed:
        raise typer.Exit(1)
