"""Issue 21: which *selection rule* makes the default design hold for new policies?

For every outer holdout set of spec 05 §11's protocol (the same sets as `evaluate_test_designs(seed=0)`), this
caches (1) each candidate design's outer max holdout error and (2) its per-policy inner cross-validated errors
(`repeats` × 5-fold over the tuning policies only, the fold of size ≈ round(0.2·p) mimicking the outer holdout).
Any rule that uses only (2) can then be scored offline on (1); no rule ever sees the outer holdout.

    .venv/bin/python benchmarks/bench_rposst_select_rules.py collect rrps 1 20 /tmp/d21/rrps1.npz [all|inner]
    .venv/bin/python benchmarks/bench_rposst_select_rules.py score /tmp/d21/*.npz
    # add candidates to a cache (same outer sets and inner folds; only the new candidates are fitted)
    .venv/bin/python benchmarks/bench_rposst_select_rules.py extend /tmp/d21/rrps1.npz /tmp/d21/bag_rrps1.npz
    # confirm on sets a rule was not chosen on (here 20..34): today's pool, minimax TTD/TNP and rposst:bag=10
    .venv/bin/python benchmarks/bench_rposst_select_rules.py fresh rrps 3 20 35 /tmp/d21/fresh_rrps3.npz
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
        root = next(p for p in (Path(__file__).resolve().parents[2] / "shared", Path("/work/shared")) if p.is_dir())
        return read_test_matrix(root / "data" / "games" / "rrps_bots_43x43.csv")
    from certirank.methods.rposst.matrix import as_score_matrix
    from certirank.sim.racing_arrows import racing_arrows_matrix
    return as_score_matrix(racing_arrows_matrix(50, domain, seed=0))


# bagged RPOSST (session 6): B = 10 resamples keeps one m = 3 outer set near a minute
BAGGED = ("rposst:bag=10", "rposst:bag=10;refit=1", "rposst:bagw=10")


def collect(domain: str, m: int, sets: int, out: str, repeats: int = 2, folds: int = 5, targets: str = "all",
            names: tuple[str, ...] = CANDS, base: dict | None = None, first: int = 0) -> None:
    """`targets="all"`: inner folds keep the targets of all tuning policies (as `select.nested_holdout`);
    `"inner"`: each inner fold recomputes them from its own training columns at the outer temperature
    (column sums scaled by p/|kept|), so the inner held-out policies play no part in them, as in the outer
    protocol. `base` (a loaded cache of the same domain, m and sets) is extended by the candidates `names`;
    sets before `first` are skipped (fresh sets for confirming a rule chosen on the earlier ones)."""
    sm = _matrix(domain)
    n_pol = sm.shape[1]
    h = holdout_size(0.2, n_pol)
    rng = np.random.default_rng(0)
    holdouts = [np.sort(rng.choice(n_pol, size=h, replace=False)) for _ in range(sets)]
    tuples = _core.all_tuples(sm.shape[0], m)
    cands = [parse_candidate(c) for c in names]

    def run_with(rounds):
        return lambda prob, mm, lev: (lambda o: (np.asarray(o["cases"]), np.asarray(o["weights"], float)))(
            design(prob, mm, lev, "rm+", rounds, tuples=tuples))

    OUT, INNER, FOLD = [], [], []
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
        OUT.append([_core.pair_errors(Ah, T, *fit_candidate(c, P, m, 0.01, tuples, run_with(300), cache)).max()
                    for c in cands])
        p = A.shape[1]
        inner = np.zeros((repeats, len(cands), p))
        fold_id = np.zeros((repeats, p), int)
        frng = np.random.default_rng([s, 7])
        for r in range(repeats):
            for f, o in enumerate(np.array_split(frng.permutation(p), folds)):
                o = np.sort(o)
                keep = np.setdiff1d(np.arange(p), o)
                Ti = T if targets == "all" else _core.softmax_targets(A[:, keep] * (p / keep.size), BETAS, A.shape[0])
                prob = _core.make_problem(A[:, keep], Ti)
                ic: dict = {}
                fold_id[r, o] = f
                for c, cand in enumerate(cands):
                    cs, w = fit_candidate(cand, prob, m, 0.01, tuples, run_with(100), ic)
                    inner[r, c, o] = _core.pair_errors(A[:, o], Ti, cs, w).max(axis=0)
        INNER.append(inner)
        FOLD.append(fold_id)
        print(domain, m, s, f"{time.perf_counter() - t0:.1f}s", np.round(OUT[-1], 3), flush=True)
        outer, inner_all, all_names = np.array(OUT), np.array(INNER), list(names)
        if base is not None:
            if not np.array_equal(base["fold"][:len(FOLD)], np.array(FOLD)):
                raise SystemExit("the base cache was collected on other inner folds")
            outer = np.concatenate([base["outer"][:len(OUT)], outer], axis=1)
            inner_all = np.concatenate([base["inner"][:len(INNER)], inner_all], axis=2)
            all_names = [str(c) for c in base["cands"]] + all_names
        np.savez(out, outer=outer, inner=inner_all, fold=np.array(FOLD), cands=np.array(all_names), domain=domain, m=m)


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
    def rule(inner, fold, names, h, rng):
        idx, mean, boots = _pool_scores(pool, inner, names, h, rng)
        a = pool.index(anchor) if isinstance(anchor, str) else anchor(boots)
        dse = (boots - boots[a]).std(axis=1, ddof=1)
        clear = np.flatnonzero(mean < mean[a] - dse)
        return idx[a] if clear.size == 0 else idx[int(clear[np.argmin(mean[clear])])]
    return rule


def rule_argmin(pool):
    def rule(inner, fold, names, h, rng):
        idx = [names.index(c) for c in pool]
        return idx[int(np.argmin(_em(inner, h)[idx]))]
    return rule


def _fold_max(inner, fold):
    R, C, p = inner.shape
    k = fold.max() + 1
    return np.array([[inner[r, :, fold[r] == f].max(axis=0) for f in range(k)] for r in range(R)]).reshape(-1, C)


def rule_split_mean(pool):
    """mean over the inner splits of the max error on the split (the outer statistic, mimicked)"""
    def rule(inner, fold, names, h, rng):
        idx = [names.index(c) for c in pool]
        return idx[int(np.argmin(_fold_max(inner, fold)[:, idx].mean(axis=0)))]
    return rule


def rule_worst_rank(pool):
    def rule(inner, fold, names, h, rng):
        idx = [names.index(c) for c in pool]
        fm = _fold_max(inner, fold)[:, idx]
        ranks = fm.argsort(axis=1).argsort(axis=1)
        worst = ranks.max(axis=0) + 1e-3 * ranks.mean(axis=0)
        return idx[int(np.argmin(worst))]
    return rule


def rule_mean_rank(pool):
    def rule(inner, fold, names, h, rng):
        idx = [names.index(c) for c in pool]
        fm = _fold_max(inner, fold)[:, idx]
        return idx[int(np.argmin(fm.argsort(axis=1).argsort(axis=1).mean(axis=0)))]
    return rule


def rule_simplest_within(order):
    """Breiman's one-s.e. rule: the simplest candidate (first in `order`) whose score is within one bootstrap
    s.e. of the paired difference to the lowest-scoring one"""
    def rule(inner, fold, names, h, rng):
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
    def rule(inner, fold, names, h, rng):
        idx = [names.index(c) for c in pool]
        fm = _fold_max(inner, fold)[:, idx]
        return idx[int(np.argmin((fm - fm.min(axis=1, keepdims=True)).max(axis=0)))]
    return rule


def rule_fixed(name):
    return lambda inner, fold, names, h, rng: names.index(name)


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
TODAY = ["miniaverage", "rposst", "minimax-uniform"]
# session 6: bagged RPOSST as a fixed design, in place of RPOSST, beside it, and as the anchor
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
        for rname, rule in rules.items():
            try:
                ch = [rule(inner[s], fold[s], names, h, np.random.default_rng(s)) for s in range(n)]
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


if __name__ == "__main__":
    np.seterr(all="ignore")
    if sys.argv[1] == "collect":
        collect(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], targets=(sys.argv[6:] or ["all"])[0])
    elif sys.argv[1] == "extend":
        z = dict(np.load(sys.argv[2]))
        collect(str(z["domain"]), int(z["m"]), len(z["outer"]), sys.argv[3], names=BAGGED, base=z)
    elif sys.argv[1] == "fresh":  # fresh DOMAIN M FIRST SETS OUT: today's pool and bag on sets FIRST..SETS-1
        collect(sys.argv[2], int(sys.argv[3]), int(sys.argv[5]), sys.argv[6], first=int(sys.argv[4]),
                names=(*TODAY, "minimax-ttd", "minimax-tnp", BAGGED[0]))
    else:
        score(sys.argv[2:])
