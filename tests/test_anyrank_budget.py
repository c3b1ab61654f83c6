"""AnyRank with the exact budget test of spec 08 per comparison (issue 15: BudgetStreams, budget= option)."""

from __future__ import annotations

import functools
import itertools
import json
import math

import numpy as np
import pandas as pd
import pytest

from certirank.errors import DataError, ParameterError, StateError
from certirank.evidence.budget import design, level_of
from certirank.evidence.budget_streams import GRID_STEP, BudgetStreams, pvalue_grid
from certirank.methods.anyrank import Ranker, anyrank, run_campaign, run_campaigns
from certirank.methods.anyrank.config import AUTO_BUDGET_MAX, _make_setup, _setup_from_dict
from _records import decisions


def _tables(mu, runs, n, seed):
    ss = np.random.SeedSequence(seed).spawn(runs)
    return np.stack([(np.random.default_rng(s).random((n, len(mu))) < mu).astype(float) for s in ss])


def _wrong(res, mu):
    idx = {p: i for i, p in enumerate(res.policies)}
    return any(mu[idx[d["better"]]] <= mu[idx[d["worse"]]] for d in decisions(res))


def _feed(r, arr):
    while not r.done:
        for p, t in r.suggest():
            v = arr[t, r.policies.index(p)]
            r.record(p, t, float(v))
    return r


# ---------------------------------------------------------------------------- the stream bank

def test_grid_pvalue_is_conservative_and_nonincreasing():
    n = 80
    rng = np.random.default_rng(3)
    x = (rng.random((400, n)) < 0.5).astype(float)
    y = (rng.random((400, n)) < 0.6).astype(float)
    bank = BudgetStreams(400, n, alpha=0.05, ties="allow", concentration=4.0)
    des = bank.design
    gm, gp = pvalue_grid(n, des.a, des.arms)
    prev = np.ones((400, 2))
    for t in range(n):
        bank.update(None, x[:, t], y[:, t])
        p = np.stack([bank.pvalue_less, bank.pvalue_more], axis=1)
        assert (p <= prev + 1e-15).all()
        prev = p
    lr = bank.log_running_max
    exact = level_of(lr.ravel(), n, des.a, des.arms).reshape(lr.shape)
    # never below the exact G(R) (validity), never above G at the grid point one step below R (precision)
    assert (prev >= exact - 1e-12).all()
    lower = level_of(np.maximum(lr.ravel() - GRID_STEP - 1e-9, 0.0), n, des.a, des.arms).reshape(lr.shape)
    assert (prev <= lower + 1e-12).all()
    assert gp[0] == 1.0 and (np.diff(gp) <= 0).all() and (np.diff(gm) > 0).all()


def test_enumeration_of_every_path_keeps_every_level():
    # all 2^12 sequences of discordant pairs at a tie (the paired worst case): for every level a,
    # P(exists k <= N: p_k <= a) <= a, exactly
    n = 12
    paths = np.array(list(itertools.product([0.0, 1.0], repeat=n)))
    bank = BudgetStreams(paths.shape[0], n, alpha=0.1, ties="assume_none", concentration=2.0)
    pmin = np.ones(paths.shape[0])
    for t in range(n):
        bank.update(None, 1.0 - paths[:, t], paths[:, t])
        pmin = np.minimum(pmin, bank.pvalue_less)
    for a in np.unique(pmin):
        assert np.mean(pmin <= a) <= a + 1e-12
    assert np.mean(pmin <= 0.1) > 0.02  # the test is not empty


def test_final_budget_refuses_one_more_trial_and_binary_is_enforced():
    bank = BudgetStreams(2, 3, alpha=0.05)
    for _ in range(3):
        bank.update(None, [0.0, 1.0], [1.0, 1.0])
    with pytest.raises(DataError, match="final budget"):
        bank.update(0, 0.0, 1.0)
    with pytest.raises(DataError, match="binary"):
        BudgetStreams(1, 5).update(0, 0.5, 1.0)


