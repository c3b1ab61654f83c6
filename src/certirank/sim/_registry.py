"""The registry of method adapters: what the simulator can run (a leaf: the adapters register into it).

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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .trajectory import Trajectory

__all__ = ["MethodAdapter", "MethodSpec", "METHODS", "register_method", "method_names", "describe_methods"]


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
