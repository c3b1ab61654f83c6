"""AnyRank engine (spec 03): test vectors, live = replay, persistence, guarantees, bad input."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

import certirank
from certirank.errors import DataError, ParameterError, StateError
from certirank.methods.anyrank import (
    METHODS,
    Ranker,
    anyrank,
    run_campaign,
    run_campaigns,
    _Campaign,
    _make_setup,
    _Table,
)
from certirank.multitest import Graph, graph_test

# spec 03 §14: M = 3 binary policies, 40 complete rows (row r = character r)
P1 = "0100000000000000100000000000000000001101"
P2 = "1000101010100011001111000010010001010000"
P3 = "1011111101110111111111101011111011101101"
V = pd.DataFrame({n: [float(c) for c in s] for n, s in (("P1", P1), ("P2", P2), ("P3", P3))})
# budget="none": the spec 03 vectors are the e-process's (binary scores with an explicit n_max would
# otherwise get the exact budget test, the default since issue 15)
COMMON = dict(alpha=0.1, bins="binary", n_max=40, budget="none")


def _table(res):
    return [(d["better"], d["worse"], d["iteration"], d["trials"], round(d["level"], 6), round(d["p_value"], 6))
            for d in res.decisions]


# ------------------------------------------------------------------------------------------ spec vectors

def test_v1_holm_ranking_mode():
    res = anyrank(V, **COMMON)
    assert _table(res) == [("P3", "P1", 14, 14, 0.033333, 0.031499),
                           ("P3", "P2", 28, 28, 0.05, 0.041665),
                           ("P2", "P1", 34, 34, 0.1, 0.057346)]
    assert res.samples == {"P1": 34, "P2": 34, "P3": 28}
    assert res.total_samples == 96
    assert res.termination == "complete ranking" and res.iterations == 34
    assert res.undecided == [] and res.letters == {"P3": "a", "P2": "b", "P1": "c"}


def test_v2_assume_no_ties():
    res = anyrank(V, ties="assume_none", **COMMON)
    assert [(d["better"], d["worse"], d["decided_at"]) for d in res.decisions] == [
        ("P3", "P1", 12), ("P3", "P2", 25), ("P2", "P1", 27)]
    assert res.samples == {"P1": 27, "P2": 27, "P3": 25} and res.total_samples == 79


@pytest.mark.parametrize("graph", ["soft_masked", "fully_connected"])
def test_v3_prior_gamma5(graph):
    res = anyrank(V, prior={"P1": 0.1, "P2": 0.5, "P3": 0.9}, gamma=5, graph=graph, **COMMON)
    assert _table(res) == [("P3", "P1", 12, 12, 0.078699, 0.059691),
                           ("P3", "P2", 40, 28, 0.05, 0.041665),
                           ("P2", "P1", 46, 34, 0.1, 0.057346)]
    assert res.samples == {"P1": 34, "P2": 34, "P3": 28} and res.total_samples == 96


def test_v3_advantaged_set_and_levels_after_first_rejection():
    setup = _make_setup(["P1", "P2", "P3"], 0.1, "anyrank", [0.1, 0.5, 0.9], 5, 40, "allow", "paper",
                        bins="binary")
    camp = _Campaign(setup, _Table(3, V.to_numpy()))
    pairs = list(zip(camp.pi.tolist(), camp.pj.tolist()))
    assert [pairs[k] for k in camp.select()] == [(0, 2)]  # only (P1,P3) is advantaged at first
    camp.run_replay()
    first = camp.decisions[0]
    assert (first["better"], first["worse"]) == ("P3", "P1")
    # after (P1,P3): both remaining levels are 0.010651 + 0.078699 / 2 = 0.05 (checked through the record
    # of the next decision, made at that level)
    assert camp.decisions[1]["level"] == pytest.approx(0.05, abs=1e-9)


def test_closure_implied_decision_and_minimax_time():
    # prior order AB, BC, AC (wrong prior gaps) with a chain: AB and BC are tested, AC is implied
    n = 60
    data = pd.DataFrame({"A": np.ones(n), "B": np.full(n, 0.5), "C": np.zeros(n)})
    res = anyrank(data, alpha=0.1, method="anyrank-inf", prior={"A": 0.0, "B": 1.0, "C": 0.1})
    via = {(d["better"], d["worse"]): d for d in res.decisions}
    assert set(via) == {("A", "B"), ("B", "C"), ("A", "C")}
    ac = via[("A", "C")]
    assert ac["via"] == "transitivity" and ac["trials"] == 0
    assert ac["decided_at"] == max(via[("A", "B")]["decided_at"], via[("B", "C")]["decided_at"])
    assert res.termination == "complete ranking" and not res.inconsistent


# ------------------------------------------------------------------------------------------ live = replay

def _live(arr, pols, reload_at=(), **kw):
    r = Ranker(pols, **kw)
    rounds = 0
    while not r.done:
        todo = r.suggest()
        assert todo, "a running campaign always needs something"
        for p, t in todo:
            v = arr[t, pols.index(p)] if t < arr.shape[0] else np.nan
            r.record(p, t, None if np.isnan(v) else float(v))
        rounds += 1
        if rounds in reload_at:
            r = Ranker.from_json(r.to_json())
    return r


CONFIGS = [dict(), dict(method="anyrank-inf"), dict(method="bonferroni"), dict(method="anyrank0"),
           dict(method="weighted-bonferroni", ties="assume_none"), dict(guarantee="strict", gamma=2.0),
           dict(guarantee="strict", method="anyrank-inf")]


@pytest.mark.parametrize("kw", CONFIGS)
def test_live_engine_equals_replay_and_batch(kw):
    rng = np.random.default_rng(11)
    mu = np.array([0.2, 0.35, 0.45, 0.65, 0.9])
    pols = [f"p{i}" for i in range(5)]
    arr = (rng.random((150, 5)) < mu).astype(float)
    # budget pinned: these are the e-process's engines (the exact test's live = replay: test_anyrank_budget)
    opts = dict(alpha=0.05, n_max=120, prior=list(mu), bins="binary", budget="none", **kw)
    a = run_campaign(arr, policies=pols, trajectory=True, **opts)
    b = _live(arr, pols, reload_at=(9, 40), **opts).result()
    c = run_campaigns(arr[None], policies=pols, trajectory=True, **opts)[0]
    assert a.to_dict() == c.to_dict()
    da, db = a.to_dict(), b.to_dict()
    da.pop("trajectory"), db.pop("trajectory")
    assert da == db
    # the trajectory ends at the final total and never decreases
    ts = a.trajectory["total_samples"]
    assert len(ts) == a.iterations and ts[-1] == a.total_samples and np.all(np.diff(ts) >= 0)
    for d in a.decisions:
        assert ts[d["iteration"] - 1] == d["total_samples"]


def test_live_with_missing_trials_makes_the_same_decisions():
    rng = np.random.default_rng(5)
    mu = np.array([0.3, 0.5, 0.8])
    arr = (rng.random((200, 3)) < mu).astype(float)
    arr[rng.random(arr.shape) < 0.15] = np.nan
    pols = ["a", "b", "c"]
    a = run_campaign(arr, policies=pols, alpha=0.1, n_max=150, bins="binary", budget="none")
    b = _live(arr, pols, alpha=0.1, n_max=150, bins="binary", budget="none").result()
    strip = [{k: v for k, v in d.items() if k != "total_samples"} for d in a.decisions]
    assert strip == [{k: v for k, v in d.items() if k != "total_samples"} for d in b.decisions]
    # the live engine never asks for a trial whose partner is already known to be missing, so it can
    # use fewer rollouts than the replay (which reads whole rows), never more
    assert b.total_samples <= a.total_samples


def test_batch_equals_single_runs_with_missing_data():
    rng = np.random.default_rng(8)
    arr = (rng.random((6, 120, 4)) < np.array([0.2, 0.5, 0.55, 0.9])).astype(float)
    arr[rng.random(arr.shape) < 0.1] = np.nan
    single = [run_campaign(x, alpha=0.1, bins="binary").to_dict() for x in arr]
    assert [r.to_dict() for r in run_campaigns(arr, alpha=0.1, bins="binary", chunk=4)] == single


# ------------------------------------------------------------------------------------------ persistence

def test_json_round_trip_resumes_identically(tmp_path):
    rng = np.random.default_rng(3)
    pols = ["A", "B", "C", "D"]
    arr = rng.beta([1, 2, 3, 4], 2, size=(400, 4)).round(2)
    r1 = Ranker(pols, alpha=0.1, prior={"A": 0.3, "B": 0.4, "C": 0.6, "D": 0.7}, n_max=300)
    for _ in range(25):
        for p, t in r1.suggest():
            r1.record(p, t, float(arr[t, pols.index(p)]))
    path = tmp_path / "campaign.json"
    r1.save(path)
    assert not [f for f in tmp_path.iterdir() if f.name != "campaign.json"]  # temp file replaced
    r2 = Ranker.load(path)
    assert r2.to_json() == r1.to_json()
    assert r2.result().to_dict() == r1.result().to_dict()
    assert r2.suggest() == r1.suggest()
    while not r1.done:
        todo = r1.suggest()
        assert r2.suggest() == todo
        for p, t in todo:
            v = float(arr[t, pols.index(p)])
            r1.record(p, t, v)
            r2.record(p, t, v)
    assert r2.done and r2.result().to_dict() == r1.result().to_dict()
    assert r2.to_json() == r1.to_json()
    saved = json.loads(r1.to_json())
    assert saved["format"] == "certirank.anyrank.v2" and saved["config"]["prior"] == [0.3, 0.4, 0.6, 0.7]


def test_tampered_config_is_refused():
    r = Ranker(["A", "B"], alpha=0.1)
    r.record("A", 0, 1.0)
    data = json.loads(r.to_json())
    data["config"]["alpha"] = 0.5
    with pytest.raises(ParameterError, match="checksum"):
        Ranker.from_json(json.dumps(data))


def test_extend_budget_resumes():
    arr = np.tile([[0.0, 1.0], [1.0, 0.0], [0.0, 0.0]], (20, 1))  # no evidence either way
    r = Ranker(["A", "B"], alpha=0.05, n_max=5, bins="binary")
    r = _feed(r, arr)
    assert r.done and r.result().termination == "budget or data exhausted"
    r.extend(10)
    assert not r.done and r.suggest() == [("A", 5), ("B", 5)]
    r = _feed(r, arr)
    assert r.result().samples == {"A": 10, "B": 10}


def _feed(r, arr):
    while not r.done:
        for p, t in r.suggest():
            r.record(p, t, float(arr[t, "AB".index(p)]))
    return r


# ------------------------------------------------------------------------------------------ online = batch

@pytest.mark.parametrize("method", METHODS)
def test_online_rejections_equal_batch_graph_test(method):
    rng = np.random.default_rng(21)
    mu = np.array([0.2, 0.35, 0.45, 0.65, 0.9])
    for rep in range(3):
        arr = (rng.random((400, 5)) < mu).astype(float)
        setup = _make_setup([f"p{i}" for i in range(5)], 0.05, method, list(mu), 1.0, 400, "allow", "paper",
                            bins="binary", transitive_closure=False)
        camp = _Campaign(setup, _Table(5, arr))
        camp.run_replay()
        p = camp._combined(camp.pl, camp.pm)
        g = camp.design.graph
        batch = graph_test(Graph(g.initial_weights, g.initial_transitions), p, 0.05)
        assert np.array_equal(batch.rejected, ~camp.pair_open)
        # with closure on, the online procedure rejects at least the batch set
        res = run_campaign(arr, alpha=0.05, method=method, prior=list(mu), n_max=400, bins="binary")
        assert len(res.decisions) >= int(batch.rejected.sum())


# ------------------------------------------------------------------------------------------ guarantees

def _errors(res, mu, pols):
    m = dict(zip(pols, mu))
    return any(m[d["better"]] <= m[d["worse"]] for d in res.decisions)


@pytest.mark.parametrize("method", METHODS)
def test_fwer_ho_i_every_variant(method):
    """HO-I (mu = 0.2, 0.4, 0.4, 0.6, 0.8): family-wise error <= alpha within binomial tolerance."""
    mu = np.array([0.2, 0.4, 0.4, 0.6, 0.8])
    runs, alpha = 200, 0.05
    ss = np.random.SeedSequence(2026).spawn(runs)
    arr = np.stack([(np.random.default_rng(s).random((600, 5)) < mu).astype(float) for s in ss])
    pols = [f"p{i}" for i in range(5)]
    res = run_campaigns(arr, alpha=alpha, method=method, prior=list(mu), gamma=1.0,
                        ties="allow", bins="binary", policies=pols, graph="fully_connected")
    fwer = np.mean([_errors(r, mu, pols) for r in res])
    assert fwer <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / runs)
    # the tied pair is never ordered by every run at once (power sanity: most decidable pairs get decided)
    assert np.mean([len(r.decisions) for r in res]) > 4


def test_ho_f_all_pairs_decided_in_95_percent_of_runs():
    mu = np.array([0.1, 0.3, 0.5, 0.7, 0.9])
    runs = 60
    ss = np.random.SeedSequence(7).spawn(runs)
    arr = np.stack([(np.random.default_rng(s).random((1000, 5)) < mu).astype(float) for s in ss])
    res = run_campaigns(arr, alpha=0.05, n_max=1000, bins="binary")
    full = np.mean([r.complete and not _errors(r, mu, r.policies) for r in res])
    assert full >= 0.95


def test_strict_mode_initial_split_and_no_sibling_edges():
    setup = _make_setup(["a", "b", "c"], 0.1, "anyrank", [0.1, 0.5, 0.9], 5.0, 10, "allow", "strict")
    camp = _Campaign(setup, _Table(3, np.zeros((10, 3))))
    w = camp.design.graph.initial_weights * 0.1
    pair_w = camp.design.pair_graph.initial_weights * 0.1
    # prior says j is better in every pair (means increase): 0.75 of each pair's level on "j better"
    assert np.allclose(w[0::2], 0.75 * pair_w) and np.allclose(w[1::2], 0.25 * pair_w)
    g = camp.design.graph.initial_transitions
    for k in range(3):
        assert g[2 * k, 2 * k + 1] == 0 and g[2 * k + 1, 2 * k] == 0
    assert np.allclose(g.sum(axis=1), 1.0)


def test_strict_mode_states_its_guarantee():
    res = anyrank(V, guarantee="strict", **COMMON)
    assert res.guarantee == "strict" and "reversals" in res.statement
    assert [(d["better"], d["worse"]) for d in res.decisions][:1] == [("P3", "P1")]


# ------------------------------------------------------------------------------------------ API & errors

def test_top_level_names():
    assert certirank.Ranker is Ranker and certirank.anyrank is anyrank


def test_long_table_and_underscore_method_names():
    long = V.reset_index().melt(id_vars="index", var_name="policy", value_name="score").rename(
        columns={"index": "env"})
    a = anyrank(long, method="anyrank_inf", **COMMON)
    b = anyrank(V, method="anyrank-inf", **COMMON)
    assert a.to_dict() == b.to_dict() and a.method == "anyrank-inf"


def test_heldout_prior_rows_removes_the_rows():
    res = anyrank(V, heldout_prior_rows=10, alpha=0.1, bins="binary")
    assert max(res.samples.values()) <= 30


@pytest.mark.parametrize("bad, err", [
    (dict(alpha=0.0), ParameterError), (dict(alpha=1.5), ParameterError), (dict(gamma=-1), ParameterError),
    (dict(prior={"P1": 0.1, "P2": 0.2, "P3": 0.3, "P9": 0.5}), ParameterError),
    (dict(prior={"P1": 0.1, "P2": 0.2}), ParameterError), (dict(method="magic"), ParameterError),
    (dict(policies=["P1"]), ParameterError), (dict(policies=["P1", "Q"]), DataError),
])
def test_replay_bad_input(bad, err):
    kw = dict(COMMON)
    kw.update(bad)
    with pytest.raises(err):
        anyrank(V, **kw)


def test_prior_mismatch_messages_name_the_policy():
    with pytest.raises(ParameterError, match="P9"):
        Ranker(["P1", "P2"], prior={"P1": 0.1, "P2": 0.2, "P9": 0.3})
    with pytest.raises(ParameterError, match="no value for P2"):
        Ranker(["P1", "P2"], prior={"P1": 0.1})


@pytest.mark.parametrize("kw", [dict(policies=["A"]), dict(policies=["A", "A"]), dict(alpha=1.0),
                                dict(alpha=-0.1), dict(gamma=-0.5), dict(n_max=0), dict(ties="maybe"),
                                dict(guarantee="ironclad")])
def test_ranker_bad_parameters(kw):
    args = dict(policies=["A", "B"])
    args.update(kw)
    with pytest.raises(ParameterError):
        Ranker(**args)


def test_record_errors_leave_state_unchanged():
    r = Ranker(["A", "B", "C"], alpha=0.1)
    r.record("A", 0, 0.5)
    before = r.to_json()
    sug = r.suggest()
    for call, err in [(lambda: r.record("A", 7, 0.5), StateError),          # not suggested
                      (lambda: r.record("A", 0, 0.7), StateError),          # twice, different score
                      (lambda: r.record("Z", 0, 0.5), ParameterError),      # unknown policy
                      (lambda: r.record("B", 0, 1.5), ParameterError),      # score outside [0, 1]
                      (lambda: r.record("B", -1, 0.5), ParameterError),     # negative trial
                      (lambda: r.record("B", 0.5, 0.5), ParameterError)]:   # non-integer trial
        with pytest.raises(err):
            call()
        assert r.to_json() == before and r.suggest() == sug
    r.record("A", 0, 0.5)  # identical re-record is a no-op
    assert r.to_json() == before
    r.record("A", 7, 0.5, ahead=True)  # allowed explicitly
    assert json.loads(r.to_json())["results"][-1] == {"policy": "A", "trial": 7, "score": 0.5}


def test_missing_result_skips_the_environment():
    r = Ranker(["A", "B"], alpha=0.1, n_max=50)
    assert r.suggest() == [("A", 0), ("B", 0)]
    r.record("A", 0, None)
    assert r.suggest() == [("A", 1), ("B", 1)]
    r.record("B", 0, 0.3)  # suggested before: still welcome
    r.record("A", 1, 1.0)
    r.record("B", 1, 0.0)
    res = r.result()
    assert res.samples == {"A": 1, "B": 2} and res.termination == "stopped by user"
    assert res.undecided == [["A", "B"]]


def test_result_fields_and_json():
    res = anyrank(V, **COMMON)
    d = json.loads(res.to_json())
    for key in ("method", "alpha", "guarantee", "policies", "decisions", "undecided", "letters", "samples",
                "total_samples", "means", "termination"):
        assert key in d
    assert d["decisions"][0]["via"] == "test" and d["means"]["P3"] == pytest.approx(np.mean(V["P3"][:28]))
    assert any("P3 is better than P1" in s for s in res.sentences())


def test_by_order_pairing_compacts_each_policy():
    full = anyrank(V, **COMMON)
    assert anyrank(V, pairing="by_order", **COMMON).to_dict() == full.to_dict()
    holes = V.copy()
    holes.loc[[0, 5, 9], "P1"] = np.nan
    shifted = pd.DataFrame({"P1": list(holes["P1"].dropna()) + [np.nan] * 3, "P2": V["P2"], "P3": V["P3"]})
    a = anyrank(holes, pairing="by_order", **COMMON)
    b = anyrank(shifted, **COMMON)
    assert a.decisions == b.decisions


def test_absurd_trial_index_is_refused():
    r = Ranker(["A", "B"], n_max=10)
    with pytest.raises(ParameterError, match="far beyond"):
        r.record("A", 10**9, 0.5, ahead=True)


def test_unknown_option_is_a_parameter_error():
    with pytest.raises(ParameterError, match="unknown option"):
        run_campaign(V.to_numpy(), colour="red")


def test_environment_draws_are_fixed_saved_and_uniform():
    r = Ranker(["A", "B"], environments=["kitchen", "lab", "office"], seed=4)
    envs = [r.environment(t) for t in range(3000)]
    counts = np.array([envs.count(e) for e in ("kitchen", "lab", "office")])
    assert np.all(np.abs(counts - 1000) < 4 * math.sqrt(3000 * (1 / 3) * (2 / 3)))
    r.record("A", 0, 1.0)
    r.record("B", 0, 0.0)
    saved = json.loads(r.to_json())
    assert saved["environments"] == [envs[0]]
    again = Ranker.from_json(r.to_json())
    assert [again.environment(t) for t in range(50)] == envs[:50]
    assert Ranker(["A", "B"], environments=["x", "y"], seed=4).environment(7) == \
        Ranker(["A", "B"], environments=["x", "y"], seed=4).environment(7)
    with pytest.raises(StateError):
        Ranker(["A", "B"]).environment(0)


def test_closure_vector_minimax_decision_time():
    """Spec 03 §6: A>B (10), B>C (25), A>D (5), D>C (30) imply A>C at min(max(10,25), max(5,30)) = 25."""
    setup = _make_setup(["A", "B", "C", "D"], 0.1, "anyrank", None, 1.0, 100, "allow", "paper")
    camp = _Campaign(setup, _Table(4, np.zeros((100, 4))))
    idx = {(int(i), int(j)): k for k, (i, j) in enumerate(zip(camp.pi, camp.pj))}
    from certirank.methods.anyrank import _I_BETTER
    for (a, b), when in (((0, 1), 10.0), ((1, 2), 25.0), ((0, 3), 5.0), ((3, 2), 30.0)):
        k = idx[(min(a, b), max(a, b))]
        d = _I_BETTER if a < b else 1  # 1 = _J_BETTER
        camp._decide(k, k, d, "test", when)
    camp.reject_loop()
    ac = [d for d in camp.decisions if (d["better"], d["worse"]) == ("A", "C")]
    assert len(ac) == 1 and ac[0]["via"] == "transitivity" and ac[0]["decided_at"] == 25
    assert camp.pair_open.sum() == 1  # only B-D stays open (no path between them)


def test_holm_levels_at_successive_rejections():
    """gamma = 0, K = 10: the level at the i-th rejection is alpha / (K - i + 1) (spec 03 §12.2)."""
    mu = np.array([0.2, 0.35, 0.45, 0.65, 0.9])
    arr = (np.random.default_rng(4).random((2, 1500, 5)) < mu).astype(float)
    for res in run_campaigns(arr, alpha=0.05, bins="binary"):
        levels = [d["level"] for d in res.decisions]
        assert levels == pytest.approx([0.05 / (10 - i) for i in range(len(levels))], rel=1e-9)


def test_decision_samples_leave_out_undecided_comparisons():
    # B and C are tied, so their comparison stays open until the budget; A is far below both.
    rng = np.random.default_rng(11)
    arr = np.column_stack([rng.random(300) < 0.1, rng.random(300) < 0.9, rng.random(300) < 0.9]).astype(float)
    # budget="none": the e-process samples an open comparison to the end (the exact test stops a futile one)
    res = run_campaign(arr, alpha=0.05, method="anyrank0", n_max=300, ties="allow",
                       policies=["A", "B", "C"], bins="binary", budget="none")
    assert res.undecided == [["B", "C"]]
    trials = {(d["better"], d["worse"]): d["trials"] for d in res.decisions}
    dec = res.decision_samples()
    assert dec == {"A": max(trials[("B", "A")], trials[("C", "A")]), "B": trials[("B", "A")],
                   "C": trials[("C", "A")]}
    # the honest count keeps the 300 trials the open comparison used
    assert res.samples["B"] == res.samples["C"] == 300
    assert dec["B"] < 300 and dec["C"] < 300


def test_decision_samples_equal_samples_when_everything_is_decided():
    arr = (np.random.default_rng(5).random((1000, 5)) < np.array([0.1, 0.3, 0.5, 0.7, 0.9])).astype(float)
    res = run_campaign(arr, alpha=0.05, method="anyrank0", ties="assume_none", bins="binary")
    assert res.complete
    assert res.decision_samples() == res.samples
