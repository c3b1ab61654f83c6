"""Growing a BB-EDGE board after it started (spec 04 §9): a new model (§9.2) or a new benchmark version (§9.1).

Both check every input before changing anything, and both spend only the alpha reserved for them at
construction (``additions=`` / ``epochs=``).
from __future__ import annotations

Plain functions of the board (no mixin): ``Leaderboard.add_model`` and ``Leaderboard.expand_benchmark`` call
them with the board, whose documentation they carry.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...errors import DataError, ParameterError, StateError
from .family import _new_family
from .panels import read_model_panels

__all__ = ["add_model", "expand_benchmark"]


def add_model(board: Any, name: str, panels: Any) -> Any:
    """Add a model to the board (spec 04 §9.2): new directions only, replayed in replicate order.

    Parameters
    ----------
    name : str
        The new model's name (its inclusion must not depend on the inference panels).
    panels : sequence or DataFrame
        Its scores on the same benchmark for every replicate stored so far in this epoch, paired
        replicate r with r: an (R, N) array, a sequence of R item-score vectors, or a long DataFrame with
        ``item`` / ``replicate`` / ``score`` columns (replicates in ascending id order).

    Only the 2 |V| new directions get e-processes, tested with direct e-Holm at this stage's level
    alpha_v; earlier edges are kept and the reported graph is the union over stages.
    """
    name = str(name)
    if name in board.models:
        raise StateError(f"model {name!r} is already on the board")
    if board.additions == 0:
        raise StateError("model additions were not planned: create the Leaderboard with additions=n or "
                         "additions='open' so that part of alpha is reserved for them")
    if board.additions != "open" and board.n_additions >= int(board.additions):
        raise StateError(f"all {board.additions} planned model additions of this epoch have been used")
    if board.R > 0 and not board.keep_history:
        raise StateError("this board was created with keep_history=False, so a new model cannot be replayed "
                         "against the stored replicates")
    rows = read_model_panels(name, panels, board.items, board.R)
    # ---- no errors below: mutate
    if board._design is None and board.items is not None:
        board._design = board._build_design(board.items, board._labels, board._weights_arg)
    L_old = len(board.models)
    board.models.append(name)
    board._theta_sum = np.append(board._theta_sum, 0.0)
    board.n_additions += 1
    if board._design is None:
        return board
    board._ensure_families()
    fam = _new_family("addition", f"epoch {board.epoch} addition {board.n_additions} ({name})",
                      board._alpha_stage(board.epoch, board.n_additions),
                      [L_old] * L_old + list(range(L_old)), list(range(L_old)) + [L_old] * L_old,
                      np.arange(L_old + 1), board._design.n_blocks, board._n_comp(), 0)
    for r in range(board.R):
        yb_new = board._design.block_means(rows[r][None, :])
        th_new = board._design.weighted_means(rows[r][None, :])
        board._hist_yb[r] = np.vstack([board._hist_yb[r], yb_new])
        board._hist_theta[r] = np.append(board._hist_theta[r], th_new)
        board._theta_sum[L_old] += float(th_new[0])
        board._update_family(fam, board._hist_yb[r], board._hist_theta[r])
    board._families.append(fam)
    board._track_top_k()
    return board


def expand_benchmark(board: Any, new_items: Sequence[Any], *, weights: Any = None, blocks: Any = None) -> Any:
    """Start a new benchmark version B^(v) = B^(v-1) + ``new_items`` with fresh e-processes (spec 04 §9.1).

    Parameters
    ----------
    new_items : sequence of item names added to the benchmark.
    weights : optional item weights for the whole new version (default 1/N_v).
    blocks : for protocol blocks, the labels of the new items (sequence aligned with ``new_items`` or a
        mapping); other resolutions carry over.

    The finished epoch's certified edges are archived (they are claims about the old version); the new
    version is tested on fresh replicates at level alpha_v.
    """
    if board.pilot is not None:
        raise StateError("a pilot-targeted board cannot expand its benchmark")
    if board.items is None:
        raise StateError("add at least one replicate (or pass items=) before expanding the benchmark")
    if board.epochs != "open" and board.epoch >= int(board.epochs):
        raise StateError(f"all {board.epochs} planned benchmark versions are used: create the Leaderboard with "
                         "epochs=V (or 'open') to reserve alpha for later versions")
    new = [str(i) for i in new_items]
    if not new:
        raise ParameterError("new_items is empty: a new benchmark version must add items")
    clash = [i for i in new if i in set(board.items)]
    if clash or len(set(new)) != len(new):
        shown = ", ".join(map(repr, (clash or new)[:5]))
        raise ParameterError(f"new item(s) already in the benchmark or repeated: {shown}")
    items = board.items + new
    labels = board._labels
    if board.resolution == "protocol":
        if blocks is None:
            known = labels if isinstance(labels, Mapping) else {}
            if not all(i in known for i in new):
                raise ParameterError("protocol blocks: give the block label of every new item (blocks=...)")
            blocks = {i: known[i] for i in new}
        if isinstance(blocks, Mapping):
            add = {str(k): str(v) for k, v in blocks.items()}
        else:
            vals = [str(v) for v in blocks]
            if len(vals) != len(new):
                raise ParameterError(f"blocks must give one label per new item ({len(new)}), got {len(vals)}")
            add = dict(zip(new, vals))
        old = labels if isinstance(labels, Mapping) else dict(zip(board.items, labels))
        clash_b = [i for i in add if i in old and old[i] != add[i]]
        if clash_b:
            raise DataError(f"item {clash_b[0]!r} would be in two blocks")
        labels = {**old, **add}
    design = board._build_design(items, labels, weights)
    # ---- mutate
    board._history.append(board._epoch_summary())
    board.items = items
    board._labels = labels
    board._weights_arg = weights
    board._design = design
    board.epoch += 1
    board._reset_epoch_state()
    return board
