"""`certirank compose-test`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from ._common import app, console, emit, JSON_OPT, READ_OPT, SCORE_RANGE_OPT


@app.command("compose-test")
def compose_test_cmd(matrix: Path = typer.Argument(..., help="Test matrix: long test_case,policy,score, "
                                                   "model,item,score (item = test case, model = policy) or wide "
                                                   "(rows = test cases, columns = policies); or evaluation logs "
                                                   "(lm-eval output folder, inspect_ai logs, HELM, JSONL)."),
                     size: Optional[str] = typer.Option(None, "--size", help="Number of test cases m (default 2; "
                                                        "with --evaluate a list, e.g. 1,2,3)."),
                     m: Optional[str] = typer.Option(None, "-m", hidden=True, help="Deprecated: --size (-m means "
                                                     "--methods, as in simulate)."),
                     eta: float = typer.Option(0.01, "--eta", help="CVaR fractile in (0, 1]; 0.01 = nearly worst case."),
                     betas: str = typer.Option("0,1,2,4", "--betas", help="Target temperatures beta (0 = uniform)."),
                     solver: str = typer.Option("auto", "--solver", help="auto, rm+ (regret matching+), lp (exact "
                                                "per tuple), milp (exact joint), kofn (sampled k-of-N) or search "
                                                "(item scale: local search + LP weights)."),
                     select: str = typer.Option("cv", "--select", help="cv: choose the design by nested holdout "
                                                "over the policies (default; miniaverage unless rposst or "
                                                "minimax uniform is clearly better); cv-rposst: the earlier "
                                                "rule (rposst unless one of six designs is clearly better); "
                                                "rposst: the RPOSST design."),
                     variant: str = typer.Option("sequential", "--variant", help="sequential (one fixed test) or "
                                                 "simultaneous (a randomised test: a distribution over tuples)."),
                     rounds: int = typer.Option(300, "--rounds", help="RM+ rounds T (0 = uniform weights "
                                                "only)."),
                     evaluate: bool = typer.Option(False, "--evaluate", help="Run the holdout protocol instead "
                                                   "(the default design, RPOSST and the five baselines)."),
                     holdout: float = typer.Option(0.2, "--holdout", help="Fraction of policies held out."),
                     sets: int = typer.Option(100, "--sets", help="Number of random holdout sets."),
                     seed: int = typer.Option(0, "--seed", min=0, help="Seed of the random draws (holdout "
                                               "sets with --evaluate; sampled tuples with --solver kofn)."),
                     methods: Optional[str] = typer.Option(None, "--methods", help="Comma-separated methods for "
                                                           "--evaluate (default: cv, rposst and the five "
                                                           "baselines)."),
                     score_range: Optional[str] = SCORE_RANGE_OPT, read_option: list[str] = READ_OPT,
                     as_json: bool = JSON_OPT) -> None:
    """Choose m test cases and weights that score new policies like the full pool (RPOSST)."""
    from ..methods.rposst import compose_test, evaluate_test_designs, read_test_matrix
    from ..report.rposst_text import composition_renderables, design_verdicts, evaluation_renderables

    from ..errors import ParameterError
    from ._common import deprecated_alias
    m = deprecated_alias(size, m, "-m (test size)", "--size")
    m = "2" if m is None else m  # '' is refused as a size, not taken as the default
    # options of the other mode would otherwise be dropped without a word
    if evaluate and solver.strip().lower() != "auto":
        raise ParameterError("--solver applies to one composition; --evaluate compares methods (choose them with "
                             "--methods, e.g. --methods rposst-lp)")
    if evaluate and (select != "cv" or variant != "sequential"):
        raise ParameterError("--select and --variant apply to one composition; --evaluate compares methods "
                             "(--methods cv,rposst,...)")
    if not evaluate:
        ignored = [name for name, used in (("--holdout", holdout != 0.2), ("--sets", sets != 100),
                                           ("--methods", methods is not None)) if used]
        if ignored:
            raise ParameterError(f"{', '.join(ignored)} only appl{'ies' if len(ignored) == 1 else 'y'} with "
                                 "--evaluate (the holdout protocol)")
        if "," in m:
            raise ParameterError(f"--size takes one number of test cases, got {m!r}; a list such as 1,2,3 needs "
                                 "--evaluate")
    try:  # the API takes sizes as numbers; the command line spells them "2" or "1,2,3"
        sizes = [int(v) for v in m.split(",") if v.strip()]
    except ValueError:
        raise ParameterError(f"--size must be a whole number of test cases (or, with --evaluate, a list such as "
                             f"1,2,3), got {m!r}") from None
    size: Any = sizes[0] if len(sizes) == 1 else sizes
    from ._common import key_values, parse_score_range
    data = read_test_matrix(matrix, score_range=parse_score_range(score_range),
                            **key_values(read_option, "--read-option"))
    if evaluate and _item_scale(data, m):
        # too many tuples to enumerate: the item-scale protocol (predict held-out models' full-benchmark score)
        from ..methods.rposst import evaluate_item_designs
        from ..report.rposst_text import item_evaluation_renderables
        if "," in m:
            raise ParameterError(f"--evaluate at item scale ({len(data.test_cases):,} test cases) takes one --size, "
                                 f"got {m!r}")
        if betas.replace(" ", "") != "0,1,2,4" or rounds != 300:
            raise ParameterError("--betas and --rounds do not apply at item scale: --evaluate predicts each "
                                 "held-out policy's mean score over all test cases, with local search")
        result = evaluate_item_designs(data, m=int(m), methods=_split(methods), holdout=holdout, sets=sets,
                                       seed=seed, eta=eta)
        emit(result, as_json, lambda res: [console.print(x) for x in item_evaluation_renderables(res)])
    elif evaluate:
        result: Any = evaluate_test_designs(data, m=size, methods=methods, holdout=holdout, sets=sets, seed=seed,
                                            eta=eta, betas=betas, rounds=rounds)
        emit(result, as_json, lambda res: [console.print(x) for x in [*evaluation_renderables(res),
                                                                        *design_verdicts(res)]])
    else:
        from ..methods.rposst.compose import MAX_ROUNDS
        if not 0 <= rounds <= MAX_ROUNDS:
            raise ParameterError(f"--rounds must be between 0 and {MAX_ROUNDS:,}, got {rounds:,}")
        if rounds > 2000:  # long work: say what it will cost before it starts
            from ._common import announce_cost
            announce_cost(f"compose-test: {rounds:,} rounds", lambda: compose_test(
                data, m=size, eta=eta, betas=betas, solver=solver, rounds=200, seed=seed, select=select,
                variant=variant), 200, rounds)
        result = compose_test(data, m=size, eta=eta, betas=betas, solver=solver, rounds=rounds, seed=seed, select=select,
                              variant=variant)
        if getattr(result, "variant", "sequential") == "simultaneous":
            emit(result, as_json, lambda res: [console.print(x) for x in _mixture_renderables(res, str(matrix))])
        else:
            emit(result, as_json, lambda res: [console.print(x) for x in [*composition_renderables(res, str(matrix)),
                                                                            *_cv_lines(res)]])


def _item_scale(data: Any, sizes: str) -> bool:
    """Whether some requested m has more tuples than exhaustive search takes (the composer's own switch)."""
    from ..methods.rposst.compose import item_scale
    return any(v.strip().isdigit() and item_scale(len(data.test_cases), int(v)) for v in sizes.split(","))


def _split(methods: Optional[str]) -> Optional[list[str]]:
    return None if methods is None else [v.strip() for v in methods.split(",") if v.strip()]


def _cv_lines(res: Any) -> list[str]:
    """How the design was chosen (select='cv'), in words."""
    if res.cv is None:
        return []
    cv = res.cv
    se = "" if cv["se"] is None else f" (s.e. {cv['se']:.4f})"
    others = ", ".join(f"{c['name']} {c['mean_error']:.4f}" for c in cv["candidates"] if c["name"] != cv["chosen"])
    folds = f"{cv['repeats']} × {cv['folds']}" if cv.get('repeats', 1) > 1 else str(cv['folds'])
    return [f"Design chosen by nested holdout over the given policies ({folds} folds): {cv['chosen']}, "
            f"estimated {cv['metric']} error on new policies {cv['estimate']:.4f}{se}; other candidates: {others}.",
            "The estimate is optimistic by the choice itself; check it with --evaluate."]


def _mixture_renderables(res: Any, source: str) -> list[Any]:
    from rich.table import Table
    t = Table(title=f"Randomised test for {source}: {len(res.mixture)} tuple(s) of {res.m} of {res.n_test_cases} "
                    "test cases (simultaneous move)")
    for col in ("probability", "test cases", "weights"):
        t.add_column(col, justify="right" if col == "probability" else "left")
    for item in res.mixture:
        t.add_row(f"{item['probability']:.4f}", ", ".join(item["test_cases"]),
                  ", ".join(f"{w:.4f}" for w in item["weights"]))
    return [t, f"Draw one tuple with these probabilities for every policy tested; scores from different draws "
               f"are not comparable with each other. CVaR({res.eta:g}) of the expected error over "
               f"{res.n_pairs} (policy, target) pairs: {res.loss:.4f}."]
