"""Bradley–Terry baselines (spec 06 §1, §2, §4): classical BT, Davidson ties, bootstrapped BT.

None of these controls the FWER of the mean-performance ranking (spec 06, preamble; §6 shows BT can
order policies against their means with probability tending to 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validate import as_generator, check_alpha, check_nonnegative, check_positive_int
from .._compat import keyword_only
from ..errors import DataError
from ..order.letters import letters
from ._prefs import Comparisons, as_comparisons
from ._result import BaselineResult, build_result, point_edges

__all__ = ["bt_fit", "bt_fit_batch", "bradley_terry", "davidson", "davidson_fit", "bootstrap_bt"]

_NO_FWER = ("none: a point estimate of Bradley–Terry strengths; every pair is ordered by the estimate, "
            "with no error control, and BT strengths need not order policies by mean score (spec 06 §6)")


# --------------------------------------------------------------------------------------------------
# classical BT
# --------------------------------------------------------------------------------------------------

def _strongly_connected(w: np.ndarray) -> bool:
    adj = w > 0
    p = adj.shape[0]
    reach = adj | np.eye(p, dtype=bool)
    for k in range(p):
        reach |= reach[:, k:k + 1] & reach[k:k + 1, :]
    return bool(reach.all())


def bt_fit_batch(wins: np.ndarray, *, tol: float = 1e-10, max_iter: int = 10_000) -> tuple[np.ndarray, np.ndarray]:
    """Fit Bradley–Terry to a stack of win matrices with Newman's (2023) fixed-point iteration.

    The update p_i <- Σ_j W_ij p_j/(p_i + p_j) / Σ_j W_ji/(p_i + p_j) is applied policy by policy with the
    latest values, then p is rescaled to geometric mean 1.

    Parameters
    ----------
    wins:
        Array ``(..., P, P)``; ``wins[..., i, j]`` = (possibly fractional) number of times i beat j.
    tol, max_iter:
        Stop a fit when ``||p' - p||_2 < tol`` (p rescaled to geometric mean 1) or after ``max_iter``
        iterations.

    Returns
    -------
    theta, iterations:
        Centred log-strengths ``(..., P)`` and the iteration count per fit.
    """
    w = np.asarray(wins, dtype=float)
    shape = w.shape[:-2]
    p_n = w.shape[-1]
    w = w.reshape(-1, p_n, p_n)
    w = w * (1.0 - np.eye(p_n))
    wt = np.swapaxes(w, 1, 2)
    p = np.ones((w.shape[0], p_n))
    its = np.zeros(w.shape[0], dtype=np.int64)
    active = np.arange(w.shape[0])
    for it in range(1, max_iter + 1):
        pa = p[active]
        old = pa.copy()
        wa, wta = w[active], wt[active]
        # Gauss–Seidel sweep (each p_i uses the latest values of the others): the simultaneous (Jacobi)
        # form of Newman's update can oscillate forever, e.g. with two policies.
        for i in range(p_n):
            s = pa[:, i:i + 1] + pa
            num = (wa[:, i, :] * pa / s).sum(axis=1)
            den = (wta[:, i, :] / s).sum(axis=1)
            pa[:, i] = num / den
        pa /= np.exp(np.log(pa).mean(axis=1, keepdims=True))
        step = np.sqrt(((pa - old) ** 2).sum(axis=1))
        p[active] = pa
        its[active] = it
        done = step < tol
        active = active[~done]
        if active.size == 0:
            break
    theta = np.log(p)
    theta -= theta.mean(axis=1, keepdims=True)
    return theta.reshape(*shape, p_n), its.reshape(shape)


def bt_fit(wins: np.ndarray, *, pseudo_count: float = 0.01, tol: float = 1e-10,
           max_iter: int = 10_000) -> tuple[np.ndarray, int]:
    """Classical Bradley–Terry MLE (spec 06 §1) of a single win matrix; returns (centred θ, iterations).

    ``pseudo_count`` is added to every off-diagonal cell (the authors' 0.01) so that the MLE is finite;
    with ``pseudo_count=0`` the comparison graph must be strongly connected.
    """
    w = np.asarray(wins, dtype=float).copy()
    p = w.shape[0]
    w += pseudo_count * (1.0 - np.eye(p))
    if pseudo_count == 0 and not _strongly_connected(w):
        raise DataError("the Bradley–Terry MLE does not exist: some policy never wins or never loses against "
                        "the others (the win graph is not strongly connected); use pseudo_count > 0")
    theta, its = bt_fit_batch(w, tol=tol, max_iter=max_iter)
    return theta, int(its)


@keyword_only(renamed={"ties": "draws"})
def bradley_terry(data: Any, *, pseudo_count: float = 0.01, tol: float = 1e-10, max_iter: int = 10_000,
                  policies: Sequence[str] | None = None, draws: str = "keep", seed: Any = None,
                  alpha: float | None = None, **read: Any) -> BaselineResult:
    """Classical Bradley–Terry ranking ("BT (Classical)", spec 06 §1). Ties are ignored.

    Every pair is ordered by the fitted log-strength (a point ranking; ``alpha`` is only recorded).

    Parameters
    ----------
    data:
        Preference table, score table or path (see :func:`certirank.baselines.as_comparisons`).
    pseudo_count:
        Added to every off-diagonal win count (0.01, as in the authors' code).
    tol, max_iter:
        Fixed-point stopping rule. The authors used ``tol=1e-5, max_iter=500``; certirank's tighter
        default makes the result the MLE to ~1e-9.
    policies, ties, seed:
        Policy order; tie handling and seed when preferences are derived from scores.
    """
    comp = as_comparisons(data, policies=policies, draws=draws, seed=seed, **read)
    pseudo_count = check_nonnegative("pseudo_count", pseudo_count)
    theta, its = bt_fit(comp.win_matrix(), pseudo_count=pseudo_count, tol=tol,
                        max_iter=check_positive_int("max_iter", max_iter))
    return build_result(
        notes=comp.notes,
        method="bt", alpha=None if alpha is None else check_alpha(alpha), policies=comp.policies,
        edges=point_edges(theta), scores=theta, means=comp.means, n=int((comp.y != 1).sum()),
        guarantee=_NO_FWER,
        details={"score": "centred log-strength", "iterations": its, "pseudo_count": pseudo_count,
                 "n_ties_ignored": int((comp.y == 1).sum()), "means_kind": comp.means_kind})


# --------------------------------------------------------------------------------------------------
# Davidson ties model
# --------------------------------------------------------------------------------------------------

def _pair_counts(comp: Comparisons) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per unordered pair (i < j): wins of i, wins of j, ties."""
    p = comp.n_policies
    lo = np.minimum(comp.a, comp.b)
    hi = np.maximum(comp.a, comp.b)
    lo_wins = np.where(comp.a < comp.b, comp.y == 2, comp.y == 0)
    hi_wins = np.where(comp.a < comp.b, comp.y == 0, comp.y == 2)
    key = lo * p + hi
    n_lo = np.bincount(key, weights=lo_wins, minlength=p * p)
    n_hi = np.bincount(key, weights=hi_wins, minlength=p * p)
    n_tie = np.bincount(key, weights=comp.y == 1, minlength=p * p)
    used = np.flatnonzero(n_lo + n_hi + n_tie > 0)
    return used // p, used % p, n_lo[used], n_hi[used], n_tie[used]


def davidson_fit(i: np.ndarray, j: np.ndarray, wi: np.ndarray, wj: np.ndarray, t: np.ndarray, n_policies: int,
                 *, max_iter: int = 200) -> dict[str, Any]:
    """Davidson MLE by damped Newton (spec 06 §2), in the authors' parameterisation.

    Outcome numerators e^{θ_i}, e^{θ_j}, 2ν e^{(θ_i+θ_j)/2}; θ of the last policy fixed at 0 during the
    fit; free parameters x = (θ_0..θ_{P-2}, φ = log ν). Without ties the tie parameter's MLE is ν = 0 (on
    the boundary), so φ is dropped and the model is exactly Bradley–Terry (this project's choice; the
    authors' code would stop at the clip φ = -10).
    """
    p = n_policies
    with_ties = bool(t.sum() > 0)
    d = p - 1 + (1 if with_ties else 0)
    k = i.size
    # feature vectors (K, 3, d) of the three outcomes: i wins, j wins, tie
    v = np.zeros((k, 3, d))
    rows = np.arange(k)
    mi = i < p - 1
    mj = j < p - 1
    v[rows[mi], 0, i[mi]] = 1.0
    v[rows[mj], 1, j[mj]] = 1.0
    v[rows[mi], 2, i[mi]] += 0.5
    v[rows[mj], 2, j[mj]] += 0.5
    if with_ties:
        v[:, 2, d - 1] = 1.0
    const = np.array([0.0, 0.0, np.log(2.0)])
    counts = np.column_stack([wi, wj, t])
    ntot = counts.sum(axis=1)
    obs = np.einsum("ko,kod->d", counts, v)
    if not with_ties:
        counts = counts[:, :2]
        v = v[:, :2, :]
        const = const[:2]

    def evaluate(x: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        eta = v @ x + const
        m = eta.max(axis=1, keepdims=True)
        lz = m[:, 0] + np.log(np.exp(eta - m).sum(axis=1))
        nll = float(-(counts * eta).sum() + (ntot * lz).sum())
        return nll, eta, lz

    def derivatives(eta: np.ndarray, lz: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        prob = np.exp(eta - lz[:, None])
        vbar = np.einsum("ko,kod->kd", prob, v)
        grad = -(obs - (ntot[:, None] * vbar).sum(axis=0))
        second = np.einsum("k,ko,kod,koe->de", ntot, prob, v, v)
        hess = second - np.einsum("k,kd,ke->de", ntot, vbar, vbar)
        return grad, hess

    x = np.zeros(d)
    if with_ties:
        x[-1] = np.log(0.5)
    nll, eta, lz = evaluate(x)
    converged = False
    iterations = 0
    reg = 1e-6 * np.eye(d)
    for iterations in range(1, max_iter + 1):
        grad, hess = derivatives(eta, lz)
        if np.max(np.abs(grad)) < 1e-8:
            converged = True
            break
        step = -np.linalg.solve(hess + reg, grad)
        slope = float(grad @ step)
        s = 1.0
        while True:
            cand = x + s * step
            if with_ties:
                cand[-1] = np.clip(cand[-1], -10.0, 10.0)
            c_nll, c_eta, c_lz = evaluate(cand)
            if c_nll <= nll + 1e-4 * s * slope or s <= 1e-8:
                break
            s *= 0.5
        change = nll - c_nll
        x, nll, eta, lz = cand, c_nll, c_eta, c_lz
        if abs(change) < 1e-8:
            converged = True
            break
    grad, hess = derivatives(eta, lz)
    theta = np.append(x[:p - 1], 0.0)
    centre = np.eye(p) - 1.0 / p
    a_map = np.zeros((p, d))
    a_map[:p - 1, :p - 1] = np.eye(p - 1)
    c_map = centre @ a_map
    free_cov = np.linalg.pinv(hess + reg)
    cov = c_map @ free_cov @ c_map.T
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    nu = float(np.exp(x[-1])) if with_ties else 0.0
    # delta method: se(ν) = ν · se(log ν)
    nu_se = nu * float(np.sqrt(max(free_cov[-1, -1], 0.0))) if with_ties else 0.0
    return {"theta": theta - theta.mean(), "se": se, "nu": nu, "nu_se": nu_se, "nll": nll,
            "iterations": iterations, "converged": converged, "covariance": cov}


@keyword_only(renamed={"ties": "draws"})
def davidson(data: Any, *, max_iter: int = 200, policies: Sequence[str] | None = None, draws: str = "keep",
             seed: Any = None, alpha: float | None = None, **read: Any) -> BaselineResult:
    """Davidson (1970) ties model, "BT-Davidson", the current RoboArena leaderboard (spec 06 §2).

    Every pair is ordered by the fitted log-strength (a point ranking; ``alpha`` is only recorded).
    ``details`` holds standard errors, ``tie_nu_davidson`` (ν_D) and ``tie_nu_roboarena`` (ν = ν_D/2), the
    NLL and the Elo-like display ``200·θ + 1500``.
    """
    comp = as_comparisons(data, policies=policies, draws=draws, seed=seed, **read)
    i, j, wi, wj, t = _pair_counts(comp)
    fit = davidson_fit(i, j, wi, wj, t, comp.n_policies, max_iter=check_positive_int("max_iter", max_iter))
    theta = fit["theta"]
    names = comp.policies
    return build_result(
        notes=comp.notes,
        method="bt-davidson", alpha=None if alpha is None else check_alpha(alpha), policies=names,
        edges=point_edges(theta), scores=theta, means=comp.means, n=comp.n, guarantee=_NO_FWER,
        details={"score": "centred log-strength", "standard_errors": dict(zip(names, fit["se"].tolist())),
                 "tie_nu_davidson": 2.0 * fit["nu"], "tie_nu_roboarena": fit["nu"],
                 "tie_nu_roboarena_se": fit["nu_se"], "nll": fit["nll"],
                 "elo": dict(zip(names, (200.0 * theta + 1500.0).tolist())), "iterations": fit["iterations"],
                 "converged": fit["converged"], "n_ties": int((comp.y == 1).sum()), "means_kind": comp.means_kind})


# --------------------------------------------------------------------------------------------------
# bootstrapped BT
# --------------------------------------------------------------------------------------------------

def _fit_thetas(w: np.ndarray, tol: float, max_iter: int) -> np.ndarray:
    return bt_fit_batch(w, tol=tol, max_iter=max_iter)[0]


@keyword_only(renamed={"ties": "draws"})
def bootstrap_bt(data: Any, *, alpha: float = 0.05, n_boot: int = 5000, seed: Any = 0, pseudo_count: float = 0.01,
                 tol: float = 1e-10, max_iter: int = 10_000, policies: Sequence[str] | None = None,
                 draws: str = "keep", tie_seed: Any = None, chunk: int = 500, backend: str | None = None,
                 jobs: int = 1, scheduler: Any = None, progress: Any = None, **read: Any) -> BaselineResult:
    """Bootstrapped Bradley–Terry ("BTα", AnyRank paper App. F.1; spec 06 §4).

    Resample the N comparisons with replacement ``n_boot`` times (one ``rng.integers(0, N, N)`` call per
    replicate, in order), refit classical BT, take per-policy quantiles at α/(2K) and 1 − α/(2K)
    (K = P(P−1)/2) and declare i ≻ j iff the intervals do not overlap (L_i > U_j). This bounds the
    asymptotic FWER of the BT-parameter order, not of the mean ranking.

    ``backend``, ``jobs``, ``scheduler`` and ``progress`` (see :func:`certirank._parallel.run_tasks`) spread
    the refits over workers, ``chunk`` replicates per task. The resampling stays one stream in this process
    (spec 06 §4 fixes it), and each task is a deterministic fit of its win matrices, so the result is
    identical bit for bit on every backend.
    """
    from .._parallel import resolve_backend, run_tasks

    alpha = check_alpha(alpha)
    n_boot = check_positive_int("n_boot", n_boot)
    chunk = check_positive_int("chunk", chunk)
    resolve_backend(backend, jobs, scheduler)
    pseudo_count = check_nonnegative("pseudo_count", pseudo_count)
    comp = as_comparisons(data, policies=policies, draws=draws, seed=tie_seed, **read)
    p = comp.n_policies
    k_pairs = p * (p - 1) // 2
    rng = as_generator(seed)
    n = comp.n
    theta_hat, _ = bt_fit(comp.win_matrix(), pseudo_count=pseudo_count, tol=tol, max_iter=max_iter)
    awin = comp.y == 2
    bwin = comp.y == 0
    winner = np.where(awin, comp.a, comp.b)
    loser = np.where(awin, comp.b, comp.a)
    decisive = (awin | bwin).astype(float)
    cell = winner * p + loser
    pseudo = pseudo_count * (1.0 - np.eye(p))
    tasks = []
    for start in range(0, n_boot, chunk):
        stop = min(n_boot, start + chunk)
        idx = np.stack([rng.integers(0, n, size=n) for _ in range(stop - start)])
        flat = (np.arange(stop - start)[:, None] * (p * p) + cell[idx]).ravel()
        w = np.bincount(flat, weights=decisive[idx].ravel(), minlength=(stop - start) * p * p)
        tasks.append((w.reshape(stop - start, p, p) + pseudo, tol, max_iter))
    fits = run_tasks(_fit_thetas, tasks, backend=backend, jobs=jobs, scheduler=scheduler, progress=progress,
                     weights=[t[0].shape[0] for t in tasks])
    thetas = np.concatenate(fits, axis=0)
    q = alpha / (2 * k_pairs)
    lower = np.quantile(thetas, q, axis=0)
    upper = np.quantile(thetas, 1 - q, axis=0)
    edges = [(i, j, {"lower_better": float(lower[i]), "upper_worse": float(upper[j])})
             for i in range(p) for j in range(p) if i != j and lower[i] > upper[j]]
    names = comp.policies
    cld = letters(list(names), [(names[i], names[j]) for i, j, _ in edges], means=theta_hat)
    return build_result(
        notes=comp.notes,
        method="bt-bootstrap", alpha=alpha, policies=names, edges=edges, scores=theta_hat, means=comp.means,
        n=n, guarantee=("asymptotic FWER <= alpha for the order of Bradley–Terry parameters (Bonferroni over "
                        "pairs), not for the order of mean scores"),
        details={"score": "centred log-strength (full-data fit)",
                 "intervals": {names[k]: [float(lower[k]), float(upper[k])] for k in range(p)},
                 "letters": cld, "quantile": q, "n_boot": n_boot, "seed": seed if isinstance(seed, (int, type(None))) else None,
                 "means_kind": comp.means_kind})
