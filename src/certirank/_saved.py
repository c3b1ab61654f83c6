"""One save/load contract for the live engines (`Ranker`, `Leaderboard`).

A saved engine is one JSON object sealed by a checksum over its configuration and every record
(:mod:`certirank._integrity`). A class that is saved this way gives two methods:

- ``to_dict()``: the sealed state (a plain JSON-able dict);
- ``from_dict(d, *, trust_edited=False)``: the engine again, refusing an edited state unless trusted;

and :class:`Saved` adds the rest, the same way for every engine: ``to_json()``, ``from_json(text)``,
``save(path) -> Path`` (atomic) and ``load(path)``. JSON is parsed here once, with the same refusals for every
engine: bytes that are not UTF-8, text that is not JSON or nests deeper than any saved state does, a value that
is not an object.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from ._integrity import EDITED_FIELD, seal
from ._io import atomic_write_text, read_saved_text
from ._params import validated
from .errors import CertirankError, EditedStateError

__all__ = ["Saved", "parse", "sealed"]


def parse(text: str | bytes | Mapping[str, Any], what: str, error: type[CertirankError]) -> dict[str, Any]:
    """The JSON object of a saved state (or a mapping given as it is), or `error` in one line."""
    if isinstance(text, Mapping):
        return dict(text)
    try:
        if isinstance(text, (bytes, bytearray)):
            text = bytes(text).decode("utf-8")
        if not isinstance(text, str):
            raise TypeError(type(text).__name__)
        data = json.loads(text)
    except UnicodeDecodeError:
        raise error(f"not a {what}: the bytes are not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise error(f"not a {what} (invalid JSON: {exc})") from None
    except RecursionError:
        raise error(f"not a {what}: the JSON nests deeper than any saved state does") from None
    except TypeError as exc:
        raise error(f"not a {what}: expected JSON text or a mapping, got {exc}") from None
    if not isinstance(data, dict):
        raise error(f"not a {what}: expected a JSON object, got {type(data).__name__}")
    return data


def sealed(state: dict[str, Any], edited: str | None) -> dict[str, Any]:
    """`state` with the note of a trusted edit (kept across saves, so an edit is never laundered) and its
    checksum."""
    if edited:
        state[EDITED_FIELD] = edited
    return seal(state)


class Saved:
    """Base of the engines saved as sealed JSON. Subclasses give ``to_dict()`` / ``from_dict()`` and say what
    their file is (``_what``, for messages), which error a file that is not one raises (``_error``) and how
    the JSON is laid out (``_indent``: ``None`` = compact, e.g. for campaign checkpoints)."""

    _what: ClassVar[str] = "saved state"
    _error: ClassVar[type[CertirankError]] = CertirankError
    _indent: ClassVar[int | None] = None

    def to_dict(self) -> dict[str, Any]:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], *, trust_edited: bool = False) -> Any:  # pragma: no cover
        raise NotImplementedError

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text (floats exact: arrays are stored as raw float64 bytes where it matters)."""
        return json.dumps(self.to_dict(), indent=self._indent)

    @classmethod
    def from_json(cls, text: str | bytes | Mapping[str, Any], *, trust_edited: bool = False) -> Any:
        """Rebuild from :meth:`to_json` (or its parsed dict); the checksum must match unless ``trust_edited``,
        and then every result says it came from an edited state."""
        return cls.from_dict(parse(text, cls._what, cls._error), trust_edited=trust_edited)

    @validated("Saved.save")
    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write :meth:`to_json` to `path` atomically (a temporary file in the same folder, then a rename)."""
        path = Path(path)
        atomic_write_text(path, self.to_json())
        return path

    @classmethod
    @validated("Saved.load")
    def load(cls, path: str | os.PathLike[str], *, trust_edited: bool = False) -> Any:
        """Read a file written by :meth:`save` (its checksum is required; see :meth:`from_json`)."""
        text = read_saved_text(path, cls._what, cls._error)
        try:
            return cls.from_json(text, trust_edited=trust_edited)
        except EditedStateError as exc:
            raise EditedStateError(f"{path}: {exc}") from None
