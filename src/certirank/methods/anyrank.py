"""AnyRank: sequential, active, prior-informed policy ranking with family-wise error control (spec 03).

Public entry points
-------------------
``Ranker(policies, alpha=0.05, prior=None, gamma=1.0, nmax=None, method="anyrank", ties="allow", ...)``
    The live engine: ``suggest()`` -> the (policy, trial_index) runs needed next, ``record(policy,
    trial_index, score)``, ``result()``, ``done``, ``to_json()`` / ``Ranker.from_json()`` (resumes bit for
    bit), ``save(path)`` / ``Ranker.load(path)``.
``anyrank(data, alpha=0.05, method="anyrank", prior=None, gamma=1.0, nmax=None, ties="allow", ...)``
    Replay over recorded trials, in recorded order (wide per-trial tables, long tables with env or order).
``run_campaign(scores, ...)`` / ``run_campaigns(scores, ...)``
    Fast path for simulation studies: one campaign (or a batch of campaigns) over pre-drawn score tables,
    optionally with the per-iteration trajectory of total samples.

All of them run the same engine (:class:`_Campaign`): one hypothesis per unordered pair of policies, a
pre-registered graph (spec 02 Part B) fixed before any data, active sampling of the "advantaged"
comparisons (those whose current local level is maximal), per-hypothesis counters reading trials that are
shared across hypotheses, online Bretz updates (:class:`certirank.multitest.Graph`), and transitive closure.

Two guarantees (``guarantee=``):

``"paper"`` (default)
    The AnyRank pair-level procedure of the paper (spec 03 §10 items 1-3): ties are controlled by a proof
    (with ``ties="allow"``), reversals under level recycling as in the paper's Theorem 1 and by simulation.
``"strict"``
    The directional graph of spec 03 §10 item 4: 2K one-sided nodes, every wrong ordering (ties and
    reversals) provably controlled at alpha under any dependence and any sampling rule. The prior, when
    given, decides how each pair's level is split between its two directions (``direction_split``). Each
    direction is tested on its own one-sided p-value at its own level, so ``ties`` has no effect here.

Engine speed: replay and simulations precompute each hypothesis's p-process lazily, in blocks, with one
vectorised evidence bank (:class:`certirank.evidence.streams.PairedStreams`), and jump from event to event
(a rejection, a budget or the end of the data) instead of stepping iteration by iteration. The live engine
steps one iteration at a time through the same bank. Both run literally the same arithmetic, so they give
identical results (tested).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._io import atomic_write_text
from .._validate import check_alpha, check_choice, check_nonnegative, check_positive_int
from ..errors import DataError, ParameterError, StateError
from ..evidence.streams import PairedStreams, combine
from ..multitest.graphical import Graph, passes
from ..multitest.graphs import (
    bonferroni,
    fixed_sequence,
    from_prior,
    pair_gaps,
    prior_order,
    weighted_bonferroni_from_prior,
)
from ..order.closure import minimax_times
from ..results import ResultMixin

__all__ = [
    "METHODS",
    "GUARANTEES",
    "TERMINATIONS",
    "RankingResult",
    "Ranker",
    "anyrank",
    "run_campaign",
    "run_campaigns",
]

METHODS = ("anyrank", "anyrank0", "anyrank-inf", "bonferroni", "weighted-bonferroni")
RECYCLING = ("anyrank", "anyrank0", "anyrank-inf")
GUARANTEES = ("paper", "strict")
TIES = ("allow", "assume_none")
GRAPHS = ("soft_masked", "fully_connected")
METRICS = ("progress", "binary")
PAIRINGS = ("by_row", "by_order")
BETTORS = ("nscore", "bernoulli_kelly", "agrapa", "ons", "prpl_eb", "hoeffding")

COMPLETE = "complete ranking"
EXHAUSTED = "budget or data exhausted"
NO_LEVEL = "no level left on active hypotheses"
STOPPED = "stopped by user"
TERMINATIONS = (COMPLETE, EXHAUSTED, NO_LEVEL, STOPPED)

FORMAT = "certirank.anyrank.v1"
LIVE_NMAX = 5000
ADVANTAGE_TOL = 1e-8
DIRECTION_SPLIT = 0.75
# p-process paths are computed in blocks of this many pairs (doubling), so a replay or a simulation
# computes little beyond the point where the campaign stops
_BLOCK = 64

# node direction codes: a pair-level node (paper guarantee) may decide either way; strict nodes are one-sided
_EITHER, _J_BETTER, _I_BETTER = 0, 1, 2


# ================================================================================================ config

def _canon_method(method: Any) -> str:
    return check_choice("method", method, METHODS)


def _canon_ties(ties: Any) -> str:
    if isinstance(ties, str):
        key = ties.strip().lower().replace("-", "_")
        if key in ("ranking",):
            return "allow"
        if key in ("assume_no_ties",):
            return "assume_none"
    return check_choice("ties", ties, TIES)


@dataclass(frozen=True)
class _Setup:
    """Every parameter that defines the pre-registered procedure (spec 03 §2); hashed for the config lock."""

    policies: tuple[str, ...]
    alpha: float
    method: str = "anyrank"
    prior: tuple[float, ...] | None = None
    gamma: float = 1.0
    graph: str = "soft_masked"
    forward_fraction: float = 0.9
    ties: str = "allow"
    guarantee: str = "paper"
    direction_split: float = DIRECTION_SPLIT
    bettor: str = "nscore"
    metric: str = "progress"
    nmax: int = LIVE_NMAX
    transitive_closure: bool = True
    advantage_tol: float = ADVANTAGE_TOL

    @property
    def m(self) -> int:
        return len(self.policies)

    def locked(self) -> dict[str, Any]:
        """The fields that define the graph and the tests (nmax may grow: stopping is free)."""
        d = self.to_dict()
        d.pop("nmax")
        return d

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["policies"] = list(self.policies)
        d["prior"] = None if self.prior is None else list(self.prior)
        return d

    def sha256(self) -> str:
        text = json.dumps(self.locked(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


#: largest policy set the pairwise graph is built for (see _check_policies)
MAX_POLICIES = 100


def _check_policies(policies: Any) -> tuple[str, ...]:
    if isinstance(policies, str) or not hasattr(policies, "__iter__"):
        raise ParameterError(f"policies must be a list of policy names, got {policies!r}")
    names = [str(p).strip() for p in policies]
    if any(not n for n in names):
        raise ParameterError("policy names must be non-empty")
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ParameterError(f"policy names must be unique; repeated: {', '.join(dup)}")
    if len(names) < 2:
        raise ParameterError(f"ranking needs at least two policies, got {len(names)}"
                             + (f" ({names[0]})" if names else ""))
    if len(names) > MAX_POLICIES:
        # the graph over K = M(M-1)/2 pairs holds K x K transitions: 100 policies = 4950 pairs = 0.2 GB
        raise ParameterError(f"AnyRank ranks at most {MAX_POLICIES} policies (got {len(names)}): its graph grows "
                             "as the fourth power of the number of policies; for many models use "
                             "`certirank leaderboard` (BB-EDGE)")
    return tuple(names)


def _check_prior(prior: Any, policies: tuple[str, ...]) -> tuple[float, ...] | None:
    """Prior means per policy: a mapping {policy: mean} naming exactly the policies, or a sequence in policy
    order. Values must be finite (any real scale: only differences are used)."""
    if prior is None:
        return None
    if isinstance(prior, pd.Series):
        prior = prior.to_dict()
    if isinstance(prior, Mapping):
        keys = [str(k) for k in prior]
        extra = [k for k in keys if k not in policies]
        missing = [p for p in policies if p not in keys]
        if extra or missing:
            parts = []
            if extra:
                parts.append(f"prior names {', '.join(extra)}, which {'is' if len(extra) == 1 else 'are'} not "
                             "among the policies")
            if missing:
                parts.append(f"prior has no value for {', '.join(missing)}")
            raise ParameterError("; ".join(parts) + f" (policies: {', '.join(policies)})")
        vals = [prior[k] if k in prior else prior[next(x for x in prior if str(x) == k)] for k in policies]
    else:
        if isinstance(prior, str):
            raise ParameterError(f"prior must be a mapping policy -> mean or a list of means, got {prior!r}")
        vals = list(prior)
        if len(vals) != len(policies):
            raise ParameterError(f"prior has {len(vals)} values for {len(policies)} policies; give one prior mean "
                                 "per policy (or a mapping policy -> mean)")
    out = []
    for p, v in zip(policies, vals):
        try:
            f = float(v)
        except (TypeError, ValueError):
            raise ParameterError(f"prior mean of {p} must be a number, got {v!r}") from None
        if not math.isfinite(f):
            raise ParameterError(f"prior mean of {p} must be finite, got {v!r}")
        out.append(f)
    return tuple(out)


def _make_setup(policies: Any, alpha: float, method: str, prior: Any, gamma: float, nmax: Any, ties: str,
                guarantee: str, *, graph: str = "soft_masked", forward_fraction: float = 0.9,
                direction_split: float = DIRECTION_SPLIT, bettor: str = "nscore", metric: str = "progress",
                transitive_closure: bool = True, advantage_tol: float = ADVANTAGE_TOL,
                default_nmax: int = LIVE_NMAX) -> _Setup:
    pols = _check_policies(policies)
    alpha = check_alpha(alpha)
    method = _canon_method(method)
    gamma = check_nonnegative("gamma", gamma)
    ties = _canon_ties(ties)
    guarantee = check_choice("guarantee", guarantee, GUARANTEES)
    graph = check_choice("graph", graph, GRAPHS)
    metric = check_choice("metric", metric, METRICS)
    bettor = check_choice("bettor", bettor, BETTORS)
    ff = check_nonnegative("forward_fraction", forward_fraction)
    if ff > 1:
        raise ParameterError(f"forward_fraction must be in [0, 1], got {forward_fraction!r}")
    q = check_nonnegative("direction_split", direction_split)
    if not 0.5 <= q < 1:
        raise ParameterError(f"direction_split must be in [0.5, 1) (share of a pair's level given to the "
                             f"direction the prior predicts), got {direction_split!r}")
    tol = check_nonnegative("advantage_tol", advantage_tol)
    nmax = default_nmax if nmax is None else check_positive_int("nmax", nmax)
    return _Setup(policies=pols, alpha=alpha, method=method, prior=_check_prior(prior, pols), gamma=gamma,
                  graph=graph, forward_fraction=ff, ties=ties, guarantee=guarantee, direction_split=q,
                  bettor=bettor, metric=metric, nmax=nmax, transitive_closure=bool(transitive_closure),
                  advantage_tol=tol)


_OPTIONS = ("graph", "forward_fraction", "direction_split", "bettor", "metric", "transitive_closure", "advantage_tol")


def _check_options(options: Mapping[str, Any]) -> dict[str, Any]:
    extra = sorted(set(options) - set(_OPTIONS))
    if extra:
        raise ParameterError(f"unknown option(s) {', '.join(extra)}; AnyRank options are: {', '.join(_OPTIONS)}")
    return dict(options)


def _setup_from_dict(d: Mapping[str, Any]) -> _Setup:
    try:
        return _make_setup(d["policies"], d["alpha"], d["method"], d["prior"], d["gamma"], d["nmax"], d["ties"],
                           d["guarantee"], graph=d["graph"], forward_fraction=d["forward_fraction"],
                           direction_split=d["direction_split"], bettor=d["bettor"], metric=d["metric"],
                           transitive_closure=d["transitive_closure"], advantage_tol=d["advantage_tol"])
    except KeyError as exc:
        raise ParameterError(f"saved AnyRank config is missing the field {exc.args[0]!r}") from None


# ================================================================================================ graph

@dataclass
class _Design:
    """The pre-registered multiplicity design: pairs, processing order and the node graph."""

    pairs: np.ndarray          # (K, 2) policy indices (i < j), hypothesis index order = lexicographic
    rank: np.ndarray           # (K,) position of each pair in the processing order (prior gap descending)
    order: np.ndarray          # (K,) pair indices in processing order
    graph: Graph               # nodes: K (paper) or 2K (strict, node 2k = "j better", 2k+1 = "i better")
    node_pair: np.ndarray      # (nodes,)
    node_dir: np.ndarray       # (nodes,) _EITHER / _J_BETTER / _I_BETTER
    pair_graph: Graph          # the pair-level graph of spec 02 Part B (== graph in paper mode)


def _design(s: _Setup) -> _Design:
    m = s.m
    pairs, d = pair_gaps(s.prior if s.prior is not None else np.zeros(m))
    k = len(pairs)
    gaps = d if s.prior is not None else None
    if s.method == "anyrank":
        g = from_prior(gaps, s.gamma, s.graph, forward_fraction=s.forward_fraction, m=k)
    elif s.method == "anyrank0":
        g = from_prior(gaps, 0.0, s.graph, forward_fraction=s.forward_fraction, m=k)
    elif s.method == "anyrank-inf":
        g = fixed_sequence(k, order=None if gaps is None else prior_order(gaps))
    elif s.method == "bonferroni":
        g = bonferroni(k)
    else:  # weighted-bonferroni
        g = bonferroni(k) if gaps is None else weighted_bonferroni_from_prior(gaps, s.gamma)
    order = np.arange(k) if gaps is None else prior_order(gaps)
    rank = np.empty(k, dtype=np.int64)
    rank[order] = np.arange(k)
    pairs_arr = np.array(pairs, dtype=np.int64).reshape(k, 2)
    if s.guarantee == "paper":
        return _Design(pairs_arr, rank, np.asarray(order), g, np.arange(k), np.full(k, _EITHER), g)
    # strict: split each pair's level between its two one-sided nodes (spec 03 §10 item 4)
    share = np.full((k, 2), 0.5)  # columns: node "j better" (p_less), node "i better" (p_more)
    if s.prior is not None:
        mu = np.asarray(s.prior)
        q = s.direction_split
        for idx, (i, j) in enumerate(pairs):
            if mu[j] > mu[i]:
                share[idx] = (q, 1 - q)
            elif mu[i] > mu[j]:
                share[idx] = (1 - q, q)
    w = (g.initial_weights[:, None] * share).reshape(-1)
    gt = np.broadcast_to(g.initial_transitions[:, None, :, None] * share[None, None, :, :],
                         (k, 2, k, 2)).reshape(2 * k, 2 * k)
    node_graph = Graph(w, gt)
    node_pair = np.repeat(np.arange(k), 2)
    node_dir = np.tile([_J_BETTER, _I_BETTER], k)
    return _Design(pairs_arr, rank, np.asarray(order), node_graph, node_pair, node_dir, g)


# ================================================================================================ data

class _Table:
    """Trial values, rows = trial index (environment), columns = policies; NaN = missing (not run / failed).

    ``known`` marks entries whose status is recorded (live mode); in replay everything up to ``nrows`` is
    known and the table ends there.
    """

    def __init__(self, m: int, values: np.ndarray | None = None) -> None:
        self.m = m
        if values is None:
            self.vals = np.full((64, m), np.nan)
            self.known = np.zeros((64, m), dtype=bool)
            self.finite = False
            self.nrows = 0  # one past the highest recorded trial index
        else:
            self.vals = np.array(values, dtype=float)
            self.known = np.ones(self.vals.shape, dtype=bool)
            self.finite = True
            self.nrows = self.vals.shape[0]
        self._cum: np.ndarray | None = None

    def grow(self, rows: int) -> None:
        cap = self.vals.shape[0]
        if rows <= cap:
            return
        new = max(rows, 2 * cap)
        v = np.full((new, self.m), np.nan)
        kn = np.zeros((new, self.m), dtype=bool)
        v[:cap] = self.vals
        kn[:cap] = self.known
        self.vals, self.known = v, kn

    def set(self, i: int, r: int, value: float) -> None:
        self.grow(r + 1)
        self.vals[r, i] = value
        self.known[r, i] = True
        self.nrows = max(self.nrows, r + 1)
        self._cum = None

    def present_cum(self) -> np.ndarray:
        """(cap + 1, M): number of recorded, non-missing trials of each policy in rows [0, r)."""
        if self._cum is None:
            pres = self.known & ~np.isnan(self.vals)
            self._cum = np.vstack([np.zeros((1, self.m), dtype=np.int64), np.cumsum(pres, axis=0)])
        return self._cum


# ================================================================================================ result

@dataclass(frozen=True)
class RankingResult(ResultMixin):
    """A certified (possibly partial) ranking.

    Attributes
    ----------
    method, alpha, guarantee, ties : the procedure and its error level (family-wise, over all pairs and all
        times).
    statement : the guarantee in words.
    policies : policy names in the user's order.
    decisions : one dict per decided pair, in decision order: ``better``, ``worse``, ``via`` ("test" or
        "transitivity"), ``decided_at`` (paired trials of that comparison at the decision, spec 03 §6:
        n_k for a test, the minimax path time for transitivity), ``iteration``, ``trials`` (n_k),
        ``total_samples`` (rollouts of all policies so far), ``level`` and ``p_value`` at the decision.
    undecided : pairs [a, b] still open (never hidden).
    undecided_details : per open pair: ``pair``, ``trials``, ``p_value``, ``level``, ``budget_exhausted``.
    letters : compact letter display (policies sharing a letter are not certified different).
    samples : trials of each policy used; total_samples their sum.
    means : mean score of each policy over the trials used (None if none).
    termination : why the campaign stopped (or "stopped by user" for a live campaign still running).
    iterations : iteration counter t.
    inconsistent : True if the decided relations contain a cycle (only possible after an error).
    trajectory : optional (simulation fast path): ``total_samples`` after each iteration 1..t.
    """

    method: str
    alpha: float
    guarantee: str
    ties: str
    statement: str
    policies: list[str]
    decisions: list[dict[str, Any]]
    undecided: list[list[str]]
    undecided_details: list[dict[str, Any]]
    letters: dict[str, str]
    samples: dict[str, int]
    total_samples: int
    means: dict[str, float | None]
    termination: str
    iterations: int
    inconsistent: bool
    trajectory: dict[str, Any] | None = field(default=None, repr=False)

    @property
    def complete(self) -> bool:
        """True if every pair is decided."""
        return not self.undecided

    def better_pairs(self) -> list[tuple[str, str]]:
        """Decided relations as (better, worse) tuples."""
        return [(d["better"], d["worse"]) for d in self.decisions]

    def decision_samples(self) -> dict[str, int]:
        """Trials of each policy counted only up to its decided comparisons.

        For each policy, the largest ``trials`` among the decided pairs it belongs to (0 if none). Trials that
        undecided comparisons spent are left out, which is how the AnyRank authors' scripts count the
        graphical procedures' sample complexity (spec 03 §12.2 anchors). It undercounts whenever a pair stays
        open, so ``samples`` (spec 03 §11) is the honest figure; this one exists to compare with the paper.
        """
        out = dict.fromkeys(self.policies, 0)
        for d in self.decisions:
            for p in (d["better"], d["worse"]):
                out[p] = max(out[p], int(d["trials"]))
        return out

    def sentences(self) -> list[str]:
        """Every decided and undecided pair in plain words."""
        conf = f"certified, alpha = {self.alpha:g}"
        out = [f"{d['better']} is better than {d['worse']} ({conf}"
               + (", by transitivity" if d["via"] == "transitivity" else "") + ")" for d in self.decisions]
        out += [f"{a} vs {b}: undecided (not enough evidence yet)" for a, b in self.undecided]
        return out


def _statement(s: _Setup) -> str:
    conf = f"{100 * (1 - s.alpha):g}%"
    if s.guarantee == "strict":
        return (f"With probability at least {conf}, every ordering reported is correct, at whatever time the "
                "campaign stops (strict guarantee: directional graph; proved for ties and reversals under any "
                "dependence and any sampling rule" + ("" if s.ties == "allow" else
                                                      "; the ties setting has no effect under it") + ").")
    if s.method in ("bonferroni", "weighted-bonferroni"):
        # no level is ever recycled, so a union bound over the pairs' fixed levels proves every kind of error
        base = (f"With probability at least {conf}, every ordering reported is correct, at whatever time the "
                f"campaign stops ({'weighted ' if s.method == 'weighted-bonferroni' else ''}Bonferroni: each pair "
                "keeps a fixed share of alpha; ")
        if s.ties == "allow":
            return base + "proved for ties and reversals alike, under any sampling rule)."
        return base + ("assumes no two policies are exactly tied: a tied pair may be ordered with probability up "
                       "to 2 alpha).")
    base = (f"With probability at least {conf}, every ordering reported is correct, at whatever time the "
            "campaign stops (AnyRank pair-level procedure, paper guarantee; ")
    if s.ties == "allow":
        return base + "exact ties are covered by proof, reversals by the paper's Theorem 1 and simulation)."
    return base + ("assumes no two policies are exactly tied: a tied pair may be ordered with probability up to "
                   "2 alpha).")


# ================================================================================================ engine

class _Campaign:
    """The AnyRank state machine (spec 03 §5) shared by replay, simulation and live use.

    Two ways of feeding it:

    * ``paths``: the whole table is known (replay, simulation). Each pair's p-process along its own index
      is computed lazily in blocks and the loop jumps from event to event (:meth:`run_replay`).
    * live: :meth:`try_iteration` executes the next iteration once its trials are recorded.
    """

    def __init__(self, setup: _Setup, table: _Table, *, trajectory: bool = False) -> None:
        self.s = setup
        self.design = _design(setup)
        self.table = table
        k = len(self.design.pairs)
        self.k = k
        self.pi = self.design.pairs[:, 0].copy()
        self.pj = self.design.pairs[:, 1].copy()
        self.graph = self.design.graph.copy()
        self.pair_open = np.ones(k, dtype=bool)
        self.n = np.zeros(k, dtype=np.int64)
        self.cursor = np.zeros(k, dtype=np.int64)
        self.exhausted = np.zeros(k, dtype=bool)
        self.pl = np.ones(k)  # current one-sided p-values per pair
        self.pm = np.ones(k)
        self.t = 0
        self.termination: str | None = None
        self.decisions: list[dict[str, Any]] = []
        m = setup.m
        self.edge_time = np.full((m, m), np.inf)  # decided relation a > b -> its decision time
        self.inconsistent = False
        self.streams = PairedStreams(k, bettor=setup.bettor, ties=setup.ties, bins=setup.metric)
        self.recycles = setup.method in RECYCLING
        self.want_traj = trajectory
        self._traj: list[np.ndarray] = []
        # replay: per-pair complete rows and lazily computed p-process paths
        self._rows: list[np.ndarray] | None = None
        self._path_l: np.ndarray | None = None
        self._path_m: np.ndarray | None = None
        self._avail = 0

    # ------------------------------------------------------------------ levels and selection
    def pair_levels(self) -> np.ndarray:
        lv = self.graph.levels(self.s.alpha)
        if self.s.guarantee == "paper":
            return lv
        return lv[0::2] + lv[1::2]

    def select(self) -> np.ndarray | None:
        """Advantaged set S_t (spec 03 §5.3), or None after setting the termination reason."""
        active = self.pair_open & (self.n < self.s.nmax) & ~self.exhausted
        if not active.any():
            self.termination = EXHAUSTED
            return None
        lv = self.pair_levels()
        if self.recycles:
            amax = lv[active].max()
            if amax <= 0:
                self.termination = NO_LEVEL
                return None
            sel = active & (lv >= amax - self.s.advantage_tol)
        else:
            sel = active & (lv > 0)
            if not sel.any():
                self.termination = NO_LEVEL
                return None
        return np.flatnonzero(sel)

    # ------------------------------------------------------------------ decisions
    def _combined(self, pl: Any, pm: Any) -> Any:
        return combine(pl, pm, self.s.ties)

    def _direct_candidates(self) -> list[tuple[int, int, int]]:
        """(pair, node, direction) for open pairs whose p-value passes its level, one per pair."""
        w = self.graph.weights
        a = self.s.alpha
        out = []
        if self.s.guarantee == "paper":
            pc = self._combined(self.pl, self.pm)
            ok = passes(pc, w, a) & self.pair_open & (self.pl != self.pm)
            for k in np.flatnonzero(ok):
                out.append((int(k), int(k), _J_BETTER if self.pl[k] < self.pm[k] else _I_BETTER))
        else:
            ok_j = passes(self.pl, w[0::2], a) & self.pair_open
            ok_i = passes(self.pm, w[1::2], a) & self.pair_open
            for k in np.flatnonzero(ok_j | ok_i):
                if ok_j[k] and (not ok_i[k] or self.pl[k] <= self.pm[k]):
                    out.append((int(k), 2 * int(k), _J_BETTER))
                else:
                    out.append((int(k), 2 * int(k) + 1, _I_BETTER))
        return out

    def _closure_times(self) -> np.ndarray:
        return minimax_times(self.edge_time)

    def reject_loop(self) -> None:
        """Online Bretz rejections with transitive closure (spec 03 §5.4), until nothing is eligible."""
        while self.pair_open.any():
            direct = {k: (node, d) for k, node, d in self._direct_candidates()}
            implied: dict[int, tuple[int, float]] = {}
            if self.s.transitive_closure and self.decisions:
                tt = self._closure_times()
                reach = np.isfinite(tt)
                both = reach & reach.T
                if both.any():
                    self.inconsistent = True
                for k in np.flatnonzero(self.pair_open):
                    i, j = int(self.pi[k]), int(self.pj[k])
                    if reach[i, j] and not reach[j, i]:
                        implied[int(k)] = (_I_BETTER, float(tt[i, j]))
                    elif reach[j, i] and not reach[i, j]:
                        implied[int(k)] = (_J_BETTER, float(tt[j, i]))
            cand = set(direct) | set(implied)
            if not cand:
                return
            k = min(cand, key=lambda c: self.design.rank[c])
            if k in direct:
                node, d = direct[k]
                self._decide(k, node, d, "test", float(self.n[k]))
            else:
                d, when = implied[k]
                node = k if self.s.guarantee == "paper" else 2 * k + (0 if d == _J_BETTER else 1)
                self._decide(k, node, d, "transitivity", when)

    def _decide(self, k: int, node: int, d: int, via: str, when: float) -> None:
        i, j = int(self.pi[k]), int(self.pj[k])
        better, worse = (j, i) if d == _J_BETTER else (i, j)
        level = float(self.graph.levels(self.s.alpha)[node])
        if self.s.guarantee == "paper":
            p = float(self._combined(self.pl[k], self.pm[k]))
        else:
            p = float(self.pl[k] if d == _J_BETTER else self.pm[k])
        self.pair_open[k] = False
        self.graph.reject(node)
        self.edge_time[better, worse] = when
        samples = self.samples()
        self.decisions.append({
            "better": self.s.policies[better], "worse": self.s.policies[worse], "via": via,
            "decided_at": int(when) if math.isfinite(when) else None, "iteration": int(self.t),
            "trials": int(self.n[k]), "total_samples": int(samples.sum()), "level": level, "p_value": p,
        })

    # ------------------------------------------------------------------ bookkeeping
    def samples(self, cursor: np.ndarray | None = None) -> np.ndarray:
        """Trials of each policy used: max over its hypotheses of the non-missing entries before the cursor."""
        c = self.cursor if cursor is None else cursor
        cum = self.table.present_cum()
        c = np.minimum(c, cum.shape[0] - 1)
        out = np.zeros(self.s.m, dtype=np.int64)
        np.maximum.at(out, self.pi, cum[c, self.pi])
        np.maximum.at(out, self.pj, cum[c, self.pj])
        return out

    def _after_iteration(self) -> None:
        self.reject_loop()
        if not self.pair_open.any():
            self.termination = COMPLETE

    # ------------------------------------------------------------------ live stepping
    def _scan(self, k: int) -> tuple[str, int, list[tuple[int, int]]]:
        """Next pair of hypothesis k from its cursor: ("pair", row, []), ("end", nrows, []) or
        ("need", row, [(policy, row), ...])."""
        tb = self.table
        i, j = int(self.pi[k]), int(self.pj[k])
        r = int(self.cursor[k])
        while True:
            if tb.finite and r >= tb.nrows:
                return "end", tb.nrows, []
            if r >= tb.vals.shape[0]:
                return "need", r, [(i, r), (j, r)]
            ki, kj = tb.known[r, i], tb.known[r, j]
            if (ki and np.isnan(tb.vals[r, i])) or (kj and np.isnan(tb.vals[r, j])):
                r += 1
                continue
            if ki and kj:
                return "pair", r, []
            return "need", r, [(p, r) for p, kn in ((i, ki), (j, kj)) if not kn]

    def needed(self) -> list[tuple[int, int]]:
        """Entries (policy index, trial) the current iteration still needs (empty if done or ready)."""
        if self.termination is not None:
            return []
        sel = self.select()
        if sel is None:
            return []
        need: set[tuple[int, int]] = set()
        for k in sel:
            kind, _, req = self._scan(int(k))
            if kind == "need":
                need.update(req)
        return sorted(need, key=lambda e: (e[1], e[0]))

    def try_iteration(self) -> bool:
        """Execute one iteration if every trial it needs is recorded; return whether it ran."""
        if self.termination is not None:
            return False
        sel = self.select()
        if sel is None:
            return False
        plan = []
        for k in sel:
            kind, r, _ = self._scan(int(k))
            if kind == "need":
                return False
            plan.append((int(k), kind, r))
        self.t += 1
        upd = [(k, r) for k, kind, r in plan if kind == "pair"]
        for k, kind, r in plan:
            if kind == "end":
                self.exhausted[k] = True
                self.cursor[k] = r
        if upd:
            ks = np.array([k for k, _ in upd], dtype=np.int64)
            rs = np.array([r for _, r in upd], dtype=np.int64)
            x = self.table.vals[rs, self.pi[ks]]
            y = self.table.vals[rs, self.pj[ks]]
            self.streams.update(ks, x, y)
            self.n[ks] += 1
            self.cursor[ks] = rs + 1
            self.pl[ks] = self.streams.pvalue_less[ks]
            self.pm[ks] = self.streams.pvalue_more[ks]
        if self.want_traj:
            self._traj.append(np.array([self.samples().sum()]))
        self._after_iteration()
        return True

    def run_live(self) -> None:
        while self.try_iteration():
            pass

    # ------------------------------------------------------------------ replay (event jumping)
    def _prepare_paths(self, lmax: int | None = None, x: np.ndarray | None = None, y: np.ndarray | None = None,
                       path_l: np.ndarray | None = None, path_m: np.ndarray | None = None) -> None:
        """Per-pair complete rows, the padded pair sequences and the (lazily filled) p-process paths.

        A batch driver may pass shared buffers (``x``, ``y`` of shape (K, lmax), paths (K, lmax + 1)) that
        it fills itself; the campaign then only reads them.
        """
        tb = self.table
        present = ~np.isnan(tb.vals[:tb.nrows])
        self._rows = [np.flatnonzero(present[:, i] & present[:, j]) for i, j in self.design.pairs]
        self._len = np.array([r.size for r in self._rows], dtype=np.int64)
        own = int(min(self._len.max(initial=0), self.s.nmax))
        lmax = own if lmax is None else lmax
        # pairs of hypothesis k, padded with (0, 0) beyond its end (a zero payoff never moves the wealth,
        # and padded p-values are never read)
        self._x = np.zeros((self.k, lmax)) if x is None else x
        self._y = np.zeros((self.k, lmax)) if y is None else y
        for k, rows in enumerate(self._rows):
            r = rows[:lmax]
            self._x[k, :r.size] = tb.vals[r, self.pi[k]]
            self._y[k, :r.size] = tb.vals[r, self.pj[k]]
        self._lmax = lmax
        self._path_l = np.ones((self.k, lmax + 1)) if path_l is None else path_l
        self._path_m = np.ones((self.k, lmax + 1)) if path_m is None else path_m
        self._avail = 0  # paths valid for n <= _avail

    def _extend_paths(self, upto: int) -> None:
        """Make p-process paths valid up to index ``upto`` (in blocks)."""
        upto = min(upto, self._lmax)
        if upto <= self._avail:
            return
        target = min(self._lmax, max(upto, self._avail + _BLOCK, 2 * self._avail))
        for s in range(self._avail, target):
            self.streams.update(None, self._x[:, s], self._y[:, s])
            self._path_l[:, s + 1] = self.streams.pvalue_less
            self._path_m[:, s + 1] = self.streams.pvalue_more
        self._avail = target

    def _first_event(self, k: int, lim: int):  # generator: yields path lengths it needs, returns the event
        """Smallest m in 1..lim such that hypothesis k becomes directly eligible after m more pairs (or None).

        A generator: it yields the path index it needs next whenever the computed paths run out, so the
        caller decides how to extend them (one campaign alone, or many campaigns in one vectorised bank).
        """
        n0 = int(self.n[k])
        w = self.graph.weights
        a = self.s.alpha
        lo = n0
        while True:
            hi = min(self._avail, n0 + lim)
            if hi > lo:
                pl = self._path_l[k, lo + 1:hi + 1]
                pm = self._path_m[k, lo + 1:hi + 1]
                if self.s.guarantee == "paper":
                    ok = passes(self._combined(pl, pm), w[k], a) & (pl != pm)
                else:
                    ok = passes(pl, w[2 * k], a) | passes(pm, w[2 * k + 1], a)
                if ok.any():
                    return lo - n0 + int(np.argmax(ok)) + 1
                lo = hi
            if hi >= n0 + lim:
                return None
            yield hi + 1

    def run_replay(self) -> None:
        """Run to termination over a fully known table, jumping from event to event."""
        if self._rows is None:
            self._prepare_paths()
        gen = self._replay_steps()
        try:
            need = next(gen)
            while True:
                self._extend_paths(need)
                need = gen.send(None)
        except StopIteration:
            pass

    def _replay_steps(self):  # generator, see _first_event
        while self.termination is None:
            sel = self.select()
            if sel is None:
                break
            best = None
            for k in sel:
                rem = int(self._len[k] - self.n[k])
                cap = int(self.s.nmax - self.n[k])
                ev = cap if rem >= cap else rem + 1  # budget reached, or the pull that finds no pair
                lim = min(ev, rem) if best is None else min(ev, rem, best)
                if lim >= 1:
                    hit = yield from self._first_event(int(k), lim)
                    if hit is not None:
                        ev = min(ev, hit)
                best = ev if best is None else min(best, ev)
            delta = int(best)
            n0 = self.n.copy()
            c0 = self.cursor.copy()
            rems = self._len[sel] - self.n[sel]
            take = np.minimum(delta, rems)
            self.n[sel] += take
            for idx, k in enumerate(sel):
                if delta > rems[idx]:
                    self.exhausted[k] = True
                    self.cursor[k] = self.table.nrows
                elif self.n[k] > 0:
                    self.cursor[k] = self._rows[k][self.n[k] - 1] + 1
            if self.want_traj:
                self._traj.append(self._segment_samples(sel, n0, c0, delta))
            self.t += delta
            self.pl[sel] = self._path_l[sel, self.n[sel]]
            self.pm[sel] = self._path_m[sel, self.n[sel]]
            self._after_iteration()

    def _segment_samples(self, sel: np.ndarray, n0: np.ndarray, c0: np.ndarray, delta: int) -> np.ndarray:
        """Total samples after each of the ``delta`` iterations of a jump."""
        steps = np.arange(1, delta + 1)
        cur = np.tile(c0, (delta, 1))  # (delta, K) cursors
        for k in sel:
            rem = int(self._len[k] - n0[k])
            nn = n0[k] + np.minimum(steps, rem)
            rows = self._rows[k]
            ck = np.where(nn > 0, rows[np.maximum(nn - 1, 0)] + 1 if rows.size else 0, c0[k])
            ck = np.where(steps > rem, self.table.nrows, ck)
            cur[:, k] = ck
        cum = self.table.present_cum()
        cur = np.minimum(cur, cum.shape[0] - 1)
        used_i = cum[cur, self.pi[None, :]]  # (delta, K)
        used_j = cum[cur, self.pj[None, :]]
        per = np.zeros((delta, self.s.m), dtype=np.int64)
        for k in range(self.k):
            per[:, self.pi[k]] = np.maximum(per[:, self.pi[k]], used_i[:, k])
            per[:, self.pj[k]] = np.maximum(per[:, self.pj[k]], used_j[:, k])
        return per.sum(axis=1)

    # ------------------------------------------------------------------ result
    def result(self) -> RankingResult:
        s = self.s
        samples = self.samples()
        cum_rows = self.table.vals
        means: dict[str, float | None] = {}
        ncols = np.zeros(s.m, dtype=np.int64)
        for k in range(self.k):
            for p in (self.pi[k], self.pj[k]):
                ncols[p] = max(ncols[p], self.cursor[k])
        for p, name in enumerate(s.policies):
            rows = min(int(ncols[p]), cum_rows.shape[0])
            col = cum_rows[:rows, p][self.table.known[:rows, p]]
            col = col[~np.isnan(col)]
            means[name] = float(col.mean()) if col.size else None
        different = [(d["better"], d["worse"]) for d in self.decisions]
        mu = np.array([-np.inf if means[p] is None else means[p] for p in s.policies])
        from ..order.letters import letters as _letters
        lets = _letters(list(s.policies), different, np.where(np.isfinite(mu), mu, -1.0))
        lv = self.pair_levels()
        pc = self._combined(self.pl, self.pm)
        undecided, details = [], []
        for k in range(self.k):
            if self.pair_open[k]:
                a, b = s.policies[self.pi[k]], s.policies[self.pj[k]]
                undecided.append([a, b])
                details.append({"pair": [a, b], "trials": int(self.n[k]), "p_value": float(pc[k]),
                                "p_less": float(self.pl[k]), "p_more": float(self.pm[k]),
                                "level": float(lv[k]),
                                "budget_exhausted": bool(self.n[k] >= s.nmax or self.exhausted[k])})
        traj = None
        if self.want_traj:
            ts = np.concatenate(self._traj) if self._traj else np.zeros(0, dtype=np.int64)
            traj = {"total_samples": ts.astype(np.int64)}
        return RankingResult(
            method=s.method, alpha=s.alpha, guarantee=s.guarantee, ties=s.ties, statement=_statement(s),
            policies=list(s.policies), decisions=[dict(d) for d in self.decisions], undecided=undecided,
            undecided_details=details, letters=lets,
            samples={p: int(v) for p, v in zip(s.policies, samples)}, total_samples=int(samples.sum()),
            means=means, termination=self.termination or STOPPED, iterations=int(self.t),
            inconsistent=bool(self.inconsistent), trajectory=traj)


# ================================================================================================ replay API

def _wide_from_data(data: Any, *, format: str | None = None,
                    score_range: tuple[float, float] | None = None) -> pd.DataFrame:
    """A wide per-trial frame (rows = trials in recorded order, columns = policies, NaN = not run) from a
    path, a long or wide DataFrame, or a validated table (all read through :func:`certirank.load`)."""
    from ..data.readers import load
    from ..data.table import check_per_trial, to_wide
    if isinstance(data, np.ndarray):
        raise DataError("pass a pandas DataFrame (one column per policy) or a file path; for a bare array use "
                        "run_campaign(scores, policies=...)")
    if not isinstance(data, (str, os.PathLike, pd.DataFrame)):
        raise DataError(f"expected a file path or a table (pandas DataFrame), got {type(data).__name__}")
    table = load(data, format=format, score_range=score_range)
    check_per_trial(table, "AnyRank")
    return to_wide(table)


def _select_columns(wide: pd.DataFrame, policies: Sequence[str] | None) -> pd.DataFrame:
    if policies is None:
        return wide
    pols = [str(p) for p in policies]
    missing = [p for p in pols if p not in wide.columns]
    if missing:
        raise DataError(f"policy {', '.join(missing)} not found in the data; the data has: "
                        f"{', '.join(map(str, wide.columns))}")
    return wide[pols]


def anyrank(data: Any, alpha: float = 0.05, method: str = "anyrank", prior: Any = None, gamma: float = 1.0,
            nmax: int | None = None, ties: str = "allow", *, guarantee: str = "paper",
            policies: Sequence[str] | None = None, heldout_prior_rows: int = 0, pairing: str = "by_row",
            graph: str = "soft_masked", forward_fraction: float = 0.9, direction_split: float = DIRECTION_SPLIT,
            bettor: str = "nscore", metric: str = "progress", transitive_closure: bool = True,
            trajectory: bool = False, format: str | None = None,
            score_range: tuple[float, float] | None = None) -> RankingResult:
    """Run AnyRank over recorded trials, in recorded order (spec 03 §9.1).

    Parameters
    ----------
    data : str, Path or DataFrame
        A file (read with :func:`certirank.load`), a wide per-trial DataFrame (one column per policy, one
        row per trial/environment, NaN = not run), or a long table with ``policy``, ``score`` and ``env``
        or ``order`` (pivoted with :func:`certirank.data.table.to_wide`).
    alpha : float, default 0.05
        Family-wise error rate of the whole answer (all pairs, all times).
    method : str, default "anyrank"
        ``anyrank``, ``anyrank0``, ``anyrank-inf``, ``bonferroni`` or ``weighted-bonferroni`` (underscores
        accepted).
    prior : mapping or sequence, optional
        Prior mean per policy, fixed before looking at the data (e.g. from simulation).
    gamma : float, default 1.0
        Prior strength (softmax inverse temperature), >= 0.
    nmax : int, optional
        Per-hypothesis budget of paired trials (default: the number of rows).
    ties : {"allow", "assume_none"}, default "allow"
        ``allow``: valid when two policies are exactly tied; ``assume_none``: the papers' setting.
    guarantee : {"paper", "strict"}, default "paper"
        See the module docstring.
    policies : list of str, optional
        Columns to rank, in this order (default: all, in table order).
    heldout_prior_rows : int, default 0
        If > 0 (and no prior is given), the prior is the mean of each policy over the first rows, which are
        then removed before testing (the authors' held-out setting).
    pairing : {"by_row", "by_order"}, default "by_row"
        ``by_row``: trial r of every policy ran on environment r (paired). ``by_order``: each policy's
        trials are compacted and the n-th trials are paired (independent streams).
    graph, forward_fraction, direction_split, bettor, metric, transitive_closure
        Advanced settings of spec 03 §2 (``metric``: "progress" bins 0, 0.1, ..., 1 or "binary").
    trajectory : bool, default False
        Also return the total samples after each iteration.
    format, score_range
        Passed to :func:`certirank.load` (input layout; rescaling of scores to [0, 1]).

    Returns
    -------
    RankingResult

    Raises
    ------
    DataError, ParameterError
        Unreadable data, scores outside [0, 1], unknown policies, prior names not matching the data, fewer
        than two policies, bad parameters.
    """
    wide = _select_columns(_wide_from_data(data, format=format, score_range=score_range), policies)
    pols = [str(c) for c in wide.columns]
    if len(pols) < 2:
        raise DataError(f"ranking needs at least two policies; the data has {len(pols)}"
                        + (f" ({pols[0]})" if pols else ""))
    pairing = check_choice("pairing", pairing, PAIRINGS)
    h = check_positive_int("heldout_prior_rows", heldout_prior_rows, minimum=0)  # 0 = no held-out prior
    arr = wide.to_numpy(dtype=float)
    if h:
        if prior is not None:
            raise ParameterError("give either prior= or heldout_prior_rows=, not both")
        if h >= arr.shape[0]:
            raise DataError(f"heldout_prior_rows = {h} leaves no rows to test (the data has {arr.shape[0]})")
        head = arr[:h]
        cnt = (~np.isnan(head)).sum(axis=0)
        if (cnt == 0).any():
            p = pols[int(np.flatnonzero(cnt == 0)[0])]
            raise DataError(f"policy {p} has no trials in the first {h} rows, so no held-out prior")
        prior = dict(zip(pols, np.nanmean(head, axis=0).tolist()))
        arr = arr[h:]
    if pairing == "by_order":
        cols = [c[~np.isnan(c)] for c in arr.T]
        n = max((c.size for c in cols), default=0)
        packed = np.full((n, len(cols)), np.nan)
        for i, c in enumerate(cols):
            packed[:c.size, i] = c
        arr = packed
    setup = _make_setup(pols, alpha, method, prior, gamma, nmax, ties, guarantee, graph=graph,
                        forward_fraction=forward_fraction, direction_split=direction_split, bettor=bettor,
                        metric=metric, transitive_closure=transitive_closure, default_nmax=max(arr.shape[0], 1))
    camp = _Campaign(setup, _Table(setup.m, arr), trajectory=trajectory)
    camp.run_replay()
    return camp.result()


def _score_array(scores: Any, policies: Sequence[str] | None, shape: str) -> tuple[np.ndarray, list[str]]:
    """Pre-drawn scores as a float array of the documented `shape` (last axis = policies), and the names."""
    arr = np.asarray(scores, dtype=float)
    ndim = shape.count(",") + 1
    if arr.ndim != ndim:
        raise DataError(f"scores must be a {ndim}-d array {shape}, got shape {arr.shape}")
    finite = arr[~np.isnan(arr)]
    if finite.size and (finite.min() < 0 or finite.max() > 1):
        raise DataError("scores must lie in [0, 1] (NaN = missing)")
    m = arr.shape[-1]
    pols = list(policies) if policies is not None else [f"p{i}" for i in range(m)]
    if len(pols) != m:
        raise ParameterError(f"{len(pols)} policy names for {m} columns")
    return arr, pols


def run_campaign(scores: Any, alpha: float = 0.05, method: str = "anyrank", prior: Any = None,
                 gamma: float = 1.0, nmax: int | None = None, ties: str = "allow", *, guarantee: str = "paper",
                 policies: Sequence[str] | None = None, trajectory: bool = False, **options: Any) -> RankingResult:
    """One simulated campaign over a pre-drawn score table (the fast path for Monte Carlo studies).

    Parameters
    ----------
    scores : array_like, shape (n_trials, M)
        Row r = trial r (environment r) of every policy, as in a wide per-trial table; NaN = missing. Only
        the first ``nmax`` complete pairs of each hypothesis can be used; draw at least ``nmax`` rows.
    alpha, method, prior, gamma, nmax, ties, guarantee
        As in :func:`anyrank` (``nmax`` defaults to ``n_trials``).
    policies : list of str, optional
        Names (default ``p0 .. p{M-1}``).
    trajectory : bool, default False
        Add ``result.trajectory["total_samples"]``: total rollouts after each iteration 1..t; each decision
        also carries its ``iteration`` and ``total_samples``.
    **options
        ``graph``, ``forward_fraction``, ``direction_split``, ``bettor``, ``metric``, ``transitive_closure``.

    Returns
    -------
    RankingResult
    """
    arr, pols = _score_array(scores, policies, "(n_trials, M)")
    setup = _make_setup(pols, alpha, method, prior, gamma, nmax, ties, guarantee,
                        default_nmax=max(arr.shape[0], 1), **_check_options(options))
    camp = _Campaign(setup, _Table(setup.m, arr), trajectory=trajectory)
    camp.run_replay()
    return camp.result()


def run_campaigns(scores: Any, alpha: float = 0.05, method: str = "anyrank", prior: Any = None,
                  gamma: float = 1.0, nmax: int | None = None, ties: str = "allow", *, guarantee: str = "paper",
                  policies: Sequence[str] | None = None, trajectory: bool = False, chunk: int = 100,
                  **options: Any) -> list[RankingResult]:
    """Many independent campaigns at once (simulation studies): ``scores`` has shape (runs, n_trials, M).

    The campaigns' p-processes are computed together in one vectorised evidence bank (``chunk`` runs at a
    time), in blocks, only as far as the campaigns still running need them; every campaign then jumps from
    event to event on its own. Results are identical to calling :func:`run_campaign` on each table.

    Parameters
    ----------
    scores : array_like, shape (runs, n_trials, M)
        One pre-drawn table per run (NaN = missing).
    chunk : int, default 100
        Campaigns per bank (memory ~ chunk * K * nmax * 16 bytes).
    Other parameters as in :func:`run_campaign`.

    Returns
    -------
    list of RankingResult, in run order.
    """
    arr, pols = _score_array(scores, policies, "(runs, n_trials, M)")
    runs, n_rows, m = arr.shape
    setup = _make_setup(pols, alpha, method, prior, gamma, nmax, ties, guarantee,
                        default_nmax=max(n_rows, 1), **_check_options(options))
    chunk = check_positive_int("chunk", chunk)
    out: list[RankingResult] = []
    for start in range(0, runs, chunk):
        out.extend(_run_chunk(setup, arr[start:start + chunk], trajectory))
    return out


def _run_chunk(setup: _Setup, arr: np.ndarray, trajectory: bool) -> list[RankingResult]:
    camps = [_Campaign(setup, _Table(setup.m, a), trajectory=trajectory) for a in arr]
    r = len(camps)
    k = camps[0].k
    lmax = min(arr.shape[1], setup.nmax)
    xs = np.zeros((r, k, lmax))
    ys = np.zeros((r, k, lmax))
    pls = np.ones((r, k, lmax + 1))
    pms = np.ones((r, k, lmax + 1))
    for idx, c in enumerate(camps):
        c._prepare_paths(lmax, xs[idx], ys[idx], pls[idx], pms[idx])
    bank = PairedStreams(r * k, bettor=setup.bettor, ties=setup.ties, bins=setup.metric)
    gens = {}
    waiting: dict[int, int] = {}
    for idx, c in enumerate(camps):
        g = c._replay_steps()
        try:
            waiting[idx] = next(g)
            gens[idx] = g
        except StopIteration:
            pass
    avail = 0
    while waiting:
        target = min(lmax, max(min(waiting.values()), avail + _BLOCK, 2 * avail))
        act = np.array(sorted(waiting), dtype=np.int64)
        streams = (act[:, None] * k + np.arange(k)[None, :]).ravel()
        for step in range(avail, target):
            bank.update(streams, xs[act, :, step].ravel(), ys[act, :, step].ravel())
            pls[act, :, step + 1] = bank.pvalue_less[streams].reshape(act.size, k)
            pms[act, :, step + 1] = bank.pvalue_more[streams].reshape(act.size, k)
        avail = target
        for idx in act:
            c = camps[idx]
            c._avail = avail
            g = gens[idx]
            try:
                need = waiting[idx]
                while need <= avail:
                    need = g.send(None)
                waiting[idx] = need
            except StopIteration:
                del waiting[idx]
    return [c.result() for c in camps]


# ================================================================================================ live API

class Ranker:
    """Live AnyRank engine: ask what to run next, record results, stop whenever you like (spec 03 §9.3).

    Parameters
    ----------
    policies : list of str
        The policies to rank (at least two), in the order used for pairs and tables.
    alpha : float, default 0.05
        Family-wise error rate of the whole answer, valid at any stopping time.
    prior : mapping or sequence, optional
        Prior mean per policy (e.g. from simulation), fixed now, before any trial is run.
    gamma : float, default 1.0
        Prior strength (>= 0).
    nmax : int, optional
        Per-comparison budget of paired trials (default 5000); it may be increased later with
        :meth:`extend`.
    method : str, default "anyrank"
        ``anyrank``, ``anyrank0``, ``anyrank-inf``, ``bonferroni``, ``weighted-bonferroni``.
    ties : {"allow", "assume_none"}, default "allow"
    guarantee : {"paper", "strict"}, default "paper"
    environments : list, optional
        Environment names to draw each trial's environment from (see :meth:`environment`).
    seed : int, optional
        Seed of those draws (default: fresh entropy, saved with the campaign).
    **options
        ``graph``, ``forward_fraction``, ``direction_split``, ``bettor``, ``metric``, ``transitive_closure``.

    Notes
    -----
    Trial index = environment index: trial r of every policy must run on the same environment e_r, drawn
    independently of all outcomes. ``suggest()`` lists the runs the current iteration needs; record them
    (``score=None`` for a failed / impossible run, which makes the comparison skip that environment) and the
    engine advances automatically. Recording a run that was not suggested raises :class:`StateError` unless
    ``ahead=True`` (it is then used when the algorithm reaches it); runs suggested earlier in this session
    stay acceptable even if a missing result has since moved the engine on. Re-recording the same score is a no-op; a
    different score is an error. Every error leaves the engine unchanged.

    Examples
    --------
    >>> r = Ranker(["A", "B"], alpha=0.1, nmax=3)
    >>> r.suggest()
    [('A', 0), ('B', 0)]
    >>> r.record("A", 0, 1.0); r.record("B", 0, 0.0); r.suggest()
    [('A', 1), ('B', 1)]
    """

    def __init__(self, policies: Sequence[str], alpha: float = 0.05, prior: Any = None, gamma: float = 1.0,
                 nmax: int | None = None, method: str = "anyrank", ties: str = "allow", *,
                 guarantee: str = "paper", environments: Sequence[Any] | None = None, seed: int | None = None,
                 **options: Any) -> None:
        setup = _make_setup(policies, alpha, method, prior, gamma, nmax, ties, guarantee, **_check_options(options))
        self._init(setup)
        self._set_environments(environments, seed)

    def _set_environments(self, environments: Sequence[Any] | None, seed: int | None) -> None:
        if environments is None:
            if seed is not None:
                raise ParameterError("seed= draws environments; give environments=[...] as well")
            self._envs: tuple[str, ...] | None = None
            self._env_seed: int | None = None
            return
        if isinstance(environments, str) or not hasattr(environments, "__iter__"):
            raise ParameterError(f"environments must be a list of environment names, got {environments!r}")
        envs = tuple(str(e) for e in environments)
        if not envs:
            raise ParameterError("environments must list at least one environment")
        if seed is None:  # fixed now and saved, so a resumed campaign draws the same environments
            seed = int(np.random.SeedSequence().entropy % (2**63))
        elif isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ParameterError(f"seed must be a non-negative integer, got {seed!r}")
        self._envs, self._env_seed = envs, int(seed)

    def environment(self, trial_index: int) -> str:
        """The environment to run trial ``trial_index`` on (every policy runs trial r on the same one).

        Drawn uniformly from ``environments`` with ``numpy.random.default_rng([seed, trial_index])``: i.i.d.
        across trials, fixed in advance and independent of all outcomes, as the guarantee requires
        (spec 03 §9.3).
        """
        if self._envs is None:
            raise StateError("this campaign has no environment list; create it with Ranker(..., environments=[...])")
        if isinstance(trial_index, (bool, np.bool_)) or not isinstance(trial_index, (int, np.integer)) \
                or trial_index < 0:
            raise ParameterError(f"trial_index must be a non-negative integer, got {trial_index!r}")
        rng = np.random.default_rng([self._env_seed, int(trial_index)])
        return self._envs[int(rng.integers(len(self._envs)))]

    def _init(self, setup: _Setup) -> None:
        self._envs = None
        self._env_seed = None
        self._setup = setup
        self._camp = _Campaign(setup, _Table(setup.m))
        self._results: list[dict[str, Any]] = []
        self._index = {p: i for i, p in enumerate(setup.policies)}
        # runs handed out by suggest() and not yet recorded: still welcome even if a missing result
        # elsewhere moved the engine on (the lab may already have run them)
        self._outstanding: set[tuple[int, int]] = set()

    # ------------------------------------------------------------------ properties
    @property
    def policies(self) -> list[str]:
        return list(self._setup.policies)

    @property
    def alpha(self) -> float:
        return self._setup.alpha

    @property
    def nmax(self) -> int:
        return self._setup.nmax

    @property
    def done(self) -> bool:
        """True once the campaign has terminated (complete ranking, budget, or no level left)."""
        return self._camp.termination is not None

    @property
    def iteration(self) -> int:
        return self._camp.t

    # ------------------------------------------------------------------ the loop
    def suggest(self) -> list[tuple[str, int]]:
        """The runs needed next: (policy, trial_index) sorted by trial index, then policy order.

        Empty when the campaign is done. Each trial index is an environment shared by all policies.
        """
        need = self._camp.needed()
        self._outstanding.update(need)
        return [(self._setup.policies[i], r) for i, r in need]

    def record(self, policy: str, trial_index: int, score: float | None, *, ahead: bool = False) -> None:
        """Record the score of ``policy`` on trial ``trial_index`` (``None`` = failed / not run).

        Raises
        ------
        ParameterError
            Unknown policy, negative or non-integer trial index, score outside [0, 1].
        StateError
            The run was not suggested (pass ``ahead=True`` to record it in advance), or it was already
            recorded with a different score. The engine is unchanged after any error.
        """
        i, r, v = self._check_entry(policy, trial_index, score)
        tb = self._camp.table
        if r < tb.vals.shape[0] and tb.known[r, i]:
            old = tb.vals[r, i]
            if (np.isnan(old) and np.isnan(v)) or old == v:
                return
            raise StateError(f"{policy} trial {r} is already recorded with score "
                             f"{'missing' if np.isnan(old) else f'{old:g}'}; a recorded result cannot change "
                             f"(got {'missing' if np.isnan(v) else f'{v:g}'})")
        if not ahead and (i, r) not in self._outstanding:
            need = self._camp.needed()
            if (i, r) not in need:
                wanted = ", ".join(f"({self._setup.policies[a]}, {b})" for a, b in need[:6]) or "nothing (done)"
                raise StateError(f"{policy} trial {r} was not suggested; the engine needs: {wanted}. "
                                 "Pass ahead=True to record a result in advance.")
        tb.set(i, r, v)
        self._outstanding.discard((i, r))
        self._results.append({"policy": self._setup.policies[i], "trial": r,
                              "score": None if np.isnan(v) else v})
        self._camp.run_live()

    def _check_entry(self, policy: Any, trial_index: Any, score: Any) -> tuple[int, int, float]:
        name = str(policy)
        if name not in self._index:
            raise ParameterError(f"unknown policy {policy!r}; the policies are: {', '.join(self._setup.policies)}")
        if isinstance(trial_index, (bool, np.bool_)) or not isinstance(trial_index, (int, np.integer)):
            raise ParameterError(f"trial_index must be a non-negative integer, got {trial_index!r}")
        r = int(trial_index)
        if r < 0:
            raise ParameterError(f"trial_index must be a non-negative integer, got {trial_index!r}")
        limit = 100 * self._setup.nmax + 10_000  # a typo such as 10**9 must not allocate a huge table
        if r > limit:
            raise ParameterError(f"trial_index {r} is far beyond the budget (nmax = {self._setup.nmax}); "
                                 f"trial indices are environment numbers 0, 1, 2, ... (at most {limit})")
        if score is None:
            v = math.nan
        else:
            if isinstance(score, (bool, np.bool_)):
                v = float(score)
            else:
                try:
                    v = float(score)
                except (TypeError, ValueError):
                    raise ParameterError(f"score must be a number in [0, 1] or None, got {score!r}") from None
            if not math.isnan(v) and not 0.0 <= v <= 1.0:
                raise ParameterError(f"score must be in [0, 1] (or None for a failed run), got {score!r}")
        return self._index[name], r, v

    def extend(self, nmax: int) -> None:
        """Raise the per-comparison budget (allowed at any time: stopping is free for anytime-valid tests)."""
        nmax = check_positive_int("nmax", nmax)
        if nmax < self._setup.nmax:
            raise ParameterError(f"nmax can only grow (now {self._setup.nmax}, got {nmax})")
        state = self.to_json()
        data = json.loads(state)
        data["config"]["nmax"] = nmax
        data["config_sha256"] = _setup_from_dict(data["config"]).sha256()
        new = Ranker.from_json(json.dumps(data))
        self.__dict__.update(new.__dict__)

    def result(self) -> RankingResult:
        """The certified ranking now (valid at any stopping time)."""
        return self._camp.result()

    # ------------------------------------------------------------------ persistence
    def to_dict(self) -> dict[str, Any]:
        envs = None
        if self._envs is not None:
            upto = max((r["trial"] for r in self._results), default=-1) + 1
            envs = [self.environment(r) for r in range(upto)]
        out = {"format": FORMAT, "config": self._setup.to_dict(), "config_sha256": self._setup.sha256(),
               "environments": envs, "results": [dict(r) for r in self._results]}
        if self._envs is not None:
            out["environment_draw"] = {"choices": list(self._envs), "seed": self._env_seed}
        return out

    def to_json(self) -> str:
        """Human-readable JSON: the configuration (locked) and every recorded result, in recording order."""
        return json.dumps(self.to_dict(), indent=1)

    @classmethod
    def from_json(cls, text: str | Mapping[str, Any]) -> Ranker:
        """Rebuild a Ranker by re-running the engine over the saved results (derived state is never trusted
        from disk); it then behaves exactly like the original."""
        try:
            data = json.loads(text) if isinstance(text, (str, bytes)) else dict(text)
        except json.JSONDecodeError as exc:
            raise ParameterError(f"not a saved AnyRank campaign (invalid JSON: {exc})") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ParameterError(f"not a saved AnyRank campaign (expected format {FORMAT!r})")
        setup = _setup_from_dict(data.get("config") or {})
        if data.get("config_sha256") not in (None, setup.sha256()):
            raise ParameterError("saved campaign: the configuration does not match its checksum (config_sha256); "
                                 "the pre-registered settings cannot be changed after the first result")
        obj = cls.__new__(cls)
        obj._init(setup)
        draw = data.get("environment_draw")
        if draw is not None:
            try:
                obj._set_environments(draw["choices"], draw["seed"])
            except (KeyError, TypeError):
                raise ParameterError("saved campaign: environment_draw must have choices and seed") from None
        tb = obj._camp.table
        for n, rec in enumerate(data.get("results") or []):
            try:
                i, r, v = obj._check_entry(rec["policy"], rec["trial"], rec["score"])
            except (KeyError, TypeError):
                raise ParameterError(f"saved campaign: result {n} must have policy, trial and score") from None
            if r < tb.vals.shape[0] and tb.known[r, i]:
                raise ParameterError(f"saved campaign: {rec['policy']} trial {r} is recorded twice")
            tb.set(i, r, v)
            obj._results.append({"policy": setup.policies[i], "trial": r, "score": None if np.isnan(v) else v})
        obj._camp.run_live()
        return obj

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`to_json` atomically (temporary file in the same folder, then ``os.replace``)."""
        atomic_write_text(path, self.to_json())

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Ranker:
        """Read a campaign written by :meth:`save`."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise ParameterError(f"cannot read saved campaign {path}: {exc.strerror or exc}") from None
        return cls.from_json(text)

    def __repr__(self) -> str:
        st = self._camp.termination or "running"
        return (f"Ranker({len(self._setup.policies)} policies, method={self._setup.method!r}, "
                f"alpha={self._setup.alpha:g}, iteration={self._camp.t}, decided={len(self._camp.decisions)}/"
                f"{self._camp.k}, {st})")
