"""AnyRank over recorded data: replay of tables in recorded order and the batch path for simulations."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..._compat import keyword_only
from ..._params import validated
from ...errors import DataError, ParameterError
from ...evidence.forecast import FUTILITY
from .verdicts import open_pair_verdicts, with_equivalence
from .config import DIRECTION_SPLIT, _BLOCK, _Setup, _make_setup
from .result import RankingResult, _Table
from .engine import _Campaign, _make_streams
from ._wide import _select_columns, order_warnings, read_wide
from ...results import note, warning


def _table_from_data(data: Any, *, format: str | None = None,
                     score_range: tuple[float, float] | None = None) -> pd.DataFrame:
    """The validated per-trial table (read through :func:`certirank.load`, once) of a path, a long or wide
    DataFrame, or a validated table."""
    from ...data.readers import load
    from ...data.table import check_per_trial
    if isinstance(data, np.ndarray):
        raise DataError("pass a pandas DataFrame (one column per policy) or a file path; for a bare array use "
                        "run_campaign(scores, policies=...)")
    if not isinstance(data, (str, os.PathLike, pd.DataFrame)):
        raise DataError(f"expected a file path or a table (pandas DataFrame), got {type(data).__name__}")
    table = load(data, format=format, score_range=score_range)
    check_per_trial(table, "AnyRank")
    return table


@keyword_only(("method", "prior", "gamma", "n_max", "ties"))
@validated("anyrank")
def anyrank(data: Any, alpha: float = 0.05, *, method: str = "anyrank", prior: Any = None, gamma: float = 1.0,
            n_max: int | None = None, ties: str = "allow", guarantee: str = "paper",
            policies: Sequence[str] | None = None, heldout_prior_rows: int = 0, pairing: str = "by_row",
            graph: str = "soft_masked", forward_fraction: float = 0.9, direction_split: float = DIRECTION_SPLIT,
            bettor: str = "nscore", bins: str | None = None, transitive_closure: bool = True,
            trajectory: bool = False, format: str | None = None,
            score_range: tuple[float, float] | None = None, budget: str = "auto",
            arms: str | None = None, concentration: float | None = None,
            statistic: str | None = None, about: str = "policy", order: str = "random", seed: int = 0,
            order_by: str | None = None, orders: int = 1, margin: float | None = None,
            futility: float = FUTILITY, group_by: str | Sequence[str] | None = None,
            alpha_across_groups: bool = False) -> Any:
    """Run AnyRank over recorded trials (spec 03 §9.1), read in a seeded random order by default (spec 09 §3).

    Parameters
    ----------
    data : str, Path or DataFrame
        A file (read with :func:`certirank.load`), a wide per-trial DataFrame (one column per policy, one
        row per trial/environment, NaN = not run), or a long table with ``policy``, ``score`` and ``env``
        or ``order`` (pivoted with :func:`certirank.data.table.to_wide`).
    alpha : float, default 0.05
        Family-wise error rate of the whole answer (all pairs, all times).
    method : str, default "anyrank"
        ``anyrank``, ``anyrank0``, ``anyrank-inf``, ``bonferroni`` or ``weighted-bonferroni`` (underscores
        accepted).
    prior : mapping or sequence, optional
        Prior mean per policy, fixed before looking at the data (e.g. from simulation).
    gamma : float, default 1.0
        Prior strength (softmax inverse temperature), >= 0.
    n_max : int, optional
        Per-hypothesis budget of paired trials. Default: the pairing units in hand (data that arrive whole have a
        known size, a legitimate budget fixed before any row is read, spec 09 §6): with binary scores the exact
        budget test of spec 08 runs with that budget (up to 2,500; above, the anytime e-process).
        ``budget="none"`` keeps the anytime e-process. (``nmax`` before 0.2.)
    ties : {"allow", "assume_none"}, default "allow"
        ``allow``: valid when two policies are exactly tied; ``assume_none``: the papers' setting.
    guarantee : {"paper", "strict"}, default "paper"
        See the module docstring.
    policies : list of str, optional
        Columns to rank, in this order (default: all, in table order).
    heldout_prior_rows : int, default 0
        If > 0 (and no prior is given), the prior is the mean of each policy over the first rows in the order
        they are read (the first rows of a random order by default), which are then removed before testing
        (the authors' held-out setting).
    pairing : {"by_row", "by_order"}, default "by_row"
        ``by_row``: trial r of every policy ran on environment r (paired). ``by_order``: each policy's
        trials are compacted and the n-th trials are paired (independent streams).
    bins : {"progress", "binary"}, optional
        Score bins: "progress" = 0, 0.1, ..., 1 (partial credit), "binary" = 0/1. Default: binary when every
        value of the whole table is 0 or 1 (:mod:`certirank.methods.plan`), else progress.
        (``metric`` before 0.2.)
    graph, forward_fraction, direction_split, bettor, transitive_closure
        Advanced settings of spec 03 §2.
    trajectory : bool, default False
        Also return the total samples after each iteration.
    format, score_range
        Passed to :func:`certirank.load` (input layout; rescaling of scores to [0, 1]).
    budget : {"auto", "none", "final", "extendable"}, default "auto"
        ``none``: each comparison is the anytime e-process of spec 01. ``final`` / ``extendable``: the exact
        budget test of spec 08 calibrated for ``n_max`` trials per comparison (needs ``bins="binary"`` and an
        explicit ``n_max``); ``final`` holds up to the budget, ``extendable`` adds the e-process (w = 0.9) and
        holds for ever. ``auto``: ``final`` when ``bins="binary"`` and ``n_max`` (at most 2500) is given,
        else ``none``.
    arms : {"paired", "independent"}, optional
        Calibration of the exact test (spec 08 §3b): ``paired`` is valid for any correlation between the two
        policies' outcomes on a trial; ``independent`` only when their rollouts are independent. Default: from
        the layout (:func:`certirank.methods.plan.layout_arms`): outcome lists, long tables without an
        environment column and per-policy folders matched by trial number are independent; wide rows, tables
        with environment labels and folders keyed by environment are paired.
    concentration : float, optional
        Beta(a, a) concentration of the exact test's statistic (default 4; fixed before data).
    statistic : {"bayes", "mixture"}, optional
        The exact test's statistic (default ``bayes``: the fastest-decision boundaries for that Beta prior;
        ``mixture``: the Beta-mixture likelihood ratio itself). See docs/anyrank.md.

    about : {"policy", "table"}, default "policy"
        What a certified claim is about (spec 09 §2): each policy's expected score on new trials, or
        (``"table"``) the average over exactly these rows -- then the result is
        :func:`certirank.methods.shuffled.table_ranking`'s :class:`TableRanking`.
    order : {"random", "given"}, default "random"
        How the rows are read (spec 09 §3): a uniformly random order of the rows (environments), drawn from
        ``seed``, or as recorded (``"given"``; the order check of spec 09 §4 then warns about a sorted file).
        A column ``order`` given in the file, ``time`` or ``timestamp`` is the run order and is read as such.
    seed : int, default 0
        Seed of the random order (part of the analysis: trying seeds until one certifies voids the guarantee).
    order_by : str, optional
        A column that holds the run order; the rows are read in its order.
    orders : int, default 1
        With K > 1: the answer averaged over K random orders (seeds ``seed`` .. ``seed + K - 1``; spec 09 §5), a
        statement at the table's size with no seed luck.
    group_by : str or list of str, optional
        Rank within each group of these columns (``certirank rank --group-by``): one result per group, with
        every other argument as given; policies of different groups are never compared.
    alpha_across_groups : bool, default False
        With ``group_by``: ``alpha`` is split over the groups (Bonferroni), so every certified statement of every
        group holds together with probability at least 1 - alpha; otherwise ``alpha`` holds within each group.

    Returns
    -------
    RankingResult
        (:class:`TableRanking` for ``about="table"``; :class:`~certirank.methods.groups.GroupedResult` with
        ``group_by``.)

    Raises
    ------
    DataError, ParameterError
        Unreadable data, scores outside [0, 1], unknown policies, prior names not matching the data, fewer
        than two policies, bad parameters.
    """
    if group_by is not None:
        given = dict(locals())
        from ..groups import run_verb_by_group
        return run_verb_by_group(anyrank, given, method="table-without-replacement" if about == "table"
                                 else f"anyrank:{method}")
    from ...data.order import read_order
    from ...data.table import dropped_notes
    from ...results import reader_warnings
    if about == "benchmark":
        raise ParameterError("AnyRank's claims are about the policies (about='policy'); claims about a fixed item "
                             "set over repeated runs are certirank.leaderboard's (about='benchmark')")
    table = _table_from_data(data, format=format, score_range=score_range)
    if about == "table":
        from ..shuffled import table_ranking
        if order != "random" or order_by is not None or orders != 1 or margin is not None:
            raise ParameterError("about='table' (--about table) reads the rows in one seeded random order: its test "
                                 "samples the table without replacement; order, order_by, orders and margin do not "
                                 "apply")
        return table_ranking(table, alpha, seed=seed, policies=policies)
    tp = _test_plan(data, table, policies, pairing, heldout_prior_rows, bins=bins, n_max=n_max, arms=arms,
                    budget=budget, statistic=statistic, concentration=concentration)
    bins, arms, budget = tp.bins, (tp.arms if tp.exact else "paired"), (tp.budget if tp.exact else "none")
    n_max = tp.n_max if tp.exact else n_max
    said = (note(tp.describe()), *(warning(w) for w in tp.warnings))
    plan = read_order(table, order=order, seed=seed, order_by=order_by, orders=orders)
    if plan.orders > 1:
        if margin is not None:
            raise ParameterError("margin (equivalence) is an anytime claim of one order of the rows; orders (--orders) "
                                 "averages over several orders at the table's size: give one of them")
        from .orders import ranking_over_orders
        over = ranking_over_orders(table, plan, alpha=alpha, method=method, prior=prior, gamma=gamma, n_max=n_max,
                                   ties=ties, guarantee=guarantee, policies=policies, pairing=pairing, graph=graph,
                                   forward_fraction=forward_fraction, direction_split=direction_split,
                                   bettor=bettor, bins=bins, transitive_closure=transitive_closure, budget=budget,
                                   arms=arms, concentration=concentration, statistic=statistic,
                                   heldout_prior_rows=heldout_prior_rows)
        return dataclasses.replace(over, warnings=(*said, *over.warnings)) if hasattr(over, "warnings") else over
    wide = read_wide(table, plan, policies)
    pols = [str(c) for c in wide.columns]
    if len(pols) < 2:
        raise DataError(f"ranking needs at least two policies; the data has {len(pols)}"
                        + (f" ({pols[0]})" if pols else ""))
    h = heldout_prior_rows  # 0 = no held-out prior
    arr = wide.to_numpy(dtype=float)
    if h:
        if h >= arr.shape[0]:
            raise DataError(f"heldout_prior_rows = {h} leaves no rows to test (the data has {arr.shape[0]})")
        head = arr[:h]
        cnt = (~np.isnan(head)).sum(axis=0)
        if (cnt == 0).any():
            p = pols[int(np.flatnonzero(cnt == 0)[0])]
            raise DataError(f"policy {p} has no trials in the first {h} rows, so no held-out prior")
        prior = dict(zip(pols, np.nanmean(head, axis=0).tolist()))
        arr = arr[h:]
    if pairing == "by_order":
        cols = [c[~np.isnan(c)] for c in arr.T]
        n = max((c.size for c in cols), default=0)
        packed = np.full((n, len(cols)), np.nan)
        for i, c in enumerate(cols):
            packed[:c.size, i] = c
        arr = packed
    setup = _make_setup(pols, alpha, method, prior, gamma, n_max, ties, guarantee, graph=graph,
                        forward_fraction=forward_fraction, direction_split=direction_split, bettor=bettor,
                        bins=bins, transitive_closure=transitive_closure, default_n_max=max(arr.shape[0], 1),
                        budget=budget, arms=arms, concentration=concentration, statistic=statistic)
    if setup.bins == "binary":  # refused before any test runs, naming what was declared
        bad = np.argwhere(~np.isnan(arr) & (arr != 0.0) & (arr != 1.0))
        if len(bad):
            r, c = bad[0]
            raise DataError(f"{len(bad)} score(s) are neither 0 nor 1 (first: {pols[c]} {arr[r, c]:g}); bins='binary' "
                            "(--bins binary) declares success/failure data; for partial progress keep the default "
                            "bins='progress'")
    camp = _Campaign(setup, _Table(setup.m, arr), trajectory=trajectory)
    camp.run_replay()
    res = camp.result()
    details = open_pair_verdicts(camp, res.undecided_details, margin, futility, n_max=n_max)
    res = dataclasses.replace(res, undecided_details=details, margin=margin)
    if margin is not None:
        res = with_equivalence(res, details, margin)
    notes = dropped_notes(table)
    if notes:
        res = dataclasses.replace(res, ranking=dataclasses.replace(res.ranking, notes=(*res.ranking.notes, *notes)))
    src = table.attrs.get("source")
    return dataclasses.replace(res, order=plan.to_dict(), source=None if src is None else str(src),
                               warnings=(*said, *reader_warnings(table), *order_warnings(table, plan, wide),
                                         *res.warnings))


def _test_plan(data: Any, table: pd.DataFrame, policies: Sequence[str] | None, pairing: str, heldout: int,
               **given: Any) -> Any:
    """Which test runs (spec 09 §6): the whole table's scale, its pairing units (the rows AnyRank replays, by
    environment or, with pairing by order, the longest run) and its layout's arms, before any row is read."""
    from ...data.table import to_wide
    from ..plan import layout_arms, plan_whole_data

    wide = to_wide(table)
    if policies is not None:
        wide = wide[[p for p in map(str, policies) if p in wide.columns]]
    counts = wide.notna().sum(axis=0)
    units = int(counts.max()) if pairing == "by_order" and len(counts) else len(wide)
    # a table read earlier (the CLI reads once) keeps the layout its reader found; reading it again says "long"
    layout = layout_arms(data if isinstance(data, pd.DataFrame) and data.attrs.get("format") else table)
    exact_only = tuple(n for n in ("statistic", "concentration") if given.pop(n) is not None)
    return plan_whole_data(wide.to_numpy(dtype=float), units=max(units - heldout, 1), layout=layout,
                           exact_only=exact_only, **given)


