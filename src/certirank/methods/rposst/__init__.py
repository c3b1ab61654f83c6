"""RPOSST: composing small, robust tests for policy selection (Morrill et al., UAI 2023; spec 05).

Public entry points: :func:`compose_test` (choose m test cases and weights), :func:`evaluate_test_designs`
(the paper's holdout protocol against five baselines), :func:`evaluate_item_designs` (the same question at item
scale: predicting held-out models' benchmark score from m items) and :func:`read_test_matrix`.
"""

from __future__ import annotations

from ._measures import cvar, cvar_weights, kofn, kofn_weights
from .compose import SOLVERS, CompositionResult, compose_test
from .itemeval import ITEM_METHODS, ItemEvaluation, evaluate_item_designs
from .matrix import ScoreMatrix, as_score_matrix, read_test_matrix
from .protocol import DEFAULT_METHODS, METHODS, DesignEvaluation, evaluate_test_designs, holdout_size

__all__ = [
    "CompositionResult", "DEFAULT_METHODS", "DesignEvaluation", "ITEM_METHODS", "ItemEvaluation", "METHODS",
    "SOLVERS", "ScoreMatrix", "as_score_matrix", "compose_test", "cvar", "cvar_weights", "evaluate_item_designs",
    "evaluate_test_designs", "holdout_size", "kofn",
    "kofn_weights", "read_test_matrix",
]
