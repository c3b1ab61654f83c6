"""BB-EDGE's update in direction blocks equals the one-block update bit for bit (issue 22)."""

from __future__ import annotations

import numpy as np
import pytest

from certirank.methods.bbedge import engine
from certirank.methods.bbedge.engine import Leaderboard

L, N, R = 60, 40, 4


def _board(**kw):
    rng = np.random.default_rng(5)
    p = rng.uniform(0.2, 0.8, size=(L, 1))
    kw.setdefault("stake", "grid")  # the direction blocks split the grid update; the plug-in has no grid
    lb = Leaderboard([f"m{i}" for i in range(L)], **kw)
    for _ in range(R):
        lb.add_replicate((rng.random((L, N)) < p).astype(float))
    return lb


@pytest.mark.parametrize("kw", [{}, {"method": "bfh-e-holm"}, {"method": "cr-edge"}, {"tau": 0.05},
                                {"top_k": 3}, {"blocks": [f"b{i // 4}" for i in range(N)]},
                                {"weights": np.r_[np.full(20, 0.5), np.full(20, 1.5)] / 40}],
                         ids=["bb-edge", "bfh", "cr-edge", "tau", "top-k", "protocol", "two-weights"])
def test_direction_blocks_do_not_change_the_update(monkeypatch, kw):
    assert L * (L - 1) <= engine.DIRECTION_BLOCK  # the default is one block here: today's computation
    ref = _board(**kw)
    monkeypatch.setattr(engine, "DIRECTION_BLOCK", 97)  # 3540 directions in 37 blocks, the last one short
    got = _board(**kw)
    for fr, fg in zip(ref._families, got._families, strict=True):
        np.testing.assert_array_equal(fr.comp, fg.comp)
        np.testing.assert_array_equal(fr.log_e, fg.log_e)
        np.testing.assert_array_equal(fr.first, fg.first)
    assert got.result().to_dict() == ref.result().to_dict()
    assert np.ptp(ref._families[0].log_e) > 1.0  # the e-values moved: the comparison is not vacuous


def test_many_distinct_weights_agree_to_rounding(monkeypatch):
    # 40 distinct block weights: the stake product goes through BLAS, whose rounding may depend on row blocking
    w = np.random.default_rng(1).uniform(1, 2, N)
    ref = _board(weights=w / w.sum())
    monkeypatch.setattr(engine, "DIRECTION_BLOCK", 97)
    got = _board(weights=w / w.sum())
    np.testing.assert_allclose(got._families[0].log_e, ref._families[0].log_e, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(got.certified_matrix(), ref.certified_matrix())
