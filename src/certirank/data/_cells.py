"""Per-cell functions applied once per distinct value: a long table repeats each policy, item and outcome
thousands of times, so ``col.map(fn)`` over five million cells spends tens of seconds calling ``fn`` on the same
few thousand values."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["map_values", "label_codes"]

# pd.factorize of an Arrow-backed column, by the identity of its Arrow array: Arrow arrays never change (an edit
# makes a new one, and copies of a table share them), so the codes stay right for as long as the array lives. A
# 5-million-row label column costs 0.1-0.2 s to factorise, and reader, checks and panels each need its codes.
_CODES: dict[int, tuple[Any, np.ndarray, pd.Index]] = {}


def label_codes(col: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """``pd.factorize(col)`` (codes in order of first appearance, -1 for missing cells; read-only), computed once
    per Arrow array."""
    arr = getattr(col.array, "_pa_array", None)
    hit = _CODES.get(id(arr)) if arr is not None else None
    if hit is not None and hit[0]() is arr:
        return hit[1], hit[2]
    codes, uniques = pd.factorize(col)
    _remember(arr, codes, uniques)
    return codes, uniques


def _remember(arr: Any, codes: np.ndarray, uniques: pd.Index) -> None:
    if arr is None or len(codes) < 1000:
        return
    codes.flags.writeable = False  # shared by every caller
    key = id(arr)
    _CODES[key] = (weakref.ref(arr, lambda _, key=key: _CODES.pop(key, None)), codes, uniques)


def map_values(col: pd.Series, fn: Callable[[Any], Any]) -> pd.Series:
    """The values of ``col.map(fn)`` for a pure ``fn``, calling ``fn`` once per distinct value (and once per
    missing cell, since None, NaN and pd.NA may be told apart by ``fn``). Same values and index; the dtype is
    numpy's inference (``Series.map`` on an Arrow-backed column returns an Arrow dtype)."""
    # equal values must be the same value to fn: true within strings, integers or booleans, not across types
    # (1 == 1.0 == True) nor for floats (0.0 == -0.0, but str() tells them apart)
    if len(col) < 1000 or pd.api.types.infer_dtype(col, skipna=True) not in ("string", "integer", "boolean"):
        return col.map(fn)
    codes, uniques = label_codes(col)
    if len(uniques) * 4 > len(col):  # mostly distinct values: nothing to share
        return col.map(fn)
    mapped = [fn(v) for v in uniques]
    missing = np.flatnonzero(codes < 0)
    if not missing.size:
        if all(isinstance(v, (bool, np.bool_)) for v in mapped):
            return pd.Series(np.asarray(mapped, dtype=bool)[codes], index=col.index)
        if all(isinstance(v, str) for v in mapped):
            # taken as an Arrow string array: building one from millions of Python strings costs seconds
            if isinstance(col.dtype, pd.StringDtype) and mapped == list(uniques):
                out = col.astype("string")  # every text maps to itself: the same strings, no take
                _remember(getattr(out.array, "_pa_array", None), codes, pd.Index(uniques, dtype=out.dtype))
                return out
            out = pd.Series(pd.array(mapped, dtype="string").take(codes), index=col.index)
            # the new column's codes come from these (merged where fn maps two values to one)
            merged, names = pd.factorize(pd.Index(mapped, dtype=object))
            _remember(getattr(out.array, "_pa_array", None), merged[codes], pd.Index(names, dtype=out.dtype))
            return out
    values = np.empty(len(uniques) + 1, dtype=object)
    values[:-1] = mapped
    values = values[codes]  # code -1 (missing) picks the spare last slot, filled below
    if missing.size:
        raw = col.to_numpy(dtype=object)
        for i in missing:
            values[i] = fn(raw[i])
    return pd.Series(values, index=col.index, dtype=object).infer_objects()


def to_numbers(col: pd.Series) -> pd.Series:
    """``pd.to_numeric(col, errors="coerce")``, parsing each distinct text once (a score or replicate column of
    a long file holds a handful of distinct strings in millions of cells). Same values and dtype: the distinct
    values decide the dtype as the whole column would."""
    if len(col) < 1000 or pd.api.types.is_numeric_dtype(col) or \
            pd.api.types.infer_dtype(col, skipna=True) != "string":
        return pd.to_numeric(col, errors="coerce")
    codes, uniques = pd.factorize(col, use_na_sentinel=True)
    if len(uniques) * 4 > len(col):
        return pd.to_numeric(col, errors="coerce")
    parsed = pd.to_numeric(pd.Series(uniques, dtype=col.dtype), errors="coerce").to_numpy()
    if (codes < 0).any():
        values = np.where(codes < 0, np.nan, parsed[codes].astype("float64"))
    else:
        values = parsed[codes]
    return pd.Series(values, index=col.index)
