"""Simulation scenarios: seeded, parameterised data-generating processes with known truth.

Two kinds of scenario exist, matching the two families of certified methods:

* ``policies`` (spec 03 §12, spec 06 §5–6): M policies, each with a known score distribution on [0, 1];
  one run is an ``n_max × M`` table of i.i.d. paired trials (row r = environment r for every policy), plus,
  for the Bradley–Terry baselines, a stream of synthetic preference games.
* ``leaderboard`` (spec 04 §13): L models × N benchmark items, one panel per replicate, from the BB-EDGE
  latent-Gaussian generator in :mod:`certirank.sim.bbedge_dgp` (written by the BB-EDGE helper; wrapped here,
  not duplicated).

A scenario *template* (:class:`ScenarioSpec`) has a name, a description and documented parameters with
defaults; :func:`get_scenario` turns a name plus parameter overrides into a validated, frozen scenario
object whose ``draw(seed)`` produces one run's data. The truth (true means and the set of true ordered
claims) is a property of the scenario, never of a draw.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validate import check_alpha, check_choice, check_nonnegative, check_positive_int
from ..errors import ParameterError

__all__ = [
    "Param", "ScenarioSpec", "PolicyScenario", "PolicyRun", "LeaderboardScenario", "LeaderboardRun",
    "SCENARIOS", "register_scenario", "get_scenario", "scenario_names", "describe_scenarios",
]


# --------------------------------------------------------------------------------------------------
# parameters and the registry
# --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Param:
    """One documented scenario parameter."""

    name: str
    default: Any
    doc: str
    kind: str = "float"  # float | int | str | floats | bool


#: scores drawn per simulated run (held in memory, 20 runs per chunk): 10^7 cells = 80 MB per run
MAX_RUN_CELLS = 10**7


def _parse_floats(name: str, value: Any) -> tuple[float, ...]:
    if isinstance(value, str):
        parts = [v for v in value.replace(";", ",").split(",") if v.strip()]
        try:
            return tuple(float(v) for v in parts)
        except ValueError:
            raise ParameterError(f"{name} must be a comma-separated list of numbers, got {value!r}") from None
    try:
        return tuple(float(v) for v in np.asarray(value, dtype=float).ravel())
    except (TypeError, ValueError):
        raise ParameterError(f"{name} must be a list of numbers, got {value!r}") from None


def _coerce(param: Param, value: Any) -> Any:
    if value is None:
        return None
    if param.kind == "int":
        return check_positive_int(param.name, value, minimum=0)
    if param.kind == "float":
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise ParameterError(f"{param.name} must be a number, got {value!r}") from None
        if math.isnan(v) or math.isinf(v):
            raise ParameterError(f"{param.name} must be a finite number, got {value!r}")
        return v
    if param.kind == "floats":
        return _parse_floats(param.name, value)
    if param.kind == "bool":
        if isinstance(value, str):
            low = value.strip().lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise ParameterError(f"{param.name} must be true or false, got {value!r}")
        return bool(value)
    return str(value)


@dataclass(frozen=True)
class ScenarioSpec:
    """A named scenario template: documented parameters with defaults and a builder.

    ``build(**params)`` receives every parameter (defaults filled in, types coerced) and returns a
    scenario object (:class:`PolicyScenario` or :class:`LeaderboardScenario`).
    """

    name: str
    kind: str
    description: str
    params: tuple[Param, ...]
    build: Callable[..., Any] = field(repr=False)
    source: str = ""

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}

    def make(self, **overrides: Any) -> Any:
        known = {p.name: p for p in self.params}
        unknown = [k for k in overrides if k not in known]
        if unknown:
            raise ParameterError(f"unknown parameter(s) {', '.join(map(repr, unknown))} for scenario "
                                 f"{self.name!r}; valid parameters: {', '.join(known) or 'none'}")
        values = self.defaults()
        for k, v in overrides.items():
            values[k] = _coerce(known[k], v)
        return self.build(**values)


SCENARIOS: dict[str, ScenarioSpec] = {}


def register_scenario(spec: ScenarioSpec) -> ScenarioSpec:
    """Add a scenario template to the registry (name -> spec); returns it."""
    SCENARIOS[spec.name] = spec
    return spec


def scenario_names() -> list[str]:
    return list(SCENARIOS)


def get_scenario(scenario: Any, **params: Any) -> Any:
    """A validated scenario object from a registered name (with parameter overrides) or a scenario object.

    Parameters
    ----------
    scenario:
        A registered name (case-insensitive, ``_`` accepted for ``-``), a :class:`ScenarioSpec`, or an
        already built :class:`PolicyScenario` / :class:`LeaderboardScenario` (then ``params`` must be empty
        or are applied with ``dataclasses.replace``).
    **params:
        Scenario parameters (see ``describe_scenarios()``); unknown names raise :class:`ParameterError`
        listing the valid ones.
    """
    if isinstance(scenario, (PolicyScenario, LeaderboardScenario)):
        if not params:
            return scenario
        names = {f.name for f in dataclasses.fields(scenario)}
        unknown = [k for k in params if k not in names]
        if unknown:
            raise ParameterError(f"unknown parameter(s) {', '.join(map(repr, unknown))} for scenario object "
                                 f"{scenario.name!r}; valid parameters: {', '.join(sorted(names))}")
        return dataclasses.replace(scenario, **params)
    if isinstance(scenario, ScenarioSpec):
        return scenario.make(**params)
    name = check_choice("scenario", scenario, list(SCENARIOS))
    return SCENARIOS[name].make(**params)


def describe_scenarios() -> list[dict[str, Any]]:
    """Plain description of every registered scenario: name, kind, description and parameters."""
    return [{"name": s.name, "kind": s.kind, "description": s.description, "source": s.source,
             "params": [{"name": p.name, "default": p.default, "doc": p.doc} for p in s.params]}
            for s in SCENARIOS.values()]


# --------------------------------------------------------------------------------------------------
# policy scenarios (AnyRank family, BT baselines)
# --------------------------------------------------------------------------------------------------

def _check_distribution(name: str, values: Sequence[float], probs: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    v = np.asarray(values, dtype=float)
    p = np.asarray(probs, dtype=float)
    if v.ndim != 1 or v.shape != p.shape or v.size == 0:
        raise ParameterError(f"score distribution of {name}: values and probabilities must be equal-length lists")
    if np.any(~np.isfinite(v)) or np.any(v < 0) or np.any(v > 1):
        raise ParameterError(f"score distribution of {name}: scores must lie in [0, 1], got {v.tolist()}")
    if np.any(p < 0) or not math.isclose(float(p.sum()), 1.0, abs_tol=1e-9):
        raise ParameterError(f"score distribution of {name}: probabilities must be >= 0 and sum to 1")
    return v, p / p.sum()


def _check_means(means: Sequence[float], what: str = "means") -> tuple[float, ...]:
    m = tuple(float(x) for x in means)
    if len(m) < 2:
        raise ParameterError(f"{what} needs at least 2 policies, got {len(m)}")
    bad = [x for x in m if not (0.0 <= x <= 1.0) or math.isnan(x)]
    if bad:
        raise ParameterError(f"{what} must lie in [0, 1] (scores are bounded), got {list(m)}")
    return m


@dataclass(frozen=True)
class PolicyRun:
    """Data of one simulated run of a policy scenario.

    Attributes
    ----------
    scores:
        ``(n_max, M)`` float array; row r is environment r for every policy (paired design).
    pref_a, pref_b, pref_y:
        A stream of synthetic preference games (spec 06 §5): policy indices ``a``, ``b`` and outcome
        ``y`` (2 = a preferred, 0 = b preferred); length ``n_games``.
    """

    scores: np.ndarray
    pref_a: np.ndarray
    pref_b: np.ndarray
    pref_y: np.ndarray


@dataclass(frozen=True)
class PolicyScenario:
    """M policies with known discrete score distributions on [0, 1] (spec 03 §12).

    Parameters
    ----------
    name:
        Scenario name (for reports).
    values, probs:
        Per policy, the support and probabilities of its score distribution.
    policies:
        Policy names (default ``pi1 … piM``).
    n_max:
        Rows per run (= per-hypothesis and per-policy trial budget of AnyRank).
    alpha:
        Family-wise error level handed to every method.
    metric:
        ``binary`` or ``progress`` (N-SCORE bins, spec 01 §3.2); fixed by the scenario, never by the data.
    preference:
        How synthetic preference games are generated for the BT baselines: ``gaussian`` (spec 06 §5:
        r ~ N(μ, μ(1 − μ)/2), higher wins) or ``scores`` (fresh draws from the score distributions, higher
        wins, ties broken uniformly at random; spec 06 §6).
    n_games:
        Length of the preference stream per run (BT baselines are fitted on its prefixes).
    prior:
        Prior means handed to prior-informed methods (spec 03 §12: the true means).
    """

    name: str
    values: tuple[tuple[float, ...], ...]
    probs: tuple[tuple[float, ...], ...]
    policies: tuple[str, ...] = ()
    n_max: int = 1000
    alpha: float = 0.05
    metric: str = "binary"
    preference: str = "gaussian"
    n_games: int = 2000
    prior: tuple[float, ...] | None = None
    description: str = ""
    kind: str = "policies"

    def __post_init__(self) -> None:
        if len(self.values) != len(self.probs):
            raise ParameterError("values and probs must give one distribution per policy")
        if len(self.values) < 2:
            raise ParameterError(f"a policy scenario needs at least 2 policies, got {len(self.values)}")
        names = self.policies or tuple(f"pi{i + 1}" for i in range(len(self.values)))
        if len(names) != len(self.values) or len(set(names)) != len(names):
            raise ParameterError(f"policies must be {len(self.values)} distinct names, got {list(names)}")
        object.__setattr__(self, "policies", tuple(str(n) for n in names))
        vals, prbs = [], []
        for nm, v, p in zip(names, self.values, self.probs):
            v2, p2 = _check_distribution(nm, v, p)
            vals.append(tuple(v2.tolist()))
            prbs.append(tuple(p2.tolist()))
        object.__setattr__(self, "values", tuple(vals))
        object.__setattr__(self, "probs", tuple(prbs))
        check_positive_int("n_max", self.n_max, maximum=MAX_RUN_CELLS // len(self.values))
        check_positive_int("n_games", self.n_games, maximum=MAX_RUN_CELLS)
        object.__setattr__(self, "alpha", check_alpha(self.alpha))
        object.__setattr__(self, "metric", check_choice("metric", self.metric, ["binary", "progress"]))
        object.__setattr__(self, "preference", check_choice("preference", self.preference, ["gaussian", "scores"]))
        if self.metric == "binary" and any(set(v) - {0.0, 1.0} for v in self.values):
            raise ParameterError("metric 'binary' needs 0/1 scores; use metric='progress' for partial credit")
        if self.prior is not None:
            object.__setattr__(self, "prior", _check_means(self.prior, "prior"))
            if len(self.prior) != len(self.values):
                raise ParameterError(f"prior needs {len(self.values)} values, got {len(self.prior)}")

    # truth -------------------------------------------------------------------------------------
    @property
    def n_policies(self) -> int:
        return len(self.values)

    @property
    def means(self) -> np.ndarray:
        return np.array([float(np.dot(v, p)) for v, p in zip(self.values, self.probs)])

    @property
    def tau(self) -> float:
        return 0.0

    def truth(self) -> np.ndarray:
        """``(M, M)`` bool: ``truth[a, b]`` iff the claim "a better than b" is correct (μ_a > μ_b)."""
        mu = self.means
        return (mu[:, None] - mu[None, :]) > 1e-12

    # drawing -----------------------------------------------------------------------------------
    def draw(self, seed: Any) -> PolicyRun:
        """One run's data from ``seed`` (int, SeedSequence or Generator)."""
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        m = self.n_policies
        u = rng.random((self.n_max, m))
        scores = np.empty((self.n_max, m))
        for j in range(m):
            v = np.asarray(self.values[j])
            cdf = np.cumsum(self.probs[j])
            cdf[-1] = 1.0
            # inverse-CDF draw: one uniform per cell keeps every policy's stream independent of the others
            scores[:, j] = v[np.minimum(np.searchsorted(cdf, u[:, j], side="right"), v.size - 1)]
        a, b, y = self._games(rng)
        return PolicyRun(scores=scores, pref_a=a, pref_b=b, pref_y=y)

    def _games(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        n, m = self.n_games, self.n_policies
        a = rng.integers(0, m, size=n)
        b = (a + rng.integers(1, m, size=n)) % m  # uniform over the other m − 1 policies
        if self.preference == "gaussian":
            mu = self.means
            sd = np.sqrt(mu * (1 - mu) / 2)
            ra = rng.normal(mu[a], sd[a])
            rb = rng.normal(mu[b], sd[b])
            y = np.where(ra > rb, 2, 0)
        else:
            u = rng.random((n, 3))
            ra = np.empty(n)
            rb = np.empty(n)
            for j in range(m):
                v = np.asarray(self.values[j])
                cdf = np.cumsum(self.probs[j])
                cdf[-1] = 1.0
                sa, sb = a == j, b == j
                ra[sa] = v[np.minimum(np.searchsorted(cdf, u[sa, 0], side="right"), v.size - 1)]
                rb[sb] = v[np.minimum(np.searchsorted(cdf, u[sb, 1], side="right"), v.size - 1)]
            y = np.where(ra > rb, 2, np.where(ra < rb, 0, np.where(u[:, 2] < 0.5, 2, 0)))
        return a.astype(np.int64), b.astype(np.int64), y.astype(np.int64)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "policies": list(self.policies),
                "means": self.means.tolist(), "n_max": self.n_max, "alpha": self.alpha, "metric": self.metric,
                "preference": self.preference, "n_games": self.n_games,
                "prior": None if self.prior is None else list(self.prior)}


