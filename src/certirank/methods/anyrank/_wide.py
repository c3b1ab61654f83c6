"""The wide per-trial frame a whole table is replayed from, in the order it is read (spec 09 §3), and what the
record says about that order (§4). Its own module: the single-order replay and the order average both read it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from ...errors import DataError
from ...results import note, warning


def read_wide(table: pd.DataFrame, plan: Any, policies: Sequence[str] | None = None, k: int = 0) -> pd.DataFrame:
    """The wide per-trial frame (rows = pairing units in the plan's order, columns = policies, NaN = not run)."""
    from ...data.order import arrange
    from ...data.table import to_wide
    return _select_columns(to_wide(arrange(table, plan, k)), policies)


def order_warnings(table: pd.DataFrame, plan: Any, wide: pd.DataFrame,
                   pairs: Sequence[tuple[str, str]] = ()) -> tuple[str, ...]:
    """What the record says about the order the rows were read in: a recognised run-order column (a note), or,
    for rows read in file order, the order check of spec 09 §4 (one warning per trending policy or pair)."""
    from ...data.order import order_check
    if plan.kind == "column" and plan.announced:
        return (note(plan.sentence()),)
    if plan.kind == "given":
        return tuple(warning(w) for w in order_check(wide, pairs))
    return ()


def _select_columns(wide: pd.DataFrame, policies: Sequence[str] | None) -> pd.DataFrame:
    if policies is None:
        return wide
    pols = [str(p) for p in policies]
    missing = [p for p in pols if p not in wide.columns]
    if missing:
        raise DataError(f"policy {', '.join(missing)} not found in the data; the data has: "
                        f"{', '.join(map(str, wide.columns))}")
    return wide[pols]
