"""Every named reader of evaluation data as people publish it, in one registry: name, detect, read.

Each reader turns its files into the raw long frame (``policy, env, score`` …) or a preference frame and hands
it to `validate_table` / `validate_preferences`, so the errors are the same as for every other path; a bad row
is re-located to its file, line and column (`_common.validate_located`). What a reader decided on the user's
behalf (columns ignored, rows dropped, a draw rule) is written to ``table.attrs["notes"]`` (one-line strings);
the CLI prints them, nothing here prints. Plain table files (CSV/TSV, Parquet, JSON lines, JSON arrays in the
long, wide or preference layout) are read by `certirank.data.readers` when no reader here recognises them.

========================= ==============================================================================
name                      what
========================= ==============================================================================
``lm-eval``               lm-evaluation-harness ``--log_samples`` folders / ``samples_<task>_<date>.jsonl``
``inspect``               inspect_ai logs (``.eval``, ``.json``, or a folder of them)
``helm``                  HELM run folder(s) with ``per_instance_stats.json``
``lerobot``               LeRobot ``eval_info.json`` (``per_task`` or ``per_episode`` layout)
``eee``                   Every-Eval-Ever instance-level JSON lines
``openai-evals``          OpenAI evals JSON-lines logs (``match`` events)
``arena``                 Chatbot-Arena battles ``model_a, model_b, winner`` (JSON array or JSON lines)
``outcome-lists``         CSV/TSV, one row per (group…, policy) with a cell listing every rollout outcome
``folder``                a folder of per-policy CSV/TSV files, policy = file stem
========================= ==============================================================================

The table is also the detection order: each detector is cheap (names, first bytes or first record), and the
first that recognises the path reads it.
"""

from __future__ import annotations

import dataclasses
import importlib
from pathlib import Path
from typing import Any

import pandas as pd

from ...errors import ParameterError

__all__ = ["Reader", "READERS", "NAMES", "detect", "read"]


@dataclasses.dataclass(frozen=True)
class Reader:
    """One reader: its `name` (``format=``), the module and functions that `detect` and `read` a path, the
    reader `options` it takes (``--read-option KEY=VALUE``) and a one-line `summary`."""

    name: str
    module: str
    detect_function: str
    read_function: str
    options: frozenset[str]
    summary: str

    def _function(self, name: str) -> Any:
        # modules load on first use: `import certirank` stays light, and a detector never imports the others
        return getattr(importlib.import_module(f".{self.module}", __name__), name)

    def detect(self, p: Path) -> bool:
        return bool(self._function(self.detect_function)(p))

    def read(self, p: Path, *, score_range: tuple[float, float] | None, options: dict[str, Any]) -> pd.DataFrame:
        unknown = set(options) - self.options
        if unknown:
            raise ParameterError(f"unknown option(s) for {self.name} data: {', '.join(sorted(unknown))} "
                                 f"(valid: {', '.join(sorted(self.options)) or 'none'})")
        return self._function(self.read_function)(p, score_range=score_range, **options)


READERS: dict[str, Reader] = {r.name: r for r in (
    Reader("lm-eval", "lm_eval", "detect", "load_lm_eval", frozenset({"metric", "filter", "task"}),
           "lm-evaluation-harness --log_samples output"),
    Reader("inspect", "inspect_logs", "detect", "load_inspect", frozenset({"scorer", "task"}),
           "inspect_ai logs (.eval, .json)"),
    Reader("helm", "helm", "detect", "read", frozenset({"stat", "split", "perturbation"}),
           "HELM run folders with per_instance_stats.json"),
    Reader("lerobot", "lerobot", "detect", "read", frozenset({"metric", "policy"}), "LeRobot eval_info.json"),
    Reader("eee", "jsonl_logs", "detect_eee", "read_eee", frozenset({"score", "evaluation"}),
           "Every-Eval-Ever instance-level JSONL"),
    Reader("openai-evals", "jsonl_logs", "detect_openai_evals", "read_openai_evals", frozenset({"field", "policy"}),
           "OpenAI evals JSONL logs"),
    Reader("arena", "arena", "detect", "read", frozenset({"tie", "bothbad", "policies"}),
           "Chatbot-Arena battles model_a, model_b, winner"),
    Reader("outcome-lists", "lists", "detect", "read", frozenset({"sep", "policy", "outcomes", "keys"}),
           "one row per (group, policy), a cell listing the rollout outcomes"),
    Reader("folder", "folder", "detect", "read", frozenset({"sep", "trial", "score", "env"}),
           "a folder of per-policy CSV/TSV files (policy = file stem)"),
)}
NAMES = tuple(READERS)


def detect(p: Path) -> str | None:
    """The name of the first reader (in `READERS` order) that recognises `p`, else None."""
    return next((name for name, r in READERS.items() if r.detect(p)), None)


def read(name: str, p: Path, *, score_range: tuple[float, float] | None, options: dict[str, Any]) -> pd.DataFrame:
    """Read `p` with the reader `name` (options checked first: an unknown one is a ParameterError)."""
    table = READERS[name].read(p, score_range=score_range, options=options)
    # preference tables keep the layout name every consumer checks; the reader is recorded beside it
    table.attrs["format"] = "preferences" if "preference" in table.columns else name
    table.attrs["reader"] = name
    return table
