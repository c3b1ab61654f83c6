"""Policy scenarios (AnyRank family, BT baselines; spec 03 §12, spec 06 §5-6): M policies with known score
distributions on [0, 1], paired trials plus a stream of synthetic preference games."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..._validate import check_alpha, check_choice, check_positive_int
from ...errors import ParameterError
from .registry import MAX_RUN_CELLS, Param, ScenarioSpec, register_scenario

__all__ = ["PolicyRun", "PolicyScenario", "bernoulli_scenario", "progress_scenario"]



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
