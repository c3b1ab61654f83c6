"""Simulation scenarios: seeded, parameterised data-generating processes with known truth.

Two kinds of scenario exist, matching the two families of certified methods:

* ``policies`` (spec 03 §12, spec 06 §5–6): M policies, each with a known score distribution on [0, 1];
  one run is an ``n_max × M`` table of i.i.d. paired trials (row r = environment r for every policy), plus,
  for the Bradley–Terry baselines, a stream of synthetic preference games.
* ``leaderboard`` (spec 04 §13): L models × N benchmark items, one panel per replicate, from the BB-EDGE
  latent-Gaussian generator in :mod:`certirank.sim.bbedge_dgp` (written by the BB-EDGE helper; wrapped here,
  not duplicated).

A scenario *template* (:class:`ScenarioSpec`) has a name, a description and documented parameters with
defaults; :func:`get_scenario` turns a name plus parameter overrides into a validated, frozen scenario
object whose ``draw(seed)`` produces one run's data. The truth (true means and the set of true ordered
claims) is a property of the scenario, never of a draw.

The package splits by scenario kind (``policy``, ``leaderboard``, ``matrix``) over one ``registry``; the
kinds are imported here in their registration order, which is the order ``scenario_names()`` lists.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..._validate import check_choice
from ...errors import ParameterError
from .registry import (MAX_RUN_CELLS, SCENARIOS, Param, ScenarioSpec,  # noqa: F401 (the flat module's names)
                       describe_scenarios, register_scenario, scenario_names)
from .policy import PolicyRun, PolicyScenario, bernoulli_scenario, progress_scenario  # noqa: F401
from .leaderboard import LeaderboardRun, LeaderboardScenario
from .matrix import MatrixScenario  # noqa: F401

__all__ = [
    "Param", "ScenarioSpec", "PolicyScenario", "PolicyRun", "LeaderboardScenario", "LeaderboardRun",
    "SCENARIOS", "register_scenario", "get_scenario", "scenario_names", "describe_scenarios",
]


def get_scenario(scenario: Any, **params: Any) -> Any:
    """A validated scenario object from a registered name (with parameter overrides) or a scenario object.

    Parameters
    ----------
    scenario:
        A registered name (case-insensitive, ``_`` accepted for ``-``), a :class:`ScenarioSpec`, or an
        already built :class:`PolicyScenario` / :class:`LeaderboardScenario` (then ``params`` must be empty
        or are applied with ``dataclasses.replace``).
    **params:
        Scenario parameters (see ``describe_scenarios()``); unknown names raise :class:`ParameterError`
        listing the valid ones.
    """
    if isinstance(scenario, (PolicyScenario, LeaderboardScenario)):
        if not params:
            return scenario
        names = {f.name for f in dataclasses.fields(scenario)}
        unknown = [k for k in params if k not in names]
        if unknown:
            raise ParameterError(f"unknown parameter(s) {', '.join(map(repr, unknown))} for scenario object "
                                 f"{scenario.name!r}; valid parameters: {', '.join(sorted(names))}")
        return dataclasses.replace(scenario, **params)
    if isinstance(scenario, ScenarioSpec):
        return scenario.make(**params)
    name = check_choice("scenario", scenario, list(SCENARIOS))
    return SCENARIOS[name].make(**params)
