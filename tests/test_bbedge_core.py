"""BB-EDGE e-processes: spec 04 test vectors V1-V2 and an independent loop reference for the vectorised core."""

from __future__ import annotations

import math

import numpy as np
import pytest

from certirank.methods.bbedge import Leaderboard, default_grid, make_design, psi_e

ORDER = [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]  # A->B, A->C, B->A, B->C, C->A, C->B


def reference_log_e(panels, labels, omega, tau=0.0, penalty="eb", stakes="proportional"):
    """Direct transcription of spec 04 §4 for one direction a -> b (rows 0 and 1 of each panel), with loops.

    Returns log E_r for r = 1..R. Independent of the library: no sufficient statistics, no Gram matrices.
    """
    labels = list(labels)
    omega = np.asarray(omega, dtype=float)
    blocks = [b for b in dict.fromkeys(labels)]
    members = {b: [i for i, lab in enumerate(labels) if lab == b] for b in blocks}
    w = {b: sum(omega[i] for i in members[b]) for b in blocks}
    blocks = [b for b in blocks if w[b] > 0]
    w_star = max(w[b] for b in blocks)
    grid = 0.95 * np.arange(41) / 40
    mu0 = (1 + tau) / 2
    hist = {b: 0.0 for b in blocks}
    comps = np.zeros(41)
    out = []
    for r, S in enumerate(panels, start=1):
        X = (1 + S[0] - S[1]) / 2
        for g, lam in enumerate(grid):
            total = 0.0
            for b in blocks:
                Y = sum(omega[i] * X[i] for i in members[b]) / w[b]
                Yhat = (mu0 + hist[b]) / r
                lm = lam * w[b] / w_star if stakes == "proportional" else lam
                if penalty == "eb":
                    pen = (-math.log(1 - lm) - lm) * (Y - Yhat) ** 2
                else:
                    pen = lm * lm / 8
                total += lm * (Y - mu0) - pen
            comps[g] += total
        for b in blocks:
            hist[b] += sum(omega[i] * X[i] for i in members[b]) / w[b]
        out.append(math.log(np.mean(np.exp(comps))))
    return np.array(out)


# ---------------------------------------------------------------------------------------------- V1

V1_A = np.array([0.6, 0.5, 0.5, 0.5])
V1_B = np.array([0.4, 0.5 + 1 / 15, 0.5 + 1 / 15, 0.5 + 1 / 15])
V1_LABELS = ["b1", "b2", "b2", "b2"]
V1_VALID = [0.999371, 0.999213, 0.999143, 0.999104, 0.999079]
V1_EQUAL = [1.027882, 1.060247, 1.094650, 1.130794, 1.168649]


def test_v1_proposition1_proportional_stakes_keep_e_below_one():
    lb = Leaderboard(["a", "b"], alpha=0.05, blocks=V1_LABELS, weights=[0.25] * 4, stake="grid")
    for r in range(200):
        lb.add_replicate(np.vstack([V1_A, V1_B]))
        e = np.exp(lb.log_e_matrix())
        if r < 5:
            assert e[0, 1] == pytest.approx(V1_VALID[r], abs=1e-6)
        # Delta = 0: both directions are true nulls; a supermartingale with identical replicates cannot grow
        assert e[0, 1] <= 1.0 and e[1, 0] <= 1.0
        assert lb.result().edges == []


def test_v1_equal_stakes_break_validity():
    panels = [np.vstack([V1_A, V1_B])] * 150
    ref_valid = np.exp(reference_log_e(panels[:5], V1_LABELS, [0.25] * 4))
    ref_equal = np.exp(reference_log_e(panels, V1_LABELS, [0.25] * 4, stakes="equal"))
    np.testing.assert_allclose(ref_valid, V1_VALID, atol=1e-6)
    np.testing.assert_allclose(ref_equal[:5], V1_EQUAL, atol=1e-6)
    # under a true null (Delta = 0) the non-proportional e-process grows without bound: it passes 1/alpha and
    # would certify a false edge with probability one
    assert ref_equal[-1] > 1 / 0.05
    assert np.all(np.diff(ref_equal) > 0)


# ---------------------------------------------------------------------------------------------- V2

V2 = {
    "A": ["11111011", "11001111", "11111111", "10111001"],
    "B": ["00010101", "10011001", "10111110", "01001000"],
    "C": ["00001100", "00000000", "00100100", "10001000"],
}


def v2_panel(r):
    return np.array([[float(c) for c in V2[m][r]] for m in "ABC"])


