"""Test helpers that read the record: a result's certified relations as plain dicts, in decision order."""

from __future__ import annotations

from typing import Any


def decisions(res: Any) -> list[dict[str, Any]]:
    """The relations of ``res.ranking`` as dicts (``better``, ``worse``, ``via``, ``kind`` = direct / implied,
    ``decided_at``, the evidence under its kind's name -- ``pvalue``, ``log_e``, ... -- and the relation's
    details), in the order the method decided them (AnyRank: its ``step``)."""
    rels = res.decided() if hasattr(res, "decided") else sorted(res.ranking.relations,
                                                                 key=lambda r: (r.when is None, r.when or 0))
    return [{"better": r.better, "worse": r.worse, "via": r.via, "kind": "direct" if r.via == "test" else "implied",
             "decided_at": r.when, **({r.evidence_kind: r.evidence} if r.evidence_kind else {}),
             **dict(r.details or {})}
            for r in rels]


def flat(d: dict[str, Any]) -> dict[str, Any]:
    """A record's inputs and details in one mapping (with its kind, about, ranking and warnings), for tests that
    read a field wherever the record keeps it."""
    return {**d["inputs"], **d["details"], "kind": d["kind"], "about": d["about"], "ranking": d["ranking"],
            "warnings": d["warnings"]}
