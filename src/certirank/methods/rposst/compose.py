"""`compose_test`: choose m test cases and weights with CVaR(η) RPOSST_seq (spec 05 §5–9)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from math import comb
from typing import Any

import numpy as np

from ..._params import validated
from ..._validate import as_generator, check_choice, check_positive_int
from ..._compat import keyword_only
from ...errors import ParameterError
from ...results import ResultMixin
from . import _core, items
from .select import CV_METRICS, SELECT_RULES, SELECTS, fit_candidate, nested_holdout, parse_candidate
from .matrix import ScoreMatrix, as_score_matrix

__all__ = ["CompositionResult", "compose_test", "SOLVERS"]

SOLVERS = ("auto", "rm+", "lp", "milp", "kofn", "search")
# beyond this many tuples the exhaustive search is refused (spec 05 §7: use the MILP instead)
MAX_TUPLES = 2_000_000


def item_scale(n_cases: int, m: int) -> bool:
    """Whether C(n_cases, m) tuples are too many to enumerate: the scalable composer (local search) and the
    item-scale evaluation take over."""
    return comb(n_cases, m) > MAX_TUPLES


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
    select : str
        ``cv`` or ``cv-rposst`` (the design was chosen by nested holdout under that rule) or ``rposst``.
    design : str
        The design method that produced the test (``rposst``, ``rposst:shrink=0.5``, ``miniaverage``, ...).
    cv : dict or None
        For ``select="cv"`` / ``"cv-rposst"``: ``chosen``, ``estimate`` (mean inner holdout error of the
        chosen design, on the rescaled scale) and its standard error ``se`` over the ``folds`` splits,
        ``metric`` (max or mean), ``repeats`` (how often the folds were redrawn), and every candidate's
        ``mean_error``, ``se`` and ``se_vs_first`` (bootstrap s.e. of its paired difference to the first
        candidate, the anchor; a candidate replaces the anchor only when it is lower by more than that). The
        estimate is optimistic by the selection itself.
    """

    RESULT_KIND = "compose-test"

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
    select: str = "rposst"
    design: str = "rposst"
    cv: dict[str, Any] | None = None

    def describe(self) -> str:
        parts = ", ".join(f"{c} ({w:.3f})" for c, w in zip(self.test_cases, self.weights))
        text = f"test of {len(self.test_cases)} case(s): {parts}; training CVaR({self.eta:g}) error {self.loss:.4f}"
        if self.cv is not None:
            se = "" if self.cv["se"] is None else f" ± {self.cv['se']:.4f}"
            text += (f"; design {self.design} chosen by nested holdout (estimated {self.cv['metric']} holdout "
                     f"error {self.cv['estimate']:.4f}{se})")
        return text


def check_eta(eta: Any) -> float:
    try:
        value = float(eta)
    except (TypeError, ValueError):
        raise ParameterError(f"eta must be a number in (0, 1], got {eta!r}") from None
    if not 0.0 < value <= 1.0:
        raise ParameterError(f"eta must be in (0, 1] (the CVaR fractile; 0.01 = nearly the worst case), got {eta!r}")
    return value


#: RM+ rounds beyond this are a typo (300 is the default; 10^6 rounds already take minutes)
MAX_ROUNDS = 10**7


def check_betas(betas: Any) -> np.ndarray:
    if isinstance(betas, str):
        parts = betas.split(",")
        if parts and not parts[-1].strip():
            parts = parts[:-1]  # a trailing comma, as lists are often written
        try:
            betas = [float(v) for v in parts]  # an empty item ('1,,2') is a typo, not a value to drop
        except ValueError:
            raise ParameterError(f"betas must be comma-separated numbers, got {betas!r}") from None
    try:
        values = np.atleast_1d(np.asarray(betas, dtype=float))
    except (TypeError, ValueError):
        raise ParameterError(f"betas must be numbers, got {betas!r}") from None
    if values.ndim != 1 or values.size == 0 or not np.all(np.isfinite(values)):
        raise ParameterError(f"betas must be a non-empty list of finite numbers, got {betas!r}")
    if np.any(values < 0):
        # spec 05 §9.4: beta = 0 is uniform, larger beta favours hard cases; a negative beta is not a target
        raise ParameterError(f"betas must be >= 0 (0 = uniform target, larger = harder cases), got {betas!r}")
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
    if solver == "search":
        cases, _ = items.search_support(problem, m, "cvar", eta, as_generator(rng))
        weights = items.lp_weights(problem, cases, eta)
        loss = float(_core.evaluate_weights(problem, cases[None, :], weights[None, :], eta)[0])
        return {"cases": cases, "weights": weights, "loss": loss, "best_round": None}
    if tuples is None:
        tuples = _core.all_tuples(problem.n_cases, m)
    if solver == "rm+":
        i, loss, weights, best_round = _core.rm_plus_best(problem, tuples, eta, rounds)
        return {"cases": tuples[i], "weights": weights, "loss": loss, "best_round": best_round}
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


