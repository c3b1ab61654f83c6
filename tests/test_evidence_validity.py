"""Monte Carlo validity of every bettor under the hardest (equal-means) nulls (spec 01 §2, §4).

Ville's inequality promises P(ever reject within any horizon) <= alpha for a one-sided test at the
boundary of its null, and <= alpha for the mirrored comparison in `allow` mode under an exact tie.
Each check is a seeded Monte Carlo with an explicit binomial tolerance.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from certirank.evidence import paired_batch

ALPHA = 0.05
RUNS = 600
HORIZON = 2000
TOL = 3 * math.sqrt(ALPHA * (1 - ALPHA) / RUNS)


def _null(name: str, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    shape = (RUNS, HORIZON)
    if name == "bernoulli":  # independent arms, p = 0.5 each
        return (rng.random(shape) < 0.5).astype(float), (rng.random(shape) < 0.5).astype(float)
    if name == "partial11":  # different 11-bin distributions with the same mean 0.5
        x = rng.integers(0, 11, shape) / 10
        y = rng.choice([0.4, 0.5, 0.6], size=shape)
        return x, y
    if name == "beta":  # continuous scores, Beta(2, 2) vs Beta(1/2, 1/2), both mean 1/2
        return rng.beta(2, 2, shape), rng.beta(0.5, 0.5, shape)
    if name == "two_point":  # D = +-1 with probability 1/2 each (perfectly anti-correlated pairs)
        x = (rng.random(shape) < 0.5).astype(float)
        return x, 1.0 - x
    raise AssertionError(name)


CASES = [(scenario, bettor, bins)
         for scenario in ("bernoulli", "partial11", "beta", "two_point")
         for bettor, bins in (("nscore", "progress"), ("nscore", "binary"), ("bernoulli_kelly", "binary"),
                              ("agrapa", None), ("ons", None), ("prpl_eb", None), ("hoeffding", None))
         if not ((bettor == "bernoulli_kelly" or bins == "binary") and scenario in ("partial11", "beta"))]


@pytest.mark.parametrize("scenario,bettor,bins", CASES)
def test_type_one_error_under_equal_means(scenario, bettor, bins):
    rng = np.random.default_rng([ord(c) for c in scenario])
    x, y = _null(scenario, rng)
    res = paired_batch(x, y, ALPHA, bettor=bettor, ties="allow", **({"bins": bins} if bins else {}))
    # p-processes are running minima, so the final values tell whether a level was ever crossed
    one_sided_less = float(np.mean(res.p_less <= ALPHA))
    one_sided_more = float(np.mean(res.p_more <= ALPHA))
    mirrored_allow = float(np.mean(res.decision != 0))
    assume_none = float(np.mean(np.minimum(res.p_less, res.p_more) <= ALPHA))
    assert one_sided_less <= ALPHA + TOL, (scenario, bettor, one_sided_less)
    assert one_sided_more <= ALPHA + TOL, (scenario, bettor, one_sided_more)
    assert mirrored_allow <= ALPHA + TOL, (scenario, bettor, mirrored_allow)
    # without the tie guard the two one-sided errors add up: at most 2 alpha
    assert assume_none <= 2 * ALPHA + TOL * math.sqrt(2), (scenario, bettor, assume_none)
    assert np.all(res.decided_at[res.decision == 0] == 0)


@pytest.mark.parametrize("bettor,bins", [("nscore", "progress"), ("nscore", "binary"), ("bernoulli_kelly", "binary"),
                                         ("agrapa", None), ("ons", None), ("prpl_eb", None), ("hoeffding", None)])
def test_power_under_clear_alternative(bettor, bins):
    """The same tests do reject, in the right direction, when Y is clearly better (p 0.3 vs 0.7)."""
    rng = np.random.default_rng(7)
    x = (rng.random((100, 400)) < 0.3).astype(float)
    y = (rng.random((100, 400)) < 0.7).astype(float)
    res = paired_batch(x, y, ALPHA, bettor=bettor, **({"bins": bins} if bins else {}))
    assert np.mean(res.decision == 1) >= 0.95
    assert not np.any(res.decision == -1)


@pytest.mark.parametrize("bettor", ["agrapa", "ons", "prpl_eb", "hoeffding"])
def test_type_one_error_one_sample_and_margin(bettor):
    """One-sample H0: E[X] <= m at the boundary, and the paired margin null E[y - x] <= tau at the boundary."""
    from certirank.evidence import one_sample_batch, paired_to_unit

    rng = np.random.default_rng([len(bettor), 42])
    horizon = 1000
    z = rng.beta(0.6, 1.4, (RUNS, horizon))  # mean 0.3
    res = one_sample_batch(z, m=0.3, alpha=ALPHA, bettor=bettor)
    assert np.mean(res.decision) <= ALPHA + TOL
    x = (rng.random((RUNS, horizon)) < 0.3).astype(float)
    y = (rng.random((RUNS, horizon)) < 0.5).astype(float)
    zz, m = paired_to_unit(x, y, tau=0.2)  # E[y - x] = 0.2 = tau
    res = one_sample_batch(zz, m=m, alpha=ALPHA, bettor=bettor)
    assert np.mean(res.decision) <= ALPHA + TOL
    # and the margin test does reject when the true difference clearly exceeds tau
    y2 = (rng.random((100, horizon)) < 0.8).astype(float)
    z2, m2 = paired_to_unit(x[:100], y2, tau=0.2)
    assert np.mean(one_sample_batch(z2, m=m2, alpha=ALPHA, bettor=bettor).decision) >= 0.95
