"""certirank.sim: scenarios, metrics, runner reproducibility, CLI."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

import certirank
from certirank.errors import ParameterError
from certirank.sim import Trajectory, get_scenario, scenario_names, simulate
from certirank.sim.metrics import clopper_pearson, closure_many, score_run, topk_sets
from _records import decisions


# ---------------------------------------------------------------------------------------------- scenarios

def test_registry_has_the_spec_scenarios():
    names = scenario_names()
    for n in ("HO-F", "HE-F", "HO-I", "BT-counterexample", "scalability", "HE-F-progress", "bbedge-iid",
              "bbedge-heterogeneity", "bbedge-dependence", "bbedge-combined", "bbedge-expansion", "bbedge-addition"):
        assert n in names


def test_ho_i_truth_has_nine_decidable_pairs_and_tie_is_never_correct():
    sc = get_scenario("HO-I")
    np.testing.assert_allclose(sc.means, [0.2, 0.4, 0.4, 0.6, 0.8])
    t = sc.truth()
    assert t.sum() == 9
    assert not t[1, 2] and not t[2, 1]
    assert t[4, 0] and not t[0, 4]


def test_scenario_parameters_and_errors():
    sc = get_scenario("scalability", m=7, n_max=50)
    np.testing.assert_allclose(sc.means, [(i + 0.5) / 7 for i in range(7)])
    assert sc.alpha == 0.1 and sc.n_max == 50
    with pytest.raises(ParameterError, match="must be one of .*HO-I"):
        get_scenario("HO-X")
    with pytest.raises(ParameterError, match=r"\[0, 1\]"):
        get_scenario("HO-I", means=(0.2, 1.3))
    with pytest.raises(ParameterError, match="valid parameters: .*n_max"):
        get_scenario("HO-I", nmax=3)
    with pytest.raises(ParameterError, match="alpha"):
        get_scenario("HE-F", alpha=1.5)


def test_draw_is_seeded_and_matches_the_distributions():
    sc = get_scenario("HE-F", n_max=4000, n_games=10)
    a = sc.draw(np.random.default_rng(5)).scores
    b = sc.draw(np.random.default_rng(5)).scores
    np.testing.assert_array_equal(a, b)
    assert set(np.unique(a)) <= {0.0, 1.0}
    for j, mu in enumerate(sc.means):
        k = int(a[:, j].sum())
        ci = binomtest(k, a.shape[0], mu).proportion_ci(0.999)
        assert ci.low <= mu <= ci.high


def test_partial_credit_variant_keeps_means_on_the_progress_grid():
    sc = get_scenario("HE-F-progress", n_max=3000, n_games=10)
    assert sc.metric == "progress"
    s = sc.draw(np.random.default_rng(0)).scores
    assert np.allclose(s * 10, np.round(s * 10))
    se = np.sqrt(sc.means * (1 - sc.means) / 10 / s.shape[0])
    assert np.all(np.abs(s.mean(axis=0) - sc.means) < 4 * se)


def test_bt_counterexample_preferences_match_spec_06_probabilities():
    sc = get_scenario("BT-counterexample", n_games=30000, n_max=10)
    np.testing.assert_allclose(sc.means, [0.3, 0.7, 0.85])
    run = sc.draw(np.random.default_rng(3))
    # P(pi2 beats pi3) = 0.7, P(pi2 beats pi1) = 0.7, P(pi3 beats pi1) = 0.7 (spec 06 §6)
    for win, lose in ((1, 2), (1, 0), (2, 0)):
        m1 = (run.pref_a == win) & (run.pref_b == lose)
        m2 = (run.pref_a == lose) & (run.pref_b == win)
        wins = int((run.pref_y[m1] == 2).sum() + (run.pref_y[m2] == 0).sum())
        n = int(m1.sum() + m2.sum())
        assert binomtest(wins, n, 0.7).pvalue > 1e-3


def test_gaussian_preference_generator_spec_06():
    sc = get_scenario("HO-F", n_games=20000, n_max=5)
    run = sc.draw(np.random.default_rng(1))
    assert np.all(run.pref_a != run.pref_b)
    # pairs uniform over the 20 ordered pairs
    counts = np.bincount(run.pref_a * 5 + run.pref_b, minlength=25).reshape(5, 5)
    assert counts[~np.eye(5, dtype=bool)].min() > 20000 / 20 * 0.85
    # P(0.9 beats 0.1) with r ~ N(mu, mu(1-mu)/2): Phi(0.8 / sqrt(0.09)) ~ 0.996
    from scipy.stats import norm
    m = (run.pref_a == 4) & (run.pref_b == 0)
    p = norm.cdf(0.8 / np.sqrt(0.045 + 0.045))
    assert binomtest(int((run.pref_y[m] == 2).sum()), int(m.sum()), p).pvalue > 1e-3


def test_bbedge_scenarios_wrap_the_generator_truth():
    sc = get_scenario("bbedge-heterogeneity", R=3)
    assert sc.truth().sum() == 40  # 45 pairs - 5 tied pairs, one true direction each
    assert sc.true_topk() == frozenset({6, 7, 8, 9})
    run = sc.draw(np.random.default_rng(0))
    assert run.scores.shape == (3, 10, 100)
    assert len(set(run.blocks.tolist())) == 20
    with pytest.raises(ParameterError, match="must be one of iid"):
        get_scenario("bbedge", setting="weird")


# ---------------------------------------------------------------------------------------------- metrics

def test_clopper_pearson_matches_scipy():
    for k, n in ((0, 20), (3, 200), (200, 200), (9, 200)):
        ci = binomtest(k, n).proportion_ci(0.95, method="exact")
        lo, hi = clopper_pearson(k, n)
        assert math.isclose(lo, ci.low, abs_tol=1e-9) and math.isclose(hi, ci.high, abs_tol=1e-9)


def test_score_run_counts_correct_and_false_claims():
    truth = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0]], dtype=bool)  # 3 > 2 > 1 (indices 2 > 1 > 0)
    c = np.zeros((3, 3, 3), dtype=bool)
    c[0, 2, 0] = True                      # t=10: correct
    c[1] = c[0]
    c[1, 0, 1] = True                      # t=20: a false claim (0 > 1)
    c[2] = c[1]
    c[2, 2, 1] = True                      # t=30: another correct
    tr = Trajectory(time=[10, 20, 30], evals=[25, 50, 70], claims=c, end_time=40, end_evals=90)
    row, snap = score_run(tr, truth)
    assert row["false_ever"] and row["false_final"]
    np.testing.assert_array_equal(snap["n_correct"], [1, 1, 2])
    np.testing.assert_array_equal(snap["n_false"], [0, 1, 1])
    assert row["power_final"] == pytest.approx(2 / 3)
    assert not row["full_final"] and row["censored"]
    assert row["sample_complexity"] == 90  # censored at the total cost


def test_sample_complexity_is_evals_at_last_true_decision():
    truth = np.array([[0, 1], [0, 0]], dtype=bool)
    c = np.zeros((1, 2, 2), dtype=bool)
    c[0, 0, 1] = True
    row, _ = score_run(Trajectory(time=[7], evals=[14], claims=c, end_time=7, end_evals=14), truth)
    assert row["full_final"] and not row["censored"] and row["sample_complexity"] == 14 and row["time_full"] == 7


def test_topk_from_claims_follows_spec_04_8_1():
    # chain 0 > 1 > 2 > 3: top-2 = {0, 1} certified; with only 0 > 1 and 2 > 3 nothing is certified
    chain = np.zeros((1, 4, 4), dtype=bool)
    chain[0, 0, 1] = chain[0, 1, 2] = chain[0, 2, 3] = True
    assert topk_sets(chain, 2) == [frozenset({0, 1})]
    part = np.zeros((1, 4, 4), dtype=bool)
    part[0, 0, 1] = part[0, 2, 3] = True
    assert topk_sets(part, 2) == [None]
    cyc = chain.copy()
    cyc[0, 3, 0] = True
    assert topk_sets(cyc, 2) == [None]
    assert closure_many(chain)[0, 0, 3]


# ---------------------------------------------------------------------------------------------- runner

def test_bt_fails_on_the_tie_and_results_are_tidy(tmp_path):
    res = simulate("HO-I", "bt", reps=8, seed=1, n_games=400, out=tmp_path / "r.parquet")
    s = res.summary["bt"]
    # a point ranking always orders the tied pair: every run makes a false claim
    assert s["fwer"] == 1.0 and not s["fwer_controlled"]
    runs = pd.read_parquet(tmp_path / "r.parquet")
    assert len(runs) == 8 and set(runs["method"]) == {"bt"}
    snaps = pd.read_parquet(tmp_path / "r.snapshots.parquet")
    assert list(snaps.columns[:4]) == ["method", "run", "time", "evals"]
    assert (snaps["evals"] == 2 * snaps["time"]).all()


def test_bt_is_inconsistent_on_the_counterexample():
    res = simulate("BT-counterexample", "bt", reps=10, seed=2, n_games=3000, n_max=5)
    # the population BT limit orders pi2 above pi3 (spec 06 §6): with 3000 games almost every run ends wrong
    assert res.summary["bt"]["fwer_final"] >= 0.8


def test_bt_adapter_matches_the_public_baseline():
    """The vectorised BT adapter gives the claims of the baselines' own BT fit on the same games."""
    from certirank.baselines.bradley_terry import bradley_terry
    from certirank.sim._adapters_baselines import _comparisons
    from certirank.sim.runner import _data_seed, run_seeds

    sc = get_scenario("HE-F", n_games=300, n_max=5)
    res = simulate(sc, "bt[step=300]", reps=2, seed=4)
    truth = sc.truth()
    idx = {p: i for i, p in enumerate(sc.policies)}
    for run in (0, 1):
        data = sc.draw(np.random.default_rng(_data_seed(run_seeds(4, 2)[run])))
        out = bradley_terry(_comparisons(sc, data, 300))
        snap = res.snapshots[res.snapshots["run"] == run]
        n_correct = sum(bool(truth[idx[d["better"]], idx[d["worse"]]]) for d in decisions(out))
        n_false = len(decisions(out)) - n_correct
        assert int(snap["n_correct"].iloc[-1]) == n_correct and int(snap["n_false"].iloc[-1]) == n_false


