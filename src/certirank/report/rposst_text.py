"""Human-readable rendering of RPOSST results for the CLI (rich renderables; no printing here)."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from ..methods.rposst.compose import CompositionResult
from ..methods.rposst.protocol import DesignEvaluation


def composition_renderables(res: CompositionResult, source: str = "") -> list[Any]:
    title = (f"Composed test{' for ' + source if source else ''}: {len(res.test_cases)} of {res.n_test_cases} "
             f"test cases ({res.n_policies} policies x {len(res.betas)} targets)")
    t = Table(title=title)
    t.add_column("test case")
    t.add_column("row", justify="right")
    t.add_column("weight", justify="right")
    for name, idx, w in zip(res.test_cases, res.test_indices, res.weights):
        t.add_row(name, str(idx + 1), f"{w:.4f}")
    how = {"rm+": f"regret matching+, {res.rounds} rounds (best at round {res.best_round})",
           "lp": "exact per-tuple LP (HiGHS)", "milp": "exact joint MILP (HiGHS)",
           "kofn": f"sampled k-of-N with Successive Rejects, stopped at round {res.best_round}"}[res.solver]
    lines = [
        f"Score a new policy as the weighted mean of its results on these {len(res.test_cases)} test case(s).",
        f"Training error on the rescaled [0, 1] scale: CVaR({res.eta:g}) = {res.loss:.4f}, "
        f"max = {res.max_error:.4f}, mean = {res.mean_error:.4f} over {res.n_pairs} (policy, target) pairs.",
        f"Searched {res.n_tuples:,} tuples with {how}; targets beta = {', '.join(f'{b:g}' for b in res.betas)}.",
    ]
    if res.kofn_loss is not None:
        lines.append(f"Exact expected k-of-N training loss: {res.kofn_loss:.4f}.")
    return [t, *lines]


def evaluation_renderables(res: DesignEvaluation) -> list[Any]:
    t = Table(title=f"Holdout evaluation: {res.sets} sets of {res.holdout_size} held-out policies "
                    f"({res.holdout:g} of {res.n_policies}); errors on the rescaled scale")
    for col in ("m", "method", "mean max err", "se", "mean err", "top-4 sorted errors", "train CVaR",
                "most chosen test"):
        t.add_column(col, justify="left" if col in ("method", "most chosen test") else "right",
                     no_wrap=col in ("m", "method"))
    for row in res.table.to_dict(orient="records"):
        se = row["se_max_error"]
        t.add_row(str(row["m"]), row["method"], f"{row['mean_max_error']:.4f}",
                  "-" if se is None or se != se else f"{se:.4f}", f"{row['mean_error']:.4f}",
                  " ".join(f"{v:.3f}" for v in row["top_errors"][:4]), f"{row['mean_train_loss']:.4f}",
                  f"{row['modal_test']} ({row['modal_share']:.0%})")
    best = res.table.loc[res.table.groupby("m")["mean_max_error"].idxmin()]
    lines = [f"Lowest mean max holdout error for m = {r['m']}: {r['label']} ({r['mean_max_error']:.4f})."
             for r in best.to_dict(orient="records")]
    return [t, *lines]
