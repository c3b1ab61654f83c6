"""Growing a BB-EDGE board after it started (spec 04 §9): a new model (§9.2) or a new benchmark version (§9.1).

Both check every input before changing anything, and both spend only the alpha reserved for them at
construction (``additions=`` / ``epochs=``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._compat import keyword_only
from ...errors import DataError, ParameterError, StateError
from .family import _new_family

if TYPE_CHECKING:  # pragma: no cover
    from .engine import Leaderboard

__all__ = ["_Extensions"]


class _Extensions:
    """Mixin of :class:`~certirank.methods.bbedge.engine.Leaderboard` (model additions, benchmark versions)."""

    def add_model(self, name: str, panels: Any) -> "Leaderboard":
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
        if name in self.models:
            raise StateError(f"model {name!r} is already on the board")
        if self.additions == 0:
            raise StateError("model additions were not planned: create the Leaderboard with additions=n or "
                             "additions='open' so that part of alpha is reserved for them")
        if self.additions != "open" and self.n_additions >= int(self.additions):
            raise StateError(f"all {self.additions} planned model additions of this epoch have been used")
        if self.R > 0 and not self.keep_history:
            raise StateError("this board was created with keep_history=False, so a new model cannot be replayed "
                             "against the stored replicates")
        rows = self._coerce_model_panels(name, panels)
        # ---- no errors below: mutate
        if self._design is None and self.items is not None:
            self._design = self._build_design(self.items, self._labels, self._weights_arg)
        L_old = len(self.models)
        self.models.append(name)
        self._theta_sum = np.append(self._theta_sum, 0.0)
        self.n_additions += 1
        if self._design is None:
            return self
        self._ensure_families()
        fam = _new_family("addition", f"epoch {self.epoch} addition {self.n_additions} ({name})",
                          self._alpha_stage(self.epoch, self.n_additions),
                          [L_old] * L_old + list(range(L_old)), list(range(L_old)) + [L_old] * L_old,
                          np.arange(L_old + 1), self._design.n_blocks, self._n_comp(), 0)
        for r in range(self.R):
            yb_new = self._design.block_means(rows[r][None, :])
            th_new = self._design.weighted_means(rows[r][None, :])
            self._hist_yb[r] = np.vstack([self._hist_yb[r], yb_new])
            self._hist_theta[r] = np.append(self._hist_theta[r], th_new)
            self._theta_sum[L_old] += float(th_new[0])
            self._update_family(fam, self._hist_yb[r], self._hist_theta[r])
        self._families.append(fam)
        self._track_top_k()
        return self


    @keyword_only(("weights", "blocks"))
    def expand_benchmark(self, new_items: Sequence[Any], *, weights: Any = None, blocks: Any = None) -> "Leaderboard":
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
        if self.pilot is not None:
            raise StateError("a pilot-targeted board cannot expand its benchmark")
        if self.items is None:
            raise StateError("add at least one replicate (or pass items=) before expanding the benchmark")
        if self.epochs != "open" and self.epoch >= int(self.epochs):
            raise StateError(f"all {self.epochs} planned benchmark versions are used: create the Leaderboard with "
                             "epochs=V (or 'open') to reserve alpha for later versions")
        new = [str(i) for i in new_items]
        if not new:
            raise ParameterError("new_items is empty: a new benchmark version must add items")
        clash = [i for i in new if i in set(self.items)]
        if clash or len(set(new)) != len(new):
            shown = ", ".join(map(repr, (clash or new)[:5]))
            raise ParameterError(f"new item(s) already in the benchmark or repeated: {shown}")
        items = self.items + new
        labels = self._labels
        if self.resolution == "protocol":
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
            old = labels if isinstance(labels, Mapping) else dict(zip(self.items, labels))
            clash_b = [i for i in add if i in old and old[i] != add[i]]
            if clash_b:
                raise DataError(f"item {clash_b[0]!r} would be in two blocks")
            labels = {**old, **add}
        design = self._build_design(items, labels, weights)
        # ---- mutate
        self._history.append(self._epoch_summary())
        self.items = items
        self._labels = labels
        self._weights_arg = weights
        self._design = design
        self.epoch += 1
        self._reset_epoch_state()
        return self
