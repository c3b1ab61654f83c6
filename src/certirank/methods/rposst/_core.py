"""Numerical core of RPOSST (spec 05): the problem, RM+ over all tuples, exact LP/MILP, k-of-N, baselines.

Everything here works on a rescaled matrix ``A`` (n_T × p) and plain arrays; naming, validation and
result objects live in :mod:`.compose` and :mod:`.protocol`.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from math import comb

import numpy as np
from scipy import optimize

from ...errors import ParameterError
from ._measures import kofn_weights

# ties between tuples / rounds / cases within this tolerance go to the first one (spec 05 §6, §10)
TIE_TOL = 1e-12
# above this many tuples × pairs × m, tuples are processed in chunks to stay cache-friendly
_CHUNK_ELEMENTS = 1 << 19
# up to this many top-loss pairs, the CVaR antagonist is found by repeated argmax instead of a full sort
_MAX_ARGMAX_PAIRS = 16


def softmax_targets(A: np.ndarray, betas: np.ndarray, n_cases: int | None = None) -> np.ndarray:
    """Targets σ_β = softmax(−(β/n_T) A·1) over test cases, one row per β (spec 05 §11.4).

    A·1 sums over the tuning columns of `A`; the divisor is n_T, as printed in the paper.
    """
    n_cases = A.shape[0] if n_cases is None else n_cases
    totals = A.sum(axis=1)
    logits = -np.outer(np.asarray(betas, dtype=float), totals) / n_cases
    logits -= logits.max(axis=1, keepdims=True)
    w = np.exp(logits)
    return w / w.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class Problem:
    """A (n_T × p), targets (K × n_T) and the support of Ψ: pair q = (policy j_q, target k_q) with ψ_q."""

    A: np.ndarray
    targets: np.ndarray
    pair_policy: np.ndarray
    pair_target: np.ndarray
    psi: np.ndarray
    b: np.ndarray          # true scores of the pairs, σ_{k_q}ᵀ A[:, j_q]
    AP: np.ndarray         # A[:, j_q] for every pair, shape (n_T, d)
    true_scores: np.ndarray  # (K, p) = targets @ A

    @property
    def n_cases(self) -> int:
        return self.A.shape[0]

    @property
    def d(self) -> int:
        return self.psi.size


def make_problem(A: np.ndarray, targets: np.ndarray, psi: np.ndarray | None = None) -> Problem:
    """Build Ψ over every (tuning policy, target) pair, policy-major: q = j·K + k (uniform unless `psi`).

    `psi`, if given, has shape (p, K) or (p·K,) and is normalised to sum to 1.
    """
    A = np.asarray(A, dtype=float)
    targets = np.atleast_2d(np.asarray(targets, dtype=float))
    p, K = A.shape[1], targets.shape[0]
    pair_policy = np.repeat(np.arange(p), K)
    pair_target = np.tile(np.arange(K), p)
    true_scores = targets @ A
    if psi is None:
        psi_v = np.full(p * K, 1.0 / (p * K))
    else:
        psi_v = np.asarray(psi, dtype=float).reshape(-1)
        if psi_v.size != p * K or np.any(~np.isfinite(psi_v)) or np.any(psi_v < 0) or psi_v.sum() <= 0:
            raise ParameterError(f"psi must hold {p}×{K} non-negative weights over (policy, target) pairs")
        psi_v = psi_v / psi_v.sum()
    b = true_scores[pair_target, pair_policy]
    AP = np.ascontiguousarray(A[:, pair_policy])
    return Problem(A, targets, pair_policy, pair_target, psi_v, b, AP, true_scores)


def all_tuples(n: int, m: int) -> np.ndarray:
    """All C(n, m) index tuples, each sorted ascending, in lexicographic order (shape (C, m))."""
    count = comb(n, m)
    out = np.fromiter((i for t in combinations(range(n), m) for i in t), dtype=np.intp, count=count * m)
    return out.reshape(count, m)


def first_min(values: np.ndarray) -> int:
    """Index of the first value within TIE_TOL of the minimum."""
    return int(np.flatnonzero(values <= values.min() + TIE_TOL)[0])


# --------------------------------------------------------------------------------------------------
# CVaR antagonist, batched over tuples

def _top_count(psi: np.ndarray, eta: float) -> int:
    """How many top-loss pairs can carry CVaR mass: the fewest pairs whose *smallest* ψ reach η."""
    positive = np.sort(psi[psi > 0])
    if eta == 0.0:
        return 1
    reach = np.searchsorted(np.cumsum(positive), eta * (1 - 1e-12)) + 1
    return int(min(reach, positive.size))


class _Antagonist:
    """Computes CVaR_η per row of a (tuples × pairs) loss array and the weights of its subgradient."""

    def __init__(self, psi: np.ndarray, eta: float):
        self.psi, self.eta = psi, eta
        self.masked = np.flatnonzero(psi == 0)
        self.k = _top_count(psi, eta)
        self.everything = eta > 0 and psi.sum() - eta <= 1e-12  # η = 1: the plain Ψ-average
        self.sparse = not self.everything and self.k <= _MAX_ARGMAX_PAIRS
        # uniform Ψ (the paper's setting): the η-quantile of the loss is found by partition, no sorting
        self.uniform = not self.masked.size and bool(np.all(psi == psi[0]))

    def __call__(self, loss: np.ndarray, inplace: bool = False) -> tuple[float | np.ndarray, np.ndarray,
                                                                         np.ndarray | None]:
        """Return (L per row, coef, idx): coef are α/η (or 1 for η = 0) on pairs idx (None = all pairs).

        With `inplace`, `loss` may be overwritten (saves a copy per RM+ round).
        """
        if self.everything:
            coef = np.broadcast_to(self.psi / self.eta, loss.shape)
            return loss @ (self.psi / self.eta), coef, None
        work = loss
        if self.masked.size:
            work = loss.copy()
            work[:, self.masked] = -np.inf
        rows = np.arange(loss.shape[0])
        if self.eta == 0.0:
            idx = np.argmax(work, axis=1)[:, None]
            return loss[rows, idx[:, 0]], np.ones((loss.shape[0], 1)), idx
        if self.sparse:
            if work is loss and not inplace:
                work = loss.copy()
            idx = np.empty((loss.shape[0], self.k), dtype=np.intp)
            coef = np.empty((loss.shape[0], self.k))
            vals = np.empty((loss.shape[0], self.k))
            before = np.zeros(loss.shape[0])
            for r in range(self.k):
                j = np.argmax(work, axis=1)  # the lowest index among equal losses, as in spec 05 §4.3
                p = self.psi[j]
                coef[:, r] = np.minimum(p, np.maximum(0.0, self.eta - before)) / self.eta
                before += p
                idx[:, r] = j
                vals[:, r] = work[rows, j]
                if r + 1 < self.k:
                    work[rows, j] = -np.inf
            return np.einsum("ck,ck->c", coef, vals), coef, idx
        if self.uniform:
            # VaR ζ = the k-th largest loss; pairs above it carry ψ/η, ties at ζ share the remaining mass
            # equally (a convex combination of the tie orders' subgradients; the value is exact).
            psi0 = self.psi[0]
            kth = loss.shape[1] - self.k
            zeta = np.partition(loss, kth, axis=1)[:, kth:kth + 1]
            above = loss > zeta
            tied = loss == zeta
            rest = self.eta - above.sum(axis=1, keepdims=True) * psi0
            coef = (above * psi0 + tied * (rest / tied.sum(axis=1, keepdims=True))) / self.eta
            return np.einsum("cd,cd->c", coef, loss), coef, None
        if 2 * self.k < loss.shape[1]:
            # only the top k pairs can carry mass: select them in O(d), then order just those (ties by index).
            # Among pairs tied exactly at the selection boundary any choice gives the same value and a valid
            # subgradient.
            top = np.argpartition(-work, self.k - 1, axis=1)[:, :self.k]
            top.sort(axis=1)
            order = np.take_along_axis(top, np.argsort(-np.take_along_axis(work, top, axis=1), axis=1,
                                                       kind="stable"), axis=1)
        else:
            order = np.argsort(-work, axis=1, kind="stable")
        p_sorted = self.psi[order]
        before = np.cumsum(p_sorted, axis=1) - p_sorted
        coef = np.minimum(p_sorted, np.maximum(0.0, self.eta - before)) / self.eta
        L = np.einsum("cd,cd->c", coef, np.take_along_axis(loss, order, axis=1))
        return L, coef, order


# --------------------------------------------------------------------------------------------------
# Deterministic CVaR(η) RPOSST_seq with regret matching+ (spec 05 §5–6)

def _combine(w: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Signed errors Σ_k w[:, k] a[k] − b; an explicit loop over the m ≤ 5 slots beats einsum here by ~4×."""
    e = w[:, 0, None] * a[0]
    for k in range(1, a.shape[0]):
        e += w[:, k, None] * a[k]
    e -= b
    return e