V2_SINGLETON = {
    1: ([0.435785, 0.597343, -0.993457, -0.022394, -1.134893, -0.425045], 64.313194, set()),
    2: ([0.585322, 1.752252, -1.294204, 0.617010, -1.714017, -1.130239], 59.806264, set()),
    3: ([0.919507, 3.391473, -1.495030, 1.389319, -2.060861, -1.551897], 52.916401, set()),
    4: ([1.208536, 4.006748, -1.755185, 1.061933, -2.198890, -1.585478], 53.270814, {("A", "C")}),
}


def _log_e_vector(lb):
    m = lb.log_e_matrix()
    return np.array([m[a, b] for a, b in ORDER])


def test_v2_singleton_every_replicate():
    lb = Leaderboard(list("ABC"), alpha=0.1, stake="grid")
    for r in range(1, 5):
        lb.add_replicate(v2_panel(r - 1))
        want, c, cert = V2_SINGLETON[r]
        np.testing.assert_allclose(_log_e_vector(lb), want, atol=1e-6)
        res = lb.result()
        assert math.exp(res.stages[0]["log_threshold"]) == pytest.approx(c, abs=1e-5)
        assert {tuple(e) for e in res.edges} == cert


@pytest.mark.parametrize("kwargs, want, c4, cert", [
    (dict(blocks=["1", "1", "2", "2", "3", "3", "4", "4"]),
     [1.041903, 1.970849, -1.126945, 0.907555, -1.606987, -0.965417], 56.605039, set()),
    (dict(method="cr-edge"), [0.314645, 0.565646, -0.327945, 0.238783, -0.574021, -0.283607], 63.563218, set()),
    (dict(blocks="replicate"), [0.314645, 0.565646, -0.327945, 0.238783, -0.574021, -0.283607], 63.563218, set()),
    (dict(method="bfh-e-holm"), [1.518378, 4.582378, -1.779804, 0.971320, -2.220022, -1.647908], 52.324027,
     {("A", "C")}),
    (dict(tau=0.1), [0.546830, 3.153852, -1.943572, 0.373859, -2.321041, -1.807509], 56.413476, set()),
])
def test_v2_variants_at_r4(kwargs, want, c4, cert):
    lb = Leaderboard(list("ABC"), alpha=0.1, stake="grid", **kwargs)
    for r in range(4):
        lb.add_replicate(v2_panel(r))
    np.testing.assert_allclose(_log_e_vector(lb), want, atol=1e-6)
    res = lb.result()
    assert math.exp(res.stages[0]["log_threshold"]) == pytest.approx(c4, abs=1e-5)
    assert {tuple(e) for e in res.edges} == cert


def test_v2_bfh_first_certified_at_r3():
    lb = Leaderboard(list("ABC"), alpha=0.1, method="bfh-e-holm")
    for r in range(3):
        lb.add_replicate(v2_panel(r))
    res = lb.result()
    assert res.edges == [["A", "C"]]
    assert _log_e_vector(lb)[1] == pytest.approx(4.048349, abs=1e-6)
    assert math.exp(res.stages[0]["log_threshold"]) == pytest.approx(52.809147, abs=1e-5)
    assert res.ranking.relations[0].when == 3


# ---------------------------------------------------------------------------------------------- reference