def bernoulli_scenario(name: str, means: Sequence[float], **kw: Any) -> PolicyScenario:
    mu = _check_means(means)
    return PolicyScenario(name=name, values=tuple((0.0, 1.0) for _ in mu),
                          probs=tuple((1.0 - p, p) for p in mu), **kw)


def progress_scenario(name: str, means: Sequence[float], levels: int = 10, **kw: Any) -> PolicyScenario:
    """Partial-credit policies: score = Binomial(levels, μ)/levels (this project's choice).

    With ``levels = 10`` the scores land exactly on the N-SCORE progress bins (0, 0.1, …, 1), the means are
    the Bernoulli scenario's and the variance is 1/levels of it.
    """
    from scipy.stats import binom

    mu = _check_means(means)
    grid = tuple(float(k) / levels for k in range(levels + 1))
    probs = tuple(tuple(binom.pmf(np.arange(levels + 1), levels, p).tolist()) for p in mu)
    kw.setdefault("metric", "progress")
    return PolicyScenario(name=name, values=tuple(grid for _ in mu), probs=probs, **kw)


def _policy_builder(name: str, description: str, *, partial: bool,
                    preference: str = "gaussian") -> Callable[..., PolicyScenario]:
    def build(means: tuple[float, ...], n_max: int, alpha: float, n_games: int, **rest: Any) -> PolicyScenario:
        mu = _check_means(means)
        kw = dict(n_max=n_max, alpha=alpha, n_games=n_games, prior=mu, description=description,
                  preference=rest.get("preference", preference))
        if partial:
            return progress_scenario(name, mu, levels=int(rest.get("levels", 10)), **kw)
        return bernoulli_scenario(name, mu, **kw)
    return build


