"""In which order whole data are read (spec 09 §3-§5), and the check of a file read as it is (§4).

A sequential test is valid only for data read in an order that carries no information about the outcomes.
Files are often sorted (by task, difficulty, date), so data that arrive whole -- a file, a table, arrays --
are read in a **seeded uniformly random order of their pairing units** by default (seed 0), unless the run
order is known: a column the user names (``order_by``) or one named ``order`` (given in the file), ``time`` or
``timestamp`` (recognised and announced). ``order="given"`` keeps the recorded order and runs the order check:
Spearman's rho between row position and each policy's score (and, for a pair, the paired difference); any
p < 0.01 gives one warning line.

A pairing unit keeps together what must stay paired: a row of a wide table; all rows sharing (env/item,
replicate) in a long table; the n-th trial of every policy when there are no environment labels.

:class:`ReadOrder` is the plan (fixed before any row is read: kind, seed, column, number of orders);
:func:`read_order` resolves it for a table; :func:`arrange` rewrites the table's ``order`` column so that every
reader (``to_wide``, the panels of a leaderboard) lays the units out in that order; :func:`order_check` is
the check of §4.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..errors import DataError, ParameterError

__all__ = ["ReadOrder", "read_order", "arrange", "order_check", "ORDER_COLUMNS", "given_order", "arrival_order",
           "permutation", "seeds_of"]

#: column names recognised as the run order (``order`` only when the file gave it)
ORDER_COLUMNS = ("order", "time", "timestamp")
#: p-value under which the order check warns (spec 09 §4)
CHECK_LEVEL = 0.01


@dataclass(frozen=True)
class ReadOrder:
    """How rows are read: ``kind`` "random" (seeded permutation of pairing units; ``orders`` > 1 averages that
    many, with seeds ``seed``, ``seed + 1``, ...), "given" (as recorded), "column" (sorted by ``column``, the
    run order) or "arrival" (live data, never reordered)."""

    kind: str
    seed: int | None = None
    column: str | None = None
    orders: int = 1
    announced: bool = False  # the column was recognised by its name (not named by the user)

    def to_dict(self) -> dict[str, Any]:
        """The record's ``inputs.order``."""
        if self.kind == "random":
            out: dict[str, Any] = {"kind": "random", "seed": int(self.seed or 0)}
            if self.orders > 1:
                out["orders"] = int(self.orders)
            return out
        if self.kind == "column":
            return {"kind": "column", "column": self.column}
        return {"kind": self.kind}

    def sentence(self, what: str = "rows") -> str:
        """How the data were read, in words ("rows read in a random order (seed 0)")."""
        if self.kind == "random":
            if self.orders > 1:
                return (f"averaged over {self.orders} random orders of the {what} (seeds {self.seed} to "
                        f"{int(self.seed or 0) + self.orders - 1})")
            return f"{what} read in a random order (seed {self.seed})"
        if self.kind == "column":
            return (f"{what} read in the order of column {self.column!r}"
                    + (" (recognised as the run order by its name)" if self.announced else " (the run order)"))
        if self.kind == "given":
            return f"{what} read in file order"
        return "data read in arrival order"


def given_order() -> ReadOrder:
    return ReadOrder("given")


def arrival_order() -> ReadOrder:
    return ReadOrder("arrival")


def seeds_of(plan: ReadOrder) -> list[int]:
    """The seed of each random order of the plan (one for ``orders = 1``)."""
    base = int(plan.seed or 0)
    return [base + k for k in range(max(1, plan.orders))]


def permutation(n: int, seed: int) -> np.ndarray:
    """The seeded uniformly random order of ``n`` units (the same for the same seed, on any machine)."""
    return np.random.default_rng(int(seed)).permutation(int(n))


def _check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or int(seed) < 0:
        raise ParameterError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def read_order(table: pd.DataFrame | None = None, *, order: str = "random", seed: int = 0,
               order_by: str | None = None, orders: int = 1) -> ReadOrder:
    """The order a table (or, with ``table=None``, arrays) will be read in; see the module docstring.

    Raises ``ParameterError`` for an unknown ``order``, ``orders`` < 1 or ``orders`` with a fixed order, and
    ``DataError`` naming the column when ``order_by`` is not in the table or cannot be sorted.
    """
    if order not in ("random", "given"):
        raise ParameterError(f"order must be random or given (file), got {order!r}")
    seed = _check_seed(seed)
    if isinstance(orders, bool) or not isinstance(orders, (int, np.integer)) or int(orders) < 1:
        raise ParameterError(f"orders must be an integer >= 1, got {orders!r}")
    orders = int(orders)
    if order_by is not None:
        if order == "given":
            raise ParameterError("order_by (--order-by) reads the rows in that column's order; order='given' "
                                 "(--order file) reads them as recorded: give one")
        if table is None:
            raise ParameterError("order_by (--order-by) names a column of a table; arrays have none")
        col = _column(table, order_by)
        _sort_keys(table, col)  # refuses a column that cannot be sorted, naming it
        plan = ReadOrder("column", column=col)
    elif order == "given":
        plan = ReadOrder("given")
    else:
        found = None if table is None else _recognised(table)
        plan = ReadOrder("column", column=found, announced=True) if found else ReadOrder("random", seed=seed,
                                                                                           orders=orders)
    if orders > 1 and plan.kind != "random":
        raise ParameterError(f"orders (--orders) averages over random orders, but here the {plan.sentence()} "
                             "(drop --orders, or --order-by / --order file)")
    return plan


