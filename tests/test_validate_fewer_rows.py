"""The validity battery's rows for issue 35 (equivalence at the margin, a lying proxy, adaptive item choice):
registered, run through the row test, reproducible, and sensitive (the same data through a wrong test fail)."""

from __future__ import annotations

import numpy as np
from scipy import stats

from certirank.evidence.equivalence import equivalence_batch
from certirank.sim import _fewer_checks as rows
from certirank.sim.validation import validate, validation_checks

NAMES = ("equivalence-at-margin", "lying-proxy", "adaptive-items-tied")


def test_rows_are_in_the_battery():
    names = {c.name for c in validation_checks()}
    assert set(NAMES) <= names


def test_rows_pass_their_row_test_and_are_reproducible():
    a = validate("quick", checks=list(NAMES[:2]), seed=11)
    assert a.passed and {r["name"] for r in a.rows} == set(NAMES[:2])
    for r in a.rows:
        assert r["verdict"] == "pass" and r["bound"] == 0.05 and r["false_runs"] <= r["reps"]
    b = validate("quick", checks=list(NAMES[:2]), seed=11)
    strip = lambda res: [{k: v for k, v in x.items() if k != "seconds"} for x in res.rows]  # noqa: E731
    assert strip(a) == strip(b)


def test_adaptive_row_runs_within_binomial_tolerance():
    """A few seeded boards (the full row runs in `validate --quick`): false edges at most the Binomial(n,
    alpha) tail count at 1e-4."""
    n, alpha = 12, 0.05
    assert rows._adaptive_tied(alpha, n, 5).sum() <= int(stats.binom.isf(1e-4, n, alpha))


def test_equivalence_row_is_sensitive():
    """The row's data are at the edge: a test that used a margin 1.5 times the true difference (a wrong
    margin) claims equivalence in most runs, so the row would fail it."""
    rng = np.random.default_rng(0)
    base = rng.uniform(0.2, 0.7, (40, rows.EQ_UNITS))
    x = base + rng.uniform(-0.05, 0.05, base.shape)
    y = base + rows.MARGIN + rng.uniform(-0.05, 0.05, base.shape)
    assert (equivalence_batch(x, y, 1.5 * rows.MARGIN, 0.05)["decided_at"] > 0).mean() > 0.5
    assert rows._equivalence_at_margin(0.05, 40, 0).sum() <= int(stats.binom.isf(1e-4, 40, 0.05))


def test_lying_proxy_row_is_sensitive():
    """Its proxy lies enough to matter: a test that took the proxy at its word (the proxy means alone, label rate
    1 with every unit 'labelled' by its proxy) certifies B in every run."""
    from certirank.evidence.ppi import proxy_batch
    rng = np.random.default_rng(1)
    shape = (20, rows.PROXY_UNITS)
    fa = (rng.random(shape) < 0.5).astype(float)
    fb = np.minimum(1.0, (rng.random(shape) < 0.5) + rows.LIE)
    naive = proxy_batch(fa, fb, fa, fb, np.ones(shape, dtype=bool), 1.0, 0.05, weight=0.0)
    assert (naive["decided_at"] > 0).all()
