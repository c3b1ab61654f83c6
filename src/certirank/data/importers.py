"""Importers for the per-sample logs of two evaluation frameworks.

* **lm-evaluation-harness** ``--log_samples``: ``<output_path>/<model>/samples_<task>_<date>.jsonl``, one JSON
  object per (document, filter) with ``doc_id``, ``filter``, ``metrics`` (the metric names) and one key per
  metric holding that document's value. The model is the folder name (lm-eval's sanitised model name),
  the item is ``doc_id`` (``<task>/<doc_id>`` when several tasks are read), and several files for the same
  model and task (repeated runs, told apart by their date stamp) become replicates 0, 1, … in date order.
* **inspect_ai** logs: ``.eval`` (a zip archive with ``header.json`` or ``_journal/start.json`` and one
  ``samples/<id>_epoch_<n>.json`` per sample and epoch; members may be deflate- or zstd-compressed) and
  ``.json`` (the whole log in one object with ``eval`` and ``samples``). The model is ``eval.model``, the
  item is the sample ``id`` (``<task>/<id>`` for several tasks), epoch ``n`` becomes replicate ``n - 1`` and
  further logs of the same model and task continue the replicate count. Score values ``C``/``I``/``P``/``N``
  (correct, incorrect, partial, no answer) become 1/0/0.5/0; numbers and booleans are kept as numbers.
  A run stopped early by an early-stopping manager simply lacks the stopped samples (they are not errors);
  its ``results.early_stopping`` summary is kept in ``attrs["early_stopping"]`` (one entry per log).

Both build a raw long frame and call `validate_table`; its errors are re-located to the file and line (or
sample) they came from.
"""

from __future__ import annotations

import io
import json
import re
import struct
import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import DataError
from .table import validate_table

__all__ = ["load_lm_eval", "load_inspect", "lm_eval_files", "inspect_log_files", "is_lm_eval_samples_file",
           "is_inspect_json", "inspect_early_stopping"]

_SAMPLES_RE = re.compile(r"^samples_(?P<task>.+?)(?:_(?P<date>\d{4}-\d{2}-\d{2}T[0-9][0-9.\-:]*))?\.jsonl$")
# Keys of an lm-eval sample line that are bookkeeping, not metric values.
_LM_EVAL_KEYS = frozenset({"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics",
                           "doc_hash", "prompt_hash", "target_hash", "task_name", "task", "raw_resps"})
_INSPECT_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
# inspect names sample members samples/<id>_epoch_<n>.json; an id holding '/' ("test/12") puts it in a sub-folder
_SAMPLE_MEMBER_RE = re.compile(r"^samples/.+_epoch_\d+\.json$")
_INSPECT_NAME_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T.*\.json$")
_ZIP_ZSTANDARD = 93  # ZIP compression method id of Zstandard (APPNOTE 4.4.5)


# ---------------------------------------------------------------------------------------------------
# lm-evaluation-harness

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


def _legacy_tasks(folder: Path) -> list[str]:
    """Task names of an lm-eval 0.4.0-0.4.2 summary in `folder` (``results.json`` or another ``*.json`` given as
    ``--output_path``, with ``results`` and ``configs``), longest first; [] if there is none."""
    tasks: set[str] = set()
    for f in sorted(folder.glob("*.json")):
        if f.stat().st_size > 50_000_000:  # a summary is small; do not parse a large data file to find out
            continue
        try:
            obj = json.loads(f.read_text(encoding="utf-8"))
        except (OSError, ValueError):
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
        wanted = _names(task)
        tasks_found = sorted({f.task for f in files})
        files = [f for f in files if f.task in wanted]
        if not wanted <= set(tasks_found):
            raise DataError(f"no samples for task(s) {', '.join(sorted(wanted - set(tasks_found)))}; tasks found: "
                            f"{', '.join(tasks_found)}", source=source)

    from .readers import jsonl_records  # readers imports this module lazily too; keep the cycle at call time

    records = []  # (file index, line number, record)
    for k, f in enumerate(files):
        for line_no, rec in _samples_records(f.path, jsonl_records):
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
        doc = _label(rec["doc_id"])
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
            raise DataError(f"metric {metric_t!r} is {_describe(rec[metric_t])}, not one number per document; choose "
                            f"another metric (numeric ones here: {', '.join(have) or 'none'})",
                            source=fsrc, row=line_no)
        rows.append((f.model, f"{f.task}/{doc}" if several_tasks else doc, replicate_of[k], value))
        where.append((fsrc, line_no))
    frame = pd.DataFrame(rows, columns=["policy", "env", "replicate", "score"])
    frame["order"] = np.arange(len(frame), dtype="int64")
    metrics_used = sorted(set(chosen_metric.values()))
    table = _validate_located(frame, where, score_range=score_range, source=source,
                              column=metrics_used[0] if len(metrics_used) == 1 else None)
    table.attrs.update({"format": "lm-eval", "file_type": "jsonl", "metric": dict(chosen_metric),
                        "filter": dict(chosen_filter),
                        "tasks": sorted({f.task for f in files})})
    if notes:
        table.attrs["notes"] = notes
    return table


