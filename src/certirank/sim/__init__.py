"""certirank.sim: seeded simulation scenarios, method adapters, honest metrics and the Monte-Carlo runner.

>>> import certirank
>>> res = certirank.simulate("HO-I", "anyrank0,bonferroni,bt", reps=200, seed=1)   # doctest: +SKIP
>>> res.summary["anyrank0"]["fwer"], res.runs.head()                              # doctest: +SKIP

Scenarios: :func:`scenario_names` / :func:`describe_scenarios`; methods: :func:`method_names` /
:func:`describe_methods`; scenario parameters and method options written as ``KEY=VALUE`` text (the command
line's ``-p`` / ``--option``): :func:`parse_options`.
"""

from __future__ import annotations

from .adapters import METHODS, MethodAdapter, MethodSpec, describe_methods, method_names, register_method
from .metrics import clopper_pearson
from .options import parse_options, parse_value
from .runner import SimulationResult, run_seeds, simulate
from .scenarios import (SCENARIOS, LeaderboardScenario, Param, PolicyScenario, ScenarioSpec, describe_scenarios,
                        get_scenario, register_scenario, scenario_names)
from .trajectory import Trajectory

__all__ = ["simulate", "SimulationResult", "run_seeds", "SCENARIOS", "ScenarioSpec", "Param", "PolicyScenario",
           "LeaderboardScenario", "get_scenario", "register_scenario", "scenario_names", "describe_scenarios",
           "METHODS", "MethodAdapter", "MethodSpec", "register_method", "method_names", "describe_methods",
           "Trajectory", "clopper_pearson", "parse_options", "parse_value"]
