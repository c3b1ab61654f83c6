"""Without-replacement e-processes and confidence sequences (evidence/finite.py, docs/finite-population.md).

Validity is checked by seeded Monte Carlo over uniformly random orders of fixed finite populations whose
average sits exactly at the tested value, with a one-sided binomial tolerance: if the true error rate is
<= alpha, the count of errors exceeds the 99.9% binomial quantile with probability <= 0.001. The
martingale property itself is checked exactly, by enumerating every order of a small population.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import binom

from certirank.errors import DataError, ParameterError, StateError
from certirank.evidence import (
    FiniteConfidenceSequence,
    FiniteMeanTest,
    finite_confidence_sequence,
    finite_mean_batch,
    one_sample_batch,
)
from certirank.evidence.finite import GREATER, LESS, _FiniteMeanEngine

ALPHA = 0.05


def _max_errors(runs: int, rate: float = ALPHA) -> int:
    return int(binom.ppf(0.999, runs, rate))


def _orders(pop: np.ndarray, runs: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.stack([rng.permutation(pop) for _ in range(runs)])


def _populations(N: int, tau: float) -> dict[str, np.ndarray]:
    k = int(round(N * tau))
    rare = 10
    return {
        "bernoulli": np.r_[np.ones(k), np.zeros(N - k)],
        # a few zeros hide among values just above tau: early draws look like "mean > tau"
        "rare_zeros": np.r_[np.zeros(rare), np.full(N - rare, N * tau / (N - rare))],
        # a few ones among values just below tau: early draws look like "mean < tau"
        "rare_ones": np.r_[np.ones(rare), np.full(N - rare, (N * tau - rare) / (N - rare))],
        # sorted content; the guarantee is over the random order, so sorting the list must not matter
        "sorted_ramp": np.linspace(tau - min(tau, 1 - tau), tau + min(tau, 1 - tau), N),
    }


@pytest.mark.parametrize("tau", [0.5, 0.8])
@pytest.mark.parametrize("name", ["bernoulli", "rare_zeros", "rare_ones", "sorted_ramp"])
def test_wrong_threshold_decision_rate_at_most_alpha(name, tau):
    N, runs = 200, 1500
    pop = _populations(N, tau)[name]
    assert abs(pop.mean() - tau) < 1e-12
    x = _orders(pop, runs, seed=hash((name, tau)) % 2**32)
    res = finite_mean_batch(x, N, tau, ALPHA, alternative="two-sided")
    # the mean equals tau, so every decision ("greater" or "less") is wrong
    wrong = int(np.count_nonzero(res.decision))
    assert wrong <= _max_errors(runs), (name, tau, wrong / runs)
    one_sided = finite_mean_batch(x, N, tau, ALPHA, alternative="greater")
    assert int(np.count_nonzero(one_sided.decision)) <= _max_errors(runs), (name, tau)


def test_epoch_blocks_break_the_with_replacement_test_but_not_the_sample_level_test():
    """Epochs of one sample are scheduled back to back and score alike: a population of blocks.

    A with-replacement test fed the sample x epoch stream (and equally a without-replacement test that
    treats the N x E values as exchangeable) sees E near-copies as independent evidence and over-rejects.
    The sample is the unit that is drawn without replacement: averaging its epochs gives N values in
    [0, 1] with the same average, and the finite test on those keeps its level.
    """
    n_samples, epochs, runs, tau = 40, 8, 1500, 0.5
    rng = np.random.default_rng(19)
    pop = np.r_[np.ones(n_samples // 2), np.zeros(n_samples // 2)]  # per-sample correctness, mean 0.5
    orders = _orders(pop, runs, seed=7)
    # every epoch repeats the sample's answer except one (at a random epoch) that flips, so each
    # sample averages 7/8 or 1/8 over its epochs and the population of N x E values averages exactly 0.5
    flip = rng.integers(0, epochs, size=(runs, n_samples))
    blocks = np.repeat(orders[:, :, None], epochs, axis=2)
    r_idx, s_idx = np.indices(flip.shape)
    blocks[r_idx, s_idx, flip] = 1.0 - blocks[r_idx, s_idx, flip]
    stream = blocks.reshape(runs, -1)
    assert np.allclose(stream.mean(axis=1), tau)
    naive_wr = one_sample_batch(stream, tau, ALPHA)
    naive_wor = finite_mean_batch(stream, n_samples * epochs, tau, ALPHA, alternative="greater")
    # both naive treatments over-reject, far outside binomial noise
    assert np.count_nonzero(naive_wr.decision) > 2 * _max_errors(runs), np.mean(naive_wr.decision != 0)
    assert np.count_nonzero(naive_wor.decision) > 2 * _max_errors(runs), np.mean(naive_wor.decision != 0)
    unit = blocks.mean(axis=2)
    for alternative in ("greater", "two-sided"):
        res = finite_mean_batch(unit, n_samples, tau, ALPHA, alternative=alternative)
        assert int(np.count_nonzero(res.decision)) <= _max_errors(runs), (alternative, np.mean(res.decision != 0))


def _products(pop: np.ndarray, null_mean: float) -> np.ndarray:
    """exp(log-wealth) after every draw, for every order of `pop`: (orders, N, 2)."""
    orders = np.array(list(itertools.permutations(pop)))
    eng = _FiniteMeanEngine(orders.shape[0], pop.size, null_mean, 0.5)
    out = np.empty((orders.shape[0], pop.size, 2))
    for t in range(pop.size):
        eng.step(slice(None), np.ascontiguousarray(orders[:, t]))
        out[:, t] = np.exp(eng.log_w)
    return out


def test_e_process_is_an_exact_martingale_at_the_true_mean():
    pop = np.array([0.0, 0.2, 0.9, 1.0, 0.4, 0.75, 0.1])
    w = _products(pop, float(pop.mean()))
    # every order is equally likely, so the average over all 5040 orders is the expectation
    np.testing.assert_allclose(w.mean(axis=0), 1.0, rtol=1e-10)
    assert np.all(w > 0)


def test_e_process_is_a_supermartingale_inside_the_composite_null():
    pop = np.array([0.0, 0.2, 0.9, 1.0, 0.4, 0.75, 0.1])
    mean = float(pop.mean())
    above = _products(pop, mean + 0.05)  # H0: mu <= mean + 0.05 holds
    below = _products(pop, mean - 0.05)  # H0: mu >= mean - 0.05 holds
    assert np.all(above.mean(axis=0)[:, GREATER] <= 1.0 + 1e-10)
    assert np.all(below.mean(axis=0)[:, LESS] <= 1.0 + 1e-10)
    # and the wrong-side processes do grow: the test has power
    assert above.mean(axis=0)[-2, LESS] > 1.0
    assert below.mean(axis=0)[-2, GREATER] > 1.0


def test_confidence_sequence_covers_the_population_mean_uniformly():
    N, runs = 100, 500
    for seed, pop in enumerate([_populations(N, 0.5)["rare_zeros"], _populations(N, 0.8)["bernoulli"]]):
        x = _orders(pop, runs, seed=100 + seed)
        cs = finite_confidence_sequence(x, N, ALPHA, grid=101)
        mu = pop.mean()
        missed = ~np.all((cs.lower <= mu + 1e-12) & (cs.upper >= mu - 1e-12), axis=1)
        assert int(missed.sum()) <= _max_errors(runs), missed.mean()
        # running intersections: the interval only shrinks (checked where it never went empty, a miss)
        assert np.all(np.diff(cs.lower, axis=1) >= -1e-12)
        assert np.all(np.diff(cs.upper[~missed], axis=1) <= 1e-12)
        np.testing.assert_allclose(cs.width[:, -1], 0.0, atol=1e-12)  # all N seen: the mean is known
        assert float(np.median(cs.width[:, N // 2])) < 0.4


def test_streaming_objects_match_the_batch_forms():
    rng = np.random.default_rng(3)
    pop = rng.random(60)
    x = rng.permutation(pop)
    test = FiniteMeanTest(60, 0.4, alpha=0.1, alternative="two-sided").update_many(x[:30])
    for v in x[30:45]:
        test.update(v)
    batch = finite_mean_batch(x[:45], 60, 0.4, 0.1)
    assert test.pvalue == batch.pvalue[0]
    assert test.log_evalue == batch.log_evalue[0]
    assert test.decided_at == (int(batch.decided_at[0]) or None)
    cs = FiniteConfidenceSequence(60, alpha=0.1, grid=301)
    for v in x[:20]:
        cs.update(v)
    ref = finite_confidence_sequence(x[:20], 60, 0.1, grid=301)
    assert (cs.lower, cs.upper) == (ref.lower[-1], ref.upper[-1])
    assert cs.lower <= cs.mean <= cs.upper


def test_paired_differences_are_rescaled_from_minus_one_one():
    rng = np.random.default_rng(5)
    d = rng.choice([-1.0, 0.0, 1.0], size=80, p=[0.2, 0.4, 0.4])
    a = finite_mean_batch(d, 100, 0.1, ALPHA, bounds=(-1, 1))
    b = finite_mean_batch((d + 1) / 2, 100, 0.55, ALPHA)
    assert a.pvalue[0] == b.pvalue[0] and a.decided_at[0] == b.decided_at[0]
    cs = finite_confidence_sequence(d, 100, ALPHA, bounds=(-1, 1), grid=201)
    unit = finite_confidence_sequence((d + 1) / 2, 100, ALPHA, grid=201)
    np.testing.assert_allclose(cs.lower, 2 * unit.lower - 1, atol=1e-12)


def test_power_on_a_thousand_item_task():
    """0.1 above the threshold on 1,000 items: decided correctly well before half the task."""
    N, runs = 1000, 40
    pop = np.r_[np.ones(600), np.zeros(400)]
    res = finite_mean_batch(_orders(pop, runs, seed=11), N, 0.5, ALPHA)
    assert np.all(res.decision == 1)
    assert float(np.median(res.decided_at)) < 500


def test_values_that_settle_the_question_reject_deterministically():
    # 9 of 10 seen values are 1: the mean is at least 0.9 whatever the last one is
    test = FiniteMeanTest(10, 0.85, alternative="greater").update_many(np.ones(9))
    assert test.decision == "greater" and test.pvalue == 0.0
    test = FiniteMeanTest(10, 0.9, alternative="greater").update_many(np.ones(9))
    assert test.pvalue > 0.0  # 0.9 itself is still possible: no proof


def test_bad_input_errors():
    with pytest.raises(StateError, match="N=3"):
        FiniteMeanTest(3, 0.5).update_many([1, 0, 1, 1])
    with pytest.raises(DataError, match="outside the declared bounds"):
        FiniteMeanTest(3, 0.5).update(1.5)
    with pytest.raises(ParameterError, match="alternative"):
        FiniteMeanTest(3, 0.5, alternative="bigger")
    with pytest.raises(ParameterError, match="outside the bounds"):
        FiniteMeanTest(3, 2.0)
    with pytest.raises(DataError, match="only N=2"):
        finite_confidence_sequence([0.1, 0.2, 0.3], 2)
    assert math.isfinite(FiniteMeanTest(3, 0.5).update(0.7).log_evalue)
