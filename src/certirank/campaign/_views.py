"""What `status` shows: the budget left to finish, and a result relabelled with blind codes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np


def remaining(res: Any, n_max: int) -> dict[str, Any]:
    """At most how many more paired trials each policy needs: the largest budget left on its open pairs."""
    per: dict[str, int] = dict.fromkeys(res.policies, 0)
    for d in res.undecided_details:
        left = 0 if d["budget_exhausted"] else max(0, int(n_max) - int(d["trials"]))
        for p in d["pair"]:
            per[p] = max(per[p], left)
    return {"per_policy": per, "total": int(sum(per.values())), "open_pairs": len(res.undecided), "n_max": int(n_max),
            "meaning": "upper bound: rollouts per policy if every open comparison ran to its budget n_max"}


def _coded_pair(detail: Mapping[str, Any], c: Any) -> dict[str, Any]:
    """An open pair under codes, listed in code order; its one-sided p-values follow the pair's direction,
    so they swap when the code order reverses the pair."""
    a, b = (c(x) for x in detail["pair"])
    out = {**detail, "pair": [a, b]}
    if b < a:
        out["pair"] = [b, a]
        if "p_less" in detail and "p_more" in detail:
            out["p_less"], out["p_more"] = detail["p_more"], detail["p_less"]
    return out


def relabel(res: Any, codes: Mapping[str, str]) -> Any:
    """The same result with every policy name replaced by its blind code (structure unchanged)."""
    import dataclasses

    def c(name: Any) -> Any:
        return codes.get(name, name) if isinstance(name, str) else name

    if not hasattr(res, "decisions"):
        return res
    # every list and mapping is re-sorted by code (display order: mean descending, then code), since the
    # configured policy order would otherwise tell which code is which policy
    pols = sorted(c(p) for p in res.policies)
    means = {c(k): v for k, v in res.means.items()}
    samples = {c(k): v for k, v in res.samples.items()}
    details = sorted((_coded_pair(d, c) for d in res.undecided_details), key=lambda d: d["pair"])
    extra = {}
    ranking = None
    if any(f.name == "ranking" for f in dataclasses.fields(res)):
        # the common Ranking (issue 14) is rebuilt from the codes (never the names), with the same rules as every
        # ranking: certified order first, letters from it; its policies are then listed in that order
        from ..order.result import make_ranking
        ranking = make_ranking(pols, [{"better": c(d["better"]), "worse": c(d["worse"]),
                                       "via": "closure" if d.get("via") == "transitivity" else "test",
                                       "when": d.get("decided_at"), "evidence": d.get("p_value"),
                                       "evidence_kind": "pvalue"} for d in res.decisions],
                               kind=res.method, alpha=res.alpha, guarantee=res.statement, means=means,
                               n={c(k): v for k, v in res.samples.items()}, when_unit="paired trials",
                               stopped=res.termination)
        extra["ranking"] = ranking
    if ranking is not None:
        letters = ranking.letters
    else:
        from ..order.letters import letters as _letters
        different = [(c(d["better"]), c(d["worse"])) for d in res.decisions]
        letters = _letters(pols, different, means=np.array([-1.0 if means[p] is None else means[p] for p in pols]))
    return dataclasses.replace(
        res, **extra, policies=pols,
        decisions=[{**d, "better": c(d["better"]), "worse": c(d["worse"])} for d in res.decisions],
        undecided=[d["pair"] for d in details], undecided_details=details,
        letters={p: letters[p] for p in letters}, samples={p: samples[p] for p in pols},
        means={p: means[p] for p in pols})
