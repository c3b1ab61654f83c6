"""Graphical procedure (spec 02 Part A/B): test vectors, references, closed-test equivalence, online use."""

from __future__ import annotations

import gc
import itertools
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import certirank
from certirank.errors import ParameterError, StateError
from certirank.multitest import (
    EPSILON,
    Graph,
    SequentialGraphTest,
    adjusted_pvalues,
    bonferroni,
    holm_rejections,
    fallback,
    fixed_sequence,
    from_prior,
    graph_rejections,
    graph_test,
    holm,
    pair_gaps,
    passes,
    prior_order,
    weighted_bonferroni,
    weighted_bonferroni_from_prior,
    weighted_holm,
)

E = EPSILON
GATE = [[0, 0, .5, .5], [0, 0, .5, .5], [0, 0, 0, 1], [0, 0, 1, 0]]
PARALLEL = [[0, 0, 1, 0], [0, 0, 0, 1], [0, 1, 0, 0], [1, 0, 0, 0]]
E7_G = [[0, .5, .25, 0, .25, 0], [.5, 0, 0, .25, 0, .25], [0, 0, 0, 0, 1, 0],
        [1e-4, 0, 0, 0, 0, .9999], [0, 1e-4, .9999, 0, 0, 0], [0, 0, 0, 1, 0, 0]]


def _holm_g(m):
    return holm(m).initial_weights, holm(m).initial_transitions


def _fixed(m):
    g = fixed_sequence(m)
    return g.initial_weights, g.initial_transitions


# (name, weights, transitions, alpha, p, rejected (1-based), adjusted rounded to 6 decimals) -- spec 02 A.7
VECTORS = [
    ("E1", *_holm_g(3), 0.05, (0.02, 0.055, 0.012), {1, 3}, (0.04, 0.055, 0.036)),
    ("E2", [.5, .5, 0], [[0, 1, 0], [1 - E, 0, E], [0, 0, 0]], 0.05, (0.04, 0.01, 0.03), {1, 2, 3},
     (0.04, 0.02, 0.04)),
    ("E3", [.5, .5, 0, 0], [[0, 1, 0, 0], [1 - E, 0, .8 * E, .2 * E], [0, 0, 0, 1], [0, 0, 1, 0]], 0.05,
     (0.04, 0.01, 0.03, 0.04), {1, 2, 3, 4}, (0.04, 0.02, 0.04, 0.04)),
    ("E4a", [.5, .5, 0, 0], GATE, 0.05, (0.02, 0.04, 0.01, 0.015), {1, 3, 4}, (0.04, 0.08, 0.04, 0.04)),
    ("E4b", [.5, .5, 0, 0], [[0, 0, .5, .5], [0, 0, .5, .5], [E, 0, 0, 1 - E], [0, E, 1 - E, 0]], 0.05,
     (0.02, 0.04, 0.01, 0.015), {1, 2, 3, 4}, (0.04, 0.04, 0.04, 0.04)),
    ("E5", *_fixed(3), 0.05, (0.01, 0.04, 0.06), {1, 2}, (0.01, 0.04, 0.06)),
    ("E6", [.5, .5, 0, 0], [[0, .5, .5, 0], [.5, 0, 0, .5], [0, 1, 0, 0], [1, 0, 0, 0]], 0.025,
     (0.018, 0.01, 0.105, 0.006), {1, 2, 4}, (0.024, 0.02, 0.105, 0.024)),
    ("E7", [.5, .5, 0, 0, 0, 0], E7_G, 0.025, (0.001, 0.01875, 0.013, 0.0002, 0.03, 0.04), {1, 2, 4},
     (0.002, 0.025, 0.051998, 0.025, 0.059998, 0.059998)),
    ("E8a", [.5, .5, 0, 0], PARALLEL, 0.025, (0.01,) * 4, {1, 2, 3, 4}, (0.02,) * 4),
    ("E8b", [.5, .5, 0, 0], PARALLEL, 0.025, (0.01, 0.005, 0.03, 0.01), {1, 2, 4}, (0.02, 0.01, 0.03, 0.02)),
    ("E9", *_holm_g(5), 0.05, (0.01, 0.02, 0.04, 0.04, 0.7), {1}, (0.05, 0.08, 0.12, 0.12, 0.7)),
]


