"""Exact sequential Barnard-type test for two independent arms within a budget (spec 08 §3c; issue 31 item 2).

Setting. Policies X and Y are run on independent rollouts, one of each per step (an A/B study paired only by
order), for at most ``n_max`` steps. After t steps X has ``a`` successes and Y has ``b``. Unlike the
discordant-pair reduction (spec 08 §2), which only sees the pairs where X and Y disagree, the statistic here uses
both success counts, so concordant pairs tell it how variable the outcomes are (at 0.7 vs 0.9 two thirds of the
pairs are concordant).

Statistic (this project's choice). The signed root of the likelihood-ratio statistic for p0 = p1 in the 2 x 2
table, with half a pseudo-success and half a pseudo-failure added to each arm (so that 0/t and t/t tables are
finite and extreme-rate tables are not over-read):

    z(t, a, b) = sign(b - a) sqrt(2 max(0, l(a; p0~) + l(b; p1~) - l(a + b; p~))),

    p0~ = (a + 1/2)/(t + 1), p1~ = (b + 1/2)/(t + 1), p~ = (a + b + 1)/(2t + 2),

with l the binomial log-likelihoods. It is non-decreasing in b and non-increasing in a for every t up to
`MAX_BUDGET` (checked exhaustively by `tests/test_evidence_barnard.py`; `check_monotone`). The `less` side (claim
"X worse than Y") thresholds

    T(t, a, b) = z(t, a, b) - c_t,

the `more` side T(t, b, a). The boundary c_t (one number per step, +inf where the step may not reject) is fixed
before any data from (n_max, level): it spends the level linearly in time, c_t being the least value whose
crossing probability up to step t stays below level * t / n_max at a few nuisance rates
(`CONTROL_RATES`; a spending design in the spirit of STEP's linear risk budget). The design only shapes the
statistic; validity comes from the exact level below, computed for whatever boundary results.

Level. R_t = max_{s <= t} T(s, a_s, b_s), and for a threshold m

    G(m) = sup over the one-sided null {p1 <= p0} of P(max_{t <= n_max} T >= m).

Theorem 1 (reduction to the tie line). Because T is non-decreasing in b, coupling Y ~ Bernoulli(p1) below
Y' ~ Bernoulli(p0) path by path (p1 <= p0) raises every b_t, so every crossing of the original path is one of the
coupled path: the supremum over the null is attained on the tie line p0 = p1 = p, G(m) = sup_p L_m(p).

Theorem 2 (exact polynomial). On the tie line the 2t outcomes of the first t steps are i.i.d. Bernoulli(p), so
every sequence with j successes has probability p^j (1 - p)^(2t - j). Let g_t(j) be the fraction of those sequences
whose first crossing is at step t (a p-free number, computed by the dynamic programme over (a, b) on fractions of
paths, `_crossing_fractions`). Then

    L_m(p) = sum_t sum_j g_t(j) Bin(j; 2t, p) = sum_{i <= 2 n_max} h(i) Bin(i; 2 n_max, p),

the second form by degree elevation of Bernstein polynomials (h in [0, 1]; `_bernstein`).

Theorem 3 (bound between grid points). L is a polynomial; on a grid p_0 < ... < p_G (G = 8 n, n = 2 n_max,
uniform in the angle theta, p = sin^2 theta) L and L' are computed exactly from the Bernstein coefficients, and on
each interval Taylor's theorem from either end bounds L by its value, its first-order move and n (n - 1) K w^2 / 2,
where K bounds sum_i |D^2 h(i)| Bin(i; n - 2, p) there (`sup_bound`). K is a Bernstein polynomial with non-negative
coefficients, and for those the growth between grid points is itself bounded: for an event (or any [0, 1]-valued
function) of n i.i.d. Bernoulli(p) variables with mean L, dL/dp = Cov(f, S) / (p (1 - p)) with S their sum, and
Cauchy-Schwarz gives |dL/dp| <= sqrt(n L (1 - L) / (p (1 - p))); with dp/dtheta = 2 sqrt(p (1 - p)) and L =
sin^2 phi this says phi is sqrt(n)-Lipschitz in theta. `level_of` therefore returns a proven upper bound on G(m),
never an estimate (within 0.2-1 % of the largest grid value at the budgets tried, `tests/test_evidence_barnard.py`).
Rounding aside, p_t = G(R_t) is a p-process valid at every stopping time up to the budget (spec 08 §3's Claim with
G replaced by an upper bound), and mirrored use under ``ties="allow"`` (each side at alpha / 2) keeps P(any claim)
<= alpha under an exact tie at any success rate.

Design level. The boundary spends 99 % of the side level; the proven G(0) is checked and the spending lowered by
2 % until G(0) <= side level, so the decision at the design level is "T >= 0".

Costs: one level evaluation is O(n_max^3 / 3) elementwise operations (about 0.05 s at n_max = 200), a design about
30 of them; designs are cached per (n_max, level). Above `MAX_BUDGET` the discordant-pair test of spec 08 §3b is
used for independent arms.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from scipy import special

from ..errors import ParameterError

__all__ = ["MAX_BUDGET", "CONTROL_RATES", "BarnardDesign", "barnard_design", "z_statistic", "level_of",
           "operating_characteristics", "check_monotone"]

#: largest budget the Barnard-type test is built for (its design is O(n_max^3)); above it independent arms use
#: the discordant-pair test of spec 08 §3b
MAX_BUDGET = 400
#: nuisance rates at which the spending design (not the level) is checked; the level curve is symmetric in p
CONTROL_RATES = (0.5, 0.4, 0.3, 0.15)
_REG = 0.5
_TOL = 1e-12


_LOG = np.log(np.maximum(np.arange(2 * MAX_BUDGET + 3, dtype=float), 1.0))  # log of 0..2 MAX_BUDGET + 2 (index 0 unread)


def z_statistic(t: Any, a: Any, b: Any) -> np.ndarray:
    """Signed root likelihood-ratio statistic z(t, a, b) of the module docstring (0 at t = 0), t <= MAX_BUDGET.

    With the half pseudo-counts the binomial terms separate: d = F(a) + F(b) - H(a + b), F(a) = a log(2a + 1)
    + (t - a) log(2t - 2a + 1), H(j) = j log(j + 1) + (2t - j) log(2t - j + 1) (the log(2t + 2) terms cancel).
    `_grid_z` runs the same operations in the same order, so both give the same floating-point numbers: the
    streams cross exactly where the level's dynamic programme does."""
    t = np.asarray(t, dtype=np.int64)
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    fa = a * _LOG[2 * a + 1] + (t - a) * _LOG[2 * (t - a) + 1]
    fb = b * _LOG[2 * b + 1] + (t - b) * _LOG[2 * (t - b) + 1]
    j = a + b
    d = fa + fb - (j * _LOG[j + 1] + (2 * t - j) * _LOG[2 * t - j + 1])
    return np.where(t > 0, np.sign(b - a) * np.sqrt(np.maximum(2.0 * d, 0.0)), 0.0)


