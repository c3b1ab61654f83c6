"""Method adapters: name -> callable that runs one method on simulated runs and returns trajectories.

An adapter knows which scenario kinds it supports (``policies`` or ``leaderboard``), its options with
defaults, and how to turn the method's output into a :class:`~certirank.sim.trajectory.Trajectory` (the
decision trajectory the metrics need). Adapters import the method's module lazily, so the registry can list
methods whose modules are written later; an unavailable method gives a clear error when selected.

Adapters may be *vectorised*: ``run_batch`` receives a whole chunk of runs (same scenario, same options) and
must return, for each run, exactly what it would return alone — the runner relies on this for results that do
not depend on the number of workers.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validate import check_choice
from ..errors import ParameterError
from .trajectory import Trajectory

__all__ = ["MethodAdapter", "MethodSpec", "METHODS", "register_method", "method_names", "resolve_methods",
           "parse_methods", "describe_methods"]


RunOne = Callable[[Any, Any, Mapping[str, Any], np.random.SeedSequence], Trajectory]
RunBatch = Callable[[Any, Sequence[Any], Mapping[str, Any], Sequence[np.random.SeedSequence]], list[Trajectory]]


@dataclass(frozen=True)
class MethodAdapter:
    """How the simulator runs one method.

    Attributes
    ----------
    name:
        Canonical method name (as in the API and CLI, spec 00).
    kinds:
        Scenario kinds the method applies to.
    description:
        One line for ``--help`` and reports.
    options:
        Accepted options and their defaults (``None`` = the method's own default).
    requires:
        ``"module:attribute"`` that must be importable for the method to be available.
    run_one, run_batch:
        One run at a time, or a vectorised chunk of runs (at least one must be given).
    certified:
        Whether the method claims FWER control (used in reports only).
    """

    name: str
    kinds: tuple[str, ...]
    description: str
    options: Mapping[str, Any] = field(default_factory=dict)
    requires: str = ""
    run_one: RunOne | None = None
    run_batch: RunBatch | None = None
    certified: bool = True

    def available(self) -> bool:
        return self.missing() is None

    def missing(self) -> str | None:
        """None if the method can run, else what is missing."""
        if not self.requires:
            return None
        for req in self.requires.split(","):
            mod, _, attr = req.strip().partition(":")
            try:
                m = importlib.import_module(mod)
            except Exception as exc:  # a half-written module of another helper
                return f"{mod} cannot be imported ({type(exc).__name__}: {exc})"
            if attr and not hasattr(m, attr):
                return f"{mod}.{attr} does not exist yet"
        return None

    def run_many(self, scenario: Any, data: Sequence[Any], options: Mapping[str, Any],
                 seeds: Sequence[np.random.SeedSequence]) -> list[Trajectory]:
        if self.run_batch is not None:
            return list(self.run_batch(scenario, data, options, seeds))
        assert self.run_one is not None
        return [self.run_one(scenario, d, options, s) for d, s in zip(data, seeds)]


@dataclass(frozen=True)
class MethodSpec:
    """A method selected for a simulation: display label, adapter and resolved options."""

    label: str
    name: str
    options: Mapping[str, Any]
    adapter: MethodAdapter = field(repr=False)


METHODS: dict[str, MethodAdapter] = {}


def register_method(adapter: MethodAdapter) -> MethodAdapter:
    """Add (or replace) a method adapter in the registry."""
    METHODS[adapter.name] = adapter
    return adapter


def method_names(kind: str | None = None, *, available_only: bool = False) -> list[str]:
    return [n for n, a in METHODS.items()
            if (kind is None or kind in a.kinds) and (not available_only or a.available())]


def describe_methods() -> list[dict[str, Any]]:
    return [{"name": a.name, "kinds": list(a.kinds), "description": a.description, "options": dict(a.options),
             "certified": a.certified, "available": a.available()} for a in METHODS.values()]


def _parse_value(text: str) -> Any:
    t = text.strip()
    low = t.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if low in ("none", "null"):
        return None
    for cast in (int, float):
        try:
            return cast(t)
        except ValueError:
            pass
    return t


def _split_top(text: str) -> list[str]:
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def parse_methods(methods: Any) -> list[tuple[str, str, dict[str, Any]]]:
    """Normalise a method selection into ``(label, name, options)`` triples.

    Accepts ``"a,b[opt=v;opt2=w],c"``, a list of such strings, :class:`MethodSpec` objects,
    ``(name, options)`` / ``(label, name, options)`` tuples, or a mapping ``label -> name | (name, options)``.
    """
    out: list[tuple[str, str, dict[str, Any]]] = []
    if isinstance(methods, str):
        items: list[Any] = _split_top(methods)
    elif isinstance(methods, Mapping):
        items = []
        for label, v in methods.items():
            if isinstance(v, str):
                items.append((label, v, {}))
            else:
                name, opts = v
                items.append((label, name, dict(opts)))
    elif isinstance(methods, (list, tuple)):
        items = list(methods)
    else:
        raise ParameterError(f"methods must be names (e.g. 'anyrank0,bonferroni'), got {methods!r}")
    for it in items:
        if isinstance(it, MethodSpec):
            out.append((it.label, it.name, dict(it.options)))
        elif isinstance(it, str):
            s = it.strip()
            if "[" in s:
                if not s.endswith("]"):
                    raise ParameterError(f"method {s!r}: options go in brackets at the end, e.g. anyrank0[ties=assume_none]")
                name, _, rest = s[:-1].partition("[")
                opts = {}
                for kv in rest.replace(";", ",").split(","):
                    if not kv.strip():
                        continue
                    if "=" not in kv:
                        raise ParameterError(f"method {s!r}: option {kv!r} must be key=value")
                    k, _, v = kv.partition("=")
                    opts[k.strip()] = _parse_value(v)
                out.append((s, name.strip(), opts))
            else:
                out.append((s, s, {}))
        elif isinstance(it, tuple) and len(it) == 2:
            out.append((str(it[0]), str(it[0]), dict(it[1])))
        elif isinstance(it, tuple) and len(it) == 3:
            out.append((str(it[0]), str(it[1]), dict(it[2])))
        else:
            raise ParameterError(f"cannot read method {it!r}; give a name such as 'anyrank0'")
    if not out:
        raise ParameterError(f"no method given; valid methods: {', '.join(METHODS)}")
    labels = [o[0] for o in out]
    if len(set(labels)) != len(labels):
        raise ParameterError(f"duplicate method labels {labels}; give each method once")
    return out


def resolve_methods(methods: Any, scenario: Any, global_options: Mapping[str, Any]) -> list[MethodSpec]:
    """Validate a method selection against the registry and the scenario kind."""
    specs = []
    for label, name, opts in parse_methods(methods):
        # `certirank leaderboard --method` spells BB-EDGE "bb-edge"; accept that spelling here too (spec 00)
        canon = check_choice("method", re.sub(r"^bb[-_]edge", "bbedge", str(name).strip(), flags=re.I),
                             list(METHODS))
        ad = METHODS[canon]
        if scenario.kind not in ad.kinds:
            valid = method_names(scenario.kind)
            raise ParameterError(f"method {canon!r} does not apply to {scenario.kind} scenarios such as "
                                 f"{scenario.name!r}; valid methods here: {', '.join(valid)}")
        why = ad.missing()
        if why is not None:
            raise ParameterError(f"method {canon!r} is not available: {why}; available methods for this scenario: "
                                 f"{', '.join(method_names(scenario.kind, available_only=True)) or 'none'}")
        unknown = [k for k in opts if k not in ad.options]
        if unknown:
            raise ParameterError(f"unknown option(s) {', '.join(map(repr, unknown))} for method {canon!r}; valid "
                                 f"options: {', '.join(ad.options) or 'none'}")
        merged = dict(ad.options)
        merged.update({k: v for k, v in global_options.items() if k in ad.options})
        merged.update(opts)
        specs.append(MethodSpec(label=label if label != name else canon, name=canon, options=merged, adapter=ad))
    if global_options:
        used = {k for s in specs for k in s.adapter.options}
        unused = [k for k in global_options if k not in used]
        if unused:
            raise ParameterError(f"method option(s) {', '.join(map(repr, unused))} are accepted by none of the "
                                 "selected methods")
    return specs


# register the built-in adapters (their modules import the methods lazily)
from . import _adapters_baselines  # noqa: E402,F401
from . import _adapters_leaderboard  # noqa: E402,F401
from . import _adapters_anyrank  # noqa: E402,F401
from . import _adapters_bbedge  # noqa: E402,F401