@pytest.mark.parametrize("name,w,g,alpha,p,rej,adj", VECTORS, ids=[v[0] for v in VECTORS])
def test_bretz_vectors(name, w, g, alpha, p, rej, adj):
    res = certirank.graph_test(Graph(w, g), p, alpha)
    assert {i + 1 for i in np.flatnonzero(res.rejected)} == rej
    assert np.round(res.adjusted, 6).tolist() == list(adj)
    alg1 = graph_rejections(Graph(w, g), p, alpha)
    assert {i + 1 for i in np.flatnonzero(alg1)} == rej
    # any processing order gives the same final set (order invariance)
    for order in itertools.permutations(range(len(p))):
        assert np.array_equal(graph_rejections(Graph(w, g), p, alpha, order=order), alg1)
    d = res.to_dict()
    assert d["rejected"] == res.rejected.tolist() and len(d["adjusted"]) == len(p)


def test_result_frozen_zero_weight_and_docstrings():
    import dataclasses
    import doctest

    import certirank.multitest.bretz as bretz
    import certirank.multitest.graphical as graphical
    import certirank.multitest.graphs as graphs
    import certirank.multitest.sequential as sequential

    res = graph_test(Graph([1.0, 0.0], [[0, 0], [0, 0]]), [0.5, 0.0], 0.05)
    assert res.adjusted.tolist() == [0.5, 1.0]  # weight 0 in every remaining graph -> 1
    assert res.rejected.tolist() == [False, False] and res.n_rejected == 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.alpha = 0.1
    with pytest.raises(ValueError):
        res.rejected[0] = True
    for mod in (graphical, bretz, graphs, sequential):
        failed, attempted = doctest.testmod(mod)
        assert failed == 0 and attempted > 0


def test_e7_boundary_uses_rounding():
    # p~_2 = 0.01875 / 0.75 evaluates just below or above 0.025 depending on the path; the rule must reject it
    res = graph_test(Graph([.5, .5, 0, 0, 0, 0], E7_G), (0.001, 0.01875, 0.013, 0.0002, 0.03, 0.04), 0.025)
    assert res.rejected[1] and res.rejected[3]
    assert passes(0.01875, 0.75, 0.025)
    assert not passes(0.0187501, 0.75, 0.025)
    assert not passes(0.0, 0.0, 0.025)  # zero weight never rejects, not even p = 0


def test_holm_cutoffs_and_levels():
    g = holm(3)
    assert np.allclose(g.levels(0.3), [0.1, 0.1, 0.1])
    g.reject(1)
    assert np.allclose(g.levels(0.3), [0.15, 0, 0.15])
    g.reject(2)
    assert np.allclose(g.levels(0.3), [0.3, 0, 0])
    # all p tiny and distinct: rejection in increasing p, i-th local level alpha / (m - i + 1)
    m, alpha = 7, 0.05
    p = np.array([3, 1, 6, 2, 7, 5, 4]) * 1e-6
    g = holm(m)
    levels = []
    for _ in range(m):
        ok = np.flatnonzero(g.eligible(p, alpha))
        j = int(ok[np.argmin(p[ok])])
        levels.append(g.levels(alpha)[j])
        g.reject(j)
    assert g.rejection_order == list(np.argsort(p))
    assert np.allclose(levels, [alpha / (m - i) for i in range(m)])
    res = graph_test(holm(m), p, alpha)
    assert res.rejection_order == list(np.argsort(p))


@pytest.mark.parametrize("w,g,msg", [
    ([-0.1, 0.5], [[0, 1], [1, 0]], ">= 0"),
    ([0.6, 0.5], [[0, 1], [1, 0]], "sum to at most 1"),
    ([0.5, 0.5], [[0, 1.2], [1, 0]], "[0, 1]"),
    ([0.5, 0.5], [[0.1, 0.9], [1, 0]], "zero diagonal"),
    ([0.3, 0.3, 0.3], [[0, .6, .6], [.5, 0, .5], [.5, .5, 0]], "row 0 sums"),
    ([0.5, np.nan], [[0, 1], [1, 0]], "finite"),
    ([0.5, 0.5], [[0, np.nan], [1, 0]], "finite"),
    ([0.5, 0.5], [[0, 1, 0], [1, 0, 0]], "2 x 2"),
    ([], [], "at least one"),
])
def test_graph_validation(w, g, msg):
    with pytest.raises(ParameterError, match=msg.replace("[", r"\[").replace("]", r"\]")):
        Graph(w, g)