def _register_policy(name: str, description: str, means: tuple[float, ...], *, partial: bool = False,
                     source: str = "spec 03 §12.1", alpha: float = 0.05, n_max: int = 1000) -> None:
    params = [Param("means", means, "true mean score per policy, each in [0, 1]", "floats"),
              Param("n_max", n_max, "rows (trials per policy) per run; the paper used 2000, the authors' code 1000",
                    "int"),
              Param("alpha", alpha, "family-wise error level handed to every method"),
              Param("n_games", 2000, "preference games per run for the BT baselines (fitted on prefixes)", "int"),
              Param("preference", "gaussian" if not partial else "scores",
                    "BT preference generator: gaussian (spec 06 §5) or scores (higher score wins, random ties)", "str")]
    if partial:
        params.append(Param("levels", 10, "partial-credit levels: score = Binomial(levels, mean)/levels", "int"))
    register_scenario(ScenarioSpec(name=name, kind="policies", description=description, params=tuple(params),
                                   build=_policy_builder(name, description, partial=partial), source=source))


_register_policy("HO-F", "homogeneous feasible: Bernoulli(0.1, 0.3, 0.5, 0.7, 0.9); 10/10 pairs decidable",
                 (0.10, 0.30, 0.50, 0.70, 0.90))
_register_policy("HE-F", "heterogeneous feasible: Bernoulli(0.2, 0.35, 0.45, 0.65, 0.9); 10/10 pairs decidable",
                 (0.20, 0.35, 0.45, 0.65, 0.90))
