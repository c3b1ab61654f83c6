"""A certified Bradley–Terry ranking for battles (issue 37 item 4): pairwise claims about strengths that pool
every battle, hold at every checkpoint, and control the family-wise error over all pairs.

``certirank.preference_graph(battles, model="bradley-terry")`` and ``certirank rank BATTLES --model bt`` call
:func:`bradley_terry_graph`. See ``docs/bradley-terry.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..._validate import check_alpha, check_choice, check_positive_int
from ...errors import DataError, ParameterError
from ...order.result import make_ranking
from .fit import DRAWS
from .result import BradleyTerryGraph
from .sequential import TARGET_INFORMATION, run

__all__ = ["bradley_terry_graph", "BradleyTerryGraph", "METHODS", "DRAWS"]

METHODS = ("asymptotic", "exact")
#: battles between checkpoints by default (each checkpoint refits the model)
EVERY = 100


def _guarantee(alpha: float, method: str, n_pairs: int, draws: str, home: bool) -> str:
    model = ("Bradley–Terry" if draws != "davidson" else "Davidson (Bradley–Terry with draws)") + \
        (" with a first-position advantage" if home else "")
    draw_rule = {"half": "a draw counts as half a win for each side", "davidson": "draws modelled",
                 "drop": "draws left out"}[draws]
    if method == "asymptotic":
        return (f"Asymptotic guarantee: in the limit of much information per pair, with probability at least "
                f"{100 * (1 - alpha):g}% every certified edge orders two players' {model} strengths correctly, at "
                f"every checkpoint at which you stop; alpha = {alpha:g} family-wise over the {n_pairs} pairs "
                f"(Holm on anytime p-values of asymptotic confidence sequences, Waudby-Smith et al. 2024; "
                f"{draw_rule}). Not a finite-sample guarantee: with few battles per player it can fail.")
    return (f"Finite-sample guarantee under the model: with probability at least {100 * (1 - alpha):g}% every "
            f"certified edge orders two players' {model} strengths correctly, at every checkpoint at which you "
            f"stop, if the battles follow the model; alpha = {alpha:g} family-wise over the {n_pairs} pairs "
            f"(universal inference, Holm; {draw_rule}).")


def bradley_terry_graph(data: Any, alpha: float = 0.05, *, method: str = "asymptotic", draws: str = "half",
                        home: bool = False, every: int = EVERY, order: str = "random", seed: int = 0,
                        policies: Sequence[str] | None = None) -> BradleyTerryGraph:
    """Certify which player is stronger than which under the Bradley–Terry model, pooling every battle.

    Parameters
    ----------
    data : DataFrame or path
        Battles (``A,B,preference`` with 0 = A preferred, 1 = B, 0.5 = draw; or ``model_a,model_b,winner``).
    alpha : float
        Family-wise error rate over all L (L - 1) / 2 pairs and every checkpoint.
    method : {"asymptotic", "exact"}
        ``asymptotic`` (default): asymptotic confidence sequences for each contrast (valid in the limit of much
        information per pair); ``exact``: universal inference, a finite-sample guarantee under the model, at a
        large cost in power and time.
    draws : {"half", "davidson", "drop"}
        A draw as half a win for each side (default), Davidson's draw model, or left out. ``exact`` needs a
        likelihood: ``davidson`` or ``drop``.
    home : bool
        Model an advantage of the first-named side (home team, first position in a blind A/B).
    every : int
        Battles between checkpoints (each refits the model and may certify); fewer checkpoints never cost
        validity, only the chance to stop earlier.
    order : {"random", "given"}
        Battles are read in a seeded random order (``seed``) unless their recorded order is the order they
        happened in (``given``).
    seed : int
        Seed of the random order.
    policies : sequence of str, optional
        Every battle must be between these players (they also fix the display order).
    """
    alpha = check_alpha(alpha)
    method = check_choice("method", method, METHODS)
    draws = check_choice("draws", draws, DRAWS)
    every = check_positive_int("every", every)
    order = check_choice("order", order, ("random", "given"))
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError(f"seed must be a non-negative integer, got {seed!r}")
    if method == "exact" and draws == "half":
        raise ParameterError("method 'exact' needs a likelihood for draws: pass draws='davidson' (modelled) or "
                             "draws='drop'")
    from ...data.preferences import load_preferences
    table = data if isinstance(data, pd.DataFrame) and {"policy_a", "policy_b", "preference"} <= set(data.columns) \
        else load_preferences(data, policies=policies)
    src = table.attrs.get("source")
    names = list(dict.fromkeys(list(policies) if policies is not None else []))
    seen = [str(v) for v in pd.unique(np.ravel(np.column_stack([table["policy_a"], table["policy_b"]])))]
    for s in seen:
        if s not in names:
            if policies is not None:
                raise DataError(f"battle with player {s!r}, which is not in policies=", source=src)
            names.append(s)
    L = len(names)
    if L < 2:
        raise DataError("a Bradley–Terry ranking needs battles between at least two players", source=src)
    idx = {n: k for k, n in enumerate(names)}
    first = table["policy_a"].map(idx).to_numpy(dtype=np.int64)
    second = table["policy_b"].map(idx).to_numpy(dtype=np.int64)
    score = 1.0 - table["preference"].to_numpy(dtype=float)  # the first side's score: 1 win, 0 loss, 0.5 draw
    n = score.size
    if order == "random":
        perm = np.random.default_rng(seed).permutation(n)
        first, second, score = first[perm], second[perm], score[perm]
    checkpoints = np.unique(np.append(np.arange(every, n + 1, every), n))
    from threadpoolctl import threadpool_limits
    # hundreds of small (L x L) solves: BLAS threads only spin on them (measured 0.19 s per 108 x 108 solve with
    # two OpenBLAS threads on a busy 2-core machine, ~1 ms with one)
    with threadpool_limits(limits=1, user_api="blas"):
        out = run(first, second, score, L, alpha=alpha, method=method, draws=draws, home=home,
                  checkpoints=checkpoints)
    from ...multitest.graphical import holm_rejections
    p = out["pvalue"]
    rejected = holm_rejections(p, alpha) if p.size else np.zeros(0, dtype=bool)
    fit = out["fit"]
    iu, ju = out["iu"], out["ju"]
    rels = []
    var = fit.contrast_var() if fit is not None else np.zeros((L, L))
    pairs = []
    met = np.zeros((L, L), dtype=bool)
    met[first, second] = met[second, first] = True
    for k in np.flatnonzero(rejected):
        a, b = int(iu[k]), int(ju[k])
        better, worse = (a, b) if out["sign"][k] > 0 else (b, a)
        rels.append({"better": names[better], "worse": names[worse], "when": int(out["decided"][k]),
                     "evidence_kind": "pvalue", "evidence": float(p[k])})
    for k in range(iu.size):
        a, b = int(iu[k]), int(ju[k])
        est = float(fit.theta[a] - fit.theta[b]) if fit is not None else 0.0
        se = float(np.sqrt(var[a, b])) if var[a, b] > 0 else None
        pairs.append({"a": names[a], "b": names[b], "estimate": est, "se": se,
                      "z": est / se if se else None, "information": 1.0 / var[a, b] if var[a, b] > 0 else 0.0,
                      "pvalue": float(p[k]), "met": bool(met[a, b]),
                      "decision": None if not rejected[k] else ("a>b" if out["sign"][k] > 0 else "a<b"),
                      "decided_at": int(out["decided"][k]) if rejected[k] else None})
    share = np.zeros(L)
    battles = np.zeros(L, dtype=np.int64)
    np.add.at(share, first, score)
    np.add.at(share, second, 1.0 - score)
    np.add.at(battles, first, 1)
    np.add.at(battles, second, 1)
    guarantee = _guarantee(alpha, method, iu.size, draws, home)
    warnings = []
    if method == "asymptotic":
        warnings.append("Asymptotic: the claims rest on a normal approximation that needs much information per "
                        "pair; with very few battles per player (early in a sparse arena) it can fail.")
    never = int(iu.size - met[iu, ju].sum())
    if never:
        warnings.append(f"{never} of {iu.size} pairs never met; they can still be ordered through common "
                        "opponents (that is what the model pools).")
    from ...order.closure import transitive_closure  # noqa: F401  (closure done by make_ranking)
    ranking = make_ranking(names, rels, kind="bradley-terry", alpha=alpha, guarantee=guarantee,
                           means=[float(share[i] / battles[i]) if battles[i] else None for i in range(L)],
                           n=battles.tolist(), when_unit="battles", stopped=f"all {n} battles replayed",
                           notes=[], closure=True)
    details = {"strengths": {names[i]: {"theta": float(fit.theta[i] - fit.theta.mean()),
                                        "se": float(np.sqrt(max(fit.cov[i, i], 0.0)))} for i in range(L)}
               if fit is not None else {},
               "home": None if fit is None else fit.home, "nu": None if fit is None else fit.nu,
               "pairs": pairs, "checkpoints": int(checkpoints.size),
               "mixing": {"rho2": out["rho2"], "target_information": TARGET_INFORMATION}
               if method == "asymptotic" else None}
    inputs = {"alpha": alpha, "model": "bradley-terry", "method": method, "draws": draws, "home": bool(home),
              "every": every, "battles": int(n), "players": L, "source": src,
              "order": {"kind": "random", "seed": int(seed)} if order == "random" else {"kind": "given"}}
    return BradleyTerryGraph(about="policy", inputs=inputs, ranking=ranking, details=details, warnings=warnings)
