"""RPOSST (spec 05): measures, RM+ vs exact LP/MILP, baselines, reader, protocol, Racing Arrows."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pandas as pd
import pytest

import certirank
from certirank.errors import DataError, ParameterError
from certirank.methods.rposst import (compose_test, cvar, cvar_weights, evaluate_test_designs, holdout_size, kofn,
                                     kofn_weights, read_test_matrix)
from certirank.methods.rposst import _core

# spec 05's vectors and solvers are about the RPOSST design itself, not the default out-of-sample choice
compose_rposst = functools.partial(compose_test, select="rposst")

# spec 05 §15 R2
A_R2 = np.array([[0.4, 0.4, 0.9, 0.5],
                 [0.4, 0.4, 0.7, 0.6],
                 [0.1, 0.8, 0.8, 1.0],
                 [0.8, 0.3, 0.3, 0.7],
                 [0.7, 0.7, 0.9, 0.3]])
LOSS_R1 = np.array([0.3, 0.1, 0.5, 0.2])


def _ru_cvar(loss, psi, eta):
    """Rockafellar–Uryasev: min_ζ ζ + E[(ℓ − ζ)+]/η; the minimum sits at a support point."""
    return min(z + np.dot(psi, np.maximum(loss - z, 0.0)) / eta for z in loss)


# ------------------------------------------------------------------ measures (R1)

@pytest.mark.parametrize("eta, value", [(0.3, 0.466667), (0.5, 0.4), (1.0, 0.275), (0.01, 0.5)])
def test_r1_cvar_values(eta, value):
    assert cvar(LOSS_R1, None, eta) == pytest.approx(value, abs=1e-6)


def test_r1_cvar_weights_and_max():
    np.testing.assert_allclose(cvar_weights(LOSS_R1, None, 0.3), [0.05, 0, 0.25, 0], atol=1e-12)
    np.testing.assert_allclose(cvar_weights(LOSS_R1, None, 1.0), [0.25] * 4, atol=1e-12)
    assert cvar(LOSS_R1, None, 0.0) == 0.5


def _brute_kofn(loss, psi, k, n):
    total = 0.0
    for draw in itertools.product(range(len(loss)), repeat=n):
        prob = np.prod(psi[list(draw)])
        total += prob * np.sort(loss[list(draw)])[::-1][:k].mean()
    return total


@pytest.mark.parametrize("k, n, beta, value", [
    (1, 2, [0.3125, 0.0625, 0.4375, 0.1875], 0.35625),
    (2, 3, [0.3203125, 0.0859375, 0.3671875, 0.2265625], 0.33359375)])
def test_r1_kofn(k, n, beta, value):
    np.testing.assert_allclose(kofn_weights(LOSS_R1, None, k, n), beta, atol=1e-12)
    assert kofn(LOSS_R1, None, k, n) == pytest.approx(value, abs=1e-12)
    assert _brute_kofn(LOSS_R1, np.full(4, 0.25), k, n) == pytest.approx(value, abs=1e-12)


def test_kofn_brute_force_nonuniform_psi_and_ties():
    loss = np.array([0.2, 0.7, 0.2, 0.1, 0.7])
    psi = np.array([0.1, 0.3, 0.25, 0.15, 0.2])
    for k, n in [(1, 3), (2, 4), (4, 4)]:
        assert kofn(loss, psi, k, n) == pytest.approx(_brute_kofn(loss, psi, k, n), abs=1e-12)
    assert kofn(loss, psi, 3, 3) == pytest.approx(np.dot(psi, loss), abs=1e-12)  # k = N: the mean


def test_cvar_weights_sum_to_eta_including_boundaries():
    rng = np.random.default_rng(1)
    cases = [
        (LOSS_R1, np.full(4, 0.25), [1e-9, 0.01, 0.25, 0.5, 0.75, 1.0]),       # η on cumulative-ψ boundaries
        (np.array([0.4, 0.4, 0.4, 0.1]), np.full(4, 0.25), [0.25, 0.6, 1.0]),   # ties
        (np.array([0.9, 0.2, 0.5]), np.array([0.0, 0.5, 0.5]), [0.3, 0.5, 1.0]),  # a zero-probability pair
        (np.full(6, 0.3), np.full(6, 1 / 6), [1 / 6, 0.5, 1.0]),               # constant losses
    ]
    for _ in range(20):
        d = int(rng.integers(2, 30))
        psi = rng.dirichlet(np.ones(d))
        cases.append((rng.random(d), psi, [rng.uniform(0, 1), psi.min() / 2, float(np.sort(psi)[-1]), 1.0]))
    for loss, psi, etas in cases:
        for eta in etas:
            alpha = cvar_weights(loss, psi, eta)
            assert alpha.sum() == pytest.approx(min(eta, 1.0), abs=1e-12)
            assert np.all(alpha >= 0) and np.all(alpha <= psi + 1e-15)
            assert cvar(loss, psi, eta) == pytest.approx(_ru_cvar(loss, psi, eta), abs=1e-10)


def test_cvar_small_eta_is_max_and_eta_one_is_mean():
    rng = np.random.default_rng(2)
    loss = rng.random(100)
    assert cvar(loss, None, 0.01) == pytest.approx(loss.max(), abs=1e-12)  # η <= 1/d
    assert cvar(loss, None, 1.0) == pytest.approx(loss.mean(), abs=1e-12)


@pytest.mark.parametrize("eta", [0.0, 0.01, 0.07, 0.3, 0.9, 1.0])
def test_batched_antagonist_matches_cvar(eta):
    rng = np.random.default_rng(3)
    d = 40
    psi = rng.dirichlet(np.ones(d))
    psi[[3, 17]] = 0.0
    psi /= psi.sum()
    loss = rng.random((25, d))
    loss[0, :] = 0.5  # all tied
    L, _, _ = _core._Antagonist(psi, eta)(loss)
    np.testing.assert_allclose(L, [cvar(row, psi, eta) for row in loss], atol=1e-12)


@pytest.mark.parametrize("eta", [0.005, 0.05, 0.3, 0.77, 1.0])
@pytest.mark.parametrize("uniform", [True, False])
def test_batched_antagonist_all_paths(eta, uniform):
    # d = 120 so that mid-range η uses the partition paths (more than 16 pairs carry mass)
    rng = np.random.default_rng(5)
    d = 120
    psi = np.full(d, 1 / d) if uniform else rng.dirichlet(np.ones(d))
    loss = rng.random((30, d)).round(2)  # rounding creates many ties
    L, coef, idx = _core._Antagonist(psi, eta)(loss)
    np.testing.assert_allclose(L, [cvar(row, psi, eta) for row in loss], atol=1e-12)
    # the subgradient weights are a probability vector (Σ α/η = 1) supported on the worst pairs
    np.testing.assert_allclose(np.asarray(coef).sum(axis=1), 1.0, atol=1e-9)


# ------------------------------------------------------------------ R2 and solvers

def test_r2_solvers():
    lp = compose_rposst(A_R2, m=2, betas=(0,), solver="lp", rescale=False)
    assert lp.test_indices == [1, 4]
    np.testing.assert_allclose(lp.weights, [5 / 6, 1 / 6], atol=1e-7)
    assert lp.loss == pytest.approx(0.07, abs=1e-9)
    milp = compose_rposst(A_R2, m=2, betas=(0,), solver="milp", rescale=False)
    assert milp.test_indices == [1, 4] and milp.loss == pytest.approx(0.07, abs=1e-9)
    rm = compose_rposst(A_R2, m=2, betas=(0,), solver="rm+", rounds=300, rescale=False)
    assert rm.test_indices == [1, 4]
    assert 0.0700 <= rm.loss <= 0.0702
    assert rm.loss == pytest.approx(0.070074, abs=1e-6)
    np.testing.assert_allclose(rm.weights, [0.8336, 0.1664], atol=1e-3)
    uniform = compose_rposst(A_R2, m=2, betas=(0,), rounds=0, rescale=False)
    assert uniform.test_indices == [0, 1] and uniform.loss == pytest.approx(0.12, abs=1e-12)
    single = compose_rposst(A_R2, m=1, betas=(0,), rescale=False)
    assert single.test_indices == [1] and single.loss == pytest.approx(0.12, abs=1e-12)


def test_r2_next_best_tuple():
    problem = _core.make_problem(A_R2, np.full((1, 5), 0.2))
    tuples = _core.all_tuples(5, 2)
    sol, _ = _core.lp_all(problem, tuples, 0.01)
    assert np.sort(sol.loss)[1] == pytest.approx(0.097143, abs=1e-6)


def test_r2_rm_plus_trace():
    problem = _core.make_problem(A_R2, np.full((1, 5), 0.2))
    np.testing.assert_allclose(problem.b, [0.48, 0.52, 0.72, 0.62])
    _, log = _core.rm_plus_all(problem, np.array([[1, 4]]), 0.01, 5, trace=True)
    expected = [((0.5, 0.5), 0.17, (0.15, 0)), ((1, 0), 0.12, (0.15, 0.3)),
                ((1 / 3, 2 / 3), 0.22, (0.35, 0.2)), ((0.636364, 0.363636), 0.129091, (0.459091, 0.009091)),
                ((0.980583, 0.019417), 0.114175, (0.453266, 0.303266))]
    for (w, L, q), (ew, eL, eq) in zip(log, expected):
        np.testing.assert_allclose(w, ew, atol=1e-6)
        assert L == pytest.approx(eL, abs=1e-6)
        np.testing.assert_allclose(q, eq, atol=1e-6)


def test_r2_baselines():
    targets = np.full((1, 5), 0.2)
    tuples = _core.all_tuples(5, 2)
    for name in ("minimax-uniform", "miniaverage"):
        assert list(tuples[_core.uniform_baseline(name, A_R2, targets, tuples)]) == [0, 1]
    cases, weights = _core.iterative_minimax(A_R2, targets, 2)
    assert list(cases) == [0, 1] and list(weights) == [0.5, 0.5]


@pytest.mark.parametrize("seed", range(6))
def test_rm_plus_reaches_lp_optimum_on_random_instances(seed):
    rng = np.random.default_rng(100 + seed)
    n, p = int(rng.integers(6, 10)), int(rng.integers(4, 8))
    A = rng.random((n, p))
    m = 2 + seed % 2
    eta = [0.01, 0.2, 1.0][seed % 3]
    problem = _core.make_problem(A, _core.softmax_targets(A, [0, 1, 2, 4]))
    tuples = _core.all_tuples(n, m)
    rm = _core.rm_plus_all(problem, tuples, eta, 300)
    lp, objective = _core.lp_all(problem, tuples, eta)
    np.testing.assert_allclose(lp.loss, objective, atol=1e-7)  # the LP optimum is the CVaR of its weights
    assert np.all(rm.loss >= objective - 1e-7)                  # RM+ iterates are feasible: never below
    assert rm.loss.min() - objective.min() <= 1e-3
    _, _, milp_value = _core.milp_joint(problem, m, eta)
    assert milp_value == pytest.approx(objective.min(), abs=1e-7)


@pytest.mark.parametrize("uniform", [True, False])
def test_rm_plus_reaches_lp_optimum_with_many_pairs(uniform):
    rng = np.random.default_rng(21)
    A = rng.random((6, 30))
    psi = None if uniform else rng.dirichlet(np.ones(120)).reshape(30, 4)
    problem = _core.make_problem(A, _core.softmax_targets(A, [0, 1, 2, 4]), psi)
    tuples = _core.all_tuples(6, 2)
    rm = _core.rm_plus_all(problem, tuples, 0.3, 300)
    _, objective = _core.lp_all(problem, tuples, 0.3)
    assert np.all(rm.loss >= objective - 1e-7)
    assert rm.loss.min() - objective.min() <= 1e-3


def test_uniform_baselines_match_naive_loops():
    rng = np.random.default_rng(7)
    n, p = 7, 5
    A = rng.random((n, p))
    targets = _core.softmax_targets(A, [0, 1, 3])
    tuples = _core.all_tuples(n, 3)
    true = targets @ A
    unif = A.mean(axis=0)

    def naive(score):
        values = [score(np.abs(A[list(t)].mean(axis=0)[None, :] - true), np.abs(A[list(t)].mean(axis=0) - unif))
                  for t in itertools.combinations(range(n), 3)]
        return int(np.argmin(values))

    assert _core.uniform_baseline("minimax-uniform", A, targets, tuples) == naive(lambda e, u: e.max())
    assert _core.uniform_baseline("minimax-ttd", A, targets, tuples) == naive(lambda e, u: e.mean(axis=1).max())
    assert _core.uniform_baseline("minimax-tnp", A, targets, tuples) == naive(lambda e, u: u.max())
    assert _core.uniform_baseline("minimax-tnp-mean", A, targets, tuples) == naive(lambda e, u: e.mean(axis=0).max())
    assert _core.uniform_baseline("miniaverage", A, targets, tuples) == naive(lambda e, u: e.mean())
    # minimax uniform is CVaR(0) RPOSST_seq with T = 0
    problem = _core.make_problem(A, targets)
    sol = _core.rm_plus_all(problem, tuples, 0.0, 0)
    assert _core.first_min(sol.loss) == naive(lambda e, u: e.max())


def test_iterative_minimax_can_repeat_a_case():
    # two policies; case 0 scores (1, 0), case 1 (0, 0.5), case 2 (0.5, 0.5): target mean (0.5, 1/3)
    A = np.array([[1.0, 0.0], [0.0, 0.5], [0.5, 0.5]])
    targets = np.full((1, 3), 1 / 3)
    cases, weights = _core.iterative_minimax(A, targets, 3)
    assert weights.sum() == pytest.approx(1.0)
    assert np.all(np.isclose(weights * 3, np.round(weights * 3)))  # multiplicities / m


def test_kofn_sampled_is_seeded_and_valid():
    a = compose_rposst(A_R2, m=2, betas=(0,), solver="kofn", rescale=False, seed=5, k=1, n_samples=20)
    b = compose_rposst(A_R2, m=2, betas=(0,), solver="kofn", rescale=False, seed=5, k=1, n_samples=20)
    assert a.to_dict() == b.to_dict()
    assert sum(a.weights) == pytest.approx(1.0) and len(a.test_indices) == 2
    problem = _core.make_problem(A_R2, np.full((1, 5), 0.2))
    loss = np.abs(np.asarray(a.weights) @ A_R2[a.test_indices] - problem.b)
    assert a.kofn_loss == pytest.approx(kofn(loss, None, 1, 20), abs=1e-12)


def test_successive_rejects_finds_a_planted_best_tuple():
    # case 2 equals the target exactly on every policy, so any tuple weighting it fully has zero loss;
    # with m = 1 every arm has fixed weights and SR must return the zero-loss arm
    rng = np.random.default_rng(4)
    A = rng.random((6, 5))
    A[2] = A.mean(axis=0)
    problem = _core.make_problem(A, np.full((1, 6), 1 / 6))
    tuples = _core.all_tuples(6, 1)
    i, _, _ = _core.kofn_sampled(problem, tuples, 1, 30, 10, 600, np.random.default_rng(0))
    assert i == 2


# ------------------------------------------------------------------ compose_test API and errors

def test_compose_test_result_is_frozen_and_jsonable():
    res = certirank.compose_test(A_R2, m=2)
    assert res.m == 2 and len(res.weights) == 2 and sum(res.weights) == pytest.approx(1.0)
    assert res.n_tuples == 10 and res.n_pairs == 16 and res.scale == {"lo": 0.1, "hi": 1.0}
    d = res.to_dict()
    assert d["test_cases"] == res.test_cases and d["loss"] == res.loss
    with pytest.raises(Exception):
        res.loss = 0.0  # type: ignore[misc]
    assert np.allclose(np.sum(res.targets, axis=1), 1.0)


@pytest.mark.parametrize("kwargs, message", [
    ({"m": 5}, "m must be smaller"), ({"m": 0}, "m must be"), ({"eta": 0.0}, "eta"), ({"eta": 1.5}, "eta"),
    ({"eta": -0.1}, "eta"), ({"eta": "x"}, "eta"), ({"solver": "simplex"}, "solver"), ({"rounds": -1}, "rounds"),
    ({"betas": ()}, "betas"), ({"betas": "0,a"}, "betas")])
def test_compose_test_parameter_errors(kwargs, message):
    args = {"m": 2, **kwargs}
    with pytest.raises(ParameterError, match=message):
        compose_rposst(A_R2, **args)


def test_constant_and_bad_arrays():
    with pytest.raises(DataError, match="constant"):
        compose_rposst(np.ones((4, 3)), m=2)
    with pytest.raises(DataError, match="missing or not finite"):
        compose_rposst(np.array([[0.1, np.nan], [0.2, 0.3], [0.5, 0.6]]), m=1)
    with pytest.raises(DataError, match="2-D"):
        compose_rposst(np.arange(5.0), m=1)


# ------------------------------------------------------------------ reader

def _long_frame():
    rows = [(c, p, float(i * 3 + j)) for i, c in enumerate(["c", "a", "b"]) for j, p in enumerate(["y", "x"])]
    return pd.DataFrame(rows, columns=["test_case", "policy", "score"])


def test_reader_long_and_wide_agree(tmp_path):
    long = _long_frame()
    path = tmp_path / "long.csv"
    long.to_csv(path, index=False)
    sm = read_test_matrix(path)
    assert sm.test_cases == ("a", "b", "c") and sm.policies == ("x", "y")  # sorted by name
    assert sm.raw[0].tolist() == [4.0, 3.0] and sm.raw[2].tolist() == [1.0, 0.0]
    np.testing.assert_allclose(sm.scores, sm.raw / 7.0)  # scores span 0..7
    wide = sm.to_frame().reset_index()
    wpath = tmp_path / "wide.csv"
    wide.to_csv(wpath, index=False)
    sw = read_test_matrix(wpath)
    assert sw.test_cases == sm.test_cases and sw.policies == sm.policies
    np.testing.assert_array_equal(sw.raw, sm.raw)
    alias = long.rename(columns={"test_case": "item", "policy": "model"})
    np.testing.assert_array_equal(read_test_matrix(alias).raw, sm.raw)


def test_reader_errors(tmp_path):
    bad = _long_frame().astype({"score": object})
    bad.loc[3, "score"] = "n/a?"
    with pytest.raises(DataError, match=r"row 5.*not a number"):
        read_test_matrix(bad)
    gap = _long_frame().drop(index=2)
    with pytest.raises(DataError, match=r"no score: \(a, y\)"):
        read_test_matrix(gap)
    blank = tmp_path / "blank.csv"
    blank.write_text("test_case,p1,p2\nt1,0.1,0.2\nt2,,0.4\n")
    with pytest.raises(DataError, match=r"blank.csv.*'p1'.*t2.*missing"):
        read_test_matrix(blank)
    word = tmp_path / "word.csv"
    word.write_text("test_case,p1,p2\nt1,0.1,0.2\nt2,high,0.4\n")
    with pytest.raises(DataError, match="not a number"):
        read_test_matrix(word)
    const = tmp_path / "const.csv"
    const.write_text("test_case,p1,p2\nt1,1,1\nt2,1,1\n")
    with pytest.raises(DataError, match="constant"):
        read_test_matrix(const)
    with pytest.raises(DataError, match="no such file or folder"):
        read_test_matrix(tmp_path / "nope.csv")


# ------------------------------------------------------------------ protocol on the shipped RRPS data

def test_holdout_size_round_half_up():
    assert holdout_size(0.2, 43) == 9 and holdout_size(0.5, 43) == 22 and holdout_size(0.6, 50) == 30


def test_rrps_rposst_beats_minimax_uniform_and_miniaverage(shared_data):
    path = shared_data / "games" / "rrps_bots_43x43.csv"
    sm = read_test_matrix(path)
    assert sm.shape == (43, 43)
    res = evaluate_test_designs(sm, m=2, methods=["rposst", "minimax-uniform", "miniaverage"], holdout=0.2,
                                sets=20, seed=0, rounds=200)
    assert res.holdout_size == 9 and res.n_tuning == 34
    table = res.table.set_index("method")
    assert table.loc["rposst", "mean_max_error"] <= table.loc["minimax-uniform", "mean_max_error"]
    assert table.loc["rposst", "mean_max_error"] <= table.loc["miniaverage", "mean_max_error"]
    # training: RM+ beats uniform weights on its own objective in every set
    per = res.per_set.pivot(index="set", columns="method", values="train_loss")
    assert np.all(per["rposst"] <= per["minimax-uniform"] + 1e-12)
    for row in res.table.to_dict(orient="records"):
        curve = np.asarray(row["curve"])
        assert curve.size == 4 * 9 and np.all(np.diff(curve) <= 1e-15)
        assert curve[0] == pytest.approx(row["mean_max_error"], abs=1e-12)
    d = res.to_dict()
    assert isinstance(d["table"], list) and len(d["per_set"]) == 60


def test_protocol_parameter_errors():
    with pytest.raises(ParameterError, match="holdout"):
        evaluate_test_designs(A_R2, m=1, holdout=1.0)
    with pytest.raises(ParameterError, match="held-out"):
        evaluate_test_designs(A_R2, m=1, holdout=0.05)
    with pytest.raises(ParameterError, match="method"):
        evaluate_test_designs(A_R2, m=1, methods=["best"])


def test_protocol_is_seeded_and_lp_agrees_with_rm_plus():
    rng = np.random.default_rng(11)
    A = rng.random((9, 10))
    kw = dict(methods=["rposst", "rposst-lp", "iterative-minimax", "minimax-ttd"], sets=2, seed=4)
    a = evaluate_test_designs(A, m=[1, 2], **kw)
    b = evaluate_test_designs(A, m=[1, 2], **kw)
    pd.testing.assert_frame_equal(a.per_set, b.per_set)
    per = a.per_set.pivot_table(index=["m", "set"], columns="method", values="train_loss")
    assert np.all(np.abs(per["rposst"] - per["rposst-lp"]) <= 1e-3)


# ------------------------------------------------------------------ Racing Arrows re-creation

def test_racing_arrows_sanity_table():
    from certirank.sim.racing_arrows import race_outcome
    pi = np.pi
    rows = [(0.5, 0.5, 0.1, 0.0, False), (0.5, 1 / 3, -0.114359, 0.450401, False),
            (1 / 3, 0.5, 0.233975, 0.281500, False), (0.25, 0.5, 0.392893, 0.310414, True),
            (0.7, 0.45, 0.271284, 0.367911, True), (0.3, 0.6, 0.212673, 0.417586, True)]
    for tl, tf, lead, dist, wins in rows:
        got = race_outcome(tl * pi, tf * pi)
        assert got[0] == pytest.approx(lead, abs=1e-6) and got[1] == pytest.approx(dist, abs=1e-6)
        assert bool(got[2]) is wins


def test_racing_arrows_matrix_properties():
    from certirank.sim.racing_arrows import racing_arrows_matrix
    followers = racing_arrows_matrix(50, "followers", seed=0)
    leaders = racing_arrows_matrix(50, "leaders", seed=0)
    assert followers.shape == (50, 50)
    assert abs(followers.to_numpy().mean() - 0.22) < 0.01
    assert 25 <= len({tuple(r) for r in followers.to_numpy()}) <= 35
    assert 25 <= len({tuple(c) for c in followers.to_numpy().T}) <= 35
    np.testing.assert_array_equal(leaders.to_numpy(), 1 - followers.to_numpy().T)
    assert "re-creation" in followers.attrs["label"]
    res = compose_rposst(followers, m=1, rounds=0)
    assert res.n_test_cases == 50 and res.test_cases[0].startswith("L")


def test_protocol_errors_recomputed_by_hand():
    rng = np.random.default_rng(8)
    raw = rng.normal(50, 20, size=(7, 11))
    res = evaluate_test_designs(raw, m=2, methods=["minimax-uniform", "rposst-milp", "rposst-kofn"], holdout=0.4,
                                sets=2, seed=3, rounds=40, betas=(0, 3))
    h = holdout_size(0.4, 11)
    draws = np.random.default_rng(3)
    holds = [np.sort(draws.choice(11, size=h, replace=False)) for _ in range(2)]
    for row in res.per_set.to_dict(orient="records"):
        hold = holds[row["set"]]
        tuning = [j for j in range(11) if j not in hold]
        lo, hi = raw[:, tuning].min(), raw[:, tuning].max()
        A, Ah = (raw[:, tuning] - lo) / (hi - lo), (raw[:, hold] - lo) / (hi - lo)
        errors = []
        for beta in (0, 3):
            sigma = np.exp(-(beta / 7) * A.sum(axis=1))
            sigma /= sigma.sum()
            cases = [int(name.split()[1]) - 1 for name in row["test"].split("+")]
            estimate = np.asarray(row["weights"]) @ Ah[cases]
            errors.extend(np.abs(estimate - sigma @ Ah))
        assert row["max_error"] == pytest.approx(max(errors), abs=1e-5)
        assert row["mean_error"] == pytest.approx(np.mean(errors), abs=1e-5)