def _grid_z(t: int) -> np.ndarray:
    """z(t, a, b) on the whole (a, b) grid, shape (t + 1, t + 1), indexed [a, b] (same arithmetic as
    `z_statistic`)."""
    r = np.arange(t + 1)
    f = r * _LOG[2 * r + 1] + (t - r) * _LOG[2 * (t - r) + 1]
    j = np.arange(2 * t + 1)
    h = j * _LOG[j + 1] + (2 * t - j) * _LOG[2 * t - j + 1]
    d = f[:, None] + f[None, :] - h[r[:, None] + r[None, :]]
    return np.sign(r[None, :] - r[:, None]) * np.sqrt(np.maximum(2.0 * d, 0.0))


def _likelihood_z(t: Any, a: Any, b: Any) -> np.ndarray:
    """The same statistic written with the binomial log-likelihoods (a reference for the tests)."""
    t = np.asarray(t, dtype=float)
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    p0 = (a + _REG) / (t + 2 * _REG)
    p1 = (b + _REG) / (t + 2 * _REG)
    pb = (a + b + 2 * _REG) / (2 * t + 4 * _REG)
    d = (special.xlogy(a, p0) + special.xlogy(t - a, 1 - p0) + special.xlogy(b, p1) + special.xlogy(t - b, 1 - p1)
         - special.xlogy(a + b, pb) - special.xlogy(2 * t - a - b, 1 - pb))
    return np.sign(b - a) * np.sqrt(np.maximum(2.0 * d, 0.0))