def _samples_records(p: Path, jsonl_records: Any) -> list[tuple[int, dict[str, Any]]]:
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
    except ValueError as exc:
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


# ---------------------------------------------------------------------------------------------------
# inspect_ai

def is_inspect_json(p: Path) -> bool:
    """True if `p` is a JSON inspect_ai log (an object with an ``eval`` spec); cheap: reads the start only."""
    try:
        with open(p, "rb") as fh:
            head = fh.read(65536)
    except OSError:
        return False
    text = head.lstrip()
    return text.startswith(b"{") and re.search(rb'"eval"\s*:\s*\{', head) is not None


def inspect_log_files(p: Path) -> list[Path]:
    """inspect_ai logs in a folder (``*.eval``, and ``*.json`` files that are logs; if none, those in its
    sub-folders), or `p` itself."""
    if p.is_file():
        return [p]
    if not p.is_dir():
        return []
    def is_log(f: Path) -> bool:
        return f.is_file() and (f.suffix == ".eval" or (f.suffix == ".json" and is_inspect_json(f)))

    found = [f for f in sorted(p.iterdir()) if is_log(f)]
    if found:
        return found
    # inspect lists log folders recursively (list_eval_logs), so logs kept as logs/<model>/*.eval are one set; below
    # the top only .json files named like inspect's logs (<timestamp>_<task>_<id>.json) are opened, so that a
    # large tree of other JSON (a HELM suite) is not read just to tell its format
    return [f for f in sorted(p.rglob("*")) if (f.suffix == ".eval" or _INSPECT_NAME_RE.match(f.name)) and is_log(f)]