def test_extendable_is_min_of_weighted_exact_and_ville():
    rng = np.random.default_rng(5)
    x = (rng.random((50, 60)) < 0.3).astype(float)
    y = (rng.random((50, 60)) < 0.7).astype(float)
    ext = BudgetStreams(50, 30, extendable=True, bettor="nscore", concentration=4.0)
    fin = BudgetStreams(50, 30, concentration=4.0)
    from certirank.evidence.streams import PairedStreams

    ville = PairedStreams(50, bettor="nscore", bins="binary")
    for t in range(60):
        ext.update(None, x[:, t], y[:, t])
        ville.update(None, x[:, t], y[:, t])
        if t < 30:
            fin.update(None, x[:, t], y[:, t])
        want = np.minimum(1.0, np.minimum(fin.pvalue_less / 0.9, ville.pvalue_less / 0.1))
        np.testing.assert_allclose(ext.pvalue_less, want)
    assert ext.horizon is None and fin.horizon == 30


def test_reachable_and_futility_against_every_continuation():
    # n_max 10, every state after 4 trials (3^4 outcome types: win, loss, concordant); brute force over all
    # 3^6 continuations: `reachable` is the largest final log R of any of them, and `futile` says exactly
    # that none reaches the threshold of the level
    n, head, level = 10, 4, 0.1
    kinds = [(0.0, 1.0), (1.0, 0.0), (1.0, 1.0)]  # (x, y): challenger win, loss, concordant
    heads = list(itertools.product(range(3), repeat=head))
    tails = list(itertools.product(range(3), repeat=n - head))
    bank = BudgetStreams(len(heads), n, alpha=0.2, ties="assume_none", concentration=2.0)
    for t in range(head):
        bank.update(None, [kinds[h[t]][0] for h in heads], [kinds[h[t]][1] for h in heads])
    reach, fut = bank.reachable, bank.futile(level, level)
    m = bank.threshold_for(level)
    assert np.isfinite(m) and bank.threshold_for(1.0) == 0.0 and bank.threshold_for(level / 10) >= m
    for i, h in enumerate(heads):
        full = BudgetStreams(len(tails), n, alpha=0.2, ties="assume_none", concentration=2.0)
        for t in range(n):
            ks = [h[t]] * len(tails) if t < head else [c[t - head] for c in tails]
            full.update(None, [kinds[k][0] for k in ks], [kinds[k][1] for k in ks])
        lr = full.log_running_max
        np.testing.assert_allclose(reach[i], lr.max(axis=0), rtol=0, atol=1e-9)
        can = (np.minimum(full.pvalue_less, full.pvalue_more) <= level).any()
        assert fut[i] == (not can)
    assert not fut.all()  # (futility that does trigger: the campaign test below)


def test_futility_saves_rollouts_without_changing_any_decision():
    from certirank.methods.anyrank.engine import _Campaign

    # B and C tied: under Bonferroni (fixed levels) their comparison becomes futile well before the budget
    arr = _tables(np.array([0.1, 0.5, 0.5, 0.9]), 8, 200, seed=4)
    kw = {"alpha": 0.05, "n_max": 200, "bins": "binary", "budget": "final"}
    out = {}
    for fut in (True, False):
        _Campaign.futility, old = fut, _Campaign.futility
        try:
            out[fut] = [run_campaigns(arr, method=m, **kw) for m in ("bonferroni", "anyrank")]
        finally:
            _Campaign.futility = old
    saved = 0
    for on, off in zip(sum(out[True], []), sum(out[False], [])):
        strip = [{k: v for k, v in d.items() if k != "total_samples"} for d in decisions(on)]
        assert strip == [{k: v for k, v in d.items() if k != "total_samples"} for d in decisions(off)]
        assert on.total_samples <= off.total_samples
        saved += off.total_samples - on.total_samples
        for det in on.undecided_details:
            assert det["budget_exhausted"] and (det["futile"] or det["trials"] == 200)
    assert saved > 0
    # the live engine stops the same comparisons (futility is read from its streams' state)
    live = _feed(Ranker(["p0", "p1", "p2", "p3"], alpha=0.05, n_max=200, bins="binary", budget="final",
                        method="bonferroni"), arr[0])
    assert live.result().to_dict() == out[True][0][0].to_dict()


