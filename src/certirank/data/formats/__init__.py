"""Readers for evaluation data as people publish it (issue 16): one module per format, one registry.

Every reader turns its files into the raw long frame (``policy, env, score`` …) or a preference frame and
hands it to `validate_table` / `validate_preferences`, so the errors are the same as for every other path.
What a reader decided on the user's behalf (columns ignored, rows dropped, a draw rule) is written to
``table.attrs["notes"]`` (a list of one-line strings); the CLI prints them, nothing here prints.

========================= ==============================================================================
name                      what
========================= ==============================================================================
``outcome-lists``         CSV/TSV, one row per (group…, policy) with a cell listing every rollout outcome
``folder``                a folder of per-policy CSV/TSV files, policy = file stem
``helm``                  HELM run folder(s) with ``per_instance_stats.json``
``arena``                 Chatbot-Arena battles ``model_a, model_b, winner`` (JSON array or JSON lines)
``lerobot``               LeRobot ``eval_info.json`` (``per_task`` or ``per_episode`` layout)
``eee``                   Every-Eval-Ever instance-level JSON lines
``openai-evals``          OpenAI evals JSON-lines logs (``match`` events)
========================= ==============================================================================
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from ...errors import ParameterError

__all__ = ["NAMES", "FORMATS", "detect", "read"]


@dataclasses.dataclass(frozen=True)
class _Format:
    name: str
    module: str
    options: frozenset[str]
    summary: str

    def _mod(self) -> Any:
        return importlib.import_module(f".{self.module}", __name__)

    def detect(self, p: Path) -> bool:
        return bool(self._mod().detect(p))

    def read(self, p: Path, score_range: tuple[float, float] | None, options: dict[str, Any]) -> pd.DataFrame:
        return self._mod().read(p, score_range=score_range, **options)


FORMATS: dict[str, _Format] = {f.name: f for f in (
    _Format("outcome-lists", "lists", frozenset({"sep", "policy", "outcomes", "keys"}),
            "one row per (group, policy), a cell listing the rollout outcomes"),
    _Format("folder", "folder", frozenset({"sep", "trial", "score", "env"}),
            "a folder of per-policy CSV/TSV files (policy = file stem)"),
    _Format("helm", "helm", frozenset({"stat", "split", "perturbation"}),
            "HELM run folders with per_instance_stats.json"),
    _Format("arena", "arena", frozenset({"tie", "bothbad", "policies"}),
            "Chatbot-Arena battles model_a, model_b, winner"),
    _Format("lerobot", "lerobot", frozenset({"metric", "policy"}), "LeRobot eval_info.json"),
    _Format("eee", "jsonl_logs", frozenset({"score", "evaluation"}), "Every-Eval-Ever instance-level JSONL"),
    _Format("openai-evals", "jsonl_logs", frozenset({"field", "policy"}), "OpenAI evals JSONL logs"),
)}
NAMES = tuple(FORMATS)

# Detection order matters only where two could match; each detector is cheap (names, first bytes/record).
_DETECT_ORDER = ("helm", "lerobot", "eee", "openai-evals", "arena", "outcome-lists", "folder")


def detect(p: Path) -> str | None:
    """The format of `p` if one of these readers recognises it unambiguously, else None."""
    for name in _DETECT_ORDER:
        f = FORMATS[name]
        if name in ("eee", "openai-evals"):
            from . import jsonl_logs
            if jsonl_logs.detect_kind(p) == name:
                return name
            continue
        if f.detect(p):
            return name
    return None


def read(name: str, p: Path, *, score_range: tuple[float, float] | None, options: dict[str, Any]) -> pd.DataFrame:
    """Read `p` with the reader `name` (options checked first: an unknown one is a ParameterError)."""
    f = FORMATS[name]
    unknown = set(options) - f.options
    if unknown:
        raise ParameterError(f"unknown option(s) for {name} data: {', '.join(sorted(unknown))} "
                             f"(valid: {', '.join(sorted(f.options))})")
    if name in ("eee", "openai-evals"):
        from . import jsonl_logs
        reader: Callable[..., pd.DataFrame] = jsonl_logs.read_eee if name == "eee" else jsonl_logs.read_openai_evals
        table = reader(p, score_range=score_range, **options)
    else:
        table = f.read(p, score_range, options)
    # preference tables keep the layout name every consumer checks; the reader is recorded beside it
    table.attrs["format"] = "preferences" if "preference" in table.columns else name
    table.attrs["reader"] = name
    return table