def test_validation_tolerance_and_pvalues():
    Graph([0.5, 0.5 + 5e-10], [[0, 1], [1, 0]])  # within the 1e-9 tolerance
    Graph([0.2, 0.2, 0.2], [[0, 0.5, 0.5 + 5e-10], [0.5, 0, 0.5], [0.5, 0.5, 0]])
    with pytest.raises(ParameterError, match="row 0"):
        Graph([0.2, 0.2, 0.2], [[0, 0.5, 0.5 + 5e-9], [0.5, 0, 0.5], [0.5, 0.5, 0]])
    with pytest.raises(ParameterError, match="NaN"):
        graph_test(Graph([0.5, 0.5], [[0, 1], [1, 0]]), [0.01, np.nan], 0.05)
    with pytest.raises(ParameterError, match=r"\[0, 1\]"):
        graph_test(Graph([0.5, 0.5], [[0, 1], [1, 0]]), [0.01, -0.1], 0.05)
    with pytest.raises(ParameterError, match="one entry per hypothesis"):
        graph_test(Graph([0.5, 0.5], [[0, 1], [1, 0]]), [0.01], 0.05)
    with pytest.raises(ParameterError, match="alpha"):
        graph_test(Graph([0.5, 0.5], [[0, 1], [1, 0]]), [0.01, 0.02], 1.5)


# ------------------------------------------------------------------------------------------ statsmodels

@pytest.fixture
def multipletests(monkeypatch):
    mod = pytest.importorskip("statsmodels.stats.multitest")
    # statsmodels calls gc.collect() on every Holm call (0.1 s each under pytest); it is housekeeping only
    monkeypatch.setattr(gc, "collect", lambda *args: 0)
    return mod.multipletests


