"""Bradley–Terry (and Davidson) maximum likelihood on aggregated battles, with a position advantage.

A battle is (first, second, outcome): the first-named side wins, loses or draws. Cells aggregate the battles of
each ordered pair (first i, second j) into counts of wins w, losses l and draws d of i. With s = x / 2 and
x = theta_i - theta_j + h (h: the advantage of the first position, when modelled), Davidson's model is

    P(i wins) = e^s / D,  P(j wins) = e^-s / D,  P(draw) = nu / D,  D = e^s + e^-s + nu,

and nu = 0 is Bradley–Terry (P(i wins) = sigmoid(x)). Draws can also be read as half a win for each side
(``draws="half"``: a quasi-likelihood with the same Fisher information), or dropped.

The log-likelihood is maximised by Newton's method with a halving line search, with a small ridge
(``ridge`` / 2) |theta|^2: the strengths of players who won (or lost) every battle so far are then finite, and
the strengths are identified without pinning one player. Contrasts theta_a - theta_b, their covariance (the
inverse of the penalised information) and the maximised log-likelihood are what the sequential procedures
use.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import StateError

__all__ = ["Cells", "Counts", "Fit", "fit", "cells_from_battles", "DRAWS"]

DRAWS = ("half", "davidson", "drop")
#: ridge of the default fit: a N(0, 1/ridge) prior on each log-strength, weak next to one battle's information
RIDGE = 1e-2
_MAX_NEWTON = 100


@dataclass
class Cells:
    """Counts per ordered pair (first i, second j): w = wins of i, l = wins of j, d = draws."""

    n_players: int
    i: np.ndarray
    j: np.ndarray
    w: np.ndarray
    l: np.ndarray  # noqa: E741
    d: np.ndarray


class Counts:
    """Running (L x L) counts of wins, losses and draws of the first-named side, added to battle by battle."""

    def __init__(self, n_players: int) -> None:
        self.n_players = n_players
        self.win = np.zeros(n_players * n_players)
        self.loss = np.zeros(n_players * n_players)
        self.draw = np.zeros(n_players * n_players)

    def add(self, first: np.ndarray, second: np.ndarray, score: np.ndarray) -> None:
        key = first.astype(np.int64) * self.n_players + second.astype(np.int64)
        n = self.win.size
        self.win += np.bincount(key, weights=(score == 1.0), minlength=n)
        self.loss += np.bincount(key, weights=(score == 0.0), minlength=n)
        self.draw += np.bincount(key, weights=(score == 0.5), minlength=n)

    def cells(self, draws: str) -> Cells:
        used = np.flatnonzero(self.win + self.loss + self.draw)
        return _cells(used, self.win[used], self.loss[used], self.draw[used], self.n_players, draws)


def cells_from_battles(first: np.ndarray, second: np.ndarray, score: np.ndarray, n_players: int,
                       draws: str) -> Cells:
    """Aggregate battles (score of the first side: 1 win, 0 loss, 0.5 draw) into cells."""
    counts = Counts(n_players)
    counts.add(first, second, score)
    return counts.cells(draws)


def _cells(uniq: np.ndarray, win: np.ndarray, loss: np.ndarray, draw: np.ndarray, n_players: int,
           draws: str) -> Cells:
    if draws == "half":
        win, loss, draw = win + draw / 2.0, loss + draw / 2.0, np.zeros_like(draw)
    elif draws == "drop":
        draw = np.zeros_like(draw)
    return Cells(n_players, uniq // n_players, uniq % n_players, win, loss, draw)


@dataclass(frozen=True)
class Fit:
    """A fitted model: parameters [theta (L), h?, log nu?], their covariance, and the log-likelihood."""

    theta: np.ndarray
    home: float | None
    nu: float | None
    cov: np.ndarray        # (P, P) inverse penalised information; the first L rows are the strengths
    loglik: float          # unpenalised log-likelihood at the fit
    params: np.ndarray     # the full parameter vector (warm start of the next fit)
    converged: bool = True

    def contrast_var(self) -> np.ndarray:
        """(L, L) variances of theta_a - theta_b."""
        L = self.theta.shape[0]
        c = self.cov[:L, :L]
        dg = np.diag(c)
        return np.maximum(dg[:, None] + dg[None, :] - 2.0 * c, 0.0)


def _layout(L: int, home: bool, davidson: bool) -> tuple[int, int | None, int | None]:
    P = L
    h_ix = P if home else None
    P += int(home)
    e_ix = P if davidson else None
    P += int(davidson)
    return P, h_ix, e_ix


def _parts(phi: np.ndarray, c: Cells, h_ix: int | None, e_ix: int | None):
    x = phi[c.i] - phi[c.j] + (phi[h_ix] if h_ix is not None else 0.0)
    s = 0.5 * x
    nu = np.exp(phi[e_ix]) if e_ix is not None else 0.0
    # stable: divide everything by e^|s|
    m = np.abs(s)
    a, b, v = np.exp(s - m), np.exp(-s - m), nu * np.exp(-m)
    D = a + b + v
    n = c.w + c.l + c.d
    ll = float(np.sum(c.w * s - c.l * s - n * (np.log(D) + m)) + (np.sum(c.d) * phi[e_ix] if e_ix is not None else 0.0))
    g_s = c.w - c.l - n * (a - b) / D
    h_ss = -n * ((a + b) * D - (a - b) ** 2) / (D * D)
    out = {"ll": ll, "gx": 0.5 * g_s, "hxx": 0.25 * h_ss}
    if e_ix is not None:
        out["ge"] = float(np.sum(c.d - n * v / D))
        out["hee"] = float(np.sum(-n * v * (D - v) / (D * D)))
        out["hxe"] = 0.5 * n * (a - b) * v / (D * D)
    return out


def _grad_hess(phi: np.ndarray, c: Cells, P: int, h_ix: int | None, e_ix: int | None, ridge: float):
    L = c.n_players
    pt = _parts(phi, c, h_ix, e_ix)
    gx, hxx = pt["gx"], pt["hxx"]
    g = np.zeros(P)
    g[:L] = np.bincount(c.i, weights=gx, minlength=L) - np.bincount(c.j, weights=gx, minlength=L)
    H = np.zeros((P, P))
    flat = H[:L, :L]
    diag = np.bincount(c.i, weights=hxx, minlength=L) + np.bincount(c.j, weights=hxx, minlength=L)
    off = np.zeros(L * L)
    np.add.at(off, c.i * L + c.j, -hxx)
    off = off.reshape(L, L)
    flat += off + off.T
    flat[np.diag_indices(L)] += diag
    if h_ix is not None:
        g[h_ix] = float(gx.sum())
        H[h_ix, h_ix] = float(hxx.sum())
        col = np.bincount(c.i, weights=hxx, minlength=L) - np.bincount(c.j, weights=hxx, minlength=L)
        H[:L, h_ix] = H[h_ix, :L] = col
    if e_ix is not None:
        hxe = pt["hxe"]
        g[e_ix] = pt["ge"]
        H[e_ix, e_ix] = pt["hee"]
        col = np.bincount(c.i, weights=hxe, minlength=L) - np.bincount(c.j, weights=hxe, minlength=L)
        H[:L, e_ix] = H[e_ix, :L] = col
        if h_ix is not None:
            H[h_ix, e_ix] = H[e_ix, h_ix] = float(hxe.sum())
    # penalised objective: maximise ll - ridge/2 |theta|^2
    g[:L] -= ridge * phi[:L]
    H[np.arange(L), np.arange(L)] -= ridge
    return pt["ll"], g, H


def fit(c: Cells, *, home: bool = False, davidson: bool = False, ridge: float = RIDGE,
        start: np.ndarray | None = None, tol: float = 1e-9, fixed_equal: tuple[int, int] | None = None,
        strict: bool = True) -> Fit:
    """Maximise the ridge-penalised log-likelihood by Newton's method.

    ``fixed_equal=(a, b)`` constrains theta_a = theta_b (the boundary of the null theta_a <= theta_b), by
    optimising over their common value. ``strict=False`` returns a fit marked ``converged=False`` instead of
    raising when 100 Newton steps do not converge (separated data with a tiny ridge).
    """
    L = c.n_players
    P, h_ix, e_ix = _layout(L, home, davidson)
    phi = np.zeros(P) if start is None else np.array(start, dtype=float)
    if start is None and e_ix is not None:
        n = c.w.sum() + c.l.sum() + c.d.sum()
        phi[e_ix] = np.log(max(c.d.sum(), 0.5) / max(n, 1.0)) + np.log(3.0)
    # a reparametrisation that merges a and b: the free parameters drop b's slot
    keep = np.arange(P) if fixed_equal is None else np.delete(np.arange(P), fixed_equal[1])
    T = np.zeros((P, keep.size))
    T[keep, np.arange(keep.size)] = 1.0
    if fixed_equal is not None:
        a, b = fixed_equal
        T[b, int(np.flatnonzero(keep == a)[0])] = 1.0
        phi[[a, b]] = 0.5 * (phi[a] + phi[b])
    psi = phi[keep]

    def objective(p: np.ndarray) -> tuple[float, float, np.ndarray, np.ndarray]:
        full = T @ p if fixed_equal is not None else p
        ll, g, H = _grad_hess(full, c, P, h_ix, e_ix, ridge)
        pen = ll - 0.5 * ridge * float(full[:L] @ full[:L])
        return (pen, ll, g, H) if fixed_equal is None else (pen, ll, T.T @ g, T.T @ H @ T)

    obj, ll, g, H = objective(psi)
    converged = False
    for _ in range(_MAX_NEWTON):
        try:
            step = np.linalg.solve(H, -g)
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(H, -g, rcond=None)[0]
        t = 1.0
        while True:
            new = psi + t * step
            obj_new, ll_new, g_new, H_new = objective(new)
            if obj_new >= obj - 1e-12 or t < 1e-8:
                break
            t *= 0.5
        psi, obj, ll, g, H = new, obj_new, ll_new, g_new, H_new
        if np.max(np.abs(t * step)) < tol:
            converged = True
            break
    if not converged and strict:
        raise StateError("the Bradley–Terry fit did not converge in 100 Newton steps")
    full = T @ psi
    try:
        cov_free = np.linalg.inv(-H)
    except np.linalg.LinAlgError:
        cov_free = np.linalg.pinv(-H)
    cov = T @ cov_free @ T.T
    return Fit(full[:L].copy(), float(full[h_ix]) if h_ix is not None else None,
               float(np.exp(full[e_ix])) if e_ix is not None else None, cov, ll, full, converged)


def saturated_loglik(c: Cells) -> float:
    """The log-likelihood of the saturated model (each cell its own outcome probabilities): at least the
    maximum of any Bradley–Terry or Davidson model on the same cells."""
    n = c.w + c.l + c.d
    out = 0.0
    for k in (c.w, c.l, c.d):
        pos = k > 0
        out += float(np.sum(k[pos] * np.log(k[pos] / n[pos])))
    return out


def battle_logprob(params: np.ndarray, first: np.ndarray, second: np.ndarray, score: np.ndarray, L: int,
                   home: bool, davidson: bool) -> np.ndarray:
    """log P(outcome) of each battle under the parameters (the numerator of universal inference)."""
    _, h_ix, e_ix = _layout(L, home, davidson)
    x = params[first] - params[second] + (params[h_ix] if h_ix is not None else 0.0)
    s = 0.5 * x
    nu = np.exp(params[e_ix]) if e_ix is not None else 0.0
    m = np.abs(s)
    a, b, v = np.exp(s - m), np.exp(-s - m), nu * np.exp(-m)
    logD = np.log(a + b + v) + m
    out = np.where(score == 1.0, s, np.where(score == 0.0, -s, np.log(nu) if davidson else 0.0)) - logD
    return out
