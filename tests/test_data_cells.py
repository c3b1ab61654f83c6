"""Per-distinct-value cell functions (data/_cells.py) give the values of the per-cell code they replace."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from certirank.data._cells import map_values, to_numbers
from certirank.data.readers import _cell_word, _is_missing
from certirank.data.table import _label

FUNCS = {
    "guard": lambda v: isinstance(v, str) and v[:1] == "'",
    "word": _cell_word,
    "name": lambda v: "" if _is_missing(v) else str(v).strip().lower(),
    "label": lambda v: pd.NA if pd.isna(v) else _label(v),
}


def _columns():
    csv = "s\n" + "TRUE\n0.5\n\n1\n'=x\n 7 \nyes\n50%\n" * 400
    read = pd.read_csv(io.StringIO(csv), dtype=str, keep_default_na=False, na_values=[""])["s"]
    return {
        "csv strings with blanks": read,
        "object strings": pd.Series(["a", "B ", None, "a", "total"] * 400, dtype=object),
        "integers": pd.Series([1, 2, 3, 2] * 500),
        "mixed types": pd.Series([1, "1", 1.0, True, None, np.nan] * 400, dtype=object),  # 1 == 1.0 == True
        "floats with -0.0": pd.Series([0.0, -0.0, 1.5] * 500),
    }


@pytest.mark.parametrize("fname", list(FUNCS))
@pytest.mark.parametrize("cname", list(_columns()))
def test_map_values_gives_the_values_of_series_map(cname, fname):
    col, fn = _columns()[cname], FUNCS[fname]
    want = col.map(fn).astype(object).where(col.map(fn).notna(), None).tolist()
    got = map_values(col, fn)
    got = got.astype(object).where(got.notna(), None).tolist()
    assert got == want


@pytest.mark.parametrize("cname", list(_columns()))
def test_to_numbers_gives_pd_to_numeric(cname):
    col = _columns()[cname]
    want = pd.to_numeric(col, errors="coerce")
    got = to_numbers(col)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.to_numpy(), want.to_numpy())
