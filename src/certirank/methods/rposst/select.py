"""Out-of-sample choice among candidate test designs by nested holdout over the tuning policies.

RPOSST minimises the *training* CVaR over the tuning policies; with few policies and free weights it can
overfit them (its holdout error can be worse than a uniform-weight baseline's). `select="cv"` therefore
treats the design method as a hyper-parameter: each candidate (RPOSST, uniform-weight baselines, and for
`select="cv-rposst"` also RPOSST at another CVaR level or with weights shrunk toward uniform) composes a
test on a random part of the tuning policies and is scored on the rest, exactly as the evaluation protocol
of spec 05 §11 scores designs on held-out policies. The first candidate (the anchor) is kept unless another
one is clearly better; the chosen one is then refitted on all tuning policies. Only the policies given to
`compose_test` are used, so an outer evaluation holdout is never seen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import ParameterError
from . import _core, items

__all__ = ["SELECT_RULES", "SELECTS", "SelectRule", "fresh_generator", "expected_max", "Candidate", "parse_candidate",
           "fit_candidate", "nested_holdout"]


@dataclass(frozen=True)
class SelectRule:
    """A nested-holdout selection rule: its candidate designs (the first is the anchor, kept unless another
    scores lower by more than one s.e. of the paired difference), those used at item scale (solver
    ``search``/``milp``, where the baselines come from local search and TTD/TNP coincide with them for a single
    target), and how many times the 5-fold split is repeated."""

    candidates: tuple[str, ...]
    item_candidates: tuple[str, ...]
    repeats: int = 1


SELECT_RULES = {
    # anchored on the lowest-variance design (uniform weights, average-error objective), as the one-s.e. rule
    # of cross-validation keeps the simplest model; chosen in the issue-21 rule study
    # (docs/performance/rposst-design-choice.md): with RPOSST as the anchor the adverse selection between tuning and
    # held-out policies kept the overfitted design too often
    "cv": SelectRule(("miniaverage", "rposst", "minimax-uniform"), ("miniaverage", "rposst", "minimax-uniform"),
                     repeats=2),
    # the rule of sessions 1-3: RPOSST (the paper's method) as the anchor among seven designs
    "cv-rposst": SelectRule(("rposst", "rposst:shrink=0.5", "rposst:eta=0.1", "minimax-uniform", "minimax-ttd",
                             "minimax-tnp", "miniaverage"),
                            ("rposst", "rposst:shrink=0.5", "minimax-uniform", "miniaverage")),
}
#: every `select` value of compose_test: the nested-holdout rules, or the RPOSST design itself
SELECTS = (*SELECT_RULES, "rposst")
_UNIFORM = ("minimax-uniform", "minimax-ttd", "minimax-tnp", "minimax-tnp-mean", "miniaverage")
CV_METRICS = ("max", "mean")


@dataclass(frozen=True)
class Candidate:
    """One design method: RPOSST at CVaR level `eta` (None = the caller's η) with weights shrunk toward
    uniform by `shrink` ∈ [0, 1], or a uniform-weight baseline of spec 05 §10 (`baseline`).

    Bagged RPOSST (`bag` = B ≥ 2) composes on B bootstrap resamples of the tuning policies (seeded by
    `seed`) and keeps the tuple chosen most often, with the weights averaged over the resamples that chose it
    (`refit`: the exact CVaR weights of that tuple on all policies instead). With few tuning policies a
    single RPOSST fit follows the policies it happened to see (at m = 1 it is worse out of sample than
    miniaverage); voting over resamples keeps only a tuple that is optimal for most of them, aiming at the
    variance the nested holdout cannot select away. `bagw` = B keeps RPOSST's own tuple and only averages its
    weights over B resamples. Measured in docs/performance/rposst-design-choice.md ("Bagged RPOSST"): neither beat
    the default rule out of sample, so they are in no default pool.
    """

    name: str
    baseline: str | None = None
    eta: float | None = None
    shrink: float = 0.0
    bag: int = 0
    bagw: int = 0
    refit: bool = False
    seed: int = 0


# integer keys of a candidate spec with their allowed range; bag/bagw need two resamples to vote or average
_INT_KEYS = {"bag": (2, 1000), "bagw": (2, 1000), "refit": (0, 1), "seed": (0, 2**32 - 1)}


def parse_candidate(spec: Any) -> Candidate:
    """Parse ``rposst``, ``rposst:eta=0.1``, ``rposst:shrink=0.5``, ``rposst:bag=10`` (with ``;refit=1``,
    ``;seed=S``), ``rposst:bagw=10`` (keys joined by ``;`` or ``&``) or a baseline name such as
    ``minimax-uniform``."""
    if isinstance(spec, Candidate):
        return spec
    text = str(spec).strip().lower().replace("_", "-")
    if text in _UNIFORM or text == "iterative-minimax":
        return Candidate(text, baseline=text)
    head, _, tail = text.partition(":")
    if head != "rposst":
        raise ParameterError(f"unknown candidate design {spec!r}; expected rposst, rposst:eta=X, "
                             f"rposst:shrink=X, rposst:bag=B or one of {', '.join(_UNIFORM)}, iterative-minimax")
    fields: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in tail.replace(";", "&").split("&"))):
        key, _, value = part.partition("=")
        try:
            number = float(value)
        except ValueError:
            raise ParameterError(f"candidate {spec!r}: {key!r} needs a number, got {value!r}") from None
        if key == "eta" and 0.0 < number <= 1.0:
            fields["eta"] = number
        elif key == "shrink" and 0.0 <= number <= 1.0:
            fields["shrink"] = number
        elif key in _INT_KEYS and number.is_integer() and _INT_KEYS[key][0] <= number <= _INT_KEYS[key][1]:
            fields[key] = int(number)
        else:
            raise ParameterError(f"candidate {spec!r}: expected eta in (0, 1], shrink in [0, 1], bag or bagw an "
                                 f"integer in [2, 1000], refit 0 or 1, seed an integer >= 0; got {part!r}")
    if fields.get("bag") and fields.get("bagw"):
        raise ParameterError(f"candidate {spec!r}: give bag or bagw, not both")
    return Candidate(text, **fields)


def _bootstraps(problem: _core.Problem, count: int, seed: int):
    """`count` problems on bootstrap resamples of the policies, under the targets of all of them (as the
    nested holdout keeps them)."""
    rng = np.random.default_rng([seed, count])
    p = problem.A.shape[1]
    for _ in range(count):
        yield _core.make_problem(problem.A[:, rng.integers(0, p, size=p)], problem.targets)


def _bagged(cand: Candidate, problem: _core.Problem, m: int, level: float, run: Any, cache: dict | None
            ) -> tuple[np.ndarray, np.ndarray]:
    if cand.bagw:
        cases, _ = _rposst(problem, m, level, run, cache)
        return cases, np.mean([items.lp_weights(b, cases, level) for b in _bootstraps(problem, cand.bagw, cand.seed)],
                              axis=0)
    key = ("bag", level, cand.bag, cand.seed)
    if cache is not None and key in cache:
        votes = cache[key]
    else:
        votes = {}
        for boot in _bootstraps(problem, cand.bag, cand.seed):
            cases, weights = run(boot, m, level)
            loss = float(_core.evaluate_weights(boot, np.asarray(cases)[None, :],
                                                np.asarray(weights, dtype=float)[None, :], level)[0])
            votes.setdefault(tuple(int(i) for i in cases), []).append((loss, np.asarray(weights, dtype=float)))
        if cache is not None:
            cache[key] = votes
    # most votes; ties: the lower summed training loss on the resamples, then the first tuple
    best = min(votes, key=lambda t: (-len(votes[t]), sum(v[0] for v in votes[t]), t))
    cases = np.asarray(best)
    if cand.refit:
        return cases, items.lp_weights(problem, cases, level)
    return cases, np.mean([v[1] for v in votes[best]], axis=0)


def _rposst(problem: _core.Problem, m: int, level: float, run: Any, cache: dict | None
            ) -> tuple[np.ndarray, np.ndarray]:
    key = ("rposst", level)
    if cache is not None and key in cache:
        return cache[key]
    cases, weights = run(problem, m, level)
    if cache is not None:
        cache[key] = (cases, weights)
    return cases, weights


def fit_candidate(cand: Candidate, problem: _core.Problem, m: int, eta: float, tuples: np.ndarray | None,
                  run: Any, cache: dict | None = None, *,
                  baseline_run: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """(cases, weights) of one candidate on `problem`; `run(problem, m, eta)` composes an RPOSST design.

    `cache` (per problem) lets shrunk candidates reuse the RPOSST design they shrink, and bagged ones
    with different weights the same resamples. Without `tuples`
    (item scale), `baseline_run(problem, m, name)` finds a uniform baseline's tuple by local search.
    """
    if cand.baseline == "iterative-minimax":
        return _core.iterative_minimax(problem.A, problem.targets, m)
    if cand.baseline is not None and tuples is None:
        return baseline_run(problem, m, cand.baseline)
    if cand.baseline is not None:
        i = _core.uniform_baseline(cand.baseline, problem.A, problem.targets, tuples)
        return tuples[i], np.full(m, 1.0 / m)
    level = eta if cand.eta is None else cand.eta
    if cand.bag or cand.bagw:
        cases, weights = _bagged(cand, problem, m, level, run, cache)
    else:
        cases, weights = _rposst(problem, m, level, run, cache)
    if cand.shrink:
        weights = (1.0 - cand.shrink) * np.asarray(weights) + cand.shrink / m
    return np.asarray(cases), np.asarray(weights, dtype=float)


def fresh_generator(seq: np.random.SeedSequence) -> np.random.Generator:
    """A generator on a copy of `seq`. The nested holdout spawns child streams from its generator's seed
    sequence; on a sequence shared by several methods that would shift the streams of every method run after
    it, so a method's result would depend on which methods were listed before it."""
    return np.random.default_rng(np.random.SeedSequence(seq.entropy, spawn_key=seq.spawn_key, pool_size=seq.pool_size))


def expected_max(errors: np.ndarray, h: int) -> np.ndarray:
    """E[max of h values drawn without replacement] from each row of `errors` (exact order statistics):
    the i-th largest of p values is the maximum of a random h-subset with probability C(p−i, h−1)/C(p, h)."""
    errors = np.atleast_2d(errors)
    p = errors.shape[-1]
    h = min(max(1, h), p)
    i = np.arange(1, p + 1)
    # log-space binomials keep this exact enough for p in the hundreds
    from scipy.special import gammaln

    def logc(a, b):
        return gammaln(a + 1) - gammaln(b + 1) - gammaln(a - b + 1)

    ok = p - i >= h - 1
    prob = np.where(ok, np.exp(logc(np.maximum(p - i, 0), h - 1) - logc(p, h)), 0.0)
    return np.sort(errors, axis=-1)[..., ::-1] @ prob


def nested_holdout(A: np.ndarray, betas: np.ndarray, m: int, eta: float, candidates: Sequence[Candidate],
                   run: Any, *, folds: int, holdout: float, metric: str, rng: np.random.Generator,
                   tuples: np.ndarray | None, baseline_run: Any = None, repeats: int = 1,
                   boot: int = 200) -> dict[str, Any]:
    """Out-of-sample error of every candidate by grouped cross-validation over the tuning columns of `A`.

    The p tuning policies are split at random into `folds` groups (`repeats` times); each group is held
    out once while the candidate composes on the others (under the targets of all tuning policies), giving every policy an out-of-sample error: its max (or mean) over targets. The score
    of a candidate is the expected maximum of those errors over a random set of h = round(holdout·p)
    policies (metric ``max``, the protocol's headline: the mean max error over holdout sets of size h) or
    their mean (metric ``mean``), computed exactly from the order statistics rather than from a few
    random splits. Its standard error is bootstrapped over policies. The first candidate (the anchor) is
    kept unless some other one scores lower by more than one bootstrap standard error of the paired
    difference; then the lowest-scoring of those wins (ties: the earlier candidate).
    """
    p = A.shape[1]
    # the targets stay those of all tuning policies: recomputing them from fewer columns would flatten them
    # (the logits are β/n_T times a *sum* over columns) and make every inner error optimistic
    targets = _core.softmax_targets(A, betas, A.shape[0])
    if p < 3:
        raise ParameterError(f"nested-holdout selection needs at least 3 tuning policies (got {p}); "
                             "use select='rposst'")
    folds = min(folds, p)
    h = max(1, int(np.floor(holdout * p + 0.5)))
    per_policy = np.zeros((repeats, len(candidates), p))
    for r in range(repeats):
        for out in np.array_split(rng.permutation(p), folds):
            out = np.sort(out)
            keep = np.setdiff1d(np.arange(p), out)
            inner = A[:, keep]
            problem = _core.make_problem(inner, targets)
            cache: dict = {}
            for c, cand in enumerate(candidates):
                cases, weights = fit_candidate(cand, problem, m, eta, tuples, run, cache, baseline_run=baseline_run)
                err = _core.pair_errors(A[:, out], problem.targets, cases, weights)  # (K, |out|)
                per_policy[r, c, out] = err.max(axis=0) if metric == "max" else err.mean(axis=0)
    errors = per_policy.mean(axis=0)  # (candidates, p)

    def score(e: np.ndarray) -> np.ndarray:
        return expected_max(e, h) if metric == "max" else e.mean(axis=-1)

    mean = score(errors)
    draws = rng.integers(0, p, size=(boot, p))
    boots = np.array([score(errors[c][draws]) for c in range(len(candidates))])  # (candidates, boot)
    se = boots.std(axis=1, ddof=1)
    # the anchor (first candidate) is kept unless another beats it by more than one bootstrap standard error
    # of the paired difference: a noisy small win is not worth leaving the reference design
    diff_se = (boots - boots[0]).std(axis=1, ddof=1)
    clear = np.flatnonzero(mean < mean[0] - diff_se)
    chosen = 0 if clear.size == 0 else int(clear[_core.first_min(mean[clear])])
    return {"errors": errors, "mean": mean, "se": se, "diff_se": diff_se, "chosen": chosen, "holdout_size": h}
