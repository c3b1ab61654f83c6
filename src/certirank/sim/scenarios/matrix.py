"""Score-matrix scenarios: environments drawn i.i.d. from the rows of a test-case x policy matrix."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..._validate import check_positive_int
from ...errors import ParameterError
from .policy import PolicyRun, PolicyScenario
from .registry import Param, ScenarioSpec, register_scenario

__all__ = ["MatrixScenario"]



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
    from ..racing_arrows import racing_arrows_matrix

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
