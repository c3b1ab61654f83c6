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
registry names each class by its module path and :func:`result_class` imports it on demand. Reading a record
back (a :class:`~certirank.order.Ranking` again), and JSON of earlier versions, is
:mod:`certirank.report.records`.
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

__all__ = ["SCHEMA", "ESTIMANDS", "KINDS", "Result", "ResultMixin", "inputs", "details", "plain", "result_class",
           "note", "warning", "reader_warnings"]

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
    "compare": "certirank.methods.compare:CompareResult",
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
    fields, ``to_json()`` that as text. A field declared with ``metadata={"omit_none": True}`` is left out while it is
    None (a field only some kinds of value have, so the others print as before)."""

    def to_dict(self) -> dict[str, Any]:
        return {f.name: plain(getattr(self, f.name)) for f in dataclasses.fields(self)  # type: ignore[arg-type]
                if not f.name.startswith("_")
                and not (f.metadata.get("omit_none") and getattr(self, f.name) is None)}

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
