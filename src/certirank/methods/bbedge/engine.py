"""The streaming BB-EDGE engine :class:`Leaderboard` (spec 04 §4-§9).

State between replicates (nothing is recomputed from history):

- per *family* of directions (the full board, a model-addition stage, or the pilot-selected Top-k family):
  the cumulative log components (directions x grid), the running block sums of its models (for the
  predictions), and its certification record;
- per epoch (benchmark version): the block design, each model's summed weighted mean and, unless
  ``keep_history=False``, the per-replicate block means (needed only to replay a newly added model).

Every mutating method checks all of its input first and raises before changing anything.

This module holds the configuration and the e-process update. Panel reading (``panels.py``), board growth
(``extend.py``) and the saved state (``persist.py``) are functions of the board that import nothing from here;
saving and loading go through the one contract of the live engines (:class:`certirank._saved.Saved`).
"""

from __future__ import annotations

import math
from types import MappingProxyType
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..._compat import keyword_only, warn_renamed
from ..._integrity import verify
from ..._params import BBEDGE_METHODS, validated
from ..._saved import Saved, sealed
from ...errors import ParameterError, StateError
from . import extend as _extend
from ...evidence.forecast import FUTILITY
from .betting import betting_terms
from .family import _Family, _new_family
from .panels import read_panel
from .persist import STATE_VERSION, board_state, restore_board
from .result import LeaderboardResult
from .core import (
    GRID_SIZE,
    PLUGIN_BETTING_DRIFTS,
    RESOLUTION_TEXT,
    BlockDesign,
    PenaltyPlan,
    default_grid,
    block_statement,
    growth_stake,
    hoeffding_log_factors,
    kelly_stake,
    log_mixture,
    make_design,
    mixture_log_factors,
    pair_squared_error_sums,
    plugin_stake,
    plugin_step,
    psi_e,
    squared_error_sums,
)

__all__ = ["Leaderboard", "METHODS", "RESOLUTION_TEXT", "block_statement"]

METHODS = BBEDGE_METHODS
_MAX_CLASSES_PLUGIN = 64
_CHUNK = 2_000_000  # entries of a (directions x blocks) work array in the pair-by-pair paths
#: directions per block of the e-process update: bounds its (directions x grid) temporaries (65,536 x 41
#: doubles = 21 MB each) at any L; a board of L <= 256 models is a single block
DIRECTION_BLOCK = 1 << 16


def _direction_blocks(n: int) -> list[slice]:
    step = max(1, int(DIRECTION_BLOCK))  # read at call time, so tests can shrink it
    return [slice(s, min(n, s + step)) for s in range(0, n, step)] or [slice(0, 0)]


# ------------------------------------------------------------------------------------------ engine

