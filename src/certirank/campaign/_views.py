"""What `status` shows: the budget left to finish, and a result relabelled with blind codes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any



def remaining(res: Any, n_max: int) -> dict[str, Any]:
    """At most how many more paired trials each policy needs: the largest budget left on its open pairs."""
    per: dict[str, int] = dict.fromkeys(res.ranking.names, 0)
    for d in res.undecided_details:
        left = 0 if d["budget_exhausted"] else max(0, int(n_max) - int(d["trials"]))
        for p in d["pair"]:
            per[p] = max(per[p], left)
    return {"per_policy": per, "total": int(sum(per.values())), "open_pairs": len(res.ranking.undecided),
            "n_max": int(n_max),
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
        if isinstance(detail.get("log_e"), list):  # a leaderboard's: [first -> second, second -> first]
            out["log_e"] = list(reversed(detail["log_e"]))
    return out


def relabel(res: Any, codes: Mapping[str, str]) -> Any:
    """The same result with every policy name replaced by its blind code: its one Ranking relabelled (display
    order and letters rebuilt from the codes, never the names), and AnyRank's open pairs listed in code order."""
    import dataclasses

    def c(name: Any) -> Any:
        return codes.get(name, name) if isinstance(name, str) else name

    changes: dict[str, Any] = {"ranking": res.ranking.relabel(codes)}
    if isinstance(getattr(res, "policies", None), list):  # the configured order would tell which code is which
        changes["policies"] = sorted(c(p) for p in res.policies)
    if hasattr(res, "undecided_details"):
        changes["undecided_details"] = sorted((_coded_pair(d, c) for d in res.undecided_details),
                                              key=lambda d: d["pair"])
    return dataclasses.replace(res, **changes)
