"""`certirank.compare`: is policy Y better than policy X on paired trials, yet? (spec 00, spec 01 §4)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from .._params import validated
from ..errors import DataError, ParameterError
from .._compat import keyword_only
from ..results import ResultMixin
from ._core import BINARY_BINS, DEFAULT_BETTOR, check_scores, resolve_bins
from .equivalence import EquivalenceTest
from .forecast import FUTILITY, Side, forecast
from .sequential import DECISION_WORDS, PairedTest

__all__ = ["compare", "CompareResult"]


@dataclasses.dataclass(frozen=True)
class CompareResult(ResultMixin):
    """Outcome of a sequential paired comparison.

    Attributes
    ----------
    decision : {"x>y", "x<y", None}
        "x>y": X's mean score is certified higher; "x<y": Y's is; None: undecided.
    pvalue : float
        Anytime-valid p-value after all `n` pairs (combined over both directions per the tie mode).
    decided_at : int or None
        1-based index of the pair at which the decision was first reached (never revoked).
    n : int
        Number of pairs consumed.
    """

    RESULT_KIND = "compare"

    decision: str | None
    pvalue: float
    decided_at: int | None
    n: int
    alpha: float = 0.05
    bettor: str = "nscore"
    ties: str = "allow"
    p_less: float = 1.0
    """One-sided p-value for 'x<y'."""
    p_more: float = 1.0
    """One-sided p-value for 'x>y'."""
    test: str = ""
    """Which test produced the result (e-process and bettor, or the exact budget test and its settings)."""
    horizon: int | None = None
    """Number of trials up to which the guarantee holds; None = at every stopping time, for ever."""
    n_max: int | None = None
    arms: str = "paired"
    margin: float | None = None
    """Equivalence margin fixed before the data: |mu_y - mu_x| < margin is certified as "equivalent"."""
    equivalent_at: int | None = None
    """1-based pair at which equivalence was certified (None: not certified, or no margin)."""
    p_equivalent: float | None = None
    """min(1, 2 max(p_lower, p_upper)) of the equivalence halves (None without a margin)."""
    label_rate: float | None = None
    """Proxy-assisted test: the probability with which each unit got a real label."""
    labels: int | None = None
    """Proxy-assisted test: real labels seen (the other units count through their proxy)."""
    proxy_weight: float | None = None
    """Proxy-assisted test: the learned proxy weight theta at the end (0 = the proxy is not used)."""
    forecast: Any = None
    """For an undecided comparison: the `Forecast` (more_needed, p_decide, futile) — a forecast, not a guarantee."""

    @property
    def equivalent(self) -> bool:
        return self.equivalent_at is not None

    @property
    def verdict(self) -> str:
        """"certified" (a direction), "equivalent", "futile" (a forecast under a budget) or "undecided"."""
        if self.decision is not None:
            return "certified"
        if self.equivalent:
            return "equivalent"
        if self.forecast is not None and self.forecast.futile:
            return "futile"
        return "undecided"

    @property
    def more_needed(self) -> int | None:
        return None if self.forecast is None else self.forecast.more_needed

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "verdict": self.verdict}

    @property
    def guarantee(self) -> str:
        """The guarantee in one line."""
        where = ("at every stopping time" if self.horizon is None
                 else f"at every stopping time up to the budget of {self.horizon} trials")
        what = ("a wrong direction or a wrong equivalence" if self.margin is not None
                else "a wrong direction")
        return f"P({what} is ever declared) <= {self.alpha:g} {where} ({self.test})"

    def describe(self, x_name: str = "X", y_name: str = "Y") -> str:
        """The decision in plain words."""
        a = f"α = {self.alpha:g}"
        eq = ""
        if self.equivalent:
            eq = (f"{x_name} and {y_name} are equivalent: their means differ by less than {self.margin:g} "
                  f"(certified, {a}; after {self.equivalent_at} of {self.n} pairs)")
        if self.decision is not None:
            better, worse = (x_name, y_name) if self.decision == "x>y" else (y_name, x_name)
            head = f"{better} is better than {worse} (certified, {a}; decided after {self.decided_at} of {self.n} pairs)"
            return head + (f"; {eq}" if eq else "")
        if eq:
            return eq
        out = (f"Undecided: no certified difference between {x_name} and {y_name} after {self.n} pairs "
               f"(p = {self.pvalue:.4g}, {a})")
        if self.forecast is not None:
            out += f"; {self.forecast.describe()}"
        return out


@keyword_only(("bettor", "ties"))
@validated("compare")
def compare(x: Any, y: Any, alpha: float = 0.05, *, bettor: str | None = None, ties: str = "allow",
            bins: Any = "progress", n_max: int | None = None, arms: str = "paired", extendable: bool = False,
            margin: float | None = None, proxy_x: Any = None, proxy_y: Any = None, label_rate: float | None = None,
            futility: float = FUTILITY, **options: Any) -> CompareResult:
    """Sequentially compare two policies on paired trials with an anytime-valid test.

    Parameters
    ----------
    x, y : array-like of float in [0, 1] (booleans allowed)
        Scores of policies X and Y; ``x[t]`` and ``y[t]`` come from the same trial/environment, in the
        order the trials were run.
    alpha : float
        Level in (0, 1). The probability of ever declaring a wrong direction is at most alpha.
    bettor : str, optional
        e-process used without a budget: ``calibrated`` (default: a DP-chosen mixture stake with the
        overshoot recovered, while every score seen is 0/1; N-SCORE from the first partial score on),
        ``adaptive`` (the previous default: Beta(1.5, 1.5) mixture stake, then N-SCORE), ``beta_mixture``
        (binary scores only), ``mixture`` (a fixed grid mixture of constant bets, any scores),
        ``nscore`` (N-SCORE Kelly grid, the default before issue 15),
        ``bernoulli_kelly`` (binary only), ``agrapa``, ``ons``, ``prpl_eb``, ``hoeffding``. The
        guarantee never depends on the bettor, only the speed.
    ties : {"allow", "assume_none"}
        ``allow`` (default): valid even if the two policies are exactly tied (each direction at alpha/2).
        ``assume_none``: the papers' setting, valid only if the means differ.
    bins : "progress", "binary" or sequence
        N-SCORE score bins (configuration, never chosen from the data).
    n_max : int, optional
        Trial budget fixed before data. With ``bins="binary"`` (scores declared binary) the exact budget
        test of spec 08 is used: markedly more powerful within the budget, valid up to it; more than
        `n_max` trials are refused unless ``extendable=True``. For other bins the e-process is used.
    arms : {"paired", "independent"}
        Budget test only. ``paired`` (default): valid whatever the correlation of x[t] and y[t] (shared
        environments). ``independent``: the two policies' rollouts are independent, paired only by
        order (an A/B study); calibrated for that design and more powerful: up to n_max = 400 the
        Barnard-type test of both success counts (`certirank.evidence.barnard`).
    extendable : bool
        Budget test only: keep a valid p-value past `n_max` (Bonferroni with the e-process, weight 0.9
        on the exact test), at a small cost in power.
    margin : float, optional
        Equivalence margin in (0, 1), fixed before the data: the pair is certified ``equivalent`` when
        |mu_y - mu_x| < margin (two one-sided e-processes, each at alpha/2; with the difference test at
        alpha/2 per side, P(any false claim about the pair) <= alpha for every true difference — proof in
        :mod:`certirank.evidence.equivalence`). Needs ``ties="allow"``.
    proxy_x, proxy_y, label_rate : optional
        Prediction-powered evidence (:mod:`certirank.evidence.ppi`): a proxy score in [0, 1] for every unit
        (simulator, world model, LLM judge), the real scores `x`, `y` only on units labelled at random with
        probability `label_rate` in (0, 1] (NaN elsewhere). Valid whatever the proxy's bias, when the
        labelled units were drawn at random with that rate.
    futility : float
        An undecided comparison gets a `forecast` (``more_needed``; with `n_max`, ``futile`` when the
        forecast probability of deciding by the budget is below `futility`, default 0.1). A forecast at the
        current estimates, never a guarantee (:mod:`certirank.evidence.forecast`).
    **options
        Bettor tuning constants (see :class:`certirank.evidence.PairedStreams`); ``concentration`` for
        the budget test's Beta mixture (default: tuned from n_max and alpha).

    Returns
    -------
    CompareResult
        ``decision`` ("x>y", "x<y" or None), ``pvalue``, ``decided_at``, ``n`` (the pairs given), ``verdict``
        ("certified", "equivalent", "futile", "undecided"), ``forecast`` when undecided. Without a budget or a
        margin, reading stops at the deciding pair (a decision is final at every stopping time): ``pvalue``,
        ``p_less`` and ``p_more`` are then those at ``decided_at``, and the pairs after it cost nothing.

    Examples
    --------
    >>> import certirank
    >>> r = certirank.compare([0] * 10, [1] * 10, bins="binary")
    >>> r.decision, r.decided_at
    ('x<y', 8)
    >>> certirank.compare([0] * 10, [1] * 10, bins="binary", n_max=10).decided_at
    6
    """
    if proxy_x is not None or proxy_y is not None or label_rate is not None:
        return _compare_with_proxy(x, y, alpha, proxy_x, proxy_y, label_rate, margin, futility, n_max=n_max,
                                   options=options)
    xa = check_scores(x, "x")
    ya = check_scores(y, "y")
    if xa.ndim != 1 or ya.ndim != 1:
        raise DataError(f"x and y must be 1-D sequences of scores, got shapes {xa.shape} and {ya.shape}")
    if xa.size != ya.size:
        raise DataError(f"x and y must have the same length (paired trials), got {xa.size} and {ya.size}")
    if xa.size == 0:
        raise DataError("x and y are empty; compare needs at least one paired trial")
    binary = resolve_bins(bins) == BINARY_BINS
    bettor = default_bettor(bins) if bettor is None else bettor
    eq = None
    if margin is not None:
        eq = EquivalenceTest(margin, alpha).update_many(xa, ya)
    if n_max is not None and binary:
        from .budget import BudgetTest

        unknown = set(options) - {"concentration", "weight", "statistic", "final_share"}
        if unknown:
            raise ParameterError(f"the exact budget test does not take option(s) {', '.join(sorted(unknown))}; "
                                 "it takes: concentration, final_share, statistic, weight")
        bt = BudgetTest(n_max, alpha=alpha, ties=ties, arms=arms, extendable=extendable, bettor=bettor,
                        **options)
        bt.update_many(xa, ya)
        # the forecast speaks log-wealth: the exact test's statistics have other units (a Barnard statistic is
        # not a wealth), so it reads the default e-process on the same pairs; the exact test decides no later
        fc_test = PairedTest(alpha, ties=bt.ties, bins=bins).update_many(xa, ya) if bt.decision is None else None
        side = bt.alpha / 2 if bt.ties == "allow" else bt.alpha
        wealth = ((fc_test.log_evalue_less, fc_test.log_evalue_more, math.log(1.0 / side)) if fc_test is not None
                  else (0.0, 0.0, 0.0))
        fc = _forecast(bt.decision, eq, wealth, xa, ya, margin, bt.design.n_max, futility)
        return CompareResult(decision=bt.decision, pvalue=bt.pvalue, decided_at=bt.decided_at, n=bt.n,
                             alpha=bt.alpha, bettor=bettor if extendable else "exact", ties=bt.ties,
                             p_less=bt.p_less, p_more=bt.p_more, test=bt.name, horizon=bt.horizon,
                             n_max=bt.design.n_max, arms=bt.design.arms, **_eq_fields(eq, margin), forecast=fc)
    test = PairedTest(alpha, bettor=bettor, ties=ties, bins=bins, **options)
    # a decision is final: reading stops at it (an equivalence claim may still come later, so not then)
    test.update_many(xa, ya, until_decided=margin is None)
    name = f"{test.bettor} e-process (spec 01)"
    if margin is not None:
        name += f"; equivalence: two one-sided grid-mixture e-processes against ±{margin:g}"
    if n_max is not None:
        name += "; budget not used: the exact budget test needs scores declared binary (bins='binary')"
    side_level = test.alpha / 2 if test.ties == "allow" else test.alpha
    wealth = (test.log_evalue_less, test.log_evalue_more, math.log(1.0 / side_level))
    fc = _forecast(test.decision, eq, wealth, xa, ya, margin, n_max, futility)
    return CompareResult(decision=test.decision, pvalue=test.pvalue, decided_at=test.decided_at, n=int(xa.size),
                         alpha=test.alpha, bettor=test.bettor, ties=test.ties, p_less=test.p_less,
                         p_more=test.p_more, test=name, horizon=None,
                         n_max=None if n_max is None else int(n_max), arms=arms, **_eq_fields(eq, margin),
                         forecast=fc)


def _eq_fields(eq: EquivalenceTest | None, margin: float | None) -> dict[str, Any]:
    if eq is None:
        return {"margin": margin}
    return {"margin": margin, "equivalent_at": eq.decided_at, "p_equivalent": eq.pvalue}


def _forecast(decision: str | None, eq: EquivalenceTest | None, wealth: tuple[float, float, float],
              xa: np.ndarray, ya: np.ndarray, margin: float | None, n_max: int | None, futility: float) -> Any:
    """The forecast of an undecided pair: the first of a difference or (with a margin) an equivalence."""
    if decision is not None or (eq is not None and eq.equivalent):
        return None
    d = ya - xa
    log_less, log_more, target = wealth
    routes = [[Side(d, log_less, target)], [Side(-d, log_more, target)]]
    if eq is not None:
        lw = eq.bank.log_wealth[0]
        half = math.log(2.0 / eq.alpha)
        routes.append([Side((d + eq.margin) / (1 - eq.margin), float(lw[0]), half),
                       Side((eq.margin - d) / (1 - eq.margin), float(lw[1]), half)])
    return forecast(routes, n_seen=xa.size, n_max=n_max, futility=futility)


def _compare_with_proxy(x: Any, y: Any, alpha: float, proxy_x: Any, proxy_y: Any, label_rate: float,
                        margin: float | None, futility: float, *, n_max: int | None,
                        options: dict[str, Any]) -> CompareResult:
    from .ppi import check_proxy_inputs, proxy_batch

    if options:  # bettor tuning constants of the real-only e-processes (the contract checks the named ones)
        raise ParameterError(f"option(s) {', '.join(sorted(options))} shape the real-only tests; the "
                             "proxy-assisted test takes alpha, ties='allow', margin, n_max and futility")
    xa, ya, fx, fy, lab, pi = check_proxy_inputs(x, y, proxy_x, proxy_y, label_rate)
    out = proxy_batch(xa[None], ya[None], fx[None], fy[None], lab[None], pi, alpha, margin=margin)
    decision = DECISION_WORDS[int(out["decision"][0])]
    eq_at = int(out["equivalent_at"][0]) or None
    p_less, p_more = float(out["p_less"][0]), float(out["p_more"][0])
    fc = None
    if decision is None and eq_at is None:
        from .ppi import rectified

        th = float(out["proxy_weight"][0])
        v = rectified(fy - fx, ya - xa, lab.astype(float), np.full(xa.size, th), pi)
        bound = (1.0 / pi - 1.0) * abs(th) + 1.0 / pi
        lw = out["log_wealth"][0]
        target = math.log(2.0 / alpha)
        routes = [[Side(v / bound, float(lw[0]), target)], [Side(-v / bound, float(lw[1]), target)]]
        if margin is not None:
            routes.append([Side((v + margin) / (bound - margin), float(lw[2]), target),
                           Side((margin - v) / (bound - margin), float(lw[3]), target)])
        fc = forecast(routes, n_seen=xa.size, n_max=n_max, futility=futility)
    name = (f"proxy-assisted grid-mixture e-process (prediction-powered, label rate {pi:g}, proxy weight learned "
            "from past labels)")
    return CompareResult(decision=decision, pvalue=min(1.0, 2.0 * min(p_less, p_more)),
                         decided_at=int(out["decided_at"][0]) or None, n=int(xa.size), alpha=alpha,
                         bettor="proxy-mixture", ties="allow", p_less=p_less, p_more=p_more, test=name,
                         horizon=None, n_max=n_max, arms="paired", margin=margin, equivalent_at=eq_at,
                         p_equivalent=None if margin is None else float(min(1.0, 2.0 * max(
                             out["p_lower"][0], out["p_upper"][0]))),
                         label_rate=pi, labels=int(out["labels"][0]), proxy_weight=float(out["proxy_weight"][0]),
                         forecast=fc)


def default_bettor(bins: Any) -> str:
    """The default e-process (issue 15): `calibrated` for any bins."""
    resolve_bins(bins)
    return DEFAULT_BETTOR


def _pairs_from_table(table: Any, a: str, b: str, pairing: str = "by_row") -> tuple[np.ndarray, np.ndarray]:
    """Paired scores of policies `a`, `b` from an evaluation table, in recorded row order.

    ``by_row``: the two policies' trials on the same environment, complete rows only. ``by_order``: each
    policy's own trials in recorded order, the n-th of one paired with the n-th of the other (unmatched
    rollouts; valid when each policy's trials are independent draws from a fixed distribution), cut to the
    shorter of the two.
    """
    from ..data.table import check_per_trial, to_wide

    check_per_trial(table, "compare")
    wide = to_wide(table)
    for name in (a, b):
        if name not in wide.columns:
            raise DataError(f"policy {name!r} not found; policies in the data: {', '.join(map(str, wide.columns))}")
    if a == b:
        raise DataError(f"--a and --b name the same policy {a!r}; compare two different policies")
    if pairing == "by_order":
        xa = wide[a].dropna().to_numpy(dtype=float)
        ya = wide[b].dropna().to_numpy(dtype=float)
        n = min(xa.size, ya.size)
        if n == 0:
            raise DataError(f"{a!r} or {b!r} has no trials")
        return xa[:n], ya[:n]
    sub = wide[[a, b]].dropna()
    if len(sub) == 0:
        raise DataError(f"no trial has scores for both {a!r} and {b!r}")
    return sub[a].to_numpy(dtype=float), sub[b].to_numpy(dtype=float)
