"""Replay a finite table in a seeded random order, tested as sampling *without replacement* (issue 16, 3b).

A recorded table is a finite population of rows. Replayed in file order, a sequential test speaks about
the rows in that order; sorted by task, an early certification is about the first tasks. Replayed in a
uniformly random order (``seed``), the rows are a sample without replacement from the table, and the
finite-population e-process of `certirank.evidence.finite` (Waudby-Smith & Ramdas 2020) tests the
**table's average**: for each pair of policies, the mean over the rows both ran of ``score_i - score_j``
(in [-1, 1]) against 0, two-sided (valid when it is exactly 0). Holm's procedure over the pairs, on
running-minimum p-values, gives family-wise error <= alpha at whatever row the replay stops; at the last
row the averages are known exactly and every pair with a nonzero difference is decided.

No transitive closure is applied: each certified pair is tested directly (two pairs may average over
different rows). ``.ranking`` is the one ranking result (:class:`certirank.order.Ranking`, not transitive):
its display order and letters follow a topological order of the certified pairs, ties broken by the table
average, so a policy is never lettered or listed above one certified to beat it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from .._params import validated
from .._validate import check_alpha
from ..errors import DataError, ParameterError
from ..order.result import Ranking, make_ranking
from ..results import ResultMixin, plain

__all__ = ["ShuffledRanking", "shuffled_ranking"]


@dataclasses.dataclass(frozen=True)
class ShuffledRanking(ResultMixin):
    """Certified pairwise ordering of policies by their average over the table, from a shuffled replay.

    ``letters`` and ``ranking`` are in display order (certified order first, then table average); ``means`` is
    each policy's average over the rows it ran.
    """

    RESULT_KIND = "shuffled-rank"

    policies: list[str]
    means: dict[str, float]
    decisions: list[dict[str, Any]]
    undecided: list[list[str]]
    pairs: list[dict[str, Any]]
    letters: dict[str, str]
    alpha: float
    seed: int
    rows: int
    ranking: Ranking
    method: str = "shuffled-without-replacement"

    @property
    def statement(self) -> str:
        g = _guarantee(self.alpha, self.rows, self.seed, len(self.pairs))
        return f"Guarantee: {g[0].lower()}{g[1:]}"

    def to_dict(self) -> dict[str, Any]:
        d = {f.name: plain(getattr(self, f.name)) for f in dataclasses.fields(self)}
        return {"kind": self.RESULT_KIND, "schema": "certirank.shuffled-ranking/1", **d, "statement": self.statement}


def _guarantee(alpha: float, rows: int, seed: int, n_pairs: int) -> str:
    return (f"With probability at least {100 * (1 - alpha):g}%, for every certified pair the better policy's "
            "average score over the rows both ran is higher (a statement about this table's average, not its first "
            f"rows): the {rows} rows were replayed in a random order (seed {seed}) and tested as sampling without "
            f"replacement (Waudby-Smith & Ramdas 2020), alpha = {alpha:g} family-wise over {n_pairs} pairs (Holm), "
            "at whatever row you stop.")


@validated("shuffled_ranking")
def shuffled_ranking(data: Any, alpha: float = 0.05, *, seed: int, policies: Any = None,
                     format: str | None = None, score_range: Any = None) -> ShuffledRanking:
    """Rank policies by their table averages from a seeded shuffled replay (see the module docstring)."""
    from ..data.readers import load
    from ..data.table import check_per_trial, to_wide
    from ..evidence.finite import _FiniteMeanEngine, _pvalue_sign
    from ..multitest.graphical import holm_rejections

    alpha = check_alpha(alpha)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError(f"seed must be a non-negative integer, got {seed!r}")
    table = load(data, format=format, score_range=score_range)
    check_per_trial(table, "a shuffled replay")
    wide = to_wide(table)
    if policies is not None:
        wide = wide[[str(p) for p in policies]]
    names = [str(c) for c in wide.columns]
    if len(names) < 2:
        raise DataError(f"ranking needs at least two policies; the data has {len(names)}")
    arr = wide.to_numpy(dtype=float)
    perm = np.random.default_rng(int(seed)).permutation(arr.shape[0])
    arr = arr[perm]
    pairs_ij = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
    m = len(pairs_ij)
    rows = arr.shape[0]
    # p-value and direction of each pair after each (shuffled) row; rows a pair did not run leave it as it was
    p_tr = np.ones((m, rows))
    sign_tr = np.zeros((m, rows), dtype=np.int64)
    masks = [~np.isnan(arr[:, i]) & ~np.isnan(arr[:, j]) for i, j in pairs_ij]
    # pairs run on the same rows share one engine (one vectorised step per row for all of them)
    by_mask: dict[bytes, list[int]] = {}
    for k, mk in enumerate(masks):
        by_mask.setdefault(mk.tobytes(), []).append(k)
    for ks in by_mask.values():
        both = masks[ks[0]]
        n = int(both.sum())
        if not n:
            continue
        ii = np.array([pairs_ij[k][0] for k in ks])
        jj = np.array([pairs_ij[k][1] for k in ks])
        eng = _FiniteMeanEngine(len(ks), n, 0.5, 0.5)  # unit scale: (d + 1) / 2 against 1/2
        p = np.ones(len(ks))
        sg = np.zeros(len(ks), dtype=np.int64)
        for t in range(rows):
            if both[t]:
                eng.step(slice(None), (arr[t, ii] - arr[t, jj] + 1.0) / 2.0)
                p, sg = _pvalue_sign(eng.log_w_max, "two-sided")
            p_tr[ks, t] = p
            sign_tr[ks, t] = sg
    rejected = np.zeros(m, dtype=bool)
    decided_at = np.zeros(m, dtype=np.int64)
    direction = np.zeros(m, dtype=np.int64)
    for t in range(rows):
        p_now = p_tr[:, t]
        left = m - int(rejected.sum())
        if not np.any(~rejected & (p_now * left <= alpha * (1 + 1e-9))):
            continue
        new = holm_rejections(p_now, alpha) & ~rejected
        for k in np.flatnonzero(new):
            rejected[k] = True
            decided_at[k] = t + 1
            direction[k] = sign_tr[k, t]
    p_now = p_tr[:, -1] if rows else np.ones(m)
    pairs, decisions, undecided, rels = [], [], [], []
    for k, (i, j) in enumerate(pairs_ij):
        d = arr[masks[k], i] - arr[masks[k], j]
        rec = {"a": names[i], "b": names[j], "rows": int(masks[k].sum()),
               "mean_difference": float(d.mean()) if d.size else None, "pvalue": float(p_now[k]),
               "decision": None, "decided_at": None}
        if rejected[k]:
            better, worse = (names[i], names[j]) if direction[k] > 0 else (names[j], names[i])
            rec.update(decision=f"{better}>{worse}", decided_at=int(decided_at[k]))
            decisions.append({"better": better, "worse": worse, "decided_at": int(decided_at[k]),
                              "rows_used": int(masks[k][:decided_at[k]].sum())})
            rels.append({"better": better, "worse": worse, "when": int(decided_at[k]),
                         "evidence": float(p_tr[k, decided_at[k] - 1]), "evidence_kind": "pvalue"})
        else:
            undecided.append([names[i], names[j]])
        pairs.append(rec)
    decisions.sort(key=lambda e: e["decided_at"])
    means = {n: float(np.nanmean(arr[:, c])) for c, n in enumerate(names)}
    ran = {n: int((~np.isnan(arr[:, c])).sum()) for c, n in enumerate(names)}
    ranking = make_ranking(names, rels, kind="shuffled", alpha=alpha, guarantee=_guarantee(alpha, rows, int(seed), m),
                           means=means, n=ran, when_unit="shuffled rows", stopped=f"all {rows} rows replayed",
                           closure=False)
    return ShuffledRanking(policies=names, means=means, decisions=decisions, undecided=undecided, pairs=pairs,
                           letters=ranking.letters, alpha=alpha, seed=int(seed), rows=rows, ranking=ranking)