def test_results_do_not_depend_on_jobs():
    kw = dict(reps=6, seed=3, chunk_size=2, n_games=300, n_max=20)
    one = simulate("HE-F", "bt", jobs=1, **kw)
    two = simulate("HE-F", "bt", jobs=2, **kw)
    pd.testing.assert_frame_equal(one.runs, two.runs)
    pd.testing.assert_frame_equal(one.snapshots, two.snapshots)
    assert one.summary == two.summary


def test_seeds_change_results_and_methods_share_data():
    kw = dict(reps=4, n_games=200, n_max=5)
    a = simulate("HE-F", "bt[step=50],bt[step=100]", seed=0, **kw)
    b = simulate("HE-F", "bt[step=50]", seed=1, **kw)
    snap = a.snapshots[a.snapshots["time"] == 100].pivot(index="run", columns="method", values="n_correct")
    # two labels of the same method, refitted at a common checkpoint, see the same games in every run
    assert (snap["bt[step=50]"] == snap["bt[step=100]"]).all()
    s0 = a.snapshots[a.snapshots["method"] == "bt[step=50]"]["n_correct"].to_numpy()
    s1 = b.snapshots["n_correct"].to_numpy()
    assert s0.shape == s1.shape and not np.array_equal(s0, s1) or \
        not a.runs["sample_complexity"].iloc[:4].equals(b.runs["sample_complexity"])


