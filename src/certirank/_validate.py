"""Parameter checks shared by every layer, so that every entry point words its errors the same way."""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np

from .errors import CertirankWarning, ParameterError

#: alpha above this gets a warning (it still runs: a user may want it for a demonstration)
ALPHA_WARN = 0.5
#: no size argument (budget, runs, rounds, rows) is meaningful beyond this; larger values are typos
MAX_SIZE = 10**12
_WARNED_ALPHA: set[float] = set()


def check_alpha(alpha: float, name: str = "alpha") -> float:
    if isinstance(alpha, (str, bytes, bool, np.bool_)):
        raise ParameterError(f"{name} must be a number in (0, 1), got {alpha!r}")
    try:
        value = float(alpha)
    except (TypeError, ValueError):
        raise ParameterError(f"{name} must be a number in (0, 1), got {alpha!r}") from None
    if not (0.0 < value < 1.0) or math.isnan(value):
        raise ParameterError(f"{name} must be in (0, 1), got {alpha!r}")
    if name == "alpha" and value > ALPHA_WARN and value not in _WARNED_ALPHA:
        _WARNED_ALPHA.add(value)  # once per value: every layer re-checks alpha, the user needs one warning
        warnings.warn(f"alpha = {value:g} allows a wrong ordering with probability up to {value:.0%}; "
                      "certified results at this level are close to noise (usual levels: 0.05 or 0.1)",
                      CertirankWarning, stacklevel=3)
    return value


def check_choice(name: str, value: Any, choices: Iterable[str], *, normalize_underscores: bool = True) -> str:
    """Return the canonical spelling of `value` among `choices`, or raise listing the valid ones.

    Method names accept `_` for `-` (spec 00: `anyrank_inf` == `anyrank-inf`).
    """
    choices = list(choices)
    if isinstance(value, str):
        key = value.strip().lower()
        for c in choices:
            if key == c.lower() or (normalize_underscores and key.replace("_", "-") == c.lower().replace("_", "-")):
                return c
    raise ParameterError(f"unknown {name} {value!r}; valid choices: {', '.join(choices)}")


def check_nonnegative(name: str, value: float) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"{name} must be a non-negative number, got {value!r}") from None
    if not v >= 0 or math.isinf(v):
        raise ParameterError(f"{name} must be a non-negative finite number, got {value!r}")
    return v


def check_positive_int(name: str, value: Any, *, minimum: int = 1, maximum: int | None = None) -> int:
    """An integer in [minimum, maximum] (maximum defaults to MAX_SIZE: every size has a sane bound)."""
    if isinstance(value, (bool, np.bool_, bytes)):
        raise ParameterError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if not isinstance(value, (int, np.integer)):
        try:
            if float(value) != int(value):
                raise ValueError
            value = int(value)
        except (TypeError, ValueError, OverflowError):
            raise ParameterError(f"{name} must be an integer >= {minimum}, got {value!r}") from None
    if value < minimum:
        raise ParameterError(f"{name} must be an integer >= {minimum}, got {value!r}")
    top = MAX_SIZE if maximum is None else maximum
    if value > top:
        raise ParameterError(f"{name} = {int(value):,} is too large (at most {top:,})")
    return int(value)


def as_generator(seed: int | np.random.Generator | np.random.SeedSequence | None) -> np.random.Generator:
    """One way to turn a user's `seed` into a Generator (ints, SeedSequences and Generators accepted)."""
    if isinstance(seed, np.random.Generator):
        return seed
    try:
        return np.random.default_rng(seed)
    except (TypeError, ValueError):
        raise ParameterError(f"seed must be a non-negative integer, a SeedSequence or a Generator, got {seed!r}") from None