_register_policy("HO-I", "homogeneous infeasible: Bernoulli(0.2, 0.4, 0.4, 0.6, 0.8); 9/10 decidable, ordering "
                 "the tied pair is an error", (0.20, 0.40, 0.40, 0.60, 0.80))
_register_policy("HO-F-progress", "HO-F means with partial credit Binomial(10, μ)/10 (metric progress)",
                 (0.10, 0.30, 0.50, 0.70, 0.90), partial=True, source="this project's partial-credit variant")
_register_policy("HE-F-progress", "HE-F means with partial credit Binomial(10, μ)/10 (metric progress)",
                 (0.20, 0.35, 0.45, 0.65, 0.90), partial=True, source="this project's partial-credit variant")
_register_policy("HO-I-progress", "HO-I means with partial credit Binomial(10, μ)/10; the tied pair stays tied",
                 (0.20, 0.40, 0.40, 0.60, 0.80), partial=True, source="this project's partial-credit variant")
_register_policy("bernoulli", "custom Bernoulli policies: pass means=...", (0.3, 0.5, 0.7),
                 source="generic")
_register_policy("progress", "custom partial-credit policies Binomial(levels, μ)/levels: pass means=...",
                 (0.3, 0.5, 0.7), partial=True, source="generic")


def _build_bt_counterexample(n_max: int, alpha: float, n_games: int, preference: str) -> PolicyScenario:
    return PolicyScenario(
        name="BT-counterexample",
        values=((0.0, 1.0), (0.0, 1.0), (0.8, 0.9)), probs=((0.7, 0.3), (0.3, 0.7), (0.5, 0.5)),
        n_max=n_max, alpha=alpha, metric="progress", preference=preference, n_games=n_games,
        prior=(0.3, 0.7, 0.85),
        description="pi1 ~ Bernoulli(0.3), pi2 ~ Bernoulli(0.7), pi3 ~ Uniform{0.8, 0.9}: true order pi3 > pi2 > "
                    "pi1, BT's limit orders pi2 above pi3")


