"""Item-scale composition (n in the thousands, m ≈ 10–100), where the C(n, m) tuples cannot be enumerated.

The composer searches supports by greedy forward selection followed by swap local search on a uniform-
weight objective, then (for RPOSST designs) solves the exact per-support CVaR LP of spec 05 §8.1 for the
weights. The objective value it reports is the exact training CVaR of the returned design; it is a local
optimum over single swaps, not a certified global one (the joint MILP's lower bound is 0 here: with
all n cases available, w = σ reproduces every target exactly, so no useful gap can be certified).

Anchors for benchmark prediction from few items (Zhang, Dorner & Hardt 2025; Vivek et al. 2024):
- random sample of m items + linear regression of the full score on the sample mean, fitted on the
  tuning models;
- k-medoids "anchor points" on item–item correlation distance, weighted by cluster size.
"""

from __future__ import annotations

import numpy as np

from . import _core

__all__ = ["search_support", "lp_weights", "random_regression", "anchor_points", "kmedoids"]

# objective of a uniform-weight estimate, from its absolute errors err[..., k, j] (targets × policies)
_OBJECTIVES = ("minimax-uniform", "minimax-ttd", "minimax-tnp", "minimax-tnp-mean", "miniaverage", "cvar")


def _reduce(err: np.ndarray, objective: str, antagonist: _core._Antagonist | None) -> np.ndarray:
    if objective in ("minimax-uniform", "minimax-tnp"):
        return err.max(axis=(-2, -1))
    if objective == "minimax-ttd":
        return err.mean(axis=-1).max(axis=-1)
    if objective == "minimax-tnp-mean":
        return err.mean(axis=-2).max(axis=-1)
    if objective == "miniaverage":
        return err.mean(axis=(-2, -1))
    # CVaR over Ψ's policy-major pairs q = j·K + k
    flat = np.swapaxes(err, -1, -2).reshape(err.shape[:-2] + (-1,))
    return np.asarray(antagonist(flat.reshape(-1, flat.shape[-1]), inplace=True)[0]).reshape(flat.shape[:-1])


def search_support(problem: _core.Problem, m: int, objective: str, eta: float, rng: np.random.Generator,
                   *, max_tries: int | None = None) -> tuple[np.ndarray, float]:
    """Choose m distinct cases with uniform weights minimising `objective`: greedy forward selection, then
    first-improvement swaps (a random chosen case against every unchosen one) until `max_tries`
    (default 20·m) tries or m tries in a row without improvement. Returns (cases ascending, objective).
    """
    A, n = problem.A, problem.A.shape[0]
    true = problem.true_scores if objective != "minimax-tnp" else np.full((1, n), 1.0 / n) @ A
    antagonist = _core._Antagonist(problem.psi, eta) if objective == "cvar" else None
    chosen: list[int] = []
    total = np.zeros(A.shape[1])
    free = np.ones(n, dtype=bool)
    for s in range(1, m + 1):
        cand = np.flatnonzero(free)
        est = (total + A[cand]) / s
        score = _reduce(np.abs(est[:, None, :] - true[None]), objective, antagonist)
        c = int(cand[_core.first_min(score)])
        chosen.append(c)
        free[c] = False
        total += A[c]
    chosen_arr = np.array(chosen)
    current = float(_reduce(np.abs(total / m - true), objective, antagonist))
    max_tries = 20 * m if max_tries is None else max_tries
    stale = 0
    for _ in range(max_tries):
        if stale >= m:
            break
        slot = int(rng.integers(m))
        cand = np.flatnonzero(free)
        est = (total - A[chosen_arr[slot]] + A[cand]) / m
        score = _reduce(np.abs(est[:, None, :] - true[None]), objective, antagonist)
        best = int(np.argmin(score))
        if score[best] < current - 1e-12:
            out, new = chosen_arr[slot], int(cand[best])
            free[out], free[new] = True, False
            total += A[new] - A[out]
            chosen_arr[slot] = new
            current = float(score[best])
            stale = 0
        else:
            stale += 1
    return np.sort(chosen_arr), current