def check_monotone(n_max: int) -> bool:
    """True if z(t, ., .) is non-decreasing in b and non-increasing in a for every t <= n_max."""
    for t in range(1, n_max + 1):
        z = _grid_z(t)
        if (np.diff(z, axis=1) < -1e-12).any() or (np.diff(z, axis=0) > 1e-12).any():
            return False
    return True


# --------------------------------------------------------------------------------------------------
# dynamic programmes
# --------------------------------------------------------------------------------------------------

def _advance(u: np.ndarray, p0: np.ndarray, p1: np.ndarray) -> np.ndarray:
    """One step of both arms for arrays u (..., t + 1, t + 1) of probabilities over (a, b)."""
    n = u.shape[-1]
    p0 = p0[..., None, None]
    p1 = p1[..., None, None]
    v = np.zeros(u.shape[:-2] + (n + 1, n))
    v[..., :n, :] += (1 - p0) * u
    v[..., 1:, :] += p0 * u
    w = np.zeros(u.shape[:-2] + (n + 1, n + 1))
    w[..., :, :n] += (1 - p1) * v
    w[..., :, 1:] += p1 * v
    return w


def _advance_fraction(u: np.ndarray) -> np.ndarray:
    """One step on fractions of paths: u[..., a, b] = fraction of the paths to (t, a, b) not yet absorbed.

    A path to (t + 1, a) came from a - 1 (a fraction a / (t + 1) of them) or from a; the same for b. Fractions
    stay in [0, 1], so long budgets never underflow (probabilities at p = 1/2 would, as 4^-t)."""
    n = u.shape[-1]  # t + 1
    w = np.arange(n + 1) / n
    v = np.empty(u.shape[:-2] + (n + 1, n))
    np.multiply(u, w[1:, None], out=v[..., 1:, :])
    v[..., 0, :] = 0.0
    v[..., :n, :] += u * (1 - w[:n, None])
    out = np.empty(u.shape[:-2] + (n + 1, n + 1))
    np.multiply(v, w[None, 1:], out=out[..., :, 1:])
    out[..., :, 0] = 0.0
    out[..., :, :n] += v * (1 - w[None, :n])
    return out


def _hyper_weights(t: int) -> tuple[np.ndarray, np.ndarray]:
    # kept for small t only: the whole triangle up to MAX_BUDGET would hold ~0.3 GB
    return _hyper_weights_cached(t) if t <= 160 else _hyper_weights_of(t)


@functools.lru_cache(maxsize=None)
def _hyper_weights_cached(t: int) -> tuple[np.ndarray, np.ndarray]:
    return _hyper_weights_of(t)


def _hyper_weights_of(t: int) -> tuple[np.ndarray, np.ndarray]:
    """(j index, weight) with weight[a, b] = C(t, a) C(t, b) / C(2t, a + b): the share of the sequences with
    j = a + b successes among 2t that end at (a, b)."""
    r = np.arange(t + 1)
    lf = special.gammaln(np.arange(2 * t + 2) + 1.0)
    one = lf[t] - lf[r] - lf[t - r]
    j = np.arange(2 * t + 1)
    two = lf[j] + lf[2 * t - j] - lf[2 * t]
    jj = r[:, None] + r[None, :]
    return jj.ravel(), np.exp(one[:, None] + one[None, :] + two[jj]).ravel()


def _crossing_fractions(c: np.ndarray, ms: np.ndarray) -> list[np.ndarray]:
    """g[t - 1][row, j]: fraction of the 2t-outcome sequences with j successes whose first crossing of
    z - c >= m (one row per m in ms) is at step t, t = 1..n_max. The `less` side alone (spec 08 §3: the
    one-sided p-process runs over the whole budget whatever the other side does)."""
    n_max = c.size - 1
    rows = ms.size
    u = np.ones((rows, 1, 1))
    out = []
    for t in range(1, n_max + 1):
        u = _advance_fraction(u)
        if not math.isfinite(c[t]):
            out.append(np.zeros((rows, 2 * t + 1)))
            continue
        z = _grid_z(t)
        cross = z[None] - c[t] >= ms[:, None, None] - _TOL * (1.0 + np.abs(ms[:, None, None]))
        hit = np.where(cross, u, 0.0)
        jj, wt = _hyper_weights(t)
        idx = (jj[None, :] + (2 * t + 1) * np.arange(rows)[:, None]).ravel()
        g = np.bincount(idx, weights=(hit.reshape(rows, -1) * wt).ravel(), minlength=rows * (2 * t + 1))
        out.append(g.reshape(rows, 2 * t + 1))
        u = np.where(cross, 0.0, u)
    return out