def load_inspect(path: str | Path, *, scorer: str | None = None, task: str | Sequence[str] | None = None,
                 score_range: tuple[float, float] | None = None) -> pd.DataFrame:
    """Read inspect_ai log(s) into the validated evaluation table.

    Parameters
    ----------
    path:
        A ``.eval`` or ``.json`` log, or a folder of them.
    scorer:
        Name of the scorer whose value is the score. Default: in each log, the scorer of its first sample.
    task:
        Restrict to these task name(s) (a list, or one text with commas: ``"gsm8k,arc_easy"``).
    score_range:
        Rescale scores from ``(lo, hi)`` to [0, 1].

    Samples that ended in an error and carry no score are left out (their number is in
    ``attrs["skipped_errors"]``); a sample without a score and without an error is a DataError. Samples an
    early-stopping manager stopped are absent from the log and so from the table; each stopped run's
    summary is in ``attrs["early_stopping"]`` (see `inspect_early_stopping`).
    """
    p = Path(path)
    source = str(p)
    if not p.exists():
        raise DataError("no such file or folder", source=source)
    logs = inspect_log_files(p)
    if not logs:
        raise DataError("no inspect_ai logs (*.eval, *.json) in this folder", source=source)
    parsed = [_read_inspect_log(f) for f in logs]
    if task is not None:
        wanted = _names(task)
        found = sorted({t for _, t, _, _ in parsed})
        parsed = [x for x in parsed if x[1] in wanted]
        if not wanted <= set(found):
            raise DataError(f"no logs for task(s) {', '.join(sorted(wanted - set(found)))}; tasks found: "
                            f"{', '.join(found)}", source=source)
    several_tasks = len({t for _, t, _, _ in parsed}) > 1

    rows = []
    where = []
    skipped = 0
    next_replicate: dict[tuple[str, str], int] = {}
    scorers_used: dict[str, str | None] = {}
    chosen_among: dict[str, list[str]] = {}  # default scorer -> the scorers it was picked from
    for model, task_name, samples, fsrc in parsed:
        offset = next_replicate.get((model, task_name), 0)
        max_epoch = 0
        # Different tasks use different scorers, so the default is the first scorer of each log.
        log_scorer, key = scorer, None
        seen: dict[tuple[str, int], str] = {}
        for member, s in samples:
            sid = s.get("id")
            if sid is None:
                raise DataError("sample has no 'id'", source=f"{fsrc} {member}")
            epoch = s.get("epoch", 1)
            if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 1:
                raise DataError(f"sample {sid!r} has epoch {epoch!r}; expected an integer >= 1",
                                source=f"{fsrc} {member}")
            if (_label(sid), epoch) in seen:
                raise DataError(f"sample {sid!r} epoch {epoch} appears twice ({seen[(_label(sid), epoch)]} and "
                                f"{member})", source=fsrc)
            seen[(_label(sid), epoch)] = member
            scores = s.get("scores") or {}
            if not isinstance(scores, dict):
                raise DataError(f"sample {sid!r} epoch {epoch}: 'scores' is {_describe(scores)}, expected an object",
                                source=f"{fsrc} {member}")
            if log_scorer is None and scores:
                log_scorer = next(iter(scores))
                if len(scores) > 1:
                    chosen_among.setdefault(log_scorer, list(scores))
            if scorer is not None and key is None and scorer not in scores and "/" in scorer:
                # a scorer returning several values (a dict) is chosen as scorer=NAME/KEY
                name, _, k = scorer.rpartition("/")
                if name in scores:
                    log_scorer, key = name, k
            if log_scorer is None or log_scorer not in scores:
                if s.get("error"):
                    skipped += 1
                    continue
                have = ", ".join(scores) or "none"
                what = ("has no scores" if not scores
                        else f"has no score from scorer {log_scorer!r} (scorers: {have})")
                raise DataError(f"sample {sid!r} epoch {epoch} {what}", source=f"{fsrc} {member}")
            score = scores[log_scorer]
            value = score.get("value") if isinstance(score, dict) else score
            if isinstance(value, dict):
                value = _inspect_dict_value(value, key, sid, epoch, log_scorer, f"{fsrc} {member}")
            rows.append((model, f"{task_name}/{_label(sid)}" if several_tasks else _label(sid),
                         offset + epoch - 1, _inspect_value(value, sid, epoch, log_scorer, f"{fsrc} {member}")))
            where.append(f"{fsrc} {member} (sample {sid!r}, epoch {epoch})")
            max_epoch = max(max_epoch, epoch)
        next_replicate[(model, task_name)] = offset + max_epoch
        scorers_used[fsrc] = log_scorer if key is None else f"{log_scorer}/{key}"
    if not rows:
        raise DataError("the log(s) contain no scored samples", source=source)
    frame = pd.DataFrame(rows, columns=["policy", "env", "replicate", "score"])
    frame["order"] = np.arange(len(frame), dtype="int64")
    table = _validate_located(frame, where, score_range=score_range, source=source, column=None)
    table.attrs.update({"format": "inspect", "file_type": "eval" if all(f.suffix == ".eval" for f in logs)
                        else "json", "scorer": scorers_used, "skipped_errors": skipped,
                        "tasks": sorted({t for _, t, _, _ in parsed})})
    notes = [f"inspect: scorer {name!r}, the first of {', '.join(among)} (choose with scorer=NAME)"
             for name, among in chosen_among.items()]
    if skipped:
        notes.append(f"inspect: {skipped} sample(s) that ended in an error (no score) left out")
    if notes:
        table.attrs["notes"] = notes
    stopped = [s for s in (inspect_early_stopping(f) for f in logs) if s is not None]
    if stopped:
        table.attrs["early_stopping"] = stopped
    return table