class Leaderboard(Saved):
    """Streaming BB-EDGE leaderboard: certified edges, rank intervals and Top-k after every replicate.

    Parameters
    ----------
    models : sequence of str
        Model names (the board's order; ties in pilot selection go to the earlier model).
    alpha : float, default 0.05
        Family-wise error rate of the whole answer (all directions, all replicates, all stages).
    tau : float, default 0.0
        Margin: an edge a -> b certifies Delta_{a,b} > tau. Must satisfy 0 <= tau < 1.
    blocks : None | "items" | "replicate" | sequence | mapping, default None
        Design-determined block resolution (spec 04 §3), fixed before any data: ``"items"`` (= singleton
        blocks, one per item; also the default ``None``), ``"replicate"`` (one block per run; CR-EDGE), or a
        block label per item (a sequence aligned with ``items`` or a mapping item -> block). Every result
        states the resolution and the independence assumption it rests on.
    weights : sequence or mapping, optional
        Item weights omega_i >= 0 summing to 1; default 1/N.
    items : sequence of str, optional
        Item names in benchmark order; default: taken from the first replicate.
    method : {"bb-edge", "bfh-e-holm", "cr-edge", "bb-edge-pi"}, default "bb-edge"
        The e-process: empirical-Bernstein mixture (BB-EDGE), Hoeffding penalty (BFH-e-Holm), one block per
        run (CR-EDGE), or the plug-in stake of spec 04 B10 (BB-EDGE-PI).
    stake : {"plugin", "plugin-eb", "grid"}, optional
        Stake rule of "bb-edge" and "cr-edge" (their default: "plugin"). "plugin": one predictable stake per
        direction and replicate, chosen from earlier replicates only and scaled by w_m / w_* across blocks
        (so spec 04 Proposition 1 holds), on the exact betting factor of spec 04 §5's lemma
        (:func:`certirank.methods.bbedge.betting.betting_terms`; costs O(L^2 M) elementwise products per replicate).
        "plugin-eb": the same kind of stake on the empirical-Bernstein factor of §4 (cheaper at large L,
        less powerful). "grid": the spec 04 uniform mixture over 41 constant stakes. "bfh-e-holm" always uses
        the grid and "bb-edge-pi" its own B10 stake (reported as "b10").
    top_k : int, optional
        Track Top-k certification (full graph, spec 04 §8.1; or pilot-targeted with ``pilot``).
    pilot : int, optional
        Pilot-targeted Top-k (§8.2): the first ``pilot`` replicates choose the candidate set T0 (never used as
        evidence); only the k(L - k) cross-set directions are then tested, on the later replicates.
    epochs : int or "open", default 1
        Planned benchmark versions (§9.1): version v is tested at alpha / epochs, or with ``"open"`` at
        alpha * 6 / (pi^2 v^2).
    additions : int or "open", default 0
        Planned model additions (§9.2): with n planned, every stage gets alpha / (n + 1); with ``"open"``
        the initial board gets alpha / 2 and addition v gets alpha / 2^(v + 1).
    output : {"current", "cumulative"}, default "current"
        Report the edges certified at the latest replicate (paper) or every edge certified so far.
    keep_history : bool, default True
        Keep per-replicate block means (needed to replay a model added later).
    backend, jobs, scheduler :
        Where the plug-in stake's betting factor (the O(L^2 M) part of an update) is computed: in this
        process on threads (default), on ``jobs`` local processes, or on a Dask or Ray cluster
        (:func:`certirank._parallel.run_tasks`). The results are the same bits on every backend.
    n_max : int, optional
        Budget of replicates of the current benchmark version (whole runs of every model on every item; AnyRank's
        ``n_max`` counts paired trials). A replicate beyond it is refused (:class:`StateError`), and the result
        forecasts each undecided pair's chance of a decision in the replicates left: ``futile`` below
        ``futility``. A forecast at the current estimates, never a guarantee; the budget changes no e-value.
    futility : float, default 0.1
        The forecast chance of a decision within the budget below which an undecided pair is ``futile``.
    """

    #: where the betting factor runs (set by __init__; a board restored from saved state runs in-process)
    _where: Mapping[str, Any] = MappingProxyType({})
    #: the budget of replicates (None: none) and the futility level of the forecasts under it
    n_max: int | None = None
    futility: float = FUTILITY

    @keyword_only(("tau", "blocks", "weights"))
    @validated("Leaderboard")
    def __init__(self, models: Sequence[str], alpha: float = 0.05, *, tau: float = 0.0, blocks: Any = None,
                 weights: Any = None, items: Sequence[Any] | None = None, method: str = "bb-edge",
                 top_k: int | None = None, pilot: int | None = None, epochs: int | str = 1,
                 additions: int | str = 0, output: str = "current", keep_history: bool = True,
                 blocks_source: str | None = None, blocks_column: str | None = None, stake: str | None = None,
                 backend: str | None = None, jobs: int = 1, scheduler: Any = None, n_max: int | None = None,
                 futility: float = FUTILITY) -> None:
        # the arguments were checked against the declaration of "Leaderboard" (certirank._params), rules included
        names = list(models)
        from ..._parallel import resolve_backend
        resolve_backend(backend, jobs, scheduler)
        # where the work runs, never what it computes: not part of the saved state
        self._where = {"backend": backend, "jobs": jobs, "scheduler": scheduler}
        self.alpha, self.tau, self.method, self.output = alpha, tau, method, output
        self.stake = stake if stake is not None else ("plugin" if method in ("bb-edge", "cr-edge") else
                                                      "b10" if method == "bb-edge-pi" else "grid")
        self.keep_history = keep_history
        self.n_max, self.futility = n_max, futility
        self.models = names
        resolution, labels = self._resolution(blocks)
        if self.method == "cr-edge":
            if resolution == "protocol":
                raise ParameterError("method 'cr-edge' is BB-EDGE with one block per run; do not pass block labels "
                                     "with it")
            resolution, labels = "replicate", None
        self.resolution = resolution
        self._labels = labels
        self.top_k, self.pilot, self.epochs, self.additions = top_k, pilot, epochs, additions
        if blocks_source is None:
            if blocks is None:
                blocks_source = "default: no block labels given"
            elif resolution == "protocol":
                blocks_source = "given: block labels per item"
            else:
                blocks_source = f"chosen: blocks={blocks!r}"
        self.blocks_source = blocks_source
        self.blocks_column = blocks_column
        self._weights_arg = weights
        self.items: list[str] | None = None if items is None else [str(i) for i in items]
        if self.items is not None and len(set(self.items)) != len(self.items):
            raise ParameterError("items must be unique")
        self.grid = default_grid()
        self.epoch = 1
        self.n_additions = 0
        self._history: list[dict[str, Any]] = []   # archived epochs
        self._design: BlockDesign | None = None
        self._reset_epoch_state()
        if self.items is not None:
            self._design = self._build_design(self.items, self._labels, weights)

    # ----------------------------------------------------------------------------------- configuration
    @staticmethod
    def _resolution(blocks: Any) -> tuple[str, Any]:
        if blocks is None:
            return "singleton", None
        if isinstance(blocks, str):
            key = blocks.strip().lower()
            if key in ("items", "item", "singleton"):
                return "singleton", None
            if key in ("replicate", "run"):
                return "replicate", None
            raise ParameterError(f"blocks must be 'items', 'replicate', or one block label per item, got {blocks!r}"
                                 " (a column name is accepted only by certirank.leaderboard(data, ...))")
        if isinstance(blocks, Mapping):
            return "protocol", {str(k): str(v) for k, v in blocks.items()}
        try:
            labels = [str(v) for v in blocks]
        except TypeError:
            raise ParameterError(f"blocks must be 'items', 'replicate', or one block label per item, got "
                                 f"{blocks!r}") from None
        return "protocol", labels

    def _alpha_stage(self, epoch: int, stage: int) -> float:
        """alpha_{v,u}: the epoch's share of alpha times the stage's share within the epoch."""
        if self.epochs == "open":
            e_share = 6.0 / (math.pi ** 2 * epoch ** 2)
        else:
            e_share = 1.0 / int(self.epochs)
        if self.additions == "open":
            s_share = 0.5 ** (stage + 1)
        else:
            s_share = 1.0 / (int(self.additions) + 1)
        return self.alpha * e_share * s_share

    def _build_design(self, items: list[str], labels: Any, weights: Any) -> BlockDesign:
        n = len(items)
        if isinstance(weights, Mapping):
            missing = [i for i in items if i not in {str(k) for k in weights}]
            if missing:
                raise ParameterError(f"weights has no entry for item(s) {', '.join(map(repr, missing[:5]))}")
            wmap = {str(k): v for k, v in weights.items()}
            extra = [k for k in wmap if k not in set(items)]
            if extra:
                raise ParameterError(f"weights names unknown item(s) {', '.join(map(repr, extra[:5]))}")
            weights = [wmap[i] for i in items]
        if self.resolution == "protocol":
            if isinstance(labels, Mapping):
                missing = [i for i in items if i not in labels]
                if missing:
                    raise ParameterError(f"blocks gives no block for item(s) {', '.join(map(repr, missing[:5]))}")
                labels = [labels[i] for i in items]
            elif len(labels) != n:
                raise ParameterError(f"blocks must give one block label per item ({n} items), got {len(labels)}")
        return make_design(n, self.resolution, labels=labels, weights=weights, item_names=items)

    def _reset_epoch_state(self) -> None:
        L = len(self.models)
        self.R = 0
        self.replicate_ids: list[Any] = []
        self._theta_sum = np.zeros(L)
        self._hist_yb: list[np.ndarray] = []
        self._hist_theta: list[np.ndarray] = []
        self._families: list[_Family] = []
        self._pilot_set: list[int] | None = None
        self._topk_set: list[int] | None = None
        self._topk_at: int | None = None
        self._topk_now = False
        self._topk_conflict = False
        self._plan: PenaltyPlan | None = None
        self._plan_pi: PenaltyPlan | None = None
        self.n_additions = 0

    def _ensure_families(self) -> None:
        """Create the epoch's board family once the design exists (lazily, on the first replicate)."""
        d = self._design
        assert d is not None
        if self._plan is None:
            self._plan = PenaltyPlan(d, self.grid)
            if self._single_stake and d.class_weight.shape[0] <= _MAX_CLASSES_PLUGIN:
                self._plan_pi = PenaltyPlan(d, self.grid, force_classes=True)
        if not self._families and self.pilot is None:
            L = len(self.models)
            a, b = np.where(~np.eye(L, dtype=bool))
            self._families.append(_new_family("board", f"epoch {self.epoch} board", self._alpha_stage(self.epoch, 0),
                                              a, b, np.arange(L), d.n_blocks, self._n_comp(), 0))

    @property
    def _single_stake(self) -> bool:
        """One predictable stake per direction (B10 or the growth plug-in) instead of the grid mixture."""
        return self.method == "bb-edge-pi" or self.stake in ("plugin", "plugin-eb")

    def _n_comp(self) -> int:
        if self.stake == "plugin":
            return len(PLUGIN_BETTING_DRIFTS)
        return 1 if self._single_stake else GRID_SIZE

    # ----------------------------------------------------------------------------------- updates
    @validated("Leaderboard.add_replicate")
    def add_replicate(self, panel: Any, replicate: Any = None) -> "Leaderboard":
        """Add one complete replicate (every model on every item) and update all e-processes.

        Parameters
        ----------
        panel : array (models x items), mapping model -> item scores, or DataFrame
            A long DataFrame (``model``/``policy``, ``item``/``env``, ``score``, optional ``replicate``) or a
            wide one (rows = items, columns = models). Arrays and mappings follow ``models`` / ``items`` order.
        replicate : optional
            The replicate's id (default: the panel's ``replicate`` column, else the next integer). Adding
            an id twice is refused.

        Returns
        -------
        self

        Raises
        ------
        DataError
            Incomplete or malformed panel. StateError: replicate already added, or beyond the budget ``n_max``.
        Nothing changes on error.
        """
        if self.n_max is not None and self.R >= self.n_max:
            raise StateError(f"the budget of {self.n_max} replicates is reached (epoch {self.epoch}); a replicate "
                             "beyond the budget is refused")
        arr, item_names, rep_from_panel = read_panel(panel, self.models, self.items)
        rid = replicate if replicate is not None else rep_from_panel
        if rid is None:
            numeric = [v for v in self.replicate_ids if isinstance(v, (int, np.integer))]
            rid = (max(numeric) + 1) if numeric else 1
        rid = int(rid) if isinstance(rid, (np.integer,)) else rid
        if rid in self.replicate_ids:
            raise StateError(f"replicate {rid!r} was already added (epoch {self.epoch}); each replicate may be "
                             "added once")
        design = self._design
        if design is None:
            design = self._build_design(item_names, self._labels, self._weights_arg)
        # ---- no errors below this line: mutate
        if self._design is None:
            self._design = design
            self.items = item_names
        self._ensure_families()
        self._step(arr)
        self.replicate_ids.append(rid)
        return self

    def _step(self, arr: np.ndarray) -> None:
        d = self._design
        assert d is not None
        yb = d.block_means(arr)
        theta = d.weighted_means(arr)
        self.R += 1
        self._theta_sum = self._theta_sum + theta
        if self.keep_history:
            self._hist_yb.append(yb)
            self._hist_theta.append(theta)
        if self.pilot is not None and self.R == self.pilot:
            self._start_pilot_family()
        elif self.pilot is None or self.R > self.pilot:
            for fam in self._families:
                self._update_family(fam, yb, theta)
        self._track_top_k()

    def _start_pilot_family(self) -> None:
        d = self._design
        assert d is not None and self.top_k is not None
        mean = self._theta_sum / self.R
        order = sorted(range(len(self.models)), key=lambda i: (-mean[i], i))
        chosen = sorted(order[: self.top_k])
        rest = [i for i in range(len(self.models)) if i not in chosen]
        a = [i for i in chosen for _ in rest]
        b = [j for _ in chosen for j in rest]
        self._pilot_set = chosen
        self._families.append(_new_family("pilot", f"pilot Top-{self.top_k} family", self.alpha, a, b,
                                          np.arange(len(self.models)), d.n_blocks, self._n_comp(), self.R))

    def _update_family(self, fam: _Family, yb_all: np.ndarray, theta_all: np.ndarray) -> None:
        from ...multitest.eholm import e_holm, e_holm_threshold

        d = self._design
        assert d is not None and self._plan is not None
        r = fam.r + 1
        yb = yb_all[fam.models]
        th = theta_all[fam.models]
        td = th[fam.a_row] - th[fam.b_row]
        kappa = -self.tau / (2.0 * r)
        if self.method == "bfh-e-holm":
            log_e = np.empty(fam.n_directions)
            for sl in _direction_blocks(fam.n_directions):
                fam.comp[sl] += hoeffding_log_factors(td[sl], d, self.grid, self.tau)
                log_e[sl] = log_mixture(fam.comp[sl])
            fam.log_e = log_e
        elif self.stake == "plugin":
            u = yb - fam.C / r
            th_sum = fam.C @ d.block_weight  # replicates < r only: the stake is predictable
            lin_sum = (th_sum[fam.a_row] - th_sum[fam.b_row] - fam.r * self.tau) / (2.0 * d.w_star)
            lam = np.stack([kelly_stake(lin_sum, fam.s2, d, drift) for drift in PLUGIN_BETTING_DRIFTS], axis=1)
            ratio = d.block_weight / d.w_star
            v_b = u * (0.5 * ratio)
            # tau = 0: the same array, so betting_terms computes both directions of a pair in one pass
            v_a = v_b if kappa == 0 else v_b + kappa * ratio
            # lin - sum_m x_m = sum_m ratio_m (Yhat_m - mu_0), from per-model row sums
            ya, yb_ = v_a.sum(axis=1), v_b.sum(axis=1)
            drift = (td - self.tau) / (2.0 * d.w_star) - (ya[fam.a_row] - yb_[fam.b_row])
            # chunked (bounded memory) and spread over threads inside
            s2, lp = betting_terms(v_a, v_b, fam.a_row, fam.b_row, lam, **self._where)
            fam.comp += lam * drift[:, None] + lp
            fam.s2 += s2
            fam.log_e = log_mixture(fam.comp)
        elif self._single_stake:
            u = yb - fam.C / r
            if self.method == "bb-edge-pi":
                lam = plugin_stake(fam.s2, r, float(np.sum((d.block_weight / d.w_star) ** 2)), fam.alpha)
            else:
                # C and s2 still hold replicates < r only: the stake is predictable
                th_sum = fam.C @ d.block_weight
                lin_sum = (th_sum[fam.a_row] - th_sum[fam.b_row] - fam.r * self.tau) / (2.0 * d.w_star)
                lam = growth_stake(lin_sum, fam.s2, d)
            if self._plan_pi is not None:
                Qk = self._pair_sums(u, fam, kappa, self._plan_pi)
                fam.comp[:, 0] += plugin_step(td, Qk, lam, d, self.tau)
                fam.s2 += Qk @ (d.class_weight / d.w_star) ** 2
            else:
                pen, s2 = self._plugin_direct(u, fam, kappa, lam)
                fam.comp[:, 0] += lam / d.w_star * (td - self.tau) / 2.0 - pen
                fam.s2 += s2
            fam.log_e = fam.comp[:, 0].copy()
        else:  # bb-edge and cr-edge
            u = yb - fam.C / r
            # per-model sums once (L x L x J), then the directions block by block: the (directions x grid)
            # temporaries stay at one block's size however many models there are
            gram = self._plan_sums(u, fam, kappa, self._plan)
            log_e = np.empty(fam.n_directions)
            for sl in _direction_blocks(fam.n_directions):
                Q = self._pair_sums(u, fam, kappa, self._plan, sl, gram)
                fam.comp[sl] += mixture_log_factors(td[sl], Q, self._plan, self.tau)
                log_e[sl] = log_mixture(fam.comp[sl])
            fam.log_e = log_e
        fam.C += yb
        fam.r = r
        fam.current = np.array(e_holm(fam.log_e, fam.alpha, log=True).rejected)
        fam.log_c = float(np.log(e_holm_threshold(fam.log_e, fam.alpha, log=True)))
        fam.first[fam.current & (fam.first == 0)] = r

    @staticmethod
    def _plan_sums(u: np.ndarray, fam: _Family, kappa: float, plan: PenaltyPlan) -> np.ndarray | None:
        """The (L, L, J) all-pairs sums when the Gram route pays (many directions), else None."""
        return squared_error_sums(u, kappa, plan) if fam.n_directions >= fam.models.shape[0] else None

    def _pair_sums(self, u: np.ndarray, fam: _Family, kappa: float, plan: PenaltyPlan, sel: slice = slice(None),
                   gram: np.ndarray | None | bool = False) -> np.ndarray:
        """Weighted squared-error sums (E_sel, J) of the directions ``sel``: Gram route for many directions,
        else pairwise."""
        if gram is False:
            gram = self._plan_sums(u, fam, kappa, plan)
        a_row, b_row = fam.a_row[sel], fam.b_row[sel]
        if gram is not None:
            return gram[a_row, b_row]
        W = plan.weights
        E = a_row.shape[0]
        out = np.empty((E, W.shape[1]))
        step = max(1, _CHUNK // max(1, u.shape[1]))
        for s in range(0, E, step):
            sl = slice(s, s + step)
            out[sl] = pair_squared_error_sums(u, a_row[sl], b_row[sl], kappa, W)
        return out

    def _plugin_direct(self, u: np.ndarray, fam: _Family, kappa: float, lam: np.ndarray) -> tuple[np.ndarray,
                                                                                                    np.ndarray]:
        d = self._design
        assert d is not None
        ratio = d.block_weight / d.w_star
        E = fam.n_directions
        pen = np.empty(E)
        s2 = np.empty(E)
        step = max(1, _CHUNK // max(1, u.shape[1]))
        for s in range(0, E, step):
            sl = slice(s, s + step)
            diff = kappa + (u[fam.a_row[sl]] - u[fam.b_row[sl]]) / 2.0
            sq = diff * diff
            pen[sl] = np.sum(psi_e(np.outer(lam[sl], ratio)) * sq, axis=1)
            s2[sl] = sq @ (ratio ** 2)
        return pen, s2

    # ----------------------------------------------------------------------------------- growth (spec 04 §9)
    @validated("Leaderboard.add_model")
    def add_model(self, name: str, panels: Any) -> Leaderboard:
        return _extend.add_model(self, name, panels)

    @keyword_only(("weights", "blocks"))
    @validated("Leaderboard.expand_benchmark")
    def expand_benchmark(self, new_items: Sequence[Any], *, weights: Any = None, blocks: Any = None) -> Leaderboard:
        return _extend.expand_benchmark(self, new_items, weights=weights, blocks=blocks)

    add_model.__doc__, expand_benchmark.__doc__ = _extend.add_model.__doc__, _extend.expand_benchmark.__doc__

    # ----------------------------------------------------------------------------------- saved state
    _what = "saved Leaderboard state"
    _error = StateError
    _edited: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The complete engine state, sealed by a checksum over configuration and every recorded replicate
        (:meth:`from_dict` refuses an edited one)."""
        return sealed(board_state(self), self._edited)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], *, trust_edited: bool = False) -> Leaderboard:
        """Rebuild an engine from :meth:`to_dict`; it resumes exactly where the original stopped.

        The state's checksum (``state_sha256``) must match; an edited or unsealed state raises
        :class:`~certirank.errors.EditedStateError` unless ``trust_edited=True``, and then every result carries a
        ``trust_edited`` warning.
        """
        s = dict(d)
        if s.get("version") != STATE_VERSION or "families" not in s:
            raise StateError("not a saved Leaderboard state (missing version/families)")
        edited = verify(s, what=cls._what, trust_edited=trust_edited)
        try:
            board = restore_board(cls, s)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise StateError(f"corrupt saved Leaderboard state ({type(exc).__name__}: {exc})") from None
        board._edited = edited
        return board

    def to_state(self) -> dict[str, Any]:
        """Deprecated (removed in 0.3): :meth:`to_dict` (the same state, sealed)."""
        warn_renamed("Leaderboard.to_state()", "Leaderboard.to_dict()")
        return board_state(self)

    # ----------------------------------------------------------------------------------- top-k
    def _relation(self) -> np.ndarray:
        L = len(self.models)
        rel = np.zeros((L, L), dtype=bool)
        for fam in self._families:
            mask = fam.current if self.output == "current" else fam.first > 0
            rel[fam.a[mask], fam.b[mask]] = True
        return rel

    def _track_top_k(self) -> None:
        if self.top_k is None:
            return
        if self.pilot is not None:
            fam = next((f for f in self._families if f.kind == "pilot"), None)
            now = fam is not None and fam.r > 0 and bool(fam.current.all())
            self._topk_now = now
            if now and self._topk_at is None:
                self._topk_set = list(self._pilot_set or [])
                self._topk_at = self.R
            return
        from ...order.closure import top_k as closure_top_k
        from ...order.closure import transitive_closure

        t = closure_top_k(transitive_closure(self._relation()), self.top_k)
        self._topk_now = t is not None
        if t is not None:
            if self._topk_set is None:
                self._topk_set = [int(i) for i in t]
                self._topk_at = self.R
            elif sorted(self._topk_set) != [int(i) for i in t]:
                self._topk_conflict = True

    # ----------------------------------------------------------------------------------- outputs
    def _epoch_summary(self) -> dict[str, Any]:
        rel = self._relation()
        a, b = np.nonzero(rel)
        return {"epoch": self.epoch, "n_items": len(self.items or []), "replicates": self.R,
                "alpha": sum(f.alpha for f in self._families) if self._families else self._alpha_stage(self.epoch, 0),
                "edges": [[self.models[i], self.models[j]] for i, j in zip(a, b)],
                "top_k": self._top_k_dict()}

    def _top_k_dict(self) -> dict[str, Any] | None:
        if self.top_k is None:
            return None
        out: dict[str, Any] = {"k": self.top_k,
                               "set": None if self._topk_set is None else [self.models[i] for i in self._topk_set],
                               "certified_at": self._topk_at, "certified_now": self._topk_now,
                               "method": "pilot" if self.pilot is not None else "full-graph"}
        if self.pilot is not None:
            out["pilot_replicates"] = self.pilot
            out["candidate"] = None if self._pilot_set is None else [self.models[i] for i in self._pilot_set]
            out["confirmatory_at"] = None if self._topk_at is None else self._topk_at - self.pilot
        if self._topk_conflict:
            out["conflict"] = True
        return out

    def blocks_info(self) -> dict[str, Any]:
        n = self._design.n_blocks if self._design is not None else (len(self.items) if self.items else 0)
        if self.resolution == "replicate":
            n = 1
        source = self.blocks_source
        if self.method == "cr-edge":
            source = "method cr-edge"
        return block_statement(self.resolution, n, source, self.blocks_column)

    def result(self) -> "LeaderboardResult":
        """The current certified leaderboard (an immutable :class:`LeaderboardResult`)."""
        from .result import build_result
        return build_result(self)

    @validated("Leaderboard.suggest_items")
    def suggest_items(self, k: int = 1, *, seed: int = 0) -> Any:
        """`k` items to score next, drawn with known probabilities toward the undecided pairs (the current
        result's :meth:`~certirank.methods.bbedge.result.LeaderboardResult.suggest_items`)."""
        return self.result().suggest_items(k, seed=seed)

    def log_e_matrix(self) -> np.ndarray:
        """Current log e-values as an (L, L) matrix (NaN where a direction is not tested)."""
        L = len(self.models)
        out = np.full((L, L), np.nan)
        for fam in self._families:
            out[fam.a, fam.b] = fam.log_e
        return out

    def certified_matrix(self) -> np.ndarray:
        """(L, L) boolean matrix of the reported edges (current or cumulative, per ``output``)."""
        return self._relation()

    def __repr__(self) -> str:
        return (f"Leaderboard({len(self.models)} models, method={self.method!r}, stake={self.stake!r}, "
                f"alpha={self.alpha}, tau={self.tau}, " + ("" if self.n_max is None else f"n_max={self.n_max}, ") +
                f"blocks={self.resolution!r}, epoch={self.epoch}, replicates={self.R})")