@dataclass(frozen=True)
class TupleSolution:
    """Per-tuple best: loss (C,), weights (C, m), round (C,) (−1 for exact solvers)."""

    loss: np.ndarray
    weights: np.ndarray
    rounds: np.ndarray


def rm_plus_all(problem: Problem, tuples: np.ndarray, eta: float, rounds: int,
                trace: bool = False) -> TupleSolution | tuple[TupleSolution, list]:
    """Run RM+ on every tuple for `rounds` updates, keeping each tuple's best (loss, weights, round).

    Round t = 0 evaluates uniform weights. A tuple's best only changes on an improvement larger than
    TIE_TOL, so ties keep the earliest round. With `trace` (one tuple only), also return per-round
    (w, L, q) for checking against spec 05's R2 trace.
    """
    C, m = tuples.shape
    d = problem.d
    antagonist = _Antagonist(problem.psi, eta)
    chunk = max(1, _CHUNK_ELEMENTS // max(1, d * m))
    best_L = np.empty(C)
    best_w = np.empty((C, m))
    best_t = np.empty(C, dtype=np.intp)
    log: list = []
    for start in range(0, C, chunk):
        sl = slice(start, min(C, start + chunk))
        a = problem.AP[tuples[sl].T]  # (m, c, d): a[k, c, q] = A[τ_k, j_q]
        c = a.shape[1]
        rows = np.arange(c)[:, None]
        Q = np.zeros((c, m))
        w = np.full((c, m), 1.0 / m)
        bl = np.full(c, np.inf)
        bw = w.copy()
        bt = np.zeros(c, dtype=np.intp)
        for t in range(rounds + 1):
            e = _combine(w, a, problem.b)
            L, coef, idx = antagonist(np.abs(e), inplace=True)
            better = L < bl - TIE_TOL
            if better.any():
                bl[better] = L[better]
                bw[better] = w[better]
                bt[better] = t
            if t == rounds:
                if trace:
                    log.append((w[0].copy(), float(L[0]), None))
                break
            if idx is None:
                s = coef * np.sign(e)
                g = np.einsum("cd,kcd->ck", s, a)
            else:
                s = coef * np.sign(np.take_along_axis(e, idx, axis=1))
                g = np.einsum("cr,kcr->ck", s, a[:, rows, idx])
            rho = -g + np.einsum("ck,ck->c", g, w)[:, None]
            Q = np.maximum(Q + rho, 0.0)
            total = Q.sum(axis=1, keepdims=True)
            positive = total[:, 0] > 0
            if trace:
                log.append((w[0].copy(), float(L[0]), Q[0].copy()))
            w = np.full((c, m), 1.0 / m)
            w[positive] = Q[positive] / total[positive]
        best_L[sl], best_w[sl], best_t[sl] = bl, bw, bt
    sol = TupleSolution(best_L, best_w, best_t)
    return (sol, log) if trace else sol


def box_lower_bound(problem: Problem, tuples: np.ndarray, eta: float) -> np.ndarray:
    """A lower bound on every tuple's CVaR_η over *all* weights: any wᵀa_q lies in [min a_q, max a_q], so the
    loss of pair q is at least its distance to b_q outside that box, and CVaR is monotone in the losses."""
    antagonist = _Antagonist(problem.psi, eta)
    chunk = max(1, _CHUNK_ELEMENTS // max(1, problem.d * tuples.shape[1]))
    out = np.empty(tuples.shape[0])
    for start in range(0, tuples.shape[0], chunk):
        a = problem.AP[tuples[start:start + chunk].T]
        gap = np.maximum(a.min(axis=0) - problem.b, problem.b - a.max(axis=0))
        out[start:start + chunk] = antagonist(np.maximum(gap, 0.0), inplace=True)[0]
    return out


def rm_plus_best(problem: Problem, tuples: np.ndarray, eta: float, rounds: int,
                 warm: int = 64) -> tuple[int, float, np.ndarray, int]:
    """The tuple `rm_plus_all` would pick (first within TIE_TOL of the minimum), without running RM+ on tuples
    that provably cannot win: (index, loss, weights, round).

    RM+ runs first on the `warm` tuples with the smallest box lower bound; every tuple whose bound exceeds
    that incumbent by more than TIE_TOL has an RM+ loss above the final minimum + TIE_TOL, so skipping it
    changes neither the winner nor its tie order (the result equals the exhaustive run exactly).
    """
    C = tuples.shape[0]
    if C <= 4 * warm:
        sol = rm_plus_all(problem, tuples, eta, rounds)
        i = first_min(sol.loss)
        return i, float(sol.loss[i]), sol.weights[i], int(sol.rounds[i])
    bound = box_lower_bound(problem, tuples, eta)
    first = np.sort(np.argsort(bound, kind="stable")[:warm])
    incumbent = float(rm_plus_all(problem, tuples[first], eta, rounds).loss.min())
    # 1e-9 absorbs rounding between the bound and the RM+ loss computations
    alive = np.flatnonzero(bound <= incumbent + TIE_TOL + 1e-9)
    sol = rm_plus_all(problem, tuples[alive], eta, rounds)
    j = first_min(sol.loss)
    return int(alive[j]), float(sol.loss[j]), sol.weights[j], int(sol.rounds[j])


# --------------------------------------------------------------------------------------------------
# Exact solvers (spec 05 §8; HiGHS via SciPy)

def _cvar_lp_matrices(a: np.ndarray, b: np.ndarray, psi: np.ndarray, eta: float):
    """linprog data for one tuple; a has shape (m, d) restricted to pairs with ψ > 0."""
    m, d = a.shape
    if eta == 0.0:  # Chebyshev LP over x = (w, z)
        c = np.r_[np.zeros(m), 1.0]
        A_ub = np.block([[a.T, -np.ones((d, 1))], [-a.T, -np.ones((d, 1))]])
        bounds = [(0, None)] * m + [(None, None)]
        A_eq = np.r_[np.ones(m), 0.0][None, :]
    else:  # Rockafellar–Uryasev over x = (w, ζ, u)
        c = np.r_[np.zeros(m), 1.0, psi / eta]
        eye = np.eye(d)
        A_ub = np.block([[a.T, -np.ones((d, 1)), -eye], [-a.T, -np.ones((d, 1)), -eye]])
        bounds = [(0, None)] * m + [(None, None)] + [(0, None)] * d
        A_eq = np.r_[np.ones(m), 0.0, np.zeros(d)][None, :]
    b_ub = np.r_[b, -b]
    return c, A_ub, b_ub, A_eq, np.array([1.0]), bounds


def _clean_weights(w: np.ndarray) -> np.ndarray:
    w = np.clip(w, 0.0, None)
    return w / w.sum()


def lp_all(problem: Problem, tuples: np.ndarray, eta: float) -> tuple[TupleSolution, np.ndarray]:
    """Exact per-tuple CVaR LP (or Chebyshev LP for η = 0); returns solutions and the LP objectives."""
    keep = problem.psi > 0
    psi, b = problem.psi[keep], problem.b[keep]
    AP = problem.AP[:, keep]
    C, m = tuples.shape
    weights = np.empty((C, m))
    objective = np.empty(C)
    for i, tup in enumerate(tuples):
        c, A_ub, b_ub, A_eq, b_eq, bounds = _cvar_lp_matrices(AP[tup], b, psi, eta)
        res = optimize.linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds, method="highs")
        if res.status != 0:  # pragma: no cover - the LP is always feasible and bounded
            raise RuntimeError(f"HiGHS failed on tuple {tup}: {res.message}")
        weights[i] = _clean_weights(res.x[:m])
        objective[i] = res.fun
    losses = evaluate_weights(problem, tuples, weights, eta)
    return TupleSolution(losses, weights, np.full(C, -1, dtype=np.intp)), objective


def milp_joint(problem: Problem, m: int, eta: float, time_limit: float | None = None) -> tuple[np.ndarray, np.ndarray, float]:
    """Joint selection MILP over all cases (spec 05 §8.3): returns (cases, weights, objective).

    Σ z = m with w_k ≤ z_k; a selected case may get zero weight (a smaller test in disguise).
    """
    keep = problem.psi > 0
    psi, b = problem.psi[keep], problem.b[keep]
    a = problem.AP[:, keep]  # (n, d)
    n, d = a.shape
    # x = (w (n), z (n), ζ, u (d)) or, for η = 0, (w, z, zmax)
    if eta == 0.0:
        c = np.r_[np.zeros(2 * n), 1.0]
        tail = -np.ones((d, 1))
        A_fit = np.block([[a.T, np.zeros((d, n)), tail], [-a.T, np.zeros((d, n)), tail]])
        lb_extra, ub_extra = [-np.inf], [np.inf]
    else:
        c = np.r_[np.zeros(2 * n), 1.0, psi / eta]
        tail = np.hstack([-np.ones((d, 1)), -np.eye(d)])
        A_fit = np.block([[a.T, np.zeros((d, n)), tail], [-a.T, np.zeros((d, n)), tail]])
        lb_extra, ub_extra = [-np.inf] + [0.0] * d, [np.inf] * (d + 1)
    nx = c.size
    link = np.zeros((n, nx))
    link[np.arange(n), np.arange(n)] = 1.0
    link[np.arange(n), n + np.arange(n)] = -1.0
    sum_w = np.zeros(nx)
    sum_w[:n] = 1.0
    sum_z = np.zeros(nx)
    sum_z[n:2 * n] = 1.0
    constraints = [
        optimize.LinearConstraint(A_fit, -np.inf, np.r_[b, -b]),
        optimize.LinearConstraint(link, -np.inf, 0.0),
        optimize.LinearConstraint(sum_w[None, :], 1.0, 1.0),
        optimize.LinearConstraint(sum_z[None, :], m, m),
    ]
    integrality = np.r_[np.zeros(n), np.ones(n), np.zeros(nx - 2 * n)]
    bounds = optimize.Bounds(np.r_[np.zeros(2 * n), lb_extra], np.r_[np.ones(2 * n), ub_extra])
    options = {} if time_limit is None else {"time_limit": float(time_limit)}
    res = optimize.milp(c, constraints=constraints, integrality=integrality, bounds=bounds, options=options)
    if res.x is None:  # pragma: no cover
        raise RuntimeError(f"HiGHS MILP failed: {res.message}")
    z = res.x[n:2 * n]
    cases = np.sort(np.argsort(-z, kind="stable")[:m])
    w = _clean_weights(res.x[cases] + 0.0)
    return cases, w, float(res.fun)


# --------------------------------------------------------------------------------------------------
# Loss of given designs

def evaluate_weights(problem: Problem, tuples: np.ndarray, weights: np.ndarray, eta: float) -> np.ndarray:
    """CVaR_η training loss of each (tuple, weights) row."""
    antagonist = _Antagonist(problem.psi, eta)
    a = problem.AP[tuples.T]
    loss = np.abs(np.einsum("ck,kcd->cd", weights, a) - problem.b)
    return np.asarray(antagonist(loss)[0], dtype=float)


def pair_errors(A: np.ndarray, targets: np.ndarray, cases: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """|wᵀA[τ, j] − σ_kᵀ A[:, j]| for every target k (rows) and column j of A (columns)."""
    estimate = weights @ A[cases]
    return np.abs(estimate[None, :] - targets @ A)


# --------------------------------------------------------------------------------------------------
# k-of-N sampled RPOSST_seq with Successive Rejects (spec 05 §9, paper Algorithm 1)

def _kofn_sample_loss(problem: Problem, a: np.ndarray, w: np.ndarray, pairs: np.ndarray, k: int) -> np.ndarray:
    """Mean of the k largest losses of each row's weights on the sampled pairs `pairs` (N,)."""
    e = np.einsum("ck,kcn->cn", w, a[:, :, pairs]) - problem.b[pairs]
    loss = np.abs(e)
    if k == loss.shape[1]:
        return loss.mean(axis=1)
    top = np.partition(loss, loss.shape[1] - k, axis=1)[:, loss.shape[1] - k:]
    return top.mean(axis=1)


def kofn_sampled(problem: Problem, tuples: np.ndarray, k: int, n_samples: int, rounds: int, budget: int,
                 rng: np.random.Generator) -> tuple[int, np.ndarray, int]:
    """General k-of-N RPOSST_seq: RM+ for a random T' ∈ {1..rounds} on sampled k-of-N gradients, then
    Successive Rejects over tuples with `budget` pulls. Returns (tuple index, weights, T').

    The output weights are the iterate w^{T'} (T' − 1 updates after the uniform start). Within a round
    (and within an SR pull) all tuples share the same N sampled pairs (common random numbers).
    """
    C, m = tuples.shape
    a = problem.AP[tuples.T]  # (m, C, d)
    rows = np.arange(C)
    t_stop = int(rng.integers(1, rounds + 1))
    Q = np.zeros((C, m))
    w = np.full((C, m), 1.0 / m)
    for _ in range(t_stop - 1):
        pairs = rng.choice(problem.d, size=n_samples, p=problem.psi)
        e = np.einsum("ck,kcn->cn", w, a[:, :, pairs]) - problem.b[pairs]
        loss = np.abs(e)
        # the k worst samples per tuple, ties by sample position; then one of them uniformly
        worst = np.argsort(-loss, axis=1, kind="stable")[:, :k]
        pick = worst[rows, rng.integers(0, k, size=C)]
        q = pairs[pick]
        g = np.sign(e[rows, pick])[:, None] * a[:, rows, q].T
        rho = -g + np.einsum("ck,ck->c", g, w)[:, None]
        Q = np.maximum(Q + rho, 0.0)
        total = Q.sum(axis=1, keepdims=True)
        w = np.where(total > 0, Q / np.where(total > 0, total, 1.0), 1.0 / m)
    if C == 1:
        return 0, w[0], t_stop
    # Successive Rejects (Audibert, Bubeck & Munos 2010)
    log_bar = 0.5 + np.sum(1.0 / np.arange(2, C + 1))
    alive = np.arange(C)
    sums = np.zeros(C)
    pulls = np.zeros(C, dtype=np.int64)
    n_prev = 0
    for phase in range(1, C):
        n_k = int(np.ceil((budget - C) / (log_bar * (C + 1 - phase)))) if budget > C else 0
        for _ in range(max(0, n_k - n_prev)):
            pairs = rng.choice(problem.d, size=n_samples, p=problem.psi)
            sums[alive] += _kofn_sample_loss(problem, a[:, alive], w[alive], pairs, k)
            pulls[alive] += 1
        n_prev = max(n_prev, n_k)
        means = sums[alive] / np.maximum(pulls[alive], 1)
        # drop the worst arm; among equal means drop the last tuple so earlier tuples win ties
        worst = np.flatnonzero(means >= means.max() - TIE_TOL)[-1]
        alive = np.delete(alive, worst)
    return int(alive[0]), w[alive[0]], t_stop


def kofn_loss(problem: Problem, cases: np.ndarray, weights: np.ndarray, k: int, n_samples: int) -> float:
    """Exact expected k-of-N training loss of one design (spec 05 §4.2)."""
    loss = np.abs(weights @ problem.AP[cases] - problem.b)
    return float(np.dot(kofn_weights(loss, problem.psi, k, n_samples), loss))


# --------------------------------------------------------------------------------------------------
# Baselines with uniform weights (spec 05 §10)

BASELINES = ("minimax-uniform", "minimax-ttd", "minimax-tnp", "minimax-tnp-mean", "miniaverage",
             "iterative-minimax")


def uniform_baseline(name: str, A: np.ndarray, targets: np.ndarray, tuples: np.ndarray) -> int:
    """Index (into `tuples`) of the tuple a uniform-weight baseline picks."""
    m = tuples.shape[1]
    true = targets @ A  # (K, p)
    if name == "minimax-tnp":
        true = np.full((1, A.shape[0]), 1.0 / A.shape[0]) @ A
    chunk = max(1, _CHUNK_ELEMENTS // max(1, true.size))
    scores = np.empty(tuples.shape[0])
    for start in range(0, tuples.shape[0], chunk):
        tup = tuples[start:start + chunk]
        estimate = A[tup].sum(axis=1) / m  # (c, p)
        err = np.abs(estimate[:, None, :] - true[None, :, :])  # (c, K, p)
        if name in ("minimax-uniform", "minimax-tnp"):
            s = err.max(axis=(1, 2))
        elif name == "minimax-ttd":
            s = err.mean(axis=2).max(axis=1)
        elif name == "minimax-tnp-mean":
            s = err.mean(axis=1).max(axis=1)
        elif name == "miniaverage":
            s = err.mean(axis=(1, 2))
        else:  # pragma: no cover - guarded by the caller
            raise ParameterError(f"unknown baseline {name!r}")
        scores[start:start + chunk] = s
    return first_min(scores)


def iterative_minimax(A: np.ndarray, targets: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Greedy minimax over a multiset of cases; returns (distinct cases ascending, multiplicity / m)."""
    n = A.shape[0]
    true = targets @ A
    counts = np.zeros(n)
    for s in range(1, m + 1):
        estimate = (counts @ A + A) / s  # row c: the multiset plus one more copy of case c
        err = np.abs(estimate[:, None, :] - true[None, :, :]).max(axis=(1, 2))
        counts[first_min(err)] += 1
    cases = np.flatnonzero(counts)
    return cases, counts[cases] / m