register_scenario(ScenarioSpec(
    name="BT-counterexample", kind="policies",
    description="partial-credit counterexample where Bradley-Terry is inconsistent for the mean ranking",
    params=(Param("n_max", 1000, "rows (trials per policy) per run", "int"),
            Param("alpha", 0.05, "family-wise error level"),
            Param("n_games", 2000, "preference games per run (higher score wins, ties at random)", "int"),
            Param("preference", "scores", "BT preference generator: scores (spec 06 §6) or gaussian", "str")),
    build=_build_bt_counterexample, source="spec 03 §12.1, spec 06 §6"))


def _build_scalability(m: int, n_max: int, alpha: float, n_games: int, preference: str) -> PolicyScenario:
    m = check_positive_int("m", m, minimum=2)
    mu = tuple((i + 0.5) / m for i in range(m))
    return bernoulli_scenario(f"scalability-M{m}", mu, n_max=n_max, alpha=alpha, n_games=n_games, prior=mu,
                              preference=preference,
                              description=f"M = {m} equally spaced Bernoulli policies, μ_i = (i + 0.5)/M")


register_scenario(ScenarioSpec(
    name="scalability", kind="policies",
    description="M equally spaced Bernoulli policies μ_i = (i + 0.5)/M (compare AnyRank γ = 1 with Bonferroni)",
    params=(Param("m", 5, "number of policies (paper grid 3, 5, 7, 10, 15, 20)", "int"),
            Param("n_max", 500, "rows per run (paper grid 500, 5000)", "int"),
            Param("alpha", 0.1, "family-wise error level (the scalability study used 0.1)"),
            Param("n_games", 2000, "preference games per run for the BT baselines", "int"),
            Param("preference", "gaussian", "BT preference generator", "str")),
    build=_build_scalability, source="spec 03 §12.1 (reconstruction)"))


