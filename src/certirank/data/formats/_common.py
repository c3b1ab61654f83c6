"""Helpers shared by the format readers: outcome values, label text, the final validation step."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...errors import DataError
from ..readers import _bare_message
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
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    return str(v).strip()


def finish(rows: dict[str, list[Any]], where: Sequence[tuple[Any, Any]], *, source: str,
           score_range: tuple[float, float] | None, notes: Sequence[str] = (),
           unit: str = "row") -> pd.DataFrame:
    """Validate a raw long frame built by a reader; errors point back at ``where[i] = (location, column)``.

    ``location`` is a row/line number or a text such as "file.csv, line 4" (then `unit` is not used).
    """
    frame = pd.DataFrame(rows)
    if len(frame) == 0:
        raise DataError("no observations found", source=source)
    try:
        table = validate_table(frame, score_range=score_range, source=source, row_offset=0)
    except DataError as err:
        if err.row is None or err.row >= len(where):
            raise
        loc, col = where[err.row]
        msg = _bare_message(err)
        if isinstance(loc, str):
            # a text location names its own file when several files feed one table: name the file once
            where = loc if str(source) in loc or Path(str(source)).name in loc else f"{source}, {loc}"
            err = DataError(msg, source=where, column=col)
            err.source = source
            raise err from None
        raise DataError(msg, source=source, row=loc, column=col) from None
    table.attrs["notes"] = list(notes)
    return table