def inspect_early_stopping(p: Path) -> dict[str, Any] | None:
    """The ``results.early_stopping`` summary of one inspect_ai log, or None if the run was not stopped early.

    Returns ``{"source", "model", "task", "manager", "stopped" (number of stopped sample-epochs),
    "early_stops" (their ids and epochs), "metadata" (what the manager wrote)}``.
    """
    source = str(p)
    if p.suffix == ".json":
        try:
            with open(p, encoding="utf-8") as fh:
                log = json.load(fh)
        except (OSError, json.JSONDecodeError, UnicodeDecodeError):
            return None
    else:
        try:
            with zipfile.ZipFile(p) as zf:
                names = zf.namelist()
                name = "header.json" if "header.json" in names else None
                # a run still in progress has only the journal, and no results yet
                log = _zip_json(zf, p, name) if name else None
        except (zipfile.BadZipFile, OSError):
            return None
    if not isinstance(log, dict):
        return None
    results = log.get("results") or {}
    es = results.get("early_stopping") if isinstance(results, dict) else None
    if not isinstance(es, dict):
        return None
    spec = log.get("eval") if isinstance(log.get("eval"), dict) else {}
    stops = es.get("early_stops") if isinstance(es.get("early_stops"), list) else []
    return {"source": source, "model": spec.get("model"), "task": spec.get("task"), "manager": es.get("manager"),
            "stopped": len(stops), "early_stops": [{"id": s.get("id"), "epoch": s.get("epoch")} for s in stops
                                                   if isinstance(s, dict)],
            "metadata": es.get("metadata") if isinstance(es.get("metadata"), dict) else {}}


def _inspect_value(value: Any, sid: Any, epoch: int, scorer: str, where: str) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        v = value.strip()
        if v in _INSPECT_LETTERS:
            return _INSPECT_LETTERS[v]
        try:
            return float(v)
        except ValueError:
            pass
    raise DataError(f"sample {sid!r} epoch {epoch}: score value {value!r} of scorer {scorer!r} is not C, I, P, N "
                    "or a number", source=where)


def _inspect_dict_value(value: dict[str, Any], key: str | None, sid: Any, epoch: int, scorer: str,
                        where: str) -> Any:
    if key is None:
        raise DataError(f"sample {sid!r} epoch {epoch}: score value {value!r} of scorer {scorer!r} holds several "
                        f"values; choose one with scorer={scorer}/{next(iter(value), 'KEY')}", source=where)
    if key not in value:
        raise DataError(f"sample {sid!r} epoch {epoch}: scorer {scorer!r} gives no value {key!r} (its values: "
                        f"{', '.join(map(str, value))})", source=where)
    return value[key]


def _read_inspect_log(p: Path) -> tuple[str, str, list[tuple[str, dict[str, Any]]], str]:
    """(model, task, [(member name, sample dict)], source) of one log file."""
    source = str(p)
    if p.suffix == ".json":
        try:
            with open(p, encoding="utf-8") as fh:
                log = json.load(fh)
        except json.JSONDecodeError as exc:
            raise DataError(f"not valid JSON ({exc.msg})", source=source, row=exc.lineno) from None
        except UnicodeDecodeError:
            raise DataError("not a UTF-8 text file", source=source) from None
        if not isinstance(log, dict) or not isinstance(log.get("eval"), dict):
            raise DataError("not an inspect_ai log: expected a JSON object with an 'eval' section", source=source)
        samples = log.get("samples")
        if not samples:
            raise DataError("the log contains no samples (was it written with --no-log-samples?)", source=source)
        if not isinstance(samples, list) or not all(isinstance(s, dict) for s in samples):
            raise DataError("'samples' must be a list of objects", source=source)
        model, task = _eval_spec(log["eval"], source)
        return model, task, [(f"samples[{i}]", s) for i, s in enumerate(samples)], source

    try:
        zf = zipfile.ZipFile(p)
    except (zipfile.BadZipFile, OSError):
        raise DataError("not an inspect_ai .eval log (not a zip archive)", source=source) from None
    with zf:
        names = zf.namelist()
        header_name = "header.json" if "header.json" in names else "_journal/start.json"
        if header_name not in names:
            raise DataError("not an inspect_ai .eval log: it has neither header.json nor _journal/start.json",
                            source=source)
        header = _zip_json(zf, p, header_name)
        if not isinstance(header, dict) or not isinstance(header.get("eval"), dict):
            raise DataError(f"{header_name} has no 'eval' section", source=source)
        model, task = _eval_spec(header["eval"], f"{source} {header_name}")
        # one member per sample and epoch (other entries under samples/ are not samples)
        members = [n for n in names if _SAMPLE_MEMBER_RE.match(n)]
        if not members:
            raise DataError("the log contains no samples (was it written with --no-log-samples?)", source=source)
        samples = []
        for name in members:
            s = _zip_json(zf, p, name)
            if not isinstance(s, dict):
                raise DataError("sample is not a JSON object", source=f"{source} {name}")
            samples.append((name, s))
    samples.sort(key=lambda x: (_sort_key(x[1].get("id")), x[1].get("epoch", 1) if isinstance(x[1].get("epoch"), int)
                                else 0))
    return model, task, samples, source


