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

from .adapters import MethodAdapter, register_method
from .trajectory import Trajectory, claims_from_pairs

_PASS = ("ties", "gamma", "graph", "bettor", "guarantee", "forward_fraction", "transitive_closure", "metric")


def _kwargs(scenario: Any, name: str, options: Mapping[str, Any]) -> dict[str, Any]:
    kw: dict[str, Any] = {"alpha": scenario.alpha, "method": name, "nmax": scenario.n_max,
                          "policies": list(scenario.policies), "metric": scenario.metric}
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


def _batched_campaigns(ar: Any, scores: np.ndarray, kw: Mapping[str, Any]) -> list[Any] | None:
    """Run a chunk of campaigns with their p-process paths precomputed in one vectorised evidence bank.

    Why: a hypothesis's p-process along its own index depends only on its own pairs, never on the sampling
    schedule, so the paths of runs × K hypotheses can be computed together (one bank of runs·K streams)
    instead of run by run; the engine then only replays the graph logic. This reaches into the AnyRank
    engine's replay internals (``_Campaign._prepare_paths`` and its path arrays); if they change, the
    adapter falls back to the public ``run_campaigns`` (same results, tested for equality).
    """
    from ..evidence.streams import PairedStreams

    try:
        kw = dict(kw)
        setup = ar._make_setup(kw.pop("policies"), kw.pop("alpha"), kw.pop("method"), kw.pop("prior", None),
                               kw.pop("gamma", 1.0), kw.pop("nmax", None), kw.pop("ties", "allow"),
                               kw.pop("guarantee", "paper"), default_nmax=max(scores.shape[1], 1), **kw)
        camps = [ar._Campaign(setup, ar._Table(setup.m, s)) for s in scores]
        for c in camps:
            c._prepare_paths()
        lmax = camps[0]._lmax
        if any(c._lmax != lmax or c._avail != 0 for c in camps):
            return None
        k = camps[0].k
        x = np.concatenate([c._x for c in camps])  # (runs * K, lmax)
        y = np.concatenate([c._y for c in camps])
        bank = PairedStreams(x.shape[0], bettor=setup.bettor, ties=setup.ties, bins=setup.metric)
        pl = np.ones((x.shape[0], lmax + 1))
        pm = np.ones((x.shape[0], lmax + 1))
        for s in range(lmax):
            bank.update(None, x[:, s], y[:, s])
            pl[:, s + 1] = bank.pvalue_less
            pm[:, s + 1] = bank.pvalue_more
        out = []
        for r, c in enumerate(camps):
            c._path_l = pl[r * k:(r + 1) * k]
            c._path_m = pm[r * k:(r + 1) * k]
            c._avail = lmax
            c.run_replay()
            out.append(c.result())
        return out
    except AttributeError:
        return None


def _make(name: str) -> Any:
    def run_batch(scenario: Any, data: Sequence[Any], options: Mapping[str, Any],
                  seeds: Sequence[np.random.SeedSequence]) -> list[Trajectory]:
        from ..methods import anyrank as ar

        kw = _kwargs(scenario, name, options)
        scores = np.stack([d.scores for d in data])
        engine = options.get("engine", "auto")
        if engine == "auto":
            # precomputing whole paths pays off when campaigns are long and each bettor step is cheap
            # (binary bins); with 11 progress bins campaigns end early and lazy per-run paths are cheaper
            engine = "batched" if kw["metric"] == "binary" else "loop"
        results = _batched_campaigns(ar, scores, kw) if engine == "batched" else None
        if results is None:
            results = ar.run_campaigns(scores, **kw)
        return [_trajectory(scenario, r) for r in results]
    return run_batch


# graph: spec 03 §12.1's simulation protocol uses the fully connected graph (the library default for real
# data is soft_masked); engine: "auto" | "batched" | "loop" (identical results, different speed)
_OPTS = {"engine": "auto", "ties": None, "gamma": None, "graph": "fully_connected", "bettor": None,
         "guarantee": None, "forward_fraction": None, "transitive_closure": None, "metric": None, "prior": True}

for _name, _desc in (
        ("anyrank", "AnyRank: prior-informed graph (softmax, gamma), advantaged sampling, level recycling"),
        ("anyrank0", "AnyRank_0: gamma = 0 (sequential Holm with advantaged sampling)"),
        ("anyrank-inf", "AnyRank_inf: fixed sequence in prior order"),
        ("bonferroni", "Bonferroni: alpha/K per pair, no recycling"),
        ("weighted-bonferroni", "weighted Bonferroni: prior-weighted levels, no recycling")):
    register_method(MethodAdapter(
        name=_name, kinds=("policies",), description=_desc, options=dict(_OPTS),
        requires="certirank.methods.anyrank:run_campaigns", run_batch=_make(_name), certified=True))
