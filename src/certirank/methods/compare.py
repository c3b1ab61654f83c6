"""`certirank.compare`: is policy Y better than policy X on paired trials, yet? (spec 00, spec 01 §4).

The verb of the public API: it reads a table (or takes two arrays), runs the paired test of
:mod:`certirank.evidence` (the anytime e-process, or the exact budget test of spec 08) and says the answer as
the record of :mod:`certirank.results`, its Ranking holding the certified direction.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar

import numpy as np

from .._params import validated
from .._validate import check_positive_int
from ..errors import DataError, ParameterError
from .._compat import keyword_only
from ..order.result import Ranking, Relation, make_ranking
from ..results import Result, inputs, note
from ..evidence._core import BINARY_BINS, DEFAULT_BETTOR, check_scores, resolve_bins
from ..evidence.equivalence import EquivalenceTest
from ..evidence.forecast import FUTILITY, Side, forecast
from ..evidence.sequential import DECISION_WORDS, PairedTest

__all__ = ["compare", "CompareResult"]


@dataclasses.dataclass(frozen=True)
class CompareResult(Result):
    """Outcome of a sequential paired comparison (record kind ``"compare"``).

    Attributes
    ----------
    a, b : str
        Inputs: the names of X and Y ("x" and "y" for bare arrays).
    alpha, bettor, ties, n_max, arms : inputs
        The level, the e-process's bettor ("exact" for the budget test), the tie mode, the trial budget and the
        budget test's arms.
    ranking : Ranking
        The two policies; a relation when one is certified better (``when`` = ``decided_at``), with the
        guarantee in words.
    pvalue : float
        Anytime-valid p-value after all `n` pairs (combined over both directions per the tie mode).
    p_less, p_more : float
        One-sided p-values for "x<y" and "x>y".
    decided_at : int or None
        1-based index of the pair at which the decision was first reached (never revoked).
    n : int
        Number of pairs consumed.
    test : str
        Which test produced the result (e-process and bettor, or the exact budget test and its settings).
    horizon : int or None
        Number of trials up to which the guarantee holds; None = at every stopping time, for ever.
    margin : float or None
        Input: the equivalence margin fixed before the data (|mu_y - mu_x| < margin is certified "equivalent").
    equivalent_at, p_equivalent : int or None, float or None
        The 1-based pair at which equivalence was certified (None: not, or no margin), and
        min(1, 2 max(p_lower, p_upper)) of the equivalence halves.
    label_rate, labels, proxy_weight : proxy-assisted test only (input: the labelling probability; the real labels
        seen; the learned proxy weight at the end, 0 = the proxy is not used).
    forecast : for an undecided comparison, the `Forecast` (more_needed, p_decide, futile): a forecast, never a
        guarantee.
    """

    KIND: ClassVar[str] = "compare"

    ranking: Ranking = dataclasses.field(repr=False)
    pvalue: float
    decided_at: int | None
    n: int
    a: str = inputs(default="x")
    b: str = inputs(default="y")
    alpha: float = inputs(default=0.05)
    bettor: str = inputs(default="nscore")
    ties: str = inputs(default="allow")
    n_max: int | None = inputs(default=None)
    arms: str = inputs(default="paired")
    margin: float | None = inputs(default=None)
    label_rate: float | None = inputs(default=None)
    p_less: float = 1.0
    p_more: float = 1.0
    test: str = ""
    horizon: int | None = None
    equivalent_at: int | None = None
    p_equivalent: float | None = None
    labels: int | None = None
    proxy_weight: float | None = None
    forecast: Any = None

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
        out = super().to_dict()
        out["details"]["verdict"] = self.verdict  # the pair verdict (COMMON.md decision 4), derived: said once here
        return out

    @property
    def decision(self) -> str | None:
        """"x>y": X's mean score is certified higher; "x<y": Y's is; None: undecided."""
        if self.ranking.better(self.a, self.b):
            return "x>y"
        if self.ranking.better(self.b, self.a):
            return "x<y"
        return None

    @property
    def guarantee(self) -> str:
        """The guarantee in one line."""
        return self.ranking.guarantee

    def describe(self, x_name: str | None = None, y_name: str | None = None) -> str:
        """The decision in plain words."""
        x_name = self.a if x_name is None else x_name
        y_name = self.b if y_name is None else y_name
        a = f"α = {self.alpha:g}"
        about = self.ranking.about_phrase
        a += f", {about}" if about else ""
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


def _guarantee(alpha: float, horizon: int | None, ties: str, test: str, order: Any = None,
               margin: float | None = None) -> str:
    k = (order or {}).get("orders") if isinstance(order, dict) else None
    where = ("at whatever pair you stop" if horizon is None
             else f"at whatever pair you stop up to the budget of {horizon} trials")
    if k:
        where = f"after all pairs (averaged over {k} random orders: a statement at this size, not at every stop)"
    tie_note = ("valid even if the two are exactly tied" if ties == "allow"
                else "assumes the two are never exactly tied")
    what = ("declaring the wrong policy better or declaring equivalence wrongly" if margin is not None
            else "declaring the wrong policy better")
    return (f"The chance of ever {what}, {where}, is at most alpha = {alpha:g} "
            f"(ties = {ties}: {tie_note}). Test: {test}.")


def _result(xa: np.ndarray, ya: np.ndarray, a: str, b: str, *, decision: str | None, pvalue: float,
            decided_at: int | None, n: int, alpha: float, bettor: str, ties: str, p_less: float, p_more: float,
            test: str, horizon: int | None, n_max: int | None, arms: str, about: str = "policy",
            order: Any = None, **more: Any) -> CompareResult:
    rels = []
    if decision is not None:
        better, worse = (a, b) if decision == "x>y" else (b, a)
        rels.append(Relation(better, worse, "test", decided_at, pvalue, "pvalue"))
    ranking = make_ranking([a, b], rels, kind="compare", alpha=alpha, guarantee=_guarantee(alpha, horizon, ties, test, order,
                                                                                     more.get("margin")),
                           means=[_mean(xa[:n]), _mean(ya[:n])], n=[n, n], when_unit="paired trials",
                           about=about)
    return CompareResult(ranking=ranking, pvalue=pvalue, decided_at=decided_at, n=n, a=a, b=b, alpha=alpha,
                         bettor=bettor, ties=ties, n_max=n_max, arms=arms, p_less=p_less, p_more=p_more, test=test,
                         horizon=horizon, about=about, order=order, **more)


@keyword_only(("bettor", "ties"))
@validated("compare")
def compare(x: Any, y: Any = None, alpha: float = 0.05, *, a: str | None = None, b: str | None = None,
            pairing: str = "by_row", bettor: str | None = None, ties: str = "allow", bins: Any = None,
            n_max: int | None = None, arms: str | None = None, extendable: bool = False, format: str | None = None,
            score_range: Any = None, about: str = "policy", order: str = "random", seed: int = 0,
            order_by: str | None = None, orders: int = 1, margin: float | None = None, proxy_x: Any = None,
            proxy_y: Any = None, label_rate: float | None = None, futility: float = FUTILITY,
            group_by: Any = None, alpha_across_groups: bool = False, **options: Any) -> Any:
    """Sequentially compare two policies on paired trials with an anytime-valid test.

    Parameters
    ----------
    x, y : array-like of float in [0, 1] (booleans allowed)
        Scores of policies X and Y; ``x[t]`` and ``y[t]`` come from the same trial/environment, in the
        order the trials were run. Or ``x`` is evaluation data (a path or a table, read with
        :func:`certirank.load`), ``y`` is omitted and ``a``, ``b`` name the two policies to compare.
    a, b : str, optional
        With a table: the policies X (baseline) and Y (challenger). With arrays: their names in the result
        (default "x" and "y").
    pairing : {"by_row", "by_order"}
        With a table: ``by_row`` pairs the two policies' trials on the same environment (complete rows only);
        ``by_order`` pairs each policy's n-th trial (unmatched rollouts).
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
        Score bins. Two arrays (a stream): ``progress`` unless declared. A table in hand: binary when every
        value of the whole table is 0 or 1, else progress (:mod:`certirank.methods.plan`, spec 09 §6).
    n_max : int, optional
        Trial budget fixed before data. With binary scores the exact budget test of spec 08 is used: markedly
        more powerful within the budget, valid up to it; more than `n_max` trials are refused unless
        ``extendable=True``. For other bins the e-process is used. A table in hand: default the pairs of `a` and
        `b` it holds (a budget smaller than that is an error naming both numbers).
    arms : {"paired", "independent"}
        Budget test only. ``paired`` (the default for arrays): valid whatever the correlation of x[t] and y[t]
        (shared environments). ``independent``: the two policies' rollouts are independent, paired only by
        order (an A/B study); calibrated for that design and more powerful: up to n_max = 400 the
        Barnard-type test of both success counts (`certirank.evidence.barnard`). A table in hand: from its
        layout (outcome lists and long tables without environments are independent arms).
    extendable : bool
        Budget test only: keep a valid p-value past `n_max` (Bonferroni with the e-process, weight 0.9
        on the exact test), at a small cost in power.
    format, score_range
        With a table read from a file: passed to :func:`certirank.load`.
    about : {"policy", "table"}, default "policy"
        What a certified claim is about (spec 09 §2): the two policies' expected scores on new trials, or
        (``"table"``, a table only) the averages over exactly these rows (a
        :class:`~certirank.methods.shuffled.TableRanking`).
    order : {"random", "given"}, default "random"
        How the pairs are read (spec 09 §3): in a uniformly random order drawn from ``seed``, or as given
        (``"given"``: the order check of spec 09 §4 warns about a sorted file). A table's ``order``, ``time`` or
        ``timestamp`` column is the run order and is read as such.
    seed : int, default 0
        Seed of the random order.
    order_by : str, optional
        A table's column that holds the run order.
    orders : int, default 1
        With K > 1: the answer averaged over K random orders (spec 09 §5), at the data's size (no decision time).
    margin : float, optional
        Equivalence margin in (0, 1), fixed before the data: the pair is certified ``equivalent`` when
        |mu_y - mu_x| < margin (two one-sided e-processes, each at alpha/2; with the difference test at
        alpha/2 per side, P(any false claim about the pair) <= alpha for every true difference — proof in
        :mod:`certirank.evidence.equivalence`). Needs ``ties="allow"``.
    proxy_x, proxy_y, label_rate : optional
        Prediction-powered evidence (:mod:`certirank.evidence.ppi`, arrays only): a proxy score in [0, 1] for
        every unit (simulator, world model, LLM judge), the real scores `x`, `y` only on units labelled at random
        with probability `label_rate` in (0, 1] (NaN elsewhere). Valid whatever the proxy's bias, when the
        labelled units were drawn at random with that rate. Read as given (the labelling is the randomness).
    futility : float
        An undecided comparison gets a `forecast` (``more_needed``; with `n_max`, ``futile`` when the
        forecast probability of deciding by the budget is below `futility`, default 0.1). A forecast at the
        current estimates, never a guarantee (:mod:`certirank.evidence.forecast`).
    group_by : str or list of str, optional
        A table only: compare `a` and `b` within each group of these columns (``--group-by``): one result per
        group (a :class:`~certirank.methods.groups.GroupedResult`).
    alpha_across_groups : bool, default False
        With ``group_by``: split ``alpha`` over the groups (Bonferroni) instead of holding it within each.
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
    if group_by is not None:
        if y is not None:
            raise ParameterError("group_by groups the rows of a table: pass the table as x with a= and b=, not two "
                                 "score arrays")
        given = dict(locals())
        from .groups import run_verb_by_group
        return run_verb_by_group(compare, given, data="x", method="compare")
    return _verb(x, y, alpha, a=a, b=b, pairing=pairing, bettor=bettor, ties=ties, bins=bins, n_max=n_max, arms=arms,
                 extendable=extendable, format=format, score_range=score_range, about=about, order=order, seed=seed,
                 order_by=order_by, orders=orders, margin=margin, proxy_x=proxy_x, proxy_y=proxy_y,
                 label_rate=label_rate, futility=futility, options=options)


