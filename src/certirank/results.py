"""Plain-data conversion shared by every result object.

Results are frozen dataclasses; `to_dict()` turns them into JSON-able Python data (numpy scalars and
arrays become numbers and lists, NaN becomes None), and the CLI's `--json` prints exactly that.
"""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any, ClassVar

import numpy as np


def plain(obj: Any) -> Any:
    """Recursively convert `obj` into JSON-able Python data."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        if hasattr(obj, "to_dict") and callable(obj.to_dict):
            return obj.to_dict()
        return {f.name: plain(getattr(obj, f.name)) for f in dataclasses.fields(obj) if not f.name.startswith("_")}
    if isinstance(obj, dict):
        return {str(plain(k)) if not isinstance(k, str) else k: plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        items = sorted(obj, key=str) if isinstance(obj, (set, frozenset)) else obj
        return [plain(v) for v in items]
    if isinstance(obj, np.ndarray):
        return [plain(v) for v in obj.tolist()]
    if isinstance(obj, (np.bool_, bool)):
        return bool(obj)
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        v = float(obj)
        return None if math.isnan(v) else v
    if hasattr(obj, "to_dict") and callable(obj.to_dict) and not isinstance(obj, type):
        try:  # pandas objects
            return plain(obj.to_dict(orient="records")) if hasattr(obj, "columns") else plain(obj.to_dict())
        except TypeError:
            return plain(obj.to_dict())
    return obj


class ResultMixin:
    """Mix into a frozen dataclass to give it `to_dict()` and `to_json()`.

    A class that sets ``RESULT_KIND`` (the command that returns it: "rank", "leaderboard", ...) gets a leading
    ``"kind"`` key in its JSON, which is all ``certirank report`` reads to choose the page.
    """

    RESULT_KIND: ClassVar[str | None] = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.RESULT_KIND} if self.RESULT_KIND else {}
        out.update({f.name: plain(getattr(self, f.name)) for f in dataclasses.fields(self)  # type: ignore[arg-type]
                    if not f.name.startswith("_")})
        return out

    def to_json(self, **kwargs: Any) -> str:
        kwargs.setdefault("indent", 2)
        return json.dumps(self.to_dict(), **kwargs)
