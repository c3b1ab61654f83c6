"""The statistical core of CertifiedStopping, fed scores directly (no inspect_ai needed).

Seeded Monte Carlo with one-sided binomial tolerances: if the true error rate is <= alpha, the number of
errors exceeds the 99.9% binomial quantile with probability <= 0.001.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom

from certirank.errors import ParameterError
from certirank.evidence import finite_confidence_sequence, one_sample_batch
from certirank.integrations._stopping import StoppingCore

ALPHA = 0.05


def _max_errors(runs: int) -> int:
    return int(binom.ppf(0.999, runs, ALPHA))


def _orders(n: int, runs: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.stack([rng.permutation(n) for _ in range(runs)])


def _run(core: StoppingCore, values: np.ndarray, orders: np.ndarray, schedule: str = "epoch-major") -> None:
    """Feed `values` (samples, epochs) in each run's order, epoch by epoch (inspect) or sample by sample."""
    n, epochs = values.shape
    if schedule == "epoch-major":
        for e in range(epochs):
            for t in range(n):
                core.observe(e + 1, values[orders[:, t], e])
    else:
        for t in range(n):
            for e in range(epochs):
                core.observe(e + 1, values[orders[:, t], e])


@pytest.mark.parametrize("name", ["bernoulli", "rare_zeros", "sorted_ramp"])
def test_wrong_threshold_decision_at_most_alpha_when_the_average_is_tau(name):
    n, runs, tau = 200, 1500, 0.7
    k = int(n * tau)
    pops = {"bernoulli": np.r_[np.ones(k), np.zeros(n - k)],
            "rare_zeros": np.r_[np.zeros(8), np.full(n - 8, n * tau / (n - 8))],
            "sorted_ramp": np.linspace(0.4, 1.0, n)}
    values = pops[name][:, None]
    assert abs(values.mean() - tau) < 1e-12
    core = StoppingCore("threshold", n, 1, alpha=ALPHA, threshold=tau, runs=runs, track_cs=False)
    _run(core, values, _orders(n, runs, seed=len(name)))
    wrong = int(np.count_nonzero(core.decision_codes()))  # any decision is wrong at the boundary
    assert wrong <= _max_errors(runs), (name, wrong / runs)


@pytest.mark.parametrize("schedule", ["epoch-major", "sample-major"])
def test_epochs_population_that_breaks_the_with_replacement_test(schedule):
    """40 samples x 8 epochs; each sample repeats its answer in 7 of 8 epochs; the average is exactly 0.5.

    The passes differ (pass averages 0.45..0.55), so "above" needs every pass to be certified above and the
    pass whose average is below 0.5 protects the claim. Run sample by sample, a with-replacement test of the
    score stream sees 8 near-copies as independent evidence and decides wrongly far more often than alpha.
    """
    n, epochs, runs, tau = 40, 8, 1500, 0.5
    rng = np.random.default_rng(5)
    base = np.r_[np.ones(n // 2), np.zeros(n // 2)]
    values = np.repeat(base[:, None], epochs, axis=1)
    flip = rng.integers(0, epochs, n)
    values[np.arange(n), flip] = 1 - values[np.arange(n), flip]
    assert values.mean() == tau and len(set(values.mean(axis=0))) > 1
    orders = _orders(n, runs, seed=9)
    core = StoppingCore("threshold", n, epochs, alpha=ALPHA, threshold=tau, runs=runs, track_cs=False)
    _run(core, values, orders, schedule)
    wrong = int(np.count_nonzero(core.decision_codes()))
    assert wrong <= _max_errors(runs), wrong / runs
    if schedule == "sample-major":
        stream = values[orders].reshape(runs, -1)
        naive = one_sample_batch(stream, tau, ALPHA)
        assert np.count_nonzero(naive.decision) > 2 * _max_errors(runs), np.mean(naive.decision != 0)


def test_reference_within_margin_and_direction_errors_at_most_alpha():
    # differences to the reference with mean exactly 0.1 = the margin: "within" and "worse" are both wrong
    n, runs, margin = 100, 500, 0.1
    d = np.r_[np.full(30, 1.0), np.full(20, -1.0), np.zeros(50)]
    assert abs(d.mean() - margin) < 1e-12
    core = StoppingCore("reference", n, 1, alpha=ALPHA, margin=margin, bounds=(-1, 1), runs=runs, grid=101)
    _run(core, d[:, None], _orders(n, runs, seed=3))
    codes = core.decision_codes()
    wrong = int(np.count_nonzero((codes == 3) | (codes == -1)))
    assert wrong <= _max_errors(runs), wrong / runs


def test_precision_stops_at_the_first_narrow_enough_point_and_covers():
    n, runs, eps = 150, 200, 0.3
    values = (np.arange(n) % 10 < 7).astype(float)[:, None]
    orders = _orders(n, runs, seed=4)
    core = StoppingCore("precision", n, 1, alpha=ALPHA, precision=eps, runs=runs, grid=101)
    lowers, uppers = [], []
    for t in range(n):
        core.observe(1, values[orders[:, t], 0])
        lo, hi = core.intervals()
        lowers.append(lo)
        uppers.append(hi)
    lower, upper = np.array(lowers).T, np.array(uppers).T
    first = np.argmax(upper - lower < eps, axis=1) + 1
    assert np.array_equal(core.passes[0].decided_at, first)
    assert np.all(core.decision_codes() == 2)
    # the same numbers as the evidence layer's confidence sequence
    ref = finite_confidence_sequence(values[orders[0], 0], n, ALPHA, grid=101)
    np.testing.assert_array_equal(ref.lower, lower[0])
    missed = ~np.all((lower <= 0.7 + 1e-12) & (upper >= 0.7 - 1e-12), axis=1)
    assert int(missed.sum()) <= _max_errors(runs)


def test_summary_and_parameter_errors():
    core = StoppingCore("threshold", 20, 2, threshold=0.5)
    for v in [1.0] * 20:
        core.observe(1, v)
    d = core.to_dict()
    assert d["passes"][0]["decision"] == "above" and d["decision"] is None  # pass 2 has not spoken
    assert d["samples_used"] == 20 and d["samples_total"] == 40
    assert 0.5 < d["passes"][0]["lower"] <= 1.0
    with pytest.raises(ParameterError, match="threshold=tau"):
        StoppingCore("threshold", 10)
    with pytest.raises(ParameterError, match="epoch 3"):
        core.observe(3, 1.0)
