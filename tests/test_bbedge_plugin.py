"""BB-EDGE's predictable plug-in stakes (``stake="plugin"`` and ``"plugin-eb"``, issue 15 item 3).

Numerics against a loop transcription that uses only earlier replicates, validity by seeded Monte Carlo
with a binomial tolerance (fast here; the 500-repetition study is benchmarks/studies/bbedge_monte_carlo.py and the slow
test below), state round trips and argument checks.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from certirank._integrity import STATE_FIELD, seal
from certirank.errors import ParameterError
from certirank.methods.bbedge import Leaderboard, bbedge_path
from certirank.sim.bbedge_dgp import bbedge_blocks, bbedge_panels, bbedge_probabilities, bbedge_thetas, bbedge_truth


def reference_growth(panels, labels, omega, tau=0.0, betting=False, drift=0.015):
    """One direction, loop by loop, stake from replicates < r only.

    EB factor (core.growth_stake): lambda_r = clip(a / (a + v), 0, 0.9); betting factor (core.kelly_stake):
    lambda_r = clip(a / v, 0, 0.9) and the block factor (1 + lm (Y - Yhat)) exp(lm (Yhat - mu0)).
    """
    blocks = list(dict.fromkeys(labels))
    members = {b: [i for i, lab in enumerate(labels) if lab == b] for b in blocks}
    w = {b: sum(omega[i] for i in members[b]) for b in blocks}
    blocks = [b for b in blocks if w[b] > 0]
    w_star = max(w.values())
    mu0 = (1 + tau) / 2
    a = 2 * drift * sum(w[b] / w_star for b in blocks)       # prior: 2 pseudo-replicates of drift ...
    v = 2 / 16 * sum((w[b] / w_star) ** 2 for b in blocks)   # ... and squared error 1/16 per block
    hist = {b: 0.0 for b in blocks}
    log_e, out = 0.0, []
    for r, S in enumerate(panels, start=1):
        lam = min(0.9, max(0.0, a / v if betting else a / (max(a, 0.0) + v)))
        X = (1 + S[0] - S[1]) / 2
        for b in blocks:
            Y = sum(omega[i] * X[i] for i in members[b]) / w[b]
            Yhat = (mu0 + hist[b]) / r
            lm = lam * w[b] / w_star
            if betting:
                log_e += math.log(1 + lm * (Y - Yhat)) + lm * (Yhat - mu0)
            else:
                log_e += lm * (Y - mu0) - (-math.log(1 - lm) - lm) * (Y - Yhat) ** 2
            a += (w[b] / w_star) * (Y - mu0)      # enters the stake of replicate r + 1 only
            v += (w[b] / w_star) ** 2 * (Y - Yhat) ** 2
            hist[b] += Y
        out.append(log_e)
    return np.array(out)


@pytest.mark.parametrize("stake", ["plugin", "plugin-eb"])
@pytest.mark.parametrize("n_labels, tau, zero", [(4, 0.0, False), (4, 0.03, True), (80, 0.02, False)],
                         ids=["few-classes", "tau-zero-weight", "many-classes"])
def test_plugin_stake_matches_loop_reference(monkeypatch, stake, n_labels, tau, zero):
    from certirank.methods.bbedge import engine
    monkeypatch.setattr(engine, "_CHUNK", 200)  # directions in chunks of 2 (80 blocks): the chunk loop runs
    rng = np.random.default_rng(11)
    L, N, R = 3, 80, 6
    labels = [f"b{v}" for v in (rng.integers(0, n_labels, N) if n_labels < N else range(N))]
    omega = rng.random(N)
    if zero:
        omega[np.array(labels) == labels[0]] = 0.0  # a whole zero-weight block is dropped
    omega /= omega.sum()
    p = np.array([0.7, 0.5, 0.3])[:, None]
    scores = (rng.random((R, L, N)) < p).astype(float)
    scores[:, :, :10] = rng.random((R, L, 10))  # fractional scores too
    lb = Leaderboard(["x", "y", "z"], blocks=labels, weights=omega, tau=tau, stake=stake)
    got = []
    for r in range(R):
        lb.add_replicate(scores[r])
        got.append(lb.log_e_matrix())
    got = np.array(got)
    for a, b in [(0, 1), (0, 2), (2, 0), (1, 2)]:
        pair = [s[[a, b]] for s in scores]
        if stake == "plugin":  # the average of a cautious and a bold prior drift
            ref = np.logaddexp(reference_growth(pair, labels, omega, tau, True, 0.015),
                               reference_growth(pair, labels, omega, tau, True, 0.1)) - math.log(2)
        else:
            ref = reference_growth(pair, labels, omega, tau=tau)
        np.testing.assert_allclose(got[:, a, b], ref, rtol=1e-9, atol=1e-9)
    assert got[-1, 0, 2] > 1.0 and got[-1, 2, 0] < 0.0  # evidence moved both ways: not a vacuous comparison


def test_plugin_is_the_default_and_grid_stays_selectable():
    assert Leaderboard(["a", "b"]).stake == "plugin"
    assert Leaderboard(["a", "b"], method="cr-edge").stake == "plugin"
    assert Leaderboard(["a", "b"], stake="grid").stake == "grid"
    assert Leaderboard(["a", "b"], stake="plugin-eb").stake == "plugin-eb"
    assert Leaderboard(["a", "b"], method="bfh-e-holm").stake == "grid"
    assert Leaderboard(["a", "b"], method="bb-edge-pi").stake == "b10"
    with pytest.raises(ParameterError, match="own stake rule"):
        Leaderboard(["a", "b"], method="bfh-e-holm", stake="plugin")
    with pytest.raises(ParameterError, match="stake"):
        Leaderboard(["a", "b"], stake="half-kelly")


def test_plugin_state_round_trip_and_old_states_load_as_grid():
    rng = np.random.default_rng(2)
    lb = Leaderboard(list("abc"), blocks=[f"k{i // 5}" for i in range(30)])
    ref = Leaderboard(list("abc"), blocks=[f"k{i // 5}" for i in range(30)])
    panels = (rng.random((6, 3, 30)) < np.array([0.8, 0.5, 0.2])[:, None]).astype(float)
    for r in range(3):
        lb.add_replicate(panels[r])
        ref.add_replicate(panels[r])
    back = Leaderboard.from_json(lb.to_json())
    for r in range(3, 6):
        back.add_replicate(panels[r])
        ref.add_replicate(panels[r])
    np.testing.assert_array_equal(back.log_e_matrix(), ref.log_e_matrix())
    assert back.result().to_dict()["stake"] == "plugin"
    old = json.loads(Leaderboard(list("ab"), stake="grid").to_json())
    del old["stake"]  # a state written before the option existed, sealed as such
    del old[STATE_FIELD]
    assert Leaderboard.from_json(json.dumps(seal(old))).stake == "grid"


def _fwer(p, reps, R, seed, alpha, L, stake="plugin"):
    """Anytime FWER (any false edge at any r <= R) with every direction a true null."""
    truth = bbedge_truth(None, p=p)
    null = ~truth.true_edge
    np.fill_diagonal(null, False)
    hits = 0
    for child in np.random.SeedSequence(seed).spawn(reps):
        P = bbedge_panels(child, "combined", L=L, N=p.shape[1], R=R, block_size=5, p=p)
        cert = bbedge_path(P, alpha=alpha, blocks=list(bbedge_blocks(p.shape[1], 5)), stake=stake)["certified"]
        hits += bool((cert & null).any())
    return hits / reps


@pytest.mark.parametrize("stake", ["plugin", "plugin-eb"])
def test_plugin_anytime_fwer_all_null_heterogeneous_blocks(stake):
    # all models tied in weighted mean, opposite item effects (blocks disagree), within-block dependence:
    # alpha = 0.3 so that an invalid e-process would show (threshold 3.3 instead of 20)
    L, reps, alpha = 4, 400, 0.3
    p = bbedge_probabilities(L, 40, heterogeneity=True, thetas=np.full(L, 0.5))
    fwer = _fwer(p, reps, 25, 515, alpha, L, stake)
    assert fwer <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / reps)


def test_betting_factor_dominates_eb_factor_for_the_same_stakes():
    # log(1 + lm xi) >= lm xi - psi_E(lm) xi^2: with identical stakes the betting e-value is never smaller
    rng = np.random.default_rng(4)
    xi = rng.uniform(-0.99, 1.0, 10_000)
    lm = rng.uniform(0.0, 0.9, 10_000)
    assert np.all(np.log1p(lm * xi) >= lm * xi - (-np.log1p(-lm) - lm) * xi ** 2 - 1e-15)


def test_plugin_power_not_below_grid_heterogeneity():
    # same panels for every stake; each plug-in certifies at least as many true edges by r = 40 (on average)
    truth = bbedge_truth(bbedge_thetas(10))
    got = {"grid": 0.0, "plugin-eb": 0.0, "plugin": 0.0}
    for child in np.random.SeedSequence(7).spawn(8):
        P = bbedge_panels(child, "heterogeneity", R=40)
        for stake in got:
            cert = bbedge_path(P, blocks=list(bbedge_blocks(100, 5)), stake=stake)["certified"]
            got[stake] += float((cert[-1] & truth.true_edge).sum())
    assert got["plugin"] > got["plugin-eb"] >= got["grid"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("setting", ["iid", "heterogeneity", "dependence", "combined"])
@pytest.mark.parametrize("stake", ["plugin", "plugin-eb"])
def test_plugin_anytime_fwer_spec_generator_slow(setting, stake):
    truth = bbedge_truth(bbedge_thetas(10))
    null = ~truth.true_edge
    np.fill_diagonal(null, False)
    reps, hits = 300, 0
    for child in np.random.SeedSequence([15, len(setting)]).spawn(reps):
        P = bbedge_panels(child, setting, R=100)
        cert = bbedge_path(P, blocks=list(bbedge_blocks(100, 5)), stake=stake)["certified"]
        hits += bool((cert & null).any())
    assert hits / reps <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / reps)


@pytest.mark.parametrize("stake", ["plugin", "plugin-eb"])
def test_plugin_boundary_null_unequal_weights_single_direction(stake):
    # Proposition 1's setting: blocks of unequal weight (0.25, 0.75) whose means sit on opposite sides of
    # mu_0 while the weighted mean is exactly mu_0 (Delta = 0). Ville: P(sup_r E_r >= 1/alpha) <= alpha.
    alpha, reps, R = 0.2, 300, 40
    pa = np.array([0.6, 0.5, 0.5, 0.5])
    pb = np.array([0.4, 0.5 + 1 / 15, 0.5 + 1 / 15, 0.5 + 1 / 15])
    assert 0.25 * (pa - pb)[0] + 0.25 * (pa - pb)[1:].sum() == pytest.approx(0.0, abs=1e-15)
    rng = np.random.default_rng(99)
    hits = 0
    for _ in range(reps):
        lb = Leaderboard(["a", "b"], alpha=alpha, blocks=["p", "q", "q", "q"], weights=[0.25] * 4, stake=stake)
        u = rng.random((R, 2, 4))
        ever = False
        for r in range(R):
            lb.add_replicate((u[r] < np.vstack([pa, pb])).astype(float))
            ever |= bool((lb.log_e_matrix()[[0, 1], [1, 0]] >= math.log(1 / alpha)).any())
        hits += ever
    assert hits / reps <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / reps)
