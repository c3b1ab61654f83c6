"""What the readers share: outcome words, labels, and the final validation that names the file and line."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...errors import DataError
from ..table import validate_table

# Outcome words people write in rollout logs; anything else must be a number.
_TRUE = frozenset({"true", "t", "yes", "y", "success", "succeeded", "s", "pass", "passed", "correct"})
_FALSE = frozenset({"false", "f", "no", "n", "failure", "failed", "fail", "x", "incorrect"})
_BLANK = frozenset({"", "nan", "na", "n/a", "null", "none", "-"})


def is_blank(v: Any) -> bool:
    if v is None or v is pd.NA:
        return True
    if isinstance(v, float) and math.isnan(v):
        return True
    return isinstance(v, str) and v.strip().lower() in _BLANK


def outcome(v: Any) -> float | None:
    """A rollout outcome as a number (True/False words -> 1/0), or None if it is not one."""
    if isinstance(v, (bool, np.bool_)):
        return float(v)
    if isinstance(v, (int, float, np.integer, np.floating)):
        return float(v)
    text = str(v).strip().strip("\"'").strip().lower()
    if text in _TRUE:
        return 1.0
    if text in _FALSE:
        return 0.0
    try:
        return float(text)
    except ValueError:
        return None


def label(v: Any) -> str:
    """An item/environment label as text; integral floats (JSON 3.0, CSV blanks upcasting ints) lose their '.0'."""
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    return str(v).strip()


def name_set(v: str | Sequence[str]) -> set[str]:
    """Names given as a list or as one text with commas (``--read-option task=a,b``; task names hold no commas)."""
    return {t.strip() for t in v.split(",") if t.strip()} if isinstance(v, str) else set(v)


def sort_key(v: Any) -> tuple[int, Any]:
    """Sample ids in their natural order: numbers (and digit strings) first, by value, then text."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return (0, v)
    s = str(v)
    return (0, int(s)) if s.isdigit() else (1, s)


def describe(value: Any) -> str:
    """A JSON value as a message shows it (what a field holds when it is not the number expected)."""
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return f"an object (keys {', '.join(map(str, list(value)[:5]))})"
    return f"{value!r}"


# Where a raw row came from: (location, column). The location is a row/line number of the source, a
# (file, line) pair when several files feed one table, or a text such as "a.csv, line 4" / "x.eval samples/…".
Where = tuple[Any, Any]


def validate_located(frame: pd.DataFrame, where: Sequence[Where], *, source: str,
                     score_range: tuple[float, float] | None) -> pd.DataFrame:
    """`validate_table`, with a failing row's error re-located to the file, line and column it came from."""
    try:
        return validate_table(frame, score_range=score_range, source=source, row_offset=0)
    except DataError as err:
        if err.row is None or err.row >= len(where):
            raise
        loc, col = where[err.row]
        msg = err.bare_message()
        if isinstance(loc, tuple):
            raise DataError(msg, source=str(loc[0]), row=loc[1], column=col) from None
        if isinstance(loc, str):
            # a text location names its own file; name the source in front only if it does not already
            text = loc if str(source) in loc or Path(str(source)).name in loc else f"{source}, {loc}"
            located = DataError(msg, source=text, column=col)
            located.source = source
            raise located from None
        raise DataError(msg, source=source, row=loc, column=col) from None


def finish(rows: Mapping[str, list[Any]], where: Sequence[Where], *, source: str,
           score_range: tuple[float, float] | None, notes: Sequence[str] = ()) -> pd.DataFrame:
    """Validate the raw long frame a reader built (errors located through `where`) and keep its notes."""
    frame = pd.DataFrame(dict(rows))
    if len(frame) == 0:
        raise DataError("no observations found", source=source)
    table = validate_located(frame, where, source=source, score_range=score_range)
    table.attrs["notes"] = list(notes)
    return table
