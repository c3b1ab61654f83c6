"""Prediction-powered evidence (issue 35 item 3): unbiasedness, a useless proxy costs nothing, a lying proxy
keeps the level, and every bad input is one line."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

import certirank
from certirank.errors import DataError, ParameterError
from certirank.evidence.betgrid import BetGrid
from certirank.evidence.ppi import ProxyTest, proxy_batch, rectified


def _draw(rng, runs, n, px, py, accuracy, pi, lie=0.0):
    """Binary outcomes; the proxy copies each outcome with prob `accuracy`, else flips it; a liar adds `lie`
    to policy X's proxy (clipped to [0, 1]); units labelled with probability pi."""
    x = (rng.random((runs, n)) < px).astype(float)
    y = (rng.random((runs, n)) < py).astype(float)
    fx = np.where(rng.random((runs, n)) < accuracy, x, 1 - x)
    fy = np.where(rng.random((runs, n)) < accuracy, y, 1 - y)
    fx = np.clip(fx + lie, 0, 1)
    lab = rng.random((runs, n)) < pi
    return x, y, fx, fy, lab


def test_rectified_value_is_unbiased_whatever_the_proxy():
    """Exact enumeration over a small discrete model: E[v] = E[d] for any proxy and any fixed weight."""
    pi = 0.3
    # joint law of (x, y, fx, fy): outcomes 0/1, a proxy biased toward y
    for theta in (-0.7, 0.0, 0.4, 1.0):
        ev, ed = 0.0, 0.0
        for x, y, fx, fy in itertools.product((0, 1), repeat=4):
            p = (0.4 if x else 0.6) * (0.7 if y else 0.3) * (0.9 if fx == x else 0.1) * (0.95 if fy == 1 else 0.05)
            for xi, pxi in ((1, pi), (0, 1 - pi)):
                v = rectified(np.array(fy - fx, float), np.array(y - x, float), np.array(float(xi)), np.array(theta), pi)
                ev += p * pxi * float(v)
            ed += p * (y - x)
        assert ev == pytest.approx(ed, abs=1e-12)


def test_useless_proxy_costs_nothing_weight_zero_is_the_real_only_test():
    """With weight 0 the wealth equals the grid-mixture test on the labelled differences alone, to the bit."""
    rng = np.random.default_rng(1)
    x, y, fx, fy, lab = _draw(rng, 3, 300, 0.4, 0.6, 0.5, 0.25)
    out = proxy_batch(x, y, fx, fy, lab, 0.25, 0.05, weight=0.0)
    for r in range(3):
        d = (y[r] - x[r])[lab[r]]
        bank = BetGrid(1, 2)
        for v in d:
            bank.step(np.array([[v, -v]]), np.ones((1, 2)))
        assert out["p_less"][r] == pytest.approx(float(bank.pvalues[0, 0]), rel=1e-12)
        assert out["p_more"][r] == pytest.approx(float(bank.pvalues[0, 1]), rel=1e-12)


def test_lying_proxy_keeps_the_level():
    """Equal policies, a proxy biased toward X by 0.5 (it 'sees' X succeed): P(any claim) <= alpha."""
    runs, n, pi, alpha = 300, 600, 0.2, 0.1
    rng = np.random.default_rng(2)
    x, y, fx, fy, lab = _draw(rng, runs, n, 0.5, 0.5, 0.9, pi, lie=0.5)
    out = proxy_batch(x, y, fx, fy, lab, pi, alpha)
    claims = int((out["decision"] != 0).sum())
    assert claims <= int(stats.binom.isf(1e-4, runs, alpha))


def test_good_proxy_needs_fewer_labels_than_real_only():
    """95 %-accurate proxy: decisions come with markedly fewer real labels than the real-only test."""
    runs, n, pi = 40, 1000, 0.2
    rng = np.random.default_rng(3)
    x, y, fx, fy, lab = _draw(rng, runs, n, 0.5, 0.62, 0.95, pi)
    ppi = proxy_batch(x, y, fx, fy, lab, pi, 0.05)
    real = proxy_batch(x, y, fx, fy, lab, pi, 0.05, weight=0.0)
    assert (ppi["decision"] == 1).mean() > (real["decision"] == 1).mean() + 0.2
    assert (ppi["decision"] == -1).sum() == 0


def test_compare_with_proxy_and_streaming_agree():
    rng = np.random.default_rng(4)
    x, y, fx, fy, lab = _draw(rng, 1, 400, 0.4, 0.7, 0.9, 0.3)
    xs = np.where(lab[0], x[0], np.nan)
    ys = np.where(lab[0], y[0], np.nan)
    r = certirank.compare(xs, ys, proxy_x=fx[0], proxy_y=fy[0], label_rate=0.3)
    t = ProxyTest(0.3)
    for i in range(400):
        t.update(None if np.isnan(xs[i]) else xs[i], None if np.isnan(ys[i]) else ys[i], fx[0, i], fy[0, i])
    assert r.decision == t.decision == "x<y" and r.decided_at == t.decided_at
    assert r.labels == t.labels == int(lab.sum()) and r.label_rate == 0.3
    assert 0.5 < r.proxy_weight <= 1 and r.verdict == "certified"
    assert "proxy" in r.test


def _ok():
    return dict(x=[0.0, np.nan, 1.0, np.nan], y=[1.0, np.nan, 1.0, np.nan], proxy_x=[0.1, 0.2, 0.3, 0.4],
                proxy_y=[0.5, 0.6, 0.7, 0.8], label_rate=0.5)


@pytest.mark.parametrize("change, err, words", [
    ({"label_rate": 0}, ParameterError, "label_rate"),
    ({"label_rate": 1.5}, ParameterError, "label_rate"),
    ({"label_rate": "half"}, ParameterError, "label_rate"),
    ({"proxy_x": [0.1, 1.2, 0.3, 0.4]}, DataError, "proxy_x"),
    ({"proxy_y": [0.1, np.nan, 0.3, 0.4]}, DataError, "blank proxy"),
    ({"x": [0.0, 0.5, 1.0, np.nan]}, DataError, "unit 1"),
    ({"label_rate": 1.0}, DataError, "every unit was labelled"),
    ({"y": [1.0, np.nan, 2.0, np.nan]}, DataError, "outside"),
    ({"proxy_y": [0.5, 0.6]}, DataError, "same length"),
])
def test_bad_inputs_are_one_line(change, err, words):
    kw = {**_ok(), **change}
    with pytest.raises(err, match=words) as e:
        certirank.compare(**kw)
    assert "\n" not in str(e.value)


def test_label_count_implausible_for_the_declared_rate():
    n = 400
    x = np.zeros(n)
    with pytest.raises(DataError, match="implausible"):
        certirank.compare(x, x, proxy_x=x, proxy_y=x, label_rate=0.1)


def test_proxy_needs_all_three_and_no_real_only_options():
    with pytest.raises(ParameterError, match="label_rate"):
        certirank.compare([0.0], [1.0], proxy_x=[0.1], proxy_y=[0.2])
    with pytest.raises(ParameterError, match="bettor"):
        certirank.compare(**_ok(), bettor="nscore")


def test_unlabelled_units_never_move_a_real_only_wealth():
    """theta = 0: an unlabelled unit's factor is exactly 1 (the real-only test skips it)."""
    x = np.array([[0.0, 1.0]])
    lab = np.array([[True, False]])
    out = proxy_batch(x, x, x, 1 - x, lab, 0.5, weight=0.0)
    assert math.isclose(out["p_less"][0], 1.0) and math.isclose(out["p_more"][0], 1.0)
