"""LeRobot ``eval_info.json``: the output of ``lerobot-eval`` (``<output_dir>/eval_info.json``).

Two layouts:

* current: ``{"per_task": [{"task_group", "task_id", "metrics": {"successes": [...], "max_rewards": [...],
  "sum_rewards": [...]}}], "per_group": …, "overall": …}``;
* older: ``{"per_episode": [{"episode_ix", "success", "max_reward", "sum_reward", "seed"}], "aggregated": …}``.

``metric=`` picks ``successes`` (default), ``max_rewards`` or ``sum_rewards`` (singular names also work;
rewards outside [0, 1] need ``--score-range``). The policy is the name of the folder holding the file
(``policy=`` overrides it for a single file); a folder of such folders reads every policy. Episodes are
paired by index within each task: episode ``i`` of every policy gets the label ``<group>/<task>#i``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from ...errors import DataError
from ..files import read_json
from ._common import finish, outcome

_FILE = "eval_info.json"
_METRICS = {"successes": "success", "max_rewards": "max_reward", "sum_rewards": "sum_reward"}


def info_files(p: Path) -> list[Path]:
    if p.is_file():
        return [p] if p.name == _FILE else []
    if not p.is_dir():
        return []
    if (p / _FILE).is_file():
        return [p / _FILE]
    return sorted(f for f in p.glob(f"*/**/{_FILE}"))


def _policy_names(root: Path, fs: list[Path]) -> dict[Path, str]:
    """Policy of each file: its folder's name, or, where those clash (``<policy>/eval/eval_info.json``), the
    folder's path under `root` without the trailing parts every file shares."""
    simple = {f: f.parent.name for f in fs}
    if len(set(simple.values())) == len(fs):
        return simple
    parts = {f: list(f.parent.relative_to(root).parts) if root.is_dir() else [f.parent.name] for f in fs}
    while (all(len(v) > 1 for v in parts.values()) and len({v[-1] for v in parts.values()}) == 1
           and len({tuple(v[:-1]) for v in parts.values()}) == len(fs)):
        for v in parts.values():
            v.pop()
    return {f: "/".join(v) for f, v in parts.items()}


def detect(p: Path) -> bool:
    return bool(info_files(p))


def read(p: Path, *, score_range: tuple[float, float] | None = None, metric: str = "successes",
         policy: str | None = None) -> pd.DataFrame:
    source = str(p)
    plural = {v: k for k, v in _METRICS.items()}.get(metric, metric)
    if plural not in _METRICS:
        raise DataError(f"unknown metric {metric!r}; expected one of {', '.join(_METRICS)}", source=source)
    fs = info_files(p) if (p.is_dir() or p.name == _FILE) else ([p] if p.is_file() else [])
    if not fs:
        raise DataError(f"no {_FILE} here (expected a lerobot-eval output folder or the file)", source=source)
    if policy is not None and len(fs) > 1:
        raise DataError("policy= names the policy of a single eval_info.json; this folder holds several",
                        source=source)
    rows: dict[str, list[Any]] = {"policy": [], "env": [], "score": [], "task_label": [], "episode": []}
    where: list[tuple[Any, Any]] = []
    names: dict[str, Path] = {}
    labels = _policy_names(p, fs)
    layouts = set()
    for f in fs:
        fsrc = str(f)
        info = read_json(f, hint="; truncated file?")
        name = policy or (labels[f] if len(fs) > 1 else f.parent.name or f.stem)
        if name in names:
            raise DataError(f"two eval_info.json files name the policy {name!r} ({names[name]} and {f})",
                            source=source)
        names[name] = f
        if not isinstance(info, dict) or not ("per_task" in info or "per_episode" in info):
            raise DataError("not a LeRobot eval_info.json: expected a 'per_task' list or a 'per_episode' list",
                            source=fsrc)
        if "per_task" in info:
            layouts.add("per_task")
            tasks = info["per_task"]
            if not isinstance(tasks, list):
                raise DataError("'per_task' must be a list of {task_group, task_id, metrics}", source=fsrc)
            seen_tasks: dict[str, int] = {}
            for k, t in enumerate(tasks):
                metrics = t.get("metrics") if isinstance(t, dict) else None
                if not isinstance(metrics, dict):
                    raise DataError(f"per_task[{k}] has no 'metrics' object", source=fsrc)
                if plural not in metrics:
                    raise DataError(f"per_task[{k}].metrics has no {plural!r} (has: {', '.join(metrics) or 'none'}); "
                                    "choose with --read-option metric=NAME", source=fsrc)
                vals = metrics[plural]
                if not isinstance(vals, list):
                    raise DataError(f"per_task[{k}].metrics.{plural} must be a list", source=fsrc)
                tl = f"{t.get('task_group', '')}/{t.get('task_id', k)}"
                if tl in seen_tasks:
                    raise DataError(f"per_task[{k}] repeats task {tl!r} of per_task[{seen_tasks[tl]}]; each task is "
                                    "listed once", source=fsrc)
                seen_tasks[tl] = k
                for i, v in enumerate(vals):
                    x = outcome(v) if v is not None else None
                    if x is None:
                        raise DataError(f"per_task[{k}].metrics.{plural}[{i}] is {v!r}; expected a number or "
                                        "true/false", source=fsrc)
                    rows["policy"].append(name)
                    rows["env"].append(f"{tl}#{i}")
                    rows["score"].append(x)
                    rows["task_label"].append(tl)
                    rows["episode"].append(i)
                    where.append((f"{f}: per_task[{k}].metrics.{plural}[{i}]", None))
        else:
            layouts.add("per_episode")
            eps = info["per_episode"]
            key = _METRICS[plural]
            if not isinstance(eps, list):
                raise DataError("'per_episode' must be a list of {episode_ix, success, …}", source=fsrc)
            seen_ix: dict[int, int] = {}
            for i, e in enumerate(eps):
                if not isinstance(e, dict) or key not in e:
                    has = ", ".join(e) if isinstance(e, dict) else type(e).__name__
                    raise DataError(f"per_episode[{i}] has no {key!r} (has: {has}); choose with "
                                    "--read-option metric=NAME", source=fsrc)
                x = outcome(e[key]) if e[key] is not None else None
                if x is None:
                    raise DataError(f"per_episode[{i}].{key} is {e[key]!r}; expected a number or true/false",
                                    source=fsrc)
                raw_ix = e.get("episode_ix", i)
                if isinstance(raw_ix, bool) or not isinstance(raw_ix, (int, float)) or raw_ix != int(raw_ix):
                    raise DataError(f"per_episode[{i}].episode_ix is {raw_ix!r}; expected an integer", source=fsrc)
                ix = int(raw_ix)
                if ix in seen_ix:
                    raise DataError(f"per_episode[{i}].episode_ix {ix} repeats per_episode[{seen_ix[ix]}]; each "
                                    "episode is listed once", source=fsrc)
                seen_ix[ix] = i
                rows["policy"].append(name)
                rows["env"].append(str(ix))
                rows["score"].append(x)
                rows["task_label"].append("")
                rows["episode"].append(ix)
                where.append((f"{f}: per_episode[{i}].{key}", None))
    notes = [f"lerobot: {len(fs)} policy file(s), metric {plural!r} ({' and '.join(sorted(layouts))} layout); "
             "episode i of each policy is compared with episode i of the others (pairing by index)"]
    return finish(rows, where, source=source, score_range=score_range, notes=notes)