def _verb(x: Any, y: Any, alpha: float, *, a: str | None, b: str | None, pairing: str, bettor: str | None,
          ties: str, bins: Any, n_max: int | None, arms: str, extendable: bool, format: str | None, score_range: Any,
          about: str, order: str, seed: int, order_by: str | None, orders: int, margin: float | None, proxy_x: Any,
          proxy_y: Any, label_rate: float | None, futility: float, options: dict[str, Any],
          whole: bool = False) -> Any:
    """The body of :func:`compare` (its parameters validated); ``whole``: read every pair, not only up to the
    decision (``check`` merges the p-values over all rows by Holm)."""
    import dataclasses
    import os

    from ..data.order import read_order
    from ..results import reader_warnings, warning
    if about == "benchmark":
        raise ParameterError("compare's claims are about the two policies (about='policy'); claims about a fixed "
                             "item set over repeated runs are certirank.leaderboard's (about='benchmark')")
    if proxy_x is not None or proxy_y is not None or label_rate is not None:
        if y is None or about != "policy" or orders != 1 or order_by is not None:
            raise ParameterError("the proxy-assisted test takes two arrays x, y (NaN where a unit has no real "
                                 "label), read as given: about, order_by and orders do not apply")
        return _compare_with_proxy(x, y, alpha, proxy_x, proxy_y, label_rate, margin, futility, n_max=n_max,
                                   options=options, names=("x" if a is None else str(a), "y" if b is None else str(b)))
    if margin is not None and orders != 1:
        raise ParameterError("margin (equivalence) is an anytime claim of one order of the pairs; orders (--orders) "
                             "averages over several orders at the data's size: give one of them")
    if margin is not None and about == "table":
        raise ParameterError("margin (equivalence) is a claim about the policies; about='table' does not apply")
    if y is None and isinstance(x, (str, os.PathLike)) or _is_frame(x):
        if y is not None:
            raise ParameterError("give a table with a= and b= (the two policies), or two arrays x, y; not both")
        if a is None or b is None:
            raise ParameterError("comparing policies of a table needs a= and b= (the two policies' names)")
        from ..data.order import arrange, order_check
        from ..data.readers import load
        from ..data.table import check_per_trial, to_wide
        table = load(x, format=format, score_range=score_range)
        if about == "table":
            return _table_estimand(table, str(a), str(b), alpha, seed, order, order_by, orders, pairing)
        check_per_trial(table, "compare")
        plan = read_order(table, order=order, seed=seed, order_by=order_by, orders=orders)
        warns = list(reader_warnings(table))
        if plan.kind == "column" and plan.announced:
            warns.append(note(plan.sentence()))
        if plan.kind == "given":
            wide = to_wide(table)
            _columns(wide, str(a), str(b))
            warns += [warning(w) for w in order_check(wide[[str(a), str(b)]], [(str(a), str(b))])]
        src = table.attrs.get("source")
        runs = [_pairs_from_table(arrange(table, plan, k), str(a), str(b), pairing=pairing)
                for k in range(plan.orders)]  # read_pairs reads the first the same way
        # the table is in hand: its scale (every value of the whole table), the pairs of a and b (the budget) and
        # its layout (the arms) are known before any pair is read (spec 09 §6)
        from .plan import layout_arms, plan_whole_data
        tp = plan_whole_data(table["score"], bins=bins, n_max=n_max, arms=arms, units=runs[0][0].size, bettor=bettor,
                             layout=layout_arms(x if _is_frame(x) and x.attrs.get("format") else table),
                             exact_only=(*(n for n in ("statistic", "concentration", "final_share") if options.get(n) is not None),
                                         *(("extendable",) if extendable else ())))
        warns = [note(tp.describe()), *(warning(w) for w in tp.warnings), *warns]
        res = _compare(runs, str(a), str(b), plan, alpha=alpha, bettor=bettor, ties=ties, bins=tp.bins,
                       n_max=tp.n_max if tp.exact else n_max, arms=tp.arms if tp.exact else "paired",
                       extendable=extendable, options=options, margin=margin, futility=futility,
                       whole=whole)
        return dataclasses.replace(res, source=None if src is None else str(src), warnings=tuple(warns))
    if y is None:
        raise ParameterError("compare needs two arrays x, y, or a table with a= and b=")
    if format is not None or score_range is not None or order_by is not None:
        raise ParameterError("format=, score_range= and order_by= apply to a table, not to two arrays")
    # two arrays are a stream, not a file in hand: the scale and the arms are what the caller declares
    bins = "progress" if bins is None else bins
    arms = "paired" if arms is None else arms
    names = ("x" if a is None else str(a), "y" if b is None else str(b))
    if names[0] == names[1]:
        raise ParameterError(f"a and b name the same policy {names[0]!r}")
    xa = check_scores(x, "x")
    ya = check_scores(y, "y")
    if xa.ndim != 1 or ya.ndim != 1:
        raise DataError(f"x and y must be 1-D sequences of scores, got shapes {xa.shape} and {ya.shape}")
    if xa.size != ya.size:
        raise DataError(f"x and y must have the same length (paired trials), got {xa.size} and {ya.size}")
    if xa.size == 0:
        raise DataError("x and y are empty; compare needs at least one paired trial")
    if about == "table":
        import pandas as pd
        frame = pd.DataFrame({names[0]: xa, names[1]: ya})
        return _table_estimand(frame, *names, alpha, seed, order, order_by, orders, "by_row")
    plan = read_order(None, order=order, seed=seed, orders=orders)
    if plan.kind == "random":
        from ..data.order import permutation, seeds_of
        runs = [(xa[p], ya[p]) for p in (permutation(xa.size, s) for s in seeds_of(plan))]
    else:
        runs = [(xa, ya)]
    res = _compare(runs, *names, plan, alpha=alpha, bettor=bettor, ties=ties, bins=bins, n_max=n_max, arms=arms,
                   extendable=extendable, options=options, margin=margin, futility=futility, whole=whole)
    if plan.kind == "given":
        import pandas as pd
        from ..data.order import order_check
        wide = pd.DataFrame({names[0]: xa, names[1]: ya})
        res = dataclasses.replace(res, warnings=tuple(warning(w) for w in order_check(wide, [names])))
    return res


