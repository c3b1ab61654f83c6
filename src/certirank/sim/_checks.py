"""The built-in rows of ``certirank validate``: scenarios chosen to break the family-wise guarantee if it can be
broken (exact ties at 0, 0.5 and 1, near ties, many equal policies, heterogeneous and dependent items with a zero
average difference, tiny budgets, continuous scores with equal means and different shapes, a finite table replayed
sorted, the strict guarantee on near ties, model addition and benchmark updates for leaderboards).

Each row registers itself with :func:`certirank.sim.validation.register_check`; other modules add theirs the
same way (listed in ``validation.ROW_MODULES``). A builder receives ``(alpha, quick)``; ``quick`` rows use
smaller budgets, boards and fewer equal policies so that ``validate --quick`` runs in about a minute, while the
row test (and so the guarantee checked) is the same at both levels.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .scenarios import MatrixScenario, PolicyRun, PolicyScenario, bernoulli_scenario
from .validation import Check, register_check

__all__: list[str] = []

#: per-comparison budgets of the policy rows (quick, full)
_N_MAX = (200, 1000)
#: the leaderboard rows' boards (quick, full): models, items, replicates
_BOARD = ({"L": 6, "N": 40, "R": 12}, {"R": 30})


def _n(full: int, quick: bool) -> int:
    return min(full, _N_MAX[0]) if quick else full


def _bern(means: Sequence[float], n_max: int, quick_means: Sequence[float] | None = None
          ) -> Callable[[float, bool], PolicyScenario]:
    def build(alpha: float, quick: bool) -> PolicyScenario:
        mu = tuple(quick_means) if quick and quick_means is not None else tuple(means)
        return bernoulli_scenario("validate", mu, n_max=_n(n_max, quick), alpha=alpha, n_games=10)
    return build


def _matrix(rows: Sequence[Sequence[float]], weights: Sequence[float], n_max: int, what: str,
            cls: type = MatrixScenario) -> Callable[[float, bool], PolicyScenario]:
    """Environments drawn from weighted item types; every policy's score on an item type is fixed."""
    a = np.asarray(rows, dtype=float)
    w = np.asarray(weights, dtype=float)
    counts = np.round(w / w.min()).astype(int)
    mat = np.repeat(a, counts, axis=0)  # uniform row draws reproduce the weights

    def build(alpha: float, quick: bool) -> PolicyScenario:
        mu = mat.mean(axis=0)
        return cls(name="validate", values=tuple((0.0, 1.0) for _ in mu), probs=tuple((1 - p, p) for p in mu),
                   n_max=_n(n_max, quick), alpha=alpha, metric="binary", preference="scores", n_games=10,
                   matrix=mat, description=what)
    return build


@dataclass(frozen=True)
class _SortedReplay(MatrixScenario):
    """A finite table of i.i.d. environments, stored sorted by item type (as exported tables often are), and
    replayed either in that order (``shuffle=False``) or after a seeded shuffle of its rows."""

    shuffle: bool = True

    def draw(self, seed: Any) -> PolicyRun:
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        run = MatrixScenario.draw(self, rng)
        scores = run.scores[np.lexsort(run.scores.T[::-1])]  # sorted by item (row contents)
        if self.shuffle:
            scores = scores[rng.permutation(scores.shape[0])]
        return PolicyRun(scores=scores, pref_a=run.pref_a, pref_b=run.pref_b, pref_y=run.pref_y)


