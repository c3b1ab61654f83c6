"""The `certirank` command: a thin shell over the Python API.

Every command computes a result object through the public API and either prints it for people or, with
`--json`, prints exactly `result.to_dict()`. User errors (`CertirankError`) become one or two lines on
stderr and exit code 2; implementations are imported inside each command so `certirank --help` is fast.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.table import Table
from typer.core import TyperGroup

from . import __version__
from .errors import CertirankError

# markup off: policy, model and method names such as 'policy[v2]' or 'anyrank0[ties=assume_none]' must print
# as written, not be read as rich style tags (renderers pass style= for emphasis)
console = Console(markup=False)
err_console = Console(stderr=True)


class _Group(TyperGroup):
    """Turns every CertirankError raised by a command into a short message and exit code 2."""

    def invoke(self, ctx: typer.Context) -> Any:
        try:
            return super().invoke(ctx)
        except CertirankError as exc:
            typer.echo(f"error: {exc}", err=True)
            ctx.exit(2)


app = typer.Typer(cls=_Group, add_completion=False, no_args_is_help=True, pretty_exceptions_show_locals=False,
                  help="Certified, anytime-valid ranking of policies and models, and small robust tests.")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"certirank {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit.")) -> None:
    """certirank: which of your policies is *really* better, with a guarantee that holds whenever you stop."""


def emit(result: Any, as_json: bool, render: Callable[[Any], None]) -> None:
    """Print `result.to_dict()` as JSON, or call `render(result)` for people."""
    if as_json:
        data = result.to_dict() if hasattr(result, "to_dict") else result
        typer.echo(json.dumps(data, indent=2, allow_nan=False))
    else:
        render(result)


def parse_score_range(text: Optional[str]) -> Optional[tuple[float, float]]:
    """`--score-range lo,hi` -> (lo, hi)."""
    if text is None:
        return None
    from .errors import ParameterError
    try:
        lo, hi = (float(v) for v in text.split(","))
    except ValueError:
        raise ParameterError(f"--score-range must be 'lo,hi' (two numbers), got {text!r}") from None
    return lo, hi


DATA_ARG = typer.Argument(..., help="Evaluation data file (CSV/TSV, Parquet, JSONL, wide per-trial table, "
                          "preferences, lm-eval samples folder, inspect_ai log).")
FORMAT_OPT = typer.Option(None, "--format", "-f", help="Input format (default: detected from the file). A layout "
                          "(long, wide, preferences), a file type (csv, tsv, parquet, jsonl, json) or an importer "
                          "(lm-eval, inspect).")
SCORE_RANGE_OPT = typer.Option(None, "--score-range", help="Rescale scores from 'lo,hi' to [0, 1].")
READ_OPT = typer.Option([], "--read-option", help="Reader option KEY=VALUE (repeatable): metric, filter, task "
                        "(lm-eval logs); scorer, task (inspect_ai logs); sep (CSV delimiter).")


def key_values(items: list[str], what: str) -> dict[str, str]:
    """Repeated ``KEY=VALUE`` options -> dict (values kept as text)."""
    from .errors import ParameterError
    out: dict[str, str] = {}
    for it in items:
        k, eq, v = it.partition("=")
        if not eq or not k.strip():
            raise ParameterError(f"{what} must be KEY=VALUE, got {it!r}")
        out[k.strip()] = v.strip()
    return out


def read_input(data: Path, format: Optional[str], score_range: Optional[str],
               read_option: list[str]) -> tuple[Any, Optional[str], Optional[tuple[float, float]]]:
    """(data, format, score_range) for the Python API. With ``--read-option`` the file is read here, with those
    options, and the table is handed on (format and range already applied); otherwise the path goes on."""
    sr = parse_score_range(score_range)
    if not read_option:
        return data, format, sr
    from .data.readers import load
    return load(data, format=format, score_range=sr, **key_values(read_option, "--read-option")), None, None

JSON_OPT = typer.Option(False, "--json", help="Print the result as JSON.")


@app.command("inspect")
def inspect_cmd(data: Path = DATA_ARG, format: Optional[str] = FORMAT_OPT,
                score_range: Optional[str] = SCORE_RANGE_OPT, read_option: list[str] = READ_OPT,
                as_json: bool = JSON_OPT) -> None:
    """Summarise an evaluation file: per-policy count, mean and missing trials."""
    from .data.summary import summarize
    from .data.readers import load

    table = load(data, format=format, score_range=parse_score_range(score_range),
                 **key_values(read_option, "--read-option"))
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

    emit(result, as_json, render)


@app.command("compare")
def compare_cmd(data: Path = DATA_ARG,
                a: str = typer.Option(..., "--a", help="Policy X (baseline)."),
                b: str = typer.Option(..., "--b", help="Policy Y (challenger)."),
                alpha: float = typer.Option(0.05, "--alpha", help="Level: P(ever declaring a wrong direction) <= alpha."),
                bettor: str = typer.Option("nscore", "--bettor", help="nscore, bernoulli_kelly, agrapa, ons, "
                                           "prpl_eb or hoeffding (changes speed, never validity)."),
                ties: str = typer.Option("allow", "--ties", help="allow (valid under exact ties) or assume_none "
                                         "(the papers' setting)."),
                bins: str = typer.Option("progress", "--bins", help="N-SCORE score bins: progress (0, 0.1, ..., 1) "
                                         "or binary (0, 1)."),
                format: Optional[str] = FORMAT_OPT, score_range: Optional[str] = SCORE_RANGE_OPT,
                read_option: list[str] = READ_OPT, as_json: bool = JSON_OPT) -> None:
    """Sequentially compare two policies on their paired trials, in recorded order (anytime-valid)."""
    from .data.readers import load
    from .evidence.compare import _pairs_from_table, compare

    table = load(data, format=format, score_range=parse_score_range(score_range),
                 **key_values(read_option, "--read-option"))
    xs, ys = _pairs_from_table(table, a, b)
    result = compare(xs, ys, alpha=alpha, bettor=bettor, ties=ties, bins=bins)

    def render(res: Any) -> None:
        console.print(res.describe(a, b))
        t = Table(show_header=True)
        for col in ("pairs used", "p-value", f"p-value: {a} worse", f"p-value: {a} better",
                    "decided at pair"):
            t.add_column(col, justify="right")
        t.add_row(str(res.n), f"{res.pvalue:.4g}", f"{res.p_less:.4g}", f"{res.p_more:.4g}",
                  "-" if res.decided_at is None else str(res.decided_at))
        console.print(t)
        tie_note = ("valid even if the two are exactly tied" if res.ties == "allow"
                    else "assumes the two are never exactly tied")
        console.print(f"Guarantee: the chance of ever declaring the wrong policy better, at whatever pair you "
                      f"stop, is at most alpha = {res.alpha:g} (ties = {res.ties}: {tie_note}).")

    # the JSON names the two policies so it stands on its own (reports read it without the command line)
    emit({"x": a, "y": b, **result.to_dict()} if as_json else result, as_json, render)


@app.command("simulate")
def simulate_cmd(
    scenario: Optional[str] = typer.Argument(None, help="Scenario name (e.g. HO-I, HE-F, bbedge-heterogeneity); "
                                             "omit or use --list to see them all."),
    methods: str = typer.Option("anyrank0,bonferroni", "--methods", "-m",
                                help="Comma-separated methods; options in brackets, e.g. anyrank0\\[ties=assume_none]."),
    reps: int = typer.Option(200, "--reps", "-n", help="Monte-Carlo runs."),
    seed: int = typer.Option(0, "--seed", min=0, help="Root seed (run i uses child i of SeedSequence(seed).spawn(reps))."),
    jobs: int = typer.Option(1, "--jobs", "-j", help="Worker processes; results do not depend on it."),
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
    from .errors import ParameterError
    if plot is not None:
        from .report.cli import check_plot_path
        check_plot_path(plot)
    if out is not None:
        # checked before the runs: a bad path would otherwise fail only after all of them
        if out.suffix.lower() != ".parquet":
            raise ParameterError(f"--out writes a Parquet file; name it FILE.parquet, got {str(out)!r}")
        if not out.expanduser().parent.is_dir():
            raise ParameterError(f"cannot write {out}: folder {out.expanduser().parent} does not exist")
    from .sim import describe_methods, describe_scenarios, simulate
    from .sim.adapters import _parse_value

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

    def pairs(items: list[str], what: str) -> dict[str, Any]:
        return {k: v if "," in v else _parse_value(v) for k, v in key_values(items, what).items()}

    result = simulate(scenario, methods, reps, seed=seed, jobs=jobs, out=out,
                      method_options=pairs(option, "--option"), **pairs(param, "--param"))

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
        from .report.cli import save_plot
        save_plot(result, plot, console=None if as_json else console)


@app.command("compose-test")
def compose_test_cmd(matrix: Path = typer.Argument(..., help="Test matrix: long test_case,policy,score or wide "
                                                   "(rows = test cases, columns = policies)."),
                     m: str = typer.Option("2", "-m", help="Number of test cases (with --evaluate: e.g. 1,2,3)."),
                     eta: float = typer.Option(0.01, "--eta", help="CVaR fractile in (0, 1]; 0.01 = nearly worst case."),
                     betas: str = typer.Option("0,1,2,4", "--betas", help="Target temperatures beta (0 = uniform)."),
                     solver: str = typer.Option("rm+", "--solver", help="rm+ (regret matching+), lp (exact per "
                                                "tuple), milp (exact joint) or kofn (sampled k-of-N)."),
                     rounds: int = typer.Option(300, "--rounds", help="RM+ rounds T (0 = uniform weights "
                                                "only)."),
                     evaluate: bool = typer.Option(False, "--evaluate", help="Run the holdout protocol instead "
                                                   "(RPOSST vs the five baselines)."),
                     holdout: float = typer.Option(0.2, "--holdout", help="Fraction of policies held out."),
                     sets: int = typer.Option(100, "--sets", help="Number of random holdout sets."),
                     seed: int = typer.Option(0, "--seed", min=0, help="Seed of the random draws (holdout "
                                               "sets with --evaluate; sampled tuples with --solver kofn)."),
                     methods: Optional[str] = typer.Option(None, "--methods", help="Comma-separated methods for "
                                                           "--evaluate (default: rposst and the five baselines)."),
                     as_json: bool = JSON_OPT) -> None:
    """Choose m test cases and weights that score new policies like the full pool (RPOSST)."""
    from .methods.rposst import compose_test, evaluate_test_designs, read_test_matrix
    from .methods.rposst._render import composition_renderables, evaluation_renderables

    from .errors import ParameterError
    # options of the other mode would otherwise be dropped without a word
    if evaluate and solver.strip().lower() != "rm+":
        raise ParameterError("--solver applies to one composition; --evaluate compares methods (choose them with "
                             "--methods, e.g. --methods rposst-lp)")
    if not evaluate:
        ignored = [name for name, used in (("--holdout", holdout != 0.2), ("--sets", sets != 100),
                                           ("--methods", methods is not None)) if used]
        if ignored:
            raise ParameterError(f"{', '.join(ignored)} only appl{'ies' if len(ignored) == 1 else 'y'} with "
                                 "--evaluate (the holdout protocol)")
        if "," in m:
            raise ParameterError(f"-m takes one number of test cases, got {m!r}; a list such as 1,2,3 needs "
                                 "--evaluate")
    data = read_test_matrix(matrix)
    if evaluate:
        result: Any = evaluate_test_designs(data, m, methods=methods, holdout=holdout, sets=sets, seed=seed,
                                            eta=eta, betas=betas, rounds=rounds)
        emit(result, as_json, lambda res: [console.print(x) for x in evaluation_renderables(res)])
    else:
        result = compose_test(data, m, eta=eta, betas=betas, solver=solver, rounds=rounds, seed=seed)
        emit(result, as_json, lambda res: [console.print(x) for x in composition_renderables(res, str(matrix))])


@app.command("rank")
def rank_cmd(data: Path = DATA_ARG,
             alpha: float = typer.Option(0.05, "--alpha", help="Family-wise error rate of the whole ranking."),
             method: str = typer.Option("anyrank", "--method", help="anyrank, anyrank0, anyrank-inf, bonferroni, "
                                        "weighted-bonferroni."),
             prior: Optional[Path] = typer.Option(None, "--prior", help="Prior means: JSON {policy: mean} or CSV "
                                                  "'policy,mean'. Fixed before the data."),
             prior_means: Optional[str] = typer.Option(None, "--prior-means", help="Prior means inline, e.g. "
                                                       "'p=0.3,q=0.5'."),
             gamma: float = typer.Option(1.0, "--gamma", help="Prior strength (>= 0)."),
             nmax: Optional[int] = typer.Option(None, "--nmax", help="Per-comparison trial budget (default: all "
                                                "rows)."),
             ties: str = typer.Option("allow", "--ties", help="allow (valid under exact ties) or assume_none "
                                      "(the papers' setting)."),
             guarantee: str = typer.Option("paper", "--guarantee", help="paper or strict (directional graph)."),
             heldout_prior_rows: int = typer.Option(0, "--heldout-prior-rows", help="Use the first N rows as the "
                                                    "prior and remove them from the test."),
             metric: str = typer.Option("progress", "--metric", help="progress (partial credit) or binary."),
             format: Optional[str] = FORMAT_OPT, score_range: Optional[str] = SCORE_RANGE_OPT,
             read_option: list[str] = READ_OPT,
             plot: Optional[Path] = typer.Option(None, "--plot", help="Write the score violins with the certified "
                                                 "letters to FILE.png or FILE.svg."),
             as_json: bool = JSON_OPT) -> None:
    """Certified ranking of policies from recorded trials (AnyRank), replayed in recorded order."""
    from .methods.anyrank_cli import rank_command
    if plot is not None:
        from .report.cli import check_plot_path
        check_plot_path(plot)

    source, fmt, sr = read_input(data, format, score_range, read_option)
    res = rank_command(source, alpha=alpha, method=method, prior=prior, prior_means=prior_means, gamma=gamma,
                       nmax=nmax, ties=ties, guarantee=guarantee, as_json=as_json, emit=emit, console=console,
                       format=fmt, score_range=sr, heldout_prior_rows=heldout_prior_rows, metric=metric, label=data)
    if plot is not None:
        from .report.cli import save_plot
        save_plot(res, plot, data=source, format=fmt, score_range=sr, console=None if as_json else console)


@app.command("demo")
def demo_cmd(seed: int = typer.Option(0, "--seed", min=0, help="Seed of the simulated campaign."),
             alpha: float = typer.Option(0.05, "--alpha", help="Family-wise error rate of the whole ranking."),
             as_json: bool = JSON_OPT) -> None:
    """A simulated robot-policy campaign run live through AnyRank, compared with Bonferroni."""
    from ._validate import check_alpha
    from .methods.anyrank_cli import demo_command

    demo_command(seed=seed, as_json=as_json, emit=emit, console=console, alpha=check_alpha(alpha))


@app.command("leaderboard")
def leaderboard_cmd(
    data: Path = DATA_ARG,
    alpha: float = typer.Option(0.05, "--alpha", help="Family-wise error rate of the whole leaderboard."),
    tau: float = typer.Option(0.0, "--tau", help="Margin: an edge A -> B certifies mean(A) - mean(B) > tau."),
    blocks: Optional[str] = typer.Option(None, "--blocks", help="Independent blocks within a run: 'items', "
                                         "'replicate', or a column name (default: the 'block' column if present, "
                                         "else items)."),
    top_k: Optional[int] = typer.Option(None, "--top-k", help="Certify a Top-k set."),
    pilot: Optional[int] = typer.Option(None, "--pilot", help="Pilot replicates choosing the Top-k candidates."),
    method: str = typer.Option("bb-edge", "--method", help="bb-edge, bfh-e-holm, cr-edge or bb-edge-pi."),
    graph: Optional[str] = typer.Option(None, "--graph", help="Also print the confidence graph: dot or mermaid."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Draw the confidence graph to FILE.png or FILE.svg."),
    format: Optional[str] = FORMAT_OPT,
    score_range: Optional[str] = SCORE_RANGE_OPT,
    read_option: list[str] = READ_OPT,
    as_json: bool = JSON_OPT,
) -> None:
    """Certified leaderboard (BB-EDGE): edges, rank intervals and Top-k from repeated runs of L models."""
    import numpy as np

    from ._validate import check_choice
    from .methods.bbedge import leaderboard
    from .order.closure import transitive_closure

    if graph is not None:
        graph = check_choice("--graph", graph, ("dot", "mermaid"))
    if plot is not None:
        from .report.cli import check_plot_path
        check_plot_path(plot)
    source, fmt, sr = read_input(data, format, score_range, read_option)
    result = leaderboard(source, alpha=alpha, tau=tau, blocks=blocks, top_k=top_k, pilot=pilot, method=method,
                         score_range=sr, format=fmt)

    def render(res: Any) -> None:
        t = Table(title=f"{data} — {res.method}: {len(res.models)} models, {res.replicates} replicate(s), "
                  f"alpha = {res.alpha:g}, tau = {res.tau:g}")
        for col in ("model", "mean", "rank interval", "certified above"):
            t.add_column(col, justify="left" if col == "model" else "right")
        for m in res.models:
            lo, hi = m["rank_interval"]
            t.add_row(m["model"], "-" if m["mean"] is None else f"{m['mean']:.3f}",
                      f"[{lo}, {hi}]", str(m["certified_above"]))
        console.print(t)
        console.print("Rank interval [lo, hi]: the certified edges place the model somewhere from rank lo to rank hi; "
                      "certified above: how many models it is certified to beat.")
        console.print(f"{len(res.edges)} certified edge(s) of {len(res.models) * (len(res.models) - 1)} directions.")
        # the certified edges and the undecided pairs in words (spec 00: undecided pairs are shown, never hidden)
        if res.edges:
            console.print(f"Certified (alpha = {res.alpha:g}, family-wise over all pairs and all replicates):")
            for line in res.sentences():
                console.print(f"  {line}")
        names = [m["model"] for m in res.models]
        idx = {n: i for i, n in enumerate(names)}
        rel = np.zeros((len(names), len(names)), dtype=bool)
        for better, worse in res.edges:
            rel[idx[better], idx[worse]] = True
        clo = transitive_closure(rel)
        undecided = [f"{names[i]} vs {names[j]}" for i in range(len(names)) for j in range(i + 1, len(names))
                     if not clo[i, j] and not clo[j, i]]
        if undecided:
            console.print(f"Undecided ({len(undecided)} pair(s), no certified edge either way): "
                          + ", ".join(undecided))
        else:
            console.print("Every pair is decided.")
        console.print(f"Guarantee: with probability at least {100 * (1 - res.alpha):g}%, every certified edge is "
                      "correct, at whatever replicate you stop (given the block assumption below).")
        console.print(f"Blocks: {res.blocks['statement']}.", markup=False)
        if res.inconsistent:
            console.print("Warning: the certified edges contain a cycle; rank intervals fail closed to [1, L].")
        if res.top_k is not None:
            tk = res.top_k
            if tk["set"] is None:
                console.print(f"Top-{tk['k']}: not certified yet.")
            else:
                console.print(f"Top-{tk['k']} certified at replicate {tk['certified_at']}: {', '.join(tk['set'])}.",
                              markup=False)
        if graph is not None:
            typer.echo(res.graph(graph), nl=False)

    emit(result, as_json, render)
    if plot is not None:
        from .report.cli import save_plot
        save_plot(result, plot, console=None if as_json else console)


@app.command("baseline")
def baseline_cmd(
    name: str = typer.Argument(..., help="bt, bt-davidson, bt-em, bt-bootstrap (preferences or scores); emr, t-holm, "
                               "cbtl, serpant, serpant-r, beb-holm, asympcs-bonf (per-item scores over replicates)."),
    data: Path = DATA_ARG,
    alpha: float = typer.Option(0.05, "--alpha", help="Error level of the interval and testing methods "
                                "(bt, bt-davidson, bt-em and emr are point estimates: they only record it)."),
    seed: Optional[int] = typer.Option(None, "--seed", min=0, help="Bootstrap seed (bt-bootstrap, cbtl)."),
    n_boot: Optional[int] = typer.Option(None, "--n-boot", help="Bootstrap replicates (bt-bootstrap, cbtl)."),
    tau: Optional[float] = typer.Option(None, "--tau", help="Margin (leaderboard methods)."),
    seeds: Optional[int] = typer.Option(None, "--seeds", help="Number of EM seeds (bt-em; default 100)."),
    partials: bool = typer.Option(False, "--partials", help="bt-em: add the partial-progress term (score data)."),
    format: Optional[str] = FORMAT_OPT,
    score_range: Optional[str] = SCORE_RANGE_OPT,
    read_option: list[str] = READ_OPT,
    as_json: bool = JSON_OPT,
) -> None:
    """Run a comparison baseline (Bradley–Terry family or leaderboard baseline); none controls the FWER of
    the mean ranking."""
    from .baselines import baseline

    source, fmt, sr = read_input(data, format, score_range, read_option)
    options: dict[str, Any] = {"alpha": alpha, "format": fmt, "score_range": sr}
    for key, value in (("seed", seed), ("n_boot", n_boot), ("tau", tau), ("seeds", seeds)):
        if value is not None:
            options[key] = value
    if partials:
        options["use_partials"] = True
    options = {k: v for k, v in options.items() if v is not None or k == "alpha"}
    result = baseline(name, source, **options)

    def render(res: Any) -> None:
        t = Table(title=f"{data} — baseline {res.method}: {len(res.policies)} policies, n = {res.n}")
        intervals = res.details.get("intervals")
        cols = ["policy", "score", "mean"] + (["interval"] if intervals else [])
        for col in cols:
            t.add_column(col, justify="left" if col == "policy" else "right")
        for p in res.ranking:
            row = [p, f"{res.scores[p]:.4f}", "-" if res.means[p] is None else f"{res.means[p]:.3f}"]
            if intervals:
                row.append(f"[{intervals[p][0]:.3f}, {intervals[p][1]:.3f}]")
            t.add_row(*row)
        console.print(t)
        point = res.method in ("bt", "bt-davidson", "bt-em", "emr")
        pos = {p: k for k, p in enumerate(res.ranking)}
        for d in sorted(res.decisions, key=lambda d: (pos[d["better"]], pos[d["worse"]])):
            how = "point estimate, not certified" if point else f"{res.method} at alpha = {res.alpha:g}"
            extra = ", implied" if d["kind"] == "implied" else ""
            console.print(f"{d['better']} ranks above {d['worse']} ({how}{extra})", markup=False)
        if res.undecided:
            console.print(f"Undecided ({len(res.undecided)}): "
                          + ", ".join(f"{a} vs {b}" for a, b in res.undecided), markup=False)
        console.print(f"Guarantee: {res.guarantee}.", markup=False)

    emit(result, as_json, render)


@app.command("report")
def report_cmd(result: Path = typer.Argument(..., help="A result file: the --json output of rank, leaderboard, "
                                             "compare, simulate, compose-test, baseline or demo."),
               html: Path = typer.Option(..., "--html", help="Write a self-contained HTML page here (inline SVG, "
                                         "works offline)."),
               data: Optional[Path] = typer.Option(None, "--data", help="Evaluation data: adds the score-distribution "
                                                   "plot. For simulate: its --out Parquet file (adds power curves)."),
               title: Optional[str] = typer.Option(None, "--title", help="Page title."),
               plot: Optional[Path] = typer.Option(None, "--plot", help="Also write the main figure (.png or .svg)."),
               format: Optional[str] = FORMAT_OPT, score_range: Optional[str] = SCORE_RANGE_OPT,
               as_json: bool = JSON_OPT) -> None:
    """Turn a result into one shareable HTML page: tables, letters, graph, curves and the guarantee."""
    from .report.cli import report_command

    report_command(result, html=html, data=data, title=title, plot=plot, format=format,
                   score_range=parse_score_range(score_range), as_json=as_json, emit=emit, console=console)


def main() -> None:
    """Console-script entry point."""
    app(prog_name="certirank")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