def read_pairs(table: Any, a: str, b: str, *, order: str, seed: int, order_by: str | None) -> tuple[np.ndarray,
                                                                                                  np.ndarray]:
    """The paired scores of `a` and `b` of a validated table (paired by row) in the order compare reads them
    (one order: spec 09 §3), for a claim ``check`` tests on them beside compare's."""
    from ..data.order import arrange, read_order
    plan = read_order(table, order=order, seed=seed, order_by=order_by, orders=1)
    return _pairs_from_table(arrange(table, plan, 0), a, b)


def compare_all_rows(table: Any, *, alpha: float, a: str, b: str, bettor: str | None, ties: str, bins: Any,
                     order: str, seed: int, order_by: str | None, orders: int, **options: Any) -> CompareResult:
    """:func:`compare` of two policies of a validated table with every pair read (not only up to the decision):
    ``check`` merges each claim's p-value over all rows by Holm. Its caller has validated the parameters;
    `options` go to the exact budget test (``final_share``)."""
    return _verb(table, None, alpha, a=a, b=b, pairing="by_row", bettor=bettor, ties=ties, bins=bins, n_max=None,
                 arms=None, extendable=False, format=None, score_range=None, about="policy", order=order,
                 seed=seed, order_by=order_by, orders=orders, margin=None, proxy_x=None, proxy_y=None,
                 label_rate=None, futility=FUTILITY, options=dict(options), whole=True)