def _column(table: pd.DataFrame, name: str) -> str:
    if name in table.columns:
        return name
    low = {str(c).strip().lower(): c for c in table.columns}
    if str(name).strip().lower() in low:
        return str(low[str(name).strip().lower()])
    shown = ", ".join(repr(c) for c in table.columns if c not in ("order",))
    raise DataError(f"no column {name!r} to read the rows in order of (--order-by); the table has {shown}",
                    source=table.attrs.get("source"), column=str(name))


def _recognised(table: pd.DataFrame) -> str | None:
    """A column named as the run order: ``order`` when the file gave it, else ``time`` / ``timestamp``."""
    if table.attrs.get("order_column"):
        return "order"
    for c in table.columns:
        if str(c).strip().lower() in ("time", "timestamp"):
            return str(c)
    return None


def _sort_keys(table: pd.DataFrame, column: str) -> np.ndarray:
    """The column as sortable keys: numbers, or dates and times; anything else is refused, naming the column."""
    s = table[column]
    src = table.attrs.get("source")
    if s.isna().any():
        i = int(np.flatnonzero(s.isna().to_numpy())[0])
        raise DataError(f"column {column!r} has a missing value; every row needs its place in the run order",
                        source=src, row=i, column=column)
    if pd.api.types.is_bool_dtype(s):
        raise DataError(f"column {column!r} holds true/false values, not a run order; name a column of numbers "
                        "or dates", source=src, column=column)
    if pd.api.types.is_numeric_dtype(s):
        return s.to_numpy(dtype=float)
    if pd.api.types.is_datetime64_any_dtype(s):
        return s.to_numpy(dtype="datetime64[ns]").astype("int64").astype(float)
    nums = pd.to_numeric(s, errors="coerce")
    if nums.notna().all():
        return nums.to_numpy(dtype=float)
    try:
        times = pd.to_datetime(s.astype(str), errors="raise", format="mixed")
    except (ValueError, TypeError):
        bad = s[nums.isna()].iloc[0]
        raise DataError(f"column {column!r} cannot be sorted as a run order: {bad!r} is neither a number nor a "
                        "date", source=src, column=column) from None
    return times.to_numpy(dtype="datetime64[ns]").astype("int64").astype(float)


def _units(table: pd.DataFrame) -> pd.Series:
    """The pairing unit of every row: (env, replicate); without env labels, (the n-th trial of each policy,
    replicate) as the wide view pairs them."""
    t = table.sort_values("order", kind="stable")
    rep = t["replicate"].astype(str) if "replicate" in t.columns else pd.Series("0", index=t.index)
    if "env" in t.columns and t["env"].notna().all():
        env = t["env"].astype(str)
    else:
        env = t.groupby(["policy", rep], sort=False).cumcount().astype(str)
    return (env + "\x1f" + rep).reindex(table.index)


def arrange(table: pd.DataFrame, plan: ReadOrder, k: int = 0) -> pd.DataFrame:
    """The table with its ``order`` column rewritten so that its pairing units come in the plan's order (the
    ``k``-th random order when ``orders`` > 1); the table itself is unchanged. Rows of one unit keep their
    recorded order among themselves."""
    if plan.kind in ("given", "arrival"):
        return table
    units = _units(table)
    pos = table["order"].to_numpy()
    first = pd.Series(pos, index=table.index).groupby(units.to_numpy()).min().sort_values(kind="stable")
    names = first.index.to_numpy()
    if plan.kind == "random":
        ranked = names[permutation(names.size, seeds_of(plan)[k])]
    else:
        keys = pd.Series(_sort_keys(table, str(plan.column)), index=table.index).groupby(units.to_numpy()).min()
        ranked = keys.reindex(names).sort_values(kind="stable").index.to_numpy()
    rank = pd.Series(np.arange(ranked.size), index=ranked)
    span = int(pos.max()) + 1 if pos.size else 1
    out = table.copy()
    out["order"] = rank.reindex(units.to_numpy()).to_numpy().astype("int64") * span + pos
    out.attrs = dict(table.attrs)
    out.attrs.pop("validated", None)
    return out


def _spearman(position: np.ndarray, values: np.ndarray) -> tuple[float, float] | None:
    from scipy.stats import spearmanr
    ok = ~np.isnan(values)
    x, y = position[ok], values[ok]
    if y.size < 3 or np.ptp(y) == 0:
        return None
    res = spearmanr(x, y)
    rho, p = float(res.statistic), float(res.pvalue)
    return None if not np.isfinite(rho) or not np.isfinite(p) else (rho, p)


def _trend_line(who: str, what: str, rho: float, p: float) -> str:
    return (f"{who}: {what} trend with row order (rho = {rho:.2f}, p = {p:.1g}): the file looks sorted; drop "
            "--order file (order='given') to read rows in a random order")


def order_check(wide: pd.DataFrame, pairs: Sequence[tuple[str, str]] = ()) -> list[str]:
    """Spec 09 §4 on a wide table read in file order (rows = pairing units in that order): one line per policy
    whose scores trend with row position (Spearman, two-sided p < 0.01), and per pair in ``pairs`` whose paired
    difference does."""
    pos = np.arange(len(wide), dtype=float)
    out = []
    for name in wide.columns:
        found = _spearman(pos, wide[name].to_numpy(dtype=float))
        if found is not None and found[1] < CHECK_LEVEL:
            out.append(_trend_line(str(name), "scores", *found))
    for a, b in pairs:
        d = wide[b].to_numpy(dtype=float) - wide[a].to_numpy(dtype=float)
        found = _spearman(pos, d)
        if found is not None and found[1] < CHECK_LEVEL:
            out.append(_trend_line(f"{b} - {a}", "paired differences", *found))
    return out