def _eval_spec(spec: dict[str, Any], source: str) -> tuple[str, str]:
    model = spec.get("model")
    if not isinstance(model, str) or not model.strip():
        raise DataError("the eval spec names no model (eval.model)", source=source)
    task = spec.get("task")
    return model.strip(), str(task) if task else "task"


def _zip_json(zf: zipfile.ZipFile, p: Path, name: str) -> Any:
    data = _zip_member(zf, p, name)
    try:
        return json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataError(f"member is not valid JSON ({getattr(exc, 'msg', exc)})", source=f"{p} {name}") from None


def _zip_member(zf: zipfile.ZipFile, p: Path, name: str) -> bytes:
    """Bytes of one archive member; Zstandard members are decompressed here (zipfile lacks it before 3.14)."""
    info = zf.getinfo(name)
    if info.compress_type != _ZIP_ZSTANDARD:
        try:
            return zf.read(info)
        except NotImplementedError:
            raise DataError(f"member uses ZIP compression method {info.compress_type}, which is not supported",
                            source=f"{p} {name}") from None
        except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
            raise DataError(f"corrupt archive member ({exc})", source=f"{p} {name}") from None
    import zstandard

    with open(p, "rb") as fh:
        fh.seek(info.header_offset)
        local = fh.read(30)
        if len(local) != 30 or local[:4] != b"PK\x03\x04":
            raise DataError("corrupt archive: bad local file header", source=f"{p} {name}")
        name_len, extra_len = struct.unpack("<HH", local[26:30])
        fh.seek(info.header_offset + 30 + name_len + extra_len)
        raw = fh.read(info.compress_size)
    try:
        with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw)) as reader:
            data = reader.read()
    except zstandard.ZstdError as exc:
        raise DataError(f"corrupt zstd-compressed member ({exc})", source=f"{p} {name}") from None
    if zlib.crc32(data) != info.CRC or len(data) != info.file_size:
        raise DataError("corrupt archive member (checksum or size mismatch)", source=f"{p} {name}")
    return data


# ---------------------------------------------------------------------------------------------------
# shared

def _validate_located(frame: pd.DataFrame, where: Sequence[Any], *, score_range: tuple[float, float] | None,
                      source: str, column: str | None) -> pd.DataFrame:
    """`validate_table`, with a failing row's error re-located to the file/line or sample it came from."""
    from .readers import _bare_message

    try:
        return validate_table(frame, score_range=score_range, source=source, row_offset=0)
    except DataError as err:
        if err.row is None:
            raise
        loc = where[err.row]
        if isinstance(loc, tuple):
            raise DataError(_bare_message(err), source=loc[0], row=loc[1], column=column) from None
        raise DataError(_bare_message(err), source=loc, column=column) from None


def _names(v: str | Sequence[str]) -> set[str]:
    # --read-option task=a,b names several (task names hold no commas)
    return {t.strip() for t in v.split(",") if t.strip()} if isinstance(v, str) else set(v)


def _label(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v).strip()


def _sort_key(v: Any) -> tuple[int, Any]:
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return (0, v)
    s = str(v)
    return (0, int(s)) if s.isdigit() else (1, s)


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return f"an object (keys {', '.join(map(str, list(value)[:5]))})"
    return f"{value!r}"