def _table_estimand(table: Any, a: str, b: str, alpha: float, seed: int, order: str, order_by: Any, orders: int,
                    pairing: str) -> Any:
    """``about="table"``: the two policies' averages over exactly these rows (methods.shuffled)."""
    if order != "random" or order_by is not None or orders != 1 or pairing != "by_row":
        raise ParameterError("about='table' (--about table) reads whole rows in one seeded random order: its test "
                             "samples the table without replacement; order, order_by, orders and pairing do not "
                             "apply")
    from .shuffled import table_ranking
    return table_ranking(table, alpha, seed=seed, policies=[a, b])


def _columns(wide: Any, a: str, b: str) -> None:
    for name in (a, b):
        if name not in wide.columns:
            raise DataError(f"policy {name!r} not found; policies in the data: {', '.join(map(str, wide.columns))}")


def _test(xa: np.ndarray, ya: np.ndarray, *, alpha: float, bettor: str | None, ties: str, bins: Any,
          n_max: int | None, arms: str, extendable: bool, options: dict[str, Any], until_decided: bool = False) -> Any:
    """The paired test run over the pairs (in the order given): the exact budget test of spec 08 when the scores
    are declared binary and a budget is given, else the e-process of spec 01 (with ``until_decided``, reading
    stops at the deciding pair: a decision is final)."""
    from ..evidence.budget import check_arms

    arms = check_arms(arms)
    binary = resolve_bins(bins) == BINARY_BINS
    bettor = default_bettor(bins) if bettor is None else bettor
    if n_max is not None and binary:
        from ..evidence.budget import BudgetTest

        unknown = set(options) - {"concentration", "weight", "statistic", "final_share"}
        if unknown:
            raise ParameterError(f"the exact budget test does not take option(s) {', '.join(sorted(unknown))}; "
                                 "it takes: concentration, final_share, statistic, weight")
        bt = BudgetTest(n_max, alpha=alpha, ties=ties, arms=arms, extendable=extendable, bettor=bettor,
                        **options)
        bt.update_many(xa, ya)
        return bt
    if n_max is not None:
        check_positive_int("n_max", n_max)
    test = PairedTest(alpha, bettor=bettor, ties=ties, bins=bins, **options)
    test.update_many(xa, ya, until_decided=until_decided)
    return test


