"""The AnyRank engine: active sampling, online graph updates and closure over one trial table (spec 03 §6-§9)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...evidence.budget_streams import BudgetStreams, out_of_reach
from ...evidence.streams import PairedStreams, combine
from ...multitest.graphical import passes
from ...order.closure import minimax_times
from ...order.result import Relation, make_ranking
from .config import COMPLETE, EXHAUSTED, NO_LEVEL, RECYCLING, STOPPED, _BLOCK, _I_BETTER, _J_BETTER, _Setup, _design
from .result import RankingResult, _Table, _statement


def _make_streams(setup: _Setup, n: int) -> PairedStreams | BudgetStreams:
    """The per-comparison test bank: the spec 01 e-process, or spec 08's exact budget test when asked for
    (``budget="final"`` / ``"extendable"``, scores declared binary, budget declared: checked by the setup)."""
    if setup.budget == "none":
        return PairedStreams(n, bettor=setup.bettor, ties=setup.ties, bins=setup.bins)
    return BudgetStreams(n, int(setup.budget_horizon), alpha=setup.alpha, ties=setup.ties, arms=setup.arms,
                         extendable=setup.budget == "extendable", bettor=setup.bettor,
                         concentration=setup.concentration, statistic=setup.statistic)


def _budget_note(s: _Setup) -> str:
    if s.budget == "none":
        return ""
    stat = {"bayes": "fastest-decision", "mixture": "Beta-mixture", "barnard": "Barnard-type"}[s.statistic]
    if s.budget == "final":
        return (f" Per-comparison test: exact budget test (spec 08, {s.arms} arms, {stat} statistic); its guarantee "
                f"holds up to the final budget of {s.budget_horizon} trials per comparison.")
    return (f" Per-comparison test: exact budget test (spec 08, {s.arms} arms, {stat} statistic, calibrated for "
            f"{s.budget_horizon} trials) combined with the {s.bettor} e-process (extendable): valid at any stopping "
            "time.")


class _Campaign:
    """The AnyRank state machine (spec 03 §5) shared by replay, simulation and live use.

    Two ways of feeding it:

    * ``paths``: the whole table is known (replay, simulation). Each pair's p-process along its own index
      is computed lazily in blocks and the loop jumps from event to event (:meth:`run_replay`).
    * live: :meth:`try_iteration` executes the next iteration once its trials are recorded.

    Futility (final exact budget only): a comparison that no continuation within its budget can decide
    at the largest level it may still get is no longer sampled (`_update_futile`). Stopping a stream is a
    stopping time of its p-process, so validity is untouched; and since such a comparison can never pass
    its own test, no decision changes either: only rollouts that could not change the answer are saved
    (it may still be decided by transitivity).
    """

    #: skip futile comparisons (a switch for benchmarks measuring what it saves; always on otherwise)
    futility = True

    def __init__(self, setup: _Setup, table: _Table, *, trajectory: bool = False) -> None:
        self.s = setup
        self.design = _design(setup)
        self.table = table
        k = len(self.design.pairs)
        self.k = k
        self.pi = self.design.pairs[:, 0].copy()
        self.pj = self.design.pairs[:, 1].copy()
        self.graph = self.design.graph.copy()
        self.pair_open = np.ones(k, dtype=bool)
        self.n = np.zeros(k, dtype=np.int64)
        self.cursor = np.zeros(k, dtype=np.int64)
        self.exhausted = np.zeros(k, dtype=bool)
        self.pl = np.ones(k)  # current one-sided p-values per pair
        self.pm = np.ones(k)
        self.t = 0
        self.termination: str | None = None
        self.decisions: list[dict[str, Any]] = []
        m = setup.m
        self.edge_time = np.full((m, m), np.inf)  # decided relation a > b -> its decision time
        self.inconsistent = False
        self.streams = _make_streams(setup, k)
        self.futile = np.zeros(k, dtype=bool)
        self._futility = self.futility and setup.budget == "final"
        self._m_reach: np.ndarray | None = None  # (K, 2) log-R thresholds of the largest reachable levels
        self.recycles = setup.method in RECYCLING
        self.want_traj = trajectory
        self._traj: list[np.ndarray] = []
        # replay: per-pair complete rows and lazily computed p-process paths
        self._rows: list[np.ndarray] | None = None
        self._path_l: np.ndarray | None = None
        self._path_m: np.ndarray | None = None
        self._path_r: np.ndarray | None = None
        self._avail = 0

    # ------------------------------------------------------------------ levels and selection
    def pair_levels(self) -> np.ndarray:
        lv = self.graph.levels(self.s.alpha)
        if self.s.guarantee == "paper":
            return lv
        return lv[0::2] + lv[1::2]

    def _level_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Per pair, an upper bound on the one-sided p-value level each direction can ever be tested at.

        Bretz updates move a rejected node's weight to the others along rows summing to at most 1, so the
        total weight of the unrejected nodes never grows: no node's weight can exceed it (recycling
        methods). Without recycling a node keeps its weight. Under the paper guarantee with ``ties="allow"``
        a pair passes when 2 min(p_less, p_more) <= its level, so each direction needs half of it.
        """
        w = self.graph.weights
        a = self.s.alpha
        paper = self.s.guarantee == "paper"
        if self.recycles:
            wl = wm = np.full(self.k, float(w.sum()))
        elif paper:
            wl = wm = w
        else:
            wl, wm = w[0::2], w[1::2]
        half = 2.0 if paper and self.s.ties == "allow" else 1.0
        slack = 1.0 + 1e-8  # `passes` rounds p / w to 10 decimals
        return a * wl * slack / half, a * wm * slack / half

    def _update_futile(self) -> None:
        bl, bm = self._level_bounds()
        st = self.streams
        self._m_reach = np.stack([st.threshold_for(bl), st.threshold_for(bm)], axis=1)
        if self._rows is not None:  # replay: the bank runs ahead; read the path at each pair's own index
            reach = self._path_r[np.arange(self.k), self.n]
        else:
            reach = st.reachable
        self.futile |= out_of_reach(reach, self._m_reach) & self.pair_open

    def select(self) -> np.ndarray | None:
        """Advantaged set S_t (spec 03 §5.3), or None after setting the termination reason."""
        if self._futility:
            self._update_futile()
        active = self.pair_open & (self.n < self.s.n_max) & ~self.exhausted & ~self.futile
        if not active.any():
            self.termination = EXHAUSTED
            return None
        lv = self.pair_levels()
        if self.recycles:
            amax = lv[active].max()
            if amax <= 0:
                self.termination = NO_LEVEL
                return None
            sel = active & (lv >= amax - self.s.advantage_tol)
        else:
            sel = active & (lv > 0)
            if not sel.any():
                self.termination = NO_LEVEL
                return None
        return np.flatnonzero(sel)

    # ------------------------------------------------------------------ decisions
    def _combined(self, pl: Any, pm: Any) -> Any:
        return combine(pl, pm, self.s.ties)

    def _direct_candidates(self) -> list[tuple[int, int, int]]:
        """(pair, node, direction) for open pairs whose p-value passes its level, one per pair."""
        w = self.graph.weights
        a = self.s.alpha
        out = []
        if self.s.guarantee == "paper":
            pc = self._combined(self.pl, self.pm)
            ok = passes(pc, w, a) & self.pair_open & (self.pl != self.pm)
            for k in np.flatnonzero(ok):
                out.append((int(k), int(k), _J_BETTER if self.pl[k] < self.pm[k] else _I_BETTER))
        else:
            ok_j = passes(self.pl, w[0::2], a) & self.pair_open
            ok_i = passes(self.pm, w[1::2], a) & self.pair_open
            for k in np.flatnonzero(ok_j | ok_i):
                if ok_j[k] and (not ok_i[k] or self.pl[k] <= self.pm[k]):
                    out.append((int(k), 2 * int(k), _J_BETTER))
                else:
                    out.append((int(k), 2 * int(k) + 1, _I_BETTER))
        return out

    def _closure_times(self) -> np.ndarray:
        return minimax_times(self.edge_time)

    def reject_loop(self) -> None:
        """Online Bretz rejections with transitive closure (spec 03 §5.4), until nothing is eligible."""
        while self.pair_open.any():
            direct = {k: (node, d) for k, node, d in self._direct_candidates()}
            implied: dict[int, tuple[int, float]] = {}
            if self.s.transitive_closure and self.decisions:
                tt = self._closure_times()
                reach = np.isfinite(tt)
                both = reach & reach.T
                if both.any():
                    self.inconsistent = True
                for k in np.flatnonzero(self.pair_open):
                    i, j = int(self.pi[k]), int(self.pj[k])
                    if reach[i, j] and not reach[j, i]:
                        implied[int(k)] = (_I_BETTER, float(tt[i, j]))
                    elif reach[j, i] and not reach[i, j]:
                        implied[int(k)] = (_J_BETTER, float(tt[j, i]))
            cand = set(direct) | set(implied)
            if not cand:
                return
            k = min(cand, key=lambda c: self.design.rank[c])
            if k in direct:
                node, d = direct[k]
                self._decide(k, node, d, "test", float(self.n[k]))
            else:
                d, when = implied[k]
                node = k if self.s.guarantee == "paper" else 2 * k + (0 if d == _J_BETTER else 1)
                self._decide(k, node, d, "transitivity", when)

    def _decide(self, k: int, node: int, d: int, via: str, when: float) -> None:
        i, j = int(self.pi[k]), int(self.pj[k])
        better, worse = (j, i) if d == _J_BETTER else (i, j)
        level = float(self.graph.levels(self.s.alpha)[node])
        if self.s.guarantee == "paper":
            p = float(self._combined(self.pl[k], self.pm[k]))
        else:
            p = float(self.pl[k] if d == _J_BETTER else self.pm[k])
        self.pair_open[k] = False
        self.graph.reject(node)
        self.edge_time[better, worse] = when
        samples = self.samples()
        self.decisions.append({
            "better": self.s.policies[better], "worse": self.s.policies[worse], "via": via,
            "decided_at": int(when) if math.isfinite(when) else None, "iteration": int(self.t),
            "trials": int(self.n[k]), "total_samples": int(samples.sum()), "level": level, "pvalue": p,
        })

    # ------------------------------------------------------------------ bookkeeping
    def samples(self, cursor: np.ndarray | None = None) -> np.ndarray:
        """Trials of each policy used: max over its hypotheses of the non-missing entries before the cursor."""
        c = self.cursor if cursor is None else cursor
        cum = self.table.present_cum()
        c = np.minimum(c, cum.shape[0] - 1)
        out = np.zeros(self.s.m, dtype=np.int64)
        np.maximum.at(out, self.pi, cum[c, self.pi])
        np.maximum.at(out, self.pj, cum[c, self.pj])
        return out

    def _after_iteration(self) -> None:
        self.reject_loop()
        if not self.pair_open.any():
            self.termination = COMPLETE

    # ------------------------------------------------------------------ live stepping
    def _scan(self, k: int) -> tuple[str, int, list[tuple[int, int]]]:
        """Next pair of hypothesis k from its cursor: ("pair", row, []), ("end", nrows, []) or
        ("need", row, [(policy, row), ...])."""
        tb = self.table
        i, j = int(self.pi[k]), int(self.pj[k])
        r = int(self.cursor[k])
        while True:
            if tb.finite and r >= tb.nrows:
                return "end", tb.nrows, []
            if r >= tb.vals.shape[0]:
                return "need", r, [(i, r), (j, r)]
            ki, kj = tb.known[r, i], tb.known[r, j]
            if (ki and np.isnan(tb.vals[r, i])) or (kj and np.isnan(tb.vals[r, j])):
                r += 1
                continue
            if ki and kj:
                return "pair", r, []
            return "need", r, [(p, r) for p, kn in ((i, ki), (j, kj)) if not kn]

    def needed(self) -> list[tuple[int, int]]:
        """Entries (policy index, trial) the current iteration still needs (empty if done or ready)."""
        if self.termination is not None:
            return []
        sel = self.select()
        if sel is None:
            return []
        need: set[tuple[int, int]] = set()
        for k in sel:
            kind, _, req = self._scan(int(k))
            if kind == "need":
                need.update(req)
        return sorted(need, key=lambda e: (e[1], e[0]))

    def try_iteration(self) -> bool:
        """Execute one iteration if every trial it needs is recorded; return whether it ran."""
        if self.termination is not None:
            return False
        sel = self.select()
        if sel is None:
            return False
        plan = []
        for k in sel:
            kind, r, _ = self._scan(int(k))
            if kind == "need":
                return False
            plan.append((int(k), kind, r))
        self._execute(plan)
        return True

    def run_until_needed(self) -> set[tuple[int, int]]:
        """:meth:`run_live`, returning what :meth:`needed` would return afterwards, from the same one scan of
        each selected pair per iteration (a batch of records asks this once per iteration, not once per record)."""
        while self.termination is None:
            sel = self.select()
            if sel is None:
                break
            plan = []
            need: set[tuple[int, int]] = set()
            for k in sel:
                kind, r, req = self._scan(int(k))
                if kind == "need":
                    need.update(req)
                plan.append((int(k), kind, r))
            if need:
                return need
            self._execute(plan)
        return set()

    def _execute(self, plan: list[tuple[int, str, int]]) -> None:
        """One iteration over the selected pairs, every one of them ready ("pair" or "end")."""
        self.t += 1
        upd = [(k, r) for k, kind, r in plan if kind == "pair"]
        for k, kind, r in plan:
            if kind == "end":
                self.exhausted[k] = True
                self.cursor[k] = r
        if upd:
            ks = np.array([k for k, _ in upd], dtype=np.int64)
            rs = np.array([r for _, r in upd], dtype=np.int64)
            x = self.table.vals[rs, self.pi[ks]]
            y = self.table.vals[rs, self.pj[ks]]
            self.streams.update(ks, x, y)
            self.n[ks] += 1
            self.cursor[ks] = rs + 1
            self.pl[ks] = self.streams.pvalue_less[ks]
            self.pm[ks] = self.streams.pvalue_more[ks]
        if self.want_traj:
            self._traj.append(np.array([self.samples().sum()]))
        self._after_iteration()

    def run_live(self) -> None:
        while self.try_iteration():
            pass

    # ------------------------------------------------------------------ replay (event jumping)
    def _prepare_paths(self, lmax: int | None = None, x: np.ndarray | None = None, y: np.ndarray | None = None,
                       path_l: np.ndarray | None = None, path_m: np.ndarray | None = None,
                       path_r: np.ndarray | None = None) -> None:
        """Per-pair complete rows, the padded pair sequences and the (lazily filled) p-process paths.

        A batch driver may pass shared buffers (``x``, ``y`` of shape (K, lmax), paths (K, lmax + 1)) that
        it fills itself; the campaign then only reads them.
        """
        tb = self.table
        present = ~np.isnan(tb.vals[:tb.nrows])
        self._rows = [np.flatnonzero(present[:, i] & present[:, j]) for i, j in self.design.pairs]
        self._len = np.array([r.size for r in self._rows], dtype=np.int64)
        own = int(min(self._len.max(initial=0), self.s.n_max))
        lmax = own if lmax is None else lmax
        # pairs of hypothesis k, padded with (0, 0) beyond its end (a zero payoff never moves the wealth,
        # and padded p-values are never read)
        self._x = np.zeros((self.k, lmax)) if x is None else x
        self._y = np.zeros((self.k, lmax)) if y is None else y
        for k, rows in enumerate(self._rows):
            r = rows[:lmax]
            self._x[k, :r.size] = tb.vals[r, self.pi[k]]
            self._y[k, :r.size] = tb.vals[r, self.pj[k]]
        self._lmax = lmax
        self._path_l = np.ones((self.k, lmax + 1)) if path_l is None else path_l
        self._path_m = np.ones((self.k, lmax + 1)) if path_m is None else path_m
        if self._futility:  # reachable maxima (K, lmax + 1, 2); index 0 (no trial yet) is never futile
            self._path_r = np.full((self.k, lmax + 1, 2), np.inf) if path_r is None else path_r
        self._avail = 0  # paths valid for n <= _avail

    def _extend_paths(self, upto: int) -> None:
        """Make p-process paths valid up to index ``upto`` (in blocks)."""
        upto = min(upto, self._lmax)
        if upto <= self._avail:
            return
        target = min(self._lmax, max(upto, self._avail + _BLOCK, 2 * self._avail))
        for s in range(self._avail, target):
            self.streams.update(None, self._x[:, s], self._y[:, s])
            self._path_l[:, s + 1] = self.streams.pvalue_less
            self._path_m[:, s + 1] = self.streams.pvalue_more
            if self._futility:
                self._path_r[:, s + 1] = self.streams.reachable
        self._avail = target

    def _first_event(self, k: int, lim: int):  # generator: yields path lengths it needs, returns the event
        """Smallest m in 1..lim such that hypothesis k becomes directly eligible after m more pairs (or None).

        A generator: it yields the path index it needs next whenever the computed paths run out, so the
        caller decides how to extend them (one campaign alone, or many campaigns in one vectorised bank).
        """
        n0 = int(self.n[k])
        w = self.graph.weights
        a = self.s.alpha
        lo = n0
        while True:
            hi = min(self._avail, n0 + lim)
            if hi > lo:
                pl = self._path_l[k, lo + 1:hi + 1]
                pm = self._path_m[k, lo + 1:hi + 1]
                if self.s.guarantee == "paper":
                    ok = passes(self._combined(pl, pm), w[k], a) & (pl != pm)
                else:
                    ok = passes(pl, w[2 * k], a) | passes(pm, w[2 * k + 1], a)
                if self._futility:  # becoming futile is an event too: the pair then leaves the sampled set
                    ok = ok | out_of_reach(self._path_r[k, lo + 1:hi + 1], self._m_reach[k])
                if ok.any():
                    return lo - n0 + int(np.argmax(ok)) + 1
                lo = hi
            if hi >= n0 + lim:
                return None
            yield hi + 1

    def run_replay(self) -> None:
        """Run to termination over a fully known table, jumping from event to event."""
        if self._rows is None:
            self._prepare_paths()
        gen = self._replay_steps()
        try:
            need = next(gen)
            while True:
                self._extend_paths(need)
                need = gen.send(None)
        except StopIteration:
            pass

    def _replay_steps(self):  # generator, see _first_event
        while self.termination is None:
            sel = self.select()
            if sel is None:
                break
            best = None
            for k in sel:
                rem = int(self._len[k] - self.n[k])
                cap = int(self.s.n_max - self.n[k])
                ev = cap if rem >= cap else rem + 1  # budget reached, or the pull that finds no pair
                lim = min(ev, rem) if best is None else min(ev, rem, best)
                if lim >= 1:
                    hit = yield from self._first_event(int(k), lim)
                    if hit is not None:
                        ev = min(ev, hit)
                best = ev if best is None else min(best, ev)
            delta = int(best)
            n0 = self.n.copy()
            c0 = self.cursor.copy()
            rems = self._len[sel] - self.n[sel]
            take = np.minimum(delta, rems)
            self.n[sel] += take
            for idx, k in enumerate(sel):
                if delta > rems[idx]:
                    self.exhausted[k] = True
                    self.cursor[k] = self.table.nrows
                elif self.n[k] > 0:
                    self.cursor[k] = self._rows[k][self.n[k] - 1] + 1
            if self.want_traj:
                self._traj.append(self._segment_samples(sel, n0, c0, delta))
            self.t += delta
            self.pl[sel] = self._path_l[sel, self.n[sel]]
            self.pm[sel] = self._path_m[sel, self.n[sel]]
            self._after_iteration()

    def _segment_samples(self, sel: np.ndarray, n0: np.ndarray, c0: np.ndarray, delta: int) -> np.ndarray:
        """Total samples after each of the ``delta`` iterations of a jump."""
        steps = np.arange(1, delta + 1)
        cur = np.tile(c0, (delta, 1))  # (delta, K) cursors
        for k in sel:
            rem = int(self._len[k] - n0[k])
            nn = n0[k] + np.minimum(steps, rem)
            rows = self._rows[k]
            ck = np.where(nn > 0, rows[np.maximum(nn - 1, 0)] + 1 if rows.size else 0, c0[k])
            ck = np.where(steps > rem, self.table.nrows, ck)
            cur[:, k] = ck
        cum = self.table.present_cum()
        cur = np.minimum(cur, cum.shape[0] - 1)
        used_i = cum[cur, self.pi[None, :]]  # (delta, K)
        used_j = cum[cur, self.pj[None, :]]
        per = np.zeros((delta, self.s.m), dtype=np.int64)
        for k in range(self.k):
            per[:, self.pi[k]] = np.maximum(per[:, self.pi[k]], used_i[:, k])
            per[:, self.pj[k]] = np.maximum(per[:, self.pj[k]], used_j[:, k])
        return per.sum(axis=1)

    # ------------------------------------------------------------------ result
    def result(self) -> RankingResult:
        s = self.s
        samples = self.samples()
        cum_rows = self.table.vals
        means: dict[str, float | None] = {}
        ncols = np.zeros(s.m, dtype=np.int64)
        for k in range(self.k):
            for p in (self.pi[k], self.pj[k]):
                ncols[p] = max(ncols[p], self.cursor[k])
        for p, name in enumerate(s.policies):
            rows = min(int(ncols[p]), cum_rows.shape[0])
            col = cum_rows[:rows, p][self.table.known[:rows, p]]
            col = col[~np.isnan(col)]
            means[name] = float(col.mean()) if col.size else None
        lv = self.pair_levels()
        pc = self._combined(self.pl, self.pm)
        details = []
        for k in range(self.k):
            if self.pair_open[k]:
                a, b = s.policies[self.pi[k]], s.policies[self.pj[k]]
                details.append({"pair": [a, b], "trials": int(self.n[k]), "pvalue": float(pc[k]),
                                "p_less": float(self.pl[k]), "p_more": float(self.pm[k]),
                                "level": float(lv[k]),
                                "budget_exhausted": bool(self.n[k] >= s.n_max or self.exhausted[k] or self.futile[k]),
                                "futile": bool(self.futile[k])})
        traj = None
        if self.want_traj:
            ts = np.concatenate(self._traj) if self._traj else np.zeros(0, dtype=np.int64)
            traj = {"total_samples": ts.astype(np.int64)}
        statement = _statement(s) + _budget_note(s)
        counts = {p: int(v) for p, v in zip(s.policies, samples)}
        rels = [Relation(d["better"], d["worse"], "closure" if d["via"] == "transitivity" else "test",
                         d["decided_at"], d["pvalue"], "pvalue",
                         {"step": step, "iteration": d["iteration"], "trials": d["trials"],
                          "total_samples": d["total_samples"], "level": d["level"]})
                for step, d in enumerate(self.decisions, start=1)]
        ranking = make_ranking(list(s.policies), rels, kind=s.method, alpha=s.alpha, guarantee=statement,
                               means=means, n=counts, when_unit="paired trials", stopped=self.termination or STOPPED,
                               about="policy")
        return RankingResult(
            method=s.method, alpha=s.alpha, guarantee=s.guarantee, ties=s.ties, policies=list(s.policies),
            ranking=ranking,
            undecided_details=details, total_samples=int(samples.sum()), iterations=int(self.t), trajectory=traj,
            n_max=int(s.n_max), bins=s.bins, budget=s.budget, arms=s.arms, about="policy")
