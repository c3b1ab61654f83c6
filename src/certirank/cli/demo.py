"""`certirank demo`."""

from __future__ import annotations

import typer

from ._common import ALL_OPT, JSON_OPT, QUIET_OPT, app, console, emit, progress_bar
from ._options import declared


@app.command("demo")
def demo_cmd(seed: int = declared("seed", 0, extra_help="It seeds the simulated campaign."),
             alpha: float = typer.Option(0.05, "--alpha", help="Family-wise error rate of the whole ranking."),
             show_all: bool = ALL_OPT, quiet: bool = QUIET_OPT,
             as_json: bool = JSON_OPT) -> None:
    """A simulated robot-policy campaign run live through AnyRank, compared with Bonferroni."""
    from .._validate import check_alpha
    from ..methods.anyrank.demo import DEMO_POLICIES, run_demo
    from .rank import render_anyrank

    alpha = check_alpha(alpha)
    if not as_json:
        console.print(f"Simulated campaign (seed {seed}): {len(DEMO_POLICIES)} robot policies, partial-credit "
                      "scores; AnyRank asks which rollouts to run next and stops when the ranking is certified.")
    with progress_bar("AnyRank: pairs certified", "pairs") as tick:
        bar = None if (quiet or as_json or tick is None) else (lambda done, total, rollouts: tick(done, total))
        out = run_demo(seed, alpha, progress=bar)

    def render(o) -> None:
        a = o.anyrank
        render_anyrank(a, title=f"Certified ranking (AnyRank, {100 * (1 - a.alpha):g}%)", full=show_all)
        b = o.bonferroni
        console.print(f"Bonferroni on the same rollouts: {b.total_samples} rollouts, {b.ranking.n_certified} of "
                      f"{b.ranking.n_pairs} pairs certified.")
        pct = 100 * o.rollouts_saved / b.total_samples if b.total_samples else 0.0
        console.print(f"AnyRank saved {o.rollouts_saved} rollouts ({pct:.0f}%) against Bonferroni.", style="bold")
        truth = ", ".join(f"{p} {m:.2f}" for p, m in sorted(o.true_means.items(), key=lambda x: -x[1]))
        console.print(f"(True mean scores, unknown to the ranking: {truth}.)")

    emit(out, as_json, render)
