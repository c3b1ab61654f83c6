"""Panel input of the BB-EDGE engine: every accepted shape of a replicate (or of a new model's replicates)
becomes a checked (models x items) score array in benchmark order, or a one-line DataError."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ...errors import DataError

__all__ = ["read_panel", "read_model_panels"]


def read_panel(panel: Any, models: list[str], items: list[str] | None,
               what: str = "replicate") -> tuple[np.ndarray, list[str], Any]:
    """One replicate's panel: (scores (len(models), N) in benchmark item order, item names, the replicate id
    the panel names, if any). ``items``: the benchmark's items (None before the first replicate)."""
    rep_id = None
    if isinstance(panel, pd.DataFrame):
        cols = {str(c).strip().lower(): c for c in panel.columns}
        if "score" in cols:
            from ...data.table import validate_table
            t = validate_table(panel, source=f"{what} panel")
            if t["env"].isna().any():
                raise DataError(f"the {what} panel needs an item column ('item' or 'env') to pair scores across "
                                "models")
            reps = t["replicate"].unique()
            if "replicate" in cols:
                if len(reps) != 1:
                    raise DataError(f"a {what} panel must hold one replicate; got replicate ids "
                                    f"{', '.join(map(str, sorted(reps)[:5]))}")
                rep_id = int(reps[0])
            wide = t.pivot(index="env", columns="policy", values="score")
            order = list(dict.fromkeys(t["env"]))
            wide = wide.reindex(index=order)
        else:
            wide = panel.copy()
            wide.index = [str(i) for i in wide.index]
            wide.columns = [str(c) for c in wide.columns]
        unknown = [c for c in wide.columns if c not in models]
        if unknown:
            raise DataError(f"the {what} panel has unknown model(s) {', '.join(map(repr, unknown[:5]))}; "
                            f"expected {', '.join(map(repr, models[:10]))}")
        absent = [m for m in models if m not in wide.columns]
        if absent:
            raise DataError(f"model(s) {', '.join(map(repr, absent[:5]))} have no scores in this {what}; every "
                            "model must be scored on every item in every replicate")
        item_names = [str(i) for i in wide.index]
        if items is not None:
            extra = [i for i in item_names if i not in set(items)]
            if extra:
                raise DataError(f"the {what} panel has item(s) not in the benchmark: "
                                f"{', '.join(map(repr, extra[:5]))}")
            wide = wide.reindex(index=items)
            item_names = list(items)
        arr = wide[models].to_numpy(dtype=float).T
    elif isinstance(panel, Mapping):
        unknown = [str(c) for c in panel if str(c) not in models]
        if unknown:
            raise DataError(f"the {what} panel has unknown model(s) {', '.join(map(repr, unknown[:5]))}")
        absent = [m for m in models if m not in {str(k) for k in panel}]
        if absent:
            raise DataError(f"model(s) {', '.join(map(repr, absent[:5]))} have no scores in this {what}; every "
                            "model must be scored on every item in every replicate")
        pm = {str(k): v for k, v in panel.items()}
        rows = [np.asarray(pm[m], dtype=float).reshape(-1) for m in models]
        if len({r.shape[0] for r in rows}) != 1:
            raise DataError(f"models have different numbers of item scores in this {what}: "
                            + ", ".join(f"{m}: {r.shape[0]}" for m, r in zip(models, rows)))
        arr = np.vstack(rows)
        item_names = items if items is not None else [str(i) for i in range(arr.shape[1])]
    else:
        try:
            arr = np.array(panel, dtype=float)
        except (TypeError, ValueError):
            raise DataError(f"a {what} panel must be a models x items array, a mapping model -> scores or a "
                            f"DataFrame, got {type(panel).__name__}") from None
        if arr.ndim == 1 and len(models) == 1:
            arr = arr[None, :]
        if arr.ndim != 2 or arr.shape[0] != len(models):
            raise DataError(f"a {what} panel array must have shape (models, items) = ({len(models)}, N), got "
                            f"{arr.shape}")
        item_names = items if items is not None else [str(i) for i in range(arr.shape[1])]
    if items is not None and arr.shape[1] != len(items):
        raise DataError(f"the {what} panel has {arr.shape[1]} items; the benchmark has {len(items)}")
    nan = np.isnan(arr)
    if nan.any():
        li, ii = np.nonzero(nan)
        m = models[int(li[0])]
        miss = [item_names[int(j)] for j in ii[li == li[0]]]
        raise DataError(f"model {m!r} is missing item(s) {', '.join(map(repr, miss[:5]))}"
                        f"{' and more' if len(miss) > 5 else ''} in this {what}; panels must be complete "
                        "(every model scored on every item)")
    bad = ~np.isfinite(arr) | (arr < 0) | (arr > 1)
    if bad.any():
        li, ii = np.nonzero(bad)
        raise DataError(f"score {arr[li[0], ii[0]]!r} of model {models[int(li[0])]!r} on item "
                        f"{item_names[int(ii[0])]!r} is outside [0, 1]")
    return arr, list(item_names), rep_id


def read_model_panels(name: str, panels: Any, items: list[str] | None, replicates: int) -> np.ndarray:
    """A new model's scores on every stored replicate of the epoch: (replicates, N), paired replicate r
    with r."""
    if isinstance(panels, pd.DataFrame):
        from ...data.table import validate_table
        df = panels.copy()
        if not ({"model", "policy"} & {str(c).lower() for c in df.columns}):
            df["model"] = name
        t = validate_table(df, source=f"model {name!r}")
        t = t[t["policy"] == name]
        ids = sorted(t["replicate"].unique())
        arrs = []
        for rid in ids:
            sub = t[t["replicate"] == rid]
            arr, _, _ = read_panel(sub.drop(columns=["replicate"]), [name], items, what=f"replicate {rid}")
            arrs.append(arr[0])
        rows = np.array(arrs) if arrs else np.zeros((0, len(items or [])))
    else:
        try:
            rows = np.array(panels, dtype=float)
        except (TypeError, ValueError):
            raise DataError(f"scores of model {name!r} must be an (replicates x items) array or a DataFrame")
        if rows.ndim == 1 and replicates == 1:
            rows = rows[None, :]
        if rows.ndim != 2 and not (rows.size == 0 and replicates == 0):
            raise DataError(f"scores of model {name!r} must be an (replicates x items) array, got shape "
                            f"{rows.shape}")
        for r in range(rows.shape[0] if rows.ndim == 2 else 0):
            read_panel(rows[r][None, :], [name], items, what=f"replicate {r + 1}")
    if rows.shape[0] != replicates:
        raise DataError(f"model {name!r} must come with one score vector per stored replicate of this epoch "
                        f"({replicates}), paired replicate r with r; got {rows.shape[0]}")
    if replicates and items is not None and rows.shape[1] != len(items):
        raise DataError(f"model {name!r} has {rows.shape[1]} item scores per replicate; the benchmark has "
                        f"{len(items)} items")
    return rows.reshape(replicates, -1) if replicates else rows