def lp_weights(problem: _core.Problem, cases: np.ndarray, eta: float) -> np.ndarray:
    """Exact CVaR_η-optimal weights on a fixed support (spec 05 §8.1, HiGHS)."""
    sol, _ = _core.lp_all(problem, np.asarray(cases)[None, :], eta)
    return sol.weights[0]


def random_regression(A_tune: np.ndarray, full_tune: np.ndarray, m: int,
                      rng: np.random.Generator) -> tuple[np.ndarray, float, float]:
    """Uniform random sample of m items; OLS of the full score on the sample mean over the tuning models.

    Returns (items, intercept, slope): predict intercept + slope · mean(sample scores).
    """
    items = np.sort(rng.choice(A_tune.shape[0], size=m, replace=False))
    x = A_tune[items].mean(axis=0)
    if np.ptp(x) == 0:  # all tuning models tie on the sample: the regression is the mean full score
        return items, float(full_tune.mean()), 0.0
    slope, intercept = np.polyfit(x, full_tune, 1)
    return items, float(intercept), float(slope)


def kmedoids(D: np.ndarray, k: int, rng: np.random.Generator, iters: int = 50) -> tuple[np.ndarray, np.ndarray]:
    """k-medoids by alternating assignment / medoid update from a k-medoids++ start: (medoids, labels)."""
    n = D.shape[0]
    medoids = [int(rng.integers(n))]
    near = D[medoids[0]].copy()
    for _ in range(1, k):
        p = near ** 2
        p = p / p.sum() if p.sum() > 0 else np.full(n, 1.0 / n)
        nxt = int(rng.choice(n, p=p))
        if nxt in medoids:  # duplicates only when points coincide; take any unused point
            nxt = int(np.setdiff1d(np.arange(n), medoids)[0])
        medoids.append(nxt)
        near = np.minimum(near, D[nxt])
    med = np.array(medoids)
    for _ in range(iters):
        labels = np.argmin(D[:, med], axis=1)
        new = med.copy()
        for c in range(k):
            members = np.flatnonzero(labels == c)
            if members.size:
                new[c] = members[np.argmin(D[np.ix_(members, members)].sum(axis=0))]
        if np.array_equal(np.sort(new), np.sort(med)) and len(set(new)) == k:
            med = new
            break
        if len(set(new)) < k:  # two clusters collapsed onto one medoid: keep the previous medoids
            break
        med = new
    labels = np.argmin(D[:, med], axis=1)
    return med, labels


def anchor_points(A_tune: np.ndarray, m: int, rng: np.random.Generator,
                  sigma: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Anchor points (Vivek et al., EACL 2024): k-medoids on 1 − corr between items' score vectors over the
    tuning models; each anchor is weighted by the target mass (default uniform) of its cluster.

    Items that are constant over the tuning models have no correlation; they are treated as uncorrelated
    with everything (distance 1) except identical constant items (distance 0).
    """
    n = A_tune.shape[0]
    X = A_tune - A_tune.mean(axis=1, keepdims=True)
    norm = np.linalg.norm(X, axis=1)
    live = norm > 0
    corr = np.zeros((n, n))
    Z = X[live] / norm[live, None]
    corr[np.ix_(live, live)] = Z @ Z.T
    const = np.flatnonzero(~live)
    if const.size:
        same = A_tune[const, :1] == A_tune[const, :1].T
        corr[np.ix_(const, const)] = same.astype(float)
    D = np.clip(1.0 - corr, 0.0, 2.0)
    np.fill_diagonal(D, 0.0)
    med, labels = kmedoids(D, m, rng)
    sigma = np.full(n, 1.0 / n) if sigma is None else sigma
    weights = np.bincount(labels, weights=sigma, minlength=m)
    order = np.argsort(med)
    return med[order], weights[order] / weights.sum()
