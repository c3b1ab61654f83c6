"""The result of a certified Bradley–Terry ranking of battles, in the one-record shape of every result."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar

from ...order.result import Ranking
from ...results import Result, inputs as _input

__all__ = ["BradleyTerryGraph"]


@dataclasses.dataclass(frozen=True)
class BradleyTerryGraph(Result):
    """Certified pairwise claims about Bradley–Terry strengths, pooled over every battle (record kind
    ``"bradley-terry"``; ``about = "policy"``: the players' strengths in the model, beyond these battles).

    Attributes
    ----------
    alpha, method, draws, home, every, battles, players, model : inputs
        What defines the run: the level, ``asymptotic`` or ``exact``, the draw model, whether a position
        advantage is modelled, battles between checkpoints, and the numbers of battles and players.
    ranking : Ranking
        The certified relations (closed under transitivity: strengths are numbers).
    details (property) : dict
        ``strengths`` (player -> log-strength, se), ``home`` (position advantage) and ``nu`` (Davidson's draw
        parameter) when modelled, ``pairs`` (every pair: both names, estimate, se, z, information, pvalue,
        decided_at), the mixing scale and target information of the boundary.
    warnings : tuple of str
        The asymptotic label, players who never met, pairs too sparse to judge.
    """

    KIND: ClassVar[str] = "bradley-terry"

    alpha: float = _input()
    method: str = _input()
    draws: str = _input()
    home: bool = _input()
    every: int | None = _input()
    battles: int = _input()
    players: int = _input()
    ranking: Ranking = dataclasses.field(repr=False)
    _statistics: Mapping[str, Any] = dataclasses.field(default_factory=dict, repr=False)
    model: str = _input(default="bradley-terry")

    def _details(self) -> dict[str, Any]:
        return dict(self._statistics)

    @property
    def details(self) -> dict[str, Any]:
        return dict(self._statistics)

    @property
    def inputs(self) -> dict[str, Any]:
        return self.to_dict()["inputs"]

    @property
    def edges(self) -> list[dict[str, Any]]:
        return [{"better": r.better, "worse": r.worse, "decided_at": r.when, "via": r.via}
                for r in self.ranking.relations]

    @property
    def n_battles(self) -> int:
        return int(self.battles)

    @property
    def policies(self) -> list[str]:
        return [p.name for p in self.ranking.policies]

    @property
    def statement(self) -> str:
        return self.ranking.guarantee

    def sentences(self) -> list[str]:
        label = "asymptotic" if self.method == "asymptotic" else "exact under the model"
        return [f"{r.better} is stronger than {r.worse} (Bradley–Terry, {label}; "
                f"{'certified after battle ' + format(r.when, ',') if r.via == 'test' else 'by transitivity'})"
                for r in self.ranking.relations]
