"""AnyRank efficiency, strict-mode cost, simulation speed and adversarial FWER (spec 03 §10, §12).

Run:  .venv/bin/python benchmarks/studies/anyrank_efficiency_and_fwer.py [--part hef|speed|adversarial|hoi|all] [--runs 200] [--budget]

* ``hef``: HE-F (Bernoulli 0.20, 0.35, 0.45, 0.65, 0.90), alpha 0.05, gamma 0, no prior, binary metric,
  N_max = 1000 (the authors' 1000 test trials) and 2000 (the paper's N_max): mean total sample complexity of
  AnyRank_0 and Bonferroni on the same pre-drawn tables, for ties = assume_none (the authors' setting;
  goal <= 1244 and AnyRank/Bonferroni <= 0.7) and ties = allow, and for the strict guarantee.
* ``--budget``: also run every method with the exact budget test of spec 08 per comparison (``budget="final"``,
  N_max trials per comparison; the default statistic, the fastest-decision boundaries for a Beta(4, 4) prior,
  and ``-mix`` rows with the Beta(4, 4) mixture likelihood ratio of the previous default), with
  ``arms="paired"`` (default, valid for any correlation) and, in ``hef``, ``arms="independent"`` (valid here:
  HE-F draws the policies independently).
* ``speed``: 500 campaigns of HO-I with N_max = 1000 through ``run_campaigns`` (the simulation fast path).
* ``statistic``: the exact test's statistic: exact one-pair expected trials and power (mixture, fastest-decision,
  and the same construction with the true gap as prior), then HE-F with other Beta priors (``--runs``, ``--seed``).
* ``design``: the one-off cost per process of an exact budget test's design (statistic table and p-value
  grid) for the mixture and the fastest-decision statistic, side by side.
* ``hoi``: FWER on HO-I for every variant and tie mode.
* ``adversarial``: near-tie configurations of spec 03 §10 item 5 (alpha 0.1), FWER of every mode.

Seeds: one ``numpy.random.SeedSequence(seed).spawn(runs)`` child per run; every method sees the same tables.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from certirank.methods.anyrank import METHODS, run_campaigns

HEF = np.array([0.20, 0.35, 0.45, 0.65, 0.90])
HOI = np.array([0.20, 0.40, 0.40, 0.60, 0.80])
HOF = np.array([0.10, 0.30, 0.50, 0.70, 0.90])
NEAR_TIE = np.array([0.05, 0.5, 0.515, 0.95])
LADDER = np.array([0.45, 0.47, 0.49, 0.51, 0.53])


def tables(mu: np.ndarray, runs: int, n: int, seed: int) -> np.ndarray:
    ss = np.random.SeedSequence(seed).spawn(runs)
    return np.stack([(np.random.default_rng(s).random((n, mu.size)) < mu).astype(float) for s in ss])


def wrong(res, mu) -> bool:
    idx = {p: i for i, p in enumerate(res.policies)}
    return any(mu[idx[r.better]] <= mu[idx[r.worse]] for r in res.ranking.relations)


def authors_count(r, method: str) -> list[int]:
    """Per-policy trials as the AnyRank authors' scripts count them (spec 03 §12.2 anchors).

    Their graphical procedures record a time only for rejected hypotheses (undecided comparisons add nothing);
    their Bonferroni scripts record N_max for an undecided one, which is what ``samples`` already does.
    """
    src = r.samples if method in ("bonferroni", "weighted-bonferroni") else r.decision_samples()
    return [src[p] for p in r.policies]


def summary(results, mu, method: str) -> dict:
    tot = np.array([r.total_samples for r in results], dtype=float)
    per = np.mean([[r.samples[p] for p in r.policies] for r in results], axis=0)
    auth = np.array([authors_count(r, method) for r in results], dtype=float)
    return {"mean": tot.mean(), "se": tot.std(ddof=1) / math.sqrt(len(tot)), "median": float(np.median(tot)),
            "complete": np.mean([r.complete for r in results]), "fwer": np.mean([wrong(r, mu) for r in results]),
            "per_policy": per, "authors": auth.sum(axis=1).mean(),
            "authors_se": auth.sum(axis=1).std(ddof=1) / math.sqrt(len(tot)), "authors_per_policy": auth.mean(0)}


def variants(budget: bool, methods=("bonferroni", "anyrank0"), arms=("paired", "independent"), ablation=False):
    """(label, method, extra kwargs): the e-process rows, then (with --budget) the exact budget test rows
    (``-nf``: the same with the futility stop switched off, to show what it saves)."""
    out = [(m, m, {"budget": "none"}) for m in methods]
    if budget:
        for a in arms:
            out += [(f"{m}+B{a[0]}", m, {"budget": "final", "arms": a}) for m in methods]
            out += [(f"{m}+B{a[0]}-mix", m, {"budget": "final", "arms": a, "statistic": "mixture"})
                    for m in methods]
            if ablation:
                out += [(f"{m}+B{a[0]}-nf", m, {"budget": "final", "arms": a, "_futility": False})
                        for m in methods]
    return out


def campaigns(arr, **kw):
    """run_campaigns, with the futility stop switched off when ``_futility=False`` (ablation rows)."""
    from certirank.methods.anyrank.engine import _Campaign

    fut = kw.pop("_futility", True)
    old, _Campaign.futility = _Campaign.futility, fut
    try:
        return run_campaigns(arr, **kw)
    finally:
        _Campaign.futility = old


def part_hef(runs: int, seed: int, budget: bool = False, nmaxes=(1000, 2000), ablation: bool = False) -> None:
    print(f"HE-F, alpha 0.05, gamma 0, no prior, binary metric, {runs} runs (seed {seed})")
    print("mean = honest sample complexity (spec 03 §11: every trial used, undecided pairs up to N_max);")
    print("authors = the authors' scripts' counting (graphical: only decided comparisons; Bonferroni: N_max),")
    print("          the convention behind the published 1244 / 1803")
    if budget:
        print("+Bp / +Bi = exact budget test per comparison (spec 08), paired / independent arms calibration")
    print(f"{'nmax':>5} {'ties':>11} {'guarantee':>9} {'method':>14} {'mean':>8} {'se':>6} {'median':>7} "
          f"{'complete':>8} {'fwer':>5} {'vs bonf':>7} {'authors':>8} {'se':>5} {'vs bonf':>7}   per policy "
          "(honest | authors)")
    for nmax in nmaxes:
        arr = tables(HEF, runs, nmax, seed)
        for ties, guarantee in (("assume_none", "paper"), ("allow", "paper"), ("allow", "strict")):
            base = base_a = None
            for label, method, extra in variants(budget, ablation=ablation):
                t0 = time.time()
                res = campaigns(arr, alpha=0.05, method=method, gamma=0.0, ties=ties, guarantee=guarantee,
                                    bins="binary", graph="fully_connected", n_max=nmax, **extra)
                s = summary(res, HEF, method)
                base = s["mean"] if label == "bonferroni" else base
                base_a = s["authors"] if label == "bonferroni" else base_a
                print(f"{nmax:5d} {ties:>11} {guarantee:>9} {label:>14} {s['mean']:8.1f} {s['se']:6.1f} "
                      f"{s['median']:7.0f} {s['complete']:8.3f} {s['fwer']:5.3f} {s['mean'] / base:7.3f} "
                      f"{s['authors']:8.1f} {s['authors_se']:5.1f} {s['authors'] / base_a:7.3f}   "
                      f"{np.round(s['per_policy'], 1).tolist()} | {np.round(s['authors_per_policy'], 1).tolist()}"
                      f"  ({time.time() - t0:.1f} s)")
                if nmax == 1000 and method == "anyrank0" and guarantee == "paper":
                    full_ranking_fraction(res, f"{ties}, {label}")


def full_ranking_fraction(results, ties: str) -> None:
    """Fraction of runs with all 10 pairs decided by iteration t: the authors' output (spec 03 §12.2) is
    0.08 @200, 0.425 @400, 0.58 @500, 0.76 @700, 0.865 @900, first >= 0.9 @946 (assume_none)."""
    last = np.array([max(x.details["iteration"] for x in r.decided() if x.details) if r.complete else np.inf
                     for r in results])
    frac = {t: round(float(np.mean(last <= t)), 3) for t in (200, 400, 500, 700, 900)}
    first = next((t for t in range(1, 1001) if np.mean(last <= t) >= 0.9), None)
    print(f"      full-ranking fraction by iteration ({ties}): {frac}, first >= 0.9 at {first}")


def part_speed(runs: int, seed: int) -> None:
    arr = tables(HOI, runs, 1000, seed)
    for method in ("anyrank", "bonferroni"):
        t0 = time.time()
        res = run_campaigns(arr, alpha=0.05, method=method, prior=list(HOI), bins="binary", trajectory=True,
                            budget="none")
        dt = time.time() - t0
        print(f"HO-I, {runs} campaigns, N_max 1000, {method}: {dt:.1f} s on one core "
              f"({1000 * dt / runs:.1f} ms per campaign), FWER {np.mean([wrong(r, HOI) for r in res]):.3f}")


def part_fwer(name: str, mu: np.ndarray, alpha: float, runs: int, nmax: int, seed: int,
              budget: bool = False) -> None:
    arr = tables(mu, runs, nmax, seed)
    tol = alpha + 3 * math.sqrt(alpha * (1 - alpha) / runs)
    print(f"\n{name}: mu = {mu.tolist()}, alpha {alpha}, N_max {nmax}, {runs} runs "
          f"(binomial tolerance alpha + 3 se = {tol:.3f})")
    print(f"{'method':>24} {'ties':>11} {'guarantee':>9} {'FWER':>6} {'pairs decided':>13}")
    for guarantee in ("paper", "strict"):
        for ties in (("allow", "assume_none") if guarantee == "paper" else ("allow",)):
            for label, method, extra in variants(budget, METHODS, ("paired",)):
                res = campaigns(arr, alpha=alpha, method=method, prior=list(mu), gamma=1.0, ties=ties,
                                    guarantee=guarantee, bins="binary", n_max=nmax, **extra)
                f = np.mean([wrong(r, mu) for r in res])
                dec = np.mean([r.ranking.n_certified for r in res])
                print(f"{label:>24} {ties:>11} {guarantee:>9} {f:6.3f} {dec:13.2f}" + ("  <-- above" if f > tol
                                                                                           else ""))


def part_design(nmaxes=(200, 500, 1000, 2000)) -> None:
    """One-off cost of an exact budget test's design (statistic table + p-value grid), per process: the
    mixture and the fastest-decision statistic side by side, caches cleared before each."""
    from certirank.evidence import _walk, budget, budget_bayes, budget_streams

    print("exact budget test design cost (table + p-value grid, one core, caches cleared)")
    print(f"{'n_max':>6} {'mixture s':>10} {'bayes s':>8} {'ratio':>6}")
    for n in nmaxes:
        row = {}
        for stat in ("mixture", "bayes"):
            for f in (_walk.mixture_table, budget_bayes.bayes_table, budget_streams.pvalue_grid,
                      budget_streams._fixed_design, budget.threshold):
                f.cache_clear()
            t0 = time.process_time()
            budget_streams.BudgetStreams(1, n, concentration=4.0, statistic=stat)
            row[stat] = time.process_time() - t0
        print(f"{n:6d} {row['mixture']:10.2f} {row['bayes']:8.2f} {row['bayes'] / row['mixture']:6.2f}")


def _exact_trials(bnd: np.ndarray, n: int, p_y: float, p_x: float) -> tuple[float, float]:
    """Expected trials to a decision (undecided runs counted at n) and power within n, exactly, for a
    one-sided crossing boundary on the discordant pairs of independent Bernoulli(p_y) vs Bernoulli(p_x)."""
    from scipy import stats

    from certirank.evidence._walk import first_passage

    win, loss = p_y * (1 - p_x), p_x * (1 - p_y)
    r, kk = win + loss, np.arange(n + 1)
    e_min = stats.binom.cdf(kk[:, None] - 1, np.arange(n)[None, :], r).sum(axis=1)  # E[min(T_k, n)]
    f = first_passage(bnd, win / r)
    return float(f @ e_min + (1 - f.sum()) * n), float(f @ stats.binom.sf(kk - 1, n, r))


def _oracle_boundary(n: int, q: float, level: float) -> np.ndarray:
    """The fastest-decision construction with the prior a point mass at the true q (a yardstick no test
    can use): the least boundary of its table at `level` (paired calibration)."""
    from certirank.evidence import _walk, budget_bayes

    k, s_ = np.tril_indices(n + 1)
    log_l = np.full((n + 1, n + 1), np.inf)
    log_l[k, s_] = k * math.log(2) + s_ * math.log(q) + (k - s_) * math.log(1 - q)
    grid = np.arange(0.0, math.log(n + 1.0) + 32.0, budget_bayes.LAMBDA_STEP)
    tab = budget_bayes._monotone(budget_bayes._backward(log_l, _walk.discordance_weights(n, "paired"),
                                                       budget_bayes._trial_costs(n, 0.5), grid))
    tab[np.triu_indices(n + 1, 1)] = np.inf
    vals = np.unique(tab[np.isfinite(tab)])
    lo, hi = 0, vals.size - 1  # least value whose exact level is <= level (G is non-increasing)
    while lo < hi:
        mid = (lo + hi) // 2
        if _walk.level_of_table(float(vals[mid]), tab, "paired") <= level:
            hi = mid
        else:
            lo = mid + 1
    return (~_walk.reaches(tab, float(vals[lo]))).sum(axis=1)


def part_statistic(runs: int, seed: int) -> None:
    """The exact test's statistic: exact one-pair figures (no simulation), then HE-F with other priors."""
    from certirank.evidence.budget import crossing_boundary, threshold

    def bnd(n, level, a, stat):
        return crossing_boundary(threshold(level, n, a, "paired", stat), n, a, stat, "paired")

    print("HE-F's hard pair alone (Bernoulli 0.45 vs 0.35), budget 1000, paired calibration, exact:")
    print("expected trials to a decision (undecided = 1000) and power within the budget")
    for level in (0.05, 0.025):
        cells = [("mixture a=4", bnd(1000, level, 4.0, "mixture")), ("mixture a=8", bnd(1000, level, 8.0, "mixture")),
                 ("bayes a=4", bnd(1000, level, 4.0, "bayes")), ("oracle prior", _oracle_boundary(1000, 0.2925 / 0.485, level))]
        print(f"  level {level}: " + "; ".join(f"{name} {t:.1f} ({p:.3f})" for name, b in cells
                                                for t, p in [_exact_trials(b, 1000, 0.45, 0.35)]))
    print("smaller budgets, one pair at level 0.025 (bayes vs mixture, a = 4): trials (power)")
    for n, (py, px) in ((500, (0.60, 0.45)), (200, (0.7, 0.5)), (50, (0.8, 0.3))):
        tb, pb = _exact_trials(bnd(n, 0.025, 4.0, "bayes"), n, py, px)
        tm, pm = _exact_trials(bnd(n, 0.025, 4.0, "mixture"), n, py, px)
        print(f"  n = {n}, {py} vs {px}: bayes {tb:.1f} ({pb:.3f}), mixture {tm:.1f} ({pm:.3f})")
    arr = tables(HEF, runs, 1000, seed)
    print(f"HE-F, AnyRank_0, budget final, fastest-decision statistic, {runs} runs (seed {seed}): prior Beta(a, a), "
          "paired differences against a = 4")
    for ties in ("allow", "assume_none"):
        base = None
        for a in (4.0, 2.0, 3.0, 6.0):
            res = run_campaigns(arr, alpha=0.05, method="anyrank0", gamma=0.0, ties=ties, bins="binary",
                                graph="fully_connected", n_max=1000, budget="final", statistic="bayes", concentration=a)
            tot = np.array([r.total_samples for r in res], dtype=float)
            base = tot if base is None else base
            d = tot - base
            print(f"  {ties:>11} a = {a:g}: mean {tot.mean():.1f} (se {tot.std(ddof=1) / math.sqrt(runs):.1f}), "
                  f"vs a = 4 {d.mean():+.1f} (se {d.std(ddof=1) / math.sqrt(runs):.1f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", default="all", choices=["hef", "speed", "hoi", "adversarial", "design",
                                                                "statistic", "all"])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--budget", action="store_true", help="also run the exact budget test (spec 08) per comparison")
    ap.add_argument("--nmax", type=int, nargs="+", default=[1000, 2000], help="hef: per-comparison budgets")
    ap.add_argument("--ablation", action="store_true", help="hef --budget: also the rows without the futility stop")
    a = ap.parse_args()
    t0 = time.time()
    if a.part in ("hef", "all"):
        part_hef(a.runs, a.seed, a.budget, tuple(a.nmax), a.ablation)
    if a.part in ("speed", "all"):
        part_speed(500, a.seed)
    if a.part in ("design", "all"):
        part_design()
    if a.part in ("statistic", "all"):
        part_statistic(a.runs, a.seed)
    if a.part in ("hoi", "all"):
        part_fwer("HO-I", HOI, 0.05, a.runs, 1000, a.seed, a.budget)
    if a.part in ("adversarial", "all"):
        part_fwer("near tie", NEAR_TIE, 0.1, a.runs, 1000, a.seed + 1, a.budget)
        part_fwer("ladder", LADDER, 0.1, a.runs, 1000, a.seed + 2, a.budget)
    print(f"\ntotal {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
