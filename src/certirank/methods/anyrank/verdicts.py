"""Pair verdicts beyond "certified" for an AnyRank replay: equivalent, futile, and how many more (issue 35).

For every pair still open at the end of a replay, from the paired trials that pair consumed:

- **equivalent** (only with a ``margin`` fixed before the data): the two one-sided e-processes of
  :mod:`certirank.evidence.equivalence` on the pair's differences, each at half of the pair's *current* level
  a_k — the level its difference test is held to. Per pair, P(any false claim about it) <= a_k for every true
  difference (the case analysis in :mod:`certirank.evidence.equivalence`), so with a method that recycles no
  level (``bonferroni``, ``weighted-bonferroni``; sum a_k <= alpha) the union bound proves FWER <= alpha over
  the difference and equivalence claims together. With level recycling (AnyRank), an equivalence claim has the
  status of a reversal (spec 03 §10 item 3): per-pair proof, paper argument across pairs; equivalence
  verdicts never pass level on to other pairs.
- **more_needed / futile**: the forecast of :mod:`certirank.evidence.forecast` at the pair's level — a
  forecast at the current estimates, never a guarantee. ``futile`` only with a budget ``n_max``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...evidence.equivalence import EquivalenceTest
from ...evidence.forecast import FUTILITY, Side, forecast


def with_equivalence(res: Any, details: list[dict[str, Any]], margin: float) -> Any:
    """`res` (a RankingResult) with `details` (from :func:`open_pair_verdicts`) and its ranking's equivalent
    pairs, the guarantee sentence saying what covers them (one home for the replay and the live Ranker)."""
    import dataclasses
    proof = ("proved by a union bound over the pairs' fixed levels" if res.method in ("bonferroni",
             "weighted-bonferroni") else "with level recycling an equivalence claim has the status of a reversal: "
             "proved per pair, across pairs by the paper's argument")
    rk = res.ranking.with_equivalent([d["pair"] for d in details if d["verdict"] == "equivalent"], margin)
    rk = dataclasses.replace(rk, guarantee=rk.guarantee + f" Equivalence (margin {margin:g}, fixed before the "
                             "data): each pair left open is tested at its own level with two one-sided tests "
                             f"against ±{margin:g}, so the error bound covers equivalence claims too ({proof}).")
    return dataclasses.replace(res, ranking=rk, undecided_details=details, margin=margin)


def open_pair_verdicts(camp: Any, details: list[dict[str, Any]], margin: float | None,
                       futility: float = FUTILITY, n_max: int | None = None) -> list[dict[str, Any]]:
    """`details` (one per open pair, as in RankingResult.undecided_details) with ``verdict``, ``more_needed``
    and, with a margin, ``equivalent_at`` / ``p_equivalent`` added."""
    s = camp.s
    index = {(s.policies[camp.pi[k]], s.policies[camp.pj[k]]): k for k in range(camp.k)}
    out = []
    for det in details:
        k = index[tuple(det["pair"])]
        rows = camp._rows[k][:int(camp.n[k])]
        x = camp.table.vals[rows, camp.pi[k]]
        y = camp.table.vals[rows, camp.pj[k]]
        level = float(det["level"])
        new = dict(det)
        eq = None
        if margin is not None and level > 0 and rows.size:
            eq = EquivalenceTest(margin, level).update_many(x, y)
            new["equivalent_at"] = eq.decided_at
            new["p_equivalent"] = eq.pvalue
        if eq is not None and eq.equivalent:
            new["verdict"] = "equivalent"
            new["more_needed"] = None
        else:
            fc = _forecast(x, y, det, level, eq, futility, n_max)
            new["more_needed"] = None if fc is None else fc.more_needed
            new["forecast"] = None if fc is None else fc.to_dict()
            new["verdict"] = "futile" if (det.get("futile") or (fc is not None and fc.futile)) else "undecided"
        out.append(new)
    return out


def _forecast(x: np.ndarray, y: np.ndarray, det: dict[str, Any], level: float, eq: EquivalenceTest | None,
              futility: float, n_max: int | None) -> Any:
    if level <= 0 or x.size == 0:
        return None
    d = y - x
    target = math.log(2.0 / level)
    routes = [[Side(d, -math.log(max(det["p_less"], 1e-300)), target)],
              [Side(-d, -math.log(max(det["p_more"], 1e-300)), target)]]
    if eq is not None:
        lw = eq.bank.log_wealth[0]
        m = eq.margin
        routes.append([Side((d + m) / (1 - m), float(lw[0]), target), Side((m - d) / (1 - m), float(lw[1]), target)])
    return forecast(routes, n_seen=x.size, n_max=n_max, futility=futility)
