"""`certirank.compare`: is policy Y better than policy X on paired trials, yet? (spec 00, spec 01 §4)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from .._params import validated
from .._validate import check_positive_int
from ..errors import DataError, ParameterError
from .._compat import keyword_only
from ..results import ResultMixin
from ._core import BINARY_BINS, DEFAULT_BETTOR, check_scores, resolve_bins
from .sequential import PairedTest

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

    @property
    def guarantee(self) -> str:
        """The guarantee in one line."""
        where = ("at every stopping time" if self.horizon is None
                 else f"at every stopping time up to the budget of {self.horizon} trials")
        return f"P(a wrong direction is ever declared) <= {self.alpha:g} {where} ({self.test})"

    def describe(self, x_name: str = "X", y_name: str = "Y") -> str:
        """The decision in plain words."""
        a = f"α = {self.alpha:g}"
        if self.decision == "x>y":
            return f"{x_name} is better than {y_name} (certified, {a}; decided after {self.decided_at} of {self.n} pairs)"
        if self.decision == "x<y":
            return f"{y_name} is better than {x_name} (certified, {a}; decided after {self.decided_at} of {self.n} pairs)"
        return (f"Undecided: no certified difference between {x_name} and {y_name} after {self.n} pairs "
                f"(p = {self.pvalue:.4g}, {a})")


@keyword_only(("bettor", "ties"))
@validated("compare")
def compare(x: Any, y: Any, alpha: float = 0.05, *, bettor: str | None = None, ties: str = "allow",
            bins: Any = "progress", n_max: int | None = None, arms: str = "paired", extendable: bool = False,
            **options: Any) -> CompareResult:
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
    **options
        Bettor tuning constants (see :class:`certirank.evidence.PairedStreams`); ``concentration`` for
        the budget test's Beta mixture (default: tuned from n_max and alpha).

    Returns
    -------
    CompareResult
        ``decision`` ("x>y", "x<y" or None), ``pvalue``, ``decided_at``, ``n``.

    Examples
    --------
    >>> import certirank
    >>> r = certirank.compare([0] * 10, [1] * 10, bins="binary")
    >>> r.decision, r.decided_at
    ('x<y', 8)
    >>> certirank.compare([0] * 10, [1] * 10, bins="binary", n_max=10).decided_at
    6
    """
    xa = check_scores(x, "x")
    ya = check_scores(y, "y")
    if xa.ndim != 1 or ya.ndim != 1:
        raise DataError(f"x and y must be 1-D sequences of scores, got shapes {xa.shape} and {ya.shape}")
    if xa.size != ya.size:
        raise DataError(f"x and y must have the same length (paired trials), got {xa.size} and {ya.size}")
    if xa.size == 0:
        raise DataError("x and y are empty; compare needs at least one paired trial")
    from .budget import check_arms

    arms = check_arms(arms)
    binary = resolve_bins(bins) == BINARY_BINS
    bettor = default_bettor(bins) if bettor is None else bettor
    if n_max is not None and binary:
        from .budget import BudgetTest

        unknown = set(options) - {"concentration", "weight", "statistic", "final_share"}
        if unknown:
            raise ParameterError(f"the exact budget test does not take option(s) {', '.join(sorted(unknown))}; "
                                 "it takes: concentration, final_share, statistic, weight")
        bt = BudgetTest(n_max, alpha=alpha, ties=ties, arms=arms, extendable=extendable, bettor=bettor,
                        **options)
        bt.update_many(xa, ya)
        return CompareResult(decision=bt.decision, pvalue=bt.pvalue, decided_at=bt.decided_at, n=bt.n,
                             alpha=bt.alpha, bettor=bettor if extendable else "exact", ties=bt.ties,
                             p_less=bt.p_less, p_more=bt.p_more, test=bt.name, horizon=bt.horizon,
                             n_max=bt.design.n_max, arms=bt.design.arms)
    if n_max is not None:
        check_positive_int("n_max", n_max)
    test = PairedTest(alpha, bettor=bettor, ties=ties, bins=bins, **options)
    test.update_many(xa, ya)
    name = f"{test.bettor} e-process (spec 01)"
    if n_max is not None:
        name += "; budget not used: the exact budget test needs scores declared binary (bins='binary')"
    return CompareResult(decision=test.decision, pvalue=test.pvalue, decided_at=test.decided_at, n=test.n,
                         alpha=test.alpha, bettor=test.bettor, ties=test.ties, p_less=test.p_less,
                         p_more=test.p_more, test=name, horizon=None,
                         n_max=None if n_max is None else int(n_max), arms=arms)


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
