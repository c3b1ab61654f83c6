"""Honest simulation metrics (spec 03 §11, spec 04 §13.5).

* **Correct claim**: "a better than b" with θ_a − θ_b > τ (τ = 0 for policy scenarios). Anything else —
  a reversal or ordering a tied pair — is an error.
* **FWER**: fraction of runs with at least one false claim at *any* snapshot (or between snapshots, for
  item-stream methods), with a Clopper–Pearson interval.
* **Power(x)**: mean over runs of (correct claims held at x) / (number of true claims); budget-exhausted
  pairs are never counted as decided.
* **Full ranking(x)**: fraction of runs whose claims at x are exactly the true claims (all decidable pairs
  correctly decided and no false claim).
* **Sample complexity** (AnyRank accounting): Σ_i samples_i at the snapshot where the last true pair gets
  decided; runs that never decide every true pair are censored at their total cost (and counted).
* **Top-k** (spec 04 §8.1, §13.5): CertProb (some Top-k set certified by R), FCP (a set other than the true
  Top-k certified at some r ≤ R), CR (first certification replicate, censored at R).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .trajectory import Trajectory

__all__ = ["clopper_pearson", "closure_many", "topk_sets", "score_run", "summarize", "curves",
           "first_reach"]


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper–Pearson) two-sided interval for a binomial proportion k/n."""
    from scipy.stats import beta

    if n <= 0:
        return (0.0, 1.0)
    a = 1.0 - level
    lo = 0.0 if k == 0 else float(beta.ppf(a / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(beta.ppf(1 - a / 2, k + 1, n - k))
    return (lo, hi)


def closure_many(adj: np.ndarray) -> np.ndarray:
    """Boolean transitive closure of a stack of adjacency matrices ``(S, M, M)`` (Floyd–Warshall)."""
    reach = np.array(adj, dtype=bool, copy=True)
    for k in range(reach.shape[-1]):
        reach |= reach[..., :, k:k + 1] & reach[..., k:k + 1, :]
    return reach


def topk_sets(claims: np.ndarray, k: int) -> list[frozenset[int] | None]:
    """Certified Top-k set per snapshot (spec 04 §8.1), None where none is certified.

    T = {ℓ : |D_ℓ| ≥ L − k}; certified iff |T| = k and every member reaches every non-member. A closure
    with a cycle certifies nothing (fail closed, spec 04 §7).
    """
    s, n, _ = claims.shape
    if s == 0 or not 1 <= k < n:
        return [None] * s
    reach = closure_many(claims)
    out: list[frozenset[int] | None] = []
    below = reach.sum(axis=2)
    cyc = np.any(np.diagonal(reach, axis1=1, axis2=2), axis=1)
    for i in range(s):
        if cyc[i]:
            out.append(None)
            continue
        members = np.flatnonzero(below[i] >= n - k)
        if members.size != k:
            out.append(None)
            continue
        others = np.setdiff1d(np.arange(n), members)
        out.append(frozenset(int(m) for m in members) if reach[i][np.ix_(members, others)].all() else None)
    return out


def score_run(traj: Trajectory, truth: np.ndarray, *, k: int | None = None,
              true_topk: frozenset[int] | None = None) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Score one trajectory against the truth.

    Returns the per-run row (dict) and the per-snapshot arrays ``time, evals, n_correct, n_false, topk``
    (topk: 1 = the true Top-k certified, −1 = a wrong set certified, 0 = none).
    """
    truth = np.asarray(truth, dtype=bool)
    n_true = int(truth.sum())
    c = traj.claims
    n_correct = (c & truth).sum(axis=(1, 2)).astype(np.int64)
    n_false = (c & ~truth).sum(axis=(1, 2)).astype(np.int64)
    s = c.shape[0]
    full = (n_correct == n_true) & (n_false == 0)
    all_true = n_correct == n_true
    topk_state = np.zeros(s, dtype=np.int64)
    topk_time = math.nan
    topk_false = False
    if k is not None and s:
        sets = topk_sets(c, k)
        for i, st in enumerate(sets):
            if st is not None:
                topk_state[i] = 1 if (true_topk is not None and st == true_topk) else -1
    if k is not None:
        hit = np.flatnonzero(topk_state != 0)
        if hit.size:
            topk_time = float(traj.time[hit[0]])
        topk_false = bool(np.any(topk_state < 0))
        if traj.topk is not None:
            t_own, st = traj.topk
            if math.isnan(topk_time) or t_own < topk_time:
                topk_time = float(t_own)
            topk_false = topk_false or (true_topk is None or frozenset(st) != true_topk)
    def first(mask: np.ndarray, arr: np.ndarray) -> float:
        idx = np.flatnonzero(mask)
        return float(arr[idx[0]]) if idx.size else math.nan

    evals_all_true = first(all_true, traj.evals) if n_true else 0.0
    last_correct = int(n_correct[-1]) if s else 0
    last_false = int(n_false[-1]) if s else 0
    row: dict[str, Any] = {
        "n_true": n_true,
        "false_ever": bool(np.any(n_false > 0) or traj.false_between is not None),
        "false_between_time": math.nan if traj.false_between is None else float(traj.false_between),
        "false_final": last_false > 0,
        "n_correct_final": last_correct,
        "n_false_final": last_false,
        "power_final": last_correct / n_true if n_true else math.nan,
        "full_final": bool(s and full[-1]) if n_true else (last_false == 0),
        "time_full": first(full, traj.time),
        "evals_full": first(full, traj.evals),
        "time_all_true": first(all_true, traj.time) if n_true else 0.0,
        "evals_all_true": evals_all_true,
        "end_time": float(traj.end_time),
        "end_evals": float(traj.end_evals),
        "sample_complexity": evals_all_true if not math.isnan(evals_all_true) else float(traj.end_evals),
        "censored": bool(math.isnan(evals_all_true)),
        "time_unit": traj.time_unit,
    }
    if k is not None:
        row["topk_certified"] = not math.isnan(topk_time)
        row["topk_time"] = topk_time
        row["topk_false"] = topk_false
    for key, val in traj.info.items():
        row[key] = val
    if traj.samples is not None:
        row["samples"] = [float(v) for v in np.asarray(traj.samples).ravel()]
    snaps = {"time": traj.time, "evals": traj.evals, "n_correct": n_correct, "n_false": n_false,
             "topk": topk_state}
    return row, snaps


# --------------------------------------------------------------------------------------------------
# curves and summaries
# --------------------------------------------------------------------------------------------------

def _state_at(times: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Index of the last snapshot at or before each grid point (−1 = before the first)."""
    return np.searchsorted(times, grid, side="right") - 1


def curves(snapshots: pd.DataFrame, runs: pd.DataFrame, grid: Sequence[float], axis: str = "time") -> pd.DataFrame:
    """Power, full-ranking rate, FWER and Top-k rates on a grid of the chosen axis, per method.

    ``axis`` is ``"time"`` (native: iteration / replicate / games) or ``"evals"``. Returns a tidy frame with
    columns ``method, axis, x, power, full_ranking, fwer, topk_certified, topk_false``.
    """
    grid = np.asarray(grid, dtype=float)
    out = []
    for method, mruns in runs.groupby("method", sort=False):
        n_true = int(mruns["n_true"].iloc[0])
        msnap = snapshots[snapshots["method"] == method]
        groups = {r: g for r, g in msnap.groupby("run", sort=False)}
        power = np.zeros(grid.size)
        full = np.zeros(grid.size)
        fwer = np.zeros(grid.size)
        tk_cert = np.zeros(grid.size)
        tk_false = np.zeros(grid.size)
        for _, row in mruns.iterrows():
            g = groups.get(row["run"])
            fb = row.get("false_between_time", math.nan)
            between = grid >= fb if not pd.isna(fb) else np.zeros(grid.size, dtype=bool)
            if g is None or len(g) == 0:
                if n_true == 0:
                    full += 1
                fwer += between
                continue
            x = g[axis].to_numpy(dtype=float)
            idx = _state_at(x, grid)
            ok = idx >= 0
            nc = g["n_correct"].to_numpy()
            nf = g["n_false"].to_numpy()
            tk = g["topk"].to_numpy()
            cur_c = np.where(ok, nc[np.maximum(idx, 0)], 0)
            cur_f = np.where(ok, nf[np.maximum(idx, 0)], 0)
            if n_true:
                power += cur_c / n_true
            full += (cur_c == n_true) & (cur_f == 0)
            ever_f = np.maximum.accumulate(nf > 0)
            fwer += np.where(ok, ever_f[np.maximum(idx, 0)], False) | between
            ever_tk = np.maximum.accumulate(tk != 0)
            ever_tkf = np.maximum.accumulate(tk < 0)
            tk_cert += np.where(ok, ever_tk[np.maximum(idx, 0)], False)
            tk_false += np.where(ok, ever_tkf[np.maximum(idx, 0)], False)
        n = len(mruns)
        out.append(pd.DataFrame({"method": method, "axis": axis, "x": grid, "power": power / n,
                                 "full_ranking": full / n, "fwer": fwer / n, "topk_certified": tk_cert / n,
                                 "topk_false": tk_false / n}))
    return pd.concat(out, ignore_index=True) if out else pd.DataFrame(
        columns=["method", "axis", "x", "power", "full_ranking", "fwer", "topk_certified", "topk_false"])


def first_reach(curve: pd.DataFrame, column: str, level: float) -> float:
    """First grid value x at which ``curve[column] >= level`` (NaN if never)."""
    hit = curve[curve[column] >= level - 1e-12]
    return float(hit["x"].iloc[0]) if len(hit) else math.nan


def summarize(runs: pd.DataFrame, *, alpha: float, policies: Sequence[str] | None = None,
              kind: str = "policies", level: float = 0.95) -> dict[str, dict[str, Any]]:
    """Per-method summary: FWER with a Clopper–Pearson interval, final power, full-ranking rate, costs."""
    out: dict[str, dict[str, Any]] = {}
    for method, m in runs.groupby("method", sort=False):
        n = len(m)
        k_false = int(m["false_ever"].sum())
        lo, hi = clopper_pearson(k_false, n, level)
        complete = ~m["censored"].to_numpy(dtype=bool)
        s: dict[str, Any] = {
            "runs": n,
            "fwer": k_false / n,
            "fwer_ci": [lo, hi],
            # FWER is consistent with the level when the exact interval reaches alpha
            "fwer_controlled": bool(lo <= alpha),
            "fwer_final": float(m["false_final"].mean()),
            "power": float(m["power_final"].mean()),
            "full_ranking_rate": float(m["full_final"].mean()),
            "all_true_decided_rate": float(complete.mean()),
            "time_unit": str(m["time_unit"].iloc[0]),
            "mean_end_time": float(m["end_time"].mean()),
            "mean_total_evals": float(m["end_evals"].mean()),
        }
        if kind == "policies":
            s["mean_samples"] = float(m["sample_complexity"].mean())
            s["mean_samples_complete"] = float(m.loc[complete, "sample_complexity"].mean()) if complete.any() else None
            s["censored_rate"] = float(1 - complete.mean())
            if "samples" in m.columns and m["samples"].notna().all() and policies is not None:
                arr = np.array(m["samples"].tolist(), dtype=float)
                s["mean_samples_per_policy"] = {p: float(v) for p, v in zip(policies, arr.mean(axis=0))}
        else:
            # replicates until every true edge is certified, censored at the run's last replicate
            t_all = m["time_all_true"].to_numpy(dtype=float)
            s["mean_replicates"] = float(np.where(np.isnan(t_all), m["end_time"], t_all).mean())
            s["mean_queries"] = float(np.where(np.isnan(t_all), m["end_evals"],
                                               m["evals_all_true"].to_numpy(dtype=float)).mean())
        if "topk_certified" in m.columns:
            tt = m["topk_time"].to_numpy(dtype=float)
            s["topk_certprob"] = float(m["topk_certified"].mean())
            s["topk_fcp"] = float(m["topk_false"].mean())
            s["topk_mean_cr"] = float(np.where(np.isnan(tt), m["end_time"], tt).mean())
        out[str(method)] = s
    return out
