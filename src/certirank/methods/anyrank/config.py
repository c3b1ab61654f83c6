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

from ..._validate import check_alpha, check_choice, check_nonnegative, check_positive_int
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



METHODS = ("anyrank", "anyrank0", "anyrank-inf", "bonferroni", "weighted-bonferroni")
RECYCLING = ("anyrank", "anyrank0", "anyrank-inf")
GUARANTEES = ("paper", "strict")
TIES = ("allow", "assume_none")
GRAPHS = ("soft_masked", "fully_connected")
METRICS = ("progress", "binary")
PAIRINGS = ("by_row", "by_order")
BETTORS = ("nscore", "bernoulli_kelly", "agrapa", "ons", "prpl_eb", "hoeffding")
#: per-comparison test: the anytime e-process ("none") or the exact budget test of spec 08 ("final",
#: "extendable"); "auto" (default) resolves to one of them when the setup is made (`_resolve_budget`)
BUDGETS = ("auto", "none", "final", "extendable")
#: "auto" picks the exact test only up to this budget: its p-value grid costs O(n_max^2) once per process
#: (about 4 s at 1000, 15 s at 2000 on one core), and it has no precomputed table beyond 2500
AUTO_BUDGET_MAX = 2500
ARMS = ("paired", "independent")
#: Beta(a, a) concentration of AnyRank's exact budget test unless given (see docs/anyrank.md: a campaign
#: must separate gaps from the hardest up to large ones, and spends most rollouts on the easy ones early;
#: Beta(4, 4) on q >= 1/2 spreads the statistic's power over q - 1/2 in about 0.05 .. 0.3)
BUDGET_CONCENTRATION = 4.0
#: the exact test's statistic for new campaigns (`evidence.budget.STATISTICS`): the fastest-decision boundaries
#: for the Beta(4, 4) prior decide a campaign with fewer rollouts than thresholding the mixture itself (docs/
#: anyrank.md); campaigns saved before it existed keep "mixture" (their locked config has no statistic)
BUDGET_STATISTIC = "bayes"
#: ... from this budget up (to the largest it is tabulated for); below it the mixture (which keeps more power at
#: the budget; at small budgets there is little time to save and the fastest-decision rules thin out)
BAYES_MIN_BUDGET = 500

COMPLETE = "complete ranking"
EXHAUSTED = "budget or data exhausted"
NO_LEVEL = "no level left on active hypotheses"
STOPPED = "stopped by user"
TERMINATIONS = (COMPLETE, EXHAUSTED, NO_LEVEL, STOPPED)

FORMAT = "certirank.anyrank.v1"
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
    budget: str = "none"
    arms: str = "paired"
    budget_horizon: int | None = None  # trials per comparison the exact test is calibrated for (fixed)
    concentration: float | None = None
    statistic: str | None = None

    @property
    def m(self) -> int:
        return len(self.policies)

    def locked(self) -> dict[str, Any]:
        """The fields that define the graph and the tests (nmax may grow: stopping is free)."""
        d = self.to_dict()
        d.pop("nmax")
        if self.budget == "none":  # campaigns saved before the budget test keep their checksum
            for key in ("budget", "arms", "budget_horizon", "concentration"):
                d.pop(key)
        if self.statistic in (None, "mixture"):  # ... and those saved before the statistic choice too
            d.pop("statistic")
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
        if isinstance(prior, (str, bytes)) or not hasattr(prior, "__iter__"):
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
    outside = [f"{p} = {f:g}" for p, f in zip(policies, out) if not 0.0 <= f <= 1.0]
    if outside:
        import warnings

        from ...errors import CertirankWarning
        warnings.warn(f"prior means outside [0, 1] ({', '.join(outside[:3])}): scores live in [0, 1], so this "
                      "prior is probably on another scale; only its differences are used", CertirankWarning,
                      stacklevel=4)
    return tuple(out)