def _score_array(scores: Any, policies: Sequence[str] | None, shape: str) -> tuple[np.ndarray, list[str]]:
    """Pre-drawn scores as a float array of the documented `shape` (last axis = policies), and the names."""
    arr = np.asarray(scores, dtype=float)
    ndim = shape.count(",") + 1
    if arr.ndim != ndim:
        raise DataError(f"scores must be a {ndim}-d array {shape}, got shape {arr.shape}")
    finite = arr[~np.isnan(arr)]
    if finite.size and (finite.min() < 0 or finite.max() > 1):
        raise DataError("scores must lie in [0, 1] (NaN = missing)")
    m = arr.shape[-1]
    pols = list(policies) if policies is not None else [f"p{i}" for i in range(m)]
    if len(pols) != m:
        raise ParameterError(f"{len(pols)} policy names for {m} columns")
    return arr, pols


@keyword_only(("method", "prior", "gamma", "n_max", "ties"))
@validated("run_campaign")
def run_campaign(scores: Any, alpha: float = 0.05, *, method: str = "anyrank", prior: Any = None,
                 gamma: float = 1.0, n_max: int | None = None, ties: str = "allow", guarantee: str = "paper",
                 policies: Sequence[str] | None = None, trajectory: bool = False, **options: Any) -> RankingResult:
    """One simulated campaign over a pre-drawn score table (the fast path for Monte Carlo studies).

    Parameters
    ----------
    scores : array_like, shape (n_trials, M)
        Row r = trial r (environment r) of every policy, as in a wide per-trial table; NaN = missing. Only
        the first ``n_max`` complete pairs of each hypothesis can be used; draw at least ``n_max`` rows.
    alpha, method, prior, gamma, n_max, ties, guarantee
        As in :func:`anyrank` (``n_max`` defaults to ``n_trials``).
    policies : list of str, optional
        Names (default ``p0 .. p{M-1}``).
    trajectory : bool, default False
        Add ``result.trajectory["total_samples"]``: total rollouts after each iteration 1..t; each decision
        also carries its ``iteration`` and ``total_samples``.
    **options
        ``graph``, ``forward_fraction``, ``direction_split``, ``bettor``, ``bins``, ``transitive_closure``.

    Returns
    -------
    RankingResult
    """
    arr, pols = _score_array(scores, policies, "(n_trials, M)")
    setup = _make_setup(pols, alpha, method, prior, gamma, n_max, ties, guarantee,
                        default_n_max=max(arr.shape[0], 1), **options)
    camp = _Campaign(setup, _Table(setup.m, arr), trajectory=trajectory)
    camp.run_replay()
    return camp.result()


