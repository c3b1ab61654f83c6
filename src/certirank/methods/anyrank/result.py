"""AnyRank results: the trial table shared by all hypotheses and the ranking result (spec 03 §11)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ...order.result import Ranking
from ...results import Result, inputs
from .config import _Setup


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
class RankingResult(Result):
    """A certified (possibly partial) ranking (record kind ``"rank"``, estimand ``policy``).

    Attributes
    ----------
    policies : input: the policies ranked, in the order given.
    method, alpha, guarantee, ties : inputs: the procedure ("paper" or "strict" guarantee) and its error level
        (family-wise, over all pairs and all times).
    n_max, bins, budget, arms : inputs: the per-comparison budget of paired trials, the score bins ("progress" or
        "binary"), the per-comparison test ("none": the anytime e-process; "final"/"extendable": the exact
        budget test of spec 08) and its arms calibration.
    ranking : the :class:`certirank.order.Ranking` (``kind`` = the method): who is certified better than whom,
        when (``when`` = paired trials of that comparison at the decision, spec 03 §6: n_k for a test, the
        minimax path time for transitivity), the p-value then (``evidence``) and, per relation, ``details``
        ``iteration``, ``trials`` (n_k), ``total_samples`` (rollouts of all policies then) and ``level``;
        per policy its mean over the trials used and ``n`` = trials used; ``stopped`` = why the run stopped;
        ``guarantee`` = the guarantee in words.
    undecided_details : per open pair: ``pair``, ``trials``, ``pvalue``, ``p_less``, ``p_more``, ``level``,
        ``budget_exhausted`` (budget or data used up, or ``futile``: the final exact budget test can no longer
        decide it), ``futile``.
    total_samples : rollouts of all policies used.
    iterations : iteration counter t.
    trajectory : optional (simulation fast path): ``total_samples`` after each iteration 1..t.
    """

    KIND: ClassVar[str] = "rank"

    method: str = inputs()
    alpha: float = inputs()
    guarantee: str = inputs()
    ties: str = inputs()
    policies: list[str] = inputs()
    ranking: Ranking = field(repr=False)
    undecided_details: list[dict[str, Any]]
    total_samples: int
    iterations: int
    trajectory: dict[str, Any] | None = field(default=None, repr=False)
    n_max: int | None = inputs(default=None)
    bins: str = inputs(default="progress")
    budget: str = inputs(default="none")
    arms: str = inputs(default="paired")
    margin: float | None = inputs(default=None)
    """Equivalence margin fixed before the data (replay ``anyrank(..., margin=)``); None = no equivalence claims."""

    # read from the ranking (its one home)
    @property
    def statement(self) -> str:
        return self.ranking.guarantee

    @property
    def undecided(self) -> list[list[str]]:
        """Open pairs (those certified equivalent are not open: see `equivalent`)."""
        return [list(u) for u in self.ranking.undecided]

    @property
    def equivalent(self) -> list[list[str]]:
        """Pairs certified equivalent: |mean difference| < margin (the ranking's; see anyrank/verdicts.py)."""
        return [list(e) for e in self.ranking.equivalent]

    @property
    def letters(self) -> dict[str, str]:
        return self.ranking.letters

    @property
    def means(self) -> dict[str, float | None]:
        return self.ranking.means

    @property
    def samples(self) -> dict[str, int]:
        """Trials of each policy used."""
        return {p.name: int(p.n or 0) for p in self.ranking.policies}

    @property
    def termination(self) -> str:
        return self.ranking.stopped or ""

    @property
    def inconsistent(self) -> bool:
        return self.ranking.inconsistent

    @property
    def complete(self) -> bool:
        """True if every pair is decided."""
        return not self.ranking.undecided

    def decided(self) -> list[Any]:
        """The certified relations in the order the engine decided them (``details["step"]``); relations it did
        not decide itself (implied when it runs without transitive closure) come last."""
        return sorted(self.ranking.relations, key=lambda r: (r.details is None, (r.details or {}).get("step", 0)))

    def better_pairs(self) -> list[tuple[str, str]]:
        """Certified relations as (better, worse) tuples, in decision order."""
        return [(r.better, r.worse) for r in self.decided()]

    def decision_samples(self) -> dict[str, int]:
        """Trials of each policy counted only up to its decided comparisons.

        For each policy, the largest ``trials`` among the decided pairs it belongs to (0 if none). Trials that
        undecided comparisons spent are left out, which is how the AnyRank authors' scripts count the
        graphical procedures' sample complexity (spec 03 §12.2 anchors). It undercounts whenever a pair stays
        open, so ``samples`` (spec 03 §11) is the honest figure; this one exists to compare with the paper.
        """
        out = dict.fromkeys(self.ranking.names, 0)
        for r in self.ranking.relations:
            for p in (r.better, r.worse):
                out[p] = max(out[p], int((r.details or {}).get("trials", 0)))
        return out

    def sentences(self) -> list[str]:
        """Every decided and undecided pair in plain words."""
        out = [line for line in self.ranking.sentences() if not line.endswith(": undecided")]
        more = {frozenset(d["pair"]): d for d in self.undecided_details}
        from ...evidence.forecast import open_pair_sentence
        return out + [open_pair_sentence(a, b, more.get(frozenset((a, b)), {}), "paired trials")
                      for a, b in self.undecided]


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
