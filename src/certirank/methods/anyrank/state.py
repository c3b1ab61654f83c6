"""Compact snapshots of a live AnyRank engine: resume in time independent of the history (no replay).

``Ranker.from_json`` rebuilds an engine by re-running every iteration over the saved results, which is the
honest check but costs O(history). A campaign store (``certirank.campaign``) checkpoints this snapshot in the
same transaction as each record, so opening a campaign is one read; its ``verify`` replays the records and
compares the replayed snapshot with the stored one, field by field.

A snapshot is ``{"format", "config", "config_sha256", "environment_draw", "meta", "arrays"}``: ``meta`` holds
JSON-able scalars and lists, ``arrays`` named numpy arrays (exact float64 bits). Suggestions handed out in a
session (``Ranker._outstanding``) are not part of it, exactly as with ``from_json``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ...errors import ParameterError, StateError

SNAPSHOT_FORMAT = "certirank.anyrank.snapshot/1"

# _Campaign attributes stored as arrays (dtype fixed so that a restored engine compares bit for bit)
_CAMP_ARRAYS = {"pair_open": np.bool_, "n": np.int64, "cursor": np.int64, "exhausted": np.bool_,
                "pl": np.float64, "pm": np.float64, "edge_time": np.float64}


def snapshot(ranker: Any) -> dict[str, Any]:
    """The derived state of ``ranker`` (a :class:`certirank.Ranker`) as plain data plus numpy arrays."""
    camp = ranker._camp
    tb = camp.table
    rows = tb.nrows
    arrays: dict[str, np.ndarray] = {k: np.array(getattr(camp, k), dtype=dt) for k, dt in _CAMP_ARRAYS.items()}
    arrays["table_vals"] = tb.vals[:rows].copy()
    arrays["table_known"] = tb.known[:rows].copy()
    arrays["graph_weights"] = camp.graph.weights.copy()
    arrays["graph_order"] = np.array(camp.graph.rejection_order, dtype=np.int64)
    for key, arr in camp.streams.engine.state.items():
        arrays[f"streams.{key}"] = arr.copy()
    arrays.update(_results_arrays(ranker))
    draw = None if ranker._envs is None else {"choices": list(ranker._envs), "seed": ranker._env_seed}
    meta = {"t": int(camp.t), "termination": camp.termination, "inconsistent": bool(camp.inconsistent),
            "decisions": [dict(d) for d in camp.decisions], "nrows": int(rows)}
    return {"format": SNAPSHOT_FORMAT, "config": ranker._setup.to_dict(), "config_sha256": ranker._setup.sha256(),
            "environment_draw": draw, "meta": meta, "arrays": arrays}


def _results_arrays(ranker: Any) -> dict[str, np.ndarray]:
    """The results in recording order as three arrays, converted incrementally: results are only ever appended
    to a Ranker, so each snapshot converts just the new ones (a snapshot costs the same at any history length,
    apart from one array copy)."""
    res = ranker._results
    done, cached = getattr(ranker, "_snapshot_results", (0, None))
    if cached is None or done > len(res):
        done, cached = 0, {"results_policy": np.zeros(0, np.int32), "results_trial": np.zeros(0, np.int64),
                           "results_score": np.zeros(0, np.float64)}
    new = res[done:]
    if new:
        index = ranker._index
        cached = {
            "results_policy": np.concatenate([cached["results_policy"],
                                              np.array([index[r["policy"]] for r in new], dtype=np.int32)]),
            "results_trial": np.concatenate([cached["results_trial"],
                                             np.array([r["trial"] for r in new], dtype=np.int64)]),
            "results_score": np.concatenate([cached["results_score"], np.array(
                [math.nan if r["score"] is None else r["score"] for r in new], dtype=np.float64)]),
        }
        ranker._snapshot_results = (len(res), cached)
    return cached


def empty(cls: type, config: Mapping[str, Any], environment_draw: Mapping[str, Any] | None = None) -> Any:
    """A Ranker with nothing recorded, from a stored configuration (``Ranker.snapshot()["config"]``) read
    exactly as stored: no public-argument renaming can change what a saved campaign means."""
    from .config import _setup_from_dict
    obj = cls.__new__(cls)
    obj._init(_setup_from_dict(config))
    if environment_draw is not None:
        obj._set_environments(environment_draw["choices"], environment_draw["seed"])
    return obj


def restore(cls: type, snap: Mapping[str, Any]) -> Any:
    """A Ranker (of class ``cls``) equal to the one :func:`snapshot` was taken from.

    Cost: building the pre-registered design and copying the arrays; independent of how many results were
    recorded beyond the table itself. Raises :class:`StateError` if the snapshot is not consistent.
    """
    from .config import _setup_from_dict
    if not isinstance(snap, Mapping) or snap.get("format") != SNAPSHOT_FORMAT:
        raise StateError(f"not an AnyRank snapshot (expected format {SNAPSHOT_FORMAT!r})")
    try:
        setup = _setup_from_dict(snap["config"])
        if snap["config_sha256"] != setup.sha256():
            raise StateError("AnyRank snapshot: the configuration does not match its checksum")
        obj = cls.__new__(cls)
        obj._init(setup)
        draw = snap.get("environment_draw")
        if draw is not None:
            obj._set_environments(draw["choices"], draw["seed"])
        camp = obj._camp
        meta, arrays = snap["meta"], snap["arrays"]
        for key, dt in _CAMP_ARRAYS.items():
            ref = getattr(camp, key)
            arr = np.array(arrays[key], dtype=dt)
            if arr.shape != ref.shape:
                raise StateError(f"AnyRank snapshot: {key} has shape {arr.shape}, expected {ref.shape}")
            setattr(camp, key, arr)
        vals = np.asarray(arrays["table_vals"], dtype=np.float64)
        known = np.asarray(arrays["table_known"], dtype=bool)
        rows = int(meta["nrows"])
        if vals.shape != (rows, setup.m) or known.shape != vals.shape:
            raise StateError("AnyRank snapshot: the trial table does not match the policies")
        tb = camp.table
        tb.grow(rows)
        tb.vals[:rows] = vals
        tb.known[:rows] = known
        tb.nrows = rows
        tb._cum = None
        # the Bretz state is rebuilt by repeating the recorded rejections on the pre-registered graph: the same
        # arithmetic in the same order as the live engine, hence bit-identical weights (checked just below)
        for j in np.asarray(arrays["graph_order"], dtype=np.int64).tolist():
            camp.graph.reject(int(j))
        if not np.array_equal(camp.graph.weights, np.asarray(arrays["graph_weights"], dtype=np.float64)):
            raise StateError("AnyRank snapshot: the graph weights do not follow from its rejections")
        engine = camp.streams.engine
        engine.load_arrays({k.split(".", 1)[1]: v for k, v in arrays.items() if k.startswith("streams.")})
        camp.t = int(meta["t"])
        camp.termination = meta["termination"]
        camp.inconsistent = bool(meta["inconsistent"])
        camp.decisions = _decisions(meta["decisions"])
        pols = setup.policies
        obj._snapshot_results = (len(arrays["results_policy"]), {k: np.asarray(arrays[k]) for k in
                                                                 ("results_policy", "results_trial", "results_score")})
        obj._results = [{"policy": pols[p], "trial": r, "score": None if v != v else v}  # v != v: NaN
                        for p, r, v in zip(arrays["results_policy"].tolist(), arrays["results_trial"].tolist(),
                                           arrays["results_score"].tolist())]
    except (KeyError, TypeError, IndexError, ValueError, ParameterError) as exc:
        raise StateError(f"corrupt AnyRank snapshot ({type(exc).__name__}: {exc})") from None
    return obj


def _decisions(decisions: Any) -> list[dict[str, Any]]:
    """The recorded decisions, named as today: snapshots written before the record (0.2) named the p-value
    ``p_value``."""
    return [{("pvalue" if k == "p_value" else k): v for k, v in d.items()} for d in decisions]


def snapshot_differences(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """Names of the fields in which two snapshots differ (empty = identical, NaN equal to NaN). A snapshot of an
    earlier version is compared as it reads today (its decisions' ``p_value`` is today's ``pvalue``)."""
    out = [k for k in sorted(set(a) | set(b)) if k not in ("meta", "arrays") and a.get(k) != b.get(k)]
    ma, mb = ({**m, "decisions": _decisions(m["decisions"])} if "decisions" in m else m
              for m in (a.get("meta", {}), b.get("meta", {})))
    out += [f"meta.{k}" for k in sorted(set(ma) | set(mb)) if ma.get(k) != mb.get(k)]
    aa, ab = a.get("arrays", {}), b.get("arrays", {})
    for k in sorted(set(aa) | set(ab)):
        x, y = aa.get(k), ab.get(k)
        if x is None or y is None or np.asarray(x).shape != np.asarray(y).shape \
                or not np.array_equal(np.asarray(x), np.asarray(y), equal_nan=np.asarray(x).dtype.kind == "f"):
            out.append(f"arrays.{k}")
    return out
