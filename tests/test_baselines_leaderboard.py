"""Leaderboard baselines of spec 04 §12 (EMR, t-Holm, CBTL, SERPANT, SERPANT-R, BEB-Holm, AsympCS-Bonf)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import certirank
from certirank.baselines import Panel, as_panel, asympcs_bonf, beb_holm, cbtl, emr, serpant, serpant_r, t_holm
from certirank.baselines.leaderboard import _e_holm_rows, agrapa_log_wealth, maurer_pontil_pvalue
from certirank.errors import DataError, ParameterError
from certirank.multitest import e_holm
from _records import decisions


def _panel(scores: np.ndarray, names=None) -> Panel:
    r, n, l = scores.shape
    names = names or [f"m{k}" for k in range(l)]
    return Panel(tuple(names), tuple(f"i{k}" for k in range(n)), tuple(range(r)), scores.astype(float),
                 np.full(n, 1.0 / n), None)


def _frame(scores: np.ndarray) -> pd.DataFrame:
    r, n, l = scores.shape
    rr, ii, ll = np.meshgrid(np.arange(r), np.arange(n), np.arange(l), indexing="ij")
    return pd.DataFrame({"model": [f"m{k}" for k in ll.ravel()], "item": [f"i{k}" for k in ii.ravel()],
                         "replicate": rr.ravel(), "score": scores.ravel().astype(float)})


def _bernoulli(rng, means, n, r):
    return (rng.random((r, n, len(means))) < np.asarray(means)).astype(float)


def _true_edges(means):
    m = np.asarray(means)
    return {(f"m{a}", f"m{b}") for a in range(m.size) for b in range(m.size) if m[a] > m[b]}


def _false_edge(result, truth):
    return any((d["better"], d["worse"]) not in truth for d in decisions(result) if d["kind"] == "direct")


# --------------------------------------------------------------------------------------------------
# EMR: the tied pair is "certified" about half the time in each direction
# --------------------------------------------------------------------------------------------------

def test_emr_certifies_tied_pairs_half_the_time():
    means = [0.2, 0.4, 0.4, 0.6, 0.8]  # HO-I: m1 and m2 tied
    n, reps, alpha = 100, 300, 0.05
    truth = _true_edges(means)
    forward = backward = false_any = 0
    for rep in range(reps):
        res = emr(_panel(_bernoulli(np.random.default_rng([1, rep]), means, n, 1)), alpha=alpha)
        pairs = res.decided_pairs
        forward += ("m1", "m2") in pairs
        backward += ("m2", "m1") in pairs
        false_any += _false_edge(res, truth)
    # exact: the tied pair is left undecided only when the two empirical means are equal
    k = np.arange(n + 1)
    p_equal = float(np.sum(stats.binom.pmf(k, n, 0.4) ** 2))
    half = (1 - p_equal) / 2
    tol = 3 * math.sqrt(half * (1 - half) / reps)
    assert abs(forward / reps - half) <= tol and abs(backward / reps - half) <= tol
    assert false_any / reps >= 0.85  # FWER near 1, whatever alpha says


# --------------------------------------------------------------------------------------------------
# t-Holm, BEB-Holm, AsympCS against independent references
# --------------------------------------------------------------------------------------------------

def test_t_holm_matches_scipy_and_statsmodels():
    multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests
    rng = np.random.default_rng(5)
    s = _bernoulli(rng, [0.35, 0.5, 0.55, 0.7], 60, 3)
    res = t_holm(_frame(s), alpha=0.05, tau=0.02)
    mean_i = s.mean(axis=0)
    a, b = np.nonzero(~np.eye(4, dtype=bool))
    p = np.array([stats.ttest_1samp(mean_i[:, i] - mean_i[:, j], 0.02, alternative="greater").pvalue
                  for i, j in zip(a, b)])
    reject = multipletests(p, alpha=0.05, method="holm")[0]
    expected = {(f"m{i}", f"m{j}") for i, j, rj in zip(a, b, reject) if rj}
    assert {(d["better"], d["worse"]) for d in decisions(res) if d["kind"] == "direct"} == expected
    assert expected  # the scenario separates something
    for d in decisions(res):
        if d["kind"] == "direct":
            k = int(np.flatnonzero((a == int(d["better"][1])) & (b == int(d["worse"][1])))[0])
            assert d["pvalue"] == pytest.approx(p[k], rel=1e-9)


def test_maurer_pontil_pvalue_solves_the_bound():
    rng = np.random.default_rng(2)
    x = rng.beta(6, 3, size=(40, 3))
    mu0 = 0.5
    p = maurer_pontil_pvalue(x, mu0)
    n = x.shape[0]
    for k in range(3):
        log_term = math.log(2 / p[k])
        bound = math.sqrt(2 * x[:, k].var(ddof=1) * log_term / n) + 7 * log_term / (3 * (n - 1))
        assert x[:, k].mean() - mu0 == pytest.approx(bound, rel=1e-9)
    assert maurer_pontil_pvalue(1 - x, mu0).tolist() == [1.0, 1.0, 1.0]
    assert maurer_pontil_pvalue(x[:1], 0.1).tolist() == [1.0, 1.0, 1.0]


def test_asympcs_lower_bound_formula_and_r1():
    rng = np.random.default_rng(8)
    s = _bernoulli(rng, [0.3, 0.7], 30, 6)
    assert asympcs_bonf(_panel(s), replicates=1).ranking.relations == ()
    res = asympcs_bonf(_panel(s), alpha=0.1)
    d = s[:, :, 1].mean(axis=1) - s[:, :, 0].mean(axis=1)
    ap = 0.1 / 2
    rho2 = (-2 * math.log(ap) + math.log(-2 * math.log(ap) + 1)) / 10
    r = 6
    lb = d.mean() - d.std(ddof=1) * math.sqrt(2 * (r * rho2 + 1) / (r * r * rho2) * math.log(math.sqrt(r * rho2 + 1) / ap))
    got = [x for x in decisions(res) if x["better"] == "m1"]
    assert got and got[0]["lower_bound"] == pytest.approx(lb, rel=1e-12)


# --------------------------------------------------------------------------------------------------
# SERPANT
# --------------------------------------------------------------------------------------------------

def test_agrapa_spec01_vectors():
    z = np.array([0.9, 0.7, 1.0, 0.6, 0.8, 0.95, 0.75, 0.85, 0.9, 0.65])[:, None]
    m = np.exp(agrapa_log_wealth(z, 0.5)).ravel()
    assert np.allclose(m, [1, 1.2, 1.8, 1.98, 2.574, 3.7323, 4.665375, 6.298256, 8.817559, 10.140193], atol=1e-6)
    z2 = np.tile([1, 1, 0, 1, 1, 0, 1, 1, 1, 0], 4).astype(float)[:, None]
    m2 = np.exp(agrapa_log_wealth(z2, 0.5)).ravel()
    assert np.allclose(m2[[9, 19, 29, 39]], [1.074719, 1.735332, 3.149266, 6.121777], atol=1e-6)


def test_row_e_holm_equals_multitest_e_holm():
    rng = np.random.default_rng(0)
    log_e = rng.normal(2.0, 2.0, size=(50, 7))
    log_e[3] = np.log([50, 45, 40, 1e-300, 1, 1, 1])  # spec 02 C.3 boundary-ish row
    rows = _e_holm_rows(log_e, 0.05)
    for t in range(log_e.shape[0]):
        assert rows[t].tolist() == e_holm(log_e[t], 0.05, log=True).tolist()


def test_serpant_controls_fwer_on_iid_items_and_reports_item_time_certifications():
    means = [0.5, 0.5, 0.5]  # all tied: every certification is false
    reps, alpha = 150, 0.1
    ever = 0
    for rep in range(reps):
        res = serpant(_panel(_bernoulli(np.random.default_rng([3, rep]), means, 40, 4)), alpha=alpha, history=True)
        ever += bool(res.history[-1]["ever_edges"])
    assert ever / reps <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / reps)


def test_serpant_and_serpant_r_find_a_clear_gap():
    s = _bernoulli(np.random.default_rng(1), [0.2, 0.5, 0.8], 50, 3)
    for fn in (serpant, serpant_r):
        res = fn(_frame(s), alpha=0.05, history=True)
        assert {("m2", "m0")} <= res.decided_pairs
        assert len(res.history) == 3
        assert all(d["log_e"] >= math.log(20) for d in decisions(res) if d["kind"] == "direct")
    # SERPANT-R only checks at replicates, so its edges are a subset of SERPANT's item-time edges
    r_edges = serpant_r(_frame(s), history=True).history[-1]["ever_edges"]
    i_edges = serpant(_frame(s), history=True).history[-1]["ever_edges"]
    assert {tuple(e) for e in r_edges} <= {tuple(e) for e in i_edges}


def test_beb_holm_fixed_time_fwer_on_tied_models():
    reps, alpha = 150, 0.1
    false = sum(bool(beb_holm(_panel(_bernoulli(np.random.default_rng([4, rep]), [0.4] * 3, 30, 2)),
                              alpha=alpha).ranking.relations) for rep in range(reps))
    assert false / reps <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / reps)


# --------------------------------------------------------------------------------------------------
# CBTL
# --------------------------------------------------------------------------------------------------

def test_cbtl_fits_btl_like_choix_and_certifies_clear_gaps():
    choix = pytest.importorskip("choix")
    s = _bernoulli(np.random.default_rng(6), [0.2, 0.5, 0.85], 60, 2)
    res = cbtl(_frame(s), n_boot=400, seed=1)
    flat = s.reshape(-1, 3)
    wins = (flat[:, :, None] > flat[:, None, :]).sum(axis=0).astype(float)
    ref = choix.ilsr_pairwise_dense(wins, alpha=0.0, max_iter=10_000, tol=1e-13)
    assert np.allclose([res.scores[f"m{k}"] for k in range(3)], ref - ref.mean(), atol=1e-6)
    assert ("m2", "m0") in res.decided_pairs
    direct = [d for d in decisions(res) if d["kind"] == "direct"]
    assert all(d["difference"] - d["critical"] * d["se"] > 0 for d in direct)
    again = cbtl(_frame(s), n_boot=400, seed=1)
    assert decisions(again) == decisions(res)


# --------------------------------------------------------------------------------------------------
# panels, history, errors
# --------------------------------------------------------------------------------------------------

def test_history_matches_truncated_runs():
    s = _bernoulli(np.random.default_rng(9), [0.3, 0.5, 0.6, 0.8], 40, 4)
    frame = _frame(s)
    for fn in (emr, t_holm, asympcs_bonf):
        res = fn(frame, history=True)
        assert [h["replicate"] for h in res.history] == [1, 2, 3, 4]
        for h in res.history:
            part = fn(frame, replicates=h["replicate"])
            assert sorted(map(tuple, h["edges"])) == sorted((d["better"], d["worse"]) for d in decisions(part)
                                                              if d["kind"] == "direct")


def test_weights_and_blocks_from_the_table():
    s = _bernoulli(np.random.default_rng(2), [0.3, 0.7], 6, 2)
    frame = _frame(s)
    frame["weight"] = frame["item"].map({f"i{k}": float(k + 1) for k in range(6)})
    frame["block"] = frame["item"].map({f"i{k}": f"b{k // 2}" for k in range(6)})
    panel = as_panel(frame)
    assert np.allclose(panel.weights, np.arange(1, 7) / 21)
    assert panel.blocks == ("b0", "b0", "b1", "b1", "b2", "b2")
    res = emr(frame)
    expected = panel.weights @ s.mean(axis=0)
    assert res.scores == pytest.approx({"m0": expected[0], "m1": expected[1]})
    assert beb_holm(frame).details["blocks"] == 3  # the block column is the default resolution
    assert beb_holm(frame, blocks="items").details["blocks"] == 6


def test_leaderboard_input_errors():
    s = _bernoulli(np.random.default_rng(0), [0.5, 0.5], 4, 2)
    frame = _frame(s)
    with pytest.raises(DataError, match="incomplete panel"):
        emr(frame.iloc[1:])
    with pytest.raises(DataError, match="item column"):
        t_holm(frame.drop(columns="item").assign(replicate=0).drop_duplicates(["model"]))
    with pytest.raises(DataError, match="preference table"):
        emr(pd.DataFrame({"policy_a": ["a"], "policy_b": ["b"], "preference": [0.0]}))
    with pytest.raises(ParameterError, match="only 2 replicate"):
        emr(frame, replicates=3)
    with pytest.raises(ParameterError, match="tau"):
        emr(frame, tau=-0.1)
    with pytest.raises(ParameterError, match="blocks"):
        beb_holm(frame, blocks="protocol")


def test_public_entry_point_for_leaderboard_methods():
    s = _bernoulli(np.random.default_rng(3), [0.25, 0.75], 30, 2)
    for name in ("emr", "t_holm", "cbtl", "serpant", "serpant-r", "beb-holm", "asympcs_bonf"):
        opts = {"n_boot": 100} if name == "cbtl" else {}
        res = certirank.baseline(name, _frame(s), **opts)
        assert res.method == name.replace("_", "-")
        assert ("m1", "m0") in res.decided_pairs, name
        assert res.undecided == []
        d = res.to_dict()
        assert set(d["details"]["scores"]) == {"m0", "m1"} and d["inputs"]["alpha"] == 0.05
