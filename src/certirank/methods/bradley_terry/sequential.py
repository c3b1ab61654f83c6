"""Anytime claims about Bradley–Terry contrasts from battles in arrival order.

``asymptotic`` (default): at every checkpoint the model is refitted on every battle so far; for each pair the
Wald statistic z = (theta_a - theta_b) / se and the information V = 1 / se^2 give the normal-mixture
(Robbins) boundary of the asymptotic confidence sequences of Waudby-Smith, Arbour, Sinha, Kennedy & Ramdas
("Time-uniform central limit theory and asymptotic confidence sequences", Ann. Statist. 2024), in its
martingale form with the accumulated information as intrinsic time:

    |z| >= sqrt( (1 + 1 / (V rho^2)) (2 log(1 / alpha) + log(1 + V rho^2)) ),

i.e. the anytime p-value p(z, V) = min(1, sqrt(1 + V rho^2) exp(-z^2 V rho^2 / (2 (1 + V rho^2)))). Each
pair keeps the smallest p-value seen (and the sign of the contrast then), and Holm's procedure over all
L (L - 1) / 2 pairs certifies edges. The guarantee is asymptotic: it holds in the limit of much information per
contrast; with very sparse early data the normal approximation is poor (see docs/bradley-terry.md for where
the simulation study shows it failing).

``exact``: universal inference. The numerator is the prequential likelihood of the battles, each scored under
the fit of the checkpoint before it (predictable); the denominator is the likelihood maximised under the null
theta_a <= theta_b. Their ratio is an e-process for every null (Ville's inequality), valid at every stopping time
in finite samples, under the model. Holm's procedure on 2 / (running maximum e-value) (the two directions).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .fit import Cells, Counts, battle_logprob, fit, saturated_loglik

__all__ = ["mixture_pvalue", "rho_squared", "run", "TARGET_INFORMATION", "EXACT_SLACK"]

#: the contrast information (1 / se^2) at which the boundary is tightest: a pair of players with about 100
#: battles each; fixed in advance (it must not be tuned on the data)
TARGET_INFORMATION = 10.0
#: nats added to the constrained maximum log-likelihood of universal inference: the optimiser stops within
#: 1e-9 of the maximum of a ridge-1e-9 problem, far inside this margin
EXACT_SLACK = 0.05
_EXACT_RIDGE = 1e-9


def rho_squared(alpha: float, target: float = TARGET_INFORMATION) -> float:
    """The mixing scale that makes the boundary tightest at information ``target`` for level ``alpha``."""
    t = -2.0 * math.log(alpha)
    return (t + math.log(t + 1.0)) / target


def mixture_pvalue(z: np.ndarray, info: np.ndarray, rho2: float) -> np.ndarray:
    """Anytime p-value of the two-sided normal-mixture boundary at Wald statistic z and information V."""
    vr = np.asarray(info, dtype=float) * rho2
    with np.errstate(over="ignore", invalid="ignore"):
        logp = 0.5 * np.log1p(vr) - 0.5 * np.asarray(z) ** 2 * vr / (1.0 + vr)
    return np.minimum(1.0, np.exp(np.minimum(logp, 0.0)))


def run(first: np.ndarray, second: np.ndarray, score: np.ndarray, n_players: int, *, alpha: float, method: str,
        draws: str, home: bool, checkpoints: np.ndarray) -> dict[str, Any]:
    """Replay battles, checking at ``checkpoints`` (battle counts, increasing, ending at the last battle).

    Returns per-pair running minimum p-values with the checkpoint and sign at which they were reached, and the
    final fit.
    """
    L = n_players
    iu, ju = np.triu_indices(L, 1)
    K = iu.size
    davidson = draws == "davidson"
    rho2 = rho_squared(alpha / max(K, 1))
    best_p = np.ones(K)
    best_at = np.zeros(K, dtype=np.int64)
    best_sign = np.zeros(K, dtype=np.int64)
    log_e = np.full(K, -np.inf)  # exact: running maximum log e-value
    prev = None
    prequential = 0.0
    last = 0
    use = score != 0.5 if draws == "drop" else np.ones(score.size, dtype=bool)
    counts = Counts(L)
    for t in checkpoints:
        t = int(t)
        block = slice(last, t)
        if method == "exact":
            params = np.zeros(_n_params(L, home, davidson)) if prev is None else prev.params
            if prev is None and davidson:
                params[-1] = math.log(1.0 / 3.0) + math.log(3.0)  # nu = 1 until there is data
            sel = use[block]
            prequential += float(battle_logprob(params, first[block][sel], second[block][sel], score[block][sel], L,
                                                home, davidson).sum())
        sel = use[block]
        counts.add(first[block][sel], second[block][sel], score[block][sel])
        cells = counts.cells(draws)
        if cells.i.size == 0:
            last = t
            continue
        cur = fit(cells, home=home, davidson=davidson, start=None if prev is None else prev.params)
        prev = cur
        diff = cur.theta[iu] - cur.theta[ju]
        var = cur.contrast_var()[iu, ju]
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(var > 0, diff / np.sqrt(var), 0.0)
            info = np.where(var > 0, 1.0 / var, 0.0)
        if method == "asymptotic":
            p = mixture_pvalue(z, info, rho2)
        else:
            p = _exact_pvalues(cells, cur, iu, ju, prequential, home, davidson, log_e, alpha)
        better = p < best_p
        best_p[better] = p[better]
        best_at[better] = t
        best_sign[better] = np.sign(diff[better]).astype(np.int64)
        last = t
    return {"iu": iu, "ju": ju, "pvalue": best_p, "decided": best_at, "sign": best_sign, "fit": prev,
            "rho2": rho2, "log_e": log_e if method == "exact" else None}


def _n_params(L: int, home: bool, davidson: bool) -> int:
    return L + int(home) + int(davidson)


def _exact_pvalues(cells: Cells, cur: Any, iu: np.ndarray, ju: np.ndarray, prequential: float, home: bool,
                   davidson: bool, log_e: np.ndarray, alpha: float) -> np.ndarray:
    """1 / running max e-value per pair; the constrained fit is computed only where it could matter.

    For each pair the null tested is that of the better-looking direction (theta_hi <= theta_lo). Its
    maximised likelihood is at least that of any null point, e.g. the current fit with both strengths moved
    to their average; so prequential - loglik(that point) bounds the e-value from above, and a pair whose
    bound stays below log(1 / alpha) (no Holm threshold is larger) or below its running maximum is not refitted.
    """
    bound_skip = math.log(1.0 / alpha)
    for k in range(iu.size):
        a, b = int(iu[k]), int(ju[k])
        hi, lo = (a, b) if cur.theta[a] >= cur.theta[b] else (b, a)
        upper = prequential - _merged_ll(cells, cur, hi, lo, home, davidson)
        if upper < bound_skip or upper <= log_e[k]:
            continue
        con = fit(cells, home=home, davidson=davidson, ridge=_EXACT_RIDGE, start=cur.params, fixed_equal=(hi, lo),
                  strict=False)
        # an unconverged constrained fit (separated data) gives no bound: fall back to the saturated model's
        # log-likelihood, which is >= every model's maximum (valid, and conservative)
        denominator = con.loglik + EXACT_SLACK if con.converged else saturated_loglik(cells)
        log_e[k] = max(log_e[k], prequential - denominator)
    # each pair tests the null of whichever direction looks better at the time: at an exact tie both nulls
    # are true, so the p-value of the pair is 2 / (running max e-value) (Bonferroni over the two directions)
    return np.minimum(1.0, 2.0 * np.exp(-np.maximum(log_e, 0.0)))


def _merged_ll(cells: Cells, cur: Any, a: int, b: int, home: bool, davidson: bool) -> float:
    from .fit import _parts, _layout

    p = cur.params.copy()
    p[[a, b]] = 0.5 * (p[a] + p[b])
    _, h_ix, e_ix = _layout(cells.n_players, home, davidson)
    return float(_parts(p, cells, h_ix, e_ix)["ll"])