def test_bad_method_and_reps_errors_list_valid_choices():
    with pytest.raises(ParameterError, match="must be one of .*bt"):
        simulate("HO-I", "nonsense", reps=2)
    with pytest.raises(ParameterError, match="reps must be a positive integer up to 10,000,000"):
        simulate("HO-I", "bt", reps=0)
    with pytest.raises(ParameterError, match="valid methods here"):
        simulate("HO-I", "emr", reps=1)
    with pytest.raises(ParameterError, match="valid options: step"):
        simulate("HO-I", "bt[bogus=1]", reps=1)


def test_curves_are_monotone_for_fwer():
    res = simulate("HO-F", "bt[step=50]", reps=5, seed=0, n_games=300, n_max=5)
    cv = res.curves(grid=[0, 50, 100, 300], axis="evals")
    assert list(cv["x"]) == [0, 50, 100, 300]
    assert np.all(np.diff(cv["fwer"].to_numpy()) >= 0)
    assert cv["power"].iloc[0] == 0


def test_leaderboard_baseline_runs_on_bbedge_scenario():
    res = simulate("bbedge-iid", "emr,serpant-r", reps=2, seed=0, R=4, N=20)
    assert res.summary["emr"]["fwer"] == 1.0  # EMR orders tied pairs
    assert set(res.runs["method"]) == {"emr", "serpant-r"}
    assert "topk_certprob" in res.summary["serpant-r"]


