"""Bradley–Terry family baselines (spec 06): BT, Davidson, BT-EM, bootstrapped BT; inputs and errors."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

import certirank
from certirank.baselines import (BaselineResult, as_comparisons, bootstrap_bt, bradley_terry, bt_em,
                                 bt_em_fit, bt_fit, davidson, preference_games)
from certirank.errors import DataError, ParameterError


def _prefs(rows):
    return pd.DataFrame(rows, columns=["policy_a", "policy_b", "preference"])


def _vector_table():
    """Spec 06 §2 test vector: counts per pair (i wins, j wins, ties)."""
    rows = []
    for i, j, wi, wj, t in (("1", "2", 6, 2, 2), ("2", "3", 5, 3, 2), ("1", "3", 7, 1, 2)):
        rows += [(i, j, 0.0)] * wi + [(i, j, 1.0)] * wj + [(i, j, 0.5)] * t
    return _prefs(rows)


def _random_prefs(seed, p=6, n=400, tie_rate=0.0):
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1, p)
    a = rng.integers(0, p, n)
    b = (a + rng.integers(1, p, n)) % p
    win = rng.random(n) < 1 / (1 + np.exp(theta[b] - theta[a]))
    pref = np.where(win, 0.0, 1.0)
    pref[rng.random(n) < tie_rate] = 0.5
    return _prefs(list(zip([f"p{k}" for k in a], [f"p{k}" for k in b], pref)))


# --------------------------------------------------------------------------------------------------
# spec 06 test vectors
# --------------------------------------------------------------------------------------------------

def test_davidson_spec_vector():
    res = davidson(_vector_table())
    theta = [res.scores[k] for k in ("1", "2", "3")]
    assert np.allclose(theta, [0.972685, -0.196219, -0.776465], atol=2e-6)
    assert res.details["tie_nu_roboarena"] == pytest.approx(0.298455, abs=2e-6)
    assert res.details["tie_nu_davidson"] == pytest.approx(0.596910, abs=4e-6)
    assert res.details["nll"] == pytest.approx(27.879640, abs=1e-5)
    assert res.details["converged"]
    assert res.order == ["1", "2", "3"]
    assert res.details["elo"]["1"] == pytest.approx(200 * theta[0] + 1500)


def test_classical_bt_spec_vector():
    exact = bradley_terry(_vector_table(), pseudo_count=0)
    assert np.allclose([exact.scores[k] for k in "123"], [0.995642, -0.203000, -0.792642], atol=2e-6)
    authors = bradley_terry(_vector_table(), tol=1e-5, max_iter=500)
    assert np.allclose([authors.scores[k] for k in "123"], [0.9921, -0.2022, -0.7898], atol=1e-3)
    assert exact.details["n_ties_ignored"] == 6 and exact.n == 24


def test_bt_score_equations_hold_at_fixed_point():
    w = _random_prefs(3).pipe(as_comparisons).win_matrix() + 0.01 * (1 - np.eye(6))
    theta, _ = bt_fit(w, pseudo_count=0.0)
    p = np.exp(theta)
    lhs = w.sum(axis=1)
    rhs = ((w + w.T) * p[:, None] / (p[:, None] + p[None, :])).sum(axis=1)
    assert np.allclose(lhs, rhs, atol=1e-7)
    assert abs(theta.mean()) < 1e-12


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bt_agrees_with_choix(seed):
    choix = pytest.importorskip("choix")
    data = _random_prefs(seed)
    comp = as_comparisons(data)
    # with the authors' pseudo-count 0.01: choix on the same (fractional) comparison matrix
    mine = bradley_terry(data)
    w = comp.win_matrix() + 0.01 * (1 - np.eye(comp.n_policies))
    ref = choix.ilsr_pairwise_dense(w, alpha=0.0, max_iter=10_000, tol=1e-13)
    ref = ref - ref.mean()
    assert np.max(np.abs(np.array([mine.scores[p] for p in comp.policies]) - ref)) < 1e-6
    # without pseudo-counts: choix's MM on the raw (winner, loser) list
    exact = bradley_terry(data, pseudo_count=0)
    pairs = [(int(a), int(b)) if y == 2 else (int(b), int(a)) for a, b, y in zip(comp.a, comp.b, comp.y)]
    ref2 = choix.mm_pairwise(comp.n_policies, pairs, max_iter=100_000, tol=1e-13)
    ref2 = ref2 - ref2.mean()
    assert np.max(np.abs(np.array([exact.scores[p] for p in comp.policies]) - ref2)) < 1e-6


def test_bootstrap_bt_spec_vector():
    block = [("1", "2")] * 6 + [("2", "1")] * 2 + [("2", "3")] * 5 + [("3", "2")] * 3 + [("1", "3")] * 7 + \
        [("3", "1")] * 1
    data = _prefs([(w, l, 0.0) for w, l in block * 3])
    res = bootstrap_bt(data, n_boot=2000, seed=0, alpha=0.05)
    iv = res.details["intervals"]
    assert np.allclose([iv[k][0] for k in "123"], [0.455, -0.799, -1.497], atol=0.01)
    assert np.allclose([iv[k][1] for k in "123"], [1.799, 0.368, -0.327], atol=0.01)
    assert res.decided_pairs == {("1", "2"), ("1", "3")}
    assert res.undecided == [["2", "3"]]
    # letters: 1 differs from 2 and 3; 2 and 3 share a letter
    let = res.details["letters"]
    assert not set(let["1"]) & set(let["2"]) and set(let["2"]) & set(let["3"])
    again = bootstrap_bt(data, n_boot=2000, seed=0, alpha=0.05)
    assert again.details["intervals"] == iv  # same seed, same output


# --------------------------------------------------------------------------------------------------
# Davidson properties
# --------------------------------------------------------------------------------------------------

def test_davidson_reduces_to_bt_without_ties():
    data = _random_prefs(5)
    dav = davidson(data)
    bt = bradley_terry(data, pseudo_count=0)
    assert dav.details["tie_nu_davidson"] == 0.0
    assert max(abs(dav.scores[p] - bt.scores[p]) for p in dav.policies) < 1e-6
    assert dav.order == bt.order


def test_davidson_recovers_tie_parameter():
    rng = np.random.default_rng(11)
    theta = np.array([0.6, 0.1, -0.2, -0.5])
    nu = 0.4  # authors' parameterisation: tie numerator 2*nu*exp((ti+tj)/2)
    n = 20_000
    a = rng.integers(0, 4, n)
    b = (a + rng.integers(1, 4, n)) % 4
    num = np.column_stack([np.exp(theta[a]), np.exp(theta[b]), 2 * nu * np.exp((theta[a] + theta[b]) / 2)])
    prob = num / num.sum(axis=1, keepdims=True)
    u = rng.random(n)
    outcome = (u > prob[:, 0]).astype(int) + (u > prob[:, 0] + prob[:, 1])
    pref = np.array([0.0, 1.0, 0.5])[outcome]
    res = davidson(_prefs(list(zip([f"p{k}" for k in a], [f"p{k}" for k in b], pref))), policies=["p0", "p1", "p2", "p3"])
    est = np.array([res.scores[f"p{k}"] for k in range(4)])
    se = np.array([res.details["standard_errors"][f"p{k}"] for k in range(4)])
    assert np.all(np.abs(est - (theta - theta.mean())) < 4 * se)
    se_nu = res.details["tie_nu_roboarena_se"]
    assert 0 < se_nu < 0.05
    assert abs(res.details["tie_nu_roboarena"] - nu) < 4 * se_nu
    assert res.details["tie_nu_davidson"] == pytest.approx(2 * res.details["tie_nu_roboarena"])


# --------------------------------------------------------------------------------------------------
# spec 06 §6: BT is inconsistent for mean ranking
# --------------------------------------------------------------------------------------------------

def test_bt_population_limit_orders_against_means():
    w = 1000 * np.array([[0, 0.3, 0.3], [0.7, 0, 0.7], [0.7, 0.3, 0]])
    theta, _ = bt_fit(w)
    assert np.allclose(theta, [-0.575962, 0.575962, 0.0], atol=1e-3)
    assert list(np.argsort(-theta)) == [1, 2, 0]  # pi2 > pi3 > pi1, but the means say pi3 > pi2


def _counterexample_scores(n, rng):
    return {"pi1": (rng.random(n) < 0.3).astype(float), "pi2": (rng.random(n) < 0.7).astype(float),
            "pi3": rng.choice([0.8, 0.9], size=n)}


def _long(scores):
    rows = [(p, f"e{j}", float(v)) for p, vals in scores.items() for j, v in enumerate(vals)]
    return pd.DataFrame(rows, columns=["policy", "env", "score"])


def test_bt_wrong_order_becomes_more_certain_with_data():
    sizes = (5, 50, 2000)
    runs = 30
    frac = {}
    for n in sizes:
        wrong = 0
        for rep in range(runs):
            rng = np.random.default_rng([n, rep])
            res = bradley_terry(_long(_counterexample_scores(n, rng)), draws="random", seed=rng)
            wrong += res.scores["pi2"] > res.scores["pi3"]
            assert res.means["pi3"] > res.means["pi2"] or n < 2000  # the means say the opposite
        frac[n] = wrong / runs
    # P(pi2 beats pi3) = 0.7 per paired trial, so BT's wrong order becomes certain as n grows
    assert frac[5] < frac[2000] and frac[50] <= frac[2000]
    assert frac[2000] == 1.0


def test_anytime_comparison_never_certifies_the_bt_order():
    # decisions of `compare` are never revoked, so one stream of 1000 paired trials checks every prefix
    runs = 12
    right = 0
    for rep in range(runs):
        scores = _counterexample_scores(1000, np.random.default_rng([7, rep]))
        cmp = certirank.compare(scores["pi2"], scores["pi3"], alpha=0.05)
        assert cmp.decision != "x>y", f"run {rep}: certified pi2 > pi3 at pair {cmp.decided_at}"
        right += cmp.decision == "x<y"
    assert right >= runs - 1  # and it finds the order of the means instead


# --------------------------------------------------------------------------------------------------
# BT-EM
# --------------------------------------------------------------------------------------------------

def test_bt_em_objective_non_decreasing_and_ranks_separated_policies():
    data = preference_games([0.2, 0.5, 0.8], 600, seed=4)
    comp = as_comparisons(data)
    fit = bt_em_fit(comp, seed=0, n_buckets=5, max_em=15, tol=0.0)
    trace = np.array(fit["trace"])
    assert np.all(np.diff(trace) >= -1e-5 * np.abs(trace[:-1]))
    assert abs(fit["theta"].mean()) < 1e-10
    res = bt_em(data, seeds=2, n_buckets=5)
    assert res.order == ["pi3", "pi2", "pi1"]
    assert res.details["seeds"] == [0, 1]
    assert set(res.details["sd"]) == set(res.policies)
    assert res.details["elo"]["pi3"] == round(15 * res.scores["pi3"] + 1500)


def test_bt_em_partials_and_quirks_run_and_are_seeded():
    rng = np.random.default_rng(2)
    scores = {"a": rng.uniform(0.5, 1, 80), "b": rng.uniform(0.3, 0.8, 80), "c": rng.uniform(0, 0.5, 80)}
    table = _long(scores)
    part = bt_em(table, seeds=2, n_buckets=4, use_partials=True)
    assert part.order == ["a", "b", "c"]
    q1 = bt_em(table, seeds=[3], n_buckets=4, reproduce_quirks=True, use_partials=True)
    q2 = bt_em(table, seeds=[3], n_buckets=4, reproduce_quirks=True, use_partials=True)
    assert q1.scores == q2.scores and q1.details["reproduce_quirks"]
    assert q1.order[0] == "a" and q1.order[-1] == "c"
    with pytest.raises(ParameterError, match="progress"):
        bt_em(_random_prefs(0), seeds=1, n_buckets=2, use_partials=True)


# --------------------------------------------------------------------------------------------------
# inputs and result shape
# --------------------------------------------------------------------------------------------------

def test_score_table_becomes_paired_preferences():
    table = pd.DataFrame({"policy": ["x", "y", "z", "x", "y", "x", "z"], "env": ["1", "1", "1", "2", "2", "3", "3"],
                          "score": [1.0, 0.5, 0.5, 0.2, 0.2, 0.0, 1.0]})
    comp = as_comparisons(table)
    assert comp.policies == ("x", "y", "z")
    # env 1: x>y, x>z, y=z; env 2: x=y; env 3: z>x
    got = sorted(zip(comp.a.tolist(), comp.b.tolist(), comp.y.tolist()))
    assert got == sorted([(0, 1, 2), (0, 2, 2), (1, 2, 1), (0, 1, 1), (0, 2, 0)])
    assert comp.means_kind == "score" and comp.means[0] == pytest.approx(0.4)
    dropped = as_comparisons(table, draws="drop")
    assert dropped.n == 3 and not np.any(dropped.y == 1)


def test_battle_layout_and_result_shape():
    battles = pd.DataFrame({"model_a": ["m1", "m2", "m1", "m3"], "model_b": ["m2", "m3", "m3", "m1"],
                            "winner": ["model_a", "tie", "m3", "model_b"]})
    res = certirank.baseline("bt_davidson", battles)
    assert isinstance(res, BaselineResult)
    d = res.to_dict()
    for key in ("method", "alpha", "policies", "decisions", "undecided", "means", "scores", "order", "ranking"):
        assert key in d
    assert d["method"] == "bt-davidson"
    assert all({"better", "worse", "kind"} <= set(x) for x in d["decisions"])
    json.dumps(d, allow_nan=False)
    with pytest.raises(Exception):
        res.method = "x"  # frozen
    # win rate with ties counted one half: m1 won 2 of 3; m3 won 1, tied 1, lost 1; m2 lost 1, tied 1
    assert res.means == pytest.approx({"m1": 2 / 3, "m2": 0.25, "m3": 0.5})


def test_public_entry_point_and_aliases():
    data = _random_prefs(1, p=3, n=60)
    assert certirank.baseline("bt", data).scores == bradley_terry(data).scores
    assert certirank.baseline("davidson", data).method == "bt-davidson"
    with pytest.raises(ParameterError, match="name must be one of bt, "):
        certirank.baseline("elo", data)
    with pytest.raises(ParameterError, match="unknown option"):
        certirank.baseline("bt", data, n_boot=10)
    with pytest.raises(ParameterError, match="alpha"):
        certirank.baseline("bt-bootstrap", data, alpha=2)


# --------------------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------------------

def test_self_comparison_is_rejected():
    with pytest.raises(DataError, match="compared with itself") as err:
        bradley_terry(_prefs([("a", "b", 0.0), ("a", "a", 1.0)]))
    assert err.value.row is not None


def test_unknown_winner_label_is_rejected():
    battles = pd.DataFrame({"model_a": ["m1", "m2"], "model_b": ["m2", "m1"], "winner": ["model_a", "m3"]})
    with pytest.raises(DataError, match="winner 'm3'"):
        davidson(battles)
    with pytest.raises(DataError, match="preference"):
        davidson(_prefs([("a", "b", 0.0), ("a", "b", 0.7)]))


def test_policy_without_comparisons_is_rejected():
    data = _prefs([("a", "b", 0.0), ("b", "a", 0.5)])
    with pytest.raises(DataError, match=r"\['c'\] have no comparisons"):
        bradley_terry(data, policies=["a", "b", "c"])
    # in a score table, a policy never run on a shared env cannot be compared
    table = pd.DataFrame({"policy": ["a", "b", "c"], "env": ["1", "1", "2"], "score": [0.1, 0.9, 0.5]})
    with pytest.raises(DataError, match="no comparisons"):
        davidson(table)
    with pytest.raises(DataError, match="unknown policy .b."):
        bradley_terry(data, policies=["a"])


def test_mle_without_pseudo_counts_needs_connected_wins():
    data = _prefs([("a", "b", 0.0), ("a", "b", 0.0), ("b", "c", 0.0), ("c", "b", 0.0)])
    with pytest.raises(DataError, match="does not exist"):
        bradley_terry(data, pseudo_count=0)
    assert bradley_terry(data).order[0] == "a"


# --------------------------------------------------------------------------------------------------
# RoboArena
# --------------------------------------------------------------------------------------------------

def test_roboarena_preferences(shared_data):
    path = shared_data / "roboarena" / "policy_preferences.csv"
    res = certirank.baseline("bt-davidson", path)
    assert res.n == 796 and res.details["n_ties"] == 150
    assert len(res.policies) == 8 and "pi05_droid" in res.policies
    assert res.order[-1] == "paligemma_binning_droid"
    assert math.isclose(sum(res.scores.values()), 0.0, abs_tol=1e-9)
    bt = certirank.baseline("bt", path)
    assert bt.n == 646 and bt.details["n_ties_ignored"] == 150


# --------------------------------------------------------------------------------------------------
# spec 06 §5: synthetic preference games
# --------------------------------------------------------------------------------------------------

def test_preference_games_generator_and_bt_coin_flip_on_tied_pair():
    games = preference_games([0.2, 0.4, 0.4, 0.6, 0.8], 50, seed=0)
    assert list(games.columns) == ["policy_a", "policy_b", "preference"]
    assert (games["policy_a"] != games["policy_b"]).all() and set(games["preference"]) <= {0.0, 1.0}
    # HO-I: plain BT orders the tied pair (pi2, pi3) either way, about half the time each
    runs = 120
    up = 0
    for r in range(runs):
        res = bradley_terry(preference_games([0.2, 0.4, 0.4, 0.6, 0.8], 300, seed=[9, r]))
        up += res.scores["pi2"] > res.scores["pi3"]
    assert abs(up / runs - 0.5) <= 3 * math.sqrt(0.25 / runs)


@pytest.mark.slow
def test_bootstrap_bt_hof_full_ranking_grows_with_games():
    """Spec 06 §5, HO-F: the fraction of runs where bootstrapped BT (B = 5000) fully ranks the five policies
    grows with the number of games (authors' anchors 0.08 @500, 0.96 @1000; certirank's generator as specified
    gives lower values, see docs/reproduction/baselines.md)."""
    runs = 60
    truth = {(f"pi{i}", f"pi{j}") for i in range(1, 6) for j in range(1, 6) if i > j}
    frac = {}
    for n in (500, 1000):
        full = 0
        for r in range(runs):
            games = preference_games([0.1, 0.3, 0.5, 0.7, 0.9], n, seed=[10, r])
            res = bootstrap_bt(games, n_boot=5000, seed=r)
            assert res.decided_pairs <= truth  # HO-F: no pair is ever reversed at these sizes
            full += res.decided_pairs == truth
        frac[n] = full / runs
    assert frac[500] <= 0.2 and frac[1000] >= frac[500] + 0.3