@keyword_only(("method", "prior", "gamma", "n_max", "ties"))
@validated("run_campaigns")
def run_campaigns(scores: Any, alpha: float = 0.05, *, method: str = "anyrank", prior: Any = None,
                  gamma: float = 1.0, n_max: int | None = None, ties: str = "allow", guarantee: str = "paper",
                  policies: Sequence[str] | None = None, trajectory: bool = False, chunk: int = 100,
                  **options: Any) -> list[RankingResult]:
    """Many independent campaigns at once (simulation studies): ``scores`` has shape (runs, n_trials, M).

    The campaigns' p-processes are computed together in one vectorised evidence bank (``chunk`` runs at a
    time), in blocks, only as far as the campaigns still running need them; every campaign then jumps from
    event to event on its own. Results are identical to calling :func:`run_campaign` on each table.

    Parameters
    ----------
    scores : array_like, shape (runs, n_trials, M)
        One pre-drawn table per run (NaN = missing).
    chunk : int, default 100
        Campaigns per bank (memory ~ chunk * K * n_max * 16 bytes).
    Other parameters as in :func:`run_campaign`.

    Returns
    -------
    list of RankingResult, in run order.
    """
    arr, pols = _score_array(scores, policies, "(runs, n_trials, M)")
    runs, n_rows, m = arr.shape
    setup = _make_setup(pols, alpha, method, prior, gamma, n_max, ties, guarantee,
                        default_n_max=max(n_rows, 1), **options)
    out: list[RankingResult] = []
    for start in range(0, runs, chunk):
        out.extend(_run_chunk(setup, arr[start:start + chunk], trajectory))
    return out


