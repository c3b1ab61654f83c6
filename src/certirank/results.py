"""The one record every command's result is (issue 36), its registry, and the migration of older JSON.

Every result of a command is a frozen dataclass deriving from :class:`Result` (scipy style: named fields).
Its ``to_dict()`` -- what ``--json`` prints, what ``certirank report`` and the campaign page read -- is always::

    {"kind", "schema", "about", "inputs", "ranking", "details", "warnings"}

- ``kind``: the result kind (mostly the command: "rank", "compare", ...); :data:`KINDS` maps it to its class.
- ``schema``: ``"certirank.result/1"``.
- ``about``: what a certified claim is about (spec 09 §2): ``"policy"``, ``"benchmark"``, ``"table"``, or None
  for results that certify nothing (a simulation, a composed test, a data summary).
- ``inputs``: what defines the run (alpha, method, test settings, ``order``, source, ...): the fields declared
  with :func:`inputs`.
- ``ranking``: the one :class:`certirank.order.Ranking` (the only "who beats whom"), or None for results that
  rank nothing.
- ``details``: method statistics, every other field.
- ``warnings``: every line the terminal prints (on stderr) as a warning or note about this run, as printed:
  ``"warning: ..."`` or ``"note: ..."`` (data the reader dropped, the order check, an edited state, ...). The
  ranking's own notes (data the method ignored) stay in ``ranking.notes``.

Classes live beside their method; this module imports none of them (it sits below every layer), so the
registry names each class by its module path and :func:`result_class` imports it on demand.
Plain value objects that are not a command's result (``graph_test``'s, a campaign's audit rows) use
:class:`ResultMixin`: their ``to_dict()`` is their fields.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import math
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

__all__ = ["SCHEMA", "ESTIMANDS", "KINDS", "Result", "ResultMixin", "Record", "inputs", "details", "plain",
           "result_class", "read", "migrate", "note", "warning", "reader_warnings"]

SCHEMA = "certirank.result/1"
ESTIMANDS = ("policy", "benchmark", "table")

# kind -> "module:Class". The one list of result kinds: `report` picks its page from it, docs/record.md lists it
# and tests/test_results.py checks that every Result subclass is here and every entry names a Result subclass.
KINDS: dict[str, str] = {
    "rank": "certirank.methods.anyrank.result:RankingResult",
    "table-rank": "certirank.methods.shuffled:TableRanking",
    "preference-graph": "certirank.methods.preferences:PreferenceGraph",
    "bradley-terry": "certirank.methods.bradley_terry.result:BradleyTerryGraph",
    "grouped": "certirank.methods.groups:GroupedResult",
    "compare": "certirank.evidence.compare:CompareResult",
    "check": "certirank.methods.check:CheckResult",
    "leaderboard": "certirank.methods.bbedge.result:LeaderboardResult",
    "baseline": "certirank.baselines._result:BaselineResult",
    "demo": "certirank.methods.anyrank.demo:DemoResult",
    "inspect": "certirank.data.summary:InspectResult",
    "simulate": "certirank.sim.runner:SimulationResult",
    "validate": "certirank.sim.validation:ValidationResult",
    "compose-test": "certirank.methods.rposst.compose:CompositionResult",
    "compose-test-simultaneous": "certirank.methods.rposst.simultaneous:SimultaneousComposition",
    "test-designs": "certirank.methods.rposst.protocol:DesignEvaluation",
    "item-evaluation": "certirank.methods.rposst.itemeval:ItemEvaluation",
    "report": "certirank.report.html:ReportResult",
    "campaign-status": "certirank.campaign.results:CampaignStatus",
}

_PARTS = ("inputs", "details")


def inputs(**kwargs: Any) -> Any:
    """A dataclass field that defines the run: it goes to the record's ``inputs``."""
    return dataclasses.field(metadata={"part": "inputs"}, **kwargs)


def details(**kwargs: Any) -> Any:
    """A dataclass field of method statistics (the default part): it goes to the record's ``details``."""
    return dataclasses.field(metadata={"part": "details"}, **kwargs)


def plain(obj: Any) -> Any:
    """Recursively convert `obj` into JSON-able Python data (numpy scalars and arrays become numbers and lists,
    NaN and infinities become None, sets are sorted)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        if hasattr(obj, "to_dict") and callable(obj.to_dict):
            return obj.to_dict()
        return {f.name: plain(getattr(obj, f.name)) for f in dataclasses.fields(obj) if not f.name.startswith("_")}
    if isinstance(obj, dict):
        return {str(plain(k)) if not isinstance(k, str) else k: plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        items = sorted(obj, key=str) if isinstance(obj, (set, frozenset)) else obj
        return [plain(v) for v in items]
    if isinstance(obj, np.ndarray):
        return [plain(v) for v in obj.tolist()]
    if isinstance(obj, (np.bool_, bool)):
        return bool(obj)
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        v = float(obj)
        return None if math.isnan(v) or math.isinf(v) else v
    if hasattr(obj, "to_dict") and callable(obj.to_dict) and not isinstance(obj, type):
        try:  # pandas objects
            return plain(obj.to_dict(orient="records")) if hasattr(obj, "columns") else plain(obj.to_dict())
        except TypeError:
            return plain(obj.to_dict())
    return obj


def _one_line(text: Any) -> str:
    return " ".join(str(text).split())


def note(text: Any) -> str:
    """A record's ``warnings`` entry that informs (what the reader or method did): ``"note: ..."``."""
    return f"note: {_one_line(text)}"


