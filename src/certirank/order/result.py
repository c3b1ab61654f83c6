"""The one ranking result every method returns or exposes as ``.ranking`` (schema ``certirank.ranking/1``).

AnyRank, BB-EDGE, every baseline and the simulator's trajectories each keep their own method-specific
result, but "who is certified better than whom" is always this :class:`Ranking`: the policies in display
order (name, mean, n, rank interval, letters, tier), the certified relations (better, worse, via a direct
test or the closure, when, evidence), the undecided pairs, alpha, the guarantee sentence and a ``kind`` tag.
Reports, graph writers, CLI tables and the HTML page read this object (or its ``to_dict()``) and nothing else.

Display order is a topological order of the certified relation, ties broken by mean on the data used
(then by name), so a policy is never listed, or lettered, above one certified to beat it (see
:func:`certified_order`).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np

from .._escape import dot_string, mermaid_label
from .._validate import check_choice
from ..errors import ParameterError
from .closure import cycles, is_consistent, rank_intervals, tiers, top_k, transitive_closure, transitive_reduction
from .letters import letter_columns, letter_name

__all__ = ["Ranking", "RankedPolicy", "Relation", "make_ranking", "SCHEMA", "VIA", "EDGE_MODES", "certified_order",
           "about_phrase"]

SCHEMA = "certirank.ranking/1"
VIA = ("test", "closure")
EDGE_MODES = ("reduction", "closure", "direct")


def about_phrase(about: str | None, rows: int | None = None, kind: str | None = None) -> str:
    """What a certified claim is about, as the tail of a sentence (spec 09 §2); "" when not said."""
    if about == "policy":
        return ("about how often each policy is preferred" if kind == "preference-graph"
                else "about the policies' expected scores")
    if about == "benchmark":
        return "about the models' expected scores on this benchmark"
    if about == "table":
        where = f"these {rows} rows" if rows else "the rows of this table"
        return f"about the averages over {where} only"
    return ""


@dataclass(frozen=True)
class RankedPolicy:
    """One policy (or model) of a :class:`Ranking`.

    ``mean`` is over the data the method used (None if it used none); ``n`` the trials / observations used;
    ``rank_lo``..``rank_hi`` the simultaneous rank interval; ``better_than`` / ``worse_than`` count the
    policies it is certified above / below (closure included).
    """

    name: str
    mean: float | None
    n: int | None
    rank_lo: int
    rank_hi: int
    letters: str
    tier: int
    better_than: int
    worse_than: int

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "mean": self.mean, "n": self.n, "rank_lo": self.rank_lo,
                "rank_hi": self.rank_hi, "letters": self.letters, "tier": self.tier,
                "better_than": self.better_than, "worse_than": self.worse_than}


@dataclass(frozen=True)
class Relation:
    """A certified relation ``better`` ≻ ``worse``.

    ``via`` is "test" (decided by the method's own test) or "closure" (implied by transitivity). ``when`` is
    the time of the decision in ``Ranking.when_unit`` (None if the method has no time axis). ``evidence`` is
    the test statistic at the decision, of type ``evidence_kind`` ("pvalue", "log_e", "difference", ...).
    ``details`` holds the method's other statistics of this relation at its decision (AnyRank: ``iteration``,
    ``trials``, ``total_samples``, ``level``; BB-EDGE: ``stage``; ...), or None.
    """

    better: str
    worse: str
    via: str = "test"
    when: float | None = None
    evidence: float | None = None
    evidence_kind: str | None = None
    details: Mapping[str, Any] | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        out = {"better": self.better, "worse": self.worse, "via": self.via, "when": _num(self.when),
               "evidence": _num(self.evidence), "evidence_kind": self.evidence_kind}
        if self.details:
            from ..results import plain
            out["details"] = plain(dict(self.details))
        return out


def _num(v: Any) -> Any:
    if v is None:
        return None
    f = float(v)
    if np.isnan(f) or np.isinf(f):
        return None
    return int(f) if f.is_integer() and abs(f) < 2 ** 53 else f


@dataclass(frozen=True)
class Ranking:
    """A certified (possibly partial) ranking; see the module docstring and ``docs/record.md``.

    Attributes
    ----------
    kind : str
        The method that produced it ("anyrank", "bonferroni", "bb-edge", "bt", ...).
    alpha : float or None
        Error level of the whole answer (None for point-estimate baselines, which control nothing).
    guarantee : str
        What the method guarantees, in one sentence.
    policies : tuple of RankedPolicy
        In display order: a topological order of the certified relation, ties by mean, then name.
    relations : tuple of Relation
        Every certified relation, direct ones ("test") and those implied by transitivity ("closure").
    undecided : tuple of (str, str)
        Pairs with no certified order, each in display order.
    when_unit : str or None
        Unit of ``Relation.when`` ("paired trials", "replicates", ...).
    stopped : str or None
        Why the run stopped, in words.
    notes : tuple of str
        Data the method ignored and why (ties, unpaired trials, errored samples), in words.
    inconsistent : bool
        The relations contain a cycle (after an error, or, when not ``transitive``, preferences that go round);
        intervals fail closed to [1, L].
    cycles : tuple of tuple of str
    transitive : bool
        Relations chain (A > B and B > C certify A > C). False for relations that need not (preference edges,
        averages over different rows): then nothing is implied, and letters, rank intervals and
        :meth:`better` follow the direct relations only.
    about : str or None
        What a certified relation is about (spec 09 §2): "policy", "benchmark" or "table"; None for a ranking
        that certifies nothing (a point-estimate baseline) or when not said.
    equivalent : tuple of (str, str)
        Pairs certified equivalent: |difference of means| < ``margin`` (issue 35; not in ``undecided``).
    margin : float or None
        The equivalence margin fixed before the data; None = no equivalence claims were tested.
    """

    kind: str
    alpha: float | None
    guarantee: str
    policies: tuple[RankedPolicy, ...]
    relations: tuple[Relation, ...]
    undecided: tuple[tuple[str, str], ...]
    when_unit: str | None = None
    stopped: str | None = None
    notes: tuple[str, ...] = ()
    inconsistent: bool = False
    cycles: tuple[tuple[str, ...], ...] = ()
    transitive: bool = True
    about: str | None = None
    equivalent: tuple[tuple[str, str], ...] = ()
    margin: float | None = None
    _pos: dict[str, int] = field(default_factory=dict, repr=False, compare=False)

    # ------------------------------------------------------------------ queries
    @property
    def names(self) -> tuple[str, ...]:
        """Policy names in display order."""
        return tuple(p.name for p in self.policies)

    @property
    def letters(self) -> dict[str, str]:
        return {p.name: p.letters for p in self.policies}

    @property
    def means(self) -> dict[str, float | None]:
        return {p.name: p.mean for p in self.policies}

    @property
    def n_pairs(self) -> int:
        k = len(self.policies)
        return k * (k - 1) // 2

    @property
    def n_certified(self) -> int:
        """Pairs with a certified order (direct or by closure)."""
        return len(self.relations)

    @property
    def n_direct(self) -> int:
        return sum(r.via == "test" for r in self.relations)

    @property
    def resolved_fraction(self) -> float:
        return self.n_certified / self.n_pairs if self.n_pairs else 1.0

    def policy(self, name: str) -> RankedPolicy:
        try:
            return self.policies[self._pos[name]]
        except KeyError:
            raise ParameterError(f"unknown policy {name!r}") from None

    def better(self, a: str, b: str) -> bool:
        """True iff a ≻ b is certified (directly or by transitivity) and the relations are consistent; when not
        ``transitive``, iff a ≻ b is a certified relation (a cycle elsewhere does not void it)."""
        self.policy(a), self.policy(b)
        return bool(self.closure[self._pos[a], self._pos[b]]) and (not self.inconsistent or not self.transitive)

    def rank_interval(self, name: str) -> tuple[int, int]:
        p = self.policy(name)
        return p.rank_lo, p.rank_hi

    @cached_property
    def closure(self) -> np.ndarray:
        """(L, L) bool reachability in display order (the direct relations themselves when not ``transitive``)."""
        n = len(self.policies)
        adj = np.zeros((n, n), dtype=bool)
        for r in self.relations:
            adj[self._pos[r.better], self._pos[r.worse]] = True
        clo = transitive_closure(adj) if self.transitive else adj
        clo.setflags(write=False)
        return clo

    @property
    def cycle_note(self) -> str | None:
        """What a cycle among the relations means, in one sentence (None without one)."""
        if not self.inconsistent:
            return None
        if self.transitive:
            return ("The certified relations contain a cycle (only possible after an error); rank intervals fail "
                    "closed to [1, L].")
        sets = "; ".join("{" + ", ".join(c) + "}" for c in self.cycles)
        return (f"Certified relations go round in a cycle among {sets}: they need not be transitive, so each is "
                "reported as it is and rank intervals are [1, L].")

    @cached_property
    def reduction(self) -> tuple[tuple[str, str], ...]:
        """Hasse-diagram edges (better, worse); empty when inconsistent (no unique reduction exists). When not
        ``transitive`` nothing is implied, so every direct relation is an edge."""
        if not self.transitive:
            return tuple((r.better, r.worse) for r in self.relations)
        if self.inconsistent:
            return ()
        red = transitive_reduction(self.closure)
        return tuple((self.names[a], self.names[b]) for a, b in zip(*np.nonzero(red)))

    def top_k(self, k: int) -> list[str] | None:
        """Names of the certified Top-k set (spec 04 §8.1), or None."""
        t = top_k(self.closure, k)
        return None if t is None else [self.names[i] for i in t]

    def how(self, rel: Relation) -> str:
        """How a relation was certified, in words: "by transitivity", "after 29 paired trials", or "" (a direct
        test with no time axis). Every renderer words relations with this."""
        if rel.via == "closure":
            return "by transitivity"
        if rel.when is None:
            return ""
        return f"after {_num(rel.when):g} {self.when_unit or ''}".rstrip()

    @property
    def about_phrase(self) -> str:
        """What the claims are about, as the tail of a sentence ("about the policies' expected scores ...")."""
        rows = None
        if self.about == "table":
            ns = [p.n for p in self.policies if p.n is not None]
            rows = max(ns) if ns else None
        return about_phrase(self.about, rows, self.kind)

    @property
    def qualifier(self) -> str:
        """How a certified relation is qualified in words: "certified, alpha = 0.05, about ..."."""
        conf = "certified" + ("" if self.alpha is None else f", alpha = {self.alpha:g}")
        about = self.about_phrase
        return conf + (f", {about}" if about else "")

    def sentences(self) -> list[str]:
        """Every certified relation and undecided pair in plain words."""
        conf = self.qualifier
        out = [f"{r.better} is better than {r.worse} ({conf}" + (", by transitivity" if r.via == "closure" else "")
               + ")" for r in self.relations]
        out += [f"{a} and {b} are equivalent: their means differ by less than {self.margin:g} ({conf})"
                for a, b in self.equivalent]
        out += [f"{a} vs {b}: undecided" for a, b in self.undecided]
        return out

    def with_equivalent(self, pairs: Iterable[Sequence[str]], margin: float) -> Ranking:
        """The same ranking with ``pairs`` (each an undecided pair) certified equivalent within ``margin``: they
        leave ``undecided`` (a pair verdict, never a relation: letters and rank intervals do not change)."""
        open_pairs = {frozenset(u): tuple(u) for u in self.undecided}
        eq = []
        for p in pairs:
            key = frozenset(p)
            if key not in open_pairs:
                raise ParameterError(f"{p[0]} and {p[1]} are not an undecided pair of this ranking")
            eq.append(open_pairs.pop(key))
        keep = tuple(u for u in self.undecided if frozenset(u) in open_pairs)
        return replace(self, undecided=keep, equivalent=(*self.equivalent, *eq), margin=float(margin))

    def relabel(self, names: Mapping[str, str]) -> Ranking:
        """The same ranking with every policy renamed (``names``: old -> new; absent names are kept), rebuilt by
        :func:`make_ranking` so display order and letters follow the new names' tie-breaks (blind codes must not
        keep the order of the names they hide)."""
        def c(v: str) -> str:
            return names.get(v, v)
        rels = [Relation(c(r.better), c(r.worse), r.via, r.when, r.evidence, r.evidence_kind, r.details)
                for r in self.relations]
        out = make_ranking(sorted(c(p.name) for p in self.policies), rels, kind=self.kind, alpha=self.alpha,
                            guarantee=self.guarantee, means={c(p.name): p.mean for p in self.policies},
                            n={c(p.name): p.n for p in self.policies}, when_unit=self.when_unit,
                            stopped=self.stopped, notes=self.notes, closure=self.transitive, about=self.about)
        if self.margin is not None:
            out = out.with_equivalent([(c(a), c(b)) for a, b in self.equivalent], self.margin)
        return out

    # ------------------------------------------------------------------ outputs
    def to_dict(self) -> dict[str, Any]:
        """JSON form, ``"schema": "certirank.ranking/1"`` (documented in docs/record.md)."""
        out = {"schema": SCHEMA, "kind": self.kind, "alpha": self.alpha, "guarantee": self.guarantee,
               "policies": [p.to_dict() for p in self.policies],
               "relations": [r.to_dict() for r in self.relations],
               "undecided": [list(u) for u in self.undecided], "when_unit": self.when_unit,
               "stopped": self.stopped, "notes": list(self.notes), "inconsistent": bool(self.inconsistent),
               "cycles": [list(c) for c in self.cycles], "transitive": bool(self.transitive), "about": self.about,
               "counts": {"policies": len(self.policies), "pairs": self.n_pairs, "certified": self.n_certified,
                          "direct": self.n_direct, "undecided": len(self.undecided)}}
        if self.margin is not None:  # only rankings that tested equivalence say so (older records stay as they were)
            out["margin"] = self.margin
            out["equivalent"] = [list(e) for e in self.equivalent]
            out["counts"]["equivalent"] = len(self.equivalent)
        return out

    def to_json(self, **kwargs: Any) -> str:
        import json
        kwargs.setdefault("indent", 2)
        return json.dumps(self.to_dict(), **kwargs)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Ranking:
        """Rebuild from :meth:`to_dict` output (also when nested as ``"ranking"`` in a command's JSON)."""
        if d.get("schema") != SCHEMA and isinstance(d.get("ranking"), Mapping):  # a command's JSON (own schema)
            d = d["ranking"]
        if d.get("schema") != SCHEMA:
            raise ParameterError(f"not a {SCHEMA} object (schema = {d.get('schema')!r})")
        try:
            pols = tuple(RankedPolicy(**{k: p[k] for k in RankedPolicy.__dataclass_fields__}) for p in d["policies"])
            rels = tuple(Relation(**{k: r.get(k) for k in Relation.__dataclass_fields__}) for r in d["relations"])
            about = d.get("about")
            if about is not None and about not in ("policy", "benchmark", "table"):
                raise ParameterError(f"about must be policy, benchmark or table, got {about!r}")
            return cls(kind=str(d["kind"]), alpha=d.get("alpha"), guarantee=str(d.get("guarantee") or ""),
                       policies=pols, relations=rels, undecided=tuple(tuple(u) for u in d["undecided"]),
                       when_unit=d.get("when_unit"), stopped=d.get("stopped"), notes=tuple(d.get("notes") or ()),
                       inconsistent=bool(d.get("inconsistent")), cycles=tuple(tuple(c) for c in d.get("cycles") or ()),
                       transitive=bool(d.get("transitive", True)), about=about,
                       equivalent=tuple(tuple(e) for e in d.get("equivalent") or ()), margin=d.get("margin"),
                       _pos={p.name: i for i, p in enumerate(pols)})
        except (KeyError, TypeError) as exc:
            raise ParameterError(f"malformed {SCHEMA} object: {exc}") from None

    def _edges(self, edges: str) -> list[tuple[int, int, bool]]:
        """(source position, target position, dashed), sorted."""
        mode = check_choice("edges", edges, EDGE_MODES)
        pos = self._pos
        direct = [(pos[r.better], pos[r.worse]) for r in self.relations if r.via == "test"]
        if mode == "direct" or (mode == "reduction" and self.inconsistent):
            return sorted((a, b, False) for a, b in direct)
        if mode == "reduction":
            return sorted((pos[a], pos[b], False) for a, b in self.reduction)
        dset = set(direct)
        return sorted((pos[r.better], pos[r.worse], (pos[r.better], pos[r.worse]) not in dset) for r in self.relations)

    def label(self, i: int) -> tuple[str, str]:
        """(name, "mean | letters | [lo,hi]") of the policy at display position i."""
        p = self.policies[i]
        tail = f"{p.letters} | [{p.rank_lo},{p.rank_hi}]"
        if p.mean is not None:
            tail = f"{p.mean:.3f} | " + tail
        return p.name, tail

    def to_dot(self, edges: str = "reduction") -> str:
        """Graphviz DOT text; edges point from better to worse (closure edges dashed with ``edges="closure"``)."""
        lines = ["digraph certirank {", "  rankdir=TB;", "  node [shape=box];"]
        for i in range(len(self.policies)):
            name, tail = self.label(i)
            n = _dot_escape(name)
            lines.append(f'  "{n}" [label="{n}\\n{_dot_escape(tail)}"];')
        for a, b, dashed in self._edges(edges):
            style = " [style=dashed]" if dashed else ""
            lines.append(f'  "{_dot_escape(self.names[a])}" -> "{_dot_escape(self.names[b])}"{style};')
        lines.append("}")
        return "\n".join(lines) + "\n"

    def to_mermaid(self, edges: str = "reduction") -> str:
        """Mermaid flowchart text; node ids n0..n{L-1} in display order."""
        lines = ["flowchart TD"]
        for i in range(len(self.policies)):
            name, tail = self.label(i)
            label = f"{mermaid_label(name)}<br/>{mermaid_label(tail)}"
            lines.append(f'  n{i}["{label}"]')
        for a, b, dashed in self._edges(edges):
            lines.append(f"  n{a} {'-.->' if dashed else '-->'} n{b}")
        return "\n".join(lines) + "\n"


_dot_escape = dot_string


def certified_order(names: Sequence[str], closure: np.ndarray, means: Sequence[float | None] | None = None) -> list[int]:
    """Indices of ``names`` in display order: a topological order of ``closure``, otherwise as close to mean
    descending as it allows.

    Among the policies whose certified superiors are all placed, the next is the one with the highest "reach"
    (the highest mean among itself and the policies it is certified to beat), then its own mean, then name:
    a policy certified to beat a high-mean one is pulled up to just above it, rather than that one being
    pushed down below everything. With a cycle (inconsistent relations) the order is by mean only.
    """
    n = len(names)
    mu = np.array([(-np.inf if means is None or means[i] is None or not np.isfinite(means[i]) else float(means[i]))
                   for i in range(n)])
    off = np.array(closure, dtype=bool, copy=True)
    np.fill_diagonal(off, False)
    if not is_consistent(closure):
        return sorted(range(n), key=lambda i: (-mu[i], str(names[i])))
    reach = np.array([max(mu[i], mu[off[i]].max()) if off[i].any() else mu[i] for i in range(n)])
    key = [(-reach[i], -mu[i], str(names[i]), i) for i in range(n)]
    indeg = off.sum(axis=0).astype(int)
    heap = [key[i] for i in range(n) if indeg[i] == 0]
    heapq.heapify(heap)
    out = []
    while heap:
        i = heapq.heappop(heap)[3]
        out.append(i)
        for j in np.flatnonzero(off[i]):
            indeg[j] -= 1
            if indeg[j] == 0:
                heapq.heappush(heap, key[j])
    return out


def order_letters(names: Sequence[str], closure: np.ndarray, different: np.ndarray) -> dict[str, str]:
    """Compact letters for ``names`` already in certified display order (``closure``/``different`` aligned).

    The spec 07 letters (insert-absorb plus sweep), with one rule on top: letter "a" only ever goes to policies
    that nothing is certified to beat. The sweep can leave the first column with a dominated member; then
    the first column made only of undominated policies is named "a", and if there is none, the set of all
    undominated policies (pairwise undecided, so a valid letter group) is added as "a".
    """
    n = len(names)
    iu = np.nonzero(np.triu(different, 1))
    cols = letter_columns(n, list(zip(iu[0].tolist(), iu[1].tolist())))
    off = np.array(closure, dtype=bool, copy=True)
    np.fill_diagonal(off, False)
    dominated = off.any(axis=0) if is_consistent(closure) else np.zeros(n, dtype=bool)
    if cols and dominated[cols[0]].any():
        clean = [k for k, c in enumerate(cols) if not dominated[c].any()]
        if clean:
            cols.insert(0, cols.pop(clean[0]))
        else:
            cols.insert(0, [i for i in range(n) if not dominated[i]])
    labels = [""] * n
    for k, col in enumerate(cols):
        for x in col:
            labels[x] += letter_name(k)
    return {names[i]: labels[i] for i in range(n)}


def _as_relation(rel: Any) -> Relation:
    if isinstance(rel, Relation):
        return rel
    if isinstance(rel, Mapping):
        try:
            better, worse = str(rel["better"]), str(rel["worse"])
        except KeyError:
            raise ParameterError(f"a relation needs 'better' and 'worse', got {dict(rel)!r}") from None
        via = check_choice("relation via", rel.get("via", "test"), VIA)
        return Relation(better, worse, via, rel.get("when"), rel.get("evidence"), rel.get("evidence_kind"),
                        rel.get("details"))
    parts = tuple(rel)
    if len(parts) not in (2, 3):
        raise ParameterError(f"a relation must be (better, worse[, via]), got {rel!r}")
    via = check_choice("relation via", parts[2], VIA) if len(parts) == 3 else "test"
    return Relation(str(parts[0]), str(parts[1]), via)


def make_ranking(policies: Sequence[str], relations: Iterable[Any], *, kind: str, alpha: float | None = None,
                 guarantee: str = "", means: Mapping[str, float | None] | Sequence[float | None] | None = None,
                 n: Mapping[str, int | None] | Sequence[int | None] | None = None, when_unit: str | None = None,
                 stopped: str | None = None, notes: Iterable[str] = (), closure: bool = True,
                 about: str | None = None) -> Ranking:
    """Build a :class:`Ranking` from certified relations.

    Parameters
    ----------
    policies : sequence of str
        Names, unique (any order: the display order is computed).
    relations : iterable
        :class:`Relation` objects, mappings with ``better``, ``worse`` and optional ``via`` / ``when`` /
        ``evidence`` / ``evidence_kind``, or ``(better, worse[, via])`` tuples.
    kind, alpha, guarantee, when_unit, stopped, notes, about
        Copied to the result (see :class:`Ranking`).
    means, n : mapping name -> value or sequence in ``policies`` order, optional
        Mean over the data used and trials / observations used, per policy.
    closure : bool, default True
        The relations are transitive: add the ones implied (``via = "closure"``) when the set is consistent,
        and let letters and rank intervals follow them. False for relations that need not chain (preference
        edges, averages over different rows): nothing is implied, letters and rank intervals follow the
        direct relations, and a cycle is reported as it is (``Ranking.transitive`` is False).
    """
    names = [str(p) for p in policies]
    if not names:
        raise ParameterError("a ranking needs at least one policy")
    if len(set(names)) != len(names):
        raise ParameterError("policy names must be unique")
    idx = {v: i for i, v in enumerate(names)}

    def per(values: Any, what: str) -> list[Any]:
        if values is None:
            return [None] * len(names)
        if isinstance(values, Mapping):
            return [values.get(v) for v in names]
        vals = list(values)
        if len(vals) != len(names):
            raise ParameterError(f"{what} must have one value per policy ({len(names)}), got {len(vals)}")
        return vals

    mu = [None if v is None or not np.isfinite(float(v)) else float(v) for v in per(means, "means")]
    counts = [None if v is None else int(v) for v in per(n, "n")]
    given: dict[tuple[int, int], Relation] = {}
    for raw in relations:
        r = _as_relation(raw)
        for v in (r.better, r.worse):
            if v not in idx:
                raise ParameterError(f"relation {r.better} > {r.worse} names unknown policy {v!r}")
        if r.better == r.worse:
            raise ParameterError(f"relation {r.better} > {r.worse}: a policy cannot be better than itself")
        key = (idx[r.better], idx[r.worse])
        if key not in given or (r.via == "test" and given[key].via != "test"):
            given[key] = r
    m = len(names)
    adj = np.zeros((m, m), dtype=bool)
    for a, b in given:
        adj[a, b] = True
    clo = transitive_closure(adj)
    consistent = is_consistent(clo)
    if consistent and closure:
        for a, b in zip(*np.nonzero(clo)):
            if a != b and (a, b) not in given:
                given[(int(a), int(b))] = Relation(names[a], names[b], "closure")
    reach = np.zeros((m, m), dtype=bool)
    for a, b in given:
        reach[a, b] = True
    order = certified_order(names, clo, mu)
    pos = {i: k for k, i in enumerate(order)}
    shown = [names[i] for i in order]
    resolved = reach | reach.T
    # letters follow the closure when relations chain (a pair implied by transitivity is certified different
    # too), otherwise the direct relations only
    known = clo | clo.T if consistent and closure else resolved
    lett = order_letters(shown, clo[np.ix_(order, order)], known[np.ix_(order, order)])
    lo, hi = rank_intervals(clo if closure or not consistent else adj)
    tier = tiers(clo)
    off = reach.copy()
    np.fill_diagonal(off, False)
    pols = tuple(RankedPolicy(name=names[i], mean=mu[i], n=counts[i], rank_lo=int(lo[i]), rank_hi=int(hi[i]),
                              letters=lett[names[i]], tier=int(tier[i]), better_than=int(off[i].sum()),
                              worse_than=int(off[:, i].sum())) for i in order)
    rels = tuple(given[k] for k in sorted(given, key=lambda k: (pos[k[0]], pos[k[1]])))
    undecided = tuple((shown[a], shown[b]) for a in range(m) for b in range(a + 1, m)
                      if not resolved[order[a], order[b]])
    comps = tuple(sorted(tuple(sorted(names[i] for i in c)) for c in cycles(clo)))
    return Ranking(kind=str(kind), alpha=None if alpha is None else float(alpha), guarantee=str(guarantee),
                   policies=pols, relations=rels, undecided=undecided, when_unit=when_unit, stopped=stopped,
                   notes=tuple(str(v) for v in notes), inconsistent=not consistent, cycles=comps,
                   transitive=bool(closure), about=_check_about(about), _pos={v: k for k, v in enumerate(shown)})


def _check_about(about: str | None) -> str | None:
    if about is None:
        return None
    from ..results import ESTIMANDS
    return check_choice("about", about, ESTIMANDS)
