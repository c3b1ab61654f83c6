"""The certified Bradley–Terry ranking of battles (methods/bradley_terry): the fit against statsmodels and a
direct optimiser, the anytime guarantee by seeded Monte Carlo, the exact option, and the entry points."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import certirank
from certirank.errors import ParameterError
from certirank.methods.bradley_terry import bradley_terry_graph
from certirank.methods.bradley_terry.fit import cells_from_battles, fit
from certirank.methods.bradley_terry.sequential import mixture_pvalue, rho_squared


def _battles(theta, n, seed, home=0.0, draw=0.0):
    rng = np.random.default_rng(seed)
    L = len(theta)
    a = rng.integers(0, L, n)
    b = (a + rng.integers(1, L, n)) % L
    p = 1.0 / (1.0 + np.exp(-(np.asarray(theta)[a] - np.asarray(theta)[b] + home)))
    u = rng.random(n)
    score = np.where(u < draw, 0.5, np.where(u < draw + (1 - draw) * p, 1.0, 0.0))
    return a, b, score


def _frame(a, b, score):
    df = pd.DataFrame({"policy_a": [f"p{i:03d}" for i in a], "policy_b": [f"p{i:03d}" for i in b],
                       "preference": 1.0 - score})
    df.attrs["format"] = "preferences"
    return df


def test_fit_matches_statsmodels_logistic_regression_with_home_advantage():
    sm = pytest.importorskip("statsmodels.api", reason="needs the dev extra (statsmodels)")
    a, b, y = _battles(np.linspace(-1, 1, 6), 3000, seed=0, home=0.3)
    f = fit(cells_from_battles(a, b, y, 6, "drop"), home=True, ridge=1e-12)
    X = np.zeros((y.size, 6))
    X[np.arange(y.size), a] += 1
    X[np.arange(y.size), b] -= 1
    X = np.column_stack([X[:, 1:], np.ones(y.size)])
    ref = sm.GLM(y, X, family=sm.families.Binomial()).fit()
    np.testing.assert_allclose(f.theta[1:] - f.theta[0], ref.params[:-1], atol=1e-7)
    assert f.home == pytest.approx(ref.params[-1], abs=1e-7)
    assert f.loglik == pytest.approx(ref.llf, abs=1e-6)


def test_davidson_fit_is_the_maximum_found_by_a_general_optimiser():
    from scipy.optimize import minimize
    from certirank.methods.bradley_terry.fit import _layout, _parts

    a, b, s = _battles(np.array([-0.8, 0.0, 0.3, 0.9]), 1500, seed=1, home=0.2, draw=0.25)
    cells = cells_from_battles(a, b, s, 4, "davidson")
    f = fit(cells, home=True, davidson=True, ridge=1e-2)
    _, h_ix, e_ix = _layout(4, True, True)

    def neg(phi):
        return -(_parts(phi, cells, h_ix, e_ix)["ll"] - 0.005 * float(phi[:4] @ phi[:4]))

    ref = minimize(neg, np.zeros(6), method="BFGS", options={"gtol": 1e-10})
    assert -ref.fun <= -neg(f.params) + 1e-7  # Newton's maximum is at least as high
    np.testing.assert_allclose(f.params, ref.x, atol=1e-4)
    assert 0.2 < f.nu < 1.5 and f.home == pytest.approx(0.2, abs=0.15)


def test_mixture_pvalue_is_the_boundary_crossing_level():
    rho2 = rho_squared(0.05 / 10)
    V = np.array([1.0, 10.0, 100.0])
    # the boundary at level a: z^2 = (1 + 1/(V rho2)) (2 log(1/a) + log(1 + V rho2)); its p-value is a
    a = 0.001
    z = np.sqrt((1 + 1 / (V * rho2)) * (2 * math.log(1 / a) + np.log1p(V * rho2)))
    np.testing.assert_allclose(mixture_pvalue(z, V, rho2), a, rtol=1e-10)
    assert np.all(mixture_pvalue(np.zeros(3), V, rho2) == 1.0)


def test_anytime_fwer_under_the_global_null_with_peeking():
    # every player equally strong: any certified edge is an error; checkpoints every 40 battles
    alpha, reps = 0.1, 60
    errors = 0
    for r in range(reps):
        a, b, s = _battles(np.zeros(8), 600, seed=100 + r)
        res = bradley_terry_graph(_frame(a, b, s), alpha, every=40)
        errors += bool(res.ranking.relations)
    assert errors / reps <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / reps)


def test_strong_separations_are_certified_and_never_reversed():
    theta = np.linspace(-2, 2, 10)
    a, b, s = _battles(theta, 4000, seed=5, draw=0.1)
    res = bradley_terry_graph(_frame(a, b, s), 0.05)
    rel = [(int(r.better[1:]), int(r.worse[1:])) for r in res.ranking.relations]
    assert len(rel) >= 30 and all(theta[i] > theta[j] for i, j in rel)
    d = res.to_dict()
    assert d["kind"] == "bradley-terry" and d["schema"] == "certirank.result/1" and d["about"] == "policy"
    assert set(d) == {"kind", "schema", "about", "inputs", "ranking", "details", "warnings"}
    assert d["inputs"]["order"] == {"kind": "random", "seed": 0} and d["inputs"]["method"] == "asymptotic"
    assert d["ranking"]["guarantee"].startswith("Asymptotic guarantee") and d["warnings"][0].startswith("note: Asymptotic")
    assert all("asymptotic" in line for line in res.sentences())


def test_same_seed_same_answer_and_order_given_replays_the_file():
    a, b, s = _battles(np.linspace(-1, 1, 6), 800, seed=6)
    df = _frame(a, b, s)
    one, two = bradley_terry_graph(df, seed=3).to_dict(), bradley_terry_graph(df, seed=3).to_dict()
    assert one == two
    given = bradley_terry_graph(df, order="given")
    assert given.inputs["order"] == {"kind": "given"}


def test_exact_option_is_valid_under_the_null_and_certifies_large_gaps():
    null_err = 0
    for r in range(12):
        a, b, s = _battles(np.zeros(4), 300, seed=300 + r)
        null_err += bool(bradley_terry_graph(_frame(a, b, s), 0.1, method="exact", draws="drop",
                                             every=100).ranking.relations)
    assert null_err <= 3  # alpha = 0.1 over 12 runs: 3 or more would be < 1% likely
    a, b, s = _battles(np.array([-2.0, 0.0, 2.0]), 600, seed=7)
    res = bradley_terry_graph(_frame(a, b, s), 0.05, method="exact", draws="drop", every=200)
    rel = {(r.better, r.worse) for r in res.ranking.relations}
    assert ("p002", "p000") in rel
    assert res.ranking.guarantee.startswith("Finite-sample guarantee under the model")
    with pytest.raises(ParameterError, match="needs a likelihood for draws"):
        bradley_terry_graph(_frame(a, b, s), method="exact")


def test_preference_graph_dispatch_and_refusals():
    a, b, s = _battles(np.linspace(-1, 1, 5), 500, seed=8)
    df = _frame(a, b, s)
    res = certirank.preference_graph(df, model="bt", draws="drop", home=True)
    assert res.inputs["home"] is True and res.details["home"] is not None
    with pytest.raises(ParameterError, match="belong to the pairwise model"):
        certirank.preference_graph(df, model="bt", procedure="bonferroni")
    with pytest.raises(ParameterError, match="belong to model='bradley-terry'"):
        certirank.preference_graph(df, home=True)


