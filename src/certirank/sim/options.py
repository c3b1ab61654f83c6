"""Scenario parameters and method options written as text, as a command line or a config file gives them.

``certirank simulate -p n_max=1000 -p means=0.2,0.4,0.6 --option ties=assume_none`` and a script reading the
same settings from a file parse them with the same function::

    >>> from certirank.sim import parse_options
    >>> parse_options(["n_max=1000", "means=0.2,0.4,0.6", "preference=scores", "strict=yes"])
    {'n_max': 1000, 'means': '0.2,0.4,0.6', 'preference': 'scores', 'strict': True}

A value is read as a boolean (true/yes/on, false/no/off), None (none/null), an integer, a number, or kept as
text; a value with a comma stays text, for the scenario to read as a list (``means``). Unknown names are the
scenario's or method's to refuse (:func:`certirank.simulate` names the valid ones).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..errors import ParameterError

__all__ = ["parse_value", "parse_options"]


def parse_value(text: str) -> Any:
    """One option value written as text, as a Python value: bool, None, int, float, else the text (stripped)."""
    t = str(text).strip()
    low = t.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if low in ("none", "null"):
        return None
    for cast in (int, float):
        try:
            return cast(t)
        except ValueError:
            pass
    return t


def parse_options(items: Iterable[str] | str, *, what: str = "option") -> dict[str, Any]:
    """``KEY=VALUE`` texts (a list, or one text of them separated by ``;``) as a dict of Python values.

    A value with a comma stays text (a list the scenario reads, e.g. ``means=0.2,0.4,0.6``); other values go
    through :func:`parse_value`. `what` names the items in the one-line error (``--param``, ``--option``).
    A key given twice keeps its last value, as repeated command-line options do.
    """
    if isinstance(items, str):
        items = [part for part in items.split(";") if part.strip()]
    out: dict[str, Any] = {}
    for item in items:
        if not isinstance(item, str):
            raise ParameterError(f"{what} must be KEY=VALUE text, got {type(item).__name__} {item!r}")
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ParameterError(f"{what} must be KEY=VALUE, got {item!r}")
        value = value.strip()
        out[key.strip()] = value if "," in value else parse_value(value)
    return out
