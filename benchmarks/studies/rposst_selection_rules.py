"""Issue 21: which *selection rule* makes the default design hold for new policies?

For every outer holdout set of spec 05 §11's protocol (the same sets as `evaluate_test_designs(seed=0)`), this
caches (1) each candidate design's outer max holdout error and (2) its per-policy inner cross-validated errors
(`repeats` × 5-fold over the tuning policies only, the fold of size ≈ round(0.2·p) mimicking the outer holdout).
Any rule that uses only (2) can then be scored offline on (1); no rule ever sees the outer holdout.

    .venv/bin/python benchmarks/studies/rposst_selection_rules.py collect rrps 1 20 /tmp/d21/rrps1.npz [all|inner]
    .venv/bin/python benchmarks/studies/rposst_selection_rules.py score /tmp/d21/*.npz
    # inner-CV variants (session 6): leave one out, leave-cluster-out (k-means folds of alike policies), and
    # each fold min-max rescaled over its own training columns as the outer protocol does
    .venv/bin/python benchmarks/studies/rposst_selection_rules.py collect rrps 2 50 /tmp/d21/loo.npz folds=0 repeats=1
    .venv/bin/python benchmarks/studies/rposst_selection_rules.py collect rrps 2 50 /tmp/d21/cl.npz split=cluster
    .venv/bin/python benchmarks/studies/rposst_selection_rules.py collect rrps 2 50 /tmp/d21/rs.npz rescale
    .venv/bin/python benchmarks/studies/rposst_selection_rules.py collect rrps 2 50 /tmp/d21/r5.npz repeats=5
    # session 7: each inner held-out policy pushed away from the fold's centre, x' = c + X (x - c), so the inner
    # score weighs how a design treats policies more extreme than the ones it was fitted on
    .venv/bin/python benchmarks/studies/rposst_selection_rules.py collect rrps 2 50 /tmp/d21/x2_rrps2.npz extrap=2
    # which held-out policies decide a cell, and what the inner CV sees of them
    .venv/bin/python benchmarks/studies/rposst_selection_rules.py who /tmp/d21/rrps2.npz
    # rules on the stability of each candidate's inner designs (caches collected since session 6)
    .venv/bin/python benchmarks/studies/rposst_selection_rules.py score --stable /tmp/d21/rrps2.npz
    # add candidates to a cache (same outer sets and inner folds; only the new candidates are fitted)
    .venv/bin/python benchmarks/studies/rposst_selection_rules.py extend /tmp/d21/rrps1.npz /tmp/d21/bag_rrps1.npz
    # confirm on sets a rule was not chosen on (here 20..34): today's pool, minimax TTD/TNP and rposst:bag=10
    .venv/bin/python benchmarks/studies/rposst_selection_rules.py fresh rrps 3 20 35 /tmp/d21/fresh_rrps3.npz
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from certirank.methods.rposst import _core, read_test_matrix
from certirank.methods.rposst.compose import design
from certirank.methods.rposst.protocol import holdout_size
from certirank.methods.rposst.select import expected_max, fit_candidate, parse_candidate

CANDS = ("rposst", "rposst:shrink=0.5", "rposst:eta=0.1", "minimax-uniform", "minimax-ttd", "minimax-tnp",
         "miniaverage")
BASE = ("minimax-uniform", "minimax-ttd", "minimax-tnp", "miniaverage")
BETAS = np.array([0.0, 1.0, 2.0, 4.0])


def _matrix(domain: str):
    if domain == "rrps":
        root = next(p for p in (Path(__file__).resolve().parents[3] / "shared", Path("/work/shared")) if p.is_dir())
        return read_test_matrix(root / "data" / "games" / "rrps_bots_43x43.csv")
    from certirank.methods.rposst.matrix import as_score_matrix
    from certirank.sim.racing_arrows import racing_arrows_matrix
    return as_score_matrix(racing_arrows_matrix(50, domain, seed=0))


# bagged RPOSST (session 5, helper b21): B = 10 resamples keeps one m = 3 outer set near a minute
BAGGED = ("rposst:bag=10", "rposst:bag=10;refit=1", "rposst:bagw=10")


def _holdouts(n_pol: int, sets: int) -> list[np.ndarray]:
    """The outer holdout sets of `evaluate_test_designs(seed=0)`."""
    rng = np.random.default_rng(0)
    return [np.sort(rng.choice(n_pol, size=holdout_size(0.2, n_pol), replace=False)) for _ in range(sets)]


def _rm_plus(tuples: np.ndarray, rounds: int):
    """`run(problem, m, eta)` for `fit_candidate`: RPOSST by RM+ over `tuples`."""
    def run(prob, mm, lev):
        o = design(prob, mm, lev, "rm+", rounds, tuples=tuples)
        return np.asarray(o["cases"]), np.asarray(o["weights"], float)
    return run


def collect(domain: str, m: int, sets: int, out: str, repeats: int = 2, folds: int = 5, targets: str = "all",
            names: tuple[str, ...] = CANDS, base: dict | None = None, first: int = 0, split: str = "random",
            extrap: float = 1.0) -> None:
    """`targets="all"`: inner folds keep the targets of all tuning policies (as `select.nested_holdout`);
    `"inner"`: each inner fold recomputes them from its own training columns at the outer temperature
    (column sums scaled by p/|kept|), so the inner held-out policies play no part in them, as in the outer
    protocol; `"rescale"`: each fold is also min-max rescaled over its own training columns (spec 05 §11.3),
    targets at the fold's own temperature. `folds=0` is leave one out; `split="cluster"` holds out k-means
    groups of alike policy columns instead of random groups. `base` (a loaded cache of the same domain, m and
    sets) is extended by the candidates `names`; sets before `first` are skipped (fresh sets for confirming a
    rule chosen on the earlier ones)."""
    folds_arg = folds
    sm = _matrix(domain)
    n_pol = sm.shape[1]
    holdouts = _holdouts(n_pol, sets)
    tuples = _core.all_tuples(sm.shape[0], m)
    cands = [parse_candidate(c) for c in names]
    outer_run, inner_run = _rm_plus(tuples, 300), _rm_plus(tuples, 100)

    OUT, INNER, FOLD, PICKS, WTS = [], [], [], [], []
    for s, hold in enumerate(holdouts):
        if s < first:
            continue
        t0 = time.perf_counter()
        tun = np.setdiff1d(np.arange(n_pol), hold)
        S, _, _ = sm.scaled(tun)
        A, Ah = S[:, tun], S[:, hold]
        T = _core.softmax_targets(A, BETAS)
        P = _core.make_problem(A, T)
        cache: dict = {}
        OUT.append([_core.pair_errors(Ah, T, *fit_candidate(c, P, m, 0.01, tuples, outer_run, cache)).max()
                    for c in cands])
        p = A.shape[1]
        folds = p if folds_arg == 0 else folds_arg
        inner = np.zeros((repeats, len(cands), p))
        fold_id = np.zeros((repeats, p), int)
        # the tuple and weights each inner fit chose: the stability of a design under resampling (session 6)
        picks = np.zeros((repeats, folds, len(cands), m), int)
        wts = np.zeros((repeats, folds, len(cands), m))
        frng = np.random.default_rng([s, 7])
        for r in range(repeats):
            if split == "cluster":  # leave-cluster-out: folds of alike policies (k-means on their columns)
                from scipy.cluster.vq import kmeans2
                _, lab = kmeans2(A.T, folds, seed=int(frng.integers(2**31)), minit="++")
                groups = [np.flatnonzero(lab == f) for f in range(folds) if np.any(lab == f)]
            else:
                groups = np.array_split(frng.permutation(p), folds)
            for f, o in enumerate(groups):
                o = np.sort(o)
                keep = np.setdiff1d(np.arange(p), o)
                Ai = A
                if targets == "rescale":  # as the outer protocol: min-max over the fold's training columns only
                    lo, hi = A[:, keep].min(), A[:, keep].max()
                    Ai = (A - lo) / (hi - lo)
                    Ti = _core.softmax_targets(Ai[:, keep], BETAS)
                else:
                    Ti = T if targets == "all" else _core.softmax_targets(A[:, keep] * (p / keep.size), BETAS,
                                                                          A.shape[0])
                prob = _core.make_problem(Ai[:, keep], Ti)
                ic: dict = {}
                fold_id[r, o] = f
                for c, cand in enumerate(cands):
                    cs, w = fit_candidate(cand, prob, m, 0.01, tuples, inner_run, ic)
                    picks[r, f, c], wts[r, f, c] = cs, w
                    held = Ai[:, o]
                    if extrap != 1.0:  # held-out policies pushed away from the fold's centre (session 7)
                        centre = Ai[:, keep].mean(axis=1, keepdims=True)
                        held = centre + extrap * (held - centre)
                    inner[r, c, o] = _core.pair_errors(held, Ti, cs, w).max(axis=0)
        INNER.append(inner)
        FOLD.append(fold_id)
        PICKS.append(picks)
        WTS.append(wts)
        print(domain, m, s, f"{time.perf_counter() - t0:.1f}s", np.round(OUT[-1], 3), flush=True)
        outer, inner_all, all_names = np.array(OUT), np.array(INNER), list(names)
        if base is not None:
            if not np.array_equal(base["fold"][:len(FOLD)], np.array(FOLD)):
                raise SystemExit("the base cache was collected on other inner folds")
            outer = np.concatenate([base["outer"][:len(OUT)], outer], axis=1)
            inner_all = np.concatenate([base["inner"][:len(INNER)], inner_all], axis=2)
            all_names = [str(c) for c in base["cands"]] + all_names
        extra = {} if base is not None else {"picks": np.array(PICKS), "wts": np.array(WTS)}
        np.savez(out, outer=outer, inner=inner_all, fold=np.array(FOLD), cands=np.array(all_names), domain=domain, m=m,
                 **extra)


# ---- selection rules: each maps (inner (R, C, p), fold (R, p), names) -> chosen candidate index ----

def _em(inner, h):
    return expected_max(inner.mean(axis=0), h)


def _boot(inner, h, rng, B=200):
    e = inner.mean(axis=0)
    p = e.shape[1]
    d = rng.integers(0, p, size=(B, p))
    return np.array([expected_max(e[c][d], h) for c in range(e.shape[0])])


def _pool_scores(pool, inner, names, h, rng):
    idx = [names.index(c) for c in pool]
    return idx, _em(inner, h)[idx], _boot(inner, h, rng)[idx]


def rule_one_se(pool, anchor):
    """keep `anchor` (a name, or a function of the pool's bootstrap scores giving its position) unless another
    pool member is lower by more than the bootstrap s.e. of the paired difference"""
    def rule(inner, fold, names, h, rng, **_):
        idx, mean, boots = _pool_scores(pool, inner, names, h, rng)
        a = pool.index(anchor) if isinstance(anchor, str) else anchor(boots)
        dse = (boots - boots[a]).std(axis=1, ddof=1)
        clear = np.flatnonzero(mean < mean[a] - dse)
        return idx[a] if clear.size == 0 else idx[int(clear[np.argmin(mean[clear])])]
    return rule


def rule_argmin(pool):
    def rule(inner, fold, names, h, rng, **_):
        idx = [names.index(c) for c in pool]
        return idx[int(np.argmin(_em(inner, h)[idx]))]
    return rule


def _fold_max(inner, fold):
    R, C, p = inner.shape
    k = fold.max() + 1
    return np.array([[inner[r, :, fold[r] == f].max(axis=0) for f in range(k)] for r in range(R)]).reshape(-1, C)


def rule_split_mean(pool):
    """mean over the inner splits of the max error on the split (the outer statistic, mimicked)"""
    def rule(inner, fold, names, h, rng, **_):
        idx = [names.index(c) for c in pool]
        return idx[int(np.argmin(_fold_max(inner, fold)[:, idx].mean(axis=0)))]
    return rule


def rule_worst_rank(pool):
    def rule(inner, fold, names, h, rng, **_):
        idx = [names.index(c) for c in pool]
        fm = _fold_max(inner, fold)[:, idx]
        ranks = fm.argsort(axis=1).argsort(axis=1)
        worst = ranks.max(axis=0) + 1e-3 * ranks.mean(axis=0)
        return idx[int(np.argmin(worst))]
    return rule


def rule_mean_rank(pool):
    def rule(inner, fold, names, h, rng, **_):
        idx = [names.index(c) for c in pool]
        fm = _fold_max(inner, fold)[:, idx]
        return idx[int(np.argmin(fm.argsort(axis=1).argsort(axis=1).mean(axis=0)))]
    return rule


def rule_simplest_within(order):
    """Breiman's one-s.e. rule: the simplest candidate (first in `order`) whose score is within one bootstrap
    s.e. of the paired difference to the lowest-scoring one"""
    def rule(inner, fold, names, h, rng, **_):
        idx, mean, boots = _pool_scores(order, inner, names, h, rng)
        best = int(np.argmin(mean))
        dse = (boots - boots[best]).std(axis=1, ddof=1)
        return idx[int(np.flatnonzero(mean <= mean[best] + dse)[0])]
    return rule


def rule_stable_anchor(pool):
    """one-s.e. toward the candidate with the smallest bootstrap s.e. of its score (the most stable design
    on these tuning policies), not toward a fixed one"""
    return rule_one_se(pool, lambda boots: int(np.argmin(boots.std(axis=1, ddof=1))))


def rule_min_regret(pool):
    """the candidate whose worst excess over the best pool member, across the inner splits, is smallest"""
    def rule(inner, fold, names, h, rng, **_):
        idx = [names.index(c) for c in pool]
        fm = _fold_max(inner, fold)[:, idx]
        return idx[int(np.argmin((fm - fm.min(axis=1, keepdims=True)).max(axis=0)))]
    return rule


def _stability(picks, wts, c, kind):
    """How alike the designs of candidate `c` are across its R x F inner fits: mean pairwise Jaccard overlap of
    the chosen case sets (`jaccard`), mean pairwise overlap of the weight distributions over cases
    (`weighted`: sum of the smaller weight, 1 for the same design), or the share of fits on the modal set
    (`modal`)."""
    w = np.abs(wts[:, :, c].reshape(-1, picks.shape[-1]))
    fitted = w.sum(axis=1) > 0  # k-means folds can come out empty: no fit, no row
    sets, w = picks[:, :, c].reshape(-1, picks.shape[-1])[fitted], w[fitted]
    w = w / w.sum(axis=1, keepdims=True)
    k = len(sets)
    if kind == "modal":
        keys = [tuple(sorted(x)) for x in sets]
        return max(keys.count(t) for t in set(keys)) / k
    vals = []
    for i in range(k):
        for j in range(i + 1, k):
            a, b = set(sets[i].tolist()), set(sets[j].tolist())
            if kind == "jaccard":
                vals.append(len(a & b) / len(a | b))
            else:
                da = dict(zip(sets[i].tolist(), w[i]))
                db = dict(zip(sets[j].tolist(), w[j]))
                vals.append(sum(min(da[x], db[x]) for x in a & b))
    return float(np.mean(vals))


def rule_most_stable(pool, kind="jaccard"):
    """the candidate whose inner fits agree most (a design that does not move with the policies it sees does
    not overfit them); ties to the earlier pool member"""
    def rule(inner, fold, names, h, rng, picks=None, wts=None):
        idx = [names.index(c) for c in pool]
        st = np.array([_stability(picks, wts, c, kind) for c in idx])
        return idx[int(np.flatnonzero(st >= st.max() - 1e-12)[0])]
    return rule


def rule_stable_then_one_se(pool, kind="jaccard"):
    """one-s.e. rule anchored on the most stable candidate"""
    def rule(inner, fold, names, h, rng, picks=None, wts=None):
        st = [_stability(picks, wts, names.index(c), kind) for c in pool]
        a = int(np.flatnonzero(np.array(st) >= max(st) - 1e-12)[0])
        return rule_one_se(pool, pool[a])(inner, fold, names, h, rng)
    return rule


def rule_mean_then_max(pool, k=1.0):
    """Pareto-style: the candidates whose inner mean error is within k bootstrap s.e. (paired) of the lowest
    mean, then the lowest expected-max score among them (a design that costs nothing on average may as well
    guard the worst case)"""
    def rule(inner, fold, names, h, rng, **_):
        idx = [names.index(c) for c in pool]
        e = inner.mean(axis=0)[idx]  # (C, p)
        mean = e.mean(axis=1)
        d = rng.integers(0, e.shape[1], size=(200, e.shape[1]))
        boots = np.array([e[c][d].mean(axis=1) for c in range(len(idx))])
        best = int(np.argmin(mean))
        dse = (boots - boots[best]).std(axis=1, ddof=1)
        ok = np.flatnonzero(mean <= mean[best] + k * dse)
        em = _em(inner, h)[idx]
        return idx[int(ok[np.argmin(em[ok])])]
    return rule


def rule_fixed(name):
    return lambda inner, fold, names, h, rng, **_: names.index(name)


ALL = list(CANDS)
NOSHR = ["rposst", "rposst:eta=0.1", *BASE]
RULES = {
    "s3 (one-s.e. to rposst, all)": rule_one_se(ALL, "rposst"),
    "one-s.e. to miniaverage, all": rule_one_se(ALL, "miniaverage"),
    "one-s.e. to minimax-uniform, all": rule_one_se(ALL, "minimax-uniform"),
    "one-s.e. to miniaverage, {miniavg,rposst}": rule_one_se(["miniaverage", "rposst"], "miniaverage"),
    "one-s.e. to miniaverage, {miniavg,rposst,mm-unif}": rule_one_se(["miniaverage", "rposst", "minimax-uniform"], "miniaverage"),
    "one-s.e. to miniaverage, {miniavg,rposst,ttd}": rule_one_se(["miniaverage", "rposst", "minimax-ttd"], "miniaverage"),
    "argmin all": rule_argmin(ALL),
    "argmin {miniavg,rposst}": rule_argmin(["miniaverage", "rposst"]),
    "argmin baselines": rule_argmin(list(BASE)),
    "split-mean all": rule_split_mean(ALL),
    "split-mean {miniavg,rposst}": rule_split_mean(["miniaverage", "rposst"]),
    "worst-rank all": rule_worst_rank(ALL),
    "worst-rank {miniavg,rposst,mm-unif}": rule_worst_rank(["miniaverage", "rposst", "minimax-uniform"]),
    "mean-rank all": rule_mean_rank(ALL),
    "mean-rank {miniavg,rposst}": rule_mean_rank(["miniaverage", "rposst"]),
    # session 5 (h21): principled variants that depend on the tuning data only
    "one-s.e. to miniaverage, {miniavg,rposst,mm-unif,shrink}": rule_one_se(
        ["miniaverage", "rposst", "minimax-uniform", "rposst:shrink=0.5"], "miniaverage"),
    "one-s.e. to miniaverage, {miniavg,rposst,mm-unif,ttd}": rule_one_se(
        ["miniaverage", "rposst", "minimax-uniform", "minimax-ttd"], "miniaverage"),
    "one-s.e. to rposst:shrink, {shrink,miniavg,rposst,mm-unif}": rule_one_se(
        ["rposst:shrink=0.5", "miniaverage", "rposst", "minimax-uniform"], "rposst:shrink=0.5"),
    "simplest within 1 s.e., miniavg<mm-unif<rposst": rule_simplest_within(
        ["miniaverage", "minimax-uniform", "rposst"]),
    "simplest within 1 s.e., miniavg<mm-unif<ttd<shrink<rposst": rule_simplest_within(
        ["miniaverage", "minimax-uniform", "minimax-ttd", "rposst:shrink=0.5", "rposst"]),
    "stable anchor, {miniavg,rposst,mm-unif}": rule_stable_anchor(["miniaverage", "rposst", "minimax-uniform"]),
    "stable anchor, all": rule_stable_anchor(ALL),
    "min-regret {miniavg,rposst,mm-unif}": rule_min_regret(["miniaverage", "rposst", "minimax-uniform"]),
    "min-regret all": rule_min_regret(ALL),
    **{f"fixed {c}": rule_fixed(c) for c in CANDS},
}
# session 6: stability of each candidate's design across its inner fits (needs caches with `picks`)
STABLE_RULES = {
    "one-s.e. to miniaverage, {miniavg,rposst,mm-unif}": RULES["one-s.e. to miniaverage, {miniavg,rposst,mm-unif}"],
    **{f"fixed {c}": rule_fixed(c) for c in CANDS},
}
for _anc in ("rposst", "minimax-uniform"):
    for _pname, _pool in (("{rposst,miniavg,mm-unif}", ["rposst", "miniaverage", "minimax-uniform"]),
                          ("{rposst,miniavg}", ["rposst", "miniaverage"])):
        if _anc in _pool:
            STABLE_RULES[f"one-s.e. to {_anc}, {_pname}"] = rule_one_se(_pool, _anc)
for _k in (0.5, 1.0, 2.0):
    STABLE_RULES[f"mean within {_k} s.e., then max, {{miniavg,rposst,mm-unif}}"] = rule_mean_then_max(
        ["miniaverage", "rposst", "minimax-uniform"], _k)
    STABLE_RULES[f"mean within {_k} s.e., then max, all"] = rule_mean_then_max(ALL, _k)
for _kind in ("jaccard", "weighted", "modal"):
    for _pname, _pool in (("{miniavg,rposst,mm-unif}", ["miniaverage", "rposst", "minimax-uniform"]),
                          ("{miniavg,rposst,mm-unif,ttd}", ["miniaverage", "rposst", "minimax-uniform", "minimax-ttd"]),
                          ("all", ALL)):
        STABLE_RULES[f"most stable ({_kind}), {_pname}"] = rule_most_stable(_pool, _kind)
        STABLE_RULES[f"one-s.e. to most stable ({_kind}), {_pname}"] = rule_stable_then_one_se(_pool, _kind)
TODAY = ["miniaverage", "rposst", "minimax-uniform"]
# session 5 (b21): bagged RPOSST as a fixed design, in place of RPOSST, beside it, and as the anchor
BAG_RULES = {f"fixed {c}": rule_fixed(c) for c in BAGGED}
for _bag in BAGGED:
    BAG_RULES.update({
        f"one-s.e. to miniaverage, {{miniavg,{_bag},mm-unif}}": rule_one_se(["miniaverage", _bag, "minimax-uniform"],
                                                                          "miniaverage"),
        f"one-s.e. to miniaverage, {{miniavg,rposst,mm-unif,{_bag}}}": rule_one_se([*TODAY, _bag], "miniaverage"),
        f"one-s.e. to {_bag}, {{{_bag},miniavg,rposst,mm-unif}}": rule_one_se([_bag, *TODAY], _bag),
        f"one-s.e. to {_bag}, {{{_bag},miniavg,mm-unif}}": rule_one_se([_bag, "miniaverage", "minimax-uniform"], _bag),
    })


def score(paths):
    """Every rule on every cache; with `--bag`, today's default, the fixed designs and the bagged rules only
    (the caches must then come from `extend`)."""
    rules = RULES
    if paths[0] == "--bag":
        keep = ("one-s.e. to miniaverage, {miniavg,rposst,mm-unif}", *(f"fixed {c}" for c in CANDS))
        rules = {**{k: RULES[k] for k in keep}, **BAG_RULES}
        paths = paths[1:]
    elif paths[0] == "--stable":
        rules = STABLE_RULES
        paths = paths[1:]
    cells = []
    for path in paths:
        z = np.load(path)
        names = [str(c) for c in z["cands"]]
        outer, inner, fold = z["outer"], z["inner"], z["fold"]
        n = len(outer)
        p = inner.shape[-1]
        h = max(1, int(np.floor(0.2 * p + 0.5)))
        bi = [names.index(c) for c in BASE]
        bm = outer[:, bi].mean(axis=0)
        bse = outer[:, bi].std(axis=0, ddof=1) / np.sqrt(n)
        b = int(np.argmin(bm))
        thr = bm[b] + bse[b]
        res = {}
        # read once: each access to an .npz member decompresses it again
        picks, wts = (z["picks"], z["wts"]) if "picks" in z else (None, None)
        kw = [{} if picks is None else {"picks": picks[s], "wts": wts[s]} for s in range(n)]
        for rname, rule in rules.items():
            try:
                ch = [rule(inner[s], fold[s], names, h, np.random.default_rng(s), **kw[s]) for s in range(n)]
            except ValueError:  # a `fresh` cache holds only some candidates
                res[rname] = (np.nan, np.nan, False)
                continue
            e = outer[np.arange(n), ch]
            res[rname] = (e.mean(), e.std(ddof=1) / np.sqrt(n), e.mean() <= thr)
        cells.append((f"{z['domain']} m={int(z['m'])} ({n})", bm[b], bse[b], BASE[b], res))
    print(f"{'rule':70s}" + "".join(f"{c[0]:>22s}" for c in cells) + "   met")
    print(f"{'best baseline + 1 s.e.':70s}" + "".join(f"{c[1] + c[2]:22.3f}" for c in cells))
    for rname in rules:
        vals = [c[4][rname] for c in cells]
        print(f"{rname:70s}" + "".join(f"{v[0]:15.3f}±{v[1]:.3f}{'*' if v[2] else ' '}" for v in vals)
              + f"   {sum(v[2] for v in vals)}/{len(vals)}")


def who(cache: str, names: tuple[str, ...] = ("miniaverage", "rposst")) -> None:
    """Which held-out policies decide a cell: for each design, the policies that give its max error on the outer
    holdout most often (and their mean error when held out); then, for the two hardest policies x, y of the first
    design, its outer error and its inner error on y with x held out or kept in the tuning set."""
    z = np.load(cache)
    domain, m = str(z["domain"]), int(z["m"])
    sm = _matrix(domain)
    n_pol = sm.shape[1]
    holdouts = _holdouts(n_pol, len(z["outer"]))
    tuples = _core.all_tuples(sm.shape[0], m)
    run = _rm_plus(tuples, 300)
    per = {c: np.full((len(holdouts), n_pol), np.nan) for c in names}
    for s, hold in enumerate(holdouts):
        tun = np.setdiff1d(np.arange(n_pol), hold)
        S, _, _ = sm.scaled(tun)
        T = _core.softmax_targets(S[:, tun], BETAS)
        P, fits = _core.make_problem(S[:, tun], T), {}
        for c in names:
            per[c][s, hold] = _core.pair_errors(S[:, hold], T, *fit_candidate(parse_candidate(c), P, m, 0.01, tuples,
                                                                               run, fits)).max(axis=0)
    for c in names:
        worst = np.nanargmax(per[c], axis=1)
        top = np.argsort(-np.bincount(worst, minlength=n_pol))[:3]
        print(f"{c}: max error most often on " + ", ".join(
            f"{sm.policies[j]} ({int((worst == j).sum())} of {len(holdouts)} sets, mean error {np.nanmean(per[c][:, j]):.3f} held out)"
            for j in top))
    first = np.nanmean(per[names[0]], axis=0)
    x, y = np.argsort(-np.nan_to_num(first))[:2]
    names_c = [str(c) for c in z["cands"]]
    a, b = names_c.index(names[0]), names_c.index(names[1])
    inner, outer = z["inner"], z["outer"]
    em = np.array([_em(inner[s], max(1, int(np.floor(0.2 * inner.shape[-1] + 0.5)))) for s in range(len(outer))])
    d_in, d_out = em[:, b] - em[:, a], outer[:, b] - outer[:, a]
    print(f"{names[1]} minus {names[0]}: inner score {d_in.mean():+.3f}, outer error {d_out.mean():+.3f} on average; "
          f"per-set correlation of the two {np.corrcoef(d_in, d_out)[0, 1]:+.2f}")
    print(f"mean raw score of {sm.policies[x]} {sm.raw[:, x].mean():.1f} and {sm.policies[y]} {sm.raw[:, y].mean():.1f}; "
          f"scores range over [{sm.raw.min():g}, {sm.raw.max():g}], policy means from "
          f"{sm.raw.mean(axis=0).min():.1f} to {sm.raw.mean(axis=0).max():.1f}")
    for label, j, k in ((sm.policies[x], x, y), (sm.policies[y], y, x)):
        out_h = [s for s, h in enumerate(holdouts) if j in h and k not in h]
        out_t = [s for s, h in enumerate(holdouts) if j not in h and k not in h]
        inner_k = []
        for sets in (out_h, out_t):
            vals = []
            for s in sets:
                tun = np.setdiff1d(np.arange(n_pol), holdouts[s])
                vals.append(z["inner"][s].mean(axis=0)[names_c.index(names[0]), int(np.flatnonzero(tun == k)[0])])
            inner_k.append(np.mean(vals))
        print(f"{label} held out ({len(out_h)} sets): outer {names[0]} "
              f"{z['outer'][out_h, names_c.index(names[0])].mean():.3f}, {names[1]} "
              f"{z['outer'][out_h, names_c.index(names[1])].mean():.3f}; inner {names[0]} error on "
              f"{sm.policies[k]} {inner_k[0]:.3f}  |  {label} tuning, {sm.policies[k]} tuning ({len(out_t)} sets): "
              f"outer {names[0]} {z['outer'][out_t, names_c.index(names[0])].mean():.3f}, {names[1]} "
              f"{z['outer'][out_t, names_c.index(names[1])].mean():.3f}; inner {names[0]} error on "
              f"{sm.policies[k]} {inner_k[1]:.3f}")


if __name__ == "__main__":
    np.seterr(all="ignore")
    if sys.argv[1] == "collect":
        # optional: targets (all|inner), then folds=K repeats=R (folds=0: leave one out)
        opts = dict(a.split("=") for a in sys.argv[6:] if "=" in a)
        tg = [a for a in sys.argv[6:] if "=" not in a]
        collect(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], targets=(tg or ["all"])[0],
                folds=int(opts.get("folds", 5)), repeats=int(opts.get("repeats", 2)), split=opts.get("split", "random"),
                extrap=float(opts.get("extrap", 1.0)))
    elif sys.argv[1] == "extend":
        z = dict(np.load(sys.argv[2]))
        collect(str(z["domain"]), int(z["m"]), len(z["outer"]), sys.argv[3], names=BAGGED, base=z)
    elif sys.argv[1] == "fresh":  # fresh DOMAIN M FIRST SETS OUT: today's pool and bag on sets FIRST..SETS-1
        collect(sys.argv[2], int(sys.argv[3]), int(sys.argv[5]), sys.argv[6], first=int(sys.argv[4]),
                names=(*TODAY, "minimax-ttd", "minimax-tnp", BAGGED[0]))
    elif sys.argv[1] == "who":  # who CACHE.npz: the policies that decide the cell (session 6)
        who(sys.argv[2])
    else:
        score(sys.argv[2:])