# ---------------------------------------------------------------------------- AnyRank wiring

MU = np.array([0.2, 0.5, 0.8])


def test_budget_changes_the_test_and_replay_equals_live_and_batch():
    arr = _tables(MU, 6, 120, seed=21)
    kw = {"alpha": 0.1, "n_max": 120, "bins": "binary", "budget": "final", "policies": ["A", "B", "C"]}
    single = [run_campaign(a, **kw) for a in arr]
    batch = run_campaigns(arr, chunk=4, **kw)
    assert [r.to_dict() for r in batch] == [r.to_dict() for r in single]
    live = _feed(Ranker(["A", "B", "C"], alpha=0.1, n_max=120, bins="binary", budget="final"), arr[0])
    assert live.result().to_dict() == single[0].to_dict()
    # a different test: some p-value or decision time differs from the e-process campaign
    e = [run_campaign(a, alpha=0.1, n_max=120, bins="binary", policies=["A", "B", "C"], budget="none") for a in arr]
    assert [r.to_dict() for r in e] != [r.to_dict() for r in single]
    assert "exact budget test" in single[0].statement and "120 trials" in single[0].statement


def test_budget_is_declared_never_inferred():
    arr = _tables(MU, 1, 50, seed=1)[0]
    with pytest.raises(ParameterError, match="binary"):
        run_campaign(arr, n_max=50, budget="final")  # progress metric
    with pytest.raises(ParameterError, match="n_max"):
        run_campaign(arr, bins="binary", budget="final")  # no declared budget
    with pytest.raises(ParameterError, match="budget"):
        run_campaign(arr, n_max=50, bins="binary", budget="sometimes")
    half = arr.copy()
    half[3, 1] = 0.5
    with pytest.raises(DataError, match="binary"):
        run_campaign(half, n_max=50, bins="binary", budget="final")


def test_ranker_final_budget_refuses_extend_extendable_keeps_its_horizon():
    arr = np.tile([[0.0, 1.0], [1.0, 0.0], [0.0, 0.0]], (20, 1))  # no evidence either way
    r = _feed(Ranker(["A", "B"], alpha=0.05, n_max=6, bins="binary", budget="final"), arr)
    assert r.done
    with pytest.raises(StateError, match="final budget"):
        r.extend(12)
    r = _feed(Ranker(["A", "B"], alpha=0.05, n_max=6, bins="binary", budget="extendable"), arr)
    r.extend(12)
    assert not r.done
    r = _feed(r, arr)
    assert r.result().samples == {"A": 12, "B": 12}
    cfg = json.loads(r.to_json())["config"]
    assert cfg["n_max"] == 12 and cfg["budget_horizon"] == 6 and cfg["budget"] == "extendable"
    again = Ranker.from_json(r.to_json())
    assert again.result().to_dict() == r.result().to_dict()


def test_campaigns_saved_before_the_budget_option_keep_their_checksum():
    s = _make_setup(["a", "b"], 0.05, "anyrank", None, 1.0, 10, "allow", "paper", bins="binary", budget="none")
    old = s.to_dict()
    for key in ("budget", "arms", "budget_horizon", "concentration", "statistic"):
        old.pop(key)
    # a config written before the option existed loads as the e-process campaign it was
    loaded = _setup_from_dict(old)
    assert loaded.budget == "none" and loaded.sha256() == s.sha256()
    assert set(s.locked()) == set(old) - {"n_max"}
    b = _make_setup(["a", "b"], 0.05, "anyrank", None, 1.0, 10, "allow", "paper", bins="binary", budget="final")
    assert b.sha256() != s.sha256()


