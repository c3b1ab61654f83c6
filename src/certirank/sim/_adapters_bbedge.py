"""Adapters for BB-EDGE and its variants (spec 04) on leaderboard scenarios.

* ``bbedge``, ``bbedge-pi``, ``bfh-e-holm`` use the scenario's true design blocks (spec 04 §13.2: "BB-EDGE uses
  the true 5-item blocks in all settings"); ``cr-edge`` uses one block per replicate.
* ``bbedge-topk``: pilot-targeted Top-k (§8.2). Its ``pilot`` replicates are drawn *in addition* to the run's R
  confirmatory replicates (from the method's own seed, same generator), so CR = R_0 + confirmatory replicate,
  censored at R + R_0, as in §13.5.
* ``bbedge-epoch`` / ``bbedge-fixed``: the benchmark-expansion study (§13.4) — epoch reset at α/3 per version
  versus BB-EDGE frozen on version 1 at α.
* ``bbedge-addition``: the model-addition study (§9.2) — the last ``n_new`` models join after R replicates and
  are replayed against the stored replicates at a spent level.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import ParameterError
from ._registry import MethodAdapter, register_method
from .trajectory import Trajectory

_REQ = "certirank.methods.bbedge:bbedge_path"


def _labels(run: Any) -> list[str]:
    return [f"b{int(b)}" for b in run.blocks]


def _path_trajectory(scenario: Any, path: Mapping[str, Any], r0: int = 0) -> Trajectory:
    cert = np.asarray(path["certified"], dtype=bool)
    r_total = cert.shape[0]
    per = scenario.n_policies * scenario.n_items
    t = np.arange(1, r_total + 1, dtype=float)
    top = None
    if path.get("top_k_at") is not None and path.get("top_k_set") is not None:
        top = (float(path["top_k_at"]), frozenset(int(i) for i in path["top_k_set"]))
    return Trajectory(time=t, evals=t * per, claims=cert, end_time=float(r_total), end_evals=float(r_total * per),
                      time_unit="replicate", topk=top, info={"pilot": r0} if r0 else {})


def _variant(method: str, protocol_blocks: bool) -> Any:
    def run_one(scenario: Any, run: Any, options: Mapping[str, Any], seed: np.random.SeedSequence) -> Trajectory:
        from ..methods.bbedge import bbedge_path

        choice = options.get("blocks", "design") if protocol_blocks else "items"
        blocks = _labels(run) if choice == "design" else choice
        path = bbedge_path(run.scores, alpha=scenario.alpha, tau=scenario.tau, blocks=blocks, method=method,
                           weights=run.weights, top_k=scenario.k if options.get("top_k", True) else None)
        return _path_trajectory(scenario, path)
    return run_one


def _pilot(scenario: Any, run: Any, options: Mapping[str, Any], seed: np.random.SeedSequence) -> Trajectory:
    from ..methods.bbedge import bbedge_path

    r0 = int(options["pilot"])
    if r0 < 1:
        raise ParameterError(f"pilot must be >= 1 replicate, got {r0}")
    # extra pilot replicates from the method's own stream: the confirmatory data stay the run's R replicates
    pilot = np.asarray(scenario.generate(np.random.default_rng(seed)), dtype=float)
    if pilot.shape[0] < r0:
        raise ParameterError(f"pilot = {r0} exceeds the scenario's replicates per draw ({pilot.shape[0]})")
    stack = np.concatenate([pilot[:r0], run.scores])
    path = bbedge_path(stack, alpha=scenario.alpha, tau=scenario.tau, blocks=_labels(run), method="bb-edge",
                       weights=run.weights, top_k=scenario.k, pilot=r0)
    return _path_trajectory(scenario, path, r0)


def _epoch(fixed: bool) -> Any:
    def run_one(scenario: Any, run: Any, options: Mapping[str, Any], seed: np.random.SeedSequence) -> Trajectory:
        from ..methods.bbedge import Leaderboard

        stages = scenario.stages
        if "versions" not in stages:
            raise ParameterError(f"method {'bbedge-fixed' if fixed else 'bbedge-epoch'} needs the bbedge-expansion "
                                 f"scenario (benchmark versions), not {scenario.name!r}")
        versions = [np.asarray(v, dtype=np.int64) for v in stages["versions"]]
        s1, s2 = stages["switches"]
        labels = np.array(_labels(run))
        names = np.array([f"i{i:04d}" for i in range(scenario.n_items)])
        models = list(scenario.policies)
        R = run.scores.shape[0]
        order = versions[0]
        if fixed:
            board = Leaderboard(models, alpha=scenario.alpha, tau=scenario.tau, blocks=list(labels[order]),
                                items=list(names[order]))
        else:
            board = Leaderboard(models, alpha=scenario.alpha, tau=scenario.tau, blocks=list(labels[order]),
                                items=list(names[order]), epochs=len(versions))
        claims = np.zeros((R, scenario.n_policies, scenario.n_policies), dtype=bool)
        evals = np.zeros(R)
        spent = 0.0
        for r in range(R):
            if not fixed and r in (s1, s2):
                v = versions[1] if r == s1 else versions[2]
                new = np.setdiff1d(v, order, assume_unique=True)
                board.expand_benchmark(list(names[new]), blocks=list(labels[new]))
                order = np.concatenate([order, new])
            board.add_replicate(run.scores[r][:, order], replicate=r + 1)
            claims[r] = board.certified_matrix()
            spent += scenario.n_policies * order.size
            evals[r] = spent
        t = np.arange(1, R + 1, dtype=float)
        return Trajectory(time=t, evals=evals, claims=claims, end_time=float(R), end_evals=float(spent),
                          time_unit="replicate")
    return run_one


def _addition(scenario: Any, run: Any, options: Mapping[str, Any], seed: np.random.SeedSequence) -> Trajectory:
    from ..methods.bbedge import Leaderboard

    n_new = int(scenario.stages.get("n_new", 0))
    if n_new < 1:
        raise ParameterError(f"method 'bbedge-addition' needs the bbedge-addition scenario, not {scenario.name!r}")
    L = scenario.n_policies
    L0 = L - n_new
    models = list(scenario.policies)
    R = run.scores.shape[0]
    board = Leaderboard(models[:L0], alpha=scenario.alpha, tau=scenario.tau, blocks=_labels(run),
                        items=[f"i{i:04d}" for i in range(scenario.n_items)], additions=n_new)
    claims = np.zeros((R + n_new, L, L), dtype=bool)
    for r in range(R):
        board.add_replicate(run.scores[r][:L0], replicate=r + 1)
        claims[r, :L0, :L0] = board.certified_matrix()
    for j in range(n_new):
        board.add_model(models[L0 + j], run.scores[:, L0 + j, :])
        m = board.certified_matrix()
        claims[R + j, :m.shape[0], :m.shape[1]] = m
    per0 = L0 * scenario.n_items
    t = np.concatenate([np.arange(1, R + 1, dtype=float), np.full(n_new, float(R))])
    ev = np.concatenate([np.arange(1, R + 1) * per0, per0 * R + np.arange(1, n_new + 1) * R * scenario.n_items])
    return Trajectory(time=t, evals=ev.astype(float), claims=claims, end_time=float(R), end_evals=float(ev[-1]),
                      time_unit="replicate")


_COMMON = {"blocks": "design", "top_k": True}
for _name, _method, _blocks, _desc in (
        ("bbedge", "bb-edge", True, "BB-EDGE: block-factorised empirical-Bernstein mixture e-processes, direct e-Holm"),
        ("bbedge-pi", "bb-edge-pi", True, "BB-EDGE-PI: plug-in stake instead of the grid mixture"),
        ("bfh-e-holm", "bfh-e-holm", True, "BFH-e-Holm: BB-EDGE with the Hoeffding penalty"),
        ("cr-edge", "cr-edge", False, "CR-EDGE: BB-EDGE with one block per replicate (always valid)")):
    register_method(MethodAdapter(name=_name, kinds=("leaderboard",), description=_desc,
                                  options=dict(_COMMON) if _blocks else {"top_k": True}, requires=_REQ,
                                  run_one=_variant(_method, _blocks), certified=True))

register_method(MethodAdapter(
    name="bbedge-topk", kinds=("leaderboard",), certified=True,
    description="pilot-targeted Top-k BB-EDGE (pilot replicates choose T0; k(L-k) cross-set directions tested)",
    options={"pilot": 3}, requires=_REQ, run_one=_pilot))
register_method(MethodAdapter(
    name="bbedge-epoch", kinds=("leaderboard",), certified=True,
    description="benchmark expansion with epoch reset (fresh e-processes per version at alpha / 3)",
    options={}, requires="certirank.methods.bbedge:Leaderboard", run_one=_epoch(False)))
register_method(MethodAdapter(
    name="bbedge-fixed", kinds=("leaderboard",), certified=True,
    description="BB-EDGE frozen on benchmark version 1 at alpha (the expansion study's comparator)",
    options={}, requires="certirank.methods.bbedge:Leaderboard", run_one=_epoch(True)))
register_method(MethodAdapter(
    name="bbedge-addition", kinds=("leaderboard",), certified=True,
    description="model addition: initial board at alpha/(n+1), each added model replayed at its own level",
    options={}, requires="certirank.methods.bbedge:Leaderboard", run_one=_addition))
