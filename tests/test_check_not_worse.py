"""`check` claims "A>=B" with a margin: A not worse than B by the margin or more (non-inferiority), the question a
pull-request gate asks of a change that must not make a model worse."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import certirank
from certirank.errors import ParameterError
from certirank.evidence.equivalence import EquivalenceTest, equivalence_batch
from certirank.methods.check import NOT_WORSE, claim_kind, parse_claim
from certirank.report.markdown import to_markdown


def _table(p_new: float, p_old: float, n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    new = (rng.random(n) < p_new).astype(float)
    old = (rng.random(n) < p_old).astype(float)
    return pd.DataFrame({"item": np.tile(np.arange(n), 2), "model": ["new"] * n + ["old"] * n,
                         "score": np.concatenate([new, old])})


def test_claims_are_read_with_their_kind():
    assert parse_claim("new>=old") == ("new", "old") and claim_kind("new>=old") == NOT_WORSE
    assert parse_claim("old <= new") == ("new", "old") and claim_kind("old <= new") == NOT_WORSE
    assert claim_kind("new>old") != NOT_WORSE
    for bad in ("new=>old", "new>=old=x", "new>==old", ">=old"):
        with pytest.raises(ParameterError):
            parse_claim(bad)


def test_an_unchanged_model_is_certified_not_worse():
    res = certirank.check(_table(0.7, 0.7, 1000, 0), "new>=old", margin=0.1)
    (row,) = res.claims
    assert row["status"] == "certified" and row["margin"] == 0.1 and res.exit_code == 0
    assert row["pvalue"] <= 0.05
    assert "(claim: mean new > mean old - 0.1)" in res.lines()[0]
    assert "new is not worse than old by 0.1 or more" in to_markdown(res)
    assert res.ranking.relations == ()  # a non-inferiority claim orders no pair


def test_a_model_worse_by_the_margin_is_rarely_certified():
    """True difference exactly -margin (the null's boundary): the claim is false. Its p-value (the upper half of the
    equivalence test, x = the claimed model) is at most alpha in at most alpha of 2,000 seeded tables, up to the
    binomial 0.999 quantile; check's p-value is that p-value on the pairs in its read order."""
    runs, n, alpha = 2000, 300, 0.05
    rng = np.random.default_rng(7)
    new = (rng.random((runs, n)) < 0.5).astype(float)
    old = (rng.random((runs, n)) < 0.6).astype(float)
    p = equivalence_batch(new, old, 0.1, alpha)["p_upper"]
    assert np.sum(p <= alpha) <= stats.binom.ppf(0.999, runs, alpha)
    df = _table(0.5, 0.6, n, 0)
    from certirank.data.readers import load
    from certirank.methods.compare import read_pairs
    xa, ya = read_pairs(load(df), "new", "old", order="random", seed=0, order_by=None)
    want = EquivalenceTest(0.1, alpha).update_many(xa, ya).p_upper
    assert certirank.check(df, "new>=old", margin=0.1).claims[0]["pvalue"] == pytest.approx(want, rel=1e-12)


def test_holm_runs_over_both_kinds_of_claim():
    df = _table(0.7, 0.7, 1000, 1)
    res = certirank.check(df, ["new>=old", "new>old"], margin=0.1)
    assert [c["status"] for c in res.claims] == ["certified", "not certified"]
    assert res.exit_code == 1
    assert "margin" not in res.claims[1]


def test_the_margin_is_required_by_and_only_by_such_claims(tmp_path):
    df = _table(0.7, 0.7, 100, 2)
    with pytest.raises(ParameterError, match="needs its margin"):
        certirank.check(df, "new>=old")
    with pytest.raises(ParameterError, match="no claim uses it"):
        certirank.check(df, "new>old", margin=0.1)
    with pytest.raises(ParameterError, match="one order"):
        certirank.check(df, "new>=old", margin=0.1, orders=3)
    with pytest.raises(ParameterError):
        certirank.check(df, "new>=old", margin=1.5)


def test_cli(cli, tmp_path):
    path = tmp_path / "pr.csv"
    _table(0.7, 0.7, 1000, 3).to_csv(path, index=False)
    res = cli(["check", str(path), "--claim", "new>=old", "--margin", "0.1", "--json"])
    assert res.exit_code == 0, res.stderr
    rec = json.loads(res.stdout)
    assert rec["details"]["claims"][0]["margin"] == 0.1
    res = cli(["check", str(path), "--claim", "new>=old"])
    assert res.exit_code == 2 and res.stderr.count("\n") <= 1 and "needs its margin" in res.stderr
    res = cli(["check", str(path), "--claim", "new>=old", "--margin", "0"])
    assert res.exit_code == 2 and "Traceback" not in res.stderr


def test_the_github_action_passes_the_margin(tmp_path):
    """The action's input `margin` reaches `check --margin` (and a claim 'A>=B' without it is bad input, exit 2)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    data = tmp_path / "pr.csv"
    _table(0.7, 0.7, 1000, 3).to_csv(data, index=False)
    env = {**os.environ, "CERTIRANK": str(Path(sys.executable).parent / "certirank"), "CERTIRANK_FILES": str(data),
           "CERTIRANK_CLAIMS": "new>=old", "GITHUB_OUTPUT": str(tmp_path / "out"),
           "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")}
    script = str(root / ".github" / "certirank-check.sh")
    run = subprocess.run(["bash", script], env={**env, "CERTIRANK_MARGIN": " 0.1 "}, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "new is not worse than old by 0.1 or more" in (tmp_path / "summary.md").read_text()
    run = subprocess.run(["bash", script], env={**env, "CERTIRANK_MARGIN": ""}, capture_output=True, text=True)
    assert run.returncode == 2 and "needs its margin" in run.stderr
