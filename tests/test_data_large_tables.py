"""The code paths of the table checks (one pass over integer codes instead of per-cell Python) give what the
per-cell definitions give: isolated policies, repeated (policy, env, replicate) keys, control characters."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from certirank.data.pairing import isolated_policies, unshared
from certirank.data.table import _may_repeat, validate_table
from certirank.errors import DataError


def _reference_isolated(table: pd.DataFrame) -> list[str]:
    pairs = table[["policy", "env"]].drop_duplicates()
    return unshared(pairs.groupby("policy", sort=False)["env"].agg(list).to_dict())


@pytest.mark.parametrize("seed", range(40))
def test_isolated_policies_match_the_per_policy_definition(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n_pol, n_env, rows = int(rng.integers(1, 8)), int(rng.integers(1, 30)), int(rng.integers(1, 3000))
    raw = pd.DataFrame({"policy": [f"p{i}" for i in rng.integers(0, n_pol, rows)],
                        "env": [f"e{i}" for i in rng.integers(0, n_env, rows)],
                        "replicate": np.arange(rows), "score": rng.random(rows)})
    table = validate_table(raw)
    assert isolated_policies(table) == _reference_isolated(table)


def test_isolated_policies_on_sparse_labels_take_the_sorting_path() -> None:
    # many labels each held once: more (policy, label) cells than a presence mask would be worth
    rows = 5000
    raw = pd.DataFrame({"policy": ["a"] * 2000 + ["b"] * 2000 + ["c"] * 1000,
                        "env": [f"x{i}" for i in range(4000)] + [f"x{i}" for i in range(1000)],
                        "score": np.zeros(rows)})
    table = validate_table(raw)
    assert isolated_policies(table) == _reference_isolated(table) == ["b"]


@pytest.mark.parametrize("seed", range(30))
def test_repeated_keys_found_as_pandas_finds_them(seed: int) -> None:
    rng = np.random.default_rng(seed)
    rows = int(rng.integers(2, 4000))
    df = pd.DataFrame({"policy": [f"p{i}" for i in rng.integers(0, 5, rows)],
                       "env": [f"e{i}" for i in rng.integers(0, int(rng.integers(1, 3000)), rows)],
                       "replicate": rng.integers(0, 3, rows)})
    assert _may_repeat(df, ["policy", "env", "replicate"]) == bool(df.duplicated().any())


def test_a_repeated_row_in_a_long_table_is_named() -> None:
    n = 20_000
    raw = pd.DataFrame({"policy": np.repeat(["a", "b"], n // 2), "env": np.tile(np.arange(n // 2), 2).astype(str),
                        "score": np.zeros(n)})
    raw.loc[n - 1, "env"] = "3"
    with pytest.raises(DataError, match=r"duplicate observations .*\(b, 3, 0\) at rows 10005, 20001"):
        validate_table(raw)


def test_a_control_character_deep_in_a_long_table_is_named() -> None:
    n = 20_000
    raw = pd.DataFrame({"policy": np.repeat(["a", "b"], n // 2), "env": np.tile(np.arange(n // 2), 2).astype(str),
                        "score": np.zeros(n)})
    raw.loc[15_000, "policy"] = "b\x1b[2J"
    with pytest.raises(DataError, match=r"row 15002, column 'policy': policy name 'b\\x1b\[2J' holds the control character '\\x1b'"):
        validate_table(raw)
    raw.loc[15_000, "policy"] = "b"
    raw.loc[12_000, "env"] = "x\x00y"
    with pytest.raises(DataError, match=r"row 12002, column 'env': environment label 'x\\x00y' holds the control character"):
        validate_table(raw)


@pytest.mark.parametrize("column, value, message", [("score", 2.0, r"score 2 is outside \[0, 1\]"),
                                                    ("policy", "b\x07", r"control character"),
                                                    ("env", "x\x00", r"control character")])
def test_a_loaded_table_changed_afterwards_is_validated_again(tmp_path, column, value, message) -> None:
    from certirank.data.readers import is_validated, load
    n = 4000
    path = tmp_path / "t.csv"
    pd.DataFrame({"model": np.repeat(["a", "b"], n // 2), "item": np.tile(np.arange(n // 2), 2),
                  "score": np.zeros(n)}).to_csv(path, index=False)
    table = load(path)
    assert is_validated(table) and load(table) is table  # unchanged: not validated twice
    copy = table.copy()
    assert load(copy).equals(table)
    table.loc[1234, column] = value  # in place, as a user editing the table might
    assert not is_validated(table)
    with pytest.raises(DataError, match=message):
        load(table)
