"""inspect_ai logs: ``.eval`` archives and ``.json`` logs.

``.eval`` is a zip archive with ``header.json`` or ``_journal/start.json`` and one ``samples/<id>_epoch_<n>.json``
per sample and epoch (members deflate- or zstd-compressed); ``.json`` holds the whole log in one object with
``eval`` and ``samples``. The model is ``eval.model``, the item is the sample ``id`` (``<task>/<id>`` for several
tasks), epoch ``n`` becomes replicate ``n - 1`` and further logs of the same model and task continue the replicate
count. Score values ``C``/``I``/``P``/``N`` (correct, incorrect, partial, no answer) become 1/0/0.5/0; numbers and
booleans are kept. A run stopped early by an early-stopping manager simply lacks the stopped samples (they are
not errors); its ``results.early_stopping`` summary is kept in ``attrs["early_stopping"]`` (one entry per log).
"""

from __future__ import annotations

import io
import json
import re
import struct
import zipfile
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...errors import DataError
from ..files import json_value, read_json
from ._common import describe, label, name_set, sort_key, validate_located

_INSPECT_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
# inspect names sample members samples/<id>_epoch_<n>.json; an id holding '/' ("test/12") puts it in a sub-folder
_SAMPLE_MEMBER_RE = re.compile(r"^samples/.+_epoch_\d+\.json$")
_INSPECT_NAME_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T.*\.json$")
_ZIP_ZSTANDARD = 93  # ZIP compression method id of Zstandard (APPNOTE 4.4.5)


def is_inspect_json(p: Path) -> bool:
    """True if `p` is a JSON inspect_ai log (an object with an ``eval`` spec); cheap: reads the start only."""
    try:
        with open(p, "rb") as fh:
            head = fh.read(65536)
    except OSError:
        return False
    text = head.lstrip()
    return text.startswith(b"{") and re.search(rb'"eval"\s*:\s*\{', head) is not None


def detect(p: Path) -> bool:
    """A folder of inspect_ai logs, an ``.eval`` archive, or a ``.json`` log."""
    if p.is_dir():
        return bool(inspect_log_files(p))
    return p.name.lower().endswith(".eval") or (p.name.lower().endswith(".json") and is_inspect_json(p))


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
        wanted = name_set(task)
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
            if (label(sid), epoch) in seen:
                raise DataError(f"sample {sid!r} epoch {epoch} appears twice ({seen[(label(sid), epoch)]} and "
                                f"{member})", source=fsrc)
            seen[(label(sid), epoch)] = member
            scores = s.get("scores") or {}
            if not isinstance(scores, dict):
                raise DataError(f"sample {sid!r} epoch {epoch}: 'scores' is {describe(scores)}, expected an object",
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
            rows.append((model, f"{task_name}/{label(sid)}" if several_tasks else label(sid),
                         offset + epoch - 1, _inspect_value(value, sid, epoch, log_scorer, f"{fsrc} {member}")))
            where.append((f"{fsrc} {member} (sample {sid!r}, epoch {epoch})", None))
            max_epoch = max(max_epoch, epoch)
        next_replicate[(model, task_name)] = offset + max_epoch
        scorers_used[fsrc] = log_scorer if key is None else f"{log_scorer}/{key}"
    if not rows:
        raise DataError("the log(s) contain no scored samples", source=source)
    frame = pd.DataFrame(rows, columns=["policy", "env", "replicate", "score"])
    frame["order"] = np.arange(len(frame), dtype="int64")
    table = validate_located(frame, where, score_range=score_range, source=source)
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
        except (OSError, json.JSONDecodeError, UnicodeDecodeError, RecursionError):
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
        log = read_json(p)
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
    samples.sort(key=lambda x: (sort_key(x[1].get("id")), x[1].get("epoch", 1) if isinstance(x[1].get("epoch"), int)
                                else 0))
    return model, task, samples, source


def _eval_spec(spec: dict[str, Any], source: str) -> tuple[str, str]:
    model = spec.get("model")
    if not isinstance(model, str) or not model.strip():
        raise DataError("the eval spec names no model (eval.model)", source=source)
    task = spec.get("task")
    return model.strip(), str(task) if task else "task"


def _zip_json(zf: zipfile.ZipFile, p: Path, name: str) -> Any:
    return json_value(_zip_member(zf, p, name), source=f"{p} {name}", what="member is not valid JSON")


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
