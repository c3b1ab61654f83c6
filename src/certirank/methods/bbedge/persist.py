"""Saving and resuming a BB-EDGE engine exactly: raw float64 bytes, sealed by a checksum over configuration
and every recorded replicate, written atomically."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._io import atomic_write_text, read_saved_text
from ..._params import validated
from ...errors import StateError
from .core import BlockDesign, default_grid
from .family import _Family, _dec, _enc

if TYPE_CHECKING:  # pragma: no cover
    from .engine import Leaderboard

__all__ = ["_Persistence", "_STATE_VERSION"]

_STATE_VERSION = 1


class _Persistence:
    """Mixin of :class:`~certirank.methods.bbedge.engine.Leaderboard` (``to_json`` / ``from_json`` /
    ``save`` / ``load``)."""

    def _weights_state(self) -> Any:
        w = self._weights_arg
        if w is None:
            return None
        if isinstance(w, Mapping):
            return {str(k): float(v) for k, v in w.items()}
        return _enc(np.asarray(w, dtype=float))

    def to_state(self) -> dict[str, Any]:
        """The complete engine state as JSON-able data (see :meth:`to_json`)."""
        return {
            "version": _STATE_VERSION, "models": list(self.models), "alpha": self.alpha, "tau": self.tau,
            "method": self.method, "stake": self.stake, "output": self.output, "keep_history": self.keep_history,
            "resolution": self.resolution,
            "labels": (self._labels if isinstance(self._labels, (dict, type(None))) else list(self._labels)),
            "weights": self._weights_state(),
            "items": self.items, "top_k": self.top_k, "pilot": self.pilot, "epochs": self.epochs,
            "additions": self.additions, "blocks_source": self.blocks_source, "blocks_column": self.blocks_column,
            "epoch": self.epoch, "n_additions": self.n_additions, "history": self._history,
            "design": None if self._design is None else {k: (_enc(v) if isinstance(v, np.ndarray) else v)
                                                         for k, v in self._design.to_state().items()},
            "R": self.R, "replicate_ids": list(self.replicate_ids), "theta_sum": _enc(self._theta_sum),
            "hist_yb": [_enc(x) for x in self._hist_yb], "hist_theta": [_enc(x) for x in self._hist_theta],
            "families": [f.to_state() for f in self._families],
            "pilot_set": self._pilot_set, "topk_set": self._topk_set, "topk_at": self._topk_at,
            "topk_now": self._topk_now, "topk_conflict": self._topk_conflict,
        }

    def to_json(self) -> str:
        """Serialise the complete engine state (exact: arrays are stored as raw float64 bytes)."""
        import json

        from ..._integrity import EDITED_FIELD, seal
        state = self.to_state()
        if getattr(self, "_edited", None):
            state[EDITED_FIELD] = self._edited
        # one checksum over configuration and recorded replicates: from_json refuses an edited state
        return json.dumps(seal(state))

    @classmethod
    def from_json(cls, text: str | bytes, *, trust_edited: bool = False) -> "Leaderboard":
        """Rebuild an engine from :meth:`to_json`; it resumes exactly where the original stopped.

        The state's checksum (``state_sha256``, over configuration and every recorded replicate) must match;
        an edited or unsealed state raises :class:`~certirank.errors.EditedStateError` unless
        ``trust_edited=True``, and then every result carries a ``trust_edited`` warning.
        """
        import json

        from ..._integrity import verify
        try:
            s = json.loads(text)
        except (TypeError, ValueError) as exc:  # includes UnicodeDecodeError of bytes
            raise StateError(f"not a saved Leaderboard state (invalid JSON: {exc})") from None
        if not isinstance(s, dict) or s.get("version") != _STATE_VERSION or "families" not in s:
            raise StateError("not a saved Leaderboard state (missing version/families)")
        edited = verify(s, what="saved Leaderboard state", trust_edited=trust_edited)
        try:
            board = cls._from_state(s)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise StateError(f"corrupt saved Leaderboard state ({type(exc).__name__}: {exc})") from None
        board._edited = edited
        return board

    @classmethod
    def _from_state(cls, s: dict[str, Any]) -> "Leaderboard":
        w = s["weights"]
        weights = None if w is None else (w if isinstance(w, dict) and "b64" not in w else _dec(w))
        labels = s["labels"]
        self = cls.__new__(cls)
        self.alpha, self.tau, self.method, self.output = s["alpha"], s["tau"], s["method"], s["output"]
        # states saved before the stake option used the grid (B10 for bb-edge-pi)
        self.stake = s.get("stake", "b10" if self.method == "bb-edge-pi" else "grid")
        self.keep_history = s["keep_history"]
        self.models = list(s["models"])
        self.resolution, self._labels = s["resolution"], labels
        self.top_k, self.pilot, self.epochs, self.additions = s["top_k"], s["pilot"], s["epochs"], s["additions"]
        self.blocks_source, self.blocks_column = s["blocks_source"], s["blocks_column"]
        self._weights_arg = weights
        self.items = s["items"]
        self.grid = default_grid()
        self.epoch = int(s["epoch"])
        self._history = s["history"]
        self._reset_epoch_state()
        self.n_additions = int(s["n_additions"])
        ds = s["design"]
        self._design = None if ds is None else BlockDesign.from_state(
            {k: (_dec(v) if isinstance(v, dict) and "b64" in v else v) for k, v in ds.items()})
        self.R = int(s["R"])
        self.replicate_ids = list(s["replicate_ids"])
        self._theta_sum = _dec(s["theta_sum"])
        self._hist_yb = [_dec(x) for x in s["hist_yb"]]
        self._hist_theta = [_dec(x) for x in s["hist_theta"]]
        self._pilot_set, self._topk_set, self._topk_at = s["pilot_set"], s["topk_set"], s["topk_at"]
        self._topk_now, self._topk_conflict = s["topk_now"], s["topk_conflict"]
        if self._design is not None:
            self._ensure_families()
            self._families = [_Family.from_state(f) for f in s["families"]]
        self._check_loaded()
        return self

    def _check_loaded(self) -> None:
        """Shapes and indices of a loaded state agree with its model list (reachable only with trust_edited)."""
        L = len(self.models)
        if L < 2 or len(set(map(str, self.models))) != L:
            raise ValueError(f"models must be at least 2 distinct names, got {self.models!r}")
        if self._theta_sum.shape != (L,) or any(t.shape != (L,) for t in self._hist_theta):
            raise ValueError(f"the recorded means do not have one value per model ({L} models)")
        if len(self._hist_yb) != len(self._hist_theta):
            raise ValueError("recorded replicates and their means differ in number")
        for fam in self._families:
            if fam.a.size and (max(int(fam.a.max()), int(fam.b.max())) >= L or min(int(fam.a.min()),
                                                                                   int(fam.b.min())) < 0):
                raise ValueError(f"family {fam.label!r} refers to a model outside the {L} models")

    @validated("Leaderboard.save")
    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write :meth:`to_json` to ``path`` atomically (temporary file in the same folder, then rename)."""
        path = Path(path)
        atomic_write_text(path, self.to_json())
        return path

    @classmethod
    @validated("Leaderboard.load")
    def load(cls, path: str | os.PathLike[str], *, trust_edited: bool = False) -> "Leaderboard":
        """Read a state written by :meth:`save` (its checksum is required; see :meth:`from_json`)."""
        from ...errors import EditedStateError
        text = read_saved_text(path, "saved leaderboard", StateError)
        try:
            return cls.from_json(text, trust_edited=trust_edited)
        except EditedStateError as exc:
            raise EditedStateError(f"{path}: {exc}") from None
