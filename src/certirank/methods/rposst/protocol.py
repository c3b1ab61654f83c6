"""Holdout evaluation of test designs (spec 05 §11): RPOSST against the five baselines."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..._params import validated
from ..._parallel import resolve_backend, run_tasks
from ..._validate import as_generator, check_choice, check_positive_int
from ..._compat import keyword_only
from ...errors import ParameterError
from ...results import ResultMixin
from . import _core
from .compose import check_betas, check_eta, check_m, cv_design, design, item_scale
from .select import SELECT_RULES, fresh_generator
from .matrix import as_score_matrix

__all__ = ["DesignEvaluation", "evaluate_test_designs", "METHODS", "DEFAULT_METHODS", "holdout_size"]

# method name -> solver (RPOSST variants) or baseline name
_RPOSST = {"rposst": "rm+", "rposst-lp": "lp", "rposst-milp": "milp", "rposst-kofn": "kofn"}
METHODS = (*SELECT_RULES, *_RPOSST, *_core.BASELINES)
DEFAULT_METHODS = ("cv", "rposst", "minimax-uniform", "minimax-ttd", "minimax-tnp", "miniaverage", "iterative-minimax")
LABELS = {
    "cv": "compose_test default (select=cv)",
    "cv-rposst": "earlier default (select=cv-rposst)",
    "rposst": "CVaR RPOSST_seq (RM+)",
    "rposst-lp": "LP-exact per-tuple CVaR",
    "rposst-milp": "MILP-exact joint CVaR",
    "rposst-kofn": "k-of-N RPOSST_seq (sampled, SR)",
    "minimax-uniform": "minimax uniform",
    "minimax-ttd": "minimax(TTD) uniform",
    "minimax-tnp": "minimax(TNP) uniform",
    "minimax-tnp-mean": "minimax(TNP) uniform, mean over targets",
    "miniaverage": "miniaverage uniform",
    "iterative-minimax": "iterative minimax",
}


def holdout_size(fraction: float, n: int) -> int:
    """h = round(f·n) with round-half-up (spec 05 §11.2)."""
    return int(np.floor(fraction * n + 0.5))


@dataclass(frozen=True)
class DesignEvaluation(ResultMixin):
    """The protocol table of spec 05 §11.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (m, method): ``mean_max_error`` (the paper's headline), ``se_max_error``,
        ``mean_error``, ``mean_train_loss`` (training CVaR_η), ``top_errors`` (the sorted-error curve's
        first `top` ranks), ``curve`` (the whole sorted-error curve, mean over holdout sets rank by rank),
        ``modal_test`` and ``modal_share`` (the most frequent test and how often it was chosen).
    per_set : pandas.DataFrame
        One row per (m, method, holdout set): max and mean holdout error, training loss, chosen test.
    """

    RESULT_KIND = "test-designs"

    table: pd.DataFrame
    per_set: pd.DataFrame
    m: list[int]
    methods: list[str]
    holdout: float
    holdout_size: int
    n_tuning: int
    sets: int
    seed: Any
    eta: float
    betas: list[float]
    rounds: int
    n_test_cases: int
    n_policies: int

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        out["seed"] = self.seed if isinstance(self.seed, (int, type(None))) else str(self.seed)
        return out


def _as_ms(m: Any) -> list[int]:
    if isinstance(m, str):
        m = [v for v in m.split(",") if v.strip()]
    if isinstance(m, (list, tuple, np.ndarray)):
        return [check_positive_int("m", v) for v in m]
    return [check_positive_int("m", m)]


def _evaluate_set(sm: Any, s: int, hold: np.ndarray, ms: list[int], methods: list[str], tuples_by_m: dict[int, Any],
                  beta_values: Any, eta: float, rounds: int, k: int, n_samples: int,
                  kofn_seeds: Sequence[np.random.SeedSequence]) -> list[dict[str, Any]]:
    """Every (m, method) row of one holdout set; a pure function of its arguments (one task)."""
    records: list[dict[str, Any]] = []
    tuning = np.setdiff1d(np.arange(sm.shape[1]), hold)
    scaled, _, _ = sm.scaled(tuning)
    A, Ah = scaled[:, tuning], scaled[:, hold]
    targets = _core.softmax_targets(A, beta_values)
    problem = _core.make_problem(A, targets)
    for mi, mm in enumerate(ms):
        tuples = tuples_by_m.get(mm)
        for method in methods:
            chosen = method
            if method in SELECT_RULES:
                rule = SELECT_RULES[method]
                cases, weights, info = cv_design(problem, mm, eta, beta_values, "rm+", rounds, rule.candidates,
                                                 repeats=rule.repeats, rng=fresh_generator(kofn_seeds[mi]),
                                                 tuples=tuples)
                chosen = info["chosen"]
            elif method in _RPOSST:
                out = design(problem, mm, eta, _RPOSST[method], rounds, tuples=tuples, k=k,
                             n_samples=n_samples, rng=fresh_generator(kofn_seeds[mi]))
                cases, weights = np.asarray(out["cases"]), np.asarray(out["weights"])
            elif method == "iterative-minimax":
                cases, weights = _core.iterative_minimax(A, targets, mm)
            else:
                cases = tuples[_core.uniform_baseline(method, A, targets, tuples)]
                weights = np.full(mm, 1.0 / mm)
            train = float(_core.evaluate_weights(problem, cases[None, :], weights[None, :], eta)[0])
            err = _core.pair_errors(Ah, targets, cases, weights).ravel()
            records.append({"m": mm, "method": method, "set": s, "max_error": float(err.max()),
                            "mean_error": float(err.mean()), "train_loss": train,
                            "test": "+".join(sm.test_cases[i] for i in cases), "design": chosen,
                            "weights": [round(float(w), 6) for w in weights], "_curve": np.sort(err)[::-1]})
    return records


@keyword_only(("m", "methods", "holdout", "sets", "seed"))
@validated("evaluate_test_designs")
def evaluate_test_designs(matrix: Any, *, m: int | Sequence[int] = 2, methods: Sequence[str] | str | None = None,
                          holdout: float = 0.2, sets: int = 100, seed: Any = 0, eta: float = 0.01,
                          betas: Sequence[float] | str = (0, 1, 2, 4), rounds: int = 300, top: int = 4,
                          k: int = 1, n_samples: int = 100, backend: str | None = None, jobs: int = 1,
                          scheduler: Any = None, progress: Any = None) -> DesignEvaluation:
    """Compare test-design methods on random policy holdouts (spec 05 §11).

    For each of `sets` holdout sets of h = round(holdout·n) policy columns (drawn from
    ``numpy.random.default_rng(seed)``; the holdout policies' rows stay test cases), every method composes
    a test from the tuning columns (min–max rescaled on them; the same map applied to the holdout columns,
    not clipped), and the test is scored on the 4h (holdout policy, target) pairs.

    Parameters
    ----------
    matrix : path, DataFrame, ScoreMatrix or 2-D array
        Test-result matrix (rows = test cases, columns = policies).
    m : int or sequence of int
        Test size(s).
    methods : sequence of str, optional
        Any of ``cv`` (what :func:`compose_test` returns by default: the design chosen by nested holdout over
        the tuning policies only; ``per_set["design"]`` and ``table["designs"]`` name the chosen designs),
        ``cv-rposst`` (the earlier selection rule, ``select="cv-rposst"``), ``rposst`` (RM+), ``rposst-lp``,
        ``rposst-milp``, ``rposst-kofn``, ``minimax-uniform``, ``minimax-ttd``, ``minimax-tnp``,
        ``minimax-tnp-mean``, ``miniaverage``, ``iterative-minimax``.
        Default: ``cv``, RPOSST (RM+) and the five baselines of the paper.
    holdout : float
        Fraction of policies held out, in (0, 1).
    sets : int
        Number of random holdout sets.
    seed : int or Generator
        Seed of the holdout draws (and of the sampled k-of-N variant).
    eta, betas, rounds :
        As in :func:`compose_test`.
    top : int
        How many ranks of the sorted-error curve are shown in ``top_errors``.
    k, n_samples :
        k-of-N parameters of ``rposst-kofn``.
    backend, jobs, scheduler, progress :
        Where the holdout sets run, one task per set (see :func:`certirank._parallel.run_tasks`); the sets
        are drawn here and each task gets its own k-of-N seeds, so results are identical on every backend.

    Returns
    -------
    DesignEvaluation
    """
    sm = as_score_matrix(matrix)
    n_cases, n_pol = sm.shape
    ms = _as_ms(m)
    for mm in ms:
        check_m(mm, n_cases)
    if methods is None:
        methods = DEFAULT_METHODS
    elif isinstance(methods, str):
        methods = [v for v in methods.split(",") if v.strip()]
    methods = [check_choice("method", v, METHODS) for v in methods]
    if not methods:
        raise ParameterError("give at least one method")
    eta = check_eta(eta)
    beta_values = check_betas(betas)
    rounds = check_positive_int("rounds", rounds, minimum=0)
    sets = check_positive_int("sets", sets)
    top = check_positive_int("top", top)
    try:
        holdout = float(holdout)
    except (TypeError, ValueError):
        raise ParameterError(f"holdout must be a fraction in (0, 1), got {holdout!r}") from None
    if not 0.0 < holdout < 1.0:
        raise ParameterError(f"holdout must be a fraction in (0, 1), got {holdout!r}")
    h = holdout_size(holdout, n_pol)
    if h < 1 or h > n_pol - 1:
        raise ParameterError(f"holdout = {holdout:g} of {n_pol} policies gives {h} held-out policies; "
                             "need at least one held-out and one tuning policy")
    for mm in ms:
        if item_scale(n_cases, mm) and any(x not in ("rposst-milp", "iterative-minimax") for x in methods):
            raise ParameterError(f"C({n_cases}, {mm}) tuples is too many for exhaustive search; at item scale "
                                 "use evaluate_item_designs (compose-test --evaluate does so by itself)")

    resolve_backend(backend, jobs, scheduler)
    rng = as_generator(seed)
    holdouts = [np.sort(rng.choice(n_pol, size=h, replace=False)) for _ in range(sets)]
    # the sampled k-of-N variant gets its own child stream per (set, m) so other methods don't shift it
    kofn_seeds = np.random.SeedSequence(rng.integers(2**63)).spawn(sets * len(ms))
    tuples_by_m = {mm: _core.all_tuples(n_cases, mm) for mm in ms
                   if any(x not in ("rposst-milp", "iterative-minimax") for x in methods)}

    tasks = [(sm, s, hold, ms, methods, tuples_by_m, beta_values, eta, rounds, k, n_samples,
              kofn_seeds[s * len(ms):(s + 1) * len(ms)]) for s, hold in enumerate(holdouts)]
    records: list[dict[str, Any]] = []
    curves: dict[tuple[int, str], list[np.ndarray]] = {}
    for recs in run_tasks(_evaluate_set, tasks, backend=backend, jobs=jobs, scheduler=scheduler, progress=progress):
        for rec in recs:
            curves.setdefault((rec["m"], rec["method"]), []).append(rec.pop("_curve"))
            records.append(rec)
    per_set = pd.DataFrame.from_records(records)
    rows = []
    for (mm, method), curve_list in curves.items():
        sub = per_set[(per_set["m"] == mm) & (per_set["method"] == method)]
        curve = np.mean(np.vstack(curve_list), axis=0)
        modal = sub["test"].value_counts()
        rows.append({
            "m": mm, "method": method, "label": LABELS[method],
            "mean_max_error": float(sub["max_error"].mean()),
            "se_max_error": float(sub["max_error"].std(ddof=1) / np.sqrt(len(sub))) if len(sub) > 1 else None,
            "mean_error": float(sub["mean_error"].mean()),
            "mean_train_loss": float(sub["train_loss"].mean()),
            "top_errors": [float(v) for v in curve[:top]],
            "curve": [float(v) for v in curve],
            "modal_test": str(modal.index[0]), "modal_share": float(modal.iloc[0] / len(sub)),
            "designs": {str(k): float(v) for k, v in sub["design"].value_counts(normalize=True).items()},
        })
    table = pd.DataFrame.from_records(rows)
    return DesignEvaluation(table=table, per_set=per_set, m=ms, methods=list(methods), holdout=holdout,
                            holdout_size=h, n_tuning=n_pol - h, sets=sets,
                            seed=seed if isinstance(seed, (int, np.integer)) or seed is None else str(seed),
                            eta=eta, betas=[float(b) for b in beta_values], rounds=rounds,
                            n_test_cases=n_cases, n_policies=n_pol)
