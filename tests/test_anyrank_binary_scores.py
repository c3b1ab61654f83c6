"""Scores declared binary (bins='binary') are 0 or 1: anything else is refused up front, never half-way."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import certirank
from certirank.errors import DataError, ParameterError
from certirank.methods.anyrank import Ranker


@pytest.mark.parametrize("n_max", [50, None])  # with a budget the exact test runs; without it the e-process
def test_ranker_refuses_a_partial_score_before_changing_anything(n_max):
    r = Ranker(["a", "b"], alpha=0.05, n_max=n_max, bins="binary")
    with pytest.raises(ParameterError, match="declared binary"):
        r.record("a", 0, 0.5)
    assert r.recorded() == {"a": 0, "b": 0}
    r.record("a", 0, 1.0)
    r.record("b", 0, 0)
    assert r.recorded() == {"a": 1, "b": 1}


@pytest.mark.parametrize("extra", [[], ["n_max"]])
def test_replay_refuses_progress_scores_declared_binary(extra):
    rng = np.random.default_rng(0)
    table = pd.DataFrame({"policy": ["a"] * 20 + ["b"] * 20, "env": [f"e{i}" for i in range(20)] * 2,
                          "score": (rng.random(40) < 0.5).astype(float)})
    kw = {"n_max": 40} if extra else {}
    certirank.anyrank(table, bins="binary", **kw)  # 0/1 data: fine
    table.loc[3, "score"] = 0.5
    with pytest.raises(DataError, match=r"1 score\(s\) are neither 0 nor 1 \(first: a 0.5\)"):
        certirank.anyrank(table, bins="binary", **kw)
