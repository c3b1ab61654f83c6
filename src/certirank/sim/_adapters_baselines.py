"""Adapters for the Bradley–Terry baselines (spec 06) on policy scenarios.

BT methods are fixed-sample procedures: they are refitted on growing prefixes of the run's preference stream
(every ``step`` games), and each refit's claims form one snapshot. The FWER therefore counts a false claim at
*any* look, which is exactly what a user who re-fits a BT leaderboard as data arrive would experience.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import ParameterError
from ._registry import MethodAdapter, register_method
from .trajectory import Trajectory


def _points(n_games: int, options: Mapping[str, Any]) -> np.ndarray:
    """Checkpoints (games): every ``step`` games, or the explicit list ``at`` (e.g. ``at="500|700|900"``)."""
    at = options.get("at")
    if at is None:
        return _checkpoints(n_games, options["step"])
    if isinstance(at, str):
        at = [v for v in at.replace("|", " ").replace(";", " ").split() if v]
    try:
        pts = np.unique(np.asarray([int(v) for v in np.atleast_1d(at)], dtype=np.int64))
    except (TypeError, ValueError):
        raise ParameterError(f"at must be a list of game counts, got {at!r}") from None
    if pts.size == 0 or pts[0] < 1 or pts[-1] > n_games:
        raise ParameterError(f"at must list game counts between 1 and n_games = {n_games}, got {pts.tolist()}")
    return pts


def _checkpoints(n_games: int, step: Any) -> np.ndarray:
    step = int(step)
    if step < 1:
        raise ParameterError(f"step must be a positive number of games, got {step}")
    pts = np.arange(step, n_games + 1, step)
    if pts.size == 0 or pts[-1] != n_games:
        pts = np.append(pts, n_games)
    return pts


def _prefix_wins(run: Any, m: int, pts: np.ndarray) -> np.ndarray:
    """Win matrices of the first ``pts[j]`` games, ``(J, M, M)`` (ties never occur in these streams)."""
    awin = run.pref_y == 2
    winner = np.where(awin, run.pref_a, run.pref_b)
    loser = np.where(awin, run.pref_b, run.pref_a)
    decisive = run.pref_y != 1
    onehot = np.zeros((run.pref_y.size, m * m))
    onehot[np.arange(run.pref_y.size), winner * m + loser] = decisive
    cum = np.cumsum(onehot, axis=0)
    return cum[pts - 1].reshape(-1, m, m)


def _bt_batch(scenario: Any, data: Sequence[Any], options: Mapping[str, Any],
              seeds: Sequence[np.random.SeedSequence]) -> list[Trajectory]:
    from ..baselines.bradley_terry import bt_fit_batch

    m = scenario.n_policies
    pts = _points(scenario.n_games, options)
    pseudo = float(options["pseudo_count"]) * (1.0 - np.eye(m))
    wins = np.stack([_prefix_wins(run, m, pts) for run in data]) + pseudo  # (runs, J, M, M)
    theta, _ = bt_fit_batch(wins, tol=float(options["tol"]))
    out = []
    for r in range(len(data)):
        th = theta[r]  # (J, M)
        claims = th[:, :, None] > th[:, None, :]
        out.append(Trajectory(time=pts, evals=2 * pts, claims=claims, end_time=float(pts[-1]),
                              end_evals=float(2 * pts[-1]), time_unit="games"))
    return out


def _comparisons(scenario: Any, run: Any, n: int) -> Any:
    from ..baselines._prefs import Comparisons

    return Comparisons(policies=tuple(scenario.policies), a=run.pref_a[:n], b=run.pref_b[:n], y=run.pref_y[:n],
                       means=np.asarray(scenario.means, dtype=float), means_kind="score")


def _via_baseline(method: str) -> Any:
    def run_one(scenario: Any, run: Any, options: Mapping[str, Any], seed: np.random.SeedSequence) -> Trajectory:
        from ..baselines import baseline

        m = scenario.n_policies
        index = {p: i for i, p in enumerate(scenario.policies)}
        pts = _points(scenario.n_games, options)
        opts = {k: v for k, v in options.items() if k not in ("step", "at")}
        if "alpha" in opts and opts["alpha"] is None:
            opts["alpha"] = scenario.alpha
        if "seed" in opts:
            opts["seed"] = np.random.default_rng(seed)
        claims = np.zeros((pts.size, m, m), dtype=bool)
        for j, n in enumerate(pts):
            res = baseline(method, _comparisons(scenario, run, int(n)), **opts)
            for d in res.decisions:
                claims[j, index[d["better"]], index[d["worse"]]] = True
        return Trajectory(time=pts, evals=2 * pts, claims=claims, end_time=float(pts[-1]),
                          end_evals=float(2 * pts[-1]), time_unit="games")
    return run_one


register_method(MethodAdapter(
    name="bt", kinds=("policies",), certified=False,
    description="classical Bradley–Terry point ranking, refitted every `step` preference games (no error control)",
    options={"step": 100, "at": None, "pseudo_count": 0.01, "tol": 1e-10},
    requires="certirank.baselines.bradley_terry:bt_fit_batch", run_batch=_bt_batch))

register_method(MethodAdapter(
    name="bt-bootstrap", kinds=("policies",), certified=False,
    description="bootstrapped BT (Bonferroni intervals, spec 06 §4), refitted every `step` games; "
                "n_boot defaults to 1000 here (paper 5000) to keep simulations affordable",
    options={"step": 100, "at": None, "n_boot": 1000, "alpha": None, "seed": None},
    requires="certirank.baselines:baseline", run_one=_via_baseline("bt-bootstrap")))

register_method(MethodAdapter(
    name="bt-davidson", kinds=("policies",), certified=False,
    description="Davidson ties model point ranking (spec 06 §2), refitted every `step` games",
    options={"step": 100, "at": None},
    requires="certirank.baselines:baseline", run_one=_via_baseline("bt-davidson")))

register_method(MethodAdapter(
    name="bt-em", kinds=("policies",), certified=False,
    description="RoboArena BT-EM (spec 06 §3, corrected default) point ranking, refitted every `step` games (slow)",
    options={"step": 500, "at": None},
    requires="certirank.baselines:baseline", run_one=_via_baseline("bt-em")))
