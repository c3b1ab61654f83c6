"""BB-EDGE guarantees by seeded Monte Carlo: anytime FWER on the spec's generator, same-model splits, power order.

Fast configurations (60 repetitions x R = 30); the full 500-repetition study is benchmarks/studies/bbedge_monte_carlo.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from certirank.methods.bbedge import bbedge_path
from certirank.sim.bbedge_dgp import (
    SETTINGS,
    bbedge_blocks,
    bbedge_panels,
    bbedge_probabilities,
    bbedge_thetas,
    bbedge_truth,
    semi_synthetic_panels,
)

ALPHA = 0.05
REPS = 60
R = 30


def tolerance(n: int, alpha: float = ALPHA) -> float:
    return alpha + 3 * math.sqrt(alpha * (1 - alpha) / n)


def fwer_and_power(setting: str, method: str, reps: int, R: int, seed: int, block_size: int = 5):
    truth = bbedge_truth(bbedge_thetas(10))
    null = ~truth.true_edge
    np.fill_diagonal(null, False)
    blocks = list(bbedge_blocks(100, block_size)) if method != "cr-edge" else "replicate"
    false_any = 0
    power = np.zeros(R)
    for child in np.random.SeedSequence(seed).spawn(reps):
        P = bbedge_panels(child, setting, L=10, N=100, R=R, block_size=5)
        cert = bbedge_path(P, alpha=ALPHA, blocks=blocks, method=method)["certified"]
        false_any += bool((cert & null).any())
        power += (cert & truth.true_edge).sum(axis=(1, 2)) / truth.true_edge.sum()
    return false_any / reps, power / reps


@pytest.mark.parametrize("setting", list(SETTINGS))
def test_anytime_fwer_bbedge(setting):
    fwer, power = fwer_and_power(setting, "bb-edge", REPS, R, seed=2026)
    assert fwer <= tolerance(REPS)
    assert power[-1] > 0.2  # it does certify true edges (not vacuous)


@pytest.mark.parametrize("method", ["bfh-e-holm", "cr-edge", "bb-edge-pi"])
def test_anytime_fwer_variants_combined_setting(method):
    fwer, _ = fwer_and_power("combined", method, REPS, R, seed=11)
    assert fwer <= tolerance(REPS)


def test_power_order_heterogeneity():
    # paper §6.1: empirical-Bernstein variance adaptation beats the Hoeffding penalty, block factorisation beats
    # one block per run
    _, p_bb = fwer_and_power("heterogeneity", "bb-edge", 20, R, seed=5)
    _, p_bfh = fwer_and_power("heterogeneity", "bfh-e-holm", 20, R, seed=5)
    _, p_cr = fwer_and_power("heterogeneity", "cr-edge", 20, R, seed=5)
    assert p_bb[-1] > p_bfh[-1] + 0.1
    assert p_bb[-1] > p_cr[-1] + 0.1


def test_fwer_with_margin_counts_small_gaps_as_nulls():
    # tau = 0.05 > every adjacent gap (0.045): adjacent pairs become true nulls of Delta <= tau
    truth = bbedge_truth(bbedge_thetas(10), tau=0.05)
    null = ~truth.true_edge
    np.fill_diagonal(null, False)
    false_any = 0
    for child in np.random.SeedSequence(77).spawn(REPS):
        P = bbedge_panels(child, "iid", R=R)
        cert = bbedge_path(P, tau=0.05, blocks=list(bbedge_blocks(100, 5)))["certified"]
        false_any += bool((cert & null).any())
    assert false_any / REPS <= tolerance(REPS)


def _split_has_edge(reps20: np.ndarray, rng: np.random.Generator) -> bool:
    """Split 20 replicates of one model (20, N) into two pseudo-models of 10 paired replicates."""
    perm = rng.permutation(reps20.shape[0])
    a, b = reps20[perm[:10]], reps20[perm[10:]]
    panels = np.stack([a, b], axis=1)  # (10, 2, N)
    return bool(bbedge_path(panels, alpha=ALPHA, blocks="items")["certified"].any())


def test_same_model_split_diagnostic_synthetic():
    # heterogeneous item probabilities (the heterogeneity setting's model 0); each split uses fresh replicates
    p = bbedge_probabilities(10, 100, heterogeneity=True)[:1]
    n = 200
    rng = np.random.default_rng(31)
    hits = 0
    for child in np.random.SeedSequence(31).spawn(n):
        reps20 = bbedge_panels(child, "iid", L=1, N=100, R=20, p=p)[:, 0, :]
        hits += _split_has_edge(reps20, rng)
    assert 1 - hits / n >= 1 - tolerance(n)


def test_same_model_split_diagnostic_gsm8k_semi_synthetic(shared_data):
    import pandas as pd

    df = pd.read_csv(shared_data / "llm" / "helm_lite_gsm8k.csv")
    wide = df.pivot(index="model", columns="item", values="score")
    run = wide.loc[["m00", "m40"]].to_numpy(dtype=float)
    n = 60
    rng = np.random.default_rng(8)
    hits = 0
    for k, child in enumerate(np.random.SeedSequence(8).spawn(n)):
        reps20 = semi_synthetic_panels(child, run[k % 2][None, :], R=20)[:, 0, :]
        hits += _split_has_edge(reps20, rng)
    assert 1 - hits / n >= 1 - tolerance(n)


def test_generator_marginals_and_dependence():
    p = bbedge_probabilities(10, 100, heterogeneity=True)
    P = bbedge_panels(4, "combined", R=400)
    freq = P.mean(axis=0)
    # P(S = 1) = p exactly; 400 draws -> sd <= 0.025 per cell, the mean absolute error is far smaller
    assert np.abs(freq - p).mean() < 0.03
    assert abs(float((freq - p).mean())) < 0.005
    # within-block dependence (kappa1 = 0.5): items in the same block correlate, items in different blocks do not
    x = P[:, 0, :] - p[0]
    same = np.mean([np.corrcoef(x[:, 0], x[:, j])[0, 1] for j in range(1, 5)])
    other = np.mean([np.corrcoef(x[:, 0], x[:, j])[0, 1] for j in range(50, 55)])
    assert same > 0.15 and abs(other) < 0.1
    truth = bbedge_truth(None, p=p)
    np.testing.assert_allclose(truth.theta, bbedge_thetas(10), atol=1e-12)