def _sorted(shuffle: bool) -> Callable[[float, bool], PolicyScenario]:
    rows = [[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]

    def build(alpha: float, quick: bool) -> PolicyScenario:
        mat = np.asarray(rows)
        mu = mat.mean(axis=0)
        return _SortedReplay(name="validate", values=tuple((0.0, 1.0) for _ in mu),
                             probs=tuple((1 - p, p) for p in mu), n_max=_n(1000, quick), alpha=alpha,
                             metric="binary", preference="scores", n_games=10, matrix=mat, shuffle=shuffle)
    return build


def _shapes(alpha: float, quick: bool) -> PolicyScenario:
    # equal means 0.5: a coin, a narrow symmetric spread, a constant and a skewed distribution
    return PolicyScenario(name="validate",
                          values=((0.0, 1.0), (0.4, 0.5, 0.6), (0.5,), (0.3, 0.9)),
                          probs=((0.5, 0.5), (1 / 3, 1 / 3, 1 / 3), (1.0,), (2 / 3, 1 / 3)),
                          n_max=_n(1000, quick), alpha=alpha, metric="progress", preference="scores", n_games=10)


def _registered(name: str) -> Callable[[float, bool], Any]:
    def build(alpha: float, quick: bool) -> Any:
        return name
    return build


def _board(quick: bool) -> dict[str, Any]:
    return dict(_BOARD[0] if quick else _BOARD[1])


def _expanding_board(quick: bool) -> dict[str, Any]:
    # the benchmark grows twice: after a third and two thirds of the replicates
    return {**_board(quick), **({"switch1": 4, "switch2": 8} if quick else {})}


_TIE_NOTE = ("ties='assume_none' tests each direction at the full level, so an exactly tied pair may be "
             "ordered with probability up to 2 alpha (spec 00, spec 01)")
_SORT_NOTE = ("replay assumes rows in the order they were run; a table sorted by item, whose policies differ "
              "item by item, breaks that assumption (replay in run order, or shuffle the rows with a seed)")
_HET = [[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
_DEP = [[1.0, 1.0, 1.0], [0.0, 0.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]

for _check in (
    Check("tie-0", "3 policies, all scores 0 (exact tie at 0)", "anyrank", _bern((0.0,) * 3, 1000)),
    Check("tie-0.5", "3 policies Bernoulli(0.5) (exact tie)", "anyrank", _bern((0.5,) * 3, 1000)),
    Check("tie-0.5-assume-none", "3 policies Bernoulli(0.5), ties='assume_none'", "anyrank[ties=assume_none]",
          _bern((0.5,) * 3, 1000), bound_factor=2.0, exception=_TIE_NOTE),
    Check("tie-1", "3 policies, all scores 1 (exact tie at 1)", "anyrank", _bern((1.0,) * 3, 1000)),
    Check("tie-0.5-bonferroni", "3 policies Bernoulli(0.5), Bonferroni", "bonferroni", _bern((0.5,) * 3, 1000)),
    Check("tie-0.5-fixed-sequence", "3 policies Bernoulli(0.5), AnyRank-inf", "anyrank-inf",
          _bern((0.5,) * 3, 1000)),
    Check("near-tie", "Bernoulli 0.50 vs 0.51 (and 0.30): a reversal is the error", "anyrank",
          _bern((0.50, 0.51, 0.30), 2000)),
    Check("near-tie-strict", "0.50, 0.51, 0.50, 0.51: ties and near ties, guarantee='strict'",
          "anyrank[guarantee=strict]", _bern((0.50, 0.51, 0.50, 0.51), 2000)),
    Check("equal-20", "20 equal policies Bernoulli(0.5) (190 pairs; 8 policies, 28 pairs, with --quick)",
          "anyrank0", _bern((0.5,) * 20, 300, quick_means=(0.5,) * 8)),
    Check("heterogeneous-items", "items where A and B swap (A=1,B=0 or A=0,B=1): zero average difference",
          "anyrank", _matrix(_HET, [1, 1], 1000, "heterogeneous items")),
    Check("dependent-items", "paired scores dependent within an item, equal means", "anyrank",
          _matrix(_DEP, [3, 3, 1, 1], 1000, "dependent items")),
    Check("tiny-n", "3 policies Bernoulli(0.5) with n_max = 5", "anyrank", _bern((0.5,) * 3, 5)),
    Check("tiny-n-strict", "Bernoulli 0.4, 0.5, 0.6 with n_max = 5, guarantee='strict'",
          "anyrank[guarantee=strict]", _bern((0.4, 0.5, 0.6), 5)),
    Check("continuous-shapes", "equal means 0.5, different shapes (coin, spread, constant, skewed), "
          "bins progress", "anyrank", _shapes),
    Check("sorted-replay-shuffled", "finite heterogeneous table sorted by item, shuffled with a seed before "
          "replay", "anyrank", _sorted(True)),
    Check("sorted-replay-as-is", "finite heterogeneous table replayed sorted by item", "anyrank", _sorted(False),
          bound_factor=None, exception=_SORT_NOTE, reps=(20, 200)),
    Check("leaderboard-heterogeneity", "BB-EDGE DGP, tied pairs with opposite item effects (10 models, 100 "
          "items, 30 runs; 6, 40, 12 with --quick)", "bbedge",
          _registered("bbedge-heterogeneity"), params=_board),
    Check("leaderboard-dependence", "BB-EDGE DGP, within-block dependence (kappa1 = 0.5)", "bbedge",
          _registered("bbedge-dependence"), params=_board),
    Check("leaderboard-model-addition", "a model joins a running board (spec 04 §9.2)", "bbedge-addition",
          _registered("bbedge-addition"), params=_board),
    Check("leaderboard-benchmark-update", "the benchmark grows twice (40 -> 70 -> 100 items; 16 -> 28 -> 40 with "
          "--quick), each version tested afresh", "bbedge-epoch", _registered("bbedge-expansion"),
          params=_expanding_board),
):
    register_check(_check)
