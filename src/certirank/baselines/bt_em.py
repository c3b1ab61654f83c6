"""RoboArena BT-EM "hybrid" model: latent task buckets, optional partial progress (spec 06 §3).

Two versions:

* default (spec 06 §3.2): a correctly normalised three-outcome model, EM with a log-space E-step and an
  L-BFGS-B M-step on the penalised expected complete log-likelihood, re-centred with exact invariances;
* ``reproduce_quirks=True`` (spec 06 §3.1): the original server v1.1 procedure, quirks Q1–Q9 included
  (unnormalised likelihood, anti-shrinking ψ ridge, heuristic ν update, one clipped Newton step per
  parameter block per EM iteration).

Both fit one model per seed (0…seeds−1 by default 100) and report the mean and SD of θ over seeds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, logsumexp

from .._validate import check_alpha, check_positive_int
from .._compat import keyword_only
from ..errors import DataError, ParameterError
from ._prefs import Comparisons, as_comparisons
from ._result import BaselineResult, build_result, point_edges

__all__ = ["bt_em", "bt_em_fit"]

SIGMA_P = 0.3
W_P = 1.0
RIDGE = 1e-2


def _progress(comp: Comparisons, progress: Any, use_partials: bool, missing_as_zero: bool
              ) -> tuple[np.ndarray, np.ndarray] | None:
    if not use_partials:
        return None
    if progress is None:
        if comp.progress_a is None:
            raise ParameterError("use_partials=True needs per-trial progress: pass progress=(x_a, x_b) arrays, a "
                                 "wide progress table aligned by row with the preferences, or score data")
        xa, xb = comp.progress_a.astype(float), comp.progress_b.astype(float)
    elif hasattr(progress, "columns"):
        # wide table aligned by row with the comparisons (RoboArena: per_trial_progress_data.csv)
        wide = progress
        if len(wide) != comp.n:
            raise DataError(f"the progress table has {len(wide)} rows but there are {comp.n} comparisons; they "
                            "must be aligned by row")
        cols = {str(c): c for c in wide.columns}
        vals = np.full((comp.n, comp.n_policies), np.nan)
        for k, name in enumerate(comp.policies):
            if name in cols:
                vals[:, k] = np.asarray(wide[cols[name]], dtype=float)
        rows = np.arange(comp.n)
        xa, xb = vals[rows, comp.a], vals[rows, comp.b]
    else:
        xa, xb = (np.asarray(v, dtype=float) for v in progress)
        if xa.shape != (comp.n,) or xb.shape != (comp.n,):
            raise DataError(f"progress arrays must both have length {comp.n} (one value per comparison)")
    finite = np.concatenate([xa[np.isfinite(xa)], xb[np.isfinite(xb)]])
    if finite.size and (finite.min() < 0 or finite.max() > 1):
        raise DataError("progress values must lie in [0, 1] (divide RoboArena's 0–100 progress by 100)")
    if missing_as_zero:
        xa, xb = np.nan_to_num(xa, nan=0.0), np.nan_to_num(xb, nan=0.0)
    return xa, xb


# --------------------------------------------------------------------------------------------------
# corrected model (spec 06 §3.2)
# --------------------------------------------------------------------------------------------------

def _log_expit(u: np.ndarray) -> np.ndarray:
    """log σ(u), stable; several times faster than scipy.special.log_expit on large arrays."""
    return np.minimum(u, 0.0) - np.log1p(np.exp(-np.abs(u)))


class _Model:
    """Vectorised likelihood of the normalised model over trials × buckets."""

    def __init__(self, comp: Comparisons, n_buckets: int, progress: tuple[np.ndarray, np.ndarray] | None,
                 ignore_ties: bool) -> None:
        keep = np.ones(comp.n, dtype=bool) if not ignore_ties else comp.y != 1
        self.a, self.b, self.y = comp.a[keep], comp.b[keep], comp.y[keep]
        self.p, self.t, self.n = comp.n_policies, n_buckets, int(keep.sum())
        self.ties = not ignore_ties
        self.onehot_a = np.zeros((self.n, self.p))
        self.onehot_a[np.arange(self.n), self.a] = 1.0
        self.onehot_b = np.zeros((self.n, self.p))
        self.onehot_b[np.arange(self.n), self.b] = 1.0
        self.win = (self.y == 2)[:, None].astype(float)
        self.loss = (self.y == 0)[:, None].astype(float)
        self.tie = (self.y == 1)[:, None].astype(float)
        if progress is not None:
            xa, xb = progress[0][keep], progress[1][keep]
            self.xa, self.xb = np.nan_to_num(xa)[:, None], np.nan_to_num(xb)[:, None]
            self.ma, self.mb = np.isfinite(xa)[:, None], np.isfinite(xb)[:, None]
        else:
            self.xa = None

    def split(self, z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        p, t = self.p, self.t
        return z[:p], z[p:p + p * t].reshape(p, t), z[p + p * t:p + p * t + t], float(z[-1])

    def loglik(self, theta: np.ndarray, psi: np.ndarray, tau: np.ndarray, lognu: float, grad: bool = False):
        ua = theta[self.a, None] + psi[self.a] - tau[None, :]
        ub = theta[self.b, None] + psi[self.b] - tau[None, :]
        # few transcendental calls per cell: this is the inner loop of every L-BFGS evaluation
        lsa, lsb = _log_expit(ua), _log_expit(ub)
        l1a, l1b = lsa - ua, lsb - ub  # log(1 - s) = log s - u
        sa, sb = np.exp(lsa), np.exp(lsb)
        la = lsa + l1b
        lb = l1a + lsb
        pa_lin = sa * (1.0 - sb)
        pb_lin = (1.0 - sa) * sb
        if self.ties:
            lc = np.log(2.0) + lognu + 0.5 * (la + lb)
            c_lin = 2.0 * np.exp(lognu) * np.sqrt(pa_lin * pb_lin)
            z_lin = pa_lin + pb_lin + c_lin
            lnum = self.win * la + self.loss * lb + self.tie * lc
        else:
            z_lin = pa_lin + pb_lin
            lnum = self.win * la + self.loss * lb
        ll = lnum - np.log(z_lin)
        if self.xa is not None:
            ll = ll - W_P * (self.ma * (self.xa - sa) ** 2 + self.mb * (self.xb - sb) ** 2) / (2 * SIGMA_P ** 2)
        if not grad:
            return ll
        pa, pb = pa_lin / z_lin, pb_lin / z_lin
        pc = c_lin / z_lin if self.ties else 0.0
        # d log numerator / du minus d log Z / du (spec 06 §3.2, item 4)
        dnum_a = self.win - sa + 0.5 * self.tie  # 1 - s, -s, 1/2 - s for win, loss, tie
        dnum_b = self.loss - sb + 0.5 * self.tie
        dz_a = pa * (1 - sa) - pb * sa + pc * (0.5 - sa)
        dz_b = -pa * sb + pb * (1 - sb) + pc * (0.5 - sb)
        ga, gb = dnum_a - dz_a, dnum_b - dz_b
        gnu = (self.tie - pc) if self.ties else None
        if self.xa is not None:
            ga = ga + W_P * self.ma * (self.xa - sa) * sa * (1 - sa) / SIGMA_P ** 2
            gb = gb + W_P * self.mb * (self.xb - sb) * sb * (1 - sb) / SIGMA_P ** 2
        return ll, ga, gb, gnu

    def negq(self, z: np.ndarray, gamma: np.ndarray) -> tuple[float, np.ndarray]:
        theta, psi, tau, lognu = self.split(z)
        ll, ga, gb, gnu = self.loglik(theta, psi, tau, lognu, grad=True)
        q = float((gamma * ll).sum()) - 0.5 * RIDGE * (theta @ theta + (psi * psi).sum())
        wa, wb = gamma * ga, gamma * gb
        g_psi = self.onehot_a.T @ wa + self.onehot_b.T @ wb - RIDGE * psi
        g_theta = (self.onehot_a.T @ wa + self.onehot_b.T @ wb).sum(axis=1) - RIDGE * theta
        g_tau = -(wa + wb).sum(axis=0)
        g_nu = float((gamma * gnu).sum()) if self.ties else 0.0
        g = np.concatenate([g_theta, g_psi.ravel(), g_tau, [g_nu]])
        return -q, -g

    def objective(self, theta, psi, tau, lognu, log_pi) -> tuple[float, np.ndarray]:
        ll = self.loglik(theta, psi, tau, lognu)
        joint = ll + log_pi[None, :]
        lse = logsumexp(joint, axis=1)
        obj = float(lse.sum()) - 0.5 * RIDGE * (theta @ theta + (psi * psi).sum())
        return obj, np.exp(joint - lse[:, None])


def _fit_corrected(model: _Model, seed: int, max_em: int, tol: float) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    p, t = model.p, model.t
    theta = rng.normal(0.0, 0.1, p)
    tau = rng.normal(0.0, 0.1, t)
    psi = np.zeros((p, t))
    lognu = np.log(0.5)
    log_pi = np.full(t, -np.log(t))
    trace = []
    bounds = [(None, None)] * (p + p * t + t) + [(-20.0, 20.0) if model.ties else (0.0, 0.0)]
    if not model.ties:
        lognu = 0.0
    it = 0
    for it in range(1, max_em + 1):
        obj, gamma = model.objective(theta, psi, tau, lognu, log_pi)
        trace.append(obj)
        pi = gamma.mean(axis=0)
        pi /= pi.sum()
        with np.errstate(divide="ignore"):
            log_pi = np.log(pi)
        z0 = np.concatenate([theta, psi.ravel(), tau, [lognu]])
        res = minimize(model.negq, z0, args=(gamma,), jac=True, method="L-BFGS-B", bounds=bounds,
                       options={"maxiter": 50, "gtol": 1e-6})
        new_theta, psi, tau, lognu = model.split(res.x)
        # exact invariances: u = θ + ψ − τ is unchanged, the penalty does not increase
        shift = new_theta.mean()
        new_theta = new_theta - shift
        tau = tau - shift
        col = psi.mean(axis=0)
        psi = psi - col[None, :]
        tau = tau - col
        delta = np.max(np.abs(new_theta - theta))
        theta = new_theta
        if delta < tol:
            break
    obj, _ = model.objective(theta, psi, tau, lognu, log_pi)
    trace.append(obj)
    return {"theta": theta, "nu": float(np.exp(lognu)) if model.ties else 0.0, "objective": obj,
            "trace": trace, "iterations": it, "pi": np.exp(log_pi)}


# --------------------------------------------------------------------------------------------------
# original server v1.1 (spec 06 §3.1), quirks included
# --------------------------------------------------------------------------------------------------

def _fit_quirks(comp: Comparisons, n_buckets: int, progress: tuple[np.ndarray, np.ndarray] | None, seed: int,
                max_em: int, tol: float) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    p, t, n = comp.n_policies, n_buckets, comp.n
    a, b, y = comp.a, comp.b, comp.y
    theta = rng.normal(0.0, 0.1, p)
    tau = rng.normal(0.0, 0.1, t)
    psi = np.zeros((p, t))
    nu = 0.5
    pi = np.full(t, 1.0 / t)
    use_p = progress is not None
    xa = progress[0][:, None] if use_p else None
    xb = progress[1][:, None] if use_p else None
    ia = np.zeros((n, p))
    ia[np.arange(n), a] = 1.0
    ib = np.zeros((n, p))
    ib[np.arange(n), b] = 1.0
    win = (y == 2)[:, None].astype(float)
    loss = (y == 0)[:, None].astype(float)
    tie = (y == 1)[:, None].astype(float)

    def likelihood(theta, psi, tau, nu):
        sa = expit(theta[a, None] + psi[a] - tau[None, :])
        sb = expit(theta[b, None] + psi[b] - tau[None, :])
        pw = sa * (1 - sb)
        pl = (1 - sa) * sb
        pt = 2 * nu * np.sqrt(pw * pl)
        lab = win * pw + loss * pl + tie * pt  # Q1: unnormalised
        if use_p:
            lab = lab * np.exp(-((xa - sa) ** 2 + (xb - sb) ** 2) / (2 * SIGMA_P ** 2)) ** W_P
        return lab, sa, sb, pw, pl, pt

    def slot_terms(gam, sa, sb):
        # Q9: the recorded gradient terms, verbatim (slot a; slot b mirrors it)
        w, l, tt = gam * win, gam * loss, gam * tie
        ga = w * (1 - sb) - l * sb + tt * (sb - sa)
        gb = l * (1 - sa) - w * sa + tt * (sa - sb)
        ha = -(gam * (sa * (1 - sa) + sb * (1 - sb)))
        hb = ha
        if use_p:
            ga = ga + gam * W_P * (xa - sa) * sa * (1 - sa) / SIGMA_P ** 2
            gb = gb + gam * W_P * (xb - sb) * sb * (1 - sb) / SIGMA_P ** 2
            ha = ha - gam * W_P * (sa * (1 - sa)) ** 2 / SIGMA_P ** 2
            hb = hb - gam * W_P * (sb * (1 - sb)) ** 2 / SIGMA_P ** 2
        return ga, gb, ha, hb

    it = 0
    for it in range(1, max_em + 1):
        kappa = 1.0 * 0.99 ** it
        lab, sa, sb, *_ = likelihood(theta, psi, tau, nu)
        gam = pi[None, :] * np.maximum(lab, 1e-12)  # Q7
        gam /= gam.sum(axis=1, keepdims=True)
        old = theta.copy()
        # θ step (Q5: one clipped Newton step)
        ga, gb, ha, hb = slot_terms(gam, sa, sb)
        g = ia.T @ ga.sum(axis=1) + ib.T @ gb.sum(axis=1) - RIDGE * theta
        h = ia.T @ ha.sum(axis=1) + ib.T @ hb.sum(axis=1) - RIDGE
        theta = theta - np.clip(g / h, -kappa, kappa)
        theta -= theta.mean()  # Q4: centred independently of τ
        # ψ step with the anti-shrinking ridge (Q2)
        lab, sa, sb, *_ = likelihood(theta, psi, tau, nu)
        ga, gb, ha, hb = slot_terms(gam, sa, sb)
        g = ia.T @ ga + ib.T @ gb + RIDGE * psi
        h = ia.T @ ha + ib.T @ hb - RIDGE
        psi = psi - np.clip(g / h, -kappa, kappa)
        psi -= psi.mean(axis=0, keepdims=True)
        # τ step: no tie, partial or ridge terms (Q6)
        lab, sa, sb, *_ = likelihood(theta, psi, tau, nu)
        g = (gam * (sa + sb - 1)).sum(axis=0)
        h = -(gam * (sa * (1 - sa) + sb * (1 - sb))).sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            stepv = np.where(h != 0, g / np.where(h != 0, h, 1.0), 0.0)
        tau = tau - np.clip(stepv, -kappa, kappa)
        tau -= tau.mean()
        pi = gam.mean(axis=0)
        pi /= pi.sum()
        _, _, _, pw, pl, pt = likelihood(theta, psi, tau, nu)
        nu = 0.5 * float((gam * pt).sum()) / max(float((gam * pw).sum()), 1e-9)  # Q3
        if np.max(np.abs(theta - old)) < tol:
            break
    lab, *_ = likelihood(theta, psi, tau, nu)
    score = float(np.log((pi[None, :] * np.maximum(lab, 1e-12)).sum(axis=1)).sum())
    return {"theta": theta, "nu": nu, "objective": score, "trace": [], "iterations": it, "pi": pi}


def bt_em_fit(comp: Comparisons, *, seed: int = 0, n_buckets: int = 100, use_partials: bool = False,
              progress: Any = None, ignore_ties: bool = False, reproduce_quirks: bool = False,
              max_em: int = 60, tol: float = 1e-4) -> dict[str, Any]:
    """One BT-EM fit (a single seed). Returns θ (centred), ν, the objective trace and iterations."""
    prog = _progress(comp, progress, use_partials, missing_as_zero=reproduce_quirks)  # Q8 only in quirk mode
    if reproduce_quirks:
        return _fit_quirks(comp, n_buckets, prog, seed, max_em, tol)
    return _fit_corrected(_Model(comp, n_buckets, prog, ignore_ties), seed, max_em, tol)


@keyword_only(renamed={"ties": "draws", "ignore_ties": "ignore_draws"})
def bt_em(data: Any, *, seeds: int | Sequence[int] = 100, n_buckets: int = 100, use_partials: bool = False,
          progress: Any = None, ignore_draws: bool = False, reproduce_quirks: bool = False, max_em: int = 60,
          tol: float = 1e-4, policies: Sequence[str] | None = None, draws: str = "keep", seed: Any = None,
          alpha: float | None = None, **read: Any) -> BaselineResult:
    """RoboArena BT-EM ranking (spec 06 §3), aggregated over seeds as on the RoboArena server v1.1.

    Parameters
    ----------
    data:
        Preference table, score table or path.
    seeds:
        Number of seeds (0…seeds−1; default 100) or an explicit list.
    n_buckets:
        Latent task buckets T (100).
    use_partials, progress:
        Add the partial-progress factor. Progress comes from ``progress`` (a wide table aligned by row with
        the comparisons, e.g. RoboArena's ``per_trial_progress_data.csv``, or a pair of arrays) or, for
        score input, from the scores themselves. Missing progress omits the policy's term (the original
        set it to 0; that is kept in quirk mode).
    ignore_draws:
        Drop draw rows (corrected model only). (``ignore_ties`` before 0.2.)
    reproduce_quirks:
        Run the original server v1.1 procedure (spec 06 §3.1) instead of the corrected default.

    ``scores`` = mean θ over seeds; ``details`` holds the SD over seeds (ddof 1), ν, and the Elo-like
    display ``round(15·mean + 1500)``. Every pair is ordered by the score (a point ranking).
    """
    comp = as_comparisons(data, policies=policies, draws=draws, seed=seed, **read)
    if isinstance(seeds, (int, np.integer)):
        seed_list = list(range(check_positive_int("seeds", seeds)))
    else:
        seed_list = [int(s) for s in seeds]
        if not seed_list:
            raise ParameterError("seeds must be a positive count or a non-empty list")
    n_buckets = check_positive_int("n_buckets", n_buckets)
    fits = [bt_em_fit(comp, seed=s, n_buckets=n_buckets, use_partials=use_partials, progress=progress,
                      ignore_ties=ignore_draws, reproduce_quirks=reproduce_quirks,
                      max_em=check_positive_int("max_em", max_em), tol=tol) for s in seed_list]
    thetas = np.array([f["theta"] for f in fits])
    mean = thetas.mean(axis=0)
    sd = thetas.std(axis=0, ddof=1) if len(fits) > 1 else np.full(comp.n_policies, np.nan)
    names = comp.policies
    return build_result(
        notes=comp.notes,
        method="bt-em", alpha=None if alpha is None else check_alpha(alpha), policies=names,
        edges=point_edges(mean), scores=mean, means=comp.means, n=comp.n,
        guarantee=("none: a point estimate of latent-bucket Bradley–Terry skills averaged over seeds; every pair "
                   "is ordered by the estimate with no error control"),
        details={"score": "mean over seeds of centred skill θ", "sd": dict(zip(names, sd.tolist())),
                 "elo": {k: int(round(15 * v + 1500)) for k, v in zip(names, mean.tolist())},
                 "nu": float(np.mean([f["nu"] for f in fits])), "seeds": seed_list, "n_buckets": n_buckets,
                 "use_partials": bool(use_partials), "reproduce_quirks": bool(reproduce_quirks),
                 "iterations": [f["iterations"] for f in fits], "means_kind": comp.means_kind})