def test_budget_campaigns_saved_before_the_statistic_option_keep_their_test_and_checksum():
    new = _make_setup(["a", "b"], 0.05, "anyrank", None, 1.0, 600, "allow", "paper", bins="binary",
                      budget="final")
    assert new.statistic == "bayes"  # the default from 500 trials up
    old = new.to_dict()
    old.pop("statistic")
    old_setup = _setup_from_dict(old)  # written by a version without the option: it ran the mixture
    assert old_setup.statistic == "mixture" and "statistic" not in old_setup.locked()
    mixture = _make_setup(["a", "b"], 0.05, "anyrank", None, 1.0, 600, "allow", "paper", bins="binary",
                          budget="final", statistic="mixture", concentration=new.concentration)
    assert old_setup.sha256() == mixture.sha256() != new.sha256()
    small = _make_setup(["a", "b"], 0.05, "anyrank", None, 1.0, 30, "allow", "paper", bins="binary",
                        budget="final")
    assert small.statistic == "mixture"  # below 50 trials the mixture (compare's rule, tests/test_rank_per_pair_test.py)
    big = _make_setup(["a", "b"], 0.05, "anyrank", None, 1.0, 3000, "allow", "paper", bins="binary",
                      budget="final")
    assert big.statistic == "mixture"  # past the fastest-decision table's limit the mixture still works


def test_auto_budget_resolves_to_the_exact_test_only_when_declared():
    mk = functools.partial(_make_setup, ["a", "b"], 0.05, "anyrank", None, 1.0)
    # binary scores and an explicit budget: the exact test; final for a fixed table, extendable live
    assert mk(100, "allow", "paper", bins="binary").budget == "final"
    assert mk(100, "allow", "paper", bins="binary", live=True).budget == "extendable"
    # anything undeclared, or beyond the auto limit: the anytime e-process
    assert mk(None, "allow", "paper", bins="binary", default_n_max=100).budget == "none"
    assert mk(100, "allow", "paper", bins="progress").budget == "none"
    assert mk(AUTO_BUDGET_MAX + 1, "allow", "paper", bins="binary").budget == "none"
    arr = _tables(MU, 1, 60, seed=3)[0]
    kw = {"alpha": 0.1, "n_max": 60, "bins": "binary", "policies": ["A", "B", "C"]}
    assert run_campaign(arr, **kw).to_dict() == run_campaign(arr, budget="final", **kw).to_dict()
    assert "final budget of 60" in anyrank(pd.DataFrame(arr, columns=kw["policies"]), alpha=0.1, n_max=60,
                                           bins="binary").statement
    assert "exact budget test" not in run_campaign(arr, alpha=0.1, bins="binary").statement  # n_max inferred
    # a live campaign on the default keeps extend() working (a final budget would refuse it)
    r = Ranker(["A", "B"], alpha=0.05, n_max=6, bins="binary")
    r.extend(12)
    assert r.n_max == 12 and json.loads(r.to_json())["config"]["budget"] == "extendable"


# ---------------------------------------------------------------------------- validity (seeded Monte Carlo)

def _fwer(mu, runs, nmax, seed, **kw):
    arr = _tables(mu, runs, nmax, seed)
    res = run_campaigns(arr, bins="binary", n_max=nmax, budget="final", **kw)
    return np.mean([_wrong(r, mu) for r in res]), res