# ---------------------------------------------------------------------------------------------- CLI


def test_cli_list_and_top_level_api(cli):
    r = cli(["simulate", "--list", "--json"])
    assert r.exit_code == 0
    d = json.loads(r.stdout)
    assert any(s["name"] == "HO-I" for s in d["scenarios"]) and any(m["name"] == "bt" for m in d["methods"])
    assert certirank.simulate is simulate


# ---------------------------------------------------------------------------------------------- AnyRank, BB-EDGE

def _alpha_tol(alpha: float, n: int) -> float:
    return alpha + 3 * math.sqrt(alpha * (1 - alpha) / n)


def test_anyrank_adapter_equals_run_campaign_run_by_run():
    """Chunked simulation (vectorised run_campaigns) gives each run's own run_campaign decisions."""
    from certirank.methods.anyrank import run_campaign
    from certirank.sim.runner import _data_seed, run_seeds

    sc = get_scenario("HO-I", n_max=150, n_games=10)
    methods = ["anyrank0", "bonferroni", "anyrank", "anyrank-inf", "weighted-bonferroni"]
    res = simulate(sc, ",".join(methods), reps=3, seed=7, chunk_size=2)
    for run in range(3):
        data = sc.draw(np.random.default_rng(_data_seed(run_seeds(7, 3)[run])))
        for m in methods:
            ref = run_campaign(data.scores, alpha=0.05, method=m, n_max=150, bins="binary",
                               policies=list(sc.policies), graph="fully_connected", prior=list(sc.prior))
            row = res.runs[(res.runs["method"] == m) & (res.runs["run"] == run)].iloc[0]
            assert row["end_evals"] == ref.total_samples and row["end_time"] == ref.iterations
            truth = sc.truth()
            idx = {p: i for i, p in enumerate(sc.policies)}
            n_false = sum(not truth[idx[d["better"]], idx[d["worse"]]] for d in decisions(ref))
            assert row["n_false_final"] == n_false
            assert row["n_correct_final"] == len(decisions(ref)) - n_false


def test_anyrank_trajectory_uses_decision_iterations_and_total_samples():
    from certirank.methods.anyrank import run_campaign
    from certirank.sim.runner import _data_seed, run_seeds

    sc = get_scenario("HE-F", n_max=200, n_games=10)
    res = simulate(sc, "anyrank0", reps=1, seed=11)
    data = sc.draw(np.random.default_rng(_data_seed(run_seeds(11, 1)[0])))
    ref = run_campaign(data.scores, alpha=0.05, method="anyrank0", n_max=200, bins="binary",
                       policies=list(sc.policies), graph="fully_connected", prior=list(sc.prior))
    snap = res.snapshots
    assert list(snap["time"]) == sorted({float(d["iteration"]) for d in decisions(ref)})
    assert float(snap["evals"].iloc[-1]) == max(d["total_samples"] for d in decisions(ref))
    row = res.runs.iloc[0]
    assert row["end_evals"] == ref.total_samples and row["termination"] == ref.termination
    assert row["samples"] == [float(ref.samples[p]) for p in sc.policies]


def test_certified_methods_control_fwer_on_ho_i_small():
    pytest.importorskip("certirank.methods.anyrank")
    n = 60
    res = simulate("HO-I", "anyrank0,bonferroni,bt", reps=n, seed=1, n_max=300, n_games=200)
    for m in ("anyrank0", "bonferroni"):
        assert res.summary[m]["fwer"] <= _alpha_tol(0.05, n)
    assert res.summary["bt"]["fwer"] == 1.0
    # Bonferroni never recycles, so it cannot be more powerful than AnyRank_0 in total cost
    assert res.summary["anyrank0"]["power"] > 0.5


def test_bbedge_trajectory_matches_bbedge_path():
    from certirank.methods.bbedge import bbedge_path
    from certirank.sim.runner import _data_seed, run_seeds

    sc = get_scenario("bbedge-iid", R=6, N=20)
    res = simulate(sc, "bbedge", reps=1, seed=2)
    data = sc.draw(np.random.default_rng(_data_seed(run_seeds(2, 1)[0])))
    path = bbedge_path(data.scores, alpha=0.05, blocks=[f"b{b}" for b in data.blocks], top_k=4)
    truth = sc.truth()
    np.testing.assert_array_equal(res.snapshots["n_correct"], (path["certified"] & truth).sum(axis=(1, 2)))
    np.testing.assert_array_equal(res.snapshots["n_false"], (path["certified"] & ~truth).sum(axis=(1, 2)))
    assert res.summary["bbedge"]["mean_total_evals"] == 6 * 10 * 20


