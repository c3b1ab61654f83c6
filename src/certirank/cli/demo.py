"""`certirank demo`."""

from __future__ import annotations


import typer

from ._common import app, console, emit, JSON_OPT


@app.command("demo")
def demo_cmd(seed: int = typer.Option(0, "--seed", min=0, help="Seed of the simulated campaign."),
             alpha: float = typer.Option(0.05, "--alpha", help="Family-wise error rate of the whole ranking."),
             as_json: bool = JSON_OPT) -> None:
    """A simulated robot-policy campaign run live through AnyRank, compared with Bonferroni."""
    from .._validate import check_alpha
    from ..methods.anyrank_cli import demo_command

    demo_command(seed=seed, as_json=as_json, emit=emit, console=console, alpha=check_alpha(alpha))
