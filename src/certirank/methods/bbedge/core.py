"""BB-EDGE numerical core: block designs (with the words every output states about them) and the
block-factorised e-processes (spec 04 §3-§5, §11, §12).

Everything here is vectorised over all ordered model pairs (directions) and the stake grid, and lives in
log space.

Why the update costs O(L^2 M) instead of O(L^2 M G) in the common case
---------------------------------------------------------------------------
With the default running-mean prediction, the prediction of every direction is linear in per-*model*
running block sums, so the prediction error of direction a -> b at (stage-local) replicate r is

    Y_{e,m,r} - Yhat_{e,m,r} = -tau / (2 r) + (u_{a,m} - u_{b,m}) / 2,   u_{l,m} = Yb_{l,m,r} - C_{l,m} / r,

where Yb are the model's block means and C their sum over earlier replicates. The penalty of grid point g
is sum_m psi(lambda_g w_m / w_*) (Y - Yhat)^2; blocks with equal weight share the stake, so with K
distinct block weights the penalty needs only K weighted sums of squared errors per direction, and those
follow from K Gram matrices of u (one BLAS product each). The linear term collapses to the
benchmark-weighted replicate means. The state kept between replicates is therefore C (models x blocks) and
the cumulative log components (directions x grid): nothing is recomputed from history.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.linalg.blas import dsyrk
from scipy.special import logsumexp

from ...errors import DataError, ParameterError

__all__ = [
    "GRID_SIZE",
    "LAMBDA_MAX",
    "default_grid",
    "psi_e",
    "BlockDesign",
    "make_design",
    "PenaltyPlan",
    "squared_error_sums",
    "mixture_log_factors",
    "hoeffding_log_factors",
    "plugin_step",
    "growth_stake",
    "kelly_stake",
    "PLUGIN_BETTING_DRIFTS",
    "STAKES",
    "log_mixture",
    "RESOLUTIONS",
    "RESOLUTION_TEXT",
    "block_statement",
]

GRID_SIZE = 41
LAMBDA_MAX = 0.95
#: beyond this many distinct block weights the plug-in variant computes penalties pair by pair
_MAX_CLASSES = 64

RESOLUTIONS = ("singleton", "protocol", "replicate")
#: the CLI's ``--blocks`` spelling of each resolution
_CLI_NAME = {"singleton": "items", "replicate": "replicate", "protocol": "column"}
#: stake rules: one predictable plug-in stake per direction on the exact betting factor (:func:`kelly_stake`;
#: ``methods.bbedge.betting``), the same idea on the empirical-Bernstein factor (:func:`growth_stake`), or the
#: spec 04 41-point mixture
STAKES = ("plugin", "plugin-eb", "grid")
#: prior of the growth plug-in, in pseudo-replicates: drift d0 and squared error v0 per (weight-scaled) block
PLUGIN_PRIOR_N = 2.0
PLUGIN_PRIOR_DRIFT = 0.015
#: the betting plug-in averages two e-processes that differ only in this prior drift: a cautious one
#: (first stake 0.24 with equal weights) and a bold one (first stake 0.9), see :func:`kelly_stake`
PLUGIN_BETTING_DRIFTS = (0.015, 0.1)
PLUGIN_PRIOR_VAR = 1.0 / 16.0
#: cap on lambda_r (w_m / w_* <= 1, so every block stake stays <= 0.9 and psi_E finite)
PLUGIN_CAP = 0.9

#: the independence assumption each resolution rests on, in the words every output states
RESOLUTION_TEXT = {
    "singleton": ("assumes items are scored independently within a run (independent sampling per item; no "
                  "shared cache, provider state, judge or batch randomness); if runs share a cache, a judge or "
                  "batch state, use --blocks replicate"),
    "protocol": ("assumes the blocks are independently randomised within a run (items inside a block may depend "
                 "on each other in any way); if blocks share a cache, a judge or batch state, use --blocks "
                 "replicate"),
    "replicate": ("treats each complete run as one block: valid under any dependence within a run (needs only "
                  "independent, identically distributed runs), but it certifies nothing from a single run"),
}


def block_statement(resolution: str, n_blocks: int, source: str, column: str | None = None) -> dict[str, Any]:
    """The plain-words statement of the block resolution that every output carries (spec 04 §3)."""
    name = {"singleton": "items (one block per item)", "replicate": "replicate (one block per run, CR-EDGE)",
            "protocol": f"column {column!r} ({n_blocks} blocks)" if column else f"protocol ({n_blocks} blocks)"}
    text = RESOLUTION_TEXT[resolution]
    return {"resolution": resolution, "blocks": _CLI_NAME[resolution] if resolution != "protocol" else
            (column or "protocol"), "n_blocks": int(n_blocks), "source": source,
            "statement": f"blocks = {name[resolution]}, {source}; {text}; runs are assumed independent and "
                         "identically distributed given the benchmark and protocol"}


def default_grid() -> np.ndarray:
    """The 41 stakes lambda_g = 0.95 (g - 1) / 40, g = 1..41 (spec 04 §4 step 5)."""
    return LAMBDA_MAX * np.arange(GRID_SIZE) / (GRID_SIZE - 1)


def psi_e(lam: Any) -> np.ndarray:
    """Empirical-Bernstein penalty psi_E(lambda) = -log(1 - lambda) - lambda (Fan et al. normalisation)."""
    lam = np.asarray(lam, dtype=float)
    return -np.log1p(-lam) - lam


# ------------------------------------------------------------------------------------------------ designs

@dataclass(frozen=True)
class BlockDesign:
    """A frozen partition of the benchmark items into blocks, with item and block weights.

    Attributes
    ----------
    resolution : {"singleton", "protocol", "replicate"}
    item_weight : (N,) item weights omega, summing to 1.
    item_block : (N,) index of each item's block among the kept blocks, -1 for items in zero-weight blocks.
    block_weight : (M,) w_m = sum of the item weights in block m (zero-weight blocks are dropped).
    block_labels : labels of the kept blocks (protocol resolution), else empty.
    """

    resolution: str
    item_weight: np.ndarray
    item_block: np.ndarray
    block_weight: np.ndarray
    block_labels: tuple[str, ...] = ()

    @property
    def n_items(self) -> int:
        return int(self.item_weight.shape[0])

    @property
    def n_blocks(self) -> int:
        return int(self.block_weight.shape[0])

    @property
    def w_star(self) -> float:
        return float(self.block_weight.max())

    def __post_init__(self) -> None:
        w = self.block_weight
        # blocks with the same weight share their stakes; exact float equality keeps stakes exactly
        # proportional (grouping nearly-equal weights would not)
        uniq, inverse = np.unique(w, return_inverse=True)
        object.__setattr__(self, "_class_weight", uniq)
        object.__setattr__(self, "_block_class", inverse.astype(np.int64))
        kept = self.item_block >= 0
        coef = np.zeros(self.n_items)
        coef[kept] = self.item_weight[kept] / w[self.item_block[kept]]
        object.__setattr__(self, "_coef", coef)
        order = np.argsort(np.where(kept, self.item_block, self.n_blocks), kind="stable")[: int(kept.sum())]
        object.__setattr__(self, "_order", order)
        counts = np.bincount(self.item_block[kept], minlength=self.n_blocks)
        object.__setattr__(self, "_starts", np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64))
        trivial = (self.resolution == "singleton" and self.n_blocks == self.n_items
                   and np.array_equal(self.item_block, np.arange(self.n_items)))
        object.__setattr__(self, "_identity", bool(trivial))
        # equal weights: a plain (pairwise-summed) mean is the same quantity with less rounding
        object.__setattr__(self, "_uniform", bool(np.all(self.item_weight == self.item_weight[0])))

    @property
    def class_weight(self) -> np.ndarray:
        """The K distinct block weights (ascending)."""
        return self._class_weight  # type: ignore[attr-defined]

    @property
    def block_class(self) -> np.ndarray:
        """(M,) index into :attr:`class_weight` of each block."""
        return self._block_class  # type: ignore[attr-defined]

    def block_means(self, scores: np.ndarray) -> np.ndarray:
        """Block means Yb_{l,m} = (1 / w_m) sum_{i in C_m} omega_i S_{l,i} for a (models, N) score array."""
        scores = np.asarray(scores, dtype=float)
        if self._identity:  # type: ignore[attr-defined]
            return scores * self._coef  # type: ignore[attr-defined]
        if self.n_blocks == 1:
            return (scores @ self._coef)[:, None]  # type: ignore[attr-defined]
        weighted = (scores * self._coef)[:, self._order]  # type: ignore[attr-defined]
        return np.add.reduceat(weighted, self._starts, axis=1)  # type: ignore[attr-defined]

    def weighted_means(self, scores: np.ndarray) -> np.ndarray:
        """Benchmark-weighted means theta_hat_l = sum_i omega_i S_{l,i}."""
        if self._uniform:  # type: ignore[attr-defined]
            return np.asarray(scores, dtype=float).mean(axis=1)
        return np.asarray(scores, dtype=float) @ self.item_weight

    def to_state(self) -> dict[str, Any]:
        return {"resolution": self.resolution, "item_weight": self.item_weight, "item_block": self.item_block,
                "block_weight": self.block_weight, "block_labels": list(self.block_labels)}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> "BlockDesign":
        return cls(state["resolution"], np.asarray(state["item_weight"], dtype=float),
                   np.asarray(state["item_block"], dtype=np.int64), np.asarray(state["block_weight"], dtype=float),
                   tuple(state["block_labels"]))


def make_design(n_items: int, resolution: str, labels: Any = None, weights: Any = None,
                item_names: Any = None) -> BlockDesign:
    """Build and check a :class:`BlockDesign`.

    Parameters
    ----------
    n_items : number of benchmark items N.
    resolution : "singleton" (one block per item), "replicate" (one block) or "protocol" (``labels``).
    labels : for "protocol": a block label per item (length N).
    weights : item weights (length N, non-negative, summing to 1 within 1e-9); None means 1/N.
    item_names : used in error messages only.
    """
    if n_items < 1:
        raise DataError("the benchmark has no items")
    names = list(item_names) if item_names is not None else [str(i) for i in range(n_items)]
    if weights is None:
        omega = np.full(n_items, 1.0 / n_items)
    else:
        try:
            omega = np.asarray(weights, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            raise ParameterError(f"weights must be numbers, one per item, got {weights!r}") from None
        if omega.shape[0] != n_items:
            raise ParameterError(f"weights must have one entry per item ({n_items}), got {omega.shape[0]}")
        bad = ~np.isfinite(omega) | (omega < 0)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ParameterError(f"item weights must be non-negative numbers; item {names[i]!r} has {omega[i]!r}")
        total = float(omega.sum())
        if abs(total - 1.0) > 1e-9:
            raise ParameterError(f"item weights must sum to 1 (the benchmark-weighted mean), they sum to {total:.12g};"
                                 " divide them by their total if they are relative weights")
    if resolution == "singleton":
        pos = omega > 0
        item_block = np.full(n_items, -1, dtype=np.int64)
        item_block[pos] = np.arange(int(pos.sum()))
        return BlockDesign("singleton", omega, item_block, omega[pos].copy())
    if resolution == "replicate":
        return BlockDesign("replicate", omega, np.zeros(n_items, dtype=np.int64), np.array([1.0]))
    if resolution != "protocol":
        raise ParameterError(f"unknown block resolution {resolution!r}; valid: {', '.join(RESOLUTIONS)}")
    if labels is None:
        raise ParameterError("protocol blocks need a block label for every item")
    lab = [str(v) for v in labels]
    if len(lab) != n_items:
        raise ParameterError(f"blocks must give one block label per item ({n_items}), got {len(lab)}")
    uniq = list(dict.fromkeys(lab))
    index = {b: k for k, b in enumerate(uniq)}
    raw = np.array([index[b] for b in lab], dtype=np.int64)
    bw = np.bincount(raw, weights=omega, minlength=len(uniq))
    keep = bw > 0
    remap = np.full(len(uniq), -1, dtype=np.int64)
    remap[keep] = np.arange(int(keep.sum()))
    return BlockDesign("protocol", omega, remap[raw], bw[keep], tuple(u for u, k in zip(uniq, keep) if k))


# ------------------------------------------------------------------------------------------------ penalties

class PenaltyPlan:
    """How the squared-error penalty of a design is aggregated (see the module docstring).

    ``columns`` is a weight matrix W (M, J) and ``coef`` a (J, G) matrix such that the penalty of grid point
    g is sum_j coef[j, g] * Q_j with Q_j = sum_m W[m, j] (Y_m - Yhat_m)^2.  With K distinct block weights
    and K <= G, W holds class indicators (coef = psi(lambda_g w_k / w_*)); otherwise W = psi matrix and
    coef = identity, so J = min(K, G).
    """

    def __init__(self, design: BlockDesign, grid: np.ndarray, force_classes: bool = False) -> None:
        self.design = design
        ratio = design.class_weight / design.w_star  # (K,)
        K = ratio.shape[0]
        self.grid = grid
        self.classes = force_classes or K <= grid.shape[0]
        if self.classes:
            self.coef = psi_e(np.outer(ratio, grid))  # (K, G)
            self.members = [np.flatnonzero(design.block_class == k) for k in range(K)]
            self.weights = class_indicator(design)  # (M, K), for pair-by-pair sums
        else:
            self.coef = np.eye(grid.shape[0])
            self.weights = psi_e(np.outer(design.block_weight / design.w_star, grid))  # (M, G)


def _gram(a: np.ndarray) -> np.ndarray:
    """a @ a.T through BLAS syrk: half the flops of a general product, and (measured) far less sensitive to
    BLAS thread oversubscription than gemm on this problem shape."""
    a = np.ascontiguousarray(a, dtype=float)
    g = dsyrk(1.0, a.T, trans=1)  # a.T is Fortran-ordered: no copy; upper triangle of a @ a.T
    return np.triu(g) + np.triu(g, 1).T


def _combine(lin: np.ndarray, sq: np.ndarray, cross: np.ndarray, total: float, kappa: float) -> np.ndarray:
    """sum_m W_m (kappa + (u_a - u_b)/2)^2 for all ordered pairs from per-model sums."""
    quad = (sq[:, None] + sq[None, :] - 2.0 * cross) / 4.0
    out = total * kappa * kappa + kappa * (lin[:, None] - lin[None, :]) + quad
    return np.maximum(out, 0.0)


def squared_error_sums(u: np.ndarray, kappa: float, plan: PenaltyPlan) -> np.ndarray:
    """Q[a, b, j] = sum_m W[m, j] (kappa + (u_a,m - u_b,m)/2)^2 for all ordered model pairs: (L, L, J)."""
    L = u.shape[0]
    if plan.classes:
        J = len(plan.members)
        out = np.empty((L, L, J))
        for k, cols in enumerate(plan.members):
            uk = u if J == 1 else u[:, cols]
            out[:, :, k] = _combine(uk.sum(axis=1), np.einsum("ij,ij->i", uk, uk), _gram(uk), float(uk.shape[1]),
                                    kappa)
        return out
    W = plan.weights
    out = np.empty((L, L, W.shape[1]))
    u2 = u * u
    lin_all = u @ W
    sq_all = u2 @ W
    tot = W.sum(axis=0)
    root = np.sqrt(W)  # psi weights are >= 0, so sum_m W u_a u_b is the Gram matrix of u * sqrt(W)
    for j in range(W.shape[1]):
        out[:, :, j] = _combine(lin_all[:, j], sq_all[:, j], _gram(u * root[:, j]), float(tot[j]), kappa)
    return out


def pair_squared_error_sums(u: np.ndarray, a: np.ndarray, b: np.ndarray, kappa: float,
                            W: np.ndarray) -> np.ndarray:
    """Q[e, j] for a short list of directions (a[e] -> b[e]) with an explicit (M, J) weight matrix."""
    diff = kappa + (u[a] - u[b]) / 2.0
    return (diff * diff) @ W


def class_indicator(design: BlockDesign) -> np.ndarray:
    """(M, K) indicator matrix of the block weight classes."""
    ind = np.zeros((design.n_blocks, design.class_weight.shape[0]))
    ind[np.arange(design.n_blocks), design.block_class] = 1.0
    return ind


def mixture_log_factors(theta_diff: np.ndarray, Q: np.ndarray, plan: PenaltyPlan, tau: float) -> np.ndarray:
    """log F_{e,g} = (lambda_g / w_*) (theta_a - theta_b - tau)/2 - sum_j coef[j,g] Q[e,j]  (spec 04 §4 step 8).

    ``theta_diff`` has shape (E,), ``Q`` (E, J); returns (E, G).
    """
    lin = np.outer((theta_diff - tau) / 2.0, plan.grid / plan.design.w_star)
    return lin - Q @ plan.coef


def hoeffding_log_factors(theta_diff: np.ndarray, design: BlockDesign, grid: np.ndarray, tau: float) -> np.ndarray:
    """BFH-e-Holm: log F = sum_m [lambda_{g,m}(Y - mu0) - lambda_{g,m}^2 / 8]  (spec 04 §12, B7)."""
    ws = design.w_star
    pen = grid ** 2 / (8.0 * ws * ws) * float(np.sum(design.block_weight ** 2))
    return np.outer((theta_diff - tau) / 2.0, grid / ws) - pen[None, :]


def plugin_stake(s2: np.ndarray, r: int, w2: float, alpha: float) -> np.ndarray:
    """BB-EDGE-PI predictable stake lambda_r from the cumulative weighted squared errors up to r - 1 (B10)."""
    vhat = (w2 / 4.0 + s2) / r
    with np.errstate(divide="ignore"):
        lam = np.sqrt(2.0 * np.log(1.0 / alpha) / (vhat * r * np.log1p(r)))
    return np.minimum(0.5, lam)


def growth_stake(lin_sum: np.ndarray, s2: np.ndarray, design: BlockDesign) -> np.ndarray:
    """Predictable growth plug-in stake lambda_r per direction (``stake="plugin"``).

    ``lin_sum`` = sum over replicates s < r of sum_m (w_m / w_*)(Y_{e,m,s} - mu_0) = sum_s (theta_a - theta_b -
    tau)_s / (2 w_*), and ``s2`` = sum_{s<r} sum_m (w_m / w_*)^2 (Y - Yhat)^2: both F_{r-1}-measurable, so the
    stake is predictable and, used as lambda_{r,m} = lambda_r w_m / w_*, proportional to the block weights
    (spec 04 Proposition 1; the §5 supermartingale argument holds replicate by replicate for any predictable
    stake in [0, 1)).

    Why this formula: the expected log-growth of stake lambda is lambda a - sum_m psi_E(lambda w_m / w_*) v_m;
    since x r / (1 - x r) <= r x / (1 - x) for r <= 1, its derivative is >= a - W v lambda / (1 - lambda) with
    W v = sum_m (w_m / w_*)^2 v_m, whose root a / (a + W v) is the maximiser when all block weights are equal
    and a slightly cautious stake otherwise. The plug-in estimates a and W v by their running sums, each
    started with ``PLUGIN_PRIOR_N`` pseudo-replicates of drift ``PLUGIN_PRIOR_DRIFT`` and squared error
    ``PLUGIN_PRIOR_VAR`` per block (a quarter of the largest variance of a [0, 1] block mean), so the first
    stake is small but not zero. Nulls quickly get lambda_r = 0 (E stays put) once the running drift is <= 0.
    """
    ratio = design.block_weight / design.w_star
    n0 = PLUGIN_PRIOR_N
    a = n0 * PLUGIN_PRIOR_DRIFT * float(ratio.sum()) + lin_sum
    v = n0 * PLUGIN_PRIOR_VAR * float(np.sum(ratio * ratio)) + s2
    return np.clip(a / (np.maximum(a, 0.0) + v), 0.0, PLUGIN_CAP)


def kelly_stake(lin_sum: np.ndarray, s2: np.ndarray, design: BlockDesign,
                drift: float = PLUGIN_PRIOR_DRIFT) -> np.ndarray:
    """Predictable plug-in stake of the exact betting factor (``stake="plugin"``): clip(a / v, 0, 0.9).

    Same running sums and prior as :func:`growth_stake` (prior drift ``drift``). ``stake="plugin"`` averages
    the e-processes of the two drifts in :data:`PLUGIN_BETTING_DRIFTS` (a fixed mixture of e-processes is
    one): a bold first stake certifies single-run boards at r = 1, a cautious one does not lose the wealth
    of weak edges to the large prediction errors of small blocks early on; the average costs at most log 2.
    a / v is the maximiser of the second-order expansion
    lambda a - lambda^2 v / 2 of sum_m log(1 + lambda (w_m / w_*) xi_m) + lambda sum_m (w_m / w_*)(Yhat_m - mu_0),
    the log of the factor of :func:`~certirank.methods.bbedge.betting.betting_terms` (the plug-in of the
    growth-rate-adaptive bettors, aGRAPA / ONS).
    The cap keeps every block factor >= 0.1.
    """
    ratio = design.block_weight / design.w_star
    n0 = PLUGIN_PRIOR_N
    a = n0 * drift * float(ratio.sum()) + lin_sum
    v = n0 * PLUGIN_PRIOR_VAR * float(np.sum(ratio * ratio)) + s2
    return np.clip(a / v, 0.0, PLUGIN_CAP)


def plugin_step(theta_diff: np.ndarray, Qk: np.ndarray, lam: np.ndarray, design: BlockDesign,
                tau: float) -> np.ndarray:
    """log F_e for the plug-in variant with per-direction stakes ``lam`` and per-class error sums ``Qk`` (E, K)."""
    ratio = design.class_weight / design.w_star
    pen = (psi_e(np.outer(lam, ratio)) * Qk).sum(axis=1)
    return lam / design.w_star * (theta_diff - tau) / 2.0 - pen


def log_mixture(log_components: np.ndarray) -> np.ndarray:
    """log E = logsumexp_g(log rho_g + L_g) with uniform rho over the last axis."""
    G = log_components.shape[-1]
    return logsumexp(log_components, axis=-1) - np.log(G)
