"""Preference (pairwise comparison) tables: the one validation point for ``A,B,preference`` and Chatbot-Arena
``model_a,model_b,winner`` data, and the reader of such files."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._validate import check_choice
from ..errors import DataError, ParameterError
from .files import FILE_TYPES, _existing_path, _file_type, _is_missing, read_frame

__all__ = ["PREFERENCE_COLUMNS", "load_preferences", "validate_preferences"]

PREFERENCE_COLUMNS = ("policy_a", "policy_b", "preference")
_TIE_LABELS = frozenset({"tie", "tie (bothbad)", "both", "draw"})


def load_preferences(path: str | os.PathLike[str] | pd.DataFrame, format: str | None = None, *,
                     policies: Sequence[str] | None = None, **options: Any) -> pd.DataFrame:
    """Read a preference / battle table and return it validated (see `validate_preferences`).

    `format` may name the file type (``csv``, ``tsv``, ``parquet``, ``jsonl``, ``json``); the only layout
    accepted is ``preferences``.
    """
    fmt = None if format is None else check_choice("format", format, ("preferences",) + FILE_TYPES)
    if isinstance(path, pd.DataFrame):
        return validate_preferences(path, policies=policies, row_offset=0)
    p = _existing_path(path)
    source = str(path)
    if p.is_dir():
        raise DataError("is a folder; expected a preference table file (A,B,preference or "
                        "model_a,model_b,winner)", source=source)
    sep = options.pop("sep", None)
    if options:
        raise ParameterError(f"unknown option(s) for preference tables: {', '.join(sorted(options))} "
                             "(valid: policies, sep)")
    file_type = fmt if fmt in FILE_TYPES else _file_type(p)
    frame, row_offset = read_frame(p, file_type, sep=sep)
    table = validate_preferences(frame, policies=policies, source=source, row_offset=row_offset)
    table.attrs["file_type"] = file_type
    return table


def validate_preferences(frame: pd.DataFrame, policies: Sequence[str] | None = None, source: str | None = None,
                         *, row_offset: int = 2) -> pd.DataFrame:
    """Check and canonicalise a preference table; the one validation point for pairwise comparisons.

    Accepted layouts: ``A,B,preference`` or ``policy_a,policy_b,preference`` (preference 0 = A preferred,
    1 = B preferred, 0.5 = tie) and ``model_a,model_b,winner`` (winner ``model_a``, ``model_b``, ``tie``
    (also ``tie (bothbad)``), or the name of one of the two models).

    Parameters
    ----------
    frame:
        The raw table.
    policies:
        If given, every compared policy must be in this list.
    source:
        Name used in error messages.
    row_offset:
        Added to 0-based row positions in messages (2 = CSV line numbers).

    Returns
    -------
    pandas.DataFrame
        Columns ``policy_a``, ``policy_b`` (str) and ``preference`` (float64 in {0, 0.5, 1}), in file order;
        ``attrs["format"] == "preferences"``.
    """
    if not isinstance(frame, pd.DataFrame):
        raise DataError(f"expected a table (pandas DataFrame), got {type(frame).__name__}", source=source)
    cols = _preference_columns(frame.columns)
    if cols is None:
        found = ", ".join(repr(str(c)) for c in frame.columns) or "none"
        raise DataError(f"not a preference table: expected columns A,B,preference or model_a,model_b,winner; "
                        f"found {found}", source=source)
    a_col, b_col, v_col = cols
    if len(frame) == 0:
        raise DataError("the preference table is empty (no comparisons)", source=source)
    df = frame.reset_index(drop=True)
    names = {}
    for col in (a_col, b_col):
        raw = df[col]
        text = raw.map(lambda v: "" if _is_missing(v) else str(v).strip())
        bad = np.flatnonzero((text == "").to_numpy())
        if len(bad):
            raise DataError("empty policy name; every comparison names both sides", source=source,
                            row=int(bad[0]) + row_offset, column=str(col))
        names[col] = text.to_numpy(dtype=object)
    a, b = names[a_col], names[b_col]
    same = np.flatnonzero(a == b)
    if len(same):
        i = int(same[0])
        raise DataError(f"policy {a[i]!r} is compared with itself; a comparison needs two different policies",
                        source=source, row=i + row_offset)

    raw = df[v_col]
    pref = np.empty(len(df), dtype="float64")
    if str(v_col).strip().lower() == "winner":
        for i, w in enumerate(raw):
            label = "" if _is_missing(w) else str(w).strip()
            key = label.lower()
            if key in ("model_a", "policy_a", "a"):
                pref[i] = 0.0
            elif key in ("model_b", "policy_b", "b"):
                pref[i] = 1.0
            elif key in _TIE_LABELS:
                pref[i] = 0.5
            elif label == a[i]:
                pref[i] = 0.0
            elif label == b[i]:
                pref[i] = 1.0
            else:
                raise DataError(f"winner {label!r} is neither side of this comparison ({a[i]!r} vs {b[i]!r}); "
                                "expected 'model_a', 'model_b', 'tie' or one of the two names",
                                source=source, row=i + row_offset, column=str(v_col))
    else:
        num = pd.to_numeric(raw, errors="coerce").to_numpy(dtype="float64")
        for i in np.flatnonzero(~np.isin(num, (0.0, 0.5, 1.0))):
            v = raw.iloc[int(i)]
            what = "is empty; expected" if _is_missing(v) or not str(v).strip() else f"{v!r} is not"
            raise DataError(f"preference {what} 0 (A preferred), 1 (B preferred) or 0.5 (tie)",
                            source=source, row=int(i) + row_offset, column=str(v_col))
        pref[:] = num
    if policies is not None:
        allowed = {str(p) for p in policies}
        for col, side in ((a_col, a), (b_col, b)):
            unknown = np.flatnonzero([s not in allowed for s in side])
            if len(unknown):
                i = int(unknown[0])
                raise DataError(f"unknown policy {side[i]!r}; expected one of {', '.join(map(repr, policies))}",
                                source=source, row=i + row_offset, column=str(col))
    out = pd.DataFrame({"policy_a": pd.Series(a, dtype=object).astype(str),
                        "policy_b": pd.Series(b, dtype=object).astype(str), "preference": pref})
    out.attrs["source"] = source
    out.attrs["format"] = "preferences"
    return out


def _preference_columns(columns: Sequence[Any]) -> tuple[str, str, str] | None:
    by_lower = {str(c).strip().lower(): c for c in columns}
    for a, b, v in (("policy_a", "policy_b", "preference"), ("a", "b", "preference"),
                    ("model_a", "model_b", "winner"), ("policy_a", "policy_b", "winner")):
        if a in by_lower and b in by_lower and v in by_lower:
            return by_lower[a], by_lower[b], by_lower[v]
    return None