def _compare(runs: list[tuple[np.ndarray, np.ndarray]], a: str, b: str, plan: Any, *, alpha: float,
             bettor: str | None, ties: str, bins: Any, n_max: int | None, arms: str, extendable: bool,
             options: dict[str, Any], margin: float | None = None, futility: float = FUTILITY,
             whole: bool = False) -> CompareResult:
    """The result of the pairs read in one order, or (spec 09 §5) averaged over several: the mean of the final
    e-values is an e-value (p = min(1, K / sum E_k)); exact p-values merge as min(1, 2 mean p_k) (Vovk & Wang)."""
    from ..evidence.streams import combine
    # one order: a decision is final, so reading stops at it (an equivalence may still come later, so not then);
    # several orders average the e-values at the data's size (spec 09 §5), so each is read to its end
    tests = [_test(xa, ya, alpha=alpha, bettor=bettor, ties=ties, bins=bins, n_max=n_max, arms=arms,
                   extendable=extendable, options=options,
                   until_decided=len(runs) == 1 and margin is None and not whole)
             for xa, ya in runs]
    first = tests[0]
    exact = not isinstance(first, PairedTest)
    name = first.name if exact else f"{first.bettor} e-process (spec 01)"
    if not exact and margin is not None:
        name += f"; equivalence: two one-sided grid-mixture e-processes against ±{margin:g}"
    if not exact and n_max is not None:
        name += "; budget not used: the exact budget test needs scores declared binary (bins='binary')"
    xa, ya = runs[0]
    common = dict(alpha=first.alpha, bettor=(bettor or default_bettor(bins)) if extendable else "exact",
                  ties=first.ties, n_max=first.design.n_max, arms=first.design.arms, horizon=first.horizon) if exact \
        else dict(alpha=first.alpha, bettor=first.bettor, ties=first.ties, n_max=None if n_max is None else int(n_max),
                  arms=arms, horizon=None)
    if len(tests) == 1:
        eq = EquivalenceTest(margin, alpha).update_many(xa, ya) if margin is not None else None
        if exact:
            # the forecast speaks log-wealth: the exact test's statistics have other units (a Barnard statistic is
            # not a wealth), so it reads the default e-process on the same pairs; the exact test decides no later
            fc_test = (PairedTest(alpha, ties=first.ties, bins=bins).update_many(xa, ya) if first.decision is None
                       else None)
            side = first.alpha / 2 if first.ties == "allow" else first.alpha
            wealth = ((fc_test.log_evalue_less, fc_test.log_evalue_more, math.log(1.0 / side))
                      if fc_test is not None else (0.0, 0.0, 0.0))
            fc = _forecast(first.decision, eq, wealth, xa, ya, margin, first.design.n_max, futility)
        else:
            side = first.alpha / 2 if first.ties == "allow" else first.alpha
            wealth = (first.log_evalue_less, first.log_evalue_more, math.log(1.0 / side))
            fc = _forecast(first.decision, eq, wealth, xa, ya, margin, n_max, futility)
        return _result(xa, ya, a, b, decision=first.decision, pvalue=first.pvalue, decided_at=first.decided_at,
                       n=first.n if exact else int(xa.size), p_less=first.p_less, p_more=first.p_more, test=name,
                       order=plan.to_dict(), **common, **_eq_fields(eq, margin), forecast=fc)
    k = len(tests)
    if exact:
        p_less = min(1.0, 2.0 * float(np.mean([t.p_less for t in tests])))
        p_more = min(1.0, 2.0 * float(np.mean([t.p_more for t in tests])))
    else:
        p_less = min(1.0, k / float(np.sum(np.exp([t.log_evalue_less for t in tests]))))
        p_more = min(1.0, k / float(np.sum(np.exp([t.log_evalue_more for t in tests]))))
    pvalue = float(combine(p_less, p_more, first.ties))
    decision = None
    if pvalue <= first.alpha and p_less != p_more:
        decision = "x<y" if p_less < p_more else "x>y"
    return _result(xa, ya, a, b, decision=decision, pvalue=pvalue, decided_at=None, n=first.n, p_less=p_less,
                   p_more=p_more, test=f"{name}; averaged over {k} random orders (spec 09 §5, at the data's size)",
                   order=plan.to_dict(), **common)


