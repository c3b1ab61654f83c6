"""AnyRank averaged over several random orders of a whole table (spec 09 §5): an answer with no seed luck.

For K seeded random orders of the rows, each pair's test is run to the last row of each order. For the
e-process of spec 01 the K final e-values (one per direction) average into an e-value for the whole table
(Markov), so p = min(1, K / sum E_k); for the exact budget test of spec 08 the K p-values merge as
p = min(1, 2 mean p_k) (Vovk & Wang 2020, valid for any dependence between the orders). The pairs' p-values then
go through the pre-registered graphical procedure of spec 02 (the same graph AnyRank would use) at once. This
is a statement at the table's size, not at every stop: no decision time is reported.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ...errors import DataError, ParameterError
from ...order.result import Relation, make_ranking
from .config import _EITHER, _J_BETTER, _design, _make_setup
from .engine import _budget_note
from .result import RankingResult, _statement

__all__ = ["ranking_over_orders"]


def _pair(wide: np.ndarray, i: int, j: int, pairing: str) -> tuple[np.ndarray, np.ndarray]:
    x, y = wide[:, i], wide[:, j]
    if pairing == "by_order":
        xs, ys = x[~np.isnan(x)], y[~np.isnan(y)]
        n = min(xs.size, ys.size)
        return xs[:n], ys[:n]
    both = ~np.isnan(x) & ~np.isnan(y)
    return x[both], y[both]


def ranking_over_orders(table: pd.DataFrame, plan: Any, *, alpha: float, method: str, prior: Any, gamma: float,
                        n_max: int | None, ties: str, guarantee: str, policies: Any, pairing: str, graph: str,
                        forward_fraction: float, direction_split: float, bettor: str, bins: str,
                        transitive_closure: bool, budget: str, arms: str, concentration: float | None,
                        statistic: str | None, heldout_prior_rows: int) -> RankingResult:
    """AnyRank's answer averaged over ``plan.orders`` random orders of ``table`` (see the module docstring)."""
    from ...data.table import dropped_notes
    from ...multitest.bretz import graph_test
    from ...results import reader_warnings
    from ...evidence.streams import combine
    from ..compare import _test
    from ._wide import read_wide

    if heldout_prior_rows:
        raise ParameterError("heldout_prior_rows (--heldout-prior-rows) takes the first rows of one order; with "
                             "orders > 1 (--orders) give the prior itself (prior=, --prior)")
    wides = [read_wide(table, plan, policies, k) for k in range(plan.orders)]
    pols = [str(c) for c in wides[0].columns]
    if len(pols) < 2:
        raise DataError(f"ranking needs at least two policies; the data has {len(pols)}")
    arrays = [w.to_numpy(dtype=float) for w in wides]
    rows = arrays[0].shape[0]
    setup = _make_setup(pols, alpha, method, prior, gamma, n_max, ties, guarantee, graph=graph,
                        forward_fraction=forward_fraction, direction_split=direction_split, bettor=bettor,
                        bins=bins, transitive_closure=transitive_closure, default_n_max=max(rows, 1),
                        budget=budget, arms=arms, concentration=concentration, statistic=statistic)
    exact = setup.budget != "none"
    options = {k: v for k, v in (("concentration", setup.concentration), ("statistic", setup.statistic))
               if exact and v is not None}
    design = _design(setup)
    k_pairs = design.pairs.shape[0]
    p_less = np.ones(k_pairs)
    p_more = np.ones(k_pairs)
    used = np.zeros(k_pairs, dtype=np.int64)
    for k, (i, j) in enumerate(design.pairs.tolist()):
        tests = []
        for arr in arrays:
            x, y = _pair(arr, i, j, pairing)
            if x.size == 0:
                break
            tests.append(_test(x, y, alpha=alpha, bettor=setup.bettor, ties=setup.ties,
                               bins="binary" if exact else setup.bins, n_max=setup.n_max if exact else None,
                               arms=setup.arms, extendable=setup.budget == "extendable", options=options))
        if not tests:
            continue
        used[k] = tests[0].n
        if exact:
            p_less[k] = min(1.0, 2.0 * float(np.mean([t.p_less for t in tests])))
            p_more[k] = min(1.0, 2.0 * float(np.mean([t.p_more for t in tests])))
        else:
            p_less[k] = min(1.0, len(tests) / float(np.sum(np.exp([t.log_evalue_less for t in tests]))))
            p_more[k] = min(1.0, len(tests) / float(np.sum(np.exp([t.log_evalue_more for t in tests]))))
    if setup.guarantee == "paper":
        node_p = np.asarray(combine(p_less, p_more, setup.ties), dtype=float)
    else:  # node 2k: "j better" (p_less), node 2k + 1: "i better" (p_more)
        node_p = np.column_stack([p_less, p_more]).reshape(-1)
    rejected = graph_test(design.graph, np.clip(node_p, 0.0, 1.0), alpha).rejected
    rels = []
    decided = np.zeros(k_pairs, dtype=bool)
    for node in np.flatnonzero(rejected):
        k = int(design.node_pair[node])
        if decided[k]:
            continue
        d = int(design.node_dir[node])
        if d == _EITHER:
            if p_less[k] == p_more[k]:
                continue
            d = _J_BETTER if p_less[k] < p_more[k] else -1
        i, j = (int(v) for v in design.pairs[k])
        better, worse = (j, i) if d == _J_BETTER else (i, j)
        decided[k] = True
        rels.append(Relation(pols[better], pols[worse], "test", None, float(node_p[node]), "pvalue",
                             {"trials": int(used[k])}))
    means = {p: float(np.nanmean(arrays[0][:, c])) if np.isfinite(arrays[0][:, c]).any() else None
             for c, p in enumerate(pols)}
    counts = {p: int(np.isfinite(arrays[0][:, c]).sum()) for c, p in enumerate(pols)}
    statement = (_statement(setup) + _budget_note(setup)
                 + f" Averaged over {plan.orders} random orders of the {rows} rows (spec 09 §5): a statement at "
                 "this size, not at every stop.")
    stopped = f"all {rows} rows read in each of {plan.orders} random orders"
    ranking = make_ranking(pols, rels, kind=setup.method, alpha=alpha, guarantee=statement, means=means, n=counts,
                           when_unit=None, stopped=stopped, notes=dropped_notes(table),
                           closure=setup.transitive_closure, about="policy")
    open_pairs = []
    for k, (i, j) in enumerate(design.pairs.tolist()):
        if not decided[k]:
            open_pairs.append({"pair": [pols[i], pols[j]], "trials": int(used[k]),
                               "pvalue": float(combine(p_less[k], p_more[k], setup.ties)),
                               "p_less": float(p_less[k]), "p_more": float(p_more[k]), "level": None,
                               "budget_exhausted": True, "futile": False})
    src = table.attrs.get("source")
    return RankingResult(method=setup.method, alpha=setup.alpha, guarantee=setup.guarantee, ties=setup.ties,
                         policies=pols, ranking=ranking, undecided_details=open_pairs,
                         total_samples=int(sum(counts.values())), iterations=0, n_max=int(setup.n_max),
                         bins=setup.bins, budget=setup.budget, arms=setup.arms, about="policy",
                         order=plan.to_dict(), source=None if src is None else str(src),
                         warnings=reader_warnings(table))
