"""Adapters for the AnyRank family (spec 03) on policy scenarios.

Each run is one campaign of :func:`certirank.methods.anyrank.run_campaign` over the run's pre-drawn
``n_max × M`` table, with the scenario's ``n_max``, ``alpha``, metric and prior (the true means, spec 03
§12.1). Every decision carries its iteration and the total samples Σ_i samples_i at that iteration, so the
trajectory has both time axes of spec 03 §11. Defaults follow the simulation protocol of spec 03 §12.1:
graph ``fully_connected``, prior = true means (used only by prior-informed variants), library tie mode
``allow`` (pass ``ties="assume_none"`` to reproduce the papers' anchors).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ._registry import MethodAdapter, register_method
from .trajectory import Trajectory, claims_from_pairs

_PASS = ("ties", "gamma", "graph", "bettor", "guarantee", "forward_fraction", "transitive_closure", "bins",
         "budget", "arms", "concentration", "statistic")


def _kwargs(scenario: Any, name: str, options: Mapping[str, Any]) -> dict[str, Any]:
    kw: dict[str, Any] = {"alpha": scenario.alpha, "method": name, "n_max": scenario.n_max,
                          "policies": list(scenario.policies), "bins": scenario.metric}
    if options.get("metric") is not None:  # the method option's old name (0.1)
        kw["bins"] = options["metric"]
    if scenario.prior is not None and options.get("prior", True):
        kw["prior"] = list(scenario.prior)
    for k in _PASS:
        if options.get(k) is not None:
            kw[k] = options[k]
    return kw


def _trajectory(scenario: Any, res: Any) -> Trajectory:
    index = {p: i for i, p in enumerate(scenario.policies)}
    events = [(float(d["iteration"]), float(d["total_samples"]), index[d["better"]], index[d["worse"]])
              for d in res.decisions]
    samples = np.array([res.samples[p] for p in scenario.policies], dtype=float)
    return claims_from_pairs(scenario.n_policies, events, end_time=float(res.iterations),
                             end_evals=float(res.total_samples), time_unit="iteration", samples=samples,
                             info={"termination": res.termination, "inconsistent": bool(res.inconsistent)})


def _make(name: str) -> Any:
    def run_batch(scenario: Any, data: Sequence[Any], options: Mapping[str, Any],
                  seeds: Sequence[np.random.SeedSequence]) -> list[Trajectory]:
        from ..methods import anyrank as ar

        kw = _kwargs(scenario, name, options)
        scores = np.stack([d.scores for d in data])
        # run_campaigns computes the p-processes of all runs x K hypotheses of the chunk in one vectorised
        # evidence bank (lazily, in blocks) and is identical to run_campaign run by run
        results = ar.run_campaigns(scores, **kw)
        return [_trajectory(scenario, r) for r in results]
    return run_batch


# graph: spec 03 §12.1's simulation protocol uses the fully connected graph (the library default for real
# data is soft_masked)
_OPTS = {"ties": None, "gamma": None, "graph": "fully_connected", "bettor": None,
         "guarantee": None, "forward_fraction": None, "transitive_closure": None, "bins": None, "metric": None,
         "prior": True, "budget": None, "arms": None, "concentration": None,
         "statistic": None}

for _name, _desc in (
        ("anyrank", "AnyRank: prior-informed graph (softmax, gamma), advantaged sampling, level recycling"),
        ("anyrank0", "AnyRank_0: gamma = 0 (sequential Holm with advantaged sampling)"),
        ("anyrank-inf", "AnyRank_inf: fixed sequence in prior order"),
        ("bonferroni", "Bonferroni: alpha/K per pair, no recycling"),
        ("weighted-bonferroni", "weighted Bonferroni: prior-weighted levels, no recycling")):
    register_method(MethodAdapter(
        name=_name, kinds=("policies",), description=_desc, options=dict(_OPTS),
        requires="certirank.methods.anyrank:run_campaigns", run_batch=_make(_name), certified=True))
