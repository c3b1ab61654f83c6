"""Issue 21: out-of-sample selection, the simultaneous variant, item-scale composition (spec 05 §8–10)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import optimize

from certirank.errors import ParameterError
from certirank.methods.rposst import _core, compose_test, read_test_matrix
from certirank.methods.rposst import items
from certirank.methods.rposst.itemeval import evaluate_item_designs
from certirank.methods.rposst.protocol import evaluate_test_designs
from certirank.methods.rposst.compose import design
from certirank.methods.rposst.select import SELECT_RULES, expected_max, fit_candidate, parse_candidate
from certirank.methods.rposst.simultaneous import mixture_loss, solve_simultaneous

A_R2 = np.array([[0.4, 0.4, 0.9, 0.5], [0.4, 0.4, 0.7, 0.6], [0.1, 0.8, 0.8, 1.0], [0.8, 0.3, 0.3, 0.7],
                 [0.7, 0.7, 0.9, 0.3]])


# ------------------------------------------------------------------ pruned exhaustive RM+

@pytest.mark.parametrize("seed, eta", [(0, 0.01), (1, 0.2), (2, 1.0), (3, 0.05)])
def test_pruned_rm_plus_equals_exhaustive(seed, eta):
    rng = np.random.default_rng(seed)
    A = rng.random((22, 9))
    problem = _core.make_problem(A, _core.softmax_targets(A, [0, 2]))
    tuples = _core.all_tuples(22, 3)
    full = _core.rm_plus_all(problem, tuples, eta, 60)
    i = _core.first_min(full.loss)
    j, loss, weights, rnd = _core.rm_plus_best(problem, tuples, eta, 60, warm=16)
    assert j == i and loss == full.loss[i] and np.array_equal(weights, full.weights[i]) and rnd == full.rounds[i]
    # the bound really is a lower bound on the exact per-tuple optimum
    lp, _ = _core.lp_all(problem, tuples[:40], eta)
    assert np.all(_core.box_lower_bound(problem, tuples[:40], eta) <= lp.loss + 1e-9)


# ------------------------------------------------------------------ select="cv"

def test_expected_max_matches_enumeration():
    e = np.array([0.3, 0.1, 0.5, 0.2, 0.25, 0.05])
    for h in (1, 2, 4, 6):
        brute = np.mean([max(c) for c in itertools.combinations(e, h)])
        assert expected_max(e, h)[0] == pytest.approx(brute, abs=1e-12)


def test_select_rposst_keeps_r2_and_cv_reports_its_choice():
    seq = compose_test(A_R2, m=2, betas=(0,), rescale=False, select="rposst")
    assert seq.test_indices == [1, 4] and seq.design == "rposst" and seq.cv is None
    rng = np.random.default_rng(5)
    A = rng.random((9, 14))
    res = compose_test(A, m=2, seed=3)
    assert res.select == "cv" and res.cv is not None
    names = [c["name"] for c in res.cv["candidates"]]
    means = [c["mean_error"] for c in res.cv["candidates"]]
    diff_se = [c["se_vs_first"] for c in res.cv["candidates"]]
    clear = [i for i in range(len(names)) if means[i] < means[0] - diff_se[i]]
    expected = 0 if not clear else min(clear, key=lambda i: (means[i], i))
    assert res.design == res.cv["chosen"] == names[expected]
    assert res.cv["estimate"] == pytest.approx(means[expected]) and res.cv["se"] > 0
    # the refitted winner is what a direct call with that single candidate returns
    alone = compose_test(A, m=2, seed=3, candidates=[res.design])
    assert alone.test_indices == res.test_indices and np.allclose(alone.weights, res.weights)
    assert compose_test(A, m=2, seed=3).to_dict() == res.to_dict()  # seeded


def test_cv_scores_recomputed_by_hand():
    """One candidate (minimax uniform) and folds = p: leave-one-policy-out errors, then E[max over h]."""
    rng = np.random.default_rng(2)
    A = rng.random((7, 6))
    res = compose_test(A, m=2, betas=(0, 3), rescale=False, candidates=["minimax-uniform"], folds=6, cv_holdout=0.34)
    targets = _core.softmax_targets(A, [0, 3])
    errs = []
    for j in range(6):
        keep = [c for c in range(6) if c != j]
        best, best_err = None, np.inf
        for tup in itertools.combinations(range(7), 2):
            e = np.abs(A[list(tup)][:, keep].mean(axis=0)[None, :] - targets @ A[:, keep]).max()
            if e < best_err - 1e-12:
                best, best_err = tup, e
        errs.append(np.abs(A[list(best), j].mean() - targets @ A[:, j]).max())
    h = 2  # round(0.34 · 6)
    brute = np.mean([max(c) for c in itertools.combinations(errs, h)])
    assert res.cv["estimate"] == pytest.approx(brute, abs=1e-12)
    # folds are reported as used: more folds than policies is leave one out
    assert compose_test(A, m=2, betas=(0, 3), rescale=False, candidates=["minimax-uniform"], folds=9,
                        cv_holdout=0.34).cv["folds"] == 6


def test_shrunk_candidate_is_between_rposst_and_uniform():
    rng = np.random.default_rng(4)
    A = rng.random((8, 10))
    full = compose_test(A, m=2, select="rposst", rounds=80)
    half = compose_test(A, m=2, candidates=["rposst:shrink=0.5"], rounds=80)
    assert half.test_indices == full.test_indices
    np.testing.assert_allclose(half.weights, 0.5 * np.asarray(full.weights) + 0.25, atol=1e-12)


def _fit(spec: str, A: np.ndarray, m: int = 2):
    problem = _core.make_problem(A, _core.softmax_targets(A, [0, 2]))
    tuples = _core.all_tuples(A.shape[0], m)

    def run(prob, mm, level):
        out = design(prob, mm, level, "rm+", 40, tuples=tuples)
        return out["cases"], out["weights"]
    return problem, fit_candidate(parse_candidate(spec), problem, m, 0.05, tuples, run, {})


def test_bagged_rposst_is_seeded_and_valid():
    A = np.random.default_rng(4).random((8, 12))
    problem, (cases, weights) = _fit("rposst:bag=8", A)
    _, (again_cases, again_weights) = _fit("rposst:bag=8", A)
    assert np.array_equal(cases, again_cases) and np.array_equal(weights, again_weights)
    assert len(set(cases.tolist())) == 2 and np.all(np.diff(cases) > 0)
    assert np.all(weights >= 0) and weights.sum() == pytest.approx(1.0, abs=1e-12)
    # the seed draws the resamples: another seed averages other weights
    _, (_, other) = _fit("rposst:bag=8;seed=1", A)
    assert not np.allclose(other, weights)
    # refit: the exact CVaR weights of the voted tuple on all policies
    _, (refit_cases, refit_weights) = _fit("rposst:bag=8;refit=1", A)
    assert np.array_equal(refit_cases, cases)
    np.testing.assert_allclose(refit_weights, items.lp_weights(problem, cases, 0.05), atol=1e-12)
    # bagw keeps RPOSST's own tuple and only averages its weights
    _, (rposst_cases, _) = _fit("rposst", A)
    _, (bagw_cases, bagw_weights) = _fit("rposst:bagw=8", A)
    assert np.array_equal(bagw_cases, rposst_cases) and bagw_weights.sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("spec", ["rposst:bag=1", "rposst:bag=2.5", "rposst:bag=x", "rposst:bag=4;bagw=4",
                                  "rposst:bag=4;refit=2"])
def test_bad_bag_is_one_line_error(spec):
    with pytest.raises(ParameterError, match="bag") as err:
        compose_test(A_R2, m=2, candidates=[spec])
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("kwargs, message", [
    ({"select": "best"}, "select"), ({"candidates": ["magic"]}, "unknown candidate"),
    ({"candidates": ["rposst:eta=2"]}, "eta in"), ({"folds": 1}, "folds"), ({"cv_holdout": 1.0}, "cv_holdout"),
    ({"cv_metric": "median"}, "cv_metric"), ({"variant": "both"}, "variant")])
def test_cv_parameter_errors(kwargs, message):
    with pytest.raises(ParameterError, match=message):
        compose_test(A_R2, m=2, **kwargs)


def test_cv_needs_three_policies():
    with pytest.raises(ParameterError, match="at least 3 tuning policies"):
        compose_test(A_R2[:, :2], m=1)
    assert parse_candidate("rposst:eta=0.2&shrink=0.25").eta == 0.2


def test_default_rule_keeps_miniaverage_unless_clearly_beaten():
    A = np.random.default_rng(0).random((9, 14))
    res = compose_test(A, m=2, seed=3)
    names = [c["name"] for c in res.cv["candidates"]]
    assert names == ["miniaverage", "rposst", "minimax-uniform"] and res.cv["repeats"] == 2
    means = {c["name"]: c["mean_error"] for c in res.cv["candidates"]}
    gap = means["miniaverage"] - means["minimax-uniform"]
    se = next(c["se_vs_first"] for c in res.cv["candidates"] if c["name"] == "minimax-uniform")
    # minimax uniform scores lower inside, but by less than one s.e.: the anchor stays
    assert 0 < gap < se and res.design == "miniaverage"
    # a clear win leaves the anchor (here minimax uniform, lower than miniaverage by more than its s.e.)
    other = compose_test(np.random.default_rng(2).random((9, 14)), m=2, seed=3)
    assert other.design == "minimax-uniform" and other.cv["chosen"] == "minimax-uniform"


@pytest.mark.parametrize("seed, design, indices", [(0, "rposst", [2, 4]), (3, "minimax-tnp", [2, 6]),
                                                   (4, "minimax-uniform", [4, 6])])
def test_earlier_rule_is_reachable_by_name(seed, design, indices):
    """select="cv-rposst" reproduces what select="cv" returned before the default changed (pinned values)."""
    A = np.random.default_rng(seed).random((9, 14))
    old = compose_test(A, m=2, seed=3, select="cv_rposst")
    assert old.select == "cv-rposst" and old.cv["repeats"] == 1
    assert [c["name"] for c in old.cv["candidates"]] == list(SELECT_RULES["cv-rposst"].candidates)
    assert old.design == design and old.test_indices == indices
    assert compose_test(A, m=2, seed=3, select="cv-rposst").to_dict() == old.to_dict()  # seeded


def test_unknown_select_is_one_line_error():
    with pytest.raises(ParameterError) as err:
        compose_test(A_R2, m=2, select="cv-best")
    assert "\n" not in str(err.value) and "cv, cv-rposst, rposst" in str(err.value)


def test_protocol_runs_both_selection_rules():
    A = np.random.default_rng(1).random((8, 15))
    res = evaluate_test_designs(A, m=1, methods=["cv", "cv-rposst"], sets=2, seed=0, rounds=30)
    designs = res.per_set.groupby("method")["design"].apply(set)
    assert designs["cv"] <= set(SELECT_RULES["cv"].candidates)
    assert designs["cv-rposst"] <= set(SELECT_RULES["cv-rposst"].candidates)
    # a method's result does not depend on which methods ran before it on the same seeds
    alone = evaluate_test_designs(A, m=1, methods=["cv-rposst"], sets=2, seed=0, rounds=30)
    pd.testing.assert_frame_equal(res.per_set[res.per_set["method"] == "cv-rposst"].reset_index(drop=True),
                                  alone.per_set)


# ------------------------------------------------------------------ simultaneous move

def _grid_game_value(problem, tuples, eta, grid):
    """Brute force: every (tuple, grid weight) design against every vertex of the CVaR antagonist set."""
    d = problem.d
    k = round(eta * d)
    vertices = [np.isin(np.arange(d), s) / k for s in itertools.combinations(range(d), k)]
    designs = []
    for tup in tuples:
        for g in range(grid + 1):
            w = np.array([g / grid, 1 - g / grid])
            designs.append(np.abs(w @ problem.AP[tup] - problem.b))
    M = np.array([[v @ loss for v in vertices] for loss in designs])  # designs × antagonist vertices
    nd, nv = M.shape
    # min_x max_v x^T M[:, v]: variables (x, z)
    res = optimize.linprog(np.r_[np.zeros(nd), 1.0], A_ub=np.c_[M.T, -np.ones(nv)], b_ub=np.zeros(nv),
                           A_eq=np.r_[np.ones(nd), 0.0][None, :], b_eq=[1.0],
                           bounds=[(0, None)] * nd + [(None, None)], method="highs")
    return res.fun


@pytest.mark.parametrize("seed, eta", [(0, 1 / 3), (1, 2 / 3), (2, 1 / 3)])
def test_simultaneous_matches_brute_force_on_a_tiny_instance(seed, eta):
    rng = np.random.default_rng(seed)
    A = rng.random((4, 3)).round(2)
    problem = _core.make_problem(A, np.full((1, 4), 0.25))
    tuples = _core.all_tuples(4, 2)
    probs, weights, value = solve_simultaneous(problem, tuples, eta)
    grid = 200
    brute = _grid_game_value(problem, tuples, eta, grid)
    # the grid game restricts the protagonist, and any weight is within 1/(2·grid) of the grid (|a| <= 1)
    assert value <= brute + 1e-9
    assert brute - value <= 1 / (2 * grid) + 1e-9
    assert mixture_loss(problem, tuples, probs, weights, eta) == pytest.approx(value, abs=1e-7)
    seq, _ = _core.lp_all(problem, tuples, eta)
    assert value <= seq.loss.min() + 1e-9  # randomising never hurts the protagonist


def test_simultaneous_can_beat_every_pure_test():
    # each single case is exact for one policy and off by 0.5 for the other; a 50/50 draw halves the worst case
    A = np.array([[0.5, 1.0], [1.0, 0.5], [0.0, 0.0]])
    problem = _core.make_problem(A, np.full((1, 3), 1 / 3))
    tuples = _core.all_tuples(3, 1)
    probs, _, value = solve_simultaneous(problem, tuples, 0.5)
    assert value == pytest.approx(0.25, abs=1e-9) and _core.lp_all(problem, tuples, 0.5)[0].loss.min() == 0.5
    np.testing.assert_allclose(probs, [0.5, 0.5, 0.0], atol=1e-9)
    res = compose_test(A_R2, m=2, betas=(0,), rescale=False, variant="simultaneous", eta=0.5)
    assert res.variant == "simultaneous" and abs(sum(t["probability"] for t in res.mixture) - 1) < 1e-9
    seq = compose_test(A_R2, m=2, betas=(0,), rescale=False, select="rposst", solver="lp", eta=0.5)
    assert res.loss <= seq.loss + 1e-9


# ------------------------------------------------------------------ item scale

def _items_matrix(seed=0, n=300, p=40):
    rng = np.random.default_rng(seed)
    skill = rng.normal(0, 1, p)
    diff = rng.normal(0, 1.2, n)
    prob = 1 / (1 + np.exp(-(skill[None, :] - diff[:, None])))
    return (rng.random((n, p)) < prob).astype(float)


def test_search_support_improves_on_greedy_and_reports_exact_objective():
    A = _items_matrix()
    problem = _core.make_problem(A, np.full((1, A.shape[0]), 1 / A.shape[0]))
    cases, value = items.search_support(problem, 20, "miniaverage", 0.01, np.random.default_rng(0))
    _, gvalue = items.search_support(problem, 20, "miniaverage", 0.01, np.random.default_rng(0), max_tries=0)
    assert len(set(cases)) == 20 and value <= gvalue
    assert value == pytest.approx(np.abs(A[cases].mean(axis=0) - A.mean(axis=0)).mean(), abs=1e-12)
    res = compose_test(A, m=20, betas=(0,), rescale=False, select="rposst")
    assert res.solver == "search"
    truth = _core.evaluate_weights(problem, np.array([res.test_indices]), np.array([res.weights]), 0.01)[0]
    assert res.loss == pytest.approx(truth, abs=1e-12)
    # LP weights on the found support are optimal for it: never worse than uniform weights there
    unif = _core.evaluate_weights(problem, np.array([res.test_indices]), np.full((1, 20), 0.05), 0.01)[0]
    assert res.loss <= unif + 1e-9


def test_random_regression_and_anchor_points():
    A = _items_matrix(1)
    full = A.mean(axis=0)
    cases, a, b = items.random_regression(A, full, 30, np.random.default_rng(0))
    slope, intercept = np.polyfit(A[cases].mean(axis=0), full, 1)
    assert (a, b) == pytest.approx((intercept, slope))
    med, w = items.anchor_points(A, 10, np.random.default_rng(0))
    assert len(set(med)) == 10 and w.sum() == pytest.approx(1.0) and np.all(w > 0)
    # k-medoids on a planted clustering recovers it
    pts = np.r_[np.zeros(5), np.full(5, 10.0), np.full(5, 20.0)] + np.random.default_rng(1).random(15) * 0.1
    D = np.abs(pts[:, None] - pts[None, :])
    _, labels = items.kmedoids(D, 3, np.random.default_rng(0))
    assert len({tuple(labels[i:i + 5]) for i in (0, 5, 10)}) == 3 and all(len(set(labels[i:i + 5])) == 1
                                                                             for i in (0, 5, 10))


def test_item_evaluation_metrics_recomputed():
    A = _items_matrix(2, n=120, p=20)
    res = evaluate_item_designs(A, 10, methods=["random", "random-regression"], sets=2, seed=1)
    rng = np.random.default_rng(1)
    splits = [np.sort(rng.choice(20, size=4, replace=False)) for _ in range(2)]
    seeds = np.random.SeedSequence(rng.integers(2**63)).spawn(2)
    full = A.mean(axis=0)
    for s, hold in enumerate(splits):
        pick = np.sort(np.random.default_rng(seeds[s]).choice(120, size=10, replace=False))
        pred = A[pick].mean(axis=0)
        row = res.per_set[(res.per_set["method"] == "random") & (res.per_set["set"] == s)].iloc[0]
        assert row["mae"] == pytest.approx(np.abs(pred - full)[hold].mean())
        assert row["max_error"] == pytest.approx(np.abs(pred - full)[hold].max())
    assert set(res.table["method"]) == {"random", "random-regression"}


# ------------------------------------------------------------------ long tables

def test_long_model_item_table_and_canonical_table(tmp_path):
    rows = [(f"m{j}", i, float((i * 7 + j * 3) % 5 > 1)) for j in range(6) for i in range(12)]
    frame = pd.DataFrame(rows, columns=["model", "item", "score"])
    path = tmp_path / "long.csv"
    frame.to_csv(path, index=False)
    sm = read_test_matrix(path)
    assert sm.shape == (12, 6) and sm.test_cases[:3] == ("0", "1", "2") and sm.test_cases[-1] == "11"
    assert sm.raw[10, 2] == frame[(frame.model == "m2") & (frame.item == 10)].score.iloc[0]
    import certirank
    canonical = certirank.load(path)
    sm2 = read_test_matrix(canonical)
    np.testing.assert_array_equal(sm2.raw, sm.raw)
    assert sm2.test_cases == sm.test_cases and sm2.policies == sm.policies


def test_lm_eval_output_folder_is_a_test_matrix(tmp_path):
    """compose-test reads evaluation logs as certirank.load does: an lm-eval --output_path folder with
    --log_samples (one folder per model), items = doc ids; a repeated run of an item is averaged."""
    import json

    import certirank
    rng = np.random.default_rng(7)
    truth = {}
    for j in range(5):
        d = tmp_path / "out" / f"org__model{j}"
        d.mkdir(parents=True)
        for run, stamp in enumerate(("2024-01-01T00-00-00.000000", "2024-01-02T00-00-00.000000")[: 1 + (j == 0)]):
            lines = []
            for i in range(9):
                acc = int(rng.random() < 0.2 + 0.15 * j)
                truth.setdefault((j, i), []).append(acc)
                lines.append(json.dumps({"doc_id": i, "filter": "none", "metrics": ["acc"], "acc": acc}))
            (d / f"samples_task_{stamp}.jsonl").write_text("\n".join(lines) + "\n")
    sm = read_test_matrix(tmp_path / "out")
    assert sm.shape == (9, 5) and sm.policies == tuple(f"org__model{j}" for j in range(5))
    expected = np.array([[np.mean(truth[(j, i)]) for j in range(5)] for i in range(9)])
    np.testing.assert_allclose(sm.raw, expected)
    # the same matrix as pivoting the canonical table by hand
    np.testing.assert_array_equal(read_test_matrix(certirank.load(tmp_path / "out")).raw, sm.raw)
    res = compose_test(tmp_path / "out", m=2, rounds=30)
    assert len(res.test_cases) == 2 and set(res.test_cases) <= set(sm.test_cases)
