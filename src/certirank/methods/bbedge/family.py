"""One e-Holm family of BB-EDGE directions and the exact array codec its saved state uses.

A family (the full board, a model-addition stage or the pilot Top-k family) owns its level and its own fresh
e-processes, so the engine, the extensions and the persistence all handle the same record.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["_Family", "_new_family", "_enc", "_dec"]


# ------------------------------------------------------------------------------------------ array codec

def _enc(arr: np.ndarray) -> dict[str, Any]:
    a = np.ascontiguousarray(arr)
    return {"dtype": a.dtype.str, "shape": list(a.shape), "b64": base64.b64encode(a.tobytes()).decode("ascii")}


def _dec(obj: dict[str, Any]) -> np.ndarray:
    raw = base64.b64decode(obj["b64"].encode("ascii"))
    return np.frombuffer(raw, dtype=np.dtype(obj["dtype"])).reshape(obj["shape"]).copy()


# ------------------------------------------------------------------------------------------ families

@dataclass
class _Family:
    """One e-Holm family of directions with its own level and its own (fresh) e-processes."""

    kind: str                # "board" | "addition" | "pilot"
    label: str
    alpha: float
    a: np.ndarray            # global model index of the better side of each direction
    b: np.ndarray
    models: np.ndarray       # global indices of the models whose running block sums are kept
    C: np.ndarray            # (len(models), M) running sums of block means over this family's replicates
    r: int                   # replicates seen
    comp: np.ndarray         # (E, G) cumulative log components; (E, 1) for the plug-in variant
    s2: np.ndarray           # (E,) plug-in: cumulative weighted squared errors (zeros otherwise)
    log_e: np.ndarray        # (E,) current log e-values
    current: np.ndarray      # (E,) bool, certified at the latest replicate
    first: np.ndarray        # (E,) int, first replicate (family-local count) certified, 0 = never
    log_c: float
    start: int               # epoch replicate count before this family's first replicate

    def __post_init__(self) -> None:
        self._row = {int(g): i for i, g in enumerate(self.models)}
        self.a_row = np.array([self._row[int(v)] for v in self.a], dtype=np.int64)
        self.b_row = np.array([self._row[int(v)] for v in self.b], dtype=np.int64)

    @property
    def n_directions(self) -> int:
        return int(self.a.shape[0])

    def to_state(self) -> dict[str, Any]:
        """The complete engine state as JSON-able data (see :meth:`to_json`)."""
        return {"kind": self.kind, "label": self.label, "alpha": self.alpha, "a": _enc(self.a), "b": _enc(self.b),
                "models": _enc(self.models), "C": _enc(self.C), "r": self.r, "comp": _enc(self.comp),
                "s2": _enc(self.s2), "log_e": _enc(self.log_e), "current": _enc(self.current),
                "first": _enc(self.first), "log_c": self.log_c, "start": self.start}

    @classmethod
    def from_state(cls, s: dict[str, Any]) -> "_Family":
        return cls(s["kind"], s["label"], float(s["alpha"]), _dec(s["a"]), _dec(s["b"]), _dec(s["models"]),
                   _dec(s["C"]), int(s["r"]), _dec(s["comp"]), _dec(s["s2"]), _dec(s["log_e"]), _dec(s["current"]),
                   _dec(s["first"]), float(s["log_c"]), int(s["start"]))


def _new_family(kind: str, label: str, alpha: float, a: Sequence[int], b: Sequence[int], models: Sequence[int],
                n_blocks: int, n_comp: int, start: int) -> _Family:
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    E = a.shape[0]
    return _Family(kind, label, alpha, a, b, np.asarray(models, dtype=np.int64),
                   np.zeros((len(models), n_blocks)), 0, np.zeros((E, n_comp)), np.zeros(E), np.zeros(E),
                   np.zeros(E, dtype=bool), np.zeros(E, dtype=np.int64), float(np.log(1.0 / alpha)), start)
