"""Reading results back: any record as a :class:`Record` (its ranking a Ranking again), and the migration of
JSON written before the record (certirank 0.1/0.2 shapes) into it. See docs/record.md."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ..errors import ParameterError
from ..order.result import Ranking, make_ranking
from ..results import KINDS, SCHEMA, Result, note, result_class, warning

__all__ = ["Record", "read", "migrate"]


@dataclasses.dataclass(frozen=True)
class Record:
    """Any record read back from JSON (:func:`read`): the seven parts, ``ranking`` as a Ranking (or None)."""

    kind: str
    about: str | None
    inputs: Mapping[str, Any]
    ranking: Any
    details: Mapping[str, Any]
    warnings: tuple[str, ...]

    def get(self, key: str, default: Any = None) -> Any:
        """``details[key]``, else ``inputs[key]``, else ``default``."""
        if key in self.details:
            return self.details[key]
        return self.inputs.get(key, default)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "schema": SCHEMA, "about": self.about, "inputs": dict(self.inputs),
                "ranking": None if self.ranking is None else self.ranking.to_dict(), "details": dict(self.details),
                "warnings": list(self.warnings)}


def read(obj: Any) -> Record:
    """A result as a :class:`Record`: a result object, its ``to_dict()``, a JSON file's content, or JSON written
    by an earlier version (migrated, :func:`migrate`)."""
    if isinstance(obj, Record):
        return obj
    if isinstance(obj, Result):
        d: Mapping[str, Any] = obj.to_dict()
    elif isinstance(obj, Ranking):
        d = migrate(obj.to_dict())
    elif isinstance(obj, Mapping):
        d = migrate(obj)
    else:
        raise ParameterError(f"not a certirank result: {type(obj).__name__}")
    rk = d.get("ranking")
    try:
        ranking = None if rk is None else Ranking.from_dict(rk)
    except ParameterError as exc:
        raise ParameterError(f"the {d.get('kind')} result's ranking: {exc}") from None
    return Record(kind=str(d["kind"]), about=d.get("about"), inputs=dict(d.get("inputs") or {}), ranking=ranking,
                  details=dict(d.get("details") or {}), warnings=tuple(str(w) for w in d.get("warnings") or ()))


_RANKING_SCHEMA = "certirank.ranking/1"
_RENAMED_KINDS = {"shuffled-rank": "table-rank"}
_DEFAULT_ABOUT = {"rank": "policy", "table-rank": "table", "preference-graph": "policy", "grouped": "policy",
                  "compare": "policy", "check": "policy", "leaderboard": "benchmark", "demo": "policy",
                  "campaign-status": "policy"}
# old key -> new key, per kind ("*": every kind)
_RENAMED_KEYS = {"*": {"p_value": "pvalue"}, "baseline": {"order": "score_order"},
                 "grouped": {"across_groups": "alpha_across_groups"}, "compare": {"x": "a", "y": "b"},
                 "report": {"kind": "page"}, "campaign-status": {"kind": "campaign"}}
# what an old shape kept beside the ranking (now read from it), or a second copy of something else
_DROPPED = {"policies", "decisions", "undecided", "letters", "means", "samples", "termination", "inconsistent",
            "statement", "models", "edges", "edge_details", "cycles", "schema", "decision"}
_KEEP = {"check": {"statement"}, "grouped": {"statement"}, "validate": {"statement"}}
_DROPPED_BY_KIND = {"baseline": {"guarantee"}}


def _rename(obj: Any) -> Any:
    """``p_value`` -> ``pvalue`` everywhere (one name per quantity)."""
    if isinstance(obj, Mapping):
        return {("pvalue" if k == "p_value" else k): _rename(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_rename(v) for v in obj]
    return obj


def _input_names(kind: str) -> set[str]:
    """The fields a kind's class declares as inputs (its one list of what defines a run)."""
    cls = result_class(kind)
    return {f.name for f in dataclasses.fields(cls) if f.metadata.get("part") == "inputs"}