# --------------------------------------------------------------------------------------------------
# leaderboard scenarios (BB-EDGE family) — filled in by _leaderboard.py
# --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class LeaderboardRun:
    """Data of one simulated leaderboard run.

    Attributes
    ----------
    scores:
        ``(R, L, N)`` float array: replicate × model × item.
    blocks:
        ``(N,)`` int block id of every item (the design's true blocks).
    weights:
        ``(N,)`` item weights summing to 1.
    stages:
        Optional per-replicate metadata for epoch/model-addition scenarios (see the scenario).
    """

    scores: np.ndarray
    blocks: np.ndarray
    weights: np.ndarray
    stages: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class LeaderboardScenario:
    """L models × N items × R replicates from the BB-EDGE synthetic DGP (spec 04 §13).

    ``theta`` holds the benchmark-weighted true means; a claim a → b is correct iff θ_a − θ_b > τ.
    ``generate(rng, R)`` (a closure over the wrapped generator) draws the ``(R, L, N)`` panel.
    """

    name: str
    theta: tuple[float, ...]
    n_items: int
    replicates: int
    blocks: tuple[int, ...]
    generate: Callable[[np.random.Generator], np.ndarray] = field(repr=False, compare=False)
    alpha: float = 0.05
    tau: float = 0.0
    k: int = 4
    setting: str = "iid"
    params: Mapping[str, Any] = field(default_factory=dict)
    description: str = ""
    kind: str = "leaderboard"
    stages: Mapping[str, Any] = field(default_factory=dict)

    @property
    def n_policies(self) -> int:
        return len(self.theta)

    @property
    def policies(self) -> tuple[str, ...]:
        return tuple(f"m{i + 1:02d}" for i in range(len(self.theta)))

    @property
    def means(self) -> np.ndarray:
        return np.asarray(self.theta, dtype=float)

    def truth(self) -> np.ndarray:
        th = self.means
        return (th[:, None] - th[None, :]) > self.tau + 1e-12

    def true_topk(self) -> frozenset[int] | None:
        """The true Top-k set, or None when θ is tied across the k-th boundary."""
        order = np.argsort(-self.means, kind="stable")
        th = self.means[order]
        if self.k < 1 or self.k >= len(th) or not th[self.k - 1] > th[self.k] + self.tau + 1e-12:
            return None
        return frozenset(int(i) for i in order[: self.k])

    def draw(self, seed: Any) -> LeaderboardRun:
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        scores = np.asarray(self.generate(rng), dtype=float)
        n = self.n_items
        return LeaderboardRun(scores=scores, blocks=np.asarray(self.blocks, dtype=np.int64),
                              weights=np.full(n, 1.0 / n), stages=dict(self.stages))

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "setting": self.setting, "models": list(self.policies),
                "theta": list(self.theta), "n_items": self.n_items, "replicates": self.replicates,
                "alpha": self.alpha, "tau": self.tau, "k": self.k, **{k: v for k, v in self.params.items()}}


# --------------------------------------------------------------------------------------------------
# leaderboard scenarios: thin wrappers over certirank.sim.bbedge_dgp (the BB-EDGE helper's generator)
# --------------------------------------------------------------------------------------------------

_LB_PARAMS = (
    Param("L", 10, "number of models (even: the means come in tied pairs)", "int"),
    Param("N", 100, "number of benchmark items (even)", "int"),
    Param("R", 100, "replicates per run (the time horizon)", "int"),
    Param("block_size", 5, "items per design block (contiguous); the true blocks BB-EDGE uses", "int"),
    Param("kappa1", None, "within-block latent correlation (default: the setting's)", "float"),
    Param("kappa2", None, "within-item latent correlation across models (default: the setting's)", "float"),
    Param("eta", 0.10, "heterogeneity amplitude of the tied pairs (heterogeneity/combined settings)"),
    Param("tau", 0.0, "margin: a claim a -> b is correct iff theta_a - theta_b > tau"),
    Param("alpha", 0.05, "family-wise error level"),
    Param("k", 4, "Top-k size for CertProb / FCP / CR", "int"),
)