def _bernstein(g: list[np.ndarray]) -> np.ndarray:
    """Coefficients h (rows, 2 n_max + 1) with sum_t sum_j g_t(j) Bin(j; 2t, p) = sum_i h(i) Bin(i; 2 n_max, p)."""
    rows = g[0].shape[0]
    h = np.zeros((rows, 1))
    for t, gt in enumerate(g, start=1):
        n = 2 * (t - 1)  # current degree
        j = np.arange(n + 3, dtype=float)
        den = (n + 2.0) * (n + 1.0)
        e = np.zeros((rows, n + 3))
        e[:, :n + 1] += h * ((n + 2 - j[:n + 1]) * (n + 1 - j[:n + 1]) / den)
        e[:, 1:n + 2] += h * (2 * j[1:n + 2] * (n + 2 - j[1:n + 2]) / den)
        e[:, 2:] += h * (j[2:] * (j[2:] - 1) / den)
        h = e + gt
    return h


def _pmf(n: int, p: np.ndarray) -> np.ndarray:
    """Bin(i; n, p) for i = 0..n at each p, shape (p.size, n + 1) (exact 0/1 rows at p = 0 and p = 1)."""
    out = np.zeros((p.size, n + 1))
    out[p <= 0, 0] = 1.0
    out[p >= 1, n] = 1.0
    inner = (p > 0) & (p < 1)
    if inner.any():
        i = np.arange(n + 1)
        q = p[inner]
        out[inner] = np.exp(_log_binom(n)[None, :] + i[None, :] * np.log(q)[:, None]
                            + (n - i)[None, :] * np.log1p(-q)[:, None])
    return out


