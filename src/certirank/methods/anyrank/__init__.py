"""AnyRank: sequential, active, prior-informed policy ranking with family-wise error control (spec 03).

Public entry points
-------------------
``Ranker(policies, alpha=0.05, *, prior=None, gamma=1.0, n_max=None, method="anyrank", ties="allow", ...)``
    The live engine: ``suggest()`` -> the (policy, trial_index) runs needed next, ``record(policy,
    trial_index, score)``, ``result()``, ``done``, ``to_json()`` / ``Ranker.from_json()`` (resumes bit for
    bit), ``save(path)`` / ``Ranker.load(path)``.
``anyrank(data, alpha=0.05, *, method="anyrank", prior=None, gamma=1.0, n_max=None, ties="allow", ...)``
    Replay over recorded trials, in recorded order (wide per-trial tables, long tables with env or order).
``run_campaign(scores, ...)`` / ``run_campaigns(scores, ...)``
    Fast path for simulation studies: one campaign (or a batch of campaigns) over pre-drawn score tables,
    optionally with the per-iteration trajectory of total samples.

All of them run the same engine (:class:`_Campaign`): one hypothesis per unordered pair of policies, a
pre-registered graph (spec 02 Part B) fixed before any data, active sampling of the "advantaged"
comparisons (those whose current local level is maximal), per-hypothesis counters reading trials that are
shared across hypotheses, online Bretz updates (:class:`certirank.multitest.Graph`), and transitive closure.

Two guarantees (``guarantee=``):

``"paper"`` (default)
    The AnyRank pair-level procedure of the paper (spec 03 §10 items 1-3): ties are controlled by a proof
    (with ``ties="allow"``), reversals under level recycling as in the paper's Theorem 1 and by simulation.
``"strict"``
    The directional graph of spec 03 §10 item 4: 2K one-sided nodes, every wrong ordering (ties and
    reversals) provably controlled at alpha under any dependence and any sampling rule. The prior, when
    given, decides how each pair's level is split between its two directions (``direction_split``). Each
    direction is tested on its own one-sided p-value at its own level, so ``ties`` has no effect here.

Engine speed: replay and simulations precompute each hypothesis's p-process lazily, in blocks, with one
vectorised evidence bank (:class:`certirank.evidence.streams.PairedStreams`), and jump from event to event
(a rejection, a budget or the end of the data) instead of stepping iteration by iteration. The live engine
steps one iteration at a time through the same bank. Both run literally the same arithmetic, so they give
identical results (tested).
"""

from __future__ import annotations

from .config import (  # noqa: F401
    ADVANTAGE_TOL, BETTORS, COMPLETE, DIRECTION_SPLIT, EXHAUSTED, FORMAT, GRAPHS, GUARANTEES, LIVE_NMAX,
    MAX_POLICIES, METHODS, METRICS, NO_LEVEL, PAIRINGS, RECYCLING, STOPPED, TERMINATIONS, TIES, _BLOCK, _Design,
    _EITHER, _I_BETTER, _J_BETTER, _OPTIONS, _Setup, _check_prior, _design, _make_setup, _setup_from_dict,
)
from .result import RankingResult, _Table, _statement  # noqa: F401
from .engine import _Campaign  # noqa: F401
from .replay import (  # noqa: F401
    _run_chunk, _score_array, _select_columns, _wide_from_data, anyrank, run_campaign, run_campaigns,
)
from .ranker import Ranker  # noqa: F401

__all__ = [
    "METHODS",
    "GUARANTEES",
    "TERMINATIONS",
    "RankingResult",
    "Ranker",
    "anyrank",
    "run_campaign",
    "run_campaigns",
]
