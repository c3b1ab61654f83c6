"""Human-readable rendering of RPOSST results for the CLI (rich renderables; no printing here)."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from ..methods.rposst.compose import CompositionResult
from ..methods.rposst.itemeval import ItemEvaluation
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
    lines = [
        f"Score a new policy as the weighted mean of its results on these {len(res.test_cases)} test case(s).",
        f"Training error on the rescaled [0, 1] scale: CVaR({res.eta:g}) = {res.loss:.4f}, "
        f"max = {res.max_error:.4f}, mean = {res.mean_error:.4f} over {res.n_pairs} (policy, target) pairs.",
        f"{_search_line(res)}; targets beta = {', '.join(f'{b:g}' for b in res.betas)}.",
    ]
    if res.kofn_loss is not None:
        lines.append(f"Exact expected k-of-N training loss: {res.kofn_loss:.4f}.")
    return [t, *lines]


def _search_line(res: CompositionResult) -> str:
    """How the returned design was found: the solver for an RPOSST design, the search for a uniform-weight one
    (a baseline chosen by select="cv" is found by enumeration, or by local search with the scalable solvers)."""
    local = f"greedy selection and swap local search (a local optimum among C({res.n_test_cases:,}, {res.m}) tuples"
    if not str(res.design).startswith("rposst"):
        how = (local + ")" if res.solver in ("search", "milp") else f"exhaustive search over {res.n_tuples:,} tuples")
        return f"Found the {res.design} design (uniform weights) by {how}"
    if res.solver == "search":
        return f"Found the design by {local}, exact LP weights)"
    how = {"rm+": f"regret matching+, {res.rounds} rounds"
                  + ("" if res.best_round is None else f" (best at round {res.best_round})"),
           "lp": "exact per-tuple LP (HiGHS)", "milp": "exact joint MILP (HiGHS)",
           "kofn": "sampled k-of-N with Successive Rejects"
                   + ("" if res.best_round is None else f", stopped at round {res.best_round}")}[res.solver]
    return f"Searched {res.n_tuples:,} tuples with {how}"


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


def item_evaluation_renderables(res: ItemEvaluation) -> list[Any]:
    """The item-scale comparison: MAE, max error and Kendall tau on held-out models, and a plain verdict on the
    default design against the best other method."""
    t = Table(title=f"Item-scale evaluation: {res.sets} splits holding out {res.holdout_size} of {res.n_models} "
                    f"policies; m = {res.m} of {res.n_items:,} test cases; errors on the data's own scale")
    for col in ("method", "MAE (± s.e.)", "max error", "Kendall tau", "s per design"):
        t.add_column(col, justify="left" if col == "method" else "right", no_wrap=True)
    rows = res.table.to_dict(orient="records")
    chose = []
    for r in rows:
        mae = f"{r['mae']:.4f}" + ("" if r["se_mae"] is None or r["se_mae"] != r["se_mae"] else f" ± {r['se_mae']:.4f}")
        t.add_row(r["method"], mae, f"{r['max_error']:.4f}", f"{r['kendall_tau']:.3f}", f"{r['seconds']:.2f}")
        if set(r["designs"]) != {r["method"]}:  # a selection rule: say what it chose
            chose.append(f"{r['method']} chose {design_shares(r['designs'])}.")
    lines = list(chose)
    default = next((r for r in rows if r["method"] == "cv"), None)
    rest = [r for r in rows if r["method"] != "cv"]
    if default is not None and rest:
        best = min(rest, key=lambda r: r["mae"])
        lines.append(default_verdict("The default design (cv)", "MAE", default["mae"], best["method"], best["mae"],
                                     best["se_mae"]))
    return [t, *lines]


def design_shares(designs: dict[str, float]) -> str:
    """How often a selection rule chose each design, most often first: "miniaverage 80%, rposst 20%"."""
    return ", ".join(f"{k} {v:.0%}" for k, v in sorted(designs.items(), key=lambda kv: -kv[1]))


def default_verdict(who: str, what: str, value: float, best_name: str, best_value: float, best_se: Any) -> str:
    """One plain sentence: is the default design the best on the evaluation holdout, and if not, by how much."""
    if value <= best_value + 1e-12:
        return f"{who} has the lowest {what} ({value:.4f})."
    within = best_se is not None and best_se == best_se and value <= best_value + best_se
    return (f"{who} is NOT the best on this holdout: {what} {value:.4f} vs {best_name} {best_value:.4f}"
            + (" (within one standard error)." if within else " (more than one standard error worse)."))


def design_verdicts(res: DesignEvaluation) -> list[str]:
    """For each m of the holdout protocol, whether the default (cv) design was the best."""
    table = res.table
    if "cv" not in set(table["method"]):
        return []
    lines = []
    for mm, sub in table.groupby("m"):
        cv = sub[sub["method"] == "cv"].iloc[0]
        rest = sub[sub["method"] != "cv"]
        if rest.empty:
            continue
        best = rest.loc[rest["mean_max_error"].idxmin()]
        chosen = design_shares(cv["designs"])
        lines.append(default_verdict(f"m = {mm}: the default design (cv; chose {chosen})", "mean max holdout error",
                                     cv["mean_max_error"], best["method"], best["mean_max_error"],
                                     best["se_max_error"]))
    return lines
