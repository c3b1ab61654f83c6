"""Small helpers of the campaign store: time stamps, canonical JSON, hashes, argument checks."""

from __future__ import annotations

import getpass
import hashlib
import json
import math
import os
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

import numpy as np

from ..errors import ParameterError


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _canon(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _sha(data: str | bytes) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


_HASHED = ("id", "action", "policy", "trial", "score", "raw_score", "payload", "target", "by", "note", "ahead", "at")


def _row_hash(prev: str, row: Mapping[str, Any]) -> str:
    return _sha(prev + "\n" + _canon([row[k] for k in _HASHED]))


def _operator(by: str | None) -> str | None:
    if by is not None:
        by = str(by).strip()
        if not by:
            raise ParameterError("--by (the operator's name) must not be empty")
        return by
    env = os.environ.get("CERTIRANK_OPERATOR")
    if env:
        return env
    try:
        return getpass.getuser()
    except Exception:  # no user database (containers): record no name rather than fail
        return None


def _check_range(score_range: Sequence[float]) -> list[float]:
    try:
        lo, hi = (float(v) for v in score_range)
    except (TypeError, ValueError):
        raise ParameterError(f"score_range must be two numbers (lo, hi), got {score_range!r}") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ParameterError(f"score_range must satisfy lo < hi (finite), got ({lo:g}, {hi:g})")
    return [lo, hi]


def _check_trial(value: Any, what: str = "trial") -> int:
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            raise ParameterError(f"{what} must be a non-negative integer, got {value!r}") from None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ParameterError(f"{what} must be a non-negative integer, got {value!r}")
    return int(value)


def _check_note(note: Any) -> str | None:
    if note is None:
        return None
    text = str(note)
    if len(text) > 10_000:
        raise ParameterError(f"note is {len(text)} characters long; keep it under 10,000")
    return text


def _environment(draw: Mapping[str, Any], trial: int) -> str:
    # the Ranker's own rule (Ranker.environment), so the log and the export name the same environment
    rng = np.random.default_rng([int(draw["seed"]), int(trial)])
    return str(draw["choices"][int(rng.integers(len(draw["choices"])))])


def _config_diff(a: Mapping[str, Any], b: Mapping[str, Any], prefix: str = "") -> list[str]:
    out = []
    for k in sorted(set(a) | set(b)):
        x, y = a.get(k), b.get(k)
        if isinstance(x, Mapping) and isinstance(y, Mapping):
            out += _config_diff(x, y, f"{prefix}{k}.")
        elif x != y and k != "codes":  # fresh blind codes are drawn on every init: not a change of settings
            out.append(f"{prefix}{k}")
    return out
