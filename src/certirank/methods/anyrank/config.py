"""AnyRank configuration: names, defaults, the locked campaign setup and the pre-registered graph (spec 03 §3-§5)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..._params import (  # noqa: F401  (re-exported: the names this package always had)
    ANYRANK_BETTORS,
    ANYRANK_METHODS,
    ARMS,
    AUTO_BUDGET_MAX,
    BINS,
    BUDGETS,
    GRAPHS,
    GUARANTEES,
    PAIRINGS,
    TIES,
    VERBS,
    resolve_budget,
)
from ..._validate import Integer, Real, refuse, trusted
from ...errors import ParameterError
from ...multitest.graphical import Graph
from ...multitest.graphs import (
    bonferroni,
    fixed_sequence,
    from_prior,
    pair_gaps,
    prior_order,
    weighted_bonferroni_from_prior,
)

# the vocabularies are declared once, in the parameter contract (certirank/_params.py)
METHODS = ANYRANK_METHODS
RECYCLING = ("anyrank", "anyrank0", "anyrank-inf")
METRICS = BINS  # the name before 0.2
BETTORS = ANYRANK_BETTORS
#: Beta(a, a) concentration of AnyRank's exact budget test unless given (see docs/anyrank.md: a campaign
#: must separate gaps from the hardest up to large ones, and spends most rollouts on the easy ones early;
#: Beta(4, 4) on q >= 1/2 spreads the statistic's power over q - 1/2 in about 0.05 .. 0.3)
BUDGET_CONCENTRATION = 4.0

COMPLETE = "complete ranking"
EXHAUSTED = "budget or data exhausted"
NO_LEVEL = "no level left on active hypotheses"
STOPPED = "stopped by user"
TERMINATIONS = (COMPLETE, EXHAUSTED, NO_LEVEL, STOPPED)

#: saved Ranker JSON; v1 (before 0.2) spelled the locked fields ``metric`` and ``nmax``
FORMAT = "certirank.anyrank.v2"
FORMATS = ("certirank.anyrank.v1", FORMAT)
#: the locked configuration's field names before 0.2 -> today's (public) names
_OLD_FIELDS = {"metric": "bins", "nmax": "n_max"}
#: per-comparison budget bound (the live table grows with trial indices; beyond this is a typo)
MAX_NMAX = 10**9
LIVE_NMAX = 5000
ADVANTAGE_TOL = 1e-8
DIRECTION_SPLIT = 0.75
# p-process paths are computed in blocks of this many pairs (doubling), so a replay or a simulation
# computes little beyond the point where the campaign stops
_BLOCK = 64

# node direction codes: a pair-level node (paper guarantee) may decide either way; strict nodes are one-sided
_EITHER, _J_BETTER, _I_BETTER = 0, 1, 2


# ================================================================================================ config

@dataclass(frozen=True)
class _Setup:
    """Every parameter that defines the pre-registered procedure (spec 03 §2); hashed for the config lock.

    ``legacy`` marks a configuration read from a file written before 0.2: it is written back with the field
    names it was read with (``metric``, ``nmax``), so its checksum, and a campaign's stored checkpoints, stay
    byte for byte what they were.
    """

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
    bins: str = "progress"
    n_max: int = LIVE_NMAX
    transitive_closure: bool = True
    advantage_tol: float = ADVANTAGE_TOL
    budget: str = "none"
    arms: str = "paired"
    budget_horizon: int | None = None  # trials per comparison the exact test is calibrated for (fixed)
    concentration: float | None = None
    statistic: str | None = None
    margin: float | None = None  # equivalence margin (issue 35), fixed before the data
    legacy: bool = dataclasses.field(default=False, compare=False)

    @property
    def m(self) -> int:
        return len(self.policies)

    @property
    def format(self) -> str:
        return FORMATS[0] if self.legacy else FORMAT

    def locked(self) -> dict[str, Any]:
        """The fields that define the graph and the tests (n_max may grow: stopping is free)."""
        d = self.to_dict()
        d.pop("nmax" if self.legacy else "n_max")
        if self.budget == "none":  # campaigns saved before the budget test keep their checksum
            for key in ("budget", "arms", "budget_horizon", "concentration"):
                d.pop(key)
        if self.statistic in (None, "mixture"):  # ... and those saved before the statistic choice too
            d.pop("statistic")
        return d

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d.pop("legacy")
        if self.margin is None:  # campaigns saved before equivalence keep their checksum
            d.pop("margin")
        d["policies"] = list(self.policies)
        d["prior"] = None if self.prior is None else list(self.prior)
        if self.legacy:  # the spelling (and key order) it was read with
            old = {new: o for o, new in _OLD_FIELDS.items()}
            d = {old.get(k, k): v for k, v in d.items()}
        return d

    def sha256(self) -> str:
        text = json.dumps(self.locked(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


#: largest policy set the pairwise graph is built for (see _make_setup)
MAX_POLICIES = 100


def _check_prior(prior: Any, policies: tuple[str, ...]) -> tuple[float, ...] | None:
    """Prior means per policy: a mapping {policy: mean} naming exactly the policies, or a sequence in policy
    order; each a number in [0, 1], the scale of the scores (a percentage typed as 70 is refused)."""
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
        if isinstance(prior, (str, bytes)) or not hasattr(prior, "__iter__"):
            raise ParameterError(f"prior must be a mapping policy -> mean or a list of means, got {prior!r}")
        vals = list(prior)
        if len(vals) != len(policies):
            raise ParameterError(f"prior has {len(vals)} values for {len(policies)} policies; give one prior mean "
                                 "per policy (or a mapping policy -> mean)")
    mean = Real(0.0, 1.0)
    return tuple(mean.check(f"the prior mean of {p} (scores are in [0, 1])", v) for p, v in zip(policies, vals))


def _make_setup(policies: Any, alpha: float, method: str, prior: Any, gamma: float, n_max: Any, ties: str,
                guarantee: str, *, graph: str = "soft_masked", forward_fraction: float = 0.9,
                direction_split: float = DIRECTION_SPLIT, bettor: str = "nscore", bins: str = "progress",
                transitive_closure: bool = True, advantage_tol: float = ADVANTAGE_TOL,
                default_n_max: int = LIVE_NMAX, budget: str = "auto", arms: str = "paired",
                budget_horizon: int | None = None, concentration: float | None = None,
                statistic: str | None = None, margin: float | None = None, live: bool = False,
                legacy: bool = False) -> _Setup:
    """The locked setup. Arguments a public verb validated are trusted (certirank._validate); the others
    (internal callers such as the simulation fast path, saved configurations) are checked here, against the
    same declarations."""
    given = dict(policies=policies, alpha=alpha, method=method, prior=prior, gamma=gamma, n_max=n_max, ties=ties,
                 guarantee=guarantee, graph=graph, forward_fraction=forward_fraction,
                 direction_split=direction_split, bettor=bettor, bins=bins, transitive_closure=transitive_closure,
                 advantage_tol=advantage_tol, budget=budget, arms=arms, concentration=concentration,
                 statistic=statistic, margin=margin)
    v = VERBS["Ranker"].validate(given, trusted=[k for k in given if trusted(k)])
    pols = v["policies"]
    if len(pols) > MAX_POLICIES:
        # the graph over K = M(M-1)/2 pairs holds K x K transitions: 100 policies = 4950 pairs = 0.2 GB
        raise ParameterError(f"AnyRank ranks at most {MAX_POLICIES} policies (got {len(pols)}): its graph grows "
                             "as the fourth power of the number of policies; for many models use "
                             "`certirank leaderboard` (BB-EDGE)")
    n_max = v["n_max"]
    budget = resolve_budget(v["budget"], v["bins"], n_max if budget_horizon is None else budget_horizon, live)
    concentration, statistic = v["concentration"], v["statistic"]
    if budget == "none":
        budget_horizon = concentration = statistic = None
    else:
        budget_horizon = Integer(1).check("budget_horizon", n_max if budget_horizon is None else budget_horizon)
        from ...evidence.budget import MAX_BUDGET, default_statistic

        if budget_horizon > MAX_BUDGET:
            raise ParameterError(f"n_max = {budget_horizon} is above the exact budget test's limit {MAX_BUDGET}; "
                                 "use budget='none' (the anytime e-process) for longer campaigns")
        from ...evidence.barnard import MAX_BUDGET as BARNARD_MAX_BUDGET

        # the one rule `compare` runs (issue 31): the same statistic for the same budget and arms
        statistic, concentration = default_statistic(budget_horizon, v["arms"], statistic, concentration)
        if concentration is None:  # the mixture below the tabulated budgets: the prior measured for campaigns
            concentration = BUDGET_CONCENTRATION
        if statistic == "barnard" and budget_horizon > BARNARD_MAX_BUDGET:
            raise ParameterError(f"statistic='barnard' is built for a budget of at most {BARNARD_MAX_BUDGET} trials, "
                                 f"got {budget_horizon}; use statistic='mixture' for longer budgets")
    n_max = default_n_max if n_max is None else n_max
    if n_max > MAX_NMAX:
        raise refuse("n_max", f"an integer in [1, {MAX_NMAX:,}]", n_max)
    if budget == "final" and n_max != budget_horizon:
        raise ParameterError(f"a final budget cannot change: n_max {n_max} != the exact test's budget "
                             f"{budget_horizon}")
    return _Setup(policies=pols, alpha=v["alpha"], method=v["method"], prior=_check_prior(v["prior"], pols),
                  gamma=v["gamma"], graph=v["graph"], forward_fraction=v["forward_fraction"], ties=v["ties"],
                  guarantee=v["guarantee"], direction_split=v["direction_split"], bettor=v["bettor"], bins=v["bins"],
                  n_max=n_max, transitive_closure=v["transitive_closure"], advantage_tol=v["advantage_tol"],
                  budget=budget, arms=v["arms"], budget_horizon=budget_horizon, concentration=concentration,
                  statistic=statistic, margin=v["margin"], legacy=legacy)


_OPTIONS = VERBS["Ranker"].options


def _setup_from_dict(d: Mapping[str, Any]) -> _Setup:
    """A locked configuration as saved (today's field names, or those before 0.2: ``metric``, ``nmax``)."""
    legacy = any(old in d for old in _OLD_FIELDS)
    d = {_OLD_FIELDS.get(k, k): v for k, v in d.items()}
    budget = d.get("budget", "none")  # saved before the budget test: the e-process
    try:
        return _make_setup(d["policies"], d["alpha"], d["method"], d["prior"], d["gamma"], d["n_max"], d["ties"],
                           d["guarantee"], graph=d["graph"], forward_fraction=d["forward_fraction"],
                           direction_split=d["direction_split"], bettor=d["bettor"], bins=d["bins"],
                           transitive_closure=d["transitive_closure"], advantage_tol=d["advantage_tol"],
                           budget=budget, arms=d.get("arms", "paired"),
                           budget_horizon=d.get("budget_horizon"), concentration=d.get("concentration"),
                           # saved before the statistic choice: the mixture those campaigns ran
                           statistic=d.get("statistic", None if budget == "none" else "mixture"),
                           margin=d.get("margin"), legacy=legacy)
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