def _uniform_search_run(problem: _core.Problem, m: int, eta: float, baseline: str,
                        rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    cases, _ = items.search_support(problem, m, baseline, eta, rng)
    return cases, np.full(m, 1.0 / m)


def cv_design(problem: _core.Problem, m: int, eta: float, betas: np.ndarray, solver: str, rounds: int,
              candidates: Sequence[Any], *, folds: int = 5, holdout: float = 0.2, metric: str = "max",
              cv_rounds: int | None = None, repeats: int = 1, rng: Any = 0, tuples: np.ndarray | None = None,
              k: int = 1,
              n_samples: int = 100, budget: int | None = None,
              time_limit: float | None = None) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Choose among `candidates` by nested holdout over the policies of `problem` and refit the winner on
    all of them: (cases, weights, report). Used by :func:`compose_test` and the evaluation protocol."""
    cands = [parse_candidate(c) for c in candidates]
    rng = as_generator(rng)
    inner_rounds = min(rounds, 100) if cv_rounds is None else cv_rounds
    scalable = solver in ("milp", "search")
    if tuples is None and not scalable:
        tuples = _core.all_tuples(problem.n_cases, m)
    cv_rng, fit_rng, baseline_rng = (np.random.default_rng(s) for s in rng.spawn(3))

    def run_with(rounds_: int):
        def run(prob: _core.Problem, mm: int, level: float):
            out = design(prob, mm, level, solver, rounds_, tuples=tuples, k=k, n_samples=n_samples,
                         budget=budget, rng=fit_rng, time_limit=time_limit)
            return np.asarray(out["cases"]), np.asarray(out["weights"], dtype=float)
        return run

    baseline_run = None
    if scalable:
        def baseline_run(prob: _core.Problem, mm: int, name: str):
            return _uniform_search_run(prob, mm, eta, name, baseline_rng)

    cv = nested_holdout(problem.A, betas, m, eta, cands, run_with(inner_rounds), folds=folds, holdout=holdout,
                        metric=metric, rng=cv_rng, tuples=tuples, baseline_run=baseline_run, repeats=repeats)
    best = cands[cv["chosen"]]
    cases, weights = fit_candidate(best, problem, m, eta, tuples, run_with(rounds), baseline_run=baseline_run)

    def _se(v: float) -> float | None:
        return None if np.isnan(v) else float(v)

    # folds as used: nested_holdout caps them at the number of policies (leave one out)
    info = {"folds": min(folds, problem.A.shape[1]), "repeats": repeats, "holdout": holdout,
            "holdout_size": cv["holdout_size"], "metric": metric, "rounds": inner_rounds, "chosen": best.name, "estimate": float(cv["mean"][cv["chosen"]]),
            "se": _se(cv["se"][cv["chosen"]]),
            "candidates": [{"name": c.name, "mean_error": float(mu), "se": _se(se), "se_vs_first": _se(ds)}
                           for c, mu, se, ds in zip(cands, cv["mean"], cv["se"], cv["diff_se"])]}
    return np.asarray(cases), np.asarray(weights, dtype=float), info


@keyword_only(("m", "eta", "betas", "solver", "rounds"))
@validated("compose_test")
def compose_test(matrix: Any, *, m: int = 2, eta: float = 0.01, betas: Sequence[float] | str = (0, 1, 2, 4),
                 solver: str = "auto", rounds: int = 300, select: str = "cv", variant: str = "sequential",
                 candidates: Sequence[str] | None = None, folds: int = 5, cv_holdout: float = 0.2,
                 cv_metric: str = "max", cv_rounds: int | None = None, psi: np.ndarray | None = None,
                 rescale: bool = True, k: int = 1, n_samples: int = 100, budget: int | None = None, seed: Any = 0,
                 time_limit: float | None = None) -> Any:
    """Compose a small robust test (Morrill et al., UAI 2023; spec 05), chosen out of sample by default.

    Parameters
    ----------
    matrix : path, pandas.DataFrame, ScoreMatrix or 2-D array
        Test-result matrix, rows = test cases, columns = (tuning) policies; see :func:`read_test_matrix`
        (long tables ``test_case,policy,score`` or ``model,item,score``, certirank's long tables, wide tables).
    m : int
        Number of test cases (1 <= m < number of test cases).
    eta : float
        CVaR fractile in (0, 1]; 0.01 is nearly the worst case, 1 the Ψ-mean error.
    betas : sequence of float or "0,1,2,4"
        Targets σ_β = softmax(−(β/n_T) A·1); β = 0 is the uniform target.
    solver : {"auto", "rm+", "lp", "milp", "kofn", "search"}
        How an RPOSST design is solved. ``rm+``: deterministic RPOSST_seq with regret matching+ over every
        C(n_T, m) tuple, best round kept. ``lp``: exact per-tuple CVaR LP (HiGHS). ``milp``: joint selection
        MILP over all cases. ``kofn``: sampled k-of-N RPOSST_seq with Successive Rejects (uses `k`,
        `n_samples`, `budget`, `seed`). ``search``: item scale — greedy + swap local search for the
        support, exact CVaR LP for the weights (a local optimum). ``auto`` (default): ``rm+`` when the
        tuples can be enumerated (C(n_T, m) <= 2,000,000), else ``search``.
    rounds : int
        RM+ rounds T (default 300; 0 evaluates uniform weights only).
    select : {"cv", "cv-rposst", "rposst"}
        ``cv`` (default): choose among miniaverage, rposst and minimax uniform by nested holdout (two
        repeats of 5-fold over the given policies), keeping miniaverage unless another is lower by more than
        one s.e., and refit the winner on all policies; ``cv-rposst``: the earlier rule, RPOSST kept unless
        one of six other designs is clearly better (one 5-fold split); ``rposst``: the RPOSST design at `eta`
        (spec 05's behaviour; R1/R2 test vectors).
    variant : {"sequential", "simultaneous"}
        ``simultaneous`` (spec 05 §9, paper App. F): a randomised test — a distribution over tuples, each
        with its own weights — solved exactly as one LP; returns a
        :class:`~certirank.methods.rposst.simultaneous.SimultaneousComposition`.
    candidates : sequence of str, optional
        Designs compared by the nested holdout, the first being the anchor: ``rposst`` (at `eta`),
        ``rposst:eta=X``, ``rposst:shrink=X`` (weights (1 − X)·w + X/m), ``rposst:bag=B`` (the tuple RPOSST
        chooses most often on B bootstrap resamples of the policies, weights averaged over those that chose
        it; ``;refit=1`` refits them on all policies, ``;seed=S`` draws other resamples), ``rposst:bagw=B``
        (RPOSST's tuple, weights averaged over B resamples), ``minimax-uniform``, ``minimax-ttd``,
        ``minimax-tnp``, ``minimax-tnp-mean``, ``miniaverage``, ``iterative-minimax``. Default: the rule's
        list (``select="cv"``: miniaverage, rposst, minimax-uniform; ``"cv-rposst"``: rposst,
        rposst:shrink=0.5, rposst:eta=0.1 and the four uniform baselines, at item scale rposst,
        rposst:shrink=0.5, minimax-uniform, miniaverage); at item scale (solver ``search``/``milp``) the
        baselines' supports are found by local search.
    folds, cv_holdout, cv_metric, cv_rounds :
        Nested holdout: the policies are split at random into `folds` groups, each held out once (the split
        is drawn twice for ``cv``, once for ``cv-rposst``); the score is the expected ``max`` (default; the
        protocol's headline) over round(cv_holdout·p) held-out policies, or the ``mean`` error; RM+ rounds
        inside the splits (default min(rounds, 100)).
    psi : array of shape (p, K), optional
        Probabilities over (policy, target) pairs (default uniform, as in the paper).
    rescale : bool
        Min–max rescale the matrix to [0, 1] first (spec 05 §11.3; default True).
    k, n_samples, budget, seed
        k-of-N parameters (solver ``kofn``); `seed` also seeds the nested-holdout splits and the local search.
    time_limit : float, optional
        Seconds allowed to the MILP solver.

    Returns
    -------
    CompositionResult (or SimultaneousComposition for ``variant="simultaneous"``)
    """
    sm: ScoreMatrix = as_score_matrix(matrix)
    eta = check_eta(eta)
    beta_values = check_betas(betas)
    if isinstance(solver, str) and solver.strip().lower().replace("_", "-") in ("rm-plus", "rmplus", "rm"):
        solver = "rm+"
    solver = check_choice("solver", solver, SOLVERS, normalize_underscores=False)
    select = check_choice("select", select, SELECTS)
    variant = check_choice("variant", variant, ("sequential", "simultaneous"))
    rounds = check_positive_int("rounds", rounds, minimum=0, maximum=MAX_ROUNDS)
    n_cases, n_pol = sm.shape
    m = check_m(m, n_cases)
    n_tuples = comb(n_cases, m)
    large = item_scale(n_cases, m)
    if solver == "auto":
        solver = "search" if large else "rm+"
    if solver not in ("milp", "search") and large:
        raise ParameterError(f"C({n_cases}, {m}) = {n_tuples:,} tuples is too many for exhaustive search; "
                             "use solver='search' (local search) or 'milp', or a smaller m")
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
    if variant == "simultaneous":
        from .simultaneous import compose_simultaneous
        return compose_simultaneous(sm, A, m, eta, beta_values, psi=psi, scale=scale)
    targets = _core.softmax_targets(A, beta_values)
    problem = _core.make_problem(A, targets, psi)
    rng = as_generator(seed)
    cv_info = None
    design_name = "rposst"
    if select in SELECT_RULES:
        rule = SELECT_RULES[select]
        if candidates is None:
            candidates = rule.item_candidates if solver in ("milp", "search") else rule.candidates
        cands = [parse_candidate(c) for c in candidates]
        if not cands:
            raise ParameterError("candidates must name at least one design")
        folds = check_positive_int("folds", folds, minimum=2)
        try:
            cv_holdout = float(cv_holdout)
        except (TypeError, ValueError):
            raise ParameterError(f"cv_holdout must be a fraction in (0, 1), got {cv_holdout!r}") from None
        if not 0.0 < cv_holdout < 1.0:
            raise ParameterError(f"cv_holdout must be a fraction in (0, 1), got {cv_holdout!r}")
        cv_metric = check_choice("cv_metric", cv_metric, CV_METRICS)
        inner_rounds = min(rounds, 100) if cv_rounds is None else check_positive_int("cv_rounds", cv_rounds,
                                                                                    minimum=0)
        if psi is not None:
            raise ParameterError(f"select={select!r} needs the uniform Ψ (held-out policies change its support); "
                                 "pass select='rposst' with psi")
        cases, weights, cv_info = cv_design(problem, m, eta, beta_values, solver, rounds, cands, folds=folds,
                                            holdout=cv_holdout, metric=cv_metric, cv_rounds=inner_rounds,
                                            repeats=rule.repeats, rng=rng,
                                            k=k, n_samples=n_samples, budget=budget, time_limit=time_limit)
        design_name = cv_info["chosen"]
        loss = float(_core.evaluate_weights(problem, cases[None, :], weights[None, :], eta)[0])
        out = {"cases": cases, "weights": weights, "loss": loss, "best_round": None}
    else:
        out = design(problem, m, eta, solver, rounds, k=k, n_samples=n_samples, budget=budget, rng=rng,
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
        kofn_loss=out.get("kofn_loss"), targets=targets.tolist(), scale=scale, select=select,
        design=design_name, cv=cv_info)
