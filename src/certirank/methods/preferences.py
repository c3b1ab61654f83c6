"""Certified preference graph from battles / pairwise preferences (issue 16, item 5).

For every pair of policies that met, the battles between them are replayed in recorded order as paired
scores: the first-named policy of the pair scores ``z`` (1 = preferred, 0 = the other preferred, 0.5 =
draw: *half a win to each side*) and the other ``1 - z``. The mirrored anytime-valid test of spec 01
(``PairedStreams``, ties allowed, each direction at half the pair's level) tests P(A preferred) + P(draw)/2
against P(B preferred) + P(draw)/2, i.e. E[z] = 1/2. Holm's procedure (the complete graph of the
graphical approach, spec 02) spreads alpha over the pairs; because every p-value is a running minimum,
the rejected set only grows as battles arrive, and the family-wise error, P(some certified edge points the
wrong way or joins an exactly even pair), is at most alpha at whatever battle you stop.

Preferences need not be transitive: certified edges are reported as they are, no closure is applied, and
directed cycles among them (A > B > C > A, each edge certified) are listed as such. ``.ranking`` is the one
ranking result (:class:`certirank.order.Ranking`, not transitive): the certified edges, letters and rank
intervals from the edges alone, policies in a topological order of the edges, ties broken by preference share.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._params import validated
from .._validate import check_alpha, check_choice
from ..errors import DataError, ParameterError
from ..order.result import Ranking, make_ranking
from ..results import ResultMixin

__all__ = ["PreferenceGraph", "preference_graph", "PROCEDURES", "MODELS"]

PROCEDURES = ("holm", "bonferroni")
DRAW_RULE = "a draw counts as half a win for each side"
_BINS = (0.0, 0.5, 1.0)


@dataclasses.dataclass(frozen=True)
class PreferenceGraph(ResultMixin):
    """Certified preference edges between policies.

    Attributes
    ----------
    policies : list of str
        In order of first appearance.
    edges : list of dict
        ``better``, ``worse``, ``decided_at`` (1-based battle of the whole table at which the edge was
        certified), ``battles_used`` (battles of that pair by then), ``battles`` (all of that pair),
        ``score`` (the better side's share: wins + draws/2, over all its battles with the other).
    pairs : list of dict
        Every pair that met: ``a``, ``b``, ``battles``, ``wins_a``, ``wins_b``, ``draws``, ``score_a``,
        ``pvalue`` (combined, both directions), ``p_a_better``, ``p_b_better``, ``decision`` ("a>b", "a<b" or
        None), ``decided_at``.
    cycles : list of list of str
        Sets of policies joined by a directed cycle of certified edges (each shown as such, never closed).
    never_met : list of [str, str]
        Pairs with no battle: nothing can be said about them.
    ranking : Ranking
        The edges as the one ranking result (``mean`` = the policy's share over all its battles, ``n`` = its
        battles, ``when`` = ``decided_at``).
    """

    RESULT_KIND = "preference-graph"

    policies: list[str]
    edges: list[dict[str, Any]]
    pairs: list[dict[str, Any]]
    cycles: list[list[str]]
    never_met: list[list[str]]
    alpha: float
    n_battles: int
    ranking: Ranking
    procedure: str = "holm"
    bettor: str = "nscore"
    draw_rule: str = DRAW_RULE
    mapping: str | None = None
    method: str = "preference-graph"

    @property
    def statement(self) -> str:
        g = _guarantee(self.alpha, self.draw_rule, len(self.pairs), self.procedure)
        return f"Guarantee: {g[0].lower()}{g[1:]}"

    def sentences(self) -> list[str]:
        return [f"{e['better']} is preferred to {e['worse']} (certified after {e['battles_used']} of their "
                f"{e['battles']} battles; share {e['score']:.3f})" for e in self.edges]

    def to_dict(self) -> dict[str, Any]:
        from ..results import plain
        d = {f.name: plain(getattr(self, f.name)) for f in dataclasses.fields(self)}
        return {"kind": self.RESULT_KIND, "schema": "certirank.preferences/1", **d, "statement": self.statement}


def _guarantee(alpha: float, draw_rule: str, n_pairs: int, procedure: str) -> str:
    return (f"With probability at least {100 * (1 - alpha):g}%, every certified edge is right (the better side is "
            f"preferred more often, {draw_rule}), at whatever battle you stop; alpha = {alpha:g} family-wise over "
            f"the {n_pairs} pairs that met ({procedure}). Battles are replayed in recorded order; preferences need "
            "not be transitive, so edges are not chained.")


def _orient(table: pd.DataFrame, names: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per battle: pair index (i < j by first appearance) and z = score of policy i (1 = i preferred)."""
    idx = {n: k for k, n in enumerate(names)}
    a = table["policy_a"].map(idx).to_numpy()
    b = table["policy_b"].map(idx).to_numpy()
    pref = table["preference"].to_numpy(dtype=float)
    lo = np.minimum(a, b)
    hi = np.maximum(a, b)
    z = np.where(a == lo, 1.0 - pref, pref)
    return lo, hi, z


def _holm(p: np.ndarray, alpha: float, procedure: str) -> np.ndarray:
    from ..multitest.graphical import holm_rejections
    if procedure == "bonferroni":
        return np.round(p * p.size, 10) <= alpha
    return holm_rejections(p, alpha)


MODELS = ("pairwise", "bradley-terry")
#: options of the Bradley–Terry model (certirank.methods.bradley_terry.bradley_terry_graph)
_BT_OPTIONS = ("method", "draws", "home", "every", "order", "seed")


@validated("preference_graph")
def preference_graph(data: Any, alpha: float = 0.05, *, procedure: str = "holm", bettor: str = "nscore",
                     policies: Sequence[str] | None = None, format: str | None = None, model: str = "pairwise",
                     **options: Any) -> Any:
    """Certify which policy is preferred to which, pair by pair, from battles in recorded order.

    ``model="bradley-terry"`` (``"bt"``) pools every battle instead: claims about Bradley–Terry strengths from
    :func:`certirank.methods.bradley_terry.bradley_terry_graph` (options ``method``, ``draws``, ``home``,
    ``every``, ``order``, ``seed``), returning a :class:`~certirank.methods.bradley_terry.BradleyTerryGraph`.

    Parameters
    ----------
    data:
        A preference table (``A,B,preference``, ``model_a,model_b,winner``, arena battles; a path or a
        DataFrame) as read by `certirank.load`.
    alpha:
        Family-wise error rate over all pairs that met and all stopping times.
    procedure:
        ``holm`` (default; Holm's step-down, the complete graph of the graphical approach) or
        ``bonferroni``.
    bettor:
        Betting strategy of the per-pair test (changes speed, never validity).
    policies:
        If given, every battle must be between these policies (they also fix the display order).
    **options:
        Reader options passed to `certirank.load` (e.g. ``tie="drop"`` for arena files).
    """
    alpha = check_alpha(alpha)
    bt_opts = {k: options.pop(k) for k in _BT_OPTIONS if k in options}
    if model == "bradley-terry":
        if procedure != "holm" or bettor != "nscore":
            raise ParameterError("procedure= and bettor= belong to the pairwise model; the Bradley–Terry model has "
                                 "its own test (method='asymptotic' or 'exact')")
        from .bradley_terry import bradley_terry_graph
        from ..data.readers import load
        table = load(data, format=format, **options) if not isinstance(data, pd.DataFrame) or \
            not {"policy_a", "policy_b", "preference"} <= set(data.columns) else data
        if "preference" not in table.columns:
            raise DataError("not preference data: expected battles (A,B,preference or model_a,model_b,winner)",
                            source=table.attrs.get("source"))
        return bradley_terry_graph(table, alpha, policies=policies, **bt_opts)
    if bt_opts:
        raise ParameterError(f"{', '.join(sorted(bt_opts))} belong to model='bradley-terry'; the pairwise model "
                             "tests each pair on its own battles")
    procedure = check_choice("procedure", procedure, PROCEDURES)
    from ..data.readers import load
    table = load(data, format=format, **options) if not isinstance(data, pd.DataFrame) or \
        not {"policy_a", "policy_b", "preference"} <= set(data.columns) else data
    if "preference" not in table.columns:
        raise DataError("not preference data: expected battles (A,B,preference or model_a,model_b,winner)",
                        source=table.attrs.get("source"))
    names = list(dict.fromkeys(list(policies) if policies is not None else []))
    seen = list(dict.fromkeys(np.ravel(np.column_stack([table["policy_a"], table["policy_b"]])).tolist()))
    for s in seen:
        if s not in names:
            if policies is not None:
                raise DataError(f"battle with policy {s!r}, which is not in policies=", source=table.attrs.get("source"))
            names.append(s)
    n = len(table)
    lo, hi, z = _orient(table, names)
    L = len(names)
    key = lo * L + hi
    uniq, pair_of = np.unique(key, return_inverse=True)
    m = uniq.size
    counts = np.bincount(pair_of, minlength=m)
    pos = np.zeros(n, dtype=np.int64)  # position of each battle within its pair's stream
    horizon = int(counts.max())
    x = np.full((m, horizon), 0.5)
    nxt = np.zeros(m, dtype=np.int64)
    for t in range(n):
        k = pair_of[t]
        pos[t] = nxt[k]
        x[k, nxt[k]] = z[t]
        nxt[k] += 1

    from ..evidence.sequential import paired_batch
    # padding past a pair's last battle is 0.5 vs 0.5 and is never read (traces are cut at each pair's count)
    res = paired_batch(x, 1.0 - x, alpha, bettor=bettor, ties="allow", bins=_BINS, trace=True)
    p_tr = res.pvalue_trace  # (m, horizon): running-min combined p-value after each of the pair's battles
    lw = res.log_wealth_trace  # (m, horizon, 2): LESS (1 - z > z, the second side better), MORE

    # Walk the battles in recorded order; recompute the Holm set only when a p-value that could join it moved.
    p_now = np.ones(m)
    rejected = np.zeros(m, dtype=bool)
    decided_at = np.zeros(m, dtype=np.int64)
    used = np.zeros(m, dtype=np.int64)
    direction = np.zeros(m, dtype=np.int64)  # +1: first-named better, -1: second
    best_lw = np.full((m, 2), 0.0)
    for t in range(n):
        k = pair_of[t]
        j = pos[t]
        p_now[k] = p_tr[k, j]
        if rejected[k]:
            continue
        left = m - int(rejected.sum())
        if (procedure == "holm" and p_now[k] * left > alpha * (1 + 1e-9)) or \
                (procedure == "bonferroni" and p_now[k] * m > alpha * (1 + 1e-9)):
            continue
        new = _holm(p_now, alpha, procedure) & ~rejected
        for q in np.flatnonzero(new):
            rejected[q] = True
            decided_at[q] = t + 1
            jq = (nxt[q] - 1) if q != k else j
            # battles of pair q seen by time t
            used[q] = int(np.searchsorted(np.flatnonzero(pair_of[:t + 1] == q), t, side="right"))
            lwq = np.maximum.accumulate(lw[q, : max(jq, 0) + 1], axis=0)[-1]
            best_lw[q] = lwq
            direction[q] = 1 if lwq[1] > lwq[0] else -1

    pairs: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    rels: list[dict[str, Any]] = []
    rel = np.zeros((L, L), dtype=bool)
    for k in range(m):
        i, j = divmod(int(uniq[k]), L)
        zk = z[pair_of == k]
        wins_a = int((zk == 1).sum())
        wins_b = int((zk == 0).sum())
        draws = int(zk.size - wins_a - wins_b)
        share = float(zk.mean())
        c = int(counts[k])
        lwk = np.maximum.accumulate(lw[k, :c], axis=0)[-1]
        dec = None
        if rejected[k]:
            dec = "a>b" if direction[k] > 0 else "a<b"
            better, worse = (names[i], names[j]) if direction[k] > 0 else (names[j], names[i])
            rel[names.index(better), names.index(worse)] = True
            rels.append({"better": better, "worse": worse, "when": int(decided_at[k]), "evidence_kind": "pvalue",
                         "evidence": float(p_tr[k, max(int(used[k]), 1) - 1])})
            edges.append({"better": better, "worse": worse, "decided_at": int(decided_at[k]),
                          "battles_used": int(used[k]), "battles": c,
                          "score": share if direction[k] > 0 else 1.0 - share})
        pairs.append({"a": names[i], "b": names[j], "battles": c, "wins_a": wins_a, "wins_b": wins_b,
                      "draws": draws, "score_a": share, "pvalue": float(p_tr[k, c - 1]),
                      "p_a_better": float(min(1.0, np.exp(-lwk[1]))), "p_b_better": float(min(1.0, np.exp(-lwk[0]))),
                      "decision": dec, "decided_at": int(decided_at[k]) if rejected[k] else None})
    edges.sort(key=lambda e: e["decided_at"])
    from ..order.closure import cycles, transitive_closure
    # the closure is used only to find strongly connected sets; the reported edges are never closed
    cyc = [[names[q] for q in comp] for comp in cycles(transitive_closure(rel))]
    met = {(int(u) // L, int(u) % L) for u in uniq}
    never = [[names[i], names[j]] for i in range(L) for j in range(i + 1, L) if (i, j) not in met]
    share = np.zeros(L)
    battles = np.zeros(L, dtype=np.int64)
    np.add.at(share, lo, z)
    np.add.at(share, hi, 1.0 - z)
    np.add.at(battles, lo, 1)
    np.add.at(battles, hi, 1)
    mapping = table.attrs.get("mapping")
    ranking = make_ranking(names, rels, kind="preference-graph", alpha=alpha,
                           guarantee=_guarantee(alpha, DRAW_RULE, m, procedure),
                           means=[float(share[i] / battles[i]) if battles[i] else None for i in range(L)],
                           n=battles.tolist(), when_unit="battles", stopped=f"all {n} battles replayed",
                           notes=[f"Ties: {mapping}."] if mapping else [], closure=False)
    return PreferenceGraph(policies=names, edges=edges, pairs=pairs, cycles=cyc, never_met=never, alpha=alpha,
                           n_battles=n, ranking=ranking, procedure=procedure, bettor=bettor, mapping=mapping)