def test_holm_matches_statsmodels(multipletests):
    rng = np.random.default_rng(20261129)
    n_checked = n_rejections = 0
    for it in range(3000):
        m = int(rng.integers(1, 21))
        alpha = (0.05, 0.1, 0.2)[it % 3]
        p = rng.random(m) ** rng.uniform(1, 6)  # skewed toward 0 so that rejections happen
        if it % 10 == 0:
            p[: m // 2] = p[0]  # exact ties
        ref_rej, ref_adj, _, _ = multipletests(p, alpha=alpha, method="holm")
        res = graph_test(holm(m), p, alpha)
        np.testing.assert_allclose(res.adjusted, ref_adj, rtol=1e-12, atol=1e-15)
        assert np.array_equal(res.rejected, ref_rej)
        assert np.array_equal(holm_rejections(p, alpha), ref_rej)
        if it % 5 == 0:
            assert np.array_equal(graph_rejections(holm(m), p, alpha), ref_rej)
        n_checked += 1
        n_rejections += int(ref_rej.sum())
    assert n_checked == 3000 and n_rejections > 1000


def test_sorted_holm_equals_graph_holm_on_large_families():
    # the leaderboard baselines use the sorted shortcut on thousands of directions; the graph algorithm is
    # O(m^2) per rejection, so families of a few hundred (about 2 s) exercise the same code paths as
    # m = 2000 (20 s): many rejections, ties exactly at the step boundary, a partial rejection set
    rng = np.random.default_rng(3)
    for m in (300, 600):
        p = rng.random(m) ** 8
        p[:50] = p[0]  # ties at the step boundary
        got = holm_rejections(p, 0.05)
        assert 50 < got.sum() < m  # neither trivial case
        assert np.array_equal(got, graph_rejections(holm(m), p, 0.05))
        # the tie block is rejected or kept as one
        assert got[:50].all() or not got[:50].any()


def test_bonferroni_matches_statsmodels(multipletests):
    rng = np.random.default_rng(7)
    for _ in range(300):
        m = int(rng.integers(1, 15))
        p = rng.random(m) ** 3
        ref_rej, ref_adj, _, _ = multipletests(p, alpha=0.05, method="bonferroni")
        res = graph_test(bonferroni(m), p, 0.05)
        assert np.array_equal(res.rejected, ref_rej)
        # a Bonferroni adjusted p-value is m * p capped at 1 but never below earlier adjusted values in
        # Algorithm 2's sequence; the rejection decision is what statsmodels reports
        assert np.all(res.adjusted >= np.minimum(1, ref_adj) - 1e-12)


# ------------------------------------------------------------------------------------------ closed test

def _naive_remove(w, g, j, alive):
    """Independent, loop-based Bretz update (spec 02 A.2 step 3)."""
    m = len(w)
    nw = list(w)
    ng = [row[:] for row in g]
    for l_ in range(m):
        if l_ == j or not alive[l_]:
            continue
        nw[l_] = w[l_] + w[j] * g[j][l_]
        for k in range(m):
            if k == j or k == l_ or not alive[k]:
                continue
            den = 1 - g[l_][j] * g[j][l_]
            ng[l_][k] = (g[l_][k] + g[l_][j] * g[j][k]) / den if den > 1e-12 else 0.0
    nw[j] = 0.0
    for k in range(m):
        ng[j][k] = ng[k][j] = 0.0
    for i in range(m):
        ng[i][i] = 0.0
    return nw, ng


def _closed_test(w, g, p, alpha):
    """Brute-force closed test with weighted Bonferroni intersection tests (weights from the graph)."""
    m = len(w)
    rejected_sets = {}
    adjusted = np.zeros(m)
    for size in range(1, m + 1):
        for J in itertools.combinations(range(m), size):
            ww, gg = list(w), [list(r) for r in g]
            alive = [True] * m
            for j in range(m):
                if j not in J:
                    ww, gg = _naive_remove(ww, gg, j, alive)
                    alive[j] = False
            rejected_sets[J] = any(ww[j] > 0 and round(p[j] / ww[j], 10) <= alpha for j in J)
            pj = min((p[j] / ww[j] if ww[j] > 0 else np.inf) for j in J)
            for j in J:
                adjusted[j] = max(adjusted[j], pj)
    rej = np.array([all(v for J, v in rejected_sets.items() if i in J) for i in range(m)])
    return rej, np.minimum(adjusted, 1.0)


@st.composite
def graphs_and_pvalues(draw):
    m = draw(st.integers(1, 6))
    unit = st.one_of(st.floats(0, 1, allow_nan=False), st.just(EPSILON))
    raw_w = [draw(st.one_of(st.just(0.0), unit)) for _ in range(m)]
    total = draw(st.floats(0.2, 1.0))
    s = sum(raw_w)
    w = [total * v / s for v in raw_w] if s > 0 else [total / m] * m
    g = []
    for i in range(m):
        row = [0.0 if j == i else draw(st.one_of(st.just(0.0), unit)) for j in range(m)]
        rs = sum(row)
        mass = draw(st.sampled_from([1.0, 1.0, 0.5, 0.0]))
        g.append([mass * v / rs for v in row] if rs > 0 else [0.0] * m)
    p = [draw(st.one_of(st.floats(0, 0.06), st.floats(0, 1))) for _ in range(m)]
    return w, g, p


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs_and_pvalues())
def test_graphical_shortcut_equals_closed_test(case):
    w, g, p = case
    alpha = 0.05
    ref_rej, ref_adj = _closed_test(w, g, p, alpha)
    graph = Graph(w, g)
    assert np.array_equal(graph_rejections(graph, p, alpha), ref_rej)
    res = graph_test(graph, p, alpha)
    assert np.array_equal(res.rejected, ref_rej)
    # Near-epsilon transition weights (~1e-9) legitimately move adjusted p-values by O(eps / weight)
    # between the shortcut's update order and the closed test's intersection weights.
    np.testing.assert_allclose(res.adjusted, ref_adj, rtol=1e-6, atol=1e-12)
    rev = list(range(len(w)))[::-1]
    assert np.array_equal(graph_rejections(graph, p, alpha, order=rev), ref_rej)


