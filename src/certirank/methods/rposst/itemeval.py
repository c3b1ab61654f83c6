"""Benchmark prediction from few items: composed tests against random-sample regression and anchor points.

For each of `sets` random splits of the models (policies) into tuning and held-out ones, every method picks
m items using the tuning models only and predicts each held-out model's full-benchmark score (the mean
over all items, i.e. the β = 0 target). Metrics on the held-out models: mean absolute error (MAE), max
error, and Kendall τ between the predicted and the full-benchmark ranking.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from scipy import stats

from ..._validate import as_generator, check_choice, check_positive_int
from ...errors import ParameterError
from ...results import Result, inputs
from . import _core, items
from .compose import compose_test
from .matrix import as_score_matrix
from .select import SELECT_RULES, fresh_generator

__all__ = ["ITEM_METHODS", "ItemEvaluation", "evaluate_item_designs"]

ITEM_METHODS = (*SELECT_RULES, "rposst", "miniaverage", "random", "random-regression", "anchor-points")
ITEM_LABELS = {
    "cv": "compose_test default (select=cv)",
    "cv-rposst": "earlier default (select=cv-rposst)",
    "rposst": "RPOSST, local search + LP weights (select=rposst)",
    "miniaverage": "miniaverage uniform, local search",
    "random": "random sample, sample mean",
    "random-regression": "random sample + linear regression",
    "anchor-points": "anchor points (k-medoids)",
}


@dataclass(frozen=True)
class ItemEvaluation(Result):
    """Per-method means (± s.e. over splits) of MAE, max error and Kendall τ on held-out models.

    ``table``: one row per method with ``mae``, ``se_mae``, ``max_error``, ``se_max_error``, ``kendall_tau``,
    ``se_kendall_tau``, ``seconds`` (mean wall time to choose the items), ``designs`` (for ``cv``: share of
    each chosen design). ``per_set``: one row per (method, split).
    """

    KIND: ClassVar[str] = "item-evaluation"

    table: pd.DataFrame
    per_set: pd.DataFrame
    m: int = inputs()
    methods: list[str] = inputs()
    holdout: float = inputs()
    holdout_size: int
    sets: int = inputs()
    seed: Any = inputs()
    n_items: int
    n_models: int


def evaluate_item_designs(matrix: Any, m: int = 50, methods: Sequence[str] | None = None, holdout: float = 0.2,
                          sets: int = 20, seed: Any = 0, *, eta: float = 0.01, folds: int = 5,
                          cv_metric: str = "max") -> ItemEvaluation:
    """Compare item-selection methods on random model holdouts (rows = items, columns = models).

    Scores are used as given (no rescaling), so errors are on the benchmark's own scale.
    """
    sm = as_score_matrix(matrix)
    n, p = sm.shape
    m = check_positive_int("m", m)
    if m >= n:
        raise ParameterError(f"m must be smaller than the number of items ({n}); got m = {m}")
    methods = list(ITEM_METHODS if methods is None else methods)
    methods = [check_choice("method", v, ITEM_METHODS) for v in methods]
    sets = check_positive_int("sets", sets)
    if not 0.0 < float(holdout) < 1.0:
        raise ParameterError(f"holdout must be a fraction in (0, 1), got {holdout!r}")
    h = int(np.floor(float(holdout) * p + 0.5))
    if h < 1 or p - h < 3:
        raise ParameterError(f"holdout = {holdout:g} of {p} models leaves {h} held out and {p - h} tuning; "
                             "need at least 1 and 3")
    rng = as_generator(seed)
    splits = [np.sort(rng.choice(p, size=h, replace=False)) for _ in range(sets)]
    method_seeds = np.random.SeedSequence(rng.integers(2**63)).spawn(sets)
    A = np.asarray(sm.raw, dtype=float)
    full = A.mean(axis=0)
    records = []
    for s, hold in enumerate(splits):
        tune = np.setdiff1d(np.arange(p), hold)
        At = A[:, tune]
        for method in methods:
            mrng = fresh_generator(method_seeds[s])
            design = method
            t0 = time.perf_counter()
            if method in (*SELECT_RULES, "rposst"):
                res = compose_test(At, m=m, eta=eta, betas=(0,), select=method, rescale=False, folds=folds,
                                   cv_metric=cv_metric, seed=mrng)
                pred = np.asarray(res.weights) @ A[res.test_indices]
                design = res.design
            elif method == "miniaverage":
                problem = _core.make_problem(At, np.full((1, n), 1.0 / n))
                cases, _ = items.search_support(problem, m, "miniaverage", eta, mrng)
                pred = A[cases].mean(axis=0)
            elif method == "random":
                pred = A[np.sort(mrng.choice(n, size=m, replace=False))].mean(axis=0)
            elif method == "random-regression":
                cases, a, b = items.random_regression(At, full[tune], m, mrng)
                pred = a + b * A[cases].mean(axis=0)
            else:
                cases, weights = items.anchor_points(At, m, mrng)
                pred = weights @ A[cases]
            seconds = time.perf_counter() - t0
            err = np.abs(pred[hold] - full[hold])
            tau = stats.kendalltau(pred[hold], full[hold]).statistic if h > 1 else np.nan
            records.append({"method": method, "set": s, "mae": float(err.mean()), "max_error": float(err.max()),
                            "kendall_tau": float(tau), "seconds": seconds, "design": design})
    per_set = pd.DataFrame.from_records(records)
    rows = []
    for method in methods:
        sub = per_set[per_set["method"] == method]
        row: dict[str, Any] = {"method": method, "label": ITEM_LABELS[method]}
        for col in ("mae", "max_error", "kendall_tau"):
            row[col] = float(sub[col].mean())
            row["se_" + col] = float(sub[col].std(ddof=1) / np.sqrt(len(sub))) if len(sub) > 1 else None
        row["seconds"] = float(sub["seconds"].mean())
        row["designs"] = {str(k): float(v) for k, v in sub["design"].value_counts(normalize=True).items()}
        rows.append(row)
    return ItemEvaluation(table=pd.DataFrame.from_records(rows), per_set=per_set, m=m, methods=methods,
                          holdout=float(holdout), holdout_size=h, sets=sets,
                          seed=seed if isinstance(seed, (int, np.integer)) or seed is None else str(seed),
                          n_items=n, n_models=p)
