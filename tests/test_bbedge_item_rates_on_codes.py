"""Each model's mean score per item (what `LeaderboardResult.suggest_items` predicts from) is computed on the
reader's integer codes; here it is compared bit for bit with the definition grouped by the text labels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from certirank.data.table import validate_table
from certirank.methods.bbedge import adaptive
from certirank.methods.bbedge.adaptive import shrink, table_rates


def _by_text(table: pd.DataFrame, models: list[str]) -> tuple[tuple[str, ...], np.ndarray]:
    items = pd.unique(table["env"].astype(str))
    cells = table.assign(env=table["env"].astype(str), policy=table["policy"].astype(str)).groupby(
        ["policy", "env"], sort=False)["score"]
    mean = cells.mean().unstack().reindex(index=models, columns=items)
    count = cells.count().unstack().reindex(index=models, columns=items).fillna(0)
    return tuple(str(i) for i in items), shrink(mean.to_numpy(dtype=float), count.to_numpy(dtype=float))


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("binary", [True, False])
def test_rates_on_codes_are_the_text_grouping_bit_for_bit(seed: int, binary: bool) -> None:
    rng = np.random.default_rng(seed)
    n_pol, n_env, rows = int(rng.integers(2, 9)), int(rng.integers(1, 40)), int(rng.integers(1000, 5000))
    raw = pd.DataFrame({"policy": [f"p{i}" for i in rng.integers(0, n_pol, rows)],
                        "env": [f"e{i}" for i in rng.integers(0, n_env, rows)],
                        "replicate": np.arange(rows),
                        "score": (rng.random(rows) < 0.4).astype(float) if binary else rng.random(rows) / 3})
    table = validate_table(raw)
    assert adaptive._plain_labels(table["policy"]) and adaptive._plain_labels(table["env"])
    present = list(pd.unique(table["policy"]))
    # the board's order, a model twice and one with no rows
    models = present[::-1] + [present[0], "absent"]
    names, rates = table_rates(table, models)
    ref_names, ref_rates = _by_text(table, models)
    assert names == ref_names
    np.testing.assert_array_equal(np.isnan(rates), np.isnan(ref_rates))
    assert np.array_equal(rates.view(np.int64), ref_rates.view(np.int64))


def test_labels_with_missing_cells_take_the_text_grouping() -> None:
    table = validate_table(pd.DataFrame({"policy": ["a", "b"] * 600, "score": 0.5}))  # no env labels
    assert not adaptive._plain_labels(table["env"])