def _run_chunk(setup: _Setup, arr: np.ndarray, trajectory: bool) -> list[RankingResult]:
    camps = [_Campaign(setup, _Table(setup.m, a), trajectory=trajectory) for a in arr]
    r = len(camps)
    k = camps[0].k
    lmax = min(arr.shape[1], setup.n_max)
    xs = np.zeros((r, k, lmax))
    ys = np.zeros((r, k, lmax))
    pls = np.ones((r, k, lmax + 1))
    pms = np.ones((r, k, lmax + 1))
    fut = camps[0]._futility
    prs = np.full((r, k, lmax + 1, 2), np.inf) if fut else None
    for idx, c in enumerate(camps):
        c._prepare_paths(lmax, xs[idx], ys[idx], pls[idx], pms[idx], prs[idx] if fut else None)
    bank = _make_streams(setup, r * k)
    gens = {}
    waiting: dict[int, int] = {}
    for idx, c in enumerate(camps):
        g = c._replay_steps()
        try:
            waiting[idx] = next(g)
            gens[idx] = g
        except StopIteration:
            pass
    avail = 0
    while waiting:
        target = min(lmax, max(min(waiting.values()), avail + _BLOCK, 2 * avail))
        act = np.array(sorted(waiting), dtype=np.int64)
        streams = (act[:, None] * k + np.arange(k)[None, :]).ravel()
        for step in range(avail, target):
            bank.update(streams, xs[act, :, step].ravel(), ys[act, :, step].ravel())
            pls[act, :, step + 1] = bank.pvalue_less[streams].reshape(act.size, k)
            pms[act, :, step + 1] = bank.pvalue_more[streams].reshape(act.size, k)
            if fut:
                prs[act, :, step + 1] = bank.reachable[streams].reshape(act.size, k, 2)
        avail = target
        for idx in act:
            c = camps[idx]
            c._avail = avail
            g = gens[idx]
            try:
                need = waiting[idx]
                while need <= avail:
                    need = g.send(None)
                waiting[idx] = need
            except StopIteration:
                del waiting[idx]
    return [c.result() for c in camps]
