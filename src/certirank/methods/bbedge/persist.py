"""The saved state of a BB-EDGE engine: every setting and every recorded replicate as plain JSON data (arrays as
raw float64 bytes, so a resumed board computes exactly what the original would), and the board rebuilt from it.

Plain functions of the board (no mixin): :class:`~certirank.methods.bbedge.engine.Leaderboard` seals the state
and goes through the one save/load contract of the live engines (:mod:`certirank._saved`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...evidence.forecast import FUTILITY
from .core import BlockDesign, default_grid
from .family import _Family, _dec, _enc

__all__ = ["STATE_VERSION", "board_state", "restore_board"]

STATE_VERSION = 1


def _weights_state(board: Any) -> Any:
    w = board._weights_arg
    if w is None:
        return None
    if isinstance(w, Mapping):
        return {str(k): float(v) for k, v in w.items()}
    return _enc(np.asarray(w, dtype=float))


def board_state(board: Any) -> dict[str, Any]:
    """The complete engine state of `board` as JSON-able data (unsealed)."""
    return {
        "version": STATE_VERSION, "models": list(board.models), "alpha": board.alpha, "tau": board.tau,
        "method": board.method, "stake": board.stake, "output": board.output, "keep_history": board.keep_history,
        "resolution": board.resolution,
        "labels": (board._labels if isinstance(board._labels, (dict, type(None))) else list(board._labels)),
        "weights": _weights_state(board),
        "items": board.items, "top_k": board.top_k, "pilot": board.pilot, "epochs": board.epochs,
        "additions": board.additions, "blocks_source": board.blocks_source, "blocks_column": board.blocks_column,
        "epoch": board.epoch, "n_additions": board.n_additions, "history": board._history,
        "design": None if board._design is None else {k: (_enc(v) if isinstance(v, np.ndarray) else v)
                                                     for k, v in board._design.to_state().items()},
        "R": board.R, "replicate_ids": list(board.replicate_ids), "theta_sum": _enc(board._theta_sum),
        "hist_yb": [_enc(x) for x in board._hist_yb], "hist_theta": [_enc(x) for x in board._hist_theta],
        "families": [f.to_state() for f in board._families],
        "pilot_set": board._pilot_set, "topk_set": board._topk_set, "topk_at": board._topk_at,
        "topk_now": board._topk_now, "topk_conflict": board._topk_conflict,
        # only with a budget: a board without one keeps the bytes (and checksums) of the states saved before it
        **({} if board.n_max is None else {"n_max": board.n_max, "futility": board.futility}),
    }


def restore_board(cls: type, s: dict[str, Any]) -> Any:
    """A board of class `cls` equal to the one `s` was taken from (ValueError, KeyError, ... if `s` is
    inconsistent: the caller words it)."""
    w = s["weights"]
    weights = None if w is None else (w if isinstance(w, dict) and "b64" not in w else _dec(w))
    labels = s["labels"]
    board = cls.__new__(cls)
    board.alpha, board.tau, board.method, board.output = s["alpha"], s["tau"], s["method"], s["output"]
    # states saved before the stake option used the grid (B10 for bb-edge-pi)
    board.stake = s.get("stake", "b10" if board.method == "bb-edge-pi" else "grid")
    board.keep_history = s["keep_history"]
    board.n_max = None if s.get("n_max") is None else int(s["n_max"])
    board.futility = float(s.get("futility", FUTILITY))
    board.models = list(s["models"])
    board.resolution, board._labels = s["resolution"], labels
    board.top_k, board.pilot, board.epochs, board.additions = s["top_k"], s["pilot"], s["epochs"], s["additions"]
    board.blocks_source, board.blocks_column = s["blocks_source"], s["blocks_column"]
    board._weights_arg = weights
    board.items = s["items"]
    board.grid = default_grid()
    board.epoch = int(s["epoch"])
    board._history = s["history"]
    board._reset_epoch_state()
    board.n_additions = int(s["n_additions"])
    ds = s["design"]
    board._design = None if ds is None else BlockDesign.from_state(
        {k: (_dec(v) if isinstance(v, dict) and "b64" in v else v) for k, v in ds.items()})
    board.R = int(s["R"])
    board.replicate_ids = list(s["replicate_ids"])
    board._theta_sum = _dec(s["theta_sum"])
    board._hist_yb = [_dec(x) for x in s["hist_yb"]]
    board._hist_theta = [_dec(x) for x in s["hist_theta"]]
    board._pilot_set, board._topk_set, board._topk_at = s["pilot_set"], s["topk_set"], s["topk_at"]
    board._topk_now, board._topk_conflict = s["topk_now"], s["topk_conflict"]
    if board._design is not None:
        board._ensure_families()
        board._families = [_Family.from_state(f) for f in s["families"]]
    _check_loaded(board)
    return board


def _check_loaded(board: Any) -> None:
    """Shapes and indices of a loaded state agree with its model list (reachable only with trust_edited)."""
    L = len(board.models)
    if L < 2 or len(set(map(str, board.models))) != L:
        raise ValueError(f"models must be at least 2 distinct names, got {board.models!r}")
    if board._theta_sum.shape != (L,) or any(t.shape != (L,) for t in board._hist_theta):
        raise ValueError(f"the recorded means do not have one value per model ({L} models)")
    if board.n_max is not None and not (board.n_max >= max(board.R, 1) and 0.0 < board.futility < 1.0):
        raise ValueError(f"its budget n_max = {board.n_max} (futility {board.futility}) does not hold its {board.R} "
                         "replicates")
    if len(board._hist_yb) != len(board._hist_theta):
        raise ValueError("recorded replicates and their means differ in number")
    for fam in board._families:
        if fam.a.size and (max(int(fam.a.max()), int(fam.b.max())) >= L or min(int(fam.a.min()),
                                                                               int(fam.b.min())) < 0):
            raise ValueError(f"family {fam.label!r} refers to a model outside the {L} models")