@pytest.mark.parametrize("case", ["protocol-unequal", "many-weights", "singleton-weighted", "hoeffding", "replicate"])
def test_vectorised_core_matches_loop_reference(case):
    rng = np.random.default_rng(7)
    L, N, R = 3, 60, 6
    tau = 0.03
    labels = [f"b{int(v)}" for v in rng.integers(0, 12, N)]
    omega = rng.random(N)
    omega[rng.random(N) < 0.1] = 0.0
    omega /= omega.sum()
    kwargs: dict = {"weights": omega, "tau": tau}
    ref_kwargs: dict = {}
    if case == "protocol-unequal":
        kwargs["blocks"] = labels
        ref_labels = labels
    elif case == "many-weights":  # 60 distinct block weights > 41 grid points: the psi-weighted Gram route
        kwargs["blocks"] = "items"
        ref_labels = [str(i) for i in range(N)]
        kwargs["weights"] = omega = np.linspace(1, 3, N) / np.linspace(1, 3, N).sum()
    elif case == "singleton-weighted":
        kwargs["blocks"] = "items"
        ref_labels = [str(i) for i in range(N)]
    elif case == "hoeffding":
        kwargs["blocks"] = labels
        kwargs["method"] = "bfh-e-holm"
        ref_labels = labels
        ref_kwargs["penalty"] = "hoeffding"
    else:
        kwargs["blocks"] = "replicate"
        ref_labels = ["all"] * N
    scores = rng.random((R, L, N))
    scores[:, :, : N // 2] = np.round(scores[:, :, : N // 2])  # mix binary and fractional scores
    lb = Leaderboard(["x", "y", "z"], stake="grid", **kwargs)
    got = []
    for r in range(R):
        lb.add_replicate(scores[r])
        got.append(lb.log_e_matrix())
    got = np.array(got)
    for a, b in [(0, 1), (1, 0), (2, 0), (1, 2)]:
        ref = reference_log_e([s[[a, b]] for s in scores], ref_labels, omega, tau=tau, **ref_kwargs)
        np.testing.assert_allclose(got[:, a, b], ref, rtol=1e-9, atol=1e-9)


def reference_plugin(panels, labels, omega, alpha, tau=0.0):
    """Loop transcription of BB-EDGE-PI (spec 04 §12, B10) for one direction."""
    blocks = list(dict.fromkeys(labels))
    members = {b: [i for i, lab in enumerate(labels) if lab == b] for b in blocks}
    w = {b: sum(omega[i] for i in members[b]) for b in blocks}
    w_star = max(w.values())
    W2 = sum((w[b] / w_star) ** 2 for b in blocks)
    mu0 = (1 + tau) / 2
    hist = {b: 0.0 for b in blocks}
    s2, log_e, out = 0.0, 0.0, []
    for r, S in enumerate(panels, start=1):
        X = (1 + S[0] - S[1]) / 2
        vhat_prev = (W2 / 4 + s2) / r
        lam = min(0.5, math.sqrt(2 * math.log(1 / alpha) / (vhat_prev * r * math.log(1 + r))))
        for b in blocks:
            Y = sum(omega[i] * X[i] for i in members[b]) / w[b]
            Yhat = (mu0 + hist[b]) / r
            lm = lam * w[b] / w_star
            log_e += lm * (Y - mu0) - (-math.log(1 - lm) - lm) * (Y - Yhat) ** 2
            s2 += (w[b] / w_star) ** 2 * (Y - Yhat) ** 2
            hist[b] += Y
        out.append(log_e)
    return np.array(out)


@pytest.mark.parametrize("n_labels", [4, 80])  # few weight classes (Gram route) and many (pairwise route)
def test_plugin_variant_matches_loop_reference(n_labels):
    rng = np.random.default_rng(3)
    L, N, R = 3, 80, 5
    labels = [f"b{v}" for v in (rng.integers(0, n_labels, N) if n_labels < N else range(N))]
    omega = rng.random(N)
    omega /= omega.sum()
    scores = (rng.random((R, L, N)) < 0.5).astype(float)
    lb = Leaderboard(["x", "y", "z"], blocks=labels, weights=omega, method="bb-edge-pi", tau=0.02)
    got = []
    for r in range(R):
        lb.add_replicate(scores[r])
        got.append(lb.log_e_matrix())
    got = np.array(got)
    for a, b in [(0, 1), (2, 1)]:
        ref = reference_plugin([s[[a, b]] for s in scores], labels, omega, 0.05, tau=0.02)
        np.testing.assert_allclose(got[:, a, b], ref, rtol=1e-9, atol=1e-9)


def test_grid_and_penalty_definitions():
    grid = default_grid()
    assert grid.shape == (41,) and grid[0] == 0 and grid[-1] == pytest.approx(0.95)
    assert grid[1] == pytest.approx(0.02375)
    # psi_E(lambda) = -log(1 - lambda) - lambda, compared with the series lambda^2/2 + lambda^3/3 + ...
    lam = 0.1
    series = sum(lam ** k / k for k in range(2, 60))
    assert float(psi_e(lam)) == pytest.approx(series, rel=1e-12)


def test_lambda_zero_component_bounds_e_below():
    # the lambda = 0 component is identically 1, so E >= 1/41 however strong the evidence against
    lb = Leaderboard(["good", "bad"], blocks="items", stake="grid")
    for _ in range(30):
        lb.add_replicate(np.vstack([np.ones(50), np.zeros(50)]))
    m = lb.log_e_matrix()
    assert m[1, 0] >= -math.log(41) - 1e-12
    assert m[1, 0] == pytest.approx(-math.log(41), abs=1e-6)


def test_design_drops_zero_weight_blocks_and_checks_weights():
    d = make_design(4, "protocol", labels=["p", "p", "q", "r"], weights=[0.5, 0.5, 0.0, 0.0])
    assert d.n_blocks == 1 and d.w_star == 1.0
    from certirank.errors import ParameterError
    with pytest.raises(ParameterError, match="sum to 1"):
        make_design(3, "singleton", weights=[0.5, 0.5, 0.5])
    with pytest.raises(ParameterError, match="non-negative"):
        make_design(2, "singleton", weights=[1.5, -0.5])
