"""`compose_test`: choose m test cases and weights with CVaR(η) RPOSST_seq (spec 05 §5–9)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from math import comb
from typing import Any

import numpy as np

from ..._validate import as_generator, check_choice, check_positive_int
from ...errors import ParameterError
from ...results import ResultMixin
from . import _core
from .matrix import ScoreMatrix, as_score_matrix

__all__ = ["CompositionResult", "compose_test", "SOLVERS"]

SOLVERS = ("rm+", "lp", "milp", "kofn")
# beyond this many tuples the exhaustive search is refused (spec 05 §7: use the MILP instead)
MAX_TUPLES = 2_000_000


@dataclass(frozen=True)
class CompositionResult(ResultMixin):
    """A composed test: m test cases with weights, and its training loss.

    Attributes
    ----------
    test_cases : list of str
        Chosen test cases (ascending row order).
    test_indices : list of int
        Their 0-based row indices in the matrix.
    weights : list of float
        Test weights w (sum to 1; a zero weight means the test is effectively smaller).
    loss : float
        Training CVaR_η of the absolute error over Ψ (all tuning policies × targets), on the rescaled scale.
    max_error, mean_error : float
        Training maximum and Ψ-mean of the absolute error.
    solver : str
        ``rm+`` (regret matching+, spec 05 §6), ``lp`` (exact per-tuple LP), ``milp`` (joint MILP) or
        ``kofn`` (sampled k-of-N with Successive Rejects).
    best_round : int or None
        RM+ round at which the returned weights were seen (0 = uniform), None for exact solvers.
    kofn_loss : float or None
        Exact expected k-of-N training loss (solver ``kofn`` only).
    targets : list of list of float
        Target distributions σ_β over all test cases, one per β.
    scale : dict
        ``lo`` and ``hi`` of the min–max rescaling (None when `rescale=False`).
    """

    test_cases: list[str]
    test_indices: list[int]
    weights: list[float]
    loss: float
    max_error: float
    mean_error: float
    m: int
    eta: float
    betas: list[float]
    solver: str
    rounds: int | None
    best_round: int | None
    n_test_cases: int
    n_policies: int
    n_pairs: int
    n_tuples: int
    kofn_loss: float | None = None
    targets: list[list[float]] = field(default_factory=list)
    scale: dict[str, float | None] = field(default_factory=dict)

    def describe(self) -> str:
        parts = ", ".join(f"{c} ({w:.3f})" for c, w in zip(self.test_cases, self.weights))
        return f"test of {len(self.test_cases)} case(s): {parts}; training CVaR({self.eta:g}) error {self.loss:.4f}"


def check_eta(eta: Any) -> float:
    try:
        value = float(eta)
    except (TypeError, ValueError):
        raise ParameterError(f"eta must be a number in (0, 1], got {eta!r}") from None
    if not 0.0 < value <= 1.0:
        raise ParameterError(f"eta must be in (0, 1] (the CVaR fractile; 0.01 = nearly the worst case), got {eta!r}")
    return value


def check_betas(betas: Any) -> np.ndarray:
    if isinstance(betas, str):
        try:
            betas = [float(v) for v in betas.split(",") if v.strip()]
        except ValueError:
            raise ParameterError(f"betas must be comma-separated numbers, got {betas!r}") from None
    try:
        values = np.atleast_1d(np.asarray(betas, dtype=float))
    except (TypeError, ValueError):
        raise ParameterError(f"betas must be numbers, got {betas!r}") from None
    if values.ndim != 1 or values.size == 0 or not np.all(np.isfinite(values)):
        raise ParameterError(f"betas must be a non-empty list of finite numbers, got {betas!r}")
    return values


def check_m(m: Any, n_cases: int) -> int:
    m = check_positive_int("m", m)
    if m >= n_cases:
        raise ParameterError(f"m must be smaller than the number of test cases ({n_cases}); got m = {m}")
    return m


def design(problem: _core.Problem, m: int, eta: float, solver: str, rounds: int, *,
           tuples: np.ndarray | None = None, k: int = 1, n_samples: int = 100, budget: int | None = None,
           rng: np.random.Generator | None = None, time_limit: float | None = None) -> dict[str, Any]:
    """Run one solver on a prepared problem; returns cases, weights, loss and solver details."""
    if solver == "milp":
        cases, weights, _ = _core.milp_joint(problem, m, eta, time_limit=time_limit)
        loss = float(_core.evaluate_weights(problem, cases[None, :], weights[None, :], eta)[0])
        return {"cases": cases, "weights": weights, "loss": loss, "best_round": None}
    if tuples is None:
        tuples = _core.all_tuples(problem.n_cases, m)
    if solver == "rm+":
        sol = _core.rm_plus_all(problem, tuples, eta, rounds)
        i = _core.first_min(sol.loss)
        return {"cases": tuples[i], "weights": sol.weights[i], "loss": float(sol.loss[i]),
                "best_round": int(sol.rounds[i])}
    if solver == "lp":
        sol, _ = _core.lp_all(problem, tuples, eta)
        i = _core.first_min(sol.loss)
        return {"cases": tuples[i], "weights": sol.weights[i], "loss": float(sol.loss[i]), "best_round": None}
    if solver == "kofn":
        rng = as_generator(rng)
        budget = 20 * tuples.shape[0] if budget is None else budget
        i, weights, t_stop = _core.kofn_sampled(problem, tuples, k, n_samples, max(1, rounds), budget, rng)
        cases = tuples[i]
        loss = float(_core.evaluate_weights(problem, cases[None, :], weights[None, :], eta)[0])
        return {"cases": cases, "weights": weights, "loss": loss, "best_round": t_stop,
                "kofn_loss": _core.kofn_loss(problem, cases, weights, k, n_samples)}
    raise ParameterError(f"unknown solver {solver!r}")  # pragma: no cover - checked by callers


def _psi_errors(problem: _core.Problem, cases: np.ndarray, weights: np.ndarray) -> tuple[float, float]:
    loss = np.abs(weights @ problem.AP[cases] - problem.b)
    support = problem.psi > 0
    return float(loss[support].max()), float(np.dot(problem.psi, loss))


def compose_test(matrix: Any, m: int = 2, eta: float = 0.01, betas: Sequence[float] | str = (0, 1, 2, 4),
                 solver: str = "rm+", rounds: int = 300, *, psi: np.ndarray | None = None, rescale: bool = True,
                 k: int = 1, n_samples: int = 100, budget: int | None = None, seed: Any = 0,
                 time_limit: float | None = None) -> CompositionResult:
    """Compose a small robust test with CVaR(η) RPOSST_seq (Morrill et al., UAI 2023; spec 05).

    Parameters
    ----------
    matrix : path, pandas.DataFrame, ScoreMatrix or 2-D array
        Test-result matrix, rows = test cases, columns = (tuning) policies; see :func:`read_test_matrix`.
    m : int
        Number of test cases (1 <= m < number of test cases).
    eta : float
        CVaR fractile in (0, 1]; 0.01 is nearly the worst case, 1 the Ψ-mean error.
    betas : sequence of float or "0,1,2,4"
        Targets σ_β = softmax(−(β/n_T) A·1); β = 0 is the uniform target.
    solver : {"rm+", "lp", "milp", "kofn"}
        ``rm+``: deterministic RPOSST_seq with regret matching+ over every C(n_T, m) tuple, best round kept
        (default). ``lp``: exact per-tuple CVaR LP (HiGHS). ``milp``: joint selection MILP over all cases.
        ``kofn``: sampled k-of-N RPOSST_seq with Successive Rejects (uses `k`, `n_samples`, `budget`, `seed`).
    rounds : int
        RM+ rounds T (default 300; 0 evaluates uniform weights only).
    psi : array of shape (p, K), optional
        Probabilities over (policy, target) pairs (default uniform, as in the paper).
    rescale : bool
        Min–max rescale the matrix to [0, 1] first (spec 05 §11.3; default True).
    k, n_samples, budget, seed
        k-of-N parameters (solver ``kofn``): k worst of N = `n_samples` sampled pairs, Successive Rejects
        budget (default 20 pulls per tuple), random seed.
    time_limit : float, optional
        Seconds allowed to the MILP solver.

    Returns
    -------
    CompositionResult
    """
    sm: ScoreMatrix = as_score_matrix(matrix)
    eta = check_eta(eta)
    beta_values = check_betas(betas)
    if isinstance(solver, str) and solver.strip().lower().replace("_", "-") in ("rm-plus", "rmplus", "rm"):
        solver = "rm+"
    solver = check_choice("solver", solver, SOLVERS, normalize_underscores=False)
    rounds = check_positive_int("rounds", rounds, minimum=0)
    n_cases, n_pol = sm.shape
    m = check_m(m, n_cases)
    n_tuples = comb(n_cases, m)
    if solver != "milp" and n_tuples > MAX_TUPLES:
        raise ParameterError(f"C({n_cases}, {m}) = {n_tuples:,} tuples is too many for exhaustive search; "
                             "use solver='milp' or a smaller m")
    if solver == "kofn":
        n_samples = check_positive_int("n_samples", n_samples)
        k = check_positive_int("k", k)
        if k > n_samples:
            raise ParameterError(f"k must be <= n_samples (k-of-N), got k = {k}, N = {n_samples}")
        if budget is not None:
            budget = check_positive_int("budget", budget)
    if rescale:
        A, lo, hi = sm.scaled()
        scale = {"lo": lo, "hi": hi}
    else:
        A, scale = np.asarray(sm.raw, dtype=float), {"lo": None, "hi": None}
    targets = _core.softmax_targets(A, beta_values)
    problem = _core.make_problem(A, targets, psi)
    out = design(problem, m, eta, solver, rounds, k=k, n_samples=n_samples, budget=budget, rng=as_generator(seed),
                 time_limit=time_limit)
    cases = np.asarray(out["cases"])
    weights = np.asarray(out["weights"], dtype=float)
    max_err, mean_err = _psi_errors(problem, cases, weights)
    return CompositionResult(
        test_cases=[sm.test_cases[i] for i in cases], test_indices=[int(i) for i in cases],
        weights=[float(v) for v in weights], loss=out["loss"], max_error=max_err, mean_error=mean_err,
        m=m, eta=eta, betas=[float(b) for b in beta_values], solver=solver,
        rounds=rounds if solver in ("rm+", "kofn") else None, best_round=out["best_round"],
        n_test_cases=n_cases, n_policies=n_pol, n_pairs=problem.d, n_tuples=n_tuples,
        kofn_loss=out.get("kofn_loss"), targets=targets.tolist(), scale=scale)
