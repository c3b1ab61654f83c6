"""summarize(): the per-policy summary behind `certirank inspect`."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from certirank.data import load, summarize
from certirank.data.summary import InspectResult
from certirank.errors import CertirankWarning, DataError


def test_summary_of_roboarena_matches_pandas(shared_data):
    path = shared_data / "roboarena" / "per_trial_progress_data.csv"
    res = summarize(load(path))
    ref = pd.read_csv(path)
    assert isinstance(res, InspectResult) and res.format == "wide" and res.source == str(path)
    assert [p["policy"] for p in res.policies] == list(ref.columns)
    assert [p["count"] for p in res.policies] == ref.notna().sum().tolist()
    assert [p["missing"] for p in res.policies] == ref.isna().sum().tolist()
    np.testing.assert_allclose([p["mean"] for p in res.policies], ref.mean().to_numpy(), rtol=1e-12)
    np.testing.assert_allclose([p["std"] for p in res.policies], ref.std().to_numpy(), rtol=1e-12)
    assert res.n_observations == int(ref.notna().sum().sum()) and res.n_envs == len(ref)
    json.dumps(res.to_dict())  # plain data


def test_missing_counts_envs_not_rows():
    with pytest.warns(CertirankWarning, match="no two policies share an environment label"):
        t = load(pd.DataFrame({"policy": ["a", "a", "a", "b"], "env": ["1", "1", "2", "3"],
                               "replicate": [0, 1, 0, 0], "score": [1.0, 0.0, 0.5, 1.0]}))
    res = summarize(t)
    by = {p["policy"]: p for p in res.policies}
    assert by["a"]["count"] == 3 and by["a"]["missing"] == 1  # env 3
    assert by["b"]["missing"] == 2 and by["b"]["std"] is None  # one observation: no sample std
    assert res.n_envs == 3 and res.n_replicates == 2
    assert res.to_dict()["policies"][1]["std"] is None


def test_summary_without_env_labels():
    t = load(pd.DataFrame({"policy": ["a", "a", "a", "b"], "score": [1.0, 0.0, 1.0, 0.0]}))
    res = summarize(t)
    assert res.n_envs is None
    assert [p["missing"] for p in res.policies] == [0, 2]  # row j = j-th trial of each policy
    assert res.policies[0]["mean"] == pytest.approx(2 / 3)


def test_summary_of_preferences(tmp_path):
    p = tmp_path / "p.csv"
    p.write_text("A,B,preference\nx,y,0\nx,y,0.5\ny,z,1\n")
    res = summarize(load(p))
    by = {r["policy"]: r for r in res.policies}
    assert res.format == "preferences" and res.n_observations == 3
    assert by["x"]["count"] == 2 and by["x"]["mean"] == pytest.approx(0.75)  # a win and a tie
    assert by["y"]["mean"] == pytest.approx((0 + 0.5 + 0) / 3)
    assert by["z"]["mean"] == 1.0 and by["z"]["missing"] == 1  # never met x


def test_summary_rejects_other_frames():
    with pytest.raises(DataError, match="not a validated evaluation table"):
        summarize(pd.DataFrame({"x": [1]}))
