"""`certirank validate` (issues 20 and 33 item 7): at least 12 distinct scenarios, each row a sequential test that
fails a method at twice its bound with probability >= 0.9, shown here on deliberately miscalibrated methods."""

from __future__ import annotations

import math

import numpy as np
import pytest

import certirank.sim.validation as V
from certirank.errors import CertirankError
from certirank.sim import register_method
from certirank.sim._registry import METHODS, MethodAdapter
from certirank.sim.rowtest import RowTest, design, operating_characteristic
from certirank.sim.scenarios import bernoulli_scenario
from certirank.sim.trajectory import Trajectory
from certirank.sim.validation import Check, register_check, run_row, validate, validation_checks


def _tolerance(p: float, n: int) -> float:
    return 3 * math.sqrt(p * (1 - p) / n)


# ------------------------------------------------------------------------------------- the row test itself

@pytest.mark.parametrize("bound, ratio, max_runs", [(0.05, 2.0, 1000), (0.10, 2.0, 1000), (0.05, 1.5, 3000)])
def test_row_test_design_has_its_power_and_level_exactly(bound, ratio, max_runs):
    t = design(bound, ratio=ratio, max_runs=max_runs)
    fail_at_alternative, _ = operating_characteristic(t, bound * ratio)
    assert fail_at_alternative >= 0.9 and t.power == pytest.approx(fail_at_alternative)
    for p in (0.0, bound / 2, bound):  # within the bound: the fail side is a level-0.001 test (Ville)
        assert operating_characteristic(t, p)[0] <= t.delta
    # the earliest passes: a slightly higher lower boundary would lose the power
    assert operating_characteristic(RowTest(t.p0, t.p1, t.delta, t.lower * 1.1, t.max_runs, 0.0), t.p1)[0] < 0.9


def test_operating_characteristic_matches_monte_carlo():
    t = design(0.05)
    rng = np.random.default_rng(11)
    for p in (0.05, 0.1):
        runs = 400
        fails = sum(t.walk(rng.random(t.max_runs) < p)[0] == "fail" for _ in range(runs))
        exact, _ = operating_characteristic(t, p)
        assert abs(fails / runs - exact) <= _tolerance(max(exact, 0.01), runs) + 1e-9


def _bernoulli_draw(p: float, seed: int):
    def draw(chunk: int, n: int) -> np.ndarray:
        return np.random.default_rng([seed, chunk]).random(n) < p
    return draw


def test_row_machinery_fails_a_method_at_twice_its_bound():
    """A method whose true FWER is exactly 2 alpha (each run false with probability 0.1) fails its row with
    probability >= 0.9; one at alpha fails almost never. 300 seeded rows each, binomial tolerance."""
    t = design(0.05)
    reps = 300
    at_2alpha = np.mean([run_row(t, _bernoulli_draw(0.10, s))["verdict"] == "fail" for s in range(reps)])
    assert at_2alpha >= 0.9 - _tolerance(0.9, reps)
    at_alpha = np.mean([run_row(t, _bernoulli_draw(0.05, s))["verdict"] == "fail" for s in range(reps)])
    assert at_alpha <= 0.001 + _tolerance(0.001, reps)


# ------------------------------------------------------------------------------------- through validate()

def _miscalibrated(scenario, data, options, seed) -> Trajectory:
    """A 'method' that, on a tied scenario, certifies a (false) order with probability `rate` per run."""
    m = len(scenario.policies)
    claims = np.zeros((1, m, m), dtype=bool)
    claims[0, 0, 1] = np.random.default_rng(seed).random() < float(options["rate"])
    return Trajectory(time=np.array([1.0]), evals=np.array([2.0]), claims=claims, end_time=1.0, end_evals=2.0)


@pytest.fixture
def miscalibrated_row(monkeypatch):
    """A row whose method's true FWER is 2 alpha, registered like any row (the registration others use)."""
    validation_checks()  # the built-in rows first, in the real registry
    monkeypatch.setattr(V, "_ROWS", dict(V._ROWS))
    monkeypatch.setitem(METHODS, "test-miscalibrated", METHODS.get("test-miscalibrated"))
    register_method(MethodAdapter(name="test-miscalibrated", kinds=("policies",), description="test only",
                                  options={"rate": 0.1}, run_one=_miscalibrated))

    def build(alpha: float, quick: bool):
        return bernoulli_scenario("validate", (0.5, 0.5), n_max=10, alpha=alpha, n_games=10)

    register_check(Check("test-miscalibrated", "2 tied policies; a method that orders them at rate 2 alpha",
                         "test-miscalibrated[rate=0.1]", build))
    return "test-miscalibrated"


@pytest.mark.parametrize("reps", [pytest.param(12, id="12-rows"), pytest.param(100, id="100-rows",
                                                                            marks=pytest.mark.slow)])
def test_validate_fails_a_miscalibrated_method_with_probability_at_least_0_9(miscalibrated_row, reps):
    """Through validate() itself (simulate, runs in chunks, the row test): the exact power is 0.90; the default
    suite checks 12 seeded rows (a machinery that missed half the failures would fail this), `slow` 100."""
    fails = [validate("quick", checks=[miscalibrated_row], seed=s).rows[0]["verdict"] == "fail" for s in range(reps)]
    assert np.mean(fails) >= 0.9 - _tolerance(0.9, reps)
    res = validate("quick", checks=[miscalibrated_row], seed=3)
    assert res.passed is (res.rows[0]["verdict"] != "fail")


def test_registered_rows_join_the_battery(miscalibrated_row):
    names = [c.name for c in validation_checks()]
    assert names[-1] == miscalibrated_row and names.count(miscalibrated_row) == 1
    with pytest.raises(CertirankError, match="already registered"):
        register_check(Check(miscalibrated_row, "another", "anyrank", lambda a, q: "HO-I"))


# ------------------------------------------------------------------------------------- the battery


def test_same_seed_same_table() -> None:
    a = validate("quick", checks=["tie-0.5", "leaderboard-model-addition"], seed=7)
    b = validate("quick", checks=["tie-0.5", "leaderboard-model-addition"], seed=7)
    strip = lambda r: [{k: v for k, v in x.items() if k != "seconds"} for x in r.rows]  # noqa: E731
    assert strip(a) == strip(b)


@pytest.mark.parametrize("kw", [{"level": "medium"}, {"reps": 0}, {"reps": 10**9}, {"checks": ["nope"]},
                                {"alpha": 1.5}, {"seed": -1}, {"backend": "no-such-backend"}, {"reps": 50}])
def test_bad_arguments(kw: dict) -> None:
    """A cap too small for the row test's power (reps=50) is refused, not silently weaker."""
    level = kw.pop("level", "quick")
    with pytest.raises(CertirankError):
        validate(level, **{"checks": ["tiny-n"], **kw})


def test_battery_covers_the_issue_list() -> None:
    names = {c.name for c in validation_checks()}
    for needed in ("tie-0", "tie-0.5", "tie-1", "near-tie", "equal-20", "heterogeneous-items", "dependent-items",
                   "tiny-n", "continuous-shapes", "sorted-replay-shuffled", "near-tie-strict",
                   "leaderboard-model-addition", "leaderboard-benchmark-update"):
        assert needed in names
