"""`Ranker.record_many`: a batch of runs leaves exactly the state, decisions and errors that recording the same
runs one at a time with `Ranker.record` leaves (random streams with missing runs, several bettors and budgets,
decisions inside the batch, refusals half-way through)."""

from __future__ import annotations

import numpy as np
import pytest

from certirank import Ranker
from certirank.errors import ParameterError, StateError

POLICIES = ["P0", "P1", "P2", "P3"]


def _stream(seed: int, m: int, trials: int, miss: float) -> list[tuple[str, int, float | None]]:
    """Runs in the order a lab might finish them: trial by trial, policies shuffled, some missing."""
    rng = np.random.default_rng(seed)
    p = np.linspace(0.95, 0.05, m)
    runs = []
    for t in range(trials):
        for i in rng.permutation(m):
            runs.append((POLICIES[i], t, None if rng.random() < miss else float(rng.random() < p[i])))
    return runs


def _fresh(m: int, variant: int) -> Ranker:
    opts = [dict(), dict(method="bonferroni"), dict(bins="binary", n_max=40),
            dict(guarantee="strict", ties="assume_none")][variant]
    return Ranker(POLICIES[:m], alpha=0.2, **{"n_max": 60, **opts})


def _state(r: Ranker) -> tuple:
    snap = r.snapshot()
    # bytes, not lists: NaN (a missing run) must compare equal to itself
    arrays = {k: (np.asarray(v).shape, np.asarray(v).dtype.str, np.asarray(v).tobytes()) for k, v in snap["arrays"].items()}
    return snap["meta"], arrays, r.to_dict(), r.result().to_dict(), sorted(r._outstanding)


def _one_at_a_time(r: Ranker, runs, ahead: bool) -> int | None:
    """Records the runs one by one; the index of the first refused run (the engine is unchanged by it)."""
    for n, run in enumerate(runs):
        try:
            r.record(*run, ahead=ahead)
        except (ParameterError, StateError):
            return n
    return None


@pytest.mark.parametrize("seed", range(24))
def test_a_batch_equals_single_records(seed: int) -> None:
    m, variant = 2 + seed % 3, seed % 4
    runs = _stream(seed, m, trials=45, miss=0.15 if seed % 2 else 0.0)
    single, batch = _fresh(m, variant), _fresh(m, variant)
    assert _one_at_a_time(single, runs, ahead=True) is None
    assert batch.record_many(runs, ahead=True) == len(runs)
    assert _state(batch) == _state(single)
    assert len(single._camp.decisions) >= 1  # the stream holds decisions, so some fell inside the batch


@pytest.mark.parametrize("seed", range(12))
def test_split_batches_equal_single_records(seed: int) -> None:
    m = 3
    runs = _stream(100 + seed, m, trials=40, miss=0.1)
    single, batch = _fresh(m, seed % 4), _fresh(m, seed % 4)
    _one_at_a_time(single, runs, ahead=True)
    cuts = sorted(np.random.default_rng(seed).choice(len(runs), 4, replace=False))
    for lo, hi in zip([0, *cuts], [*cuts, len(runs)]):
        batch.record_many(runs[lo:hi], ahead=True)
    assert _state(batch) == _state(single)


@pytest.mark.parametrize("seed", range(16))
def test_until_decided_stops_after_the_deciding_run(seed: int) -> None:
    m = 2 + seed % 3
    runs = _stream(200 + seed, m, trials=45, miss=0.1 if seed % 2 else 0.0)
    single, batch = _fresh(m, seed % 4), _fresh(m, seed % 4)
    first = None
    for n, run in enumerate(runs):
        single.record(*run, ahead=True)
        if single._camp.decisions or single.done:
            first = n
            break
    assert first is not None
    taken = batch.record_many(runs, ahead=True, until_decided=True)
    assert taken == first + 1
    assert _state(batch) == _state(single)
    # the rest continues exactly as single records would
    _one_at_a_time(single, runs[taken:], ahead=True)
    batch.record_many(runs[taken:], ahead=True)
    assert _state(batch) == _state(single)


@pytest.mark.parametrize("seed", range(16))
def test_unsuggested_runs_are_refused_as_single_records_refuse_them(seed: int) -> None:
    # without ahead=True, a run the engine did not ask for is refused; the batch is then not taken at all
    m = 2 + seed % 3
    runs = _stream(300 + seed, m, trials=30, miss=0.3)
    rng = np.random.default_rng(seed)
    k = int(rng.integers(len(runs) // 2, len(runs)))
    runs.insert(k, (POLICIES[0], runs[k][1] + 3, 1.0))  # a run three trials ahead of the engine
    single, batch = _fresh(m, seed % 4), _fresh(m, seed % 4)
    refused = _one_at_a_time(single, runs, ahead=False)
    before = _state(batch)
    if refused is None:
        assert batch.record_many(runs) == len(runs)
        assert _state(batch) == _state(single)
        return
    with pytest.raises(StateError, match=rf"^run {refused} of the batch: .* was not suggested"):
        batch.record_many(runs)
    assert _state(batch) == before
    batch.record_many(runs[:refused])
    single_prefix = _fresh(m, seed % 4)
    _one_at_a_time(single_prefix, runs[:refused], ahead=False)
    assert _state(batch) == _state(single_prefix)


def test_bad_runs_name_their_position_and_change_nothing() -> None:
    r = Ranker(["A", "B"], alpha=0.1, n_max=5)
    before = _state(r)
    with pytest.raises(ParameterError, match=r"^run 1 of the batch: unknown policy 'C'"):
        r.record_many([("A", 0, 1.0), ("C", 0, 1.0)])
    with pytest.raises(ParameterError, match=r"^run 2 of the batch must be \(policy, trial_index, score\)"):
        r.record_many([("A", 0, 1.0), ("B", 0, 0.0), ("A", 1)])
    with pytest.raises(StateError, match=r"^run 1 of the batch: A trial 0 is already recorded with score 1"):
        r.record_many([("A", 0, 1.0), ("A", 0, 0.0)])
    with pytest.raises(ParameterError, match=r"runs must be a list of \(policy, trial_index, score\) triples"):
        r.record_many("A,0,1")
    assert _state(r) == before
    assert r.record_many([("A", 0, 1.0), ("A", 0, 1.0), ("B", 0, 0.0)]) == 3  # a repeated equal score: no-op
    assert r.suggest() == [("A", 1), ("B", 1)]