@settings(max_examples=100, deadline=None)
@given(graphs_and_pvalues(), st.randoms(use_true_random=False))
def test_online_update_matches_naive_update(case, rnd):
    w, g, _ = case
    graph = Graph(w, g)
    ww, gg = list(w), [list(r) for r in g]
    alive = [True] * len(w)
    order = list(range(len(w)))
    rnd.shuffle(order)
    for j in order:
        graph.reject(j)
        ww, gg = _naive_remove(ww, gg, j, alive)
        alive[j] = False
        np.testing.assert_allclose(graph.weights, ww, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(graph.transitions, gg, rtol=1e-12, atol=1e-15)
    assert graph.rejected.all()


def _naive_adjusted(w, g, p):
    """Algorithm 2 with the loop-based update, for comparison with the fast implementation."""
    m = len(w)
    ww, gg = list(w), [list(r) for r in g]
    alive = [True] * m
    out = np.ones(m)
    pmax = 0.0
    for _ in range(m):
        ratios = [(p[i] / ww[i] if ww[i] > 0 else np.inf) if alive[i] else np.inf for i in range(m)]
        j = int(np.argmin(ratios))
        if not np.isfinite(ratios[j]):
            break
        pmax = min(1.0, max(ratios[j], pmax))
        out[j] = pmax
        ww, gg = _naive_remove(ww, gg, j, alive)
        alive[j] = False
    return out


def test_algorithm2_large_graphs_and_scale_folding(monkeypatch):
    import certirank.multitest.bretz as bretz

    rng = np.random.default_rng(8)
    for rep in range(12):
        m = int(rng.integers(20, 40))
        d = rng.random(m)
        graph = from_prior(d, gamma=float(rng.uniform(0, 6)), kind=("soft_masked", "fully_connected")[rep % 2])
        if rep % 3 == 2:  # epsilon edges and zero p-values
            g = graph.initial_transitions * (1 - EPSILON)
            g[np.arange(m), (np.arange(m) + 1) % m] += EPSILON
            graph = Graph(graph.initial_weights, g)
        p = rng.random(m) ** 4
        p[rng.random(m) < 0.1] = 0.0
        ref = _naive_adjusted(graph.initial_weights.tolist(), graph.initial_transitions.tolist(), p.tolist())
        np.testing.assert_allclose(adjusted_pvalues(graph, p), ref, rtol=1e-10, atol=1e-15)
        with monkeypatch.context() as mp:
            mp.setattr(bretz, "_SCALE_FOLD", 0.0)  # fold every 16 steps
            np.testing.assert_allclose(adjusted_pvalues(graph, p), ref, rtol=1e-10, atol=1e-15)


def test_monotone_in_pvalues():
    rng = np.random.default_rng(3)
    for _ in range(200):
        m = int(rng.integers(2, 8))
        g = from_prior(rng.random(m), gamma=float(rng.uniform(0, 5)), kind=("soft_masked", "fully_connected")[_ % 2])
        p = rng.random(m) * 0.1
        q = p * rng.random(m)  # coordinate-wise smaller
        assert np.all(graph_rejections(g, q, 0.1) >= graph_rejections(g, p, 0.1))


# ------------------------------------------------------------------------------------------ online use

def test_graph_online_state_and_serialisation():
    g = from_prior(np.random.default_rng(0).random(45), gamma=3)
    g.reject(5)
    g.reject(17)
    assert np.isclose(g.weights.sum(), 1.0) and g.rejected.sum() == 2
    with pytest.raises(StateError, match="already rejected"):
        g.reject(5)
    with pytest.raises(ParameterError):
        g.reject(45)
    with pytest.raises(ValueError):
        g.weights[0] = 1.0  # read-only view
    back = Graph.from_dict(json.loads(json.dumps(g.to_dict())))
    assert back == g
    assert np.array_equal(back.weights, g.weights) and np.array_equal(back.transitions, g.transitions)
    assert back.rejection_order == [5, 17]
    back.reject(3)
    g.reject(3)
    assert back == g
    bad = g.to_dict()
    bad["weights"][0] = 0.5  # a rejected hypothesis cannot hold weight... index 5 is rejected:
    bad["weights"][5] = 0.1
    with pytest.raises(ParameterError):
        Graph.from_dict(bad)
    with pytest.raises(ParameterError, match="missing"):
        Graph.from_dict({"weights": [1.0]})


def _monotone_paths(rng, m, steps):
    """Non-increasing p-processes: running minima of random draws."""
    raw = rng.random((steps, m)) ** rng.uniform(1, 4, size=m)
    return np.minimum.accumulate(np.maximum(raw, 1e-6), axis=0)


def test_sequential_equals_batch_at_every_time():
    rng = np.random.default_rng(11)
    for rep in range(60):
        m = int(rng.integers(2, 12))
        kind = ("soft_masked", "fully_connected")[rep % 2]
        graph = from_prior(rng.random(m), gamma=float(rng.uniform(0, 8)), kind=kind)
        order = list(prior_order(rng.random(m)))
        tester = SequentialGraphTest(graph, alpha=0.1, order=order)
        paths = _monotone_paths(rng, m, 30)
        for t in range(paths.shape[0]):
            if rep % 3 == 0:
                changed = rng.random(m) < 0.3
                tester.update({int(i): float(paths[t, i]) for i in np.flatnonzero(changed)})
                paths[t] = np.where(changed, paths[t], paths[t - 1] if t else 1.0)
                paths[t:] = np.minimum(paths[t:], paths[t])
            else:
                tester.update(paths[t])
            assert np.array_equal(tester.rejected, graph_rejections(graph, tester.pvalues, 0.1))
        assert np.array_equal(tester.rejected, graph_test(graph, tester.pvalues, 0.1).rejected)
        assert not graph.rejected.any()  # the caller's graph is not modified


def test_sequential_rejects_increase_and_round_trips():
    t = SequentialGraphTest(holm(3), alpha=0.05)
    assert t.update([0.5, 0.3, 0.012]) == [2]
    with pytest.raises(ParameterError, match="non-increasing"):
        t.update([0.6, 0.3, 0.012])
    assert t.pvalues.tolist() == [0.5, 0.3, 0.012]  # unchanged after the refused update
    saved = json.loads(json.dumps(t.to_dict()))
    assert t.update({0: 0.02}) == [0]
    again = SequentialGraphTest.from_dict(saved)
    assert again.update({0: 0.02}) == [0]
    assert np.array_equal(again.levels, t.levels) and again.steps == t.steps
    with pytest.raises(ParameterError):
        t.update({7: 0.1})
    with pytest.raises(ParameterError):
        SequentialGraphTest("not a graph", 0.05)


def test_fwer_sequential_global_null():
    """All nulls true; each p-process is 1 until its uniform p-value is revealed at a random time (a valid,
    non-increasing p-process). P(any rejection at any time) <= alpha with a binomial tolerance."""
    rng = np.random.default_rng(5)
    n, m, alpha = 4000, 6, 0.1
    graph = from_prior(rng.random(m), gamma=4.0)
    errors = 0
    for _ in range(n):
        final = rng.random(m)
        t = SequentialGraphTest(graph, alpha)
        # reveal each p-value at a random time; before that it is 1 (non-increasing, anytime valid)
        for step in range(3):
            cur = np.where(rng.random(m) < (step + 1) / 3, final, 1.0)
            cur = np.minimum(cur, t.pvalues)
            t.update(cur)
        errors += bool(t.rejected.any())
    bound = alpha + 3 * np.sqrt(alpha * (1 - alpha) / n)
    assert errors / n <= bound


# ------------------------------------------------------------------------------------------ constructors

def test_prior_vector_p1():
    g = from_prior([0.4, 0.8, 0.4], gamma=5)  # pairs (1,2), (1,3), (2,3)
    assert np.round(0.1 * g.weights, 6).tolist() == [0.010651, 0.078699, 0.010651]
    assert list(prior_order([0.4, 0.8, 0.4])) == [1, 0, 2]
    sm = np.round(g.transitions, 6)
    assert sm[1].tolist() == [0.5, 0, 0.5]
    assert sm[0].tolist() == [0, 0.1, 0.9]
    assert sm[2].tolist() == [0.119203, 0.880797, 0]
    fc = np.round(from_prior([0.4, 0.8, 0.4], gamma=5, kind="fully_connected").transitions, 6)
    assert fc[1].tolist() == [0.5, 0, 0.5]
    assert fc[0].tolist() == [0, 0.880797, 0.119203]
    assert fc[2].tolist() == [0.119203, 0.880797, 0]


def test_prior_vector_p2():
    pairs, d = pair_gaps([0.5075, 0.4575, 0.4760, 0.0200])  # A, E, F, G
    names = {(0, 1): "AE", (0, 2): "AF", (0, 3): "AG", (1, 2): "EF", (1, 3): "EG", (2, 3): "FG"}
    order = prior_order(d)
    assert [names[pairs[i]] for i in order] == ["AG", "FG", "EG", "AE", "AF", "EF"]
    g1 = from_prior(d, gamma=1)
    assert np.round(0.1 * g1.weights[order], 6).tolist() == [0.020724, 0.020081, 0.019713, 0.013380, 0.013135,
                                                              0.012966]
    g5 = from_prior(d, gamma=5)
    assert np.round(0.1 * g5.weights[order], 6).tolist() == [0.033974, 0.029023, 0.026459, 0.003812, 0.003475,
                                                              0.003256]
    idx = {v: pairs.index(k) for k, v in names.items()}
    row_fg = {k: round(float(g5.transitions[idx["FG"], idx[k]]), 6) for k in ("AG", "EG", "AE", "AF", "EF")}
    assert row_fg == {"AG": 0.1, "EG": 0.643561, "AE": 0.092714, "AF": 0.084522, "EF": 0.079203}
    row_af = {k: round(float(g5.transitions[idx["AF"], idx[k]]), 6) for k in ("AG", "FG", "EG", "AE", "EF")}
    assert row_af == {"AG": 0.036426, "FG": 0.031118, "EG": 0.028369, "AE": 0.004087, "EF": 0.9}


def test_prior_special_cases():
    for kind in ("soft_masked", "fully_connected"):
        one = from_prior([0.3], gamma=5, kind=kind)
        assert one.weights.tolist() == [1.0] and one.transitions.tolist() == [[0.0]]
        g = from_prior(np.random.default_rng(1).random(10), gamma=2, kind=kind)
        np.testing.assert_allclose(g.transitions.sum(axis=1), 1.0, atol=1e-9)
    nop = from_prior(None, kind="soft_masked", m=6)
    assert nop == holm(6)
    h = from_prior(np.random.default_rng(2).random(6), gamma=0, kind="fully_connected")
    np.testing.assert_allclose(h.weights, holm(6).weights)
    np.testing.assert_allclose(h.transitions, holm(6).transitions)
    z = from_prior([0.0, 0.005, 0.2], gamma=1)  # d = 0 -> 0.01 in the weights
    assert z.weights[0] > z.weights[1]
    assert list(prior_order([0.0, 0.005, 0.2])) == [2, 1, 0]  # order uses the raw gaps
    with pytest.raises(ParameterError, match=">= 0"):
        from_prior([0.1, -0.2], gamma=1)
    with pytest.raises(ParameterError, match="graph kind"):
        from_prior([0.1, 0.2], kind="star")
    with pytest.raises(ParameterError):
        from_prior(None)
    with pytest.raises(ParameterError):
        from_prior([0.1, 0.2], gamma=-1)
    wb = weighted_bonferroni_from_prior([0.1, 0.5], gamma=2)
    assert wb.weights[0] > wb.weights[1] and not wb.transitions.any()


def test_other_constructors():
    fs = fixed_sequence(4, order=[2, 0, 3, 1])
    assert fs.weights.tolist() == [0, 0, 1, 0]
    assert fs.transitions[2, 0] == 1 and fs.transitions[0, 3] == 1 and fs.transitions[3, 1] == 1
    r = graph_rejections(fs, [0.01, 0.01, 0.01, 0.5], 0.05)
    assert r.tolist() == [True, False, True, False]  # H3 (p = 0.5) blocks H1 behind it
    r = graph_rejections(fs, [0.01, 0.5, 0.01, 0.01], 0.05)
    assert r.tolist() == [True, False, True, True]
    r = graph_rejections(fs, [0.01, 0.01, 0.2, 0.01], 0.05)
    assert not r.any()  # a non-rejection blocks every later hypothesis
    fb = fallback([0.5, 0.3, 0.2])
    assert graph_rejections(fb, [0.04, 0.012, 0.5], 0.05).tolist() == [False, True, False]
    assert graph_rejections(fb, [0.02, 0.035, 0.5], 0.05).tolist() == [True, True, False]
    wh = weighted_holm([0.2, 0.3, 0.5])
    np.testing.assert_allclose(wh.transitions[0], [0, 0.375, 0.625])
    np.testing.assert_allclose(weighted_holm([0.25] * 4).transitions, holm(4).transitions)
    assert not weighted_bonferroni([0.2, 0.3]).transitions.any()
    assert holm(1).weights.tolist() == [1.0]
    with pytest.raises(ParameterError):
        holm(0)
    with pytest.raises(ParameterError, match="permutation"):
        fixed_sequence(3, order=[0, 0, 1])
