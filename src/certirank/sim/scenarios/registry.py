"""The scenario registry: documented parameters, templates and the name -> template table.

Kept apart from the scenario kinds so that each kind's module registers its templates on import and the
registry itself knows nothing about what a scenario draws.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..._validate import check_positive_int
from ...errors import ParameterError

__all__ = ["Param", "ScenarioSpec", "SCENARIOS", "MAX_RUN_CELLS", "register_scenario", "scenario_names",
           "describe_scenarios"]



@dataclass(frozen=True)
class Param:
    """One documented scenario parameter."""

    name: str
    default: Any
    doc: str
    kind: str = "float"  # float | int | str | floats | bool


#: scores drawn per simulated run (held in memory, 20 runs per chunk): 10^7 cells = 80 MB per run
MAX_RUN_CELLS = 10**7


def _parse_floats(name: str, value: Any) -> tuple[float, ...]:
    if isinstance(value, str):
        parts = [v for v in value.replace(";", ",").split(",") if v.strip()]
        try:
            return tuple(float(v) for v in parts)
        except ValueError:
            raise ParameterError(f"{name} must be a comma-separated list of numbers, got {value!r}") from None
    try:
        return tuple(float(v) for v in np.asarray(value, dtype=float).ravel())
    except (TypeError, ValueError):
        raise ParameterError(f"{name} must be a list of numbers, got {value!r}") from None


def _coerce(param: Param, value: Any) -> Any:
    if value is None:
        return None
    if param.kind == "int":
        return check_positive_int(param.name, value, minimum=0)
    if param.kind == "float":
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise ParameterError(f"{param.name} must be a number, got {value!r}") from None
        if math.isnan(v) or math.isinf(v):
            raise ParameterError(f"{param.name} must be a finite number, got {value!r}")
        return v
    if param.kind == "floats":
        return _parse_floats(param.name, value)
    if param.kind == "bool":
        if isinstance(value, str):
            low = value.strip().lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise ParameterError(f"{param.name} must be true or false, got {value!r}")
        return bool(value)
    return str(value)


@dataclass(frozen=True)
class ScenarioSpec:
    """A named scenario template: documented parameters with defaults and a builder.

    ``build(**params)`` receives every parameter (defaults filled in, types coerced) and returns a
    scenario object (:class:`PolicyScenario` or :class:`LeaderboardScenario`).
    """

    name: str
    kind: str
    description: str
    params: tuple[Param, ...]
    build: Callable[..., Any] = field(repr=False)
    source: str = ""

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}

    def make(self, **overrides: Any) -> Any:
        known = {p.name: p for p in self.params}
        unknown = [k for k in overrides if k not in known]
        if unknown:
            raise ParameterError(f"unknown parameter(s) {', '.join(map(repr, unknown))} for scenario "
                                 f"{self.name!r}; valid parameters: {', '.join(known) or 'none'}")
        values = self.defaults()
        for k, v in overrides.items():
            values[k] = _coerce(known[k], v)
        return self.build(**values)


SCENARIOS: dict[str, ScenarioSpec] = {}


def register_scenario(spec: ScenarioSpec) -> ScenarioSpec:
    """Add a scenario template to the registry (name -> spec); returns it."""
    SCENARIOS[spec.name] = spec
    return spec


def scenario_names() -> list[str]:
    return list(SCENARIOS)


def describe_scenarios() -> list[dict[str, Any]]:
    """Plain description of every registered scenario: name, kind, description and parameters."""
    return [{"name": s.name, "kind": s.kind, "description": s.description, "source": s.source,
             "params": [{"name": p.name, "default": p.default, "doc": p.doc} for p in s.params]}
            for s in SCENARIOS.values()]