def _mean(v: np.ndarray) -> float | None:
    """The mean of the scores seen (NaN = no real label, in the proxy-assisted test); None if none."""
    seen = v[~np.isnan(v)]
    return float(seen.mean()) if seen.size else None


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
                        margin: float | None, futility: float, *, n_max: int | None, options: dict[str, Any],
                        names: tuple[str, str]) -> CompareResult:
    from ..evidence.ppi import check_proxy_inputs, proxy_batch

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
        from ..evidence.ppi import rectified

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
    # the means of the ranking: each policy's real scores where labelled
    xs, ys = np.where(lab, xa, np.nan), np.where(lab, ya, np.nan)
    return _result(xs, ys, *names, decision=decision,
                   pvalue=min(1.0, 2.0 * min(p_less, p_more)), decided_at=int(out["decided_at"][0]) or None,
                   n=int(xa.size), alpha=alpha, bettor="proxy-mixture", ties="allow", p_less=p_less, p_more=p_more,
                   test=name, horizon=None, n_max=n_max, arms="paired", order={"kind": "given"}, margin=margin,
                   equivalent_at=eq_at,
                   p_equivalent=None if margin is None else float(min(1.0, 2.0 * max(out["p_lower"][0],
                                                                                     out["p_upper"][0]))),
                   label_rate=pi, labels=int(out["labels"][0]), proxy_weight=float(out["proxy_weight"][0]),
                   forecast=fc)


def _is_frame(obj: Any) -> bool:
    import pandas as pd
    return isinstance(obj, pd.DataFrame)


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
