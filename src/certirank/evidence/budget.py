"""Budget-aware exact test for binary paired comparisons (spec 08).

When the number of trials a comparison may ever use is known in advance (a budget ``n_max``), Ville's
inequality is loose: the exact probability that a statistic of the discordant pairs ever crosses a level
*within the budget* can be computed by dynamic programming, and the resulting p-process is valid at every
stopping time up to the budget (spec 08 §3).

Statistic. For k discordant pairs of which s were won by the challenger (y = 1, x = 0),

    T(k, s) = 2^k * integral_{1/2}^{1} q^s (1 - q)^(k - s) pi_a(q) dq,

the one-sided Beta(a, a)-mixture likelihood ratio against q = 1/2 (pi_a = Beta(a, a) restricted to
[1/2, 1] and renormalised). It is strictly increasing in s, and T(k + 1, s + 1) >= T(k, s) >= T(k + 1, s)
(each posterior puts all its mass on q >= 1/2), the two monotonicity facts the proofs below use. The
concentration ``a`` is fixed before any data from (budget, level, arms): the value that maximises the exact
power at a reference alternative (see `tune_concentration`).

Levels.
- ``arms="paired"`` (default): G(m) = P_{q=1/2}(max_{k <= N} T(k, S_k) >= m) with N = n_max: every trial
  may be discordant under a tie, whatever the correlation of the two policies' outcomes.
- ``arms="independent"``: the two policies' rollouts are independent and paired only by order. With
  n = n_max trials, the number K of discordant pairs is Binomial(n, r), r = P(D != 0), independent of the
  (fair-coin) order of the wins under a tie, so G_ind(m) = sum_k f_m(k) P(K >= k) with f_m the first-passage
  distribution. Worst case over the whole one-sided null p1 <= p0: the crossing probability is
  non-decreasing in D = y - x in the usual stochastic order (replacing a loss by a concordant pair, or a
  concordant pair by a win, can only raise every later T by the monotonicity above), and for fixed p0,
  P(D = 1) = p1 (1 - p0) rises and P(D = -1) = p0 (1 - p1) falls with p1, so the supremum over p1 <= p0 is
  at the tie p1 = p0 = p; there K ~ Binomial(n, 2p(1 - p)) and P(K >= k) is largest at p = 1/2.

p-process p_k = G(R_k), R_k = max_{i <= k} T(i, S_i): P(exists k <= budget: p_k <= a) <= a for every a
at once (spec 08 §3, Claim). Mirrored use and the tie modes follow spec 01 §4.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from .._validate import check_alpha, check_choice, check_positive_int
from ..errors import DataError, ParameterError
from ._core import require_binary
from ._tails import binom_sf, log_statistic, log_upper_tail, norm_isf
from ._walk import TABLE_MAX, TOL, discordance_weights, first_passage, level_of_table, mixture_table, reaches

__all__ = ["ARMS", "STATISTICS", "log_statistic", "log_upper_tail", "crossing_boundary", "level_of", "threshold",
           "tune_concentration", "BudgetDesign", "design", "make_design", "budget_batch", "MAX_BUDGET"]

ARMS = ("paired", "independent")
#: the statistic thresholded: ``mixture`` = the Beta(a, a)-mixture likelihood ratio (spec 08 §3's example; most
#: power at the budget once its concentration is tuned); ``bayes`` = the fastest-decision statistic for the
#: same Beta(a, a) prior (`budget_bayes`: fewest expected trials to a decision within the budget)
#: ``barnard`` (independent arms only) = the Barnard-type statistic of both success counts (`barnard`): the default
#: for independent arms up to `barnard.MAX_BUDGET`
STATISTICS = ("mixture", "bayes", "barnard")
#: largest supported budget: the level computations are O(n_max^2)
MAX_BUDGET = 20000
#: largest budget the fastest-decision statistic is tabulated for (its table is built whole)
BAYES_MAX_BUDGET = TABLE_MAX
#: the paired test's default statistic (issue 31 item 4): the fastest-decision statistic for a Beta(a, a) prior, with
#: a chosen at each budget as the fewest expected trials to a decision averaged over 20 paired scenarios (five
#: Bernoulli pairs, outcome correlation 0 to 0.6) whose power at the budget is at least the power-tuned mixture's
#: - 0.005 averaged over them and - 0.06 on each (exact DP: `benchmarks/studies/paired_arms_statistic_per_budget.py`;
#: mean trials 39.7/61.0/80.4/120.2/114.6 vs the mixture's 42.3/70.5/96.7/145.3/188.4 at 50/100/200/500/1000). A budget
#: takes the row at or below it (None: the mixture); below the first row the mixture stays (at 10 discordant pairs or fewer the
#: fastest-decision table cannot reach a one-sided level of 0.025 at all); fixed before data from the budget alone.
PAIRED_PRIORS: tuple[tuple[int, float | None], ...] = ((50, 4.0), (100, 4.0), (200, 2.0), (500, 16.0), (1000, 1.0))


def default_statistic(n_max: int, arms: str, statistic: str | None = None,
                      concentration: float | None = None) -> tuple[str, float | None]:
    """(statistic, concentration) of one comparison's exact budget test: what the caller gave, else the default for
    the budget and arms. Every exact per-comparison test asks this one rule (`make_design` for `compare`/`check`,
    AnyRank's setup for `rank`): independent arms run the Barnard-type test up to its largest
    budget, paired arms `paired_default`; a concentration given alone keeps the mixture."""
    from .barnard import MAX_BUDGET as BARNARD_MAX

    if statistic is None and concentration is None and arms == "paired":
        return paired_default(n_max)
    if statistic is None:
        statistic = "barnard" if arms == "independent" and n_max <= BARNARD_MAX and concentration is None else "mixture"
    return statistic, concentration


def paired_default(n_max: int) -> tuple[str, float | None]:
    """(statistic, concentration) of the paired exact budget test when the caller chose neither: the fastest-decision
    statistic from the first budget of `PAIRED_PRIORS` up to `BAYES_MAX_BUDGET`, else the power-tuned mixture."""
    if n_max > BAYES_MAX_BUDGET or n_max < PAIRED_PRIORS[0][0]:
        return "mixture", None
    prior = PAIRED_PRIORS[0][1]
    for budget, a in PAIRED_PRIORS:
        if n_max >= budget:
            prior = a
    return ("mixture", None) if prior is None else ("bayes", prior)
#: candidate concentrations for the tuning search (Beta(a, a) prior on q)
_A_GRID = tuple(float(v) for v in np.round(2.0 ** (np.arange(-2, 25) / 2.0), 3))  # 0.5 .. 4096, ratio sqrt 2


def check_arms(arms: Any) -> str:
    return check_choice("arms", arms, ARMS)


def check_statistic(statistic: Any) -> str:
    return check_choice("statistic", statistic, STATISTICS)


def _check_bayes_budget(n: int) -> None:
    if n > BAYES_MAX_BUDGET:
        raise ParameterError(f"statistic='bayes' is tabulated up to n_max = {BAYES_MAX_BUDGET}, got {n}; use "
                             "statistic='mixture' for longer budgets")


def _table(n: int, a: float, statistic: str = "mixture", arms: str = "paired") -> np.ndarray | None:
    """log T(k, s) for 0 <= s <= k <= n as an (n + 1, n + 1) array padded with +inf (None if too large)."""
    if statistic == "bayes":
        _check_bayes_budget(n)
        from .budget_bayes import bayes_table

        return bayes_table(n, float(a), arms)
    return mixture_table(n, a)


def crossing_boundary(m: Any, n: int, a: float, statistic: str = "mixture", arms: str = "paired") -> np.ndarray:
    """b[..., k] = least s with T(k, s) reaching m (k + 1 if none), k = 0..n; m scalar or 1-D (one row each)."""
    ms = np.atleast_1d(np.asarray(m, dtype=float))
    tab = _table(n, a, statistic, arms)
    if tab is not None:
        out = np.stack([(~reaches(tab, mi)).sum(axis=1) for mi in ms])
    else:
        out = np.stack([_bisect_boundary(mi, n, a) for mi in ms])
    return out[0] if np.ndim(m) == 0 else out


def _bisect_boundary(m: float, n: int, a: float) -> np.ndarray:
    # too large for a table: vectorised bisection on s (T is increasing in s)
    k = np.arange(n + 1, dtype=np.int64)
    lo = np.zeros(n + 1, dtype=np.int64)        # invariant: answer in [lo, hi]
    hi = k + 1
    while True:
        active = lo < hi
        if not active.any():
            return lo
        mid = (lo + hi) // 2
        ok = np.zeros(n + 1, dtype=bool)
        ia = np.flatnonzero(active)
        ok[ia] = reaches(log_statistic(k[ia], mid[ia], a), m)
        hi = np.where(active & ok, mid, hi)
        lo = np.where(active & ~ok, mid + 1, lo)


def level_of(m: Any, n: int, a: float, arms: str = "paired", statistic: str = "mixture") -> Any:
    """G(m): worst-case null probability that max_{k <= budget} T(k, S_k) reaches m (spec 08 §3 / §3b).

    `m` scalar (returns a float) or 1-D (returns an array, one DP pass for all).
    """
    ms = np.atleast_1d(np.asarray(m, dtype=float))
    out = np.ones(ms.size)
    live = ms > TOL  # T(0, 0) = 1 = e^0 is reached at the start
    if live.any():
        f = first_passage(crossing_boundary(ms[live], n, a, statistic, arms))
        out[live] = np.minimum(1.0, f @ discordance_weights(n, arms))
    return float(out[0]) if np.ndim(m) == 0 else out


_SECTIONS = 16


@functools.lru_cache(maxsize=64)
def threshold(level: float, n: int, a: float, arms: str = "paired", statistic: str = "mixture") -> float:
    """Least reachable log-statistic value m with G(m) <= level (G only changes at reachable values).

    Multisection (16 thresholds per dynamic-programming pass) over the sorted values of the table, or
    over the real line to ~1e-10 nats when n is too large for a table.
    """
    tab = _table(n, a, statistic, arms)
    if tab is not None:
        vals = np.unique(tab[np.isfinite(tab) & (tab > TOL)])
        lo, hi = -1, vals.size  # invariant: G(vals[lo]) > level (or lo = -1), answer index in (lo, hi]
        while hi - lo > 1:
            idx = np.unique(np.linspace(lo + 1, hi - 1, min(_SECTIONS, hi - lo - 1)).round().astype(int))
            g = level_of(vals[idx], n, a, arms, statistic)
            ok = g <= level
            if ok.any():
                first = int(np.argmax(ok))
                hi = int(idx[first])
                lo = int(idx[first - 1]) if first > 0 else lo
            else:
                lo = int(idx[-1])
        if hi == vals.size:
            return math.inf  # the level cannot be reached within the budget
        return float(vals[hi])
    lo_m, hi_m = 0.0, max(1.0, math.log(1.0 / level) + 1.0)
    while level_of(hi_m, n, a, arms) > level:
        hi_m *= 2.0
    while hi_m - lo_m > 1e-10 * max(1.0, hi_m):
        grid = np.linspace(lo_m, hi_m, _SECTIONS + 2)[1:-1]
        ok = level_of(grid, n, a, arms) <= level
        first = int(np.argmax(ok)) if ok.any() else grid.size
        hi_m = float(grid[first]) if first < grid.size else hi_m
        lo_m = float(grid[first - 1]) if first > 0 else lo_m
    return hi_m


def _power(m: float, n: int, a: float, q: float, r: float) -> float:
    """P(reach m within n trials) when wins ~ Bernoulli(q) and discordant pairs ~ Binomial(n, r)."""
    if not math.isfinite(m):
        return 0.0
    f = first_passage(crossing_boundary(m, n, a), q)
    return float(f @ binom_sf(np.arange(n + 1) - 1, n, r))


def reference_alternative(n: int, level: float) -> float:
    """The win probability q at which a fixed-sample one-sided binomial test on n/2 discordant pairs has
    power 1/2 at `level`: the alternative the concentration is tuned for (this project's choice)."""
    z = norm_isf(level)
    return min(0.95, 0.5 + z / (2.0 * math.sqrt(max(n / 2.0, 1.0))))


@functools.lru_cache(maxsize=64)
def tune_concentration(n: int, level: float, arms: str = "paired") -> float:
    """The Beta(a, a) concentration, from a fixed grid (0.5 .. 4096, ratio sqrt 2), maximising the exact
    power at the reference alternative q_ref (`reference_alternative`) with discordant pairs ~
    Binomial(n, 1/2). Golden-section search over the grid index (power is unimodal in log a in every case
    we tabulated); depends on (n, level, arms) only, never on data.
    """
    q = reference_alternative(n, level)
    memo: dict[int, float] = {}

    def pw(i: int) -> float:
        if i not in memo:
            a = _A_GRID[i]
            memo[i] = _power(threshold(level, n, a, arms), n, a, q, 0.5)
        return memo[i]

    lo, hi = 0, len(_A_GRID) - 1
    while hi - lo > 2:
        m1 = lo + (hi - lo) // 3
        m2 = hi - (hi - lo) // 3
        if pw(m1) >= pw(m2):
            hi = m2
        else:
            lo = m1
    best = max(range(lo, hi + 1), key=lambda i: (pw(i), -i))
    return _A_GRID[best]


#: spacing of the threshold grid in nats of log T (p overstated by at most a factor exp(GRID_STEP))
GRID_STEP = 0.02
#: smallest p-value the grid resolves (well below any level a K <= 4950-pair AnyRank graph assigns)
GRID_FLOOR = 1e-10


@functools.lru_cache(maxsize=16)
def pvalue_grid(n_max: int, a: float, arms: str, step: float = GRID_STEP,
                floor: float = GRID_FLOOR, statistic: str = "mixture") -> tuple[np.ndarray, np.ndarray]:
    """(m, G(m)) on the grid m = 0, step, 2 step, ... up to the first m with G(m) <= floor."""
    hi = max(1.0, math.log(1.0 / floor))
    while level_of(hi, n_max, a, arms, statistic) > floor:
        hi *= 1.5
    m = np.arange(0.0, hi + step, step)
    g = np.ones(m.size)
    g[1:] = level_of(m[1:], n_max, a, arms, statistic)
    # the DP is exact up to rounding; enforce the monotonicity the proof uses against last-bit noise
    g = np.minimum.accumulate(np.minimum(g, 1.0))
    last = int(np.argmax(g <= floor)) if (g <= floor).any() else g.size - 1
    return m[:last + 1], g[:last + 1]


class BudgetDesign:
    """Everything fixed before data for one comparison: budget, arms, tie mode, level and concentration."""

    def __init__(self, n_max: int, *, alpha: float = 0.05, arms: str = "paired", ties: str = "allow",
                 concentration: float | None = None, statistic: str = "mixture") -> None:
        from ._core import check_ties

        self.n_max = check_positive_int("n_max", n_max)
        if self.n_max > MAX_BUDGET:
            raise ParameterError(f"n_max = {self.n_max} is above the exact test's limit {MAX_BUDGET}; "
                                 "compare without n_max (anytime e-process) for longer streams")
        self.alpha = check_alpha(alpha)
        self.arms = check_arms(arms)
        self.ties = check_ties(ties)
        self.statistic = check_statistic(statistic)
        if self.statistic == "barnard":
            raise ParameterError("statistic='barnard' is the independent-arms test of both success counts: build it "
                                 "with make_design(n_max, arms='independent')")
        if self.statistic == "bayes":
            _check_bayes_budget(self.n_max)
            if concentration is None:  # the tuning below is the mixture's (power at the budget)
                raise ParameterError("statistic='bayes' needs the prior's concentration (a Beta(a, a) prior)")
        # each direction is tested at alpha / 2 under `allow` (spec 01 §4); tune for that level
        self.side_level = self.alpha / 2.0 if self.ties == "allow" else self.alpha
        if concentration is None:
            concentration = tune_concentration(self.n_max, self.side_level, self.arms)
        try:
            concentration = float(concentration)
        except (TypeError, ValueError):
            raise ParameterError(f"concentration must be a positive number, got {concentration!r}") from None
        if not (concentration > 0.0 and math.isfinite(concentration)):
            raise ParameterError(f"concentration must be a positive number, got {concentration!r}")
        self.a = concentration
        self._cache: dict[float, float] = {}

    @property
    def name(self) -> str:
        stat = (f"Beta({self.a:g},{self.a:g}) mixture" if self.statistic == "mixture" else
                f"fastest-decision boundaries for a Beta({self.a:g},{self.a:g}) prior")
        return f"exact budget test ({self.arms} arms, n_max = {self.n_max}, {stat})"

    def config(self) -> dict[str, Any]:
        return {"n_max": self.n_max, "alpha": self.alpha, "arms": self.arms, "ties": self.ties,
                "concentration": self.a, "statistic": self.statistic}

    def log_t(self, k: Any, s: Any) -> np.ndarray:
        """log T(k, s); read from the cached table when there is one (the same numbers, faster)."""
        tab = _table(self.n_max, self.a, self.statistic, self.arms)
        k = np.asarray(k)
        if tab is not None and k.size and k.dtype.kind in "iu" and int(k.max()) <= self.n_max:
            return tab[k, np.asarray(s)]
        return log_statistic(k, s, self.a)

    def pvalue_of(self, m: float) -> float:
        """G(m), cached by m (the observed running maxima repeat often)."""
        if m not in self._cache:
            self._cache[m] = level_of(m, self.n_max, self.a, self.arms, self.statistic)
        return self._cache[m]

    def threshold(self, level: float) -> float:
        return threshold(float(level), self.n_max, self.a, self.arms, self.statistic)

    #: the running maximum R before any data: T(0, 0) = 1
    r0 = 0.0
    #: the counts this design's statistic reads besides the step t (the discordant pairs and the challenger's wins)
    state = ("k", "s")

    def stats(self, t: Any, a: Any, b: Any, k: Any, s: Any) -> np.ndarray:
        """(..., 2): log T for the `less` side (wins s of k) and the `more` side (k - s of k)."""
        return np.stack([self.log_t(k, s), self.log_t(k, np.asarray(k) - np.asarray(s))], axis=-1)

    def reachable(self, t: Any, a: Any, b: Any, k: Any, s: Any) -> np.ndarray:
        """(..., 2): log T at the end of the all-win continuation, the largest any continuation reaches within the
        budget (T(k + 1, s + 1) >= T(k, s) >= T(k + 1, s)); the caller takes the max with R."""
        r = np.maximum(self.n_max - np.asarray(t), 0)
        kk = np.asarray(k) + r
        return np.stack([self.log_t(kk, np.asarray(s) + r), self.log_t(kk, np.asarray(k) - np.asarray(s) + r)], axis=-1)

    def pvalue_grid(self) -> tuple[np.ndarray, np.ndarray]:
        return pvalue_grid(self.n_max, self.a, self.arms, statistic=self.statistic)


def make_design(n_max: int, *, alpha: float = 0.05, arms: str = "paired", ties: str = "allow",
                concentration: float | None = None, statistic: str | None = None) -> Any:
    """The design of one comparison: `BudgetDesign` (discordant pairs) or `barnard.BarnardDesign` (independent
    arms, both success counts: the default for independent arms up to `barnard.MAX_BUDGET`, statistic None).

    With neither `statistic` nor `concentration` given, paired arms get the time-optimised default of
    `paired_default` (the fastest-decision statistic, its prior chosen per budget)."""
    from . import barnard

    n_max = check_positive_int("n_max", n_max)
    arms = check_arms(arms)
    statistic, concentration = default_statistic(n_max, arms, statistic, concentration)
    statistic = check_statistic(statistic)
    if statistic == "barnard":
        if arms != "independent":
            raise ParameterError("statistic='barnard' uses both success counts of independent arms; with "
                                 "arms='paired' use 'mixture' or 'bayes' (they are valid for any correlation)")
        if n_max > barnard.MAX_BUDGET:
            raise ParameterError(f"statistic='barnard' is built for n_max <= {barnard.MAX_BUDGET}, got {n_max}; "
                                 "use statistic='mixture' for longer budgets")
        return barnard.barnard_design(n_max, check_alpha(alpha), _ties(ties))
    if concentration is None and statistic == "mixture":
        return design(n_max, check_alpha(alpha), arms, _ties(ties))
    return BudgetDesign(n_max, alpha=alpha, arms=arms, ties=ties, concentration=concentration, statistic=statistic)


@functools.lru_cache(maxsize=32)
def design(n_max: int, alpha: float = 0.05, arms: str = "paired", ties: str = "allow") -> BudgetDesign:
    """Cached `BudgetDesign` for the given settings (the tuning is the costly part)."""
    return BudgetDesign(n_max, alpha=alpha, arms=arms, ties=ties)


def check_binary(v: np.ndarray, name: str) -> None:
    require_binary(v, name, "the exact budget test", "for partial-progress scores compare without n_max")


def check_final_share(final_share: Any, des: Any, extendable: bool = False) -> float:
    """The share of the side level kept for the fixed-size exact test at the budget (`final_pvalues`)."""
    try:
        f = float(final_share)
    except (TypeError, ValueError):
        raise ParameterError(f"final_share must be a number in [0, 1), got {final_share!r}") from None
    if not 0.0 <= f < 1.0:
        raise ParameterError(f"final_share must be in [0, 1), got {final_share!r}")
    if f > 0 and getattr(des, "statistic", "") == "barnard":
        raise ParameterError("final_share adds McNemar's exact test of the discordant pairs at the budget; the "
                             "Barnard-type test (independent arms) does not take it: pass statistic='mixture'")
    if f > 0 and extendable:
        raise ParameterError("final_share and extendable cannot be combined (the final test ends at the budget)")
    return f


def final_pvalues(k: Any, s: Any) -> np.ndarray:
    """(..., 2): McNemar's exact one-sided p-values at the budget, P(Bin(k, 1/2) >= s) for `less` (the challenger
    won s of k discordant pairs) and P(Bin(k, 1/2) >= k - s) for `more`.

    Used with ``final_share = f`` (issue 31 item 7): per side p_t = min(1, p_seq,t / (1 - f), p_final / f), with
    p_final = 1 before the budget and McNemar's p at it. Both parts are valid (p_seq at every stop up to the budget,
    spec 08 §3; McNemar's conditionally on the discordant count, whatever the within-pair correlation, and
    stochastically smaller for q < 1/2), so by the union bound P(exists t <= budget: p_t <= a) <= (1 - f) a + f a = a.
    For tables read whole (LLM items) f near 1 makes the final decision nearly McNemar's at the full level while
    peeking before the end stays valid."""
    k = np.asarray(k)
    s = np.asarray(s)
    return np.stack([binom_sf(s - 1, k, 0.5), binom_sf(k - s - 1, k, 0.5)], axis=-1)


def _counts(x: np.ndarray, y: np.ndarray) -> dict[str, np.ndarray]:
    """Running state of binary trials (runs, T): steps t, successes a (x) and b (y), discordant pairs k, wins s."""
    win = (y > x).astype(np.int64)
    t = np.broadcast_to(np.arange(1, x.shape[1] + 1), x.shape)
    return {"t": t, "a": np.cumsum(x.astype(np.int64), axis=1), "b": np.cumsum(y.astype(np.int64), axis=1),
            "k": np.cumsum(win + (x > y), axis=1), "s": np.cumsum(win, axis=1)}


def budget_batch(x: np.ndarray, y: np.ndarray, des: Any, *, extendable: bool = False,
                 weight: float = 0.9, bettor: str = "adaptive", final_share: float = 0.0) -> dict[str, np.ndarray]:
    """Many runs at once: x, y binary arrays (runs, T) with T <= n_max (any T if `extendable`); `des` a
    `BudgetDesign` or a `barnard.BarnardDesign` (`make_design`).

    Returns ``decision`` (+1 "x<y", -1 "x>y", 0), ``decided_at`` (1-based trial index, 0 = never) at level
    ``des.alpha`` under its tie mode, and the final running maxima ``log_r`` (runs, 2) (less, more)
    of the exact statistic. Same decisions as `BudgetTest` fed each row. ``final_share``: see `final_pvalues`.
    """
    f = check_final_share(final_share, des, extendable)
    if extendable:
        return _extendable_batch(x, y, des, weight, bettor)
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 2:
        raise DataError(f"x and y must be arrays of the same shape (runs, time), got {x.shape} and {y.shape}")
    if x.shape[1] > des.n_max:
        raise DataError(f"{x.shape[1]} trials exceed the budget n_max = {des.n_max}")
    check_binary(x, "x")
    check_binary(y, "y")
    cnt = _counts(x, y)
    st = des.stats(**cnt)  # (runs, T, 2)
    m = des.threshold((1.0 - f) * des.side_level)
    hit = reaches(st, m)
    if f > 0 and x.shape[1] == des.n_max:
        hit[:, -1] |= final_pvalues(cnt["k"][:, -1], cnt["s"][:, -1]) <= f * des.side_level
    any_hit = hit.any(axis=1)
    first = np.where(any_hit, hit.argmax(axis=1), x.shape[1])
    # direction of the first crossing; both sides cannot cross at the same trial (that needs s and k - s
    # both far above k / 2, or b and a both far above each other)
    t_less, t_more = first[:, 0], first[:, 1]
    decision = np.where(t_less < t_more, 1, np.where(t_more < t_less, -1, 0))
    decision = np.where(any_hit.any(axis=1), decision, 0)
    decided_at = np.where(decision != 0, np.minimum(t_less, t_more) + 1, 0)
    log_r = np.maximum(st.max(axis=1), des.r0) if st.shape[1] else np.full((x.shape[0], 2), des.r0)
    return {"decision": decision, "decided_at": decided_at, "log_r": log_r}


def _extendable_batch(x: np.ndarray, y: np.ndarray, des: Any, weight: float,
                      bettor: str) -> dict[str, np.ndarray]:
    from .streams import PairedStreams

    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    check_binary(x, "x")
    check_binary(y, "y")
    runs, horizon = x.shape
    n = min(horizon, des.n_max)
    # one side is rejected when p_exact / w <= level or p_ville / (1 - w) <= level (level = side level)
    m = des.threshold(weight * des.side_level)
    exact_hit = np.zeros((runs, horizon, 2), dtype=bool)
    exact_hit[:, :n] = reaches(des.stats(**_counts(x[:, :n], y[:, :n])), m)
    exact_hit = np.maximum.accumulate(exact_hit, axis=1)
    streams = PairedStreams(runs, bettor=bettor, ties=des.ties, bins="binary")
    ville_log = -math.log((1.0 - weight) * des.side_level)
    ville_hit = np.zeros((runs, horizon, 2), dtype=bool)
    for t in range(horizon):
        streams.update(None, x[:, t], y[:, t])
        ville_hit[:, t] = streams.engine.state["log_wealth_max"] >= ville_log - TOL * ville_log
    hit = exact_hit | ville_hit
    first = np.where(hit.any(axis=1), hit.argmax(axis=1), horizon)
    decision = np.where(first[:, 0] < first[:, 1], 1, np.where(first[:, 1] < first[:, 0], -1, 0))
    decided_at = np.where(decision != 0, first.min(axis=1) + 1, 0)
    return {"decision": decision, "decided_at": decided_at}


class BudgetTest:
    """Streaming mirrored exact budget test (spec 08) on binary paired trials.

    Parameters
    ----------
    n_max : int
        Trial budget of this comparison, fixed before data.
    alpha, ties, arms
        Level, tie mode (spec 01 §4) and arms (``paired``: valid for any within-pair correlation;
        ``independent``: rollouts of the two policies independent, paired by order).
    extendable : bool
        False (``final`` budget, default): at most `n_max` trials; one more is refused.
        True: p = min(1, p_exact / w, p_ville / (1 - w)) per direction with w = `weight`, p_ville the
        spec 01 e-process (`bettor`) over the whole stream; valid for ever (spec 08 §4).
    """

    def __init__(self, n_max: int, *, alpha: float = 0.05, ties: str = "allow", arms: str = "paired",
                 extendable: bool = False, weight: float = 0.9, bettor: str = "mixture",
                 concentration: float | None = None, statistic: str | None = None,
                 final_share: float = 0.0) -> None:
        if statistic is None and concentration is None and final_share and arms == "paired":
            statistic = "mixture"  # a table read whole decides at its end: the statistic tuned for power there
        self.design = make_design(n_max, alpha=check_alpha(alpha), arms=arms, ties=ties, concentration=concentration,
                                  statistic=statistic)
        self.extendable = bool(extendable)
        self.final_share = check_final_share(final_share, self.design, self.extendable)
        self.weight = float(weight)
        if not 0.0 < self.weight < 1.0:
            raise ParameterError(f"weight must be in (0, 1), got {weight!r}")
        self._ville = None
        if self.extendable:
            from .streams import PairedStreams

            self._ville = PairedStreams(1, bettor=bettor, ties=self.design.ties, bins="binary")
        self.n = 0
        self._k = 0
        self._s = 0
        self._a = 0
        self._b = 0
        self._log_r = [self.design.r0, self.design.r0]  # running maxima of the statistic for (less, more)
        self._sign = 0
        self.decided_at: int | None = None

    @property
    def alpha(self) -> float:
        return self.design.alpha

    @property
    def ties(self) -> str:
        return self.design.ties

    @property
    def name(self) -> str:
        base = self.design.name
        if self.final_share > 0:
            return base + f" + McNemar's exact test at the budget (share {self.final_share:g} of the level)"
        return base + (f" + {self._ville.bettor} e-process (extendable, w = {self.weight:g})"
                       if self._ville is not None else " (final budget)")

    @property
    def horizon(self) -> int | None:
        """Trials up to which the guarantee holds (None = for ever)."""
        return None if self.extendable else self.design.n_max

    def update_many(self, xs: Any, ys: Any) -> "BudgetTest":
        xa = np.asarray(xs, dtype=float).ravel()
        ya = np.asarray(ys, dtype=float).ravel()
        check_binary(xa, "x")
        check_binary(ya, "y")
        if not self.extendable and self.n + xa.size > self.design.n_max:
            raise DataError(f"{self.n + xa.size} trials exceed the final budget n_max = {self.design.n_max} of "
                            "this exact test; use extendable=True (CLI --extendable) to continue past the budget")
        for x, y in zip(xa, ya):
            self._step(x, y)
        return self

    def update(self, x: Any, y: Any) -> "BudgetTest":
        return self.update_many([x], [y])

    def _step(self, x: float, y: float) -> None:
        self.n += 1
        if self._ville is not None:
            self._ville.update(0, x, y)
        live = self.n <= self.design.n_max
        if live:
            self._a += int(x)
            self._b += int(y)
        if x != y and live:
            self._k += 1
            self._s += int(y > x)
        if live and (x != y or self.design.r0 == -math.inf):
            lt = self.design.stats(self.n, self._a, self._b, self._k, self._s)
            self._log_r = [max(self._log_r[0], float(lt[0])), max(self._log_r[1], float(lt[1]))]
        if self._sign != 0:
            return
        if self.design.statistic == "barnard":
            # p <= level exactly when R reaches the level's threshold (G is non-increasing): one dynamic
            # programme per level instead of one per new running maximum
            side = self._crossed()
            if side[0] != side[1]:
                self._sign = 1 if side[0] else -1
                self.decided_at = self.n
            return
        from .streams import combine

        pl, pm = self.p_less, self.p_more
        if pl != pm and float(combine(pl, pm, self.ties)) <= self.alpha:
            self._sign = 1 if pl < pm else -1
            self.decided_at = self.n

    def _crossed(self) -> list[bool]:
        level = self.design.side_level
        m = self.design.threshold(self.weight * level if self._ville is not None else level)
        out = [bool(reaches(np.array(r), m)) for r in self._log_r]
        if self._ville is not None:
            ville = (float(self._ville.pvalue_less[0]), float(self._ville.pvalue_more[0]))
            out = [o or v <= (1.0 - self.weight) * level for o, v in zip(out, ville)]
        return out

    def _one_sided(self, side: int) -> float:
        p = self.design.pvalue_of(self._log_r[side])
        if self.final_share > 0:
            last = (float(final_pvalues(self._k, self._s)[side]) if self.n == self.design.n_max else 1.0)
            return min(1.0, p / (1.0 - self.final_share), last / self.final_share)
        if self._ville is None:
            return p
        pv = float((self._ville.pvalue_less if side == 0 else self._ville.pvalue_more)[0])
        return min(1.0, p / self.weight, pv / (1.0 - self.weight))

    @property
    def p_less(self) -> float:
        """One-sided p-process for 'x<y'."""
        return self._one_sided(0)

    @property
    def p_more(self) -> float:
        """One-sided p-process for 'x>y'."""
        return self._one_sided(1)

    @property
    def pvalue(self) -> float:
        from .streams import combine

        return float(combine(self.p_less, self.p_more, self.ties))

    @property
    def decision(self) -> str | None:
        return {1: "x<y", -1: "x>y", 0: None}[self._sign]


def _ties(ties: Any) -> str:
    from ._core import check_ties

    return check_ties(ties)
