"""Rows of the validity battery for the estimand and the order whole data are read in (spec 09 §8, issue 30
item 6): a sorted table read in the default random order (must hold alpha), the same tables read in file order
(the order check must warn whenever the replay errs), and claims about the table itself (``about="table"``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .validation import Check, register_check

#: rows of each sorted table (spec 09 §8: 2 x 200)
ROWS = 200


def _sorted_pair(rng: np.random.Generator, n: int = ROWS) -> tuple[np.ndarray, np.ndarray]:
    """Two equal policies (Bernoulli(0.5) each), the rows sorted so that A's successes come first."""
    a = (rng.random(n) < 0.5).astype(float)
    b = (rng.random(n) < 0.5).astype(float)
    rows = np.argsort(-a, kind="stable")
    return a[rows], b[rows]


def _default_order(alpha: float, n: int, seed: int) -> np.ndarray:
    """``compare`` (the test ``rank`` runs on each pair) on sorted columns read in the default order (a seeded
    random order of the rows): any claim is false (the policies are equal)."""
    from ..methods.compare import compare
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        a, b = _sorted_pair(rng)
        res = compare(a, b, alpha, bins="binary", seed=int(rng.integers(2**31)))
        out.append(bool(res.ranking.relations))
    return np.array(out, dtype=bool)


def _file_order_silent(alpha: float, n: int, seed: int) -> np.ndarray:
    """The same tables read in file order (``order="given"``): the replay is not covered by the guarantee (the
    rows are sorted), so the error counted is a false claim *without* the order check's warning."""
    from ..methods.compare import compare
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        res = compare(*_sorted_pair(rng), alpha, bins="binary", order="given")
        warned = any(w.startswith("warning:") and "trend with row order" in w for w in res.warnings)
        out.append(bool(res.ranking.relations) and not warned)
    return np.array(out, dtype=bool)


def _table_estimand(alpha: float, n: int, seed: int) -> np.ndarray:
    """``about="table"`` on tables whose three policies have exactly equal averages (each column a permutation
    of one set of 120 scores): certifying any pair is false."""
    from ..methods.shuffled import table_ranking
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        base = (rng.random(120) < 0.5).astype(float)
        table = pd.DataFrame({p: rng.permutation(base) for p in ("A", "B", "C")})
        out.append(bool(table_ranking(table, alpha, seed=int(rng.integers(2**31))).ranking.relations))
    return np.array(out, dtype=bool)


def _none(alpha: float, quick: bool) -> Any:  # these rows are not simulate() studies
    return None


for _check in (
    Check("order-default-sorted", f"2 equal policies, {ROWS} rows sorted so that one's successes come first, "
          "read in the default random order (spec 09 §8)", "compare[order=random]", _none,
          runs=_default_order),
    Check("order-file-sorted", "the same sorted tables read in file order (--order file): a false claim the "
          "order check did not warn about", "compare[order=given]", _none, runs=_file_order_silent),
    Check("about-table", "3 policies with exactly equal averages over a 120-row table, --about table (claims "
          "about the table's averages)", "table_ranking", _none, runs=_table_estimand),
):
    register_check(_check)