def migrate(d: Mapping[str, Any]) -> dict[str, Any]:
    """Read a result's JSON, from this version or an earlier one, into the record (a new dict).

    Earlier shapes (before ``certirank.result/1``) are moved key by key: what the kind's class declares as an
    input goes to ``inputs``, the method's own copy of who beats whom (``policies``, ``decisions``, ``letters``,
    ``models``, ``edges``, ...) is dropped in favour of ``ranking`` (built from the verdict for a comparison or
    a gate, which had none), the rest goes to ``details``, renamed to today's names (``p_value`` -> ``pvalue``,
    ...), and a note such as ``trust_edited`` to ``warnings``. A bare ``certirank.ranking/1`` object becomes a
    record of kind ``"ranking"``; a kind-less comparison (``decision``, ``pvalue``, ``decided_at``, ``n``) one of
    kind ``"compare"``; the report's own JSON (its ``kind`` was the page's) one of kind ``"report"``.
    """
    if not isinstance(d, Mapping):
        raise ParameterError(f"a result must be a JSON object, got {type(d).__name__}")
    if d.get("schema") == SCHEMA:
        missing = [k for k in ("kind", "about", "inputs", "ranking", "details", "warnings") if k not in d]
        if missing:
            raise ParameterError(f"malformed {SCHEMA} record: no {', '.join(missing)}")
        return dict(d)
    if d.get("schema") == _RANKING_SCHEMA:
        return {"kind": "ranking", "schema": SCHEMA, "about": d.get("about"), "inputs": {}, "ranking": dict(d),
                "details": {}, "warnings": []}
    kind = d.get("kind")
    if {"path", "sections", "figures", "bytes"} <= set(d):
        kind = "report"
    elif d.get("schema") == "certirank.campaign.status/1":
        kind = "campaign-status"
    elif kind is None and {"decision", "pvalue", "decided_at", "n"} <= set(d):
        kind = "compare"
    if not isinstance(kind, str) or not kind:
        raise ParameterError("this JSON has no 'kind' entry: pass the --json output of a certirank command")
    kind = _RENAMED_KINDS.get(kind, kind)
    if kind not in KINDS:
        raise ParameterError(f"unknown result kind {kind!r}; the kinds are: {', '.join(KINDS)}")
    renames = {**_RENAMED_KEYS["*"], **_RENAMED_KEYS.get(kind, {})}
    body = {renames.get(k, k): v for k, v in d.items() if k != "kind" or kind in ("report", "campaign-status")}
    ins_names = _input_names(kind) | {"order", "source"}
    ranking = body.pop("ranking", None)
    warns = [warning(str(body.pop("trust_edited")).removeprefix("WARNING: "))] if body.get("trust_edited") else []
    body.pop("trust_edited", None)
    if kind == "report":
        warns += [note(n) for n in body.pop("notes", None) or ()]
    if kind == "campaign-status" and isinstance(ranking, Mapping):  # it held the method's result
        inner = migrate({"kind": "leaderboard" if body.get("campaign") == "leaderboard" else "rank", **ranking})
        ranking = inner.pop("ranking")
        body["result"] = {k: v for k, v in inner.items() if k not in ("schema", "about")}
    if kind == "compare" and not isinstance(ranking, Mapping):
        ranking = _compare_ranking(body)
    if kind == "check" and not isinstance(ranking, Mapping) and isinstance(body.get("claims"), list):
        ranking = _check_ranking(body)
    if kind == "demo" and isinstance(body.get("anyrank"), Mapping):
        inner = migrate({"kind": "rank", **body.pop("anyrank")})
        ranking = inner["ranking"]
        body.update(alpha=inner["inputs"].get("alpha"), total_samples=inner["details"].get("total_samples"),
                    iterations=inner["details"].get("iterations"))
        if isinstance(body.get("bonferroni"), Mapping):
            body["bonferroni"] = migrate({"kind": "rank", **body["bonferroni"]})
    if kind == "grouped" and isinstance(body.get("groups"), list):
        body["groups"] = [{**g, "result": None if g.get("result") is None else migrate(g["result"])}
                          for g in body["groups"]]
    dropped = (_DROPPED - _KEEP.get(kind, set())) | _DROPPED_BY_KIND.get(kind, set())
    ins: dict[str, Any] = {}
    det: dict[str, Any] = {}
    for k, v in body.items():
        if k in dropped and (isinstance(ranking, Mapping) or k == "schema"):
            continue
        if kind == "baseline" and k == "details" and isinstance(v, Mapping):
            det.update(v)
        elif k in ins_names:
            ins[k] = v
        else:
            det[k] = v
    if isinstance(ranking, Mapping) and "about" not in ranking:
        ranking = {**ranking, "about": _DEFAULT_ABOUT.get(kind)}
    about = d.get("about", ranking.get("about") if isinstance(ranking, Mapping) else _DEFAULT_ABOUT.get(kind))
    return {"kind": kind, "schema": SCHEMA, "about": about, "inputs": _rename(ins),
            "ranking": dict(ranking) if isinstance(ranking, Mapping) else None, "details": _rename(det),
            "warnings": warns}


def _compare_ranking(body: Mapping[str, Any]) -> dict[str, Any]:
    """The ranking an old comparison's verdict states (its JSON had none)."""
    a, b = str(body.get("a", "x")), str(body.get("b", "y"))
    decision = body.get("decision")
    rels = [] if decision not in ("x>y", "x<y") else [
        {"better": a if decision == "x>y" else b, "worse": b if decision == "x>y" else a,
         "when": body.get("decided_at"), "evidence": body.get("pvalue"), "evidence_kind": "pvalue"}]
    return make_ranking([a, b], rels, kind="compare", alpha=body.get("alpha"), n=[body.get("n"), body.get("n")],
                        when_unit="paired trials", about="policy").to_dict()


def _check_ranking(body: Mapping[str, Any]) -> dict[str, Any]:
    """The ranking an old gate's claims state (its JSON had none)."""
    names: list[str] = []
    rels = []
    for c in body["claims"]:
        names += [n for n in (c["better"], c["worse"]) if n not in names]
        if c["status"] == "certified":
            rels.append({"better": c["better"], "worse": c["worse"], "evidence": c.get("pvalue"),
                         "evidence_kind": "pvalue"})
        elif c["status"] == "certified the other way":
            rels.append({"better": c["worse"], "worse": c["better"], "evidence": c.get("pvalue"),
                         "evidence_kind": "pvalue"})
    return make_ranking(names, rels, kind="check", alpha=body.get("alpha"), guarantee=str(body.get("statement", "")),
                        closure=False, about="policy").to_dict()