def _make_setup(policies: Any, alpha: float, method: str, prior: Any, gamma: float, nmax: Any, ties: str,
                guarantee: str, *, graph: str = "soft_masked", forward_fraction: float = 0.9,
                direction_split: float = DIRECTION_SPLIT, bettor: str = "nscore", metric: str = "progress",
                transitive_closure: bool = True, advantage_tol: float = ADVANTAGE_TOL,
                default_nmax: int = LIVE_NMAX, budget: str = "auto", arms: str = "paired",
                budget_horizon: int | None = None, concentration: float | None = None,
                statistic: str | None = None, live: bool = False) -> _Setup:
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
    budget = _resolve_budget(check_choice("budget", budget, BUDGETS), metric, nmax, budget_horizon, live)
    arms = check_choice("arms", arms, ARMS)
    if budget == "none":
        budget_horizon = concentration = statistic = None
    else:
        concentration = BUDGET_CONCENTRATION if concentration is None else check_nonnegative("concentration",
                                                                                             concentration)
        if not concentration > 0:
            raise ParameterError(f"concentration must be positive, got {concentration!r}")
        # spec 08 §5: the exact test needs scores declared binary and a budget declared before any data
        if metric != "binary":
            raise ParameterError(f"budget={budget!r} (the exact budget test) needs binary scores: pass "
                                 "bins='binary' (success/failure data only; it is never inferred)")
        if nmax is None and budget_horizon is None:
            raise ParameterError(f"budget={budget!r} needs the per-comparison budget: pass n_max explicitly")
        budget_horizon = check_positive_int("budget horizon", nmax if budget_horizon is None else budget_horizon)
        from ...evidence.budget import BAYES_MAX_BUDGET, MAX_BUDGET, check_statistic

        if budget_horizon > MAX_BUDGET:
            raise ParameterError(f"n_max = {budget_horizon} is above the exact budget test's limit {MAX_BUDGET}; "
                                 "use budget='none' (the anytime e-process) for longer campaigns")
        from ...evidence.barnard import MAX_BUDGET as BARNARD_MAX_BUDGET

        if statistic is None and arms == "independent" and budget_horizon <= BARNARD_MAX_BUDGET:
            statistic = "barnard"  # both success counts (issue 31): the most powerful test for independent arms
        if statistic is None:
            statistic = BUDGET_STATISTIC if BAYES_MIN_BUDGET <= budget_horizon <= BAYES_MAX_BUDGET else "mixture"
        statistic = check_statistic(statistic)
        if statistic == "barnard" and (arms != "independent" or budget_horizon > BARNARD_MAX_BUDGET):
            raise ParameterError("statistic='barnard' needs arms='independent' and a budget of at most "
                                 f"{BARNARD_MAX_BUDGET} trials, got arms={arms!r}, budget {budget_horizon}")
    nmax = default_nmax if nmax is None else check_positive_int("n_max", nmax, maximum=MAX_NMAX)
    if budget == "final" and nmax != budget_horizon:
        raise ParameterError(f"a final budget cannot change: n_max {nmax} != the exact test's budget "
                             f"{budget_horizon}")
    return _Setup(policies=pols, alpha=alpha, method=method, prior=_check_prior(prior, pols), gamma=gamma,
                  graph=graph, forward_fraction=ff, ties=ties, guarantee=guarantee, direction_split=q,
                  bettor=bettor, metric=metric, nmax=nmax, transitive_closure=bool(transitive_closure),
                  advantage_tol=tol, budget=budget, arms=arms, budget_horizon=budget_horizon,
                  concentration=concentration, statistic=statistic)


def _resolve_budget(budget: str, metric: str, nmax: Any, budget_horizon: Any, live: bool) -> str:
    """``auto``: the exact budget test (spec 08) when the scores are declared binary and the per-comparison
    budget is given explicitly (never inferred from the data: a budget read off the recorded rows could
    depend on the outcomes), else the anytime e-process.

    Replay and simulation (``live=False``) get ``final``: the table is fixed and nothing can extend it, and
    the final form is the more powerful. The live `Ranker` gets ``extendable``: :meth:`Ranker.extend` raises
    ``n_max`` at any time, which a final budget refuses, so a final default would break a campaign that
    extends; the extendable form keeps ``extend`` working and stays valid for ever.
    """
    if budget != "auto":
        return budget
    horizon = nmax if budget_horizon is None else budget_horizon
    if metric != "binary" or horizon is None:
        return "none"
    try:
        if int(horizon) > AUTO_BUDGET_MAX:
            return "none"
    except (TypeError, ValueError):
        return "none"  # the n_max check below reports it
    return "extendable" if live else "final"


_OPTIONS = ("graph", "forward_fraction", "direction_split", "bettor", "metric", "transitive_closure", "advantage_tol",
            "budget", "arms", "concentration", "statistic")


def _check_options(options: Mapping[str, Any]) -> dict[str, Any]:
    options = dict(options)
    if "bins" in options:  # the public name; the locked configuration keeps "metric" (saved campaigns)
        options["metric"] = options.pop("bins")
    extra = sorted(set(options) - set(_OPTIONS))
    if extra:
        raise ParameterError(f"unknown option(s) {', '.join(extra)}; AnyRank options are: {', '.join(_OPTIONS)}")
    return options


def _setup_from_dict(d: Mapping[str, Any]) -> _Setup:
    try:
        return _make_setup(d["policies"], d["alpha"], d["method"], d["prior"], d["gamma"], d["nmax"], d["ties"],
                           d["guarantee"], graph=d["graph"], forward_fraction=d["forward_fraction"],
                           direction_split=d["direction_split"], bettor=d["bettor"], metric=d["metric"],
                           transitive_closure=d["transitive_closure"], advantage_tol=d["advantage_tol"],
                           budget=d.get("budget", "none"), arms=d.get("arms", "paired"),
                           budget_horizon=d.get("budget_horizon"), concentration=d.get("concentration"),
                           # saved before the statistic choice: the mixture those campaigns ran
                           statistic=d.get("statistic", "mixture"))
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
