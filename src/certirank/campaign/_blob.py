"""Binary packing of engine snapshots: a JSON header followed by raw array bytes (exact, fast to read).

``pack({"...": ..., "arrays": {name: ndarray}})`` keeps every float64 bit; JSON alone would turn a
(trials x policies) table into text and back on every record.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import StateError

_MAGIC = b"CRKSNAP1"


def pack(snap: Mapping[str, Any]) -> bytes:
    arrays = snap.get("arrays", {})
    head = {k: v for k, v in snap.items() if k != "arrays"}
    spec, chunks = [], []
    for name, arr in arrays.items():
        a = np.ascontiguousarray(arr)
        spec.append([name, a.dtype.str, list(a.shape)])
        chunks.append(a.tobytes())
    head["_arrays"] = spec
    text = json.dumps(head, sort_keys=True, separators=(",", ":"), allow_nan=False).encode()
    return b"".join([_MAGIC, struct.pack("<Q", len(text)), text, *chunks])


def unpack(blob: bytes) -> dict[str, Any]:
    try:
        if blob[:8] != _MAGIC:
            raise ValueError("bad magic")
        (n,) = struct.unpack("<Q", blob[8:16])
        head = json.loads(blob[16:16 + n])
        pos = 16 + n
        arrays = {}
        for name, dtype, shape in head.pop("_arrays"):
            dt = np.dtype(dtype)
            size = dt.itemsize * int(np.prod(shape, dtype=np.int64))
            if pos + size > len(blob):
                raise ValueError("truncated")
            arrays[name] = np.frombuffer(blob, dtype=dt, count=size // dt.itemsize if dt.itemsize else 0,
                                         offset=pos).reshape(shape).copy()
            pos += size
        if pos != len(blob):
            raise ValueError("trailing bytes")
    except (ValueError, TypeError, KeyError, struct.error) as exc:
        raise StateError(f"corrupt engine checkpoint ({exc})") from None
    head["arrays"] = arrays
    return head
