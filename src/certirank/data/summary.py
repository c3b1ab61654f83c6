"""A per-policy summary of an evaluation (or preference) table: what `certirank inspect` prints."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..errors import DataError
from ..results import ResultMixin
from .preferences import PREFERENCE_COLUMNS
from .table import policies as table_policies

__all__ = ["InspectResult", "summarize"]


@dataclass(frozen=True)
class InspectResult(ResultMixin):
    """Summary of a loaded table.

    Attributes
    ----------
    source:
        File the table came from (None for an in-memory table).
    format:
        Detected layout or importer (``long``, ``wide``, ``preferences``, ``lm-eval``, ``inspect``).
    n_observations:
        Rows of the table (observations; comparisons for preference data).
    n_envs:
        Distinct environments/items (None if the table has no env labels, and for preference data).
    n_replicates:
        Distinct replicates (1 for single-run data; None for preference data).
    policies:
        One dict per policy, in order of first appearance: ``policy``, ``count`` (observations), ``mean`` and
        ``std`` (sample standard deviation, ddof = 1; None with a single observation) of the score, and
        ``missing`` = number of environments of the table in which the policy has no score. For
        preference data ``count`` is the number of comparisons the policy took part in, ``mean``/``std`` are
        of its points per comparison (win 1, tie 0.5, loss 0), and ``missing`` is the number of other
        policies it was never compared with.
    early_stopping:
        For inspect_ai logs of runs stopped early by an early-stopping manager: one dict per such log
        (``source``, ``model``, ``task``, ``manager``, ``stopped`` sample-epochs, ``metadata``). Stopped samples
        are absent by design and are not counted as errors; they do count as ``missing`` environments.
    """

    RESULT_KIND = "inspect"

    source: str | None
    format: str
    n_observations: int
    n_envs: int | None
    n_replicates: int | None
    policies: list[dict[str, Any]] = field(default_factory=list)
    early_stopping: list[dict[str, Any]] | None = None


def summarize(table: pd.DataFrame) -> InspectResult:
    """Summarise a table returned by `load` (evaluation or preference table)."""
    if not isinstance(table, pd.DataFrame):
        raise DataError(f"expected a table (pandas DataFrame), got {type(table).__name__}")
    source = table.attrs.get("source")
    if set(PREFERENCE_COLUMNS) <= set(table.columns):
        return _summarize_preferences(table, source)
    if not {"policy", "score", "env"} <= set(table.columns):
        raise DataError("not a validated evaluation table (missing policy/env/score columns); load it with "
                        "certirank.load first", source=source)
    fmt = table.attrs.get("format", "long")
    names = table_policies(table)
    has_env = bool(table["env"].notna().all())
    if has_env:
        n_envs: int | None = int(table["env"].nunique())
        envs_of = table.groupby("policy", sort=False)["env"].nunique()
    else:
        n_envs = None
    stats = table.groupby("policy", sort=False)["score"].agg(["count", "mean", "std"])
    # Without env labels, row j is the j-th trial of each policy (as in to_wide): the table spans as many
    # rows as the longest policy has trials.
    span = n_envs if has_env else (int(stats["count"].max()) if len(stats) else 0)
    rows = []
    for name in names:
        count = int(stats.at[name, "count"])
        std = float(stats.at[name, "std"])
        covered = int(envs_of[name]) if has_env else count
        rows.append({"policy": name, "count": count, "mean": float(stats.at[name, "mean"]),
                     "std": std if count > 1 and np.isfinite(std) else None, "missing": int(span - covered)})
    return InspectResult(source=source, format=str(fmt), n_observations=int(len(table)), n_envs=n_envs,
                         n_replicates=int(table["replicate"].nunique()) if "replicate" in table else 1,
                         policies=rows, early_stopping=_early_stopping(table))


def _early_stopping(table: pd.DataFrame) -> list[dict[str, Any]] | None:
    runs = table.attrs.get("early_stopping")
    if not runs:
        return None
    # the per-sample id list is long and already implied by the table; the summary keeps the count
    return [{k: v for k, v in r.items() if k != "early_stops"} for r in runs]


def _summarize_preferences(table: pd.DataFrame, source: str | None) -> InspectResult:
    a = table["policy_a"].astype(str).to_numpy()
    b = table["policy_b"].astype(str).to_numpy()
    pref = table["preference"].to_numpy(dtype="float64")
    names = list(dict.fromkeys(np.ravel(np.column_stack([a, b])).tolist()))
    rows = []
    for name in names:
        points = np.concatenate([1.0 - pref[a == name], pref[b == name]])
        opponents = set(b[a == name]) | set(a[b == name])
        rows.append({"policy": name, "count": int(len(points)), "mean": float(points.mean()),
                     "std": float(points.std(ddof=1)) if len(points) > 1 else None,
                     "missing": int(len(names) - 1 - len(opponents))})
    return InspectResult(source=source, format="preferences", n_observations=int(len(table)), n_envs=None,
                         n_replicates=None, policies=rows)