def _leaderboard(name: str, setting: str, L: int, N: int, R: int, block_size: int, kappa1: float | None,
                 kappa2: float | None, eta: float, tau: float, alpha: float, k: int, *,
                 stages: Mapping[str, Any] | None = None, description: str = "") -> LeaderboardScenario:
    from . import bbedge_dgp as dgp

    setting = check_choice("setting", setting, list(dgp.SETTINGS))
    L = check_positive_int("L", L, minimum=2)
    N = check_positive_int("N", N, minimum=2)
    R = check_positive_int("R", R)
    if L * N * R > MAX_RUN_CELLS:
        raise ParameterError(f"L x N x R = {L * N * R:,} scores per run is too large (at most {MAX_RUN_CELLS:,}; "
                             "each run's panel is held in memory)")
    block_size = check_positive_int("block_size", block_size)
    k = check_positive_int("k", k)
    tau = check_nonnegative("tau", tau)
    if tau >= 1:
        raise ParameterError(f"tau must be < 1, got {tau}")
    alpha = check_alpha(alpha)
    het = dgp.SETTINGS[setting][2]
    # validates L, N, eta (probabilities must stay inside (0, 1)) before any run starts
    p = dgp.bbedge_probabilities(L, N, eta, het)
    theta = dgp.bbedge_thetas(L)
    k1, k2, _ = dgp.SETTINGS[setting]
    k1 = k1 if kappa1 is None else float(kappa1)
    k2 = k2 if kappa2 is None else float(kappa2)
    if k1 < 0 or k2 < 0 or k1 + k2 > 1:
        raise ParameterError(f"need kappa1, kappa2 >= 0 with kappa1 + kappa2 <= 1, got {k1}, {k2}")

    def generate(rng: np.random.Generator) -> np.ndarray:
        return dgp.bbedge_panels(rng, setting, L, N, R, block_size, kappa1=k1, kappa2=k2, eta=eta, p=p)

    blocks = tuple(int(b) for b in dgp.bbedge_blocks(N, block_size))
    return LeaderboardScenario(
        name=name, theta=tuple(float(t) for t in theta), n_items=N, replicates=R, blocks=blocks, generate=generate,
        alpha=alpha, tau=tau, k=k, setting=setting,
        params={"L": L, "N": N, "R": R, "block_size": block_size, "kappa1": k1, "kappa2": k2, "eta": eta},
        description=description or f"BB-EDGE synthetic DGP, {setting} setting", stages=dict(stages or {}))


def _lb_builder(name: str, setting: str | None) -> Callable[..., LeaderboardScenario]:
    def build(**kw: Any) -> LeaderboardScenario:
        s = kw.pop("setting", setting)
        return _leaderboard(name if setting else f"bbedge-{s}", s, **kw)
    return build


for _setting, _what in (("iid", "kappa1 = 0, kappa2 = 0.1, no heterogeneity"),
                        ("heterogeneity", "tied pairs with opposite item effects (±eta on item halves)"),
                        ("dependence", "kappa1 = 0.5 within-block latent correlation"),
                        ("combined", "heterogeneity and within-block dependence")):
    register_scenario(ScenarioSpec(
        name=f"bbedge-{_setting}", kind="leaderboard",
        description=f"BB-EDGE DGP ({_what}): L = 10 models in 5 tied pairs on [0.41, 0.59], N = 100 items, "
                    "R = 100 replicates", params=_LB_PARAMS, build=_lb_builder(f"bbedge-{_setting}", _setting),
        source="spec 04 §13"))

register_scenario(ScenarioSpec(
    name="bbedge", kind="leaderboard", description="BB-EDGE DGP with the setting as a parameter",
    params=(Param("setting", "iid", "iid | heterogeneity | dependence | combined", "str"), *_LB_PARAMS),
    build=_lb_builder("bbedge", None), source="spec 04 §13"))


def _build_expansion(setting: str, switch1: int, switch2: int, **kw: Any) -> LeaderboardScenario:
    from . import bbedge_dgp as dgp

    n = int(kw["N"])
    versions = [tuple(int(i) for i in v) for v in dgp.bbedge_expansion_versions(n)]
    s1 = check_positive_int("switch1", switch1)
    s2 = check_positive_int("switch2", switch2)
    if not s1 < s2 < int(kw["R"]):
        raise ParameterError(f"need switch1 < switch2 < R, got {s1}, {s2}, R = {kw['R']}")
    return _leaderboard(f"bbedge-expansion-{setting}", setting, **kw,
                        stages={"versions": versions, "switches": (s1, s2)},
                        description="benchmark expansion (spec 04 §13.4): versions of 40, 70, 100 items, "
                                    f"switching after replicates {s1} and {s2}")


register_scenario(ScenarioSpec(
    name="bbedge-expansion", kind="leaderboard",
    description="benchmark expansion with epoch reset: 40 -> 70 -> 100 items, switches after replicates 10 and 20",
    params=(Param("setting", "heterogeneity", "iid | heterogeneity | dependence | combined", "str"),
            Param("switch1", 10, "replicate after which version 2 starts", "int"),
            Param("switch2", 20, "replicate after which version 3 starts", "int"), *_LB_PARAMS),
    build=_build_expansion, source="spec 04 §9.1, §13.4 (reconstruction)"))


def _build_addition(setting: str, n_new: int, **kw: Any) -> LeaderboardScenario:
    n_new = check_positive_int("n_new", n_new)
    if n_new >= int(kw["L"]) - 1:
        raise ParameterError(f"n_new must leave at least 2 initial models, got n_new = {n_new}, L = {kw['L']}")
    return _leaderboard(f"bbedge-addition-{setting}", setting, **kw,
                        stages={"n_new": n_new},
                        description=f"model addition (spec 04 §9.2): the last {n_new} model(s) join a board of "
                                    f"{int(kw['L']) - n_new}, paired replicate r with r")


