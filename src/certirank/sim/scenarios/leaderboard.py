"""Leaderboard scenarios (BB-EDGE family, spec 04 §13): L models x N items x R replicates, thin wrappers over
:mod:`certirank.sim.bbedge_dgp` (the BB-EDGE helper's generator; wrapped, not duplicated)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..._validate import check_alpha, check_choice, check_nonnegative, check_positive_int
from ...errors import ParameterError
from .registry import MAX_RUN_CELLS, Param, ScenarioSpec, register_scenario

__all__ = ["LeaderboardRun", "LeaderboardScenario"]



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
# the registered templates
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
    from .. import bbedge_dgp as dgp

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
    from .. import bbedge_dgp as dgp

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
