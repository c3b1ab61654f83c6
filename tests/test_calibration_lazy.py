"""The calibrated bettor builds its stake table on first use (issue 32 item 2: a small `compare` on partial-progress
scores never needs it), with the same bits as a table built when the bettor is created."""

from __future__ import annotations

import numpy as np
import pytest

from certirank.evidence import mixture
from certirank.evidence.mixture import _FIRST_STAKE, _SOLVED_LOG_C, _Calibration
from certirank.evidence.sequential import PairedTest


@pytest.mark.parametrize("target", sorted(_SOLVED_LOG_C))
def test_the_kept_first_stake_is_the_tables(target: float) -> None:
    lazy = _Calibration(target)
    first = lazy.first_stake
    assert "lam" not in vars(lazy) and "h" not in vars(lazy)  # the kept constant needed no table
    assert first == _Calibration(target).lam[0, 0]  # the table, built: the same bits
    assert set(_FIRST_STAKE) == set(_SOLVED_LOG_C)


def test_a_target_without_a_kept_stake_takes_it_from_the_table() -> None:
    cal = _Calibration(30.0, pairs=40)
    assert cal.first_stake == cal.lam[0, 0] and "lam" in vars(cal)


def _runs(monkeypatch: pytest.MonkeyPatch, eager: bool, x: np.ndarray, y: np.ndarray) -> tuple:
    """A fresh bettor (empty cache) fed x, y pair by pair and at once; with `eager` the table is built when the
    bettor is created, as before. Returns what the tests saw and whether the table was built."""
    made: list[_Calibration] = []

    def fresh(target: float) -> _Calibration:
        cal = _Calibration(float(target))
        if eager:
            cal.lam  # noqa: B018  (builds the table now)
        made.append(cal)
        return cal

    monkeypatch.setattr(mixture, "calibration", fresh)
    one = PairedTest(0.05)
    for a, b in zip(x, y):
        one.update(a, b)
    many = PairedTest(0.05).update_many(x, y)
    seen = [(t.log_evalue_less, t.log_evalue_more, t.decision, t.decided_at, t.pvalue) for t in (one, many)]
    return seen, any("lam" in vars(cal) for cal in made)


@pytest.mark.parametrize("first", ["partial", "binary"])
def test_lazy_and_eager_tables_give_the_same_bits(monkeypatch: pytest.MonkeyPatch, first: str) -> None:
    rng = np.random.default_rng(3)
    x = np.round(rng.random(60) * 0.6, 1)
    y = np.round(0.3 + rng.random(60) * 0.7, 1)
    if first == "binary":  # both 0/1 first: the stream stays binary for a while and stakes from the table
        x[:5], y[:5] = [0, 1, 0, 0, 1], [1, 1, 1, 0, 1]
    else:
        x[0], y[0] = 0.3, 0.7
    lazy, built = _runs(monkeypatch, False, x, y)
    eager, _ = _runs(monkeypatch, True, x, y)
    assert lazy == eager
    assert built == (first == "binary")  # a run that sees a partial score first never builds the table
    binary = (rng.random(80) < 0.4).astype(float), (rng.random(80) < 0.8).astype(float)
    assert _runs(monkeypatch, False, *binary)[0] == _runs(monkeypatch, True, *binary)[0]