@pytest.mark.parametrize("statistic", ["mixture", "bayes"])
def test_ho_i_fwer_with_the_budget_test(statistic):
    mu = np.array([0.2, 0.4, 0.4, 0.6, 0.8])
    runs, alpha = 300, 0.05
    f, res = _fwer(mu, runs, 150, seed=31, alpha=alpha, prior=list(mu), ties="allow", statistic=statistic)
    named = {"bayes": "fastest-decision statistic", "mixture": "Beta-mixture statistic"}[statistic]
    assert all(named in r.statement for r in res[:3])
    assert f <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / runs)
    assert np.mean([len(decisions(r)) for r in res]) > 3  # power sanity: the decidable pairs get decided


def test_tie_pair_claim_rate_at_most_alpha():
    # the worst case of one comparison: an exact tie with every trial discordant (y = 1 - x)
    runs, n, alpha = 4000, 100, 0.1
    rng = np.random.default_rng(8)
    x = (rng.random((runs, n)) < 0.5).astype(float)
    bank = BudgetStreams(runs, n, alpha=alpha, ties="allow")
    claim = np.zeros(runs, dtype=bool)
    for t in range(n):
        bank.update(None, x[:, t], 1.0 - x[:, t])
        claim |= bank.pvalue <= alpha
    assert claim.mean() <= alpha + 4 * math.sqrt(alpha * (1 - alpha) / runs)


@pytest.mark.slow
@pytest.mark.parametrize("ties, arms", [("allow", "paired"), ("assume_none", "paired"), ("allow", "independent")])
def test_ho_i_fwer_budget_test_1000_runs_nmax_1000(ties, arms):
    mu = np.array([0.2, 0.4, 0.4, 0.6, 0.8])
    runs, alpha = 1000, 0.05
    f, _ = _fwer(mu, runs, 1000, seed=77, alpha=alpha, gamma=0.0, ties=ties, arms=arms, graph="fully_connected")
    # assume_none (the papers' setting) may order a tied pair with probability up to 2 alpha per pair test
    bound = alpha if ties == "allow" else 2 * alpha
    assert f <= bound + 3 * math.sqrt(bound * (1 - bound) / runs)


def test_design_is_cached_and_named():
    b = BudgetStreams(3, 40, concentration=4.0)
    assert "n_max = 40" in b.name and "final budget" in b.name
    assert design(40, 0.05, "paired", "allow") is design(40, 0.05, "paired", "allow")


def test_simulate_passes_the_budget_option_to_the_fast_path():
    from certirank.sim import get_scenario, simulate
    from certirank.sim.runner import _data_seed, run_seeds

    sc = get_scenario("HE-F", n_max=150, n_games=10)
    res = simulate(sc, {"b": ("anyrank0", {"budget": "final"})}, reps=2, seed=5)
    for run in range(2):
        data = sc.draw(np.random.default_rng(_data_seed(run_seeds(5, 2)[run])))
        ref = run_campaign(data.scores, alpha=0.05, method="anyrank0", n_max=150, bins="binary", budget="final",
                           policies=list(sc.policies), graph="fully_connected", prior=list(sc.prior))
        row = res.runs[res.runs["run"] == run].iloc[0]
        assert row["end_evals"] == ref.total_samples and row["end_time"] == ref.iterations


@pytest.mark.parametrize("budget", ["final", "extendable"])
def test_snapshot_round_trip_with_the_budget_test(budget):
    from certirank.methods.anyrank.state import snapshot_differences

    arr = _tables(MU, 1, 80, seed=4)[0]
    r = Ranker(["A", "B", "C"], alpha=0.1, n_max=80, bins="binary", budget=budget)
    ref = _feed(Ranker(["A", "B", "C"], alpha=0.1, n_max=80, bins="binary", budget=budget), arr)
    for _ in range(5):
        for p, t in r.suggest():
            r.record(p, t, float(arr[t, r.policies.index(p)]))
    snap = r.snapshot()
    back = Ranker.from_snapshot(snap)
    assert not snapshot_differences(snap, back.snapshot())
    assert any(k.startswith("streams.log_r") for k in snap["arrays"])
    assert _feed(back, arr).result().to_dict() == ref.result().to_dict()
