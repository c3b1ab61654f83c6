"""A leaderboard of a whole single-run binary item table: every pair of models by the exact budget test (issue 31
item 7, spec 09 §6).

A table in hand has a known number of items, so that number is the budget of spec 08's exact test, fixed before
any row is read (`certirank.methods.plan`). Each pair of models is the paired discordant-pair test on the items
read in a seeded random order (spec 09 §3), with `plan.WHOLE_TABLE_SHARE` of its level on McNemar's exact test at
the table's end (`certirank.evidence.budget.final_pvalues`, ``final_share``): still valid at every stop up to the
table's size, and at the end nearly McNemar's exact test at the full level. Holm over all pairs then certifies
about as many pairs as McNemar + Holm, the fixed-time test lm-eval users ask for
(`benchmarks/studies/llm_tables_budget_vs_mcnemar.py`).

Holm's step-down reads each pair's p-value at the same stop (the table's end here); every p-value is valid at any
stopping time, so each Bonferroni intersection test of the closure is valid there, and the family-wise error is
at most alpha. The claims are about the models' expected scores on items like these (``about="policy"``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["item_table_board"]


def _scores(table: Any) -> tuple[list[str], np.ndarray]:
    """(models, (models, items) scores) with the items in the table's ``order``; every model must answer every item
    (the caller has checked the table is one run)."""
    import pandas as pd

    read = table.sort_values("order", kind="stable")
    mi, models = pd.factorize(read["policy"])
    ii, items = pd.factorize(read["env"])
    scores = np.full((len(models), len(items)), np.nan)
    scores[mi, ii] = read["score"].to_numpy(dtype=float)
    if np.isnan(scores).any():
        from ..errors import DataError
        m, i = (int(v[0]) for v in np.nonzero(np.isnan(scores)))
        raise DataError(f"model {models[m]!r} is missing item {items[i]!r}; every model must be scored on every item",
                        source=table.attrs.get("source"))
    return [str(m) for m in models], scores


def item_table_board(table: Any, *, alpha: float, plan: Any, share: float) -> Any:
    """The `LeaderboardResult` of the pairwise exact budget tests on a validated single-run table (complete
    panel, binary scores), with Holm over the pairs at the table's end."""
    import dataclasses

    from ..data.order import arrange, read_order
    from ..evidence.budget_streams import BudgetStreams
    from ..multitest.graphical import holm_rejections
    from ..order.result import Relation, make_ranking
    from .bbedge.result import LeaderboardResult

    order = read_order(table)
    models, scores = _scores(arrange(table, order))
    n_models, n_items = scores.shape
    first, second = np.triu_indices(n_models, 1)
    streams = BudgetStreams(first.size, plan.n_max, alpha=alpha, ties="allow", arms=plan.arms, final_share=share)
    for t in range(n_items):  # one vectorised update of every pair per item, in the read order
        streams.update(None, scores[first, t], scores[second, t])
    p_less, p_more, pvalue = streams.pvalue_less, streams.pvalue_more, streams.pvalue
    rejected = holm_rejections(pvalue, alpha)
    means = scores.mean(axis=1)
    rels = []
    relation = np.zeros((n_models, n_models), dtype=bool)
    for i, j, p, pl, pm in zip(first[rejected], second[rejected], pvalue[rejected], p_less[rejected],
                               p_more[rejected]):
        # x = model i, y = model j: "less" small => i's mean below j's
        better, worse = (j, i) if pl < pm else (i, j)
        relation[better, worse] = True
        rels.append(Relation(models[better], models[worse], "test", n_items, float(p), "pvalue"))
    pairs = int(first.size)
    guarantee = (f"With probability at least {100 * (1 - alpha):g}%, every certified edge is correct, at whatever item "
                 f"the table ends (each pair of models by the exact budget test on its {n_items} items, "
                 f"{share:.0%} of its level on McNemar's exact test at the table's end; Holm over {pairs} pairs).")
    ranking = make_ranking(models, rels, kind="exact-budget", alpha=alpha, guarantee=guarantee, means=list(means),
                           n=[n_items] * n_models, when_unit="items", about="policy")
    blocks = {"resolution": "singleton", "blocks": "items", "n_blocks": n_items,
              "source": "default: each pair of models is compared item by item",
              "statement": (f"blocks = items (one block per item), {order.sentence('items')}; assumes items are "
                            "scored independently (no shared cache, judge or batch state)")}
    details = _open_pair_forecasts(ranking.undecided, models, scores, first, second, p_less, p_more, rejected,
                                   alpha)
    return dataclasses.replace(
        LeaderboardResult(alpha=alpha, tau=0.0, method="exact-budget", output="current", ranking=ranking,
                          replicates=1, blocks=blocks, top_k=None, epoch=1, n_items=n_items, stages=[],
                          earlier_epochs=[], stake="none", about="policy", _names=tuple(models), _means=means,
                          _relation=relation, undecided_details=details),
        order=order.to_dict())


def _open_pair_forecasts(undecided: Any, models: list[str], scores: np.ndarray, first: np.ndarray,
                         second: np.ndarray, p_less: np.ndarray, p_more: np.ndarray, rejected: np.ndarray,
                         alpha: float) -> list[dict[str, Any]]:
    """Per undecided pair: about how many further items like these a longer benchmark would need, at the current
    estimates (a forecast, never a guarantee). The table is read to its end, so nothing more can be decided within
    it, and there is no budget beyond it: no futility verdict. As AnyRank's binary forecast
    (`methods.anyrank.verdicts`): each side bets on the pair's item differences from the wealth its p-value stands
    for, to the level Holm would hold the pair to next (alpha over the pairs still open; half per side)."""
    from ..evidence.forecast import Side, forecast

    index = {frozenset((models[i], models[j])): k for k, (i, j) in enumerate(zip(first.tolist(), second.tolist()))}
    level = alpha / max(1, int(rejected.size - np.count_nonzero(rejected)))
    target = float(np.log(2.0 / level))
    n_items = scores.shape[1]
    out = []
    for a, b in undecided:
        k = index[frozenset((a, b))]
        d = scores[second[k]] - scores[first[k]]  # > 0: the second model scores higher
        pl, pm = float(p_less[k]), float(p_more[k])
        routes = [[Side(d, -float(np.log(max(pl, 1e-300))), target)],
                  [Side(-d, -float(np.log(max(pm, 1e-300))), target)]]
        fc = forecast(routes, n_seen=n_items)
        if models[first[k]] != a:  # p_less / p_more follow the pair as listed: "less" = its first model is worse
            pl, pm = pm, pl
        out.append({"pair": [a, b], "items": n_items, "p_less": pl, "p_more": pm, "level": level,
                    "more_needed": fc.more_needed, "forecast": fc.to_dict(), "verdict": "undecided"})
    return out