def test_bbedge_pilot_cr_counts_pilot_replicates():
    res = simulate("bbedge-iid", "bbedge-topk[pilot=2]", reps=2, seed=0, R=8, N=20)
    assert (res.runs["end_time"] == 10).all()  # R + R_0
    assert (res.runs["topk_time"].isna() | (res.runs["topk_time"] > 2)).all()


# ---------------------------------------------------------------------------------------------- slow studies


@pytest.mark.slow
@pytest.mark.parametrize("setting", ["iid", "heterogeneity", "dependence", "combined"])
def test_bbedge_family_controls_fwer(setting):
    n = 100
    res = simulate(f"bbedge-{setting}", "bbedge,bfh-e-holm,cr-edge", reps=n, seed=3, R=60, jobs=2)
    for m in ("bbedge", "bfh-e-holm", "cr-edge"):
        assert res.summary[m]["fwer"] <= _alpha_tol(0.05, n)
        assert res.summary[m]["topk_fcp"] <= _alpha_tol(0.05, n)


@pytest.mark.slow
def test_anyrank_variants_control_fwer_on_adversarial_near_ties():
    # spec 03 §10 item 5: near ties stress reversal control under recycling
    n = 150
    for means in ((0.05, 0.5, 0.515, 0.95), (0.45, 0.47, 0.49, 0.51, 0.53)):
        res = simulate("bernoulli", "anyrank0,anyrank,anyrank-inf,bonferroni", reps=n, seed=5, means=means,
                       alpha=0.1, n_max=1000, n_games=10, jobs=2)
        for m, s in res.summary.items():
            assert s["fwer"] <= _alpha_tol(0.1, n), (means, m, s["fwer"])


def test_racing_arrows_scenario_draws_rows_of_the_matrix():
    sc = get_scenario("racing-arrows", m=4, pool=20, n_max=3000, n_games=10)
    run = sc.draw(np.random.default_rng(0))
    rows = {tuple(r) for r in np.asarray(sc.matrix)}
    assert all(tuple(r) in rows for r in run.scores[:50])  # every trial row is one test case's row
    se = np.sqrt(np.maximum(sc.means * (1 - sc.means), 1e-12) / 3000)
    assert np.all(np.abs(run.scores.mean(axis=0) - sc.means) <= 4 * se + 1e-12)
    np.testing.assert_allclose(sc.means, np.asarray(sc.matrix).mean(axis=0))


def test_false_claims_between_snapshots_count_in_fwer_curve():
    from certirank.sim.metrics import curves, summarize

    truth = np.array([[0, 1], [0, 0]], dtype=bool)
    c = np.zeros((2, 2, 2), dtype=bool)
    c[1, 0, 1] = True
    rows, snaps = [], []
    for run, fb in ((0, 1.0), (1, None)):
        tr = Trajectory(time=[1, 2], evals=[10, 20], claims=c, end_time=3, end_evals=30, time_unit="replicate",
                        false_between=fb)
        row, sn = score_run(tr, truth)
        rows.append({"method": "m", "run": run, **row})
        snaps.append(pd.DataFrame({"method": "m", "run": run, **sn}))
    runs, snap = pd.DataFrame(rows), pd.concat(snaps, ignore_index=True)
    cv = curves(snap, runs, [0, 1, 2, 3])
    np.testing.assert_allclose(cv["fwer"], [0, 0.5, 0.5, 0.5])
    np.testing.assert_allclose(cv["power"], [0, 0, 1, 1])
    assert summarize(runs, alpha=0.05, kind="leaderboard")["m"]["fwer"] == 0.5


def test_bbedge_method_accepts_the_leaderboard_spelling():
    from certirank.sim.adapters import resolve_methods
    from certirank.sim.scenarios import get_scenario

    scenario = get_scenario("bbedge-iid")
    specs = resolve_methods("bb-edge,bb-edge-pi", scenario, {})
    assert [s.name for s in specs] == ["bbedge", "bbedge-pi"]
