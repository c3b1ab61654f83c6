"""Adapters for leaderboard methods on BB-EDGE scenarios: the leaderboard baselines of spec 04 §12.

Each baseline is applied after every completed replicate (``history=True``) and its certified set at r is one
snapshot. SERPANT's e-Holm runs after every item: a false certification at an item time that is gone by the
end of the replicate is still an error (spec 04 §13.5) and is recorded as ``false_between``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ._registry import MethodAdapter, register_method
from .trajectory import Trajectory


def panel_of(scenario: Any, run: Any) -> Any:
    """The baselines' ``Panel`` (replicate, item, model) for one simulated run."""
    from ..baselines.leaderboard import Panel

    r, n_models, n_items = run.scores.shape
    return Panel(models=tuple(scenario.policies), items=tuple(f"i{i:04d}" for i in range(n_items)),
                 replicates=tuple(range(1, r + 1)), scores=np.ascontiguousarray(run.scores.transpose(0, 2, 1)),
                 weights=np.asarray(run.weights, dtype=float), blocks=tuple(f"b{int(b)}" for b in run.blocks))


def call_baseline(name: str, data: Any, **options: Any) -> Any:
    """``certirank.baselines.baseline(name, data, ...)`` when the dispatcher exists, else the module function."""
    import certirank.baselines as bl

    if hasattr(bl, "baseline"):
        return bl.baseline(name, data, **options)
    from ..baselines import leaderboard as lb

    return getattr(lb, name.replace("-", "_"))(data, **options)


def _history_claims(scenario: Any, hist: list[dict[str, Any]], key: str = "edges") -> np.ndarray:
    index = {p: i for i, p in enumerate(scenario.policies)}
    n = scenario.n_policies
    claims = np.zeros((len(hist), n, n), dtype=bool)
    for s, h in enumerate(hist):
        for a, b in h.get(key, []):
            claims[s, index[a], index[b]] = True
    return claims


def _leaderboard_baseline(name: str) -> Any:
    def run_one(scenario: Any, run: Any, options: Mapping[str, Any], seed: np.random.SeedSequence) -> Trajectory:
        opts = dict(options)
        if opts.get("alpha") is None:
            opts["alpha"] = scenario.alpha
        if opts.get("tau") is None:
            opts["tau"] = scenario.tau
        if "seed" in opts:
            opts["seed"] = np.random.default_rng(seed)
        res = call_baseline(name, panel_of(scenario, run), history=True, **opts)
        hist = res.history or []
        claims = _history_claims(scenario, hist)
        r = np.array([h["replicate"] for h in hist], dtype=float)
        false_between = None
        if hist and "ever_edges" in hist[0]:
            # edges certified at some item time up to replicate r (SERPANT): a false one is an error then
            ever = _history_claims(scenario, hist, "ever_edges")
            bad = np.flatnonzero(np.any(ever & ~scenario.truth(), axis=(1, 2)))
            false_between = float(r[bad[0]]) if bad.size else None
        per = scenario.n_policies * scenario.n_items
        return Trajectory(time=r, evals=r * per, claims=claims, end_time=float(run.scores.shape[0]),
                          end_evals=float(run.scores.shape[0] * per), time_unit="replicate",
                          false_between=false_between)
    return run_one


_REQ = "certirank.baselines.leaderboard"
for _name, _desc, _extra in (
        ("emr", "B1 empirical-mean ranking (no error control)", {}),
        ("t-holm", "B2 paired t-tests over items with Holm (fixed-time)", {}),
        ("cbtl", "B3 clustered BTL bootstrap intervals (fixed-time; preference strength)", {"n_boot": 1000, "seed": None}),
        ("serpant", "B4 item-stream aGRAPA e-processes with e-Holm after every item", {"c": 0.5}),
        ("serpant-r", "B5 SERPANT e-processes, e-Holm only at completed replicates", {"c": 0.5}),
        ("beb-holm", "B6 fixed-time Maurer–Pontil empirical Bernstein with Holm", {"blocks": "auto"}),
        ("asympcs-bonf", "B9 asymptotic confidence sequences with Bonferroni", {"r_star": 10.0})):
    register_method(MethodAdapter(
        name=_name, kinds=("leaderboard",), description=_desc, certified=False,
        options={"alpha": None, "tau": None, **_extra}, requires=_REQ, run_one=_leaderboard_baseline(_name)))
