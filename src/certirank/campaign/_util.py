"""Small helpers of the campaign store: time stamps, canonical JSON, hashes, argument checks."""

from __future__ import annotations

import getpass
import hashlib
import json
import os
import unicodedata
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

import numpy as np

from ..errors import DataError, ParameterError


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _canon(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _sha(data: str | bytes) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


#: longest operator name kept (a name, not a note: the CLI prints it back in one line)
MAX_OPERATOR = 100
#: longest note kept with an entry
MAX_NOTE = 10_000
#: largest trial, replicate or record number: SQLite stores 64-bit integers, JSON readers keep 2**53 exact
MAX_INDEX = 2**53 - 1


def _has_control(text: str) -> bool:
    return any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in text)


def _operator(by: Any) -> str | None:
    """The operator's name for the audit trail: given, else $CERTIRANK_OPERATOR, else the login name."""
    if by is None:
        env = os.environ.get("CERTIRANK_OPERATOR")
        if env:
            by, what = env, "$CERTIRANK_OPERATOR"
        else:
            try:
                return getpass.getuser()
            except Exception:  # no user database (containers): record no name rather than fail
                return None
    else:
        what = "--by (the operator's name)"
    if not isinstance(by, str):
        raise ParameterError(f"{what} must be text, got {type(by).__name__}")
    by = by.strip()
    if not by:
        raise ParameterError(f"{what} must not be empty")
    if len(by) > MAX_OPERATOR:
        raise ParameterError(f"{what} is {len(by)} characters long; keep it under {MAX_OPERATOR} (a note can hold "
                             "more)")
    if _has_control(by):
        raise ParameterError(f"{what} {by!r} contains a control character (newline, escape, ...); give a plain name")
    return by


def _check_range(score_range: Any) -> list[float]:
    # the reader's rule (one home): finite, lo < hi, and hi - lo neither overflows nor underflows
    from ..data.table import _check_range as check
    if isinstance(score_range, (str, bytes)):
        raise ParameterError(f"score_range must be two numbers (lo, hi), got {score_range!r}")
    try:
        lo, hi = check(score_range, None)
    except DataError as exc:
        raise ParameterError(str(exc)) from None
    return [lo, hi]


def _check_trial(value: Any, what: str = "trial") -> int:
    if isinstance(value, str):
        text = value.strip()
        # ASCII digits only: int() also reads full-width and other scripts' digits, which no operator means
        if not (text.isascii() and text.isdigit()):
            raise ParameterError(f"{what} must be a non-negative integer, got {value!r}")
        value = int(text)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ParameterError(f"{what} must be a non-negative integer, got {value!r}")
    if value > MAX_INDEX:
        raise ParameterError(f"{what} {value} is too large (at most {MAX_INDEX})")
    return int(value)


def _check_note(note: Any) -> str | None:
    if note is None:
        return None
    if not isinstance(note, str):
        raise ParameterError(f"note must be text, got {type(note).__name__}")
    if len(note) > MAX_NOTE:
        raise ParameterError(f"note is {len(note)} characters long; keep it under {MAX_NOTE:,}")
    return note


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
        # fresh blind codes and schedule seeds are drawn on every init without a seed: not a change of settings
        elif x != y and k != "codes" and f"{prefix}{k}" != "plan.seed":
            out.append(f"{prefix}{k}")
    return out


#: longest Idempotency-Key kept (a UUID is 36 characters)
MAX_KEY = 200


def _check_key(key: Any) -> str | None:
    """An idempotency key: 1 to 200 printable ASCII characters (what an HTTP header can carry), or None."""
    if key is None:
        return None
    if not isinstance(key, str) or not key.strip():
        raise ParameterError(f"the idempotency key must be non-empty text, got {key!r}")
    key = key.strip()
    if len(key) > MAX_KEY or not key.isascii() or not key.isprintable():
        raise ParameterError(f"the idempotency key must be at most {MAX_KEY} printable ASCII characters (a UUID, "
                             "say)")
    return key


def json_differences(a: bytes, b: bytes) -> list[str]:
    """The top-level keys on which two JSON checkpoints differ (an engine's ``differences``)."""
    sa, sb = json.loads(a), json.loads(b)
    return [k for k in sorted(set(sa) | set(sb)) if sa.get(k) != sb.get(k)]


def replay_mismatch(live: Any, held: Any, row_values: Any, what: str) -> str | None:
    """Why a checkpoint that is its list of records (``held``) is not the log's ``live`` rows, read by
    ``row_values``; None when they agree (an engine's ``mismatch``). `what`: what a row should hold."""
    if len(held) != len(live):
        return f"the log has {len(live)} live records, the checkpoint holds {len(held)}"
    for row, kept in zip(live, held):
        try:
            mine = row_values(row)
        except (ValueError, TypeError, KeyError):  # a DataError is a ValueError
            return f"entry {row['id']} does not hold {what}"
        if mine != kept:
            return f"entry {row['id']} (trial {row['trial']}) is not the record the checkpoint holds"
    return None


def ranked_names(names: Any, noun: str, plural: str, campaign: str) -> list[str]:
    """The names an engine ranks (at least two, each once), as text; `noun` / `plural` name them ("policy")."""
    out = [str(n) for n in names]
    if len(out) < 2:
        raise ParameterError(f"{campaign} ranks at least two {plural}, got {len(out)}")
    if len(set(out)) != len(out):
        dup = next(n for n in out if out.count(n) > 1)
        raise ParameterError(f"{noun} {dup!r} is listed twice")
    return out


def check_budget(n_max: Any, unit: str) -> int | None:
    """An engine's budget: None or a positive whole number of `unit` (trials, item draws)."""
    if n_max is not None and (isinstance(n_max, bool) or not isinstance(n_max, (int, np.integer)) or n_max < 1):
        raise ParameterError(f"n_max must be a positive number of {unit}, got {n_max!r}")
    return None if n_max is None else int(n_max)
