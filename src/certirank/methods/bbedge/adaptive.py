"""Adaptive item choice for leaderboards, with the guarantee kept (issue 35 item 4).

Which items to score next: instead of every model on every item, draw items one at a time (with
replacement) from the benchmark's N items with probabilities q_t(i) chosen from the past, score only the
models that still have an undecided pair, and weight each item by 1 / (N q_t(i)).

The guarantee (a documented variant of BB-EDGE's, spec 04 §5)
-----------------------------------------------------------
Estimand: theta_l = (1/N) sum_i E[S_il], the benchmark-weighted mean over this fixed item set (spec 09
`benchmark`; with one deterministic run, the table's averages). For a direction e = (a -> b) and a drawn
item i_t ~ q_t (q_t fixed before the draw, q_t(i) >= eps / N for every item),

    V_{e,t} = (X_{e,i_t} - mu_0) / (N q_t(i_t)),   X_{e,i} = (1 + S_ai - S_bi) / 2,   mu_0 = 1/2,

has E[V_{e,t} | past] = sum_i q_t(i) (E X_{e,i} - mu_0) / (N q_t(i)) = (theta_a - theta_b) / 2: the
importance weights cancel whatever q_t is, and V_{e,t} >= -1 / (2 eps) =: -L. The grid mixture of constant
bets prod (1 + lam V / L) (:mod:`certirank.evidence.betgrid`) is then a test supermartingale for
H_e: theta_a - theta_b <= 0, at every stopping time, for any predictable choice of q_t, of which models are
scored, and of when a pair stops being updated (a skipped step is a zero stake). Direct e-Holm over the
L(L-1) directions at each step (current values, spec 02 C.1) controls the FWER over all steps; edges are
reported cumulatively (their union over time is free of false edges on the same event).

What differs from BB-EDGE: the unit of time is one drawn item, not one replicate of all items, so the
block factorisation is not used; items are drawn with replacement, so the claim is about the N items' mean
(not about new items), exactly as BB-EDGE's.

A fixed table (``about="table"``)
------------------------------
When each model's score on an item is fixed (one recorded run; theta_l is then the table's average), a score
once seen is known. For a direction e with D_i = S_ai - S_bi, let K_e be the sum of D over the items e has seen
(both scores known) and U_e the items it has not. With q_t > 0 on U_e,

    g_{e,t} = (K_e + 1{i_t in U_e} D_{i_t} / q_t(i_t)) / (2N)

has E[g | past] = (K_e + sum_{U_e} D_i) / (2N) = (theta_a - theta_b) / 2 for any q_t, and g >= (K_e - 1 / q_min) /
(2N), both bounds fixed before the draw: the same grid mixture and e-Holm apply. Items every active model is
known on get q = 0 (nothing is left to learn there); with ``strategy="uniform"`` this is a uniform random order
of the items (no repeats). A model is never asked for a score it has given.

How q_t is chosen (speed only, never validity): q_t(i) proportional to (1 - eps) sqrt(sum over undecided pairs
of P(a and b disagree on i)) + eps, with P(model l solves i) = sigmoid(logit(p_i) + beta_l): p_i an item's
success rate fixed before the data (e.g. from earlier models on the same benchmark; without it, 1/2) and
beta_l the model's ability offset fitted on its own scores so far. Items every model solves (or fails)
carry no information about any pair and are rarely drawn — the square root is the variance-optimal
importance weight.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from scipy import special

from ..._validate import check_alpha
from ...errors import DataError, ParameterError
from ...evidence.betgrid import BetGrid

__all__ = ["AdaptiveBoard", "EXPLORE", "ItemSuggestions", "item_probabilities", "suggest"]

#: share of uniform sampling mixed into q_t: bounds the importance weight (and so the stake's range)
EXPLORE = 0.1
#: the same for a fixed table (about="table"), where the uniform order it competes with bets on a range of about 1/2:
#: 0.5 keeps the stake's range within 2x of it (GSM8K study: 0.1 -> 0.5 moved the saving against the uniform order
#: from -26 %..42 % to 10 %..45 %, benchmarks/studies/fewer_item_evaluations_adaptive.py)
EXPLORE_TABLE = 0.5
# the abilities behind q_t are refitted every this many draws (speed only)
_REFIT = 20
# no pair is set aside before this many draws (the growth estimate is noise before)
_MIN_FORECAST = 200


def _disagreement(rates: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """(pairs, items): the predicted chance that the two models of each pair score an item differently."""
    pa, pb = rates[pairs[:, 0]], rates[pairs[:, 1]]
    return pa * (1 - pb) + pb * (1 - pa)


def item_probabilities(rates: np.ndarray, pairs: np.ndarray, explore: float = EXPLORE) -> np.ndarray:
    """The draw probabilities q over the items (module docstring): proportional to (1 - explore) x the square root of
    the open pairs' summed predicted disagreement, plus a uniform share `explore` (so q(i) >= explore / N).

    ``rates``: (models, items) predicted success rates; ``pairs``: (P, 2) model indices of the open pairs."""
    n = rates.shape[1]
    uniform = np.full(n, 1.0 / n)
    if pairs.size == 0:
        return uniform
    score = np.sqrt(_disagreement(rates, pairs).sum(axis=0))
    total = float(score.sum())
    if not np.isfinite(total) or total <= 0.0:
        return uniform
    q = score / total
    return (1.0 - explore) * q + explore / n


def _e_holm_log(log_e: np.ndarray, alpha: float) -> np.ndarray:
    """Direct e-Holm (spec 02 C.1) on log e-values, without re-validating on every draw."""
    inv = 1.0 / alpha
    below = log_e < np.log(inv)
    c = inv + float(np.sum(inv - np.exp(log_e[below])))
    return log_e >= np.log(c)


class AdaptiveBoard:
    """A live leaderboard that proposes which items to score next (module docstring).

    Parameters
    ----------
    models : sequence of str
    items : int
        Number of benchmark items N (items are 0..N-1).
    alpha : float
    difficulty : array of N success rates in [0, 1], optional
        Fixed before the data (earlier models' results on these items); None = no prior (uniform draws).
    strategy : {"adaptive", "uniform"}
        ``uniform``: every item equally likely and every model scored (the plain alternative).
    seed : int
    explore : float in (0, 1], optional
        Uniform share of the draw probabilities (default 0.1, or 0.5 with ``about="table"``).
    n_max : int, optional
        Budget of item draws. With it, ``adaptive`` sets aside pairs whose evidence grows too slowly to be
        certified within `futility` x the draws left (a forecast): they wait until every other pair is decided,
        then the draws left go to them.
    about : {"benchmark", "table"}
        ``benchmark``: scores are fresh runs (asked for again when an item is drawn again). ``table``: each model's
        score on an item is fixed (one recorded run, the claims are about these scores' averages): a known score is
        never asked for again, and each pair bets on its exactly known part plus a weighted draw of the rest
        (module docstring).
    """

    def __init__(self, models: Sequence[str], items: int, alpha: float = 0.05, *, difficulty: Any = None,
                 strategy: str = "adaptive", seed: int = 0, explore: float | None = None,
                 n_max: int | None = None, futility: float = 8.0, about: str = "benchmark") -> None:
        self.models = [str(m) for m in models]
        if about not in ("benchmark", "table"):
            raise ParameterError(f"about must be 'benchmark' or 'table', got {about!r}")
        # "table": every model's score on an item is fixed (one recorded run): a score once seen is known, so an item
        # is never scored twice for a model, and each pair's evidence uses what is known exactly (module docstring)
        self.about = about
        if len(set(self.models)) != len(self.models) or len(self.models) < 2:
            raise ParameterError("models must be at least two distinct names")
        self.n_items = int(items)
        if self.n_items < 1:
            raise ParameterError(f"items must be a positive integer, got {items!r}")
        self.alpha = check_alpha(alpha)
        if strategy not in ("adaptive", "uniform"):
            raise ParameterError(f"strategy must be 'adaptive' or 'uniform', got {strategy!r}")
        self.strategy = strategy
        if explore is None:
            explore = EXPLORE_TABLE if about == "table" else EXPLORE
        if not 0.0 < explore <= 1.0:
            raise ParameterError(f"explore must be in (0, 1], got {explore!r}")
        self.explore = 1.0 if strategy == "uniform" else float(explore)
        p = np.full(self.n_items, 0.5) if difficulty is None else np.asarray(difficulty, dtype=float)
        if p.shape != (self.n_items,) or np.any(~np.isfinite(p)) or np.any((p < 0) | (p > 1)):
            raise ParameterError(f"difficulty must be {self.n_items} success rates in [0, 1]")
        self._logit_p = special.logit(np.clip(p, 0.02, 0.98))
        self.rng = np.random.default_rng(seed)
        m = len(self.models)
        self.a_idx, self.b_idx = np.nonzero(~np.eye(m, dtype=bool))  # directions a -> b
        self.bank = BetGrid(1, self.a_idx.size)
        self.certified = np.zeros(self.a_idx.size, dtype=bool)  # cumulative edges
        self.certified_at = np.zeros(self.a_idx.size, dtype=np.int64)
        self.beta = np.zeros(m)
        self._seen_s = [[] for _ in range(m)]
        self._seen_i = [[] for _ in range(m)]
        self.draws = 0
        self.evaluations = 0
        self.evaluations_at: list[int] = []  # evaluations after each draw
        self._pending: list[dict[str, Any]] = []
        # a pair forecast to need more than `futility` x the draws left of the budget is set aside (speed only:
        # a predictable choice to stop betting on it, which is a zero stake)
        self.n_max = n_max
        self.futility = float(futility)
        self.dormant = np.zeros((m, m), dtype=bool)
        self._woken = False  # the pairs set aside were taken up again once the others were decided
        self._sum_pay = np.zeros(self.a_idx.size)
        self._sum_sq = np.zeros(self.a_idx.size)
        self._n_pay = np.zeros(self.a_idx.size, dtype=np.int64)
        self._loss = 1.0
        if about == "table":
            self._known = np.full((m, self.n_items), np.nan)
            self._seen_pair = np.zeros((self.a_idx.size, self.n_items), dtype=bool)
            self._k_sum = np.zeros(self.a_idx.size)  # sum of S_a - S_b over the items each pair has seen

    # ---- design -----------------------------------------------------------------------------------
    def _open_pairs(self) -> np.ndarray:
        """(a, b) with a < b whose pair has no certified edge yet."""
        m = len(self.models)
        cert = np.zeros((m, m), dtype=bool)
        cert[self.a_idx, self.b_idx] = self.certified
        cert = cert | cert.T | self.dormant
        a, b = np.triu_indices(m, 1)
        keep = ~cert[a, b]
        return np.stack([a[keep], b[keep]], axis=1)

    def probabilities(self) -> np.ndarray:
        """q_t over the items, fixed before the next draw."""
        n = self.n_items
        pairs = self._open_pairs()
        if self.strategy == "uniform" or pairs.size == 0:
            return self._table_probabilities(None, pairs) if self.about == "table" else np.full(n, 1.0 / n)
        ps = special.expit(self._logit_p[None, :] + self.beta[:, None])  # (models, items)
        if self.about == "table":
            return self._table_probabilities(ps, pairs)
        return item_probabilities(ps, pairs, self.explore)

    def _open_items(self) -> np.ndarray:
        """Items some active model has not been scored on (table mode): the only ones worth drawing."""
        active = self._active_models()
        return np.isnan(self._known[active]).any(axis=0) if active.size else np.zeros(self.n_items, dtype=bool)

    def _table_probabilities(self, ps: np.ndarray | None, pairs: np.ndarray) -> np.ndarray:
        """q over the items still open (uniform: a random order of them; adaptive: toward the open pairs), zero on
        items every active model is known on; with every item known, uniform (the draws then cost nothing)."""
        open_items = self._open_items()
        if not open_items.any():
            return np.full(self.n_items, 1.0 / self.n_items)
        q = np.zeros(self.n_items)
        if ps is None or pairs.size == 0:
            q[open_items] = 1.0 / open_items.sum()
        else:
            q[open_items] = item_probabilities(ps[:, open_items], pairs, self.explore)
        return q

    def _active_models(self) -> np.ndarray:
        pairs = self._open_pairs()
        if self.strategy == "uniform":
            return np.arange(len(self.models))
        return np.unique(pairs) if pairs.size else np.array([], dtype=np.int64)

    # ---- live API ---------------------------------------------------------------------------------
    def suggest_items(self, k: int = 1) -> list[dict[str, Any]]:
        """The next `k` items to score, each with the models to score on it and its draw probability."""
        if self.done:
            return []
        q = self.probabilities()
        active = self._active_models()
        items = self.rng.choice(self.n_items, size=int(k), p=q)
        floor = float(q[q > 0].min())
        out = []
        for i in items:
            todo = active
            if self.about == "table":  # a known score is not asked for again (suggestions in one batch share it)
                todo = [j for j in active if np.isnan(self._known[j, i])
                        and not any(p["item"] == int(i) and self.models[j] in p["models"] for p in self._pending + out)]
            out.append({"item": int(i), "models": [self.models[j] for j in todo], "probability": float(q[i]),
                        "floor": floor})
        self._pending.extend(out)
        return out

    def record(self, item: int, scores: dict[str, float]) -> None:
        """Scores of the suggested models on a suggested item (in the order suggested)."""
        if not self._pending or self._pending[0]["item"] != int(item):
            raise DataError(f"item {item} was not the next suggested item; record suggestions in order (the "
                            "guarantee needs each item's draw probability)")
        sug = self._pending[0]
        want = sug["models"]
        if sorted(scores) != sorted(want):
            raise DataError(f"item {item}: scores for {sorted(scores)} but the suggestion was {sorted(want)}")
        s = np.full(len(self.models), np.nan)
        for name, v in scores.items():
            v = float(v)
            if not 0.0 <= v <= 1.0:
                raise DataError(f"item {item}, model {name!r}: score {v!r} outside [0, 1]")
            s[self.models.index(name)] = v
        self._pending.pop(0)
        self._update(int(item), s, sug["probability"], sug["floor"])

    def _update(self, item: int, s: np.ndarray, q_i: float, q_min: float) -> None:
        n = self.n_items
        new = np.isfinite(s)
        if self.about == "table":
            fresh = new & np.isnan(self._known[:, item])
            self._known[fresh, item] = s[fresh]
            s_new = s
            s = self._known[:, item].copy()  # known scores stand in for every model on this item
        x = (1.0 + s[self.a_idx] - s[self.b_idx]) / 2.0
        pairs_open = self._open_pairs()
        m = len(self.models)
        open_mat = np.zeros((m, m), dtype=bool)
        open_mat[pairs_open[:, 0], pairs_open[:, 1]] = True
        open_mat = open_mat | open_mat.T
        live = open_mat[self.a_idx, self.b_idx] & np.isfinite(x)
        if self.about == "table":
            pay, loss = self._table_payoffs(item, x, live, q_i, q_min)
            self.bank.step(pay[None, :], loss[None, :])
            loss = float(loss.max())
            s = s_new
        else:
            pay = np.where(live, (np.nan_to_num(x) - 0.5) / (n * q_i), 0.0)
            loss = 0.5 / (n * q_min)
            self.bank.step(pay[None, :], np.full((1, pay.size), loss))
        self._sum_pay += pay
        self._sum_sq += pay * pay
        self._n_pay += live
        self._loss = loss
        self.draws += 1
        self.evaluations += int(new.sum()) if self.about != "table" else int(fresh.sum())
        rej = _e_holm_log(self.bank.log_wealth[0], self.alpha)
        new = rej & ~self.certified
        self.certified |= rej
        self.certified_at[new] = self.draws
        self.evaluations_at.append(self.evaluations)
        for j in np.flatnonzero(np.isfinite(s)):
            self._seen_s[j].append(s[j])
            self._seen_i[j].append(item)
        if self.strategy == "adaptive" and self.draws % _REFIT == 0:
            self._fit_abilities()
            self._set_aside()
        if self.dormant.any() and self._open_pairs().size == 0:
            # every pair not set aside is decided: the draws left of the budget go to the pairs set aside, since a
            # forecast of futility is no certainty (a true pair set aside early is then certified late, not lost)
            self.dormant[:] = False
            self._woken = True

    def _table_payoffs(self, item: int, x: np.ndarray, live: np.ndarray, q_i: float,
                       q_min: float) -> tuple[np.ndarray, np.ndarray]:
        """Table mode: with K_e = sum of D = S_a - S_b over the items pair e has seen and U_e the items it has not,
        g_e = (K_e + 1{item in U_e} D_item / q(item)) / (2N) has E[g_e | past] = (theta_a - theta_b) / 2 for any q
        with q > 0 on U_e (the seen part is known exactly); g_e >= (K_e - 1 / q_min) / (2N) =: -L_e, with K_e and
        q_min fixed before the draw. A skipped direction stakes nothing."""
        n = self.n_items
        d = np.nan_to_num(2.0 * x - 1.0)
        unseen = live & ~self._seen_pair[:, item]
        pay = np.where(live, (self._k_sum + np.where(unseen, d / q_i, 0.0)) / (2.0 * n), 0.0)
        loss = np.maximum((1.0 / q_min - self._k_sum) / (2.0 * n), 1e-12)
        both = np.isfinite(x) & ~self._seen_pair[:, item]  # pairs whose item difference is now known
        self._k_sum[both] += d[both]
        self._seen_pair[both, item] = True
        return pay, loss

    def _set_aside(self) -> None:
        """Pairs forecast to miss the e-Holm cut-off within the budget: the growth per draw of the best
        constant bet at the payoffs' running moments, g = mu^2 / (2 m2) (stake capped at the safe range), against
        the log e-value still needed. A forecast, like docs/futility.md: it only defers the pair (`_update` takes it up
        again once the others are decided)."""
        if self.n_max is None or self.draws < _MIN_FORECAST or self._woken:
            return
        left = self.n_max - self.draws
        k = np.maximum(self._n_pay, 1)
        mu = self._sum_pay / k
        m2 = np.maximum(self._sum_sq / k, 1e-12)
        lam = np.clip(mu / m2, 0.0, 0.98 / self._loss)
        g = lam * mu - lam * lam * m2 / 2.0
        lw = self.bank.log_wealth[0]
        cut = np.log(1.0 / self.alpha) + np.log(self.a_idx.size)  # the largest cut-off e-Holm can use
        need = np.where(g > 0, (cut - lw) / np.maximum(g, 1e-300), np.inf)
        m = len(self.models)
        best = np.full((m, m), np.inf)
        np.minimum.at(best, (self.a_idx, self.b_idx), need)
        best = np.minimum(best, best.T)
        self.dormant |= best > self.futility * left
        np.fill_diagonal(self.dormant, False)

    def _fit_abilities(self) -> None:
        """Newton steps of each model's ability offset on its scores so far (ridge toward 0); speed only."""
        for j in range(len(self.models)):
            if not self._seen_s[j]:
                continue
            lp = self._logit_p[np.asarray(self._seen_i[j])]
            y = np.asarray(self._seen_s[j])
            for _ in range(2):
                p = special.expit(lp + self.beta[j])
                grad = np.sum(y - p) - 0.1 * self.beta[j]
                hess = np.sum(p * (1 - p)) + 0.1
                self.beta[j] = float(np.clip(self.beta[j] + grad / hess, -6, 6))

    # ---- reading ----------------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self._open_pairs().size == 0 or (self.n_max is not None and self.draws >= self.n_max)

    def edges(self) -> list[tuple[str, str]]:
        """Certified edges (a, b): model a's mean over the items is higher than b's (cumulative)."""
        return [(self.models[a], self.models[b]) for a, b, c in zip(self.a_idx, self.b_idx, self.certified) if c]


def run_board(board: AdaptiveBoard, score: Any, max_draws: int) -> AdaptiveBoard:
    """Drive `board` with a scoring function ``score(item, model_indices) -> scores`` until every pair is
    decided or `max_draws` items were drawn (simulation studies)."""
    idx = {name: j for j, name in enumerate(board.models)}
    while board.draws < max_draws and not board.done:
        sug = board.suggest_items(1)[0]
        cols = np.array([idx[m] for m in sug["models"]], dtype=np.int64)
        vals = score(sug["item"], cols)
        board.record(sug["item"], dict(zip(sug["models"], np.asarray(vals, dtype=float).tolist())))
    return board


# ---- suggestions from a leaderboard (Leaderboard.suggest_items, LeaderboardResult.suggest_items) ------------------

#: Beta(PRIOR_WEIGHT/2, PRIOR_WEIGHT/2) shrinkage of each model's observed mean on an item (speed only: a
#: score seen once still leaves room for the other outcome)
PRIOR_WEIGHT = 0.2

KEEP_GUARANTEE = ("a suggestion is a design choice, not evidence: to keep the guarantee, score the models on the drawn "
                  "items in the order drawn and weight each item by 1 / (N x its probability), as "
                  "certirank.methods.bbedge.adaptive.AdaptiveBoard does live; a BB-EDGE leaderboard records whole "
                  "runs only")


def shrink(mean: Any, runs: Any) -> np.ndarray:
    """A mean score over `runs` runs pulled toward 1/2 by PRIOR_WEIGHT pseudo-runs (speed only)."""
    runs = np.asarray(runs, dtype=float)
    return (np.asarray(mean, dtype=float) * runs + PRIOR_WEIGHT / 2.0) / (runs + PRIOR_WEIGHT)


def table_rates(table: Any, models: Sequence[str]) -> tuple[tuple[str, ...], np.ndarray]:
    """(item names in the table's order, (models, items) shrunk mean scores) of a validated long table."""
    import pandas as pd
    if all(_plain_labels(table[c]) for c in ("policy", "env")):
        return _rates_on_codes(table, models)
    items = pd.unique(table["env"].astype(str))
    cells = table.assign(env=table["env"].astype(str), policy=table["policy"].astype(str)).groupby(
        ["policy", "env"], sort=False)["score"]
    mean = cells.mean().unstack().reindex(index=[str(m) for m in models], columns=items)
    count = cells.count().unstack().reindex(index=[str(m) for m in models], columns=items).fillna(0)
    return tuple(str(i) for i in items), shrink(mean.to_numpy(dtype=float), count.to_numpy(dtype=float))


def _plain_labels(col: Any) -> bool:
    """Text labels (Arrow-backed), none missing: their codes are the reader's, and str() of each is itself."""
    import pandas as pd
    return isinstance(col.dtype, pd.StringDtype) and getattr(col.array, "_pa_array", None) is not None \
        and not col.isna().any()


def _rates_on_codes(table: Any, models: Sequence[str]) -> tuple[tuple[str, ...], np.ndarray]:
    """`table_rates` grouped by the reader's integer codes instead of two text columns (a leaderboard of five million
    rows computes it for every result): the same groups, each summed by pandas in row order, so the same bits."""
    import pandas as pd

    from ...data._cells import label_codes
    pc, pnames = label_codes(table["policy"])
    ec, enames = label_codes(table["env"])
    n_env = len(enames)
    key = pc.astype(np.int64) * n_env + ec
    score = table["score"].to_numpy(dtype=float)
    full_mean = np.full((len(pnames) + 1, n_env), np.nan)  # the last row: models absent from the table
    full_count = np.zeros((len(pnames) + 1, n_env))
    if ((score == 0.0) | (score == 1.0)).all():
        # sums of 0/1 scores are exact in any order, so counting gives pandas' (compensated) sums and means
        count = np.bincount(key, minlength=len(pnames) * n_env).astype(float)
        sums = np.bincount(key, weights=score, minlength=len(pnames) * n_env)
        seen = count > 0
        full_mean[:-1].reshape(-1)[seen] = sums[seen] / count[seen]
        full_count[:-1] = count.reshape(len(pnames), n_env)
    else:
        cells = pd.Series(score).groupby(key, sort=False)
        mean, counted = cells.mean(), cells.count()
        at = mean.index.to_numpy()
        full_mean[at // n_env, at % n_env] = mean.to_numpy(dtype=float)
        full_count[at // n_env, at % n_env] = counted.reindex(mean.index).to_numpy(dtype=float)
    row = {str(p): i for i, p in enumerate(pnames)}
    rows = np.array([row.get(str(m), len(pnames)) for m in models], dtype=np.int64)
    return tuple(str(i) for i in enames), shrink(full_mean[rows], full_count[rows])


@dataclass(frozen=True)
class ItemSuggestions:
    """Items to score next, drawn (with replacement, seeded) with known probabilities toward the undecided pairs.

    ``items``: one entry per draw: ``item`` (its name), ``probability`` (its draw probability q(i)), ``weight``
    (1 / (N q(i)), the importance weight that keeps the estimate unbiased), ``pairs`` (the undecided pairs this
    item is predicted to advance more than an average item: the two models are predicted to score it differently
    more often than they do on average, largest first) and ``disagreement`` (that predicted chance, per pair).
    ``undecided``: the open pairs the probabilities were built for (none: uniform draws); ``models``: the models
    to score on each drawn item (those with an undecided pair).
    """

    items: list[dict[str, Any]]
    undecided: list[list[str]]
    models: list[str]
    k: int
    seed: int
    explore: float
    n_items: int
    note: str = KEEP_GUARANTEE

    def to_dict(self) -> dict[str, Any]:
        return {"k": self.k, "seed": self.seed, "explore": self.explore, "n_items": self.n_items,
                "undecided": [list(p) for p in self.undecided], "models": list(self.models),
                "items": [dict(i) for i in self.items],
                "note": self.note}


def suggest(models: Sequence[str], item_names: Sequence[str], rates: np.ndarray, undecided: Sequence[Sequence[str]],
            k: int, seed: int, explore: float = EXPLORE) -> ItemSuggestions:
    """Draw `k` items (with replacement, ``numpy.random.default_rng(seed)``) with :func:`item_probabilities` of the
    models' per-item `rates` (NaN: not seen, taken as 1/2) toward the `undecided` pairs."""
    models = [str(m) for m in models]
    pos = {m: j for j, m in enumerate(models)}
    r = np.where(np.isfinite(rates), rates, 0.5)
    pairs = np.array([[pos[a], pos[b]] for a, b in undecided], dtype=np.int64).reshape(-1, 2)
    q = item_probabilities(r, pairs, explore)
    n = len(item_names)
    draws = np.random.default_rng(seed).choice(n, size=int(k), p=q)
    dis = _disagreement(r, pairs) if pairs.size else np.zeros((0, n))
    avg = dis.mean(axis=1) if pairs.size else np.zeros(0)
    out = []
    for i in draws.tolist():
        ahead = [j for j in np.argsort(-dis[:, i], kind="stable").tolist() if dis[j, i] > avg[j]]
        out.append({"item": str(item_names[i]), "probability": float(q[i]), "weight": float(1.0 / (n * q[i])),
                    "pairs": [[models[pairs[j, 0]], models[pairs[j, 1]]] for j in ahead],
                    "disagreement": [round(float(dis[j, i]), 6) for j in ahead]})
    active = sorted({int(j) for j in pairs.ravel().tolist()})
    return ItemSuggestions(items=out, undecided=[[str(a), str(b)] for a, b in undecided],
                           models=[models[j] for j in active], k=int(k), seed=int(seed),
                           explore=float(explore), n_items=n)
