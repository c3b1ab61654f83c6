"""`amend`: change the design of a running campaign, as an ``amend`` entry of the audit chain (see ``_design``
for what may change and why the rest may not)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import ParameterError
from ._design import (AMENDABLE, _check_launch_has_paths, _text_list, check_checkpoints, check_launch, check_tags,
                      read_design, refusal, MAX_CHECK, MAX_CHECKS)
from ._plan import check_environments
from ._store import Head
from ._util import _canon, _check_note, _config_diff, _operator
from .results import Record

__all__ = ["amend", "parse_settings"]

_ANYRANK_ONLY = ("n_max", "environments", "seed", "tags", "open_tags", "launch", "checkpoints")
#: where each design key lives in a configuration (AnyRank, leaderboard)
_PATHS = {"alpha": ("engine.ranker.alpha", "engine.alpha"), "method": ("engine.ranker.method", "engine.method"),
          "prior": ("engine.ranker.prior", None), "gamma": ("engine.ranker.gamma", None),
          "ties": ("engine.ranker.ties", None), "guarantee": ("engine.ranker.guarantee", None),
          "bins": ("engine.ranker.bins", None), "budget": ("engine.ranker.budget", None),
          "arms": ("engine.ranker.arms", None), "n_max": ("engine.ranker.n_max", None),
          "policies": ("engine.ranker.policies", "engine.models"), "models": (None, "engine.models"),
          "score_range": ("score_range", None), "about": ("about", "about"), "blind": ("blind", "blind"),
          "kind": ("kind", "kind"), "environments": ("plan.environments", None), "seed": ("plan.seed", None),
          "tags": ("design.tags", None), "open_tags": ("design.open_tags", None),
          "checklist": ("design.checklist", "design.checklist"), "launch": ("design.launch", None),
          "checkpoints": ("design.checkpoints", None), "tau": (None, "engine.tau"), "blocks": (None, "engine.blocks"),
          "top_k": (None, "engine.top_k")}


def amend(camp: Any, requested: Mapping[str, Any], *, reason: Any, design: Any, by: Any,
          idempotency_key: Any) -> Record:
    who = _operator(by)
    if not isinstance(reason, str) or not reason.strip():
        raise ParameterError("an amendment needs a reason (--reason TEXT): it is kept in the audit trail with it")
    reason = _check_note(reason.strip())
    requested = dict(requested)
    # a retried amendment finds the design already amended: its stored answer is returned before any check
    request = {"verb": "amend", "requested": requested, "by": who, "note": reason,
               "design": None if design is None else _design_sha(design)}
    done = camp._answered(idempotency_key, request)
    if done is not None:
        return done
    if design is not None:
        from_file = _file_changes(camp, design)
        both = sorted(set(from_file) & set(requested))
        if both:
            raise ParameterError(f"{both[0]} is set both in {design} and as an argument; set it in one place")
        requested = {**from_file, **requested}
    if not requested:
        raise ParameterError("nothing to amend" + (f": {design} has the design in force" if design is not None else
                             "; give a change such as n_max=400 (amendable: " + ", ".join(AMENDABLE) + ")"))
    for key in requested:
        if key not in AMENDABLE:
            raise ParameterError(refusal(key))
        if key in _ANYRANK_ONLY and camp.kind == "proxy":
            raise ParameterError(f"{key} cannot be amended in a proxy campaign: its budget, schedule and label draw "
                                 "are locked at init; it may amend its checklist only")
        if key in _ANYRANK_ONLY and camp.kind != "anyrank":
            # a leaderboard's or item campaign's n_max is a budget too, but locked at init
            raise ParameterError(f"{key} cannot be amended in a {camp.kind} campaign (only a robot campaign, --kind "
                                 "anyrank, amends it): it is locked at init; this campaign may amend its checklist "
                                 "only")
    cur = camp.design
    changes = _changes(camp, cur, requested)
    if not changes:
        raise ParameterError("nothing to amend: every change given is already the design in force")
    names = camp._names.names
    after = {"launch": cur.launch, "checkpoints": cur.checkpoints,
             **{k: v["to"] for k, v in changes.items() if k in ("launch", "checkpoints")}}
    _check_launch_has_paths(after, names)

    def gather(conn: sqlite3.Connection, head: Head) -> int:
        need = camp._engine.needed() if camp.kind == "anyrank" else []
        return max([camp._store.handed_out(conn), *(r for _, r in need)])

    def build(take: Callable[[], Any], handed_out: int) -> tuple[dict[str, Any], Any]:
        payload: dict[str, Any] = {"changes": changes}
        if "environments" in changes or "seed" in changes:
            schedule = camp._design.schedule
            seg = schedule.segments[-1] if schedule.segments else None
            envs = changes["environments"]["to"] if "environments" in changes else list(seg.environments)
            seed = changes["seed"]["to"] if "seed" in changes else (seg.seed if seg else camp.config["plan"]["seed"])
            payload["plan"] = {"from_trial": schedule.next_start(handed_out), "environments": envs, "seed": seed}
        row = {"action": "amend", "by": who, "note": reason, "payload": _canon(payload)}
        if "n_max" not in changes:
            return row, None
        engine = take()
        engine.apply(row)  # the Ranker refuses a budget declared final (spec 08 §4), before anything is written
        return row, engine

    return camp._write(build, gather, request, idempotency_key)


def _design_sha(design: Any) -> str:
    return read_design(design)[1]["sha256"]


def _changes(camp: Any, cur: Any, requested: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """{key: {"from", "to"}} for every requested value that differs from the design in force (checked)."""
    out: dict[str, dict[str, Any]] = {}
    for key, value in requested.items():
        old, new = _checked(camp, cur, key, value, requested)
        if old != new:
            out[key] = {"from": old, "to": new}
    return out


def _checked(camp: Any, cur: Any, key: str, value: Any, requested: Mapping[str, Any]) -> tuple[Any, Any]:
    if key == "n_max":
        old = _n_max(camp)
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ParameterError(f"n_max must be a positive whole number, got {value!r}")
        if int(value) < old:
            raise ParameterError(f"n_max can only grow (now {old}, got {value}): a smaller budget chosen after "
                                 "results were seen would select when to stop")
        return old, int(value)
    if key == "environments":
        old = cur.schedule.environments
        new = check_environments(value)
        dropped = [e for e in old if e not in new]
        if dropped:
            raise ParameterError(f"environment {dropped[0]!r} cannot be removed: dropping environments after results "
                                 "were seen could select them by outcome (record its rollouts as missing, or log "
                                 "faults, instead); environments can be added")
        return old, old + [e for e in new if e not in old]
    if key == "seed":
        if not cur.schedule.has_environments and "environments" not in requested:
            raise ParameterError("seed re-draws the order of environments in each block, and this campaign has no "
                                 "environments (add them with environments=...)")
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ParameterError(f"seed must be a non-negative integer, got {value!r}")
        seg = cur.schedule.segments[-1] if cur.schedule.segments else None
        return (None if seg is None else seg.seed), int(value)
    if key == "tags":
        old = list(cur.tags)
        new = check_tags(value)
        dropped = [t for t in old if t not in new]
        if dropped:
            raise ParameterError(f"tag {dropped[0]!r} cannot be removed: records may carry it; tags can be added")
        return old, old + [t for t in new if t not in old]
    if key == "open_tags":
        if not isinstance(value, (bool, np.bool_)):
            raise ParameterError(f"open_tags must be true or false, got {value!r}")
        return cur.open_tags, bool(value)
    if key == "checklist":
        return list(cur.checklist), _text_list(value, "checklist", MAX_CHECK, MAX_CHECKS)
    if key == "launch":
        return cur.launch, (None if value in (None, "") else check_launch(value))
    if key == "checkpoints":
        given = check_checkpoints(value, camp._names.names) or {}
        merged = {**(cur.checkpoints or {}), **given}
        return cur.checkpoints, {n: merged[n] for n in camp._names.names if n in merged}
    raise ParameterError(refusal(key))  # pragma: no cover - AMENDABLE is checked first


def _n_max(camp: Any) -> int:
    with camp._store.read() as conn:
        return int(camp._current(conn).n_max)


def _file_changes(camp: Any, design: Any) -> dict[str, Any]:
    """The settings of a design file that differ from the design in force, as requested changes (a key the
    file does not set is left as it is)."""
    from ._create import config_of
    values, _ = read_design(design)
    if not values:
        raise ParameterError(f"design file {design} sets nothing")
    lb = camp.kind == "leaderboard"
    base = {"kind": camp.kind, "models" if lb else "policies": list(camp._names.names)}
    kw = {**base, **values}
    if lb and "policies" in values and "models" not in values:
        kw["models"] = kw.pop("policies")
    try:
        candidate = config_of(kw)
    except ParameterError as exc:
        raise ParameterError(f"design file {design}: {exc}") from None
    current = _in_force(camp)
    out: dict[str, Any] = {}
    for key in values:
        path = _PATHS.get(key, (None, None))[1 if lb else 0]
        if path is None:
            raise ParameterError(refusal(key) if key in _PATHS else f"design file {design}: {key!r} is not a setting "
                                 f"of a {camp.kind} campaign")
        a, b = _get(candidate, path), _get(current, path)
        if _config_diff({"v": a}, {"v": b}):
            out[key] = values[key]
    return out


def _in_force(camp: Any) -> dict[str, Any]:
    """The configuration with the design in force (amendments applied) in its design fields."""
    import copy
    cfg = copy.deepcopy(camp.config)
    d = camp.design
    cfg["design"] = {**(cfg.get("design") or {}), "tags": list(d.tags), "open_tags": d.open_tags,
                     "checklist": list(d.checklist), "launch": d.launch, "checkpoints": d.checkpoints}
    if camp.kind == "anyrank":
        seg = d.schedule.segments[-1] if d.schedule.segments else None
        cfg["plan"] = {"environments": None if seg is None else list(seg.environments),
                       "seed": (cfg.get("plan") or {}).get("seed") if seg is None else seg.seed}
        ranker = cfg["engine"]["ranker"]
        ranker["n_max" if "n_max" in ranker or "nmax" not in ranker else "nmax"] = _n_max(camp)
    return cfg


#: the names configurations saved before 0.2 used for a key
_OLD_KEYS = {"n_max": "nmax", "bins": "metric"}


def _get(cfg: Mapping[str, Any], path: str) -> Any:
    out: Any = cfg
    for part in path.split("."):
        if not isinstance(out, Mapping):
            return None
        out = out.get(part, out.get(_OLD_KEYS.get(part, part)))
    return out


def parse_settings(items: Sequence[str] | None) -> dict[str, Any]:
    """KEY=VALUE words: a value is read as JSON when it parses (numbers, true/false, ["a", "b"]), else as text;
    a comma-separated text is a list for the list settings."""
    out: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise ParameterError(f"an amendment is KEY=VALUE (e.g. n_max=400, environments=sink,shelf), got {item!r}")
        try:
            parsed: Any = json.loads(value)
        except ValueError:
            parsed = value.strip()
        if key in ("environments", "tags", "checklist") and isinstance(parsed, str):
            parsed = [v.strip() for v in parsed.split(",") if v.strip()]
        if key == "checkpoints" and isinstance(parsed, str):
            name, eq, path = parsed.partition("=")  # checkpoints=POLICY=PATH
            if not eq:
                raise ParameterError(f"checkpoints takes POLICY=PATH, got {parsed!r}")
            parsed = {name.strip(): path.strip()}
        if key in out:
            if key == "checkpoints":
                out[key] = {**out[key], **parsed}
                continue
            raise ParameterError(f"{key} is given twice")
        out[key] = parsed
    return out
