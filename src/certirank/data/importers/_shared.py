"""What both importers use: the validation that re-locates an error to its file and line, and label helpers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from ...errors import DataError
from ..table import validate_table


def _validate_located(frame: pd.DataFrame, where: Sequence[Any], *, score_range: tuple[float, float] | None,
                      source: str, column: str | None) -> pd.DataFrame:
    """`validate_table`, with a failing row's error re-located to the file/line or sample it came from."""
    from ..readers import _bare_message

    try:
        return validate_table(frame, score_range=score_range, source=source, row_offset=0)
    except DataError as err:
        if err.row is None:
            raise
        loc = where[err.row]
        if isinstance(loc, tuple):
            raise DataError(_bare_message(err), source=loc[0], row=loc[1], column=column) from None
        raise DataError(_bare_message(err), source=loc, column=column) from None


def _names(v: str | Sequence[str]) -> set[str]:
    # --read-option task=a,b names several (task names hold no commas)
    return {t.strip() for t in v.split(",") if t.strip()} if isinstance(v, str) else set(v)


def _label(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v).strip()


def _sort_key(v: Any) -> tuple[int, Any]:
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return (0, v)
    s = str(v)
    return (0, int(s)) if s.isdigit() else (1, s)


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return f"an object (keys {', '.join(map(str, list(value)[:5]))})"
    return f"{value!r}"
