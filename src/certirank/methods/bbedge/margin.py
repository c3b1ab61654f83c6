"""A leaderboard with an equivalence margin: two BB-EDGE boards fed the same replicates (issue 35).

The one home of the two-board rule that ``leaderboard(..., margin=)`` and a leaderboard campaign with a margin
both run: the difference board (edges a -> b certify Delta_{a,b} > tau) at alpha/2, and the equivalence board at
alpha/2 whose directions a -> b test Delta_{a,b} <= -margin, so that both directions of a pair certified give
|Delta_{a,b}| < margin. Direct e-Holm in each family (Theorem 1 of spec 04) and a union bound over the two:
FWER <= alpha over every edge and every equivalence claim, at whatever replicate one stops.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...errors import StateError
from .engine import Leaderboard
from .result import LeaderboardResult, build_result

__all__ = ["MarginBoards", "FORMAT"]

#: the saved form of a pair of boards (a leaderboard campaign's checkpoint when it has a margin)
FORMAT = "certirank.bbedge.margin/1"


class MarginBoards:
    """The difference board and the equivalence board of a leaderboard with ``margin``, fed the same replicates.

    ``alpha`` is the level of the whole answer (each board runs at alpha/2); every other keyword goes to both
    :class:`Leaderboard` boards, except that the equivalence board certifies no Top-k set (``margin`` with
    ``top_k`` is refused by the parameter contract) and its tau is ``-margin``.
    """

    def __init__(self, models: Sequence[str], *, alpha: float, margin: float, **board_args: Any) -> None:
        self.alpha, self.margin = float(alpha), float(margin)
        self.board = Leaderboard(models, alpha=alpha / 2.0, **board_args)
        eq_args = {**board_args, "tau": 0.0, "top_k": None, "pilot": None}
        self.equivalence = Leaderboard(models, alpha=alpha / 2.0, **eq_args)
        # H: Delta_{a,b} <= -margin; the e-process is valid for any tau in (-1, 1), the constructor only takes the
        # edges' tau >= 0
        self.equivalence.tau = -self.margin

    @property
    def models(self) -> list[str]:
        return self.board.models

    @property
    def R(self) -> int:
        return int(self.board.R)

    @property
    def boards(self) -> tuple[Leaderboard, Leaderboard]:
        return self.board, self.equivalence

    def add_replicate(self, panel: Any, replicate: Any = None) -> MarginBoards:
        """Add one complete replicate to both boards (refused by the first before either changes)."""
        self.board.add_replicate(panel, replicate=replicate)
        self.equivalence.add_replicate(panel, replicate=replicate)
        return self

    def equivalent_pairs(self) -> list[list[str]]:
        """Pairs [a, b] (board order) whose both directions are certified on the equivalence board."""
        cert, models = self.equivalence.certified_matrix(), self.board.models
        return [[models[a], models[b]] for a in range(len(models)) for b in range(a + 1, len(models))
                if cert[a, b] and cert[b, a]]

    def result(self) -> LeaderboardResult:
        """The difference board's result with ``margin``, ``equivalent`` and ``alpha`` of the whole answer; the
        ranking lists as ``equivalent`` (not undecided) the equivalent pairs that no edge orders (a pair both
        certified different and equivalent is a relation of the ranking, and listed in ``equivalent``)."""
        res = build_result(self.board, equivalence=self.equivalence)
        eq = self.equivalent_pairs()
        note = (f"equivalence margin {self.margin:g}: alpha = {self.alpha:g} split in half between the difference "
                "edges and the equivalence claims (direct e-Holm at alpha/2 for each)")
        open_pairs = {frozenset(u) for u in res.ranking.undecided}
        # alpha stays the whole answer's level (glossary); the guarantee sentence states the edges' half
        ranking = dataclasses.replace(res.ranking, notes=(*res.ranking.notes, note), alpha=self.alpha)
        ranking = ranking.with_equivalent([p for p in eq if frozenset(p) in open_pairs], self.margin)
        still = {frozenset(u) for u in ranking.undecided}  # the pairs certified equivalent have no forecast left
        details = [d for d in res.undecided_details if frozenset(d["pair"]) in still]
        return dataclasses.replace(res, margin=self.margin, equivalent=eq, ranking=ranking, alpha=self.alpha,
                                   undecided_details=details)

    # ------------------------------------------------------------------------------------------- saved state
    def to_dict(self) -> dict[str, Any]:
        """Both boards' sealed states (each with its own checksum) and the margin."""
        return {"format": FORMAT, "alpha": self.alpha, "margin": self.margin, "differences": self.board.to_dict(),
                "equivalence": self.equivalence.to_dict()}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], *, trust_edited: bool = False) -> MarginBoards:
        """The pair again from :meth:`to_dict`; each board's checksum must match and the two must be the pair of
        one margin (the same models and replicates, each at alpha/2, the equivalence board's tau = -margin)."""
        if d.get("format") != FORMAT:
            raise StateError(f"not a saved leaderboard with a margin (format {d.get('format')!r}, expected {FORMAT})")
        try:
            alpha, margin = float(d["alpha"]), float(d["margin"])
            board = Leaderboard.from_dict(d["differences"], trust_edited=trust_edited)
            equivalence = Leaderboard.from_dict(d["equivalence"], trust_edited=trust_edited)
        except (KeyError, TypeError, ValueError) as exc:
            raise StateError(f"corrupt saved leaderboard with a margin ({type(exc).__name__}: {exc})") from None
        if (list(board.models) != list(equivalence.models) or board.replicate_ids != equivalence.replicate_ids
                or not np.isclose(board.alpha, alpha / 2) or not np.isclose(equivalence.alpha, alpha / 2)
                or equivalence.tau != -margin):
            raise StateError("corrupt saved leaderboard with a margin: its two boards are not the pair of one margin")
        out = cls.__new__(cls)
        out.alpha, out.margin, out.board, out.equivalence = alpha, margin, board, equivalence
        return out

    @classmethod
    def from_json(cls, text: str | bytes, *, trust_edited: bool = False) -> MarginBoards:
        from ..._saved import parse
        return cls.from_dict(parse(text, "saved leaderboard with a margin", StateError), trust_edited=trust_edited)
