"""JSON-lines evaluation logs: Every-Eval-Ever instance files and OpenAI evals logs.

* **Every-Eval-Ever** (``instance_level_eval`` schema): one object per line with ``model_id``,
  ``sample_id``, ``evaluation_name`` and ``evaluation: {score, is_correct}``. ``score=is_correct`` uses the
  boolean instead of the score; ``evaluation=NAME`` keeps one evaluation. Several evaluations in one
  file get labels ``<evaluation>/<sample>`` and an ``evaluation`` column (``--group-by evaluation``).
* **OpenAI evals** (``oaieval`` ``--record_path`` logs): a ``spec`` line (``completion_fns`` names the
  model), a ``final_report`` line, then events; every ``"type": "match"`` event is one observation
  ``data.correct`` (``field=`` picks another boolean/number field of ``data``) of item ``sample_id``;
  repeated matches of one sample are replicates. ``policy=`` overrides the model name.

A folder of such files reads them all (one model per file for OpenAI evals); a folder holding none reads those in
its sub-folders (the Every-Eval-Ever datastore's ``data/<benchmark>/<developer>/<model>/<uuid>.jsonl``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from ...errors import DataError
from ..files import jsonl_records
from ._common import finish, outcome

_SUFFIXES = (".jsonl", ".ndjson", ".log")


def _files(p: Path) -> list[Path]:
    if p.is_file():
        return [p]
    if not p.is_dir():
        return []
    direct = sorted(f for f in p.iterdir() if f.is_file() and f.suffix.lower() in _SUFFIXES)
    if direct:
        return direct
    # the Every-Eval-Ever datastore keeps one model per folder: data/<benchmark>/<developer>/<model>/<uuid>.jsonl
    return sorted(f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in _SUFFIXES)


def _first_record(f: Path) -> Any:
    try:
        with open(f, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    return json.loads(line)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return None
    return None


def _kind(rec: Any) -> str | None:
    if not isinstance(rec, dict):
        return None
    if "model_id" in rec and "sample_id" in rec and isinstance(rec.get("evaluation"), dict):
        return "eee"
    spec = rec.get("spec")
    if isinstance(spec, dict) and ("completion_fns" in spec or "eval_name" in spec):
        return "openai-evals"
    return None


def detect_kind(p: Path) -> str | None:
    fs = [f for f in _files(p) if f.suffix.lower() in _SUFFIXES]
    if not fs:
        return None
    kinds = {_kind(_first_record(f)) for f in fs[:20]}
    return kinds.pop() if len(kinds) == 1 else None


def detect_eee(p: Path) -> bool:
    return detect_kind(p) == "eee"


def detect_openai_evals(p: Path) -> bool:
    return detect_kind(p) == "openai-evals"


def read_eee(p: Path, *, score_range: tuple[float, float] | None = None, score: str = "score",
             evaluation: str | None = None) -> pd.DataFrame:
    source = str(p)
    if score not in ("score", "is_correct"):
        raise DataError(f"score={score!r}: expected 'score' or 'is_correct'", source=source)
    fs = _files(p)
    if not fs:
        raise DataError("no .jsonl files here (expected Every-Eval-Ever instance-level JSON lines)", source=source)
    recs = []
    for f in fs:
        for n, rec in jsonl_records(f):
            for key in ("model_id", "sample_id", "evaluation"):
                if key not in rec:
                    raise DataError(f"missing {key!r}; expected an Every-Eval-Ever instance record (model_id, "
                                    "sample_id, evaluation.score)", source=str(f), row=n)
            ev = rec["evaluation"]
            if not isinstance(ev, dict) or score not in ev:
                raise DataError(f"evaluation has no {score!r}", source=str(f), row=n, column="evaluation")
            name = str(rec.get("evaluation_name") or "")
            if evaluation is not None and name != evaluation:
                continue
            recs.append((f, n, rec, name))
    if not recs:
        names = sorted({str(r.get("evaluation_name")) for f in fs for _, r in jsonl_records(f)})
        raise DataError(f"no record of evaluation {evaluation!r}; evaluations in the data: {', '.join(names)}",
                        source=source)
    evals = {r[3] for r in recs}
    rows: dict[str, list[Any]] = {"policy": [], "env": [], "replicate": [], "score": [], "evaluation": []}
    where = []
    # a model may have several runs (one <uuid>.jsonl each): a sample's repeated records are replicates
    count: dict[tuple[str, str], int] = {}
    for f, n, rec, name in recs:
        v = rec["evaluation"][score]
        x = outcome(v) if v is not None else None
        rows["policy"].append(str(rec["model_id"]))
        sid = str(rec["sample_id"])
        env = sid if len(evals) == 1 else f"{name}/{sid}"
        rows["env"].append(env)
        rows["replicate"].append(count.get((rows["policy"][-1], env), 0))
        count[(rows["policy"][-1], env)] = rows["replicate"][-1] + 1
        rows["score"].append(v if x is None else x)
        rows["evaluation"].append(name)
        where.append((f"{f.name}, line {n}", f"evaluation.{score}"))
    notes = [f"eee: {len(fs)} file(s), evaluation.{score} per (model_id, sample_id)"
             + (f", {len(evals)} evaluations" if len(evals) > 1 else "")]
    return finish(rows, where, source=source, score_range=score_range, notes=notes)


def read_openai_evals(p: Path, *, score_range: tuple[float, float] | None = None, field: str = "correct",
                      policy: str | None = None) -> pd.DataFrame:
    source = str(p)
    fs = _files(p)
    if not fs:
        raise DataError("no .jsonl log files here (expected OpenAI evals --record_path logs)", source=source)
    if policy is not None and len(fs) > 1:
        raise DataError("policy= names the model of a single log; this folder holds several", source=source)
    rows: dict[str, list[Any]] = {"policy": [], "env": [], "replicate": [], "score": []}
    where = []
    # repeated runs of one eval by one model (several logs) continue the replicate count, as repeated matches do
    count: dict[tuple[str, str], int] = {}
    for f in fs:
        fsrc = str(f)
        recs = jsonl_records(f)
        spec = next((r["spec"] for _, r in recs if isinstance(r.get("spec"), dict)), None)
        if spec is None and policy is None:
            raise DataError("no 'spec' line naming the model (completion_fns); not an OpenAI evals log, or pass "
                            "--read-option policy=NAME", source=fsrc)
        fns = spec.get("completion_fns") if spec else None
        name = policy or ("+".join(map(str, fns)) if isinstance(fns, list) and fns else str(spec.get("run_id", f.stem)))
        n_match = 0
        for n, rec in recs:
            if rec.get("type") != "match":
                continue
            n_match += 1
            data = rec.get("data")
            if not isinstance(data, dict) or field not in data:
                raise DataError(f"match event has no data.{field}", source=fsrc, row=n)
            if "sample_id" not in rec:
                raise DataError("match event has no sample_id", source=fsrc, row=n)
            sid = str(rec["sample_id"])
            v = data[field]
            x = outcome(v) if v is not None else None
            rows["policy"].append(name)
            rows["env"].append(sid)
            rows["replicate"].append(count.get((name, sid), 0))
            count[(name, sid)] = count.get((name, sid), 0) + 1
            rows["score"].append(v if x is None else x)
            where.append((f"{f.name}, line {n}", f"data.{field}"))
        if not n_match:
            raise DataError("no 'match' events (expected lines with \"type\": \"match\" and data.correct)",
                            source=fsrc)
    notes = [f"openai-evals: {len(fs)} log(s); data.{field} of every match event, items by sample_id"]
    return finish(rows, where, source=source, score_range=score_range, notes=notes)