def warning(text: Any) -> str:
    """A record's ``warnings`` entry that warns (the guarantee may not mean what you think): ``"warning: ..."``."""
    return f"warning: {_one_line(text)}"


def reader_warnings(table: Any) -> tuple[str, ...]:
    """What the reader of a table decided (columns renamed, rows left out), as ``warnings`` entries."""
    attrs = getattr(table, "attrs", None) or {}
    return tuple(note(n) for n in attrs.get("notes") or ())


class ResultMixin:
    """Mix into a frozen dataclass that is a plain value (not a command's result): ``to_dict()`` is its public
    fields, ``to_json()`` that as text."""

    def to_dict(self) -> dict[str, Any]:
        return {f.name: plain(getattr(self, f.name)) for f in dataclasses.fields(self)  # type: ignore[arg-type]
                if not f.name.startswith("_")}

    def to_json(self, **kwargs: Any) -> str:
        kwargs.setdefault("indent", 2)
        return json.dumps(self.to_dict(), **kwargs)


@dataclasses.dataclass(frozen=True)
class Result:
    """Base of every command's result: see the module docstring for the record it writes.

    A subclass is a frozen dataclass that sets ``KIND`` (a key of :data:`KINDS`), declares the fields that
    define the run with :func:`inputs`, its statistics as plain fields (they go to ``details``), and a field
    named ``ranking`` (a :class:`~certirank.order.Ranking`) when it ranks. Fields whose name starts with ``_``
    are private (not in the record). ``_inputs()`` / ``_details()`` may add derived entries (a statement).
    """

    KIND: ClassVar[str] = ""

    about: str | None = dataclasses.field(default=None, kw_only=True, metadata={"part": "about"})
    warnings: tuple[str, ...] = dataclasses.field(default=(), kw_only=True, metadata={"part": "warnings"})
    order: Mapping[str, Any] | None = dataclasses.field(default=None, kw_only=True, metadata={"part": "inputs"})
    source: str | None = dataclasses.field(default=None, kw_only=True, metadata={"part": "inputs"})

    def _inputs(self) -> dict[str, Any]:
        return {}

    def _details(self) -> dict[str, Any]:
        return {}

    def to_dict(self) -> dict[str, Any]:
        """The record (see the module docstring); JSON-able."""
        parts: dict[str, dict[str, Any]] = {"inputs": {}, "details": {}}
        own = [f for f in dataclasses.fields(self) if f.name not in _BASE_FIELDS]
        base = [f for f in dataclasses.fields(self) if f.name in _BASE_FIELDS]
        for f in (*own, *base):  # the method's own inputs first, then order and source
            if f.name.startswith("_") or f.name in ("about", "warnings", "ranking"):
                continue
            part = f.metadata.get("part", "details")
            parts[part if part in _PARTS else "details"][f.name] = plain(getattr(self, f.name))
        parts["inputs"].update(plain(self._inputs()))
        parts["details"].update(plain(self._details()))
        ranking = getattr(self, "ranking", None)
        return {"kind": self.KIND, "schema": SCHEMA, "about": self.about, "inputs": parts["inputs"],
                "ranking": None if ranking is None else ranking.to_dict(), "details": parts["details"],
                "warnings": [str(w) for w in self.warnings]}

    def to_json(self, **kwargs: Any) -> str:
        kwargs.setdefault("indent", 2)
        return json.dumps(self.to_dict(), **kwargs)


_BASE_FIELDS = frozenset(f.name for f in dataclasses.fields(Result))


def result_class(kind: str) -> type[Result]:
    """The class of results of ``kind`` (imported on demand)."""
    from .errors import ParameterError
    try:
        where = KINDS[kind]
    except KeyError:
        raise ParameterError(f"unknown result kind {kind!r}; the kinds are: {', '.join(KINDS)}") from None
    module, name = where.split(":")
    return getattr(importlib.import_module(module), name)


# ------------------------------------------------------------------------------------------------ reading

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
    from .errors import ParameterError
    from .order.result import Ranking
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


# ------------------------------------------------------------------------------------------------ migration

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
    from .errors import ParameterError
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
    from .order.result import make_ranking
    a, b = str(body.get("a", "x")), str(body.get("b", "y"))
    decision = body.get("decision")
    rels = [] if decision not in ("x>y", "x<y") else [
        {"better": a if decision == "x>y" else b, "worse": b if decision == "x>y" else a,
         "when": body.get("decided_at"), "evidence": body.get("pvalue"), "evidence_kind": "pvalue"}]
    return make_ranking([a, b], rels, kind="compare", alpha=body.get("alpha"), n=[body.get("n"), body.get("n")],
                        when_unit="paired trials", about="policy").to_dict()


def _check_ranking(body: Mapping[str, Any]) -> dict[str, Any]:
    """The ranking an old gate's claims state (its JSON had none)."""
    from .order.result import make_ranking
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
