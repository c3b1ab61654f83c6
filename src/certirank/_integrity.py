"""Tamper-evident saved state: one checksum over a saved file's configuration *and* records.

A certified answer is only as good as the configuration and the data it was computed from. Saved campaigns
and leaderboards are plain JSON so people can read them; the price is that they can be edited (an alpha
changed from 0.05 to 0.6, a bad result removed). Every save therefore carries ``state_sha256``, a SHA-256 of
the canonical JSON of everything else in the file, and every load recomputes it. A missing or wrong checksum
is refused unless the caller passes ``trust_edited=True``; the loaded object then says so in every result it
produces (and keeps saying so after it is saved again, so an edit cannot be laundered by a save-load cycle).

This detects edits; it does not authenticate (anyone can recompute a SHA-256). It is there so that nobody
certifies from an edited file *by accident*, and so that a deliberate edit is visible in every result.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from .errors import EditedStateError, StateError

__all__ = ["STATE_FIELD", "state_digest", "seal", "verify", "edited_note"]

STATE_FIELD = "state_sha256"
#: the field a trusted edit leaves in the saved state (its value says what was wrong with the checksum)
EDITED_FIELD = "trust_edited"


def state_digest(data: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical JSON (sorted keys, no spaces) of `data` without its checksum field."""
    body = {k: v for k, v in data.items() if k != STATE_FIELD}
    try:
        text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False, ensure_ascii=True)
    except (TypeError, ValueError) as exc:
        raise StateError(f"saved state cannot be checksummed: {exc}") from None
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def seal(data: dict[str, Any]) -> dict[str, Any]:
    """Set ``data[STATE_FIELD]`` to the checksum of everything else (in place; returns `data`)."""
    data.pop(STATE_FIELD, None)
    data[STATE_FIELD] = state_digest(data)
    return data


def verify(data: Mapping[str, Any], *, what: str, trust_edited: bool = False) -> str | None:
    """Check the checksum of a loaded state.

    Returns None for an intact file that was never edited, else the note to state in every result (an edit
    trusted now, or one trusted before and recorded in the file). Raises :class:`StateError` (one line) when
    the checksum is missing or wrong and `trust_edited` is false.
    """
    stored = data.get(STATE_FIELD)
    earlier = data.get(EDITED_FIELD)
    if stored is None:
        problem = f"{what} has no checksum ({STATE_FIELD}); it may have been edited or written by an old version"
    elif not isinstance(stored, str) or stored != state_digest(data):
        problem = (f"{what} does not match its checksum ({STATE_FIELD}): the configuration or the recorded "
                   "results were edited after it was saved")
    else:
        return str(earlier) if earlier else None
    if not trust_edited:
        raise EditedStateError(f"{problem}; refusing to load it (pass trust_edited=True / --trust-edited to load it "
                         "anyway, and every result will say so)")
    return problem if not earlier else f"{earlier}; then {problem}"


def edited_note(note: str | None) -> str:
    """The sentence every result of a trusted-edited state carries."""
    return (f"WARNING: computed from an edited saved state loaded with trust_edited=True ({note}); the guarantee "
            "holds only if the edit did not change the configuration or the results") if note else ""
