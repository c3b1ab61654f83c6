"""Leaderboard baselines of spec 04 §12 on per-item score tables over replicates.

B1 EMR, B2 t-Holm, B3 CBTL, B4 SERPANT, B5 SERPANT-R, B6 BEB-Holm and B9 AsympCS-Bonf. (BFH-e-Holm,
CR-EDGE and BB-EDGE-PI are variants of BB-EDGE and live with it.) Each one is applied after a completed
replicate r to the panels 1..r and returns the certified directions a → b (claims Δ_ab > τ) as decisions.
With ``history=True`` the certified set after every replicate r = 1..R is recorded as well, which is what
the FWER_r / power_r metrics of spec 04 §13.5 need.

None of these is an anytime-valid FWER procedure under spec 04's assumptions: EMR has no error control,
t-Holm, CBTL, BEB-Holm and AsympCS-Bonf are fixed-time or asymptotic, SERPANT is valid only for
exchangeable items with a constant mean.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps
from scipy.special import expit

from .._validate import as_generator, check_alpha, check_choice, check_nonnegative, check_positive_int
from ..data.table import policies as table_policies
from ..data.table import validate_table
from ..errors import DataError, ParameterError
from ..multitest import holm_rejections
from ._result import BaselineResult, build_result
from .bradley_terry import bt_fit

__all__ = ["Panel", "as_panel", "emr", "t_holm", "cbtl", "serpant", "serpant_r", "beb_holm", "asympcs_bonf"]


@dataclass(frozen=True)
class Panel:
    """Complete panels ``scores[r, i, l]`` (replicate, item, model), item weights and block labels."""

    models: tuple[str, ...]
    items: tuple[str, ...]
    replicates: tuple[int, ...]
    scores: np.ndarray
    weights: np.ndarray
    blocks: tuple[str, ...] | None
    source: str | None = None

    @property
    def n_models(self) -> int:
        return len(self.models)

    @property
    def n_items(self) -> int:
        return len(self.items)

    @property
    def n_replicates(self) -> int:
        return len(self.replicates)


def as_panel(data: Any, *, format: str | None = None, score_range: tuple[float, float] | None = None) -> Panel:
    """Build complete replicate panels from a long score table (or a path to one).

    Every model must have a score for every item in every replicate (spec 04 §11); otherwise a
    :class:`~certirank.errors.DataError` names a missing cell.
    """
    if isinstance(data, Panel):
        return data
    source = None
    if isinstance(data, (str, bytes)) or hasattr(data, "__fspath__"):
        from ..data.readers import load

        source = str(data)
        data = load(data, format=format, score_range=score_range)
    if not isinstance(data, pd.DataFrame):
        raise DataError(f"expected a per-item score table or a path, got {type(data).__name__}")
    if "policy_a" in data.columns:
        raise DataError("leaderboard baselines need per-item scores (model, item, replicate, score), not a "
                        "preference table", source=source or data.attrs.get("source"))
    table = data if all(c in data.columns for c in ("policy", "env", "replicate", "score", "order")) and \
        score_range is None else validate_table(data, score_range=score_range, source=source)
    source = source or table.attrs.get("source")
    if table["env"].isna().any():
        raise DataError("leaderboard baselines need an item column (env / item / task) naming the benchmark item "
                        "of every score", source=source)
    models = table_policies(table)
    if len(models) < 2:
        raise DataError(f"need at least two models, found {len(models)}", source=source)
    items = list(dict.fromkeys(table["env"].tolist()))
    reps = sorted(set(table["replicate"].tolist()))
    mi = {m: k for k, m in enumerate(models)}
    ii = {m: k for k, m in enumerate(items)}
    ri = {m: k for k, m in enumerate(reps)}
    s = np.full((len(reps), len(items), len(models)), np.nan)
    s[[ri[v] for v in table["replicate"]], [ii[v] for v in table["env"]], [mi[v] for v in table["policy"]]] = \
        table["score"].to_numpy(dtype=float)
    if np.isnan(s).any():
        r, i, m = (int(v[0]) for v in np.nonzero(np.isnan(s)))
        raise DataError(f"incomplete panel: model {models[m]!r} has no score for item {items[i]!r} in replicate "
                        f"{reps[r]} ({int(np.isnan(s).sum())} missing cells); every model must be scored on every "
                        "item in every replicate", source=source)
    if "weight" in table.columns:
        per = table.groupby("env", sort=False)["weight"].agg(["min", "max"]).reindex(items)
        if (per["min"] != per["max"]).any():
            bad = per.index[(per["min"] != per["max"]).to_numpy()][0]
            raise DataError(f"item {bad!r} has different weights in different rows", source=source, column="weight")
        w = per["min"].to_numpy(dtype=float)
        if w.sum() <= 0:
            raise DataError("item weights sum to zero", source=source, column="weight")
        w = w / w.sum()
    else:
        w = np.full(len(items), 1.0 / len(items))
    blocks = None
    if "block" in table.columns:
        blocks = tuple(table.groupby("env", sort=False)["block"].first().reindex(items).astype(str).tolist())
    return Panel(tuple(models), tuple(items), tuple(reps), s, w, blocks, source)


# --------------------------------------------------------------------------------------------------
# shared pieces
# --------------------------------------------------------------------------------------------------

def _directions(n: int) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.nonzero(~np.eye(n, dtype=bool))
    return a, b


def _holm(p: np.ndarray, alpha: float) -> np.ndarray:
    return holm_rejections(p, alpha)


def _weighted_means(panel: Panel, r: int) -> np.ndarray:
    return panel.weights @ panel.scores[:r].mean(axis=0)


def _block_design(panel: Panel, blocks: str) -> tuple[np.ndarray, np.ndarray]:
    """Block index per item and block weights w_m (blocks with zero weight dropped)."""
    choice = check_choice("blocks", blocks, ["auto", "items", "singleton", "protocol", "replicate"])
    if choice == "auto":
        choice = "protocol" if panel.blocks is not None else "items"
    if choice == "protocol":
        if panel.blocks is None:
            raise ParameterError("blocks='protocol' needs a 'block' column in the data")
        labels = list(dict.fromkeys(panel.blocks))
        idx = np.array([labels.index(b) for b in panel.blocks])
    elif choice == "replicate":
        idx = np.zeros(panel.n_items, dtype=int)
    else:
        idx = np.arange(panel.n_items)
    wm = np.bincount(idx, weights=panel.weights)
    return idx, wm


def _run(method: str, panel: Panel, alpha: float | None, tau: float, replicates: int | None, history: bool,
         step: Callable[[int], tuple[np.ndarray, dict[str, np.ndarray]]], guarantee: str,
         scores: Callable[[int], np.ndarray] | None = None,
         details: dict[str, Any] | None = None) -> BaselineResult:
    r_max = panel.n_replicates if replicates is None else check_positive_int("replicates", replicates)
    if r_max > panel.n_replicates:
        raise ParameterError(f"replicates={r_max} but the data has only {panel.n_replicates} replicate(s)")
    names = panel.models
    hist = None
    if history:
        hist = []
        for r in range(1, r_max + 1):
            cert, _ = step(r)
            hist.append({"replicate": r, "edges": [[names[i], names[j]] for i, j in zip(*np.nonzero(cert))]})
    cert, stats = step(r_max)
    edges = []
    for i, j in zip(*np.nonzero(cert)):
        info = {k: float(v[i, j]) for k, v in stats.items()}
        info["replicate"] = r_max
        edges.append((int(i), int(j), info))
    means = _weighted_means(panel, r_max)
    sc = means if scores is None else scores(r_max)
    det = {"tau": tau, "replicates_used": r_max, "n_items": panel.n_items, "means_kind": "weighted mean score"}
    det.update(details or {})
    return build_result(method=method, alpha=alpha, policies=names, edges=edges, scores=sc, means=means,
                        n=r_max * panel.n_items * panel.n_models, guarantee=guarantee, details=det, history=hist)


def _common(data: Any, alpha: Any, tau: Any, read: dict[str, Any]) -> tuple[Panel, float, float]:
    panel = as_panel(data, **read)
    alpha = check_alpha(alpha)
    tau = check_nonnegative("tau", tau)
    if tau >= 1:
        raise ParameterError(f"tau must be < 1, got {tau}")
    return panel, alpha, tau


# --------------------------------------------------------------------------------------------------
# B1 EMR
# --------------------------------------------------------------------------------------------------

def emr(data: Any, *, alpha: float = 0.05, tau: float = 0.0, replicates: int | None = None, history: bool = False,
        **read: Any) -> BaselineResult:
    """B1 empirical-mean ranking: certify a → b iff θ̂_a − θ̂_b > τ (no uncertainty at all).

    ``alpha`` is only recorded: EMR ignores it, which is why its FWER goes to 1 on tied pairs.
    """
    panel, alpha, tau = _common(data, alpha, tau, read)

    def step(r: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        m = _weighted_means(panel, r)
        diff = m[:, None] - m[None, :]
        return diff > tau, {"difference": diff}

    return _run("emr", panel, alpha, tau, replicates, history, step,
                "none: orders every pair by its empirical mean; no error control (FWER -> 1 with tied pairs)")


# --------------------------------------------------------------------------------------------------
# B2 t-Holm
# --------------------------------------------------------------------------------------------------

def t_holm(data: Any, *, alpha: float = 0.05, tau: float = 0.0, replicates: int | None = None,
           history: bool = False, **read: Any) -> BaselineResult:
    """B2 paired t-tests over items with Holm over all L(L−1) directions (fixed-time, reconstruction).

    Per item d_i = mean over replicates ≤ r of S^a − S^b; t = (Σ ω_i d_i − τ)/(s_d/√N), s_d the sample SD
    of (d_i); one-sided p from t with N − 1 degrees of freedom.
    """
    panel, alpha, tau = _common(data, alpha, tau, read)
    n = panel.n_items
    a, b = _directions(panel.n_models)
    if n < 2:
        raise DataError("t-Holm needs at least two items")

    def step(r: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        mean_i = panel.scores[:r].mean(axis=0)  # (N, L)
        d = mean_i[:, a] - mean_i[:, b]  # (N, D)
        dbar = panel.weights @ d
        sd = d.std(axis=0, ddof=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (dbar - tau) / (sd / np.sqrt(n))
            p = sps.t.sf(t, n - 1)
        p = np.where(sd > 0, p, np.where(dbar > tau, 0.0, 1.0))
        rej = _holm(p, alpha)
        shape = (panel.n_models, panel.n_models)
        cert, pm, tm, dm = np.zeros(shape, bool), np.ones(shape), np.zeros(shape), np.zeros(shape)
        cert[a, b], pm[a, b], tm[a, b], dm[a, b] = rej, p, np.where(sd > 0, t, np.nan), dbar
        return cert, {"p_value": pm, "statistic": tm, "difference": dm}

    return _run("t-holm", panel, alpha, tau, replicates, history, step,
                "fixed-time FWER <= alpha only if item differences are i.i.d. and roughly normal, at one "
                "prespecified replicate count; not anytime-valid")


# --------------------------------------------------------------------------------------------------
# B6 BEB-Holm
# --------------------------------------------------------------------------------------------------

def maurer_pontil_pvalue(sample: np.ndarray, mu0: float) -> np.ndarray:
    """Maurer–Pontil empirical-Bernstein p-value for H: mean ≤ mu0, per column of ``sample`` (n × K)."""
    n = sample.shape[0]
    if n < 2:
        return np.ones(sample.shape[1])
    ybar = sample.mean(axis=0)
    v = sample.var(axis=0, ddof=1)
    aa = 7.0 / (3.0 * (n - 1))
    bb = np.sqrt(2.0 * v / n)
    c = ybar - mu0
    pos = c > 0
    s_star = (-bb + np.sqrt(bb ** 2 + 4.0 * aa * np.maximum(c, 0.0))) / (2.0 * aa)
    return np.where(pos, np.minimum(1.0, 2.0 * np.exp(-s_star ** 2)), 1.0)


def beb_holm(data: Any, *, alpha: float = 0.05, tau: float = 0.0, replicates: int | None = None,
             history: bool = False, blocks: str = "auto", **read: Any) -> BaselineResult:
    """B6 fixed-time empirical-Bernstein (Maurer–Pontil) p-values with Holm over L(L−1) directions.

    The sample is the r·M block means Y_{e,m,s} when all block weights are equal, else the r replicate
    means; ``blocks`` is ``auto`` (the data's block column, else one block per item), ``items``,
    ``protocol`` or ``replicate``.
    """
    panel, alpha, tau = _common(data, alpha, tau, read)
    idx, wm = _block_design(panel, blocks)
    a, b = _directions(panel.n_models)
    mu0 = (1.0 + tau) / 2.0
    equal = np.allclose(wm, wm[0])
    # per-item weight inside its block: Y_m = (1/w_m) Σ_{i∈m} ω_i X_i
    inner = panel.weights / wm[idx]
    onehot = np.zeros((panel.n_items, wm.size))
    onehot[np.arange(panel.n_items), idx] = inner

    def step(r: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        x = (1.0 + panel.scores[:r][:, :, a] - panel.scores[:r][:, :, b]) / 2.0  # (r, N, D)
        y = np.einsum("rnd,nm->rmd", x, onehot)  # (r, M, D)
        sample = y.reshape(-1, a.size) if equal else np.einsum("rmd,m->rd", y, wm)
        p = maurer_pontil_pvalue(sample, mu0)
        rej = _holm(p, alpha)
        shape = (panel.n_models, panel.n_models)
        cert, pm = np.zeros(shape, bool), np.ones(shape)
        cert[a, b], pm[a, b] = rej, p
        return cert, {"p_value": pm}

    return _run("beb-holm", panel, alpha, tau, replicates, history, step,
                "fixed-time FWER <= alpha at one prespecified replicate count (valid per r, not over r); "
                "assumes the blocks are independent within a replicate",
                details={"blocks": int(wm.size), "sample": "block means" if equal else "replicate means"})


# --------------------------------------------------------------------------------------------------
# B9 AsympCS-Bonf
# --------------------------------------------------------------------------------------------------

def asympcs_bonf(data: Any, *, alpha: float = 0.05, tau: float = 0.0, replicates: int | None = None,
                 history: bool = False, r_star: float = 10.0, **read: Any) -> BaselineResult:
    """B9 asymptotic confidence sequences (Waudby-Smith et al. 2024) with Bonferroni over L(L−1) directions.

    Replicate stream D_s = Σ_i ω_i (S^a − S^b); the two-sided CS at α' = α/(L(L−1)) tuned at r* is used
    one-sidedly: certify a → b iff its lower bound exceeds τ (r ≥ 2).
    """
    panel, alpha, tau = _common(data, alpha, tau, read)
    r_star = check_nonnegative("r_star", r_star)
    a, b = _directions(panel.n_models)
    ap = alpha / a.size
    rho2 = (-2.0 * np.log(ap) + np.log(-2.0 * np.log(ap) + 1.0)) / r_star
    wmeans = np.einsum("n,rnl->rl", panel.weights, panel.scores)  # (R, L)

    def step(r: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        shape = (panel.n_models, panel.n_models)
        cert, lb = np.zeros(shape, bool), np.full(shape, -np.inf)
        if r >= 2:
            d = wmeans[:r, a] - wmeans[:r, b]
            dbar = d.mean(axis=0)
            sd = d.std(axis=0, ddof=1)
            width = sd * np.sqrt(2.0 * (r * rho2 + 1.0) / (r * r * rho2) * np.log(np.sqrt(r * rho2 + 1.0) / ap))
            lb[a, b] = dbar - width
            cert[a, b] = dbar - width > tau
        return cert, {"lower_bound": lb}

    return _run("asympcs-bonf", panel, alpha, tau, replicates, history, step,
                "asymptotic time-uniform coverage only (Bonferroni over directions); no finite-sample "
                "FWER guarantee", details={"r_star": r_star})


# --------------------------------------------------------------------------------------------------
# B4 / B5 SERPANT and SERPANT-R
# --------------------------------------------------------------------------------------------------

def agrapa_log_wealth(z: np.ndarray, m: float, c: float = 0.5) -> np.ndarray:
    """log M_t of the one-sided aGRAPA bettor (spec 01 §5.1) for each column of ``z`` (T × K).

    The stakes depend only on past data, so every quantity is a cumulative sum: no Python loop over t.
    """
    t_n = z.shape[0]
    t_idx = np.arange(1, t_n + 1, dtype=float)[:, None]
    mu = (0.5 + np.cumsum(z, axis=0)) / (t_idx + 1.0)  # μ̂_t, includes Z_t
    var = (0.25 + np.cumsum((z - mu) ** 2, axis=0)) / (t_idx + 1.0)
    mu_prev = np.vstack([np.full((1, z.shape[1]), 0.5), mu[:-1]])
    var_prev = np.vstack([np.full((1, z.shape[1]), 0.25), var[:-1]])
    gap = mu_prev - m
    lam = np.clip(gap / (var_prev + gap ** 2), 0.0, c / m)
    return np.cumsum(np.log1p(lam * (z - m)), axis=0)


def _e_holm_rows(log_e: np.ndarray, alpha: float) -> np.ndarray:
    """Direct e-Holm (spec 02 C.1) applied to every row of ``log_e`` at once (same rule as multitest.e_holm)."""
    inv = 1.0 / alpha
    below = log_e < np.log(inv)
    lin = np.exp(np.where(below, log_e, 0.0))
    c = inv + np.where(below, inv - lin, 0.0).sum(axis=1, keepdims=True)
    return ~below & (log_e >= np.log(c))


def _serpant(data: Any, alpha: float, tau: float, replicates: int | None, history: bool, c: float,
             per_item: bool, read: dict[str, Any]) -> BaselineResult:
    panel, alpha, tau = _common(data, alpha, tau, read)
    r_max = panel.n_replicates if replicates is None else check_positive_int("replicates", replicates)
    r_max = min(r_max, panel.n_replicates)
    a, b = _directions(panel.n_models)
    n = panel.n_items
    s = panel.scores[:r_max]
    z = ((1.0 + s[:, :, a] - s[:, :, b]) / 2.0).reshape(r_max * n, a.size)  # replicate, then item order
    mu0 = (1.0 + tau) / 2.0
    log_e = agrapa_log_wealth(z, mu0, c)
    ends = np.arange(1, r_max + 1) * n - 1
    names = panel.models
    shape = (panel.n_models, panel.n_models)
    if per_item:
        cert_t = _e_holm_rows(log_e, alpha)
        ever = np.logical_or.accumulate(cert_t, axis=0)[ends]
        at_end = cert_t[ends]
    else:
        at_end = _e_holm_rows(log_e[ends], alpha)
        ever = np.logical_or.accumulate(at_end, axis=0)
    hist = None
    if history:
        hist = []
        for r in range(r_max):
            hist.append({"replicate": r + 1, "edges": [[names[a[k]], names[b[k]]] for k in np.flatnonzero(at_end[r])],
                         "ever_edges": [[names[a[k]], names[b[k]]] for k in np.flatnonzero(ever[r])]})

    def step(r: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        cert, le = np.zeros(shape, bool), np.zeros(shape)
        cert[a, b] = at_end[r - 1]
        le[a, b] = log_e[ends[r - 1]]
        return cert, {"log_e": le}

    guarantee = ("anytime FWER <= alpha (over item times) only if items are exchangeable with a constant mean; "
                 "fails under item heterogeneity or within-block dependence") if per_item else \
        ("SERPANT's e-processes checked only at completed replicates; same exchangeability assumption")
    result = _run("serpant" if per_item else "serpant-r", panel, alpha, tau, r_max, False, step, guarantee,
                  details={"c": c, "stream": "items in index order within each replicate"})
    return _with_history(result, hist)


def _with_history(result: BaselineResult, hist: list[dict[str, Any]] | None) -> BaselineResult:
    import dataclasses

    return dataclasses.replace(result, history=hist)


def serpant(data: Any, *, alpha: float = 0.05, tau: float = 0.0, replicates: int | None = None,
            history: bool = False, c: float = 0.5, **read: Any) -> BaselineResult:
    """B4 SERPANT: per-direction item-stream aGRAPA e-processes, direct e-Holm after every item.

    The reported edges are the certified set after the last item of replicate r; ``history`` entries also
    carry ``ever_edges``, every direction certified at any item time so far (what FWER counts).
    """
    return _serpant(data, alpha, tau, replicates, history, c, True, read)


def serpant_r(data: Any, *, alpha: float = 0.05, tau: float = 0.0, replicates: int | None = None,
              history: bool = False, c: float = 0.5, **read: Any) -> BaselineResult:
    """B5 SERPANT-R: SERPANT's e-processes with direct e-Holm only at completed replicates."""
    return _serpant(data, alpha, tau, replicates, history, c, False, read)


# --------------------------------------------------------------------------------------------------
# B3 CBTL
# --------------------------------------------------------------------------------------------------

def cbtl(data: Any, *, alpha: float = 0.05, tau: float = 0.0, replicates: int | None = None,
         history: bool = False, n_boot: int = 1000, seed: Any = 0, chunk: int = 200, **read: Any) -> BaselineResult:
    """B3 CBTL (Wang et al. 2024, adapted): BTL on per-(item, replicate) pairwise wins with a clustered
    Gaussian multiplier bootstrap for simultaneous intervals; certify a → b iff u_a − u_b > q·se_ab.

    Its estimand is preference strength, not the mean score; fixed-time. ``tau`` is recorded but, as in the
    recipe, not used (u lives on the log-strength scale).
    """
    panel, alpha, tau = _common(data, alpha, tau, read)
    n_boot = check_positive_int("n_boot", n_boot)
    seed_root = seed if isinstance(seed, np.random.Generator) else np.random.SeedSequence(seed)
    models = panel.n_models
    iu = np.triu_indices(models, 1)

    def fit(r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        s = panel.scores[:r].reshape(-1, models)  # clusters = (replicate, item)
        beats = s[:, :, None] > s[:, None, :]  # (C, L, L): a beat b in the cluster
        wins = beats.sum(axis=0).astype(float)
        has_w = wins.sum(axis=1) > 0
        has_l = wins.sum(axis=0) > 0
        from .bradley_terry import _strongly_connected

        pseudo = 0.0 if (has_w.all() and has_l.all() and _strongly_connected(wins)) else 0.01
        u, _ = bt_fit(wins, pseudo_count=pseudo)
        diff = u[:, None] - u[None, :]
        pw = expit(diff)  # P(a beats b)
        n_ab = wins + wins.T
        h = -(n_ab * pw * (1 - pw))
        np.fill_diagonal(h, 0.0)
        np.fill_diagonal(h, -h.sum(axis=1))
        sigma = np.linalg.pinv(h)
        dv = np.diag(sigma)
        se = np.sqrt(np.maximum(dv[:, None] + dv[None, :] - 2 * sigma, 0.0))
        q_ab = expit(-diff)  # 1 − p_c for a winner a over loser b
        g = np.einsum("cab,ab->ca", beats, q_ab) - np.einsum("cba,ba->ca", beats, q_ab)
        return u, se, sigma, g

    def step(r: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        u, se, sigma, g = fit(r)
        # a fresh stream per call for int seeds, so the result at r does not depend on history=True
        rng = as_generator(seed_root)
        tstar = np.empty(n_boot)
        se_u = se[iu]
        ok = se_u > 0
        for start in range(0, n_boot, chunk):
            k = min(chunk, n_boot - start)
            xi = rng.standard_normal((k, g.shape[0]))
            ustar = (xi @ g) @ sigma.T
            dd = np.abs(ustar[:, iu[0]] - ustar[:, iu[1]])[:, ok] / se_u[ok]
            tstar[start:start + k] = dd.max(axis=1) if dd.shape[1] else 0.0
        q = float(np.quantile(tstar, 1 - alpha))
        diff = u[:, None] - u[None, :]
        cert = (diff - q * se > 0) & (se > 0)
        np.fill_diagonal(cert, False)
        return cert, {"difference": diff, "se": se, "critical": np.full_like(diff, q)}

    def scores(r: int) -> np.ndarray:
        return fit(r)[0]

    return _run("cbtl", panel, alpha, tau, replicates, history, step,
                "fixed-time, asymptotic simultaneous intervals for Bradley–Terry log-strengths (preference "
                "strength), not for mean scores", scores=scores,
                details={"n_boot": n_boot, "score": "centred BTL log-strength"})