register_scenario(ScenarioSpec(
    name="bbedge-addition", kind="leaderboard",
    description="model addition: the last n_new models join later and are tested at a spent level",
    params=(Param("setting", "iid", "iid | heterogeneity | dependence | combined", "str"),
            Param("n_new", 1, "models added after the initial board", "int"), *_LB_PARAMS),
    build=_build_addition, source="spec 04 §9.2"))


# --------------------------------------------------------------------------------------------------
# score-matrix scenarios: environments drawn i.i.d. from the rows of a test-case × policy matrix
# --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class MatrixScenario(PolicyScenario):
    """Paired trials from a fixed score matrix: environment r is a row drawn uniformly at random, and every
    policy's trial r is its matrix entry in that row (so scores are dependent within a row, as in real
    evaluations). True means are the column means; ``values``/``probs`` hold the marginal distributions."""

    matrix: np.ndarray | None = field(default=None, repr=False, compare=False)

    def draw(self, seed: Any) -> PolicyRun:
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        a = np.asarray(self.matrix, dtype=float)
        rows = rng.integers(0, a.shape[0], size=self.n_max)
        scores = a[rows]
        n, m = self.n_games, self.n_policies
        pa = rng.integers(0, m, size=n)
        pb = (pa + rng.integers(1, m, size=n)) % m
        env = rng.integers(0, a.shape[0], size=n)
        ra, rb = a[env, pa], a[env, pb]
        coin = rng.random(n) < 0.5
        y = np.where(ra > rb, 2, np.where(ra < rb, 0, np.where(coin, 2, 0)))
        return PolicyRun(scores=scores, pref_a=pa.astype(np.int64), pref_b=pb.astype(np.int64),
                         pref_y=y.astype(np.int64))


def _build_racing_arrows(m: int, pool: int, configuration: str, matrix_seed: int, n_max: int, alpha: float,
                         n_games: int) -> MatrixScenario:
    from .racing_arrows import racing_arrows_matrix

    m = check_positive_int("m", m, minimum=2)
    pool = check_positive_int("pool", pool, minimum=2)
    if m > pool:
        raise ParameterError(f"m = {m} policies cannot be picked from a pool of {pool}")
    frame = racing_arrows_matrix(pool, configuration=configuration, seed=matrix_seed)
    means = frame.mean(axis=0).to_numpy()
    order = np.argsort(means, kind="stable")
    # m policies at evenly spaced ranks of the pool's mean score: a spread of easy and hard pairs
    pick = order[np.unique(np.round(np.linspace(0, pool - 1, m)).astype(int))]
    pick = np.sort(pick)
    a = frame.to_numpy(dtype=float)[:, pick]
    names = tuple(str(frame.columns[j]) for j in pick)
    mu = a.mean(axis=0)
    return MatrixScenario(
        name="racing-arrows", values=tuple((0.0, 1.0) for _ in mu), probs=tuple((1 - p, p) for p in mu),
        policies=names, n_max=n_max, alpha=alpha, metric="binary", preference="scores", n_games=n_games,
        prior=tuple(float(p) for p in mu), matrix=a,
        description=f"{m} Racing Arrows {configuration} (re-creation) on environments drawn from {a.shape[0]} "
                    "test cases")


register_scenario(ScenarioSpec(
    name="racing-arrows", kind="policies",
    description="Racing Arrows re-creation: m policies of a pool, environments = random test cases of the "
                "score matrix (paired, dependent scores)",
    params=(Param("m", 5, "policies picked at evenly spaced ranks of the pool's mean score", "int"),
            Param("pool", 50, "leaders and followers in the generated game matrix", "int"),
            Param("configuration", "followers", "followers (policies = followers) or leaders", "str"),
            Param("matrix_seed", 0, "seed of the angle shifts of the game matrix", "int"),
            Param("n_max", 1000, "rows (trials per policy) per run", "int"),
            Param("alpha", 0.05, "family-wise error level"),
            Param("n_games", 2000, "preference games per run (same test case for both, higher score wins)", "int")),
    build=_build_racing_arrows, source="spec 05 §12.2 (this project's re-creation)"))
