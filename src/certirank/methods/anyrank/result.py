"""AnyRank results: the trial table shared by all hypotheses and the ranking result (spec 03 §11)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...order.result import Ranking
from ...results import ResultMixin
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
    undecided_details : per open pair: ``pair``, ``trials``, ``p_value``, ``level``, ``budget_exhausted``
        (budget or data used up, or ``futile``: the final exact budget test can no longer decide it).
    letters : compact letter display (policies sharing a letter are not certified different).
    samples : trials of each policy used; total_samples their sum.
    means : mean score of each policy over the trials used (None if none).
    termination : why the campaign stopped (or "stopped by user" for a live campaign still running).
    iterations : iteration counter t.
    inconsistent : True if the decided relations contain a cycle (only possible after an error).
    trajectory : optional (simulation fast path): ``total_samples`` after each iteration 1..t.
    trust_edited : None, or a warning: the saved campaign this came from failed its checksum and was loaded
        with ``trust_edited=True`` (the statement ends with the same warning).
    ranking : the common :class:`certirank.order.Ranking` (``kind`` = the method; letters and display order
        follow the certified order, ties by mean).
    """

    RESULT_KIND = "rank"

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
    trust_edited: str | None = None
    ranking: Ranking | None = field(default=None, repr=False)
    margin: float | None = None
    """Equivalence margin fixed before the data (replay ``anyrank(..., margin=)``); None = no equivalence claims."""
    equivalent: list[list[str]] = field(default_factory=list)
    """Pairs certified equivalent: |mean difference| < margin (not in `undecided`; see anyrank/verdicts.py)."""

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
        out += [f"{a} and {b} are equivalent: their means differ by less than {self.margin:g} ({conf})"
                for a, b in self.equivalent]
        more = {tuple(d["pair"]): d for d in self.undecided_details}
        for a, b in self.undecided:
            d = more.get((a, b), {})
            if d.get("verdict") == "futile":
                out.append(f"{a} vs {b}: futile (forecast: unlikely to be decided within the budget; not a guarantee)")
            elif d.get("more_needed") is not None:
                out.append(f"{a} vs {b}: undecided (forecast: about {d['more_needed']} more paired trials at the "
                           "current estimates; not a guarantee)")
            else:
                out.append(f"{a} vs {b}: undecided (not enough evidence yet)")
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