def _curve(h: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """L(p) at p = sin^2(theta) for Bernstein coefficients h (rows, n + 1); shape (rows, theta.size)."""
    p = np.clip(np.sin(theta) ** 2, 0.0, 1.0)
    return np.clip(h @ _pmf(h.shape[1] - 1, p).T, 0.0, 1.0)


@functools.lru_cache(maxsize=16)
def _log_binom(n: int) -> np.ndarray:
    i = np.arange(n + 1)
    return special.gammaln(n + 1) - special.gammaln(i + 1) - special.gammaln(n - i + 1)


def grid_sup(h: np.ndarray) -> np.ndarray:
    """max of sum_i h(i) Bin(i; n, p) over a fixed grid of 4n + 1 angles: a lower bound on the sup, for searching."""
    n = h.shape[1] - 1
    return _curve(h, np.linspace(0.0, math.pi / 2, 4 * n + 1)).max(axis=1)


def sup_bound(h: np.ndarray) -> np.ndarray:
    """Proven upper bound on sup_p L(p), L(p) = sum_i h(i) Bin(i; n, p), one per row of h (module docstring,
    Theorem 3).

    On a grid p_0 < ... < p_G (uniform in the angle, G = 8n) L and L' are evaluated exactly (L' = n sum Dh(i)
    Bin(i; n - 1, p)). On [p_i, p_{i+1}] (width w) Taylor's theorem from either end gives
    L <= L(p_i) + max(0, L'(p_i)) w + n (n - 1) K w^2 / 2 and L <= L(p_{i+1}) + max(0, -L'(p_{i+1})) w + the same,
    where K bounds sum_i |D^2 h(i)| Bin(i; n - 2, p) on the interval (|L''| <= n (n - 1) times that). K is a Bernstein
    polynomial with coefficients in [0, kmax]; for such polynomials (coefficients in [0, 1] after scaling) the
    arcsine argument of Theorem 3 bounds the growth between grid points: phi = arcsin sqrt(K / kmax) is
    sqrt(n - 2)-Lipschitz in the angle. The bound is the largest over intervals of the smaller of the two.
    """
    rows, n1 = h.shape
    n = n1 - 1
    theta = np.linspace(0.0, math.pi / 2, 8 * max(n, 4) + 1)
    p = np.clip(np.sin(theta) ** 2, 0.0, 1.0)
    w = np.diff(p)
    val = h @ _pmf(n, p).T
    if n < 2:  # a line or a constant: the sup is at an end point
        return np.clip(val.max(axis=1), 0.0, 1.0)
    d1 = n * (np.diff(h, axis=1) @ _pmf(n - 1, p).T)
    k2 = np.abs(np.diff(h, n=2, axis=1))
    kmax = np.maximum(k2.max(axis=1, keepdims=True), 1e-300)
    kk = np.clip((k2 / kmax) @ _pmf(n - 2, p).T, 0.0, 1.0)
    phi = np.arcsin(np.sqrt(kk))
    top = np.minimum((phi[:, :-1] + phi[:, 1:] + math.sqrt(n - 2) * np.diff(theta)) / 2, math.pi / 2)
    kbar = kmax * np.sin(top) ** 2
    rem = n * (n - 1) * kbar * w ** 2 / 2
    left = val[:, :-1] + np.maximum(d1[:, :-1], 0.0) * w + rem
    right = val[:, 1:] + np.maximum(-d1[:, 1:], 0.0) * w + rem
    # a little slack for the rounding of the sums above (all terms are O(1) and exact to ~1e-15 each)
    return np.clip(np.minimum(left, right).max(axis=1) * (1 + 1e-9) + 1e-14, 0.0, 1.0)


def level_of(c: np.ndarray, m: Any, *, proven: bool = True) -> np.ndarray | float:
    """Upper bound on G(m) = sup over the null of P(max_t z - c_t >= m within the budget): proven (Theorem 3)
    by default; ``proven=False`` gives the largest value on a fixed grid (a lower bound on G, for searching)."""
    ms = np.atleast_1d(np.asarray(m, dtype=float))
    out = np.ones(ms.size)
    fin = np.isfinite(ms)
    if fin.any():
        h = _bernstein(_crossing_fractions(c, ms[fin]))
        out[fin] = sup_bound(h) if proven else grid_sup(h)
    out[ms == np.inf] = 0.0
    return float(out[0]) if np.ndim(m) == 0 else out


# --------------------------------------------------------------------------------------------------
# the design
# --------------------------------------------------------------------------------------------------

def _spending_boundary(n_max: int, level: float, rho: float = 1.0) -> np.ndarray:
    """c_t: spending of `level` as (t / n_max)^rho at the control rates (a design heuristic; the level is
    computed after)."""
    ctrl = np.asarray(CONTROL_RATES)
    k = ctrl.size
    u = np.ones((k, 1, 1))
    spent = np.zeros(k)
    c = np.full(n_max + 1, np.inf)
    for t in range(1, n_max + 1):
        u = _advance(u, ctrl, ctrl)
        z = _grid_z(t)
        budget = level * (t / n_max) ** rho
        vals = z.ravel()
        order = np.argsort(-vals, kind="stable")
        vs = vals[order]
        ends = np.r_[np.flatnonzero(np.diff(vs) != 0), vs.size - 1]
        cum = np.cumsum(u.reshape(k, -1)[:, order], axis=1)[:, ends] + spent[:, None]
        ok = np.flatnonzero((cum <= budget * (1 + 1e-12)).all(axis=0) & (vs[ends] > 0))
        if ok.size:
            c[t] = float(vs[ends[ok[-1]]])
            cross = z >= c[t] - _TOL * (1.0 + abs(c[t]))
            spent += u[:, cross].sum(axis=1)
            u = np.where(cross[None], 0.0, u)
    return c


def spending_exponent(n_max: int) -> float:
    """rho of the spending (t / n_max)^rho: 1.3 up to n_max = 50 (power is scarce there: spend later), 1.1 from 200
    on (close to STEP's linear budget: decide early, keep power on the hardest pairs), linear in log n_max between
    (this project's choice, from the exact power and rollouts of benchmarks/studies/independent_arms_vs_step.py)."""
    x = min(max(math.log(n_max / 50.0) / math.log(4.0), 0.0), 1.0)
    return 1.3 - 0.2 * x


class BarnardDesign:
    """Everything fixed before data for one independent-arms comparison (module docstring).

    Same reading interface as `budget.BudgetDesign` for the streaming tests: `stats`, `threshold`, `pvalue_of`,
    `level_of`, `reachable`, `name`, `config`, `pvalue_grid`.

    The boundary spends 99 % of the side level at the control rates; the proven level G(0) is then checked and the
    spending lowered (by 2 % a time) until G(0) <= side level, so the decision at the design level is exactly
    "T >= 0" (between control rates the crossing probability may exceed the control rates' by a little: the check
    is what makes the design valid, the spending only shapes it)."""

    statistic = "barnard"
    arms = "independent"
    a = None

    def __init__(self, n_max: int, *, alpha: float = 0.05, ties: str = "allow") -> None:
        from .._validate import check_alpha, check_positive_int
        from ._core import check_ties

        self.n_max = check_positive_int("n_max", n_max)
        if self.n_max > MAX_BUDGET:
            raise ParameterError(f"the Barnard-type test is built for n_max <= {MAX_BUDGET}, got {self.n_max}")
        self.alpha = check_alpha(alpha)
        self.ties = check_ties(ties)
        self.side_level = self.alpha / 2.0 if self.ties == "allow" else self.alpha
        self.rho = spending_exponent(self.n_max)
        self._cache: dict[float, float] = {}
        self._thresholds: dict[float, float] = {}
        kappa = 0.99
        for _ in range(12):
            self.c = _spending_boundary(self.n_max, self.side_level * kappa, self.rho)
            g0 = float(level_of(self.c, 0.0))
            if g0 <= self.side_level:
                self._cache[0.0] = g0
                self._thresholds[self.side_level] = 0.0
                break
            kappa *= 0.98
        self.kappa = kappa

    @property
    def name(self) -> str:
        return f"exact budget test (independent arms, n_max = {self.n_max}, Barnard-type: both success counts)"

    def config(self) -> dict[str, Any]:
        return {"n_max": self.n_max, "alpha": self.alpha, "arms": self.arms, "ties": self.ties,
                "statistic": self.statistic}

    def stat(self, t: Any, a: Any, b: Any) -> np.ndarray:
        """T(t, a, b) = z(t, a, b) - c_t (-inf where step t may not reject)."""
        t = np.asarray(t, dtype=np.int64)
        c = self.c[np.clip(t, 0, self.n_max)]
        fin = np.isfinite(c)
        with np.errstate(invalid="ignore"):
            out = z_statistic(t, a, b) - np.where(fin, c, 0.0)
        return np.where(fin, out, -np.inf)

    #: the running maximum R before any data (no step may reject at t = 0)
    r0 = -math.inf
    #: the counts this design's statistic reads besides the step t (both arms' successes)
    state = ("a", "b")

    def stats(self, t: Any, a: Any, b: Any, k: Any = None, s: Any = None) -> np.ndarray:
        """(..., 2): T for the `less` side and the `more` side at the given states."""
        return np.stack([self.stat(t, a, b), self.stat(t, b, a)], axis=-1)

    def reachable(self, t: Any, a: Any, b: Any, k: Any = None, s: Any = None) -> np.ndarray:
        """(..., 2): the largest T any continuation within the budget reaches, per side. T rises in the own
        arm's successes and falls in the other's, so the all-win continuation dominates every other one; its
        maximum over the remaining steps is taken (c_t is not monotone)."""
        t = np.atleast_1d(np.asarray(t, dtype=np.int64))
        a = np.atleast_1d(np.asarray(a, dtype=np.int64))
        b = np.atleast_1d(np.asarray(b, dtype=np.int64))
        out = np.full(t.shape + (2,), -np.inf)
        for r in range(1, int(max(self.n_max - t.min(), 0)) + 1):
            ok = t + r <= self.n_max
            if not ok.any():
                break
            tt = np.minimum(t + r, self.n_max)
            out[..., 0] = np.where(ok, np.maximum(out[..., 0], self.stat(tt, a, b + r)), out[..., 0])
            out[..., 1] = np.where(ok, np.maximum(out[..., 1], self.stat(tt, b, a + r)), out[..., 1])
        return out

    def level_of(self, m: Any, **kw: Any) -> np.ndarray | float:
        return level_of(self.c, m, **kw)

    def pvalue_of(self, m: float) -> float:
        """Proven G(m) (1 for m = -inf), cached by m."""
        m = float(m)
        if m == -math.inf:
            return 1.0
        if m not in self._cache:
            self._cache[m] = min(1.0, float(self.level_of(m)))
        return self._cache[m]

    def threshold(self, level: float) -> float:
        """Least m (to 1e-5) with proven G(m) <= level: crossing it is exactly p <= level (0 at the design
        level)."""
        level = float(level)
        if level not in self._thresholds:
            self._thresholds[level] = _threshold(self, level)
        return self._thresholds[level]

    @functools.cached_property
    def _grid(self) -> tuple[np.ndarray, np.ndarray]:
        m = np.round(np.arange(GRID_LOW, GRID_HIGH + GRID_STEP / 2, GRID_STEP), 10)
        g = np.asarray(level_of(self.c, m))
        g[m == 0.0] = self.pvalue_of(0.0)
        return np.concatenate([[-np.inf], m]), np.minimum.accumulate(np.concatenate([[1.0], np.minimum(g, 1.0)]))

    def pvalue_grid(self) -> tuple[np.ndarray, np.ndarray]:
        """(m, proven G(m)) on m = -inf, GRID_LOW, ..., GRID_HIGH (step GRID_STEP), for banks of streams that read
        p conservatively at the largest grid point <= R (`budget_streams`)."""
        return self._grid


#: the p-value grid of `BarnardDesign.pvalue_grid`, in units of z (about a standard error): 0 is the design level
GRID_LOW, GRID_HIGH, GRID_STEP = -0.6, 3.6, 0.15


def _threshold(des: BarnardDesign, level: float) -> float:
    # search on the cheap grid value (a lower bound on G), then step up until the proven bound agrees
    def search(lo: float, hi: float, proven: bool) -> float:
        while hi - lo > 1e-5:
            grid = np.linspace(lo, hi, 10)[1:-1]
            ok = np.asarray(level_of(des.c, grid, proven=proven)) <= level
            first = int(np.argmax(ok)) if ok.any() else grid.size
            if first < grid.size:
                hi = float(grid[first])
            lo = float(grid[first - 1]) if first > 0 else lo
        return hi

    lo, hi = -1.0, 1.0
    while float(level_of(des.c, lo, proven=False)) <= level and lo > -40:
        lo -= 2.0
    while float(level_of(des.c, hi, proven=False)) > level:
        hi += 2.0
        if hi > 80:
            return math.inf
    m = search(lo, hi, False)
    if float(level_of(des.c, m)) <= level:
        return m
    step = 1e-3
    while float(level_of(des.c, m + step)) > level:
        step *= 4.0
    return search(m, m + step, True)


@functools.lru_cache(maxsize=16)
def barnard_design(n_max: int, alpha: float = 0.05, ties: str = "allow") -> BarnardDesign:
    """Cached `BarnardDesign` (the design and its thresholds are the costly part)."""
    return BarnardDesign(n_max, alpha=alpha, ties=ties)


def operating_characteristics(des: BarnardDesign, p0: float, p1: float, m: float | None = None) -> dict[str, float]:
    """Exact law of the mirrored decision at threshold m (default: the design's level) when X ~ Bernoulli(p0)
    and Y ~ Bernoulli(p1) independently: ``power`` (P(decide "x<y")), ``wrong`` (P(decide "x>y")) and
    ``rollouts`` (E[steps to the decision], undecided runs counted at the budget)."""
    m = des.threshold(des.side_level) if m is None else float(m)
    u = np.ones((1, 1))
    pa, pb = np.array(float(p0)), np.array(float(p1))
    alive = 1.0
    total = 0.0
    right = wrong = 0.0
    for t in range(1, des.n_max + 1):
        total += alive
        u = _advance(u, pa, pb)
        if math.isfinite(des.c[t]):
            z = _grid_z(t) - des.c[t]
            thr = m - _TOL * (1.0 + abs(m))
            less = z >= thr
            more = z.T >= thr
            right += float(u[less].sum())
            wrong += float(u[more & ~less].sum())
            u = np.where(less | more, 0.0, u)
        alive = float(u.sum())
    return {"power": right, "wrong": wrong, "rollouts": total}
