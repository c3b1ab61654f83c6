"""lm-evaluation-harness ``--log_samples`` output.

``<output_path>/<model>/samples_<task>_<date>.jsonl``: one JSON object per (document, filter) with ``doc_id``,
``filter``, ``metrics`` (the metric names) and one key per metric holding that document's value. The model is
the folder name (lm-eval's sanitised model name), the item is ``doc_id`` (``<task>/<doc_id>`` when several
tasks are read), and several files for the same model and task (repeated runs, told apart by their date
stamp) become replicates 0, 1, … in date order. Also lm-eval 0.4.0-0.4.2's layout: ``results.json`` beside
``<model_args>_<task>.jsonl`` JSON arrays.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...errors import DataError
from ..files import jsonl_records
from ._common import describe, label, name_set, validate_located

_SAMPLES_RE = re.compile(r"^samples_(?P<task>.+?)(?:_(?P<date>\d{4}-\d{2}-\d{2}T[0-9][0-9.\-:]*))?\.jsonl$")
# Keys of an lm-eval sample line that are bookkeeping, not metric values.
_LM_EVAL_KEYS = frozenset({"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics",
                           "doc_hash", "prompt_hash", "target_hash", "task_name", "task", "raw_resps"})


@dataclass(frozen=True)
class _SamplesFile:
    path: Path
    model: str
    task: str
    date: str


def is_lm_eval_samples_file(p: Path) -> bool:
    """True for a file named like lm-eval's ``samples_<task>_<date>.jsonl`` whose first line has a ``doc_id``."""
    if not (p.is_file() and _SAMPLES_RE.match(p.name)):
        return False
    try:
        with open(p, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.strip():
                    return '"doc_id"' in line
    except OSError:
        return False
    return False


def detect(p: Path) -> bool:
    """An lm-eval output folder (or one model's folder) holding samples files, or one samples file."""
    return bool(lm_eval_files(p)) if p.is_dir() else is_lm_eval_samples_file(p)


def _legacy_tasks(folder: Path) -> list[str]:
    """Task names of an lm-eval 0.4.0-0.4.2 summary in `folder` (``results.json`` or another ``*.json`` given as
    ``--output_path``, with ``results`` and ``configs``), longest first; [] if there is none."""
    tasks: set[str] = set()
    for f in sorted(folder.glob("*.json")):
        if f.stat().st_size > 50_000_000:  # a summary is small; do not parse a large data file to find out
            continue
        try:
            obj = json.loads(f.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            continue
        if isinstance(obj, dict) and isinstance(obj.get("configs"), dict) and isinstance(obj.get("results"), dict):
            tasks.update(map(str, obj["configs"]))
    return sorted(tasks, key=lambda t: (-len(t), t))


def _legacy_model(prefix: str) -> str:
    """lm-eval 0.4.0-0.4.2 named samples files after ``--model_args`` with '/' and '=' written '__'
    (``pretrained__org__name,dtype__float16``): the model is the ``pretrained`` (or ``model``) value, as the
    later layout's folder name has it (``org__name``)."""
    for part in prefix.split(","):
        for key in ("pretrained__", "model__", "engine__", "path__"):
            if part.startswith(key) and len(part) > len(key):
                return part[len(key):]
    return prefix


def lm_eval_files(p: Path) -> list[_SamplesFile]:
    """The samples files of an lm-eval output folder (``<out>``, ``<out>/<model>``) or a single samples file.

    Also the layout of lm-eval 0.4.0-0.4.2: ``<model_args>_<task>.jsonl`` (a JSON array) beside ``results.json``.
    """
    def scan(folder: Path) -> list[_SamplesFile]:
        found = []
        for f in sorted(folder.iterdir()):
            m = _SAMPLES_RE.match(f.name)
            if m and f.is_file():
                found.append(_SamplesFile(f, folder.name, m.group("task"), m.group("date") or ""))
        if found:
            return found
        tasks = _legacy_tasks(folder) if any(folder.glob("*.jsonl")) else []
        for f in sorted(folder.glob("*.jsonl")):
            task = next((t for t in tasks if f.name.endswith(f"_{t}.jsonl") and len(f.name) > len(t) + 7), None)
            if task is not None and f.is_file():
                found.append(_SamplesFile(f, _legacy_model(f.name[:-len(f"_{task}.jsonl")]), task, ""))
        return found

    if p.is_file():
        m = _SAMPLES_RE.match(p.name)
        return [_SamplesFile(p, p.parent.name, m.group("task"), m.group("date") or "")] if m else []
    if not p.is_dir():
        return []
    direct = scan(p)
    if direct:
        return direct
    nested: list[_SamplesFile] = []
    bare = []
    for sub in sorted(d for d in p.iterdir() if d.is_dir()):
        found = scan(sub)
        nested.extend(found)
        if not found and any(sub.glob("results_*.json")):
            bare.append(sub.name)
    if nested and bare:
        # reading the other models alone would leave these out of the ranking without a word
        raise DataError(f"model folder(s) {', '.join(bare)} hold lm-eval results_*.json but no samples_*.jsonl; "
                        "rerun lm_eval with --log_samples for them, or move them out of this folder", source=str(p))
    return nested


def load_lm_eval(path: str | Path, *, metric: str | None = None, filter: str | None = None,
                 task: str | Sequence[str] | None = None,
                 score_range: tuple[float, float] | None = None) -> pd.DataFrame:
    """Read lm-evaluation-harness ``--log_samples`` output into the validated evaluation table.

    Parameters
    ----------
    path:
        The ``--output_path`` folder (one sub-folder per model), one model's folder, or one
        ``samples_<task>_<date>.jsonl`` file.
    metric:
        Per-sample metric to use as the score (e.g. ``acc``, ``exact_match``). Default: the first name in
        the ``metrics`` list of the first line.
    filter:
        lm-eval filter whose lines to use (e.g. ``strict-match``). Default: ``none`` if present, else the
        only filter in the data; with several filters and no ``none``, pass one.
    task:
        Restrict to these task name(s) (a list, or one text with commas: ``"gsm8k,arc_easy"``).
    score_range:
        Rescale scores from ``(lo, hi)`` to [0, 1].
    """
    p = Path(path)
    source = str(p)
    if not p.exists():
        raise DataError("no such file or folder", source=source)
    files = lm_eval_files(p)
    if not files:
        if p.is_file():
            raise DataError("not an lm-eval samples file (expected a name like samples_<task>_<date>.jsonl)",
                            source=source)
        raise DataError("no lm-eval samples files found; expected <out>/<model>/samples_<task>_<date>.jsonl "
                        "(run lm_eval with --log_samples)", source=source)
    if task is not None:
        wanted = name_set(task)
        tasks_found = sorted({f.task for f in files})
        files = [f for f in files if f.task in wanted]
        if not wanted <= set(tasks_found):
            raise DataError(f"no samples for task(s) {', '.join(sorted(wanted - set(tasks_found)))}; tasks found: "
                            f"{', '.join(tasks_found)}", source=source)

    records = []  # (file index, line number, record)
    for k, f in enumerate(files):
        for line_no, rec in _samples_records(f.path):
            if "doc_id" not in rec:
                raise DataError("line has no 'doc_id'; not an lm-eval --log_samples line", source=str(f.path),
                                row=line_no)
            records.append((k, line_no, rec))
    if not records:
        raise DataError("the samples files contain no lines", source=source)

    # Filters and metrics differ between tasks (gsm8k logs strict-match/flexible-extract, arc logs none), so
    # the defaults are chosen per task; an explicit filter= applies to every task that logged it (a task logged
    # with one filter only, such as arc's 'none' beside gsm8k, keeps it: there is nothing to choose), metric= to all.
    task_of = [files[k].task for k, _, _ in records]
    filters_by_task: dict[str, list[str]] = {}
    for t, (_, _, r) in zip(task_of, records):
        fl = filters_by_task.setdefault(t, [])
        name = str(r.get("filter", "none"))
        if name not in fl:
            fl.append(name)
    chosen_filter: dict[str, str] = {}
    notes = []
    if filter is not None and not any(filter in fl for fl in filters_by_task.values()):
        if len(filters_by_task) == 1:
            (t, fl), = filters_by_task.items()
            raise DataError(f"filter {filter!r} not found for task {t!r}; its filters: {', '.join(fl)}", source=source)
        logged = sorted({x for fl in filters_by_task.values() for x in fl})
        raise DataError(f"filter {filter!r} not found in any task; filters logged: {', '.join(logged)}",
                        source=source)
    for t, fl in filters_by_task.items():
        if filter is not None and filter in fl:
            chosen_filter[t] = filter
        elif filter is not None and len(fl) == 1:
            chosen_filter[t] = fl[0]
            notes.append(f"lm-eval: task {t!r} was logged with filter {fl[0]!r} only; filter={filter} does not "
                         "apply to it")
        elif filter is not None:
            raise DataError(f"filter {filter!r} not found for task {t!r}; its filters: {', '.join(fl)}",
                            source=source)
        elif "none" in fl:
            chosen_filter[t] = "none"
            if len(fl) > 1:
                notes.append(f"lm-eval: task {t!r}: filter 'none' of {', '.join(fl)} (choose with filter=NAME)")
        elif len(fl) == 1:
            chosen_filter[t] = fl[0]
        else:
            raise DataError(f"task {t!r} was logged with several filters ({', '.join(fl)}); choose one with "
                            "filter=...", source=source)
    records = [r for t, r in zip(task_of, records) if str(r[2].get("filter", "none")) == chosen_filter[t]]

    chosen_metric: dict[str, str] = {}
    for k, line_no, rec in records:
        t = files[k].task
        if t in chosen_metric:
            continue
        listed = rec.get("metrics")
        if metric is not None:
            chosen_metric[t] = metric
        elif isinstance(listed, list) and listed:
            chosen_metric[t] = str(listed[0])
            if len(listed) > 1:
                notes.append(f"lm-eval: task {t!r}: metric {chosen_metric[t]!r}, the first of "
                             f"{', '.join(map(str, listed))} (choose with metric=NAME)")
        else:
            numeric = _lm_eval_numeric_keys(rec)
            if not numeric:
                raise DataError("found no per-sample metric in this line; pass metric=...",
                                source=str(files[k].path), row=line_no)
            chosen_metric[t] = numeric[0]
            if len(numeric) > 1:  # older logs list no metrics: the choice is ours, so say it
                notes.append(f"lm-eval: task {t!r}: metric {numeric[0]!r} of {', '.join(numeric)} "
                             "(choose with metric=NAME)")

    # Repeated runs of the same model and task are replicates, in date order.
    runs: dict[tuple[str, str], list[int]] = {}
    for k, f in enumerate(files):
        runs.setdefault((f.model, f.task), []).append(k)
    replicate_of = {}
    for ks in runs.values():
        for r, k in enumerate(sorted(ks, key=lambda k: (files[k].date, files[k].path.name))):
            replicate_of[k] = r
    several_tasks = len({f.task for f in files}) > 1

    seen: dict[tuple[int, str], int] = {}
    rows = []
    where = []
    for k, line_no, rec in records:
        f = files[k]
        fsrc = str(f.path)
        doc = label(rec["doc_id"])
        key = (k, doc)
        metric_t = chosen_metric[f.task]
        if key in seen:
            raise DataError(f"doc_id {doc} appears twice for filter {chosen_filter[f.task]!r} (lines {seen[key]} "
                            f"and {line_no}); each document is logged once per filter", source=fsrc)
        seen[key] = line_no
        if metric_t not in rec:
            have = _lm_eval_numeric_keys(rec)
            raise DataError(f"line has no metric {metric_t!r} (numeric metrics here: {', '.join(have) or 'none'})",
                            source=fsrc, row=line_no)
        value = _lm_eval_value(rec[metric_t])
        if value is None:
            have = _lm_eval_numeric_keys(rec)
            raise DataError(f"metric {metric_t!r} is {describe(rec[metric_t])}, not one number per document; choose "
                            f"another metric (numeric ones here: {', '.join(have) or 'none'})",
                            source=fsrc, row=line_no)
        rows.append((f.model, f"{f.task}/{doc}" if several_tasks else doc, replicate_of[k], value))
        where.append(((fsrc, line_no), metric_t))
    frame = pd.DataFrame(rows, columns=["policy", "env", "replicate", "score"])
    frame["order"] = np.arange(len(frame), dtype="int64")
    table = validate_located(frame, where, score_range=score_range, source=source)
    table.attrs.update({"format": "lm-eval", "file_type": "jsonl", "metric": dict(chosen_metric),
                        "filter": dict(chosen_filter),
                        "tasks": sorted({f.task for f in files})})
    if notes:
        table.attrs["notes"] = notes
    return table


def _samples_records(p: Path) -> list[tuple[int, dict[str, Any]]]:
    """(line or record number, sample) of a samples file: JSON lines, or the pretty-printed JSON array that
    lm-eval 0.4.0-0.4.2 wrote under a .jsonl name (numbered by record)."""
    if _SAMPLES_RE.match(p.name):  # samples_<task>_<date>.jsonl (0.4.3 on) is always JSON lines
        return jsonl_records(p)
    with open(p, encoding="utf-8", errors="replace") as fh:
        head = fh.read(64).lstrip()
    if not head.startswith("["):
        return jsonl_records(p)
    try:
        arr = json.loads(p.read_text(encoding="utf-8"))
    except (ValueError, RecursionError) as exc:
        raise DataError(f"not valid JSON ({exc}); expected lm-eval's array of samples (truncated file?)",
                        source=str(p)) from None
    if not isinstance(arr, list) or not all(isinstance(r, dict) for r in arr):
        raise DataError("expected an array of sample objects", source=str(p))
    return list(enumerate(arr, start=1))


def _lm_eval_value(v: Any) -> float | None:
    """One document's metric value as a number, or None if it is not one."""
    if isinstance(v, (bool, int, float)):
        return float(v)
    # lm-eval writes values json cannot encode (numpy booleans and floats) with str(): "True", "0.5"
    if isinstance(v, str):
        t = v.strip()
        if t in ("True", "False"):
            return float(t == "True")
        try:
            return float(t)
        except ValueError:
            return None
    return None


def _lm_eval_numeric_keys(rec: dict[str, Any]) -> list[str]:
    return [k for k, v in rec.items() if k not in _LM_EVAL_KEYS and _lm_eval_value(v) is not None]
