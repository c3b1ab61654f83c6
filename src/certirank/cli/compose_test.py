"""`certirank compose-test`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from ._common import app, console, emit, JSON_OPT


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
    from ..methods.rposst import compose_test, evaluate_test_designs, read_test_matrix
    from ..methods.rposst._render import composition_renderables, evaluation_renderables

    from ..errors import ParameterError
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
