"""The result of a certified Bradley–Terry ranking of battles, in the one-record shape of every result."""

from __future__ import annotations

import dataclasses
from typing import Any

from ...order.result import Ranking
from ...results import ResultMixin, plain

__all__ = ["BradleyTerryGraph", "SCHEMA"]

SCHEMA = "certirank.result/1"


@dataclasses.dataclass(frozen=True)
class BradleyTerryGraph(ResultMixin):
    """Certified pairwise claims about Bradley–Terry strengths, pooled over every battle.

    Attributes
    ----------
    about : str
        What the claims are about (``"policy"``: the players' strengths in the model, beyond these battles).
    inputs : dict
        What defines the run: alpha, model, method (``asymptotic`` or ``exact``), draws, home, every, order,
        number of battles and players.
    ranking : Ranking
        The certified relations (closed under transitivity: strengths are numbers).
    details : dict
        ``strengths`` (player -> log-strength, se), ``home`` (position advantage) and ``nu`` (Davidson's draw
        parameter) when modelled, ``pairs`` (every pair: both names, estimate, se, z, information, pvalue,
        decided_at), the mixing scale and target information of the boundary.
    warnings : list of str
        One-line notes (the asymptotic label, players who never met, pairs too sparse to judge).
    """

    RESULT_KIND = "bradley-terry"

    about: str
    inputs: dict[str, Any]
    ranking: Ranking
    details: dict[str, Any]
    warnings: list[str]

    @property
    def edges(self) -> list[dict[str, Any]]:
        return [{"better": r.better, "worse": r.worse, "decided_at": r.when, "via": r.via}
                for r in self.ranking.relations]

    @property
    def alpha(self) -> float:
        return float(self.inputs["alpha"])

    @property
    def n_battles(self) -> int:
        return int(self.inputs["battles"])

    @property
    def policies(self) -> list[str]:
        return [p.name for p in self.ranking.policies]

    @property
    def statement(self) -> str:
        return self.ranking.guarantee

    def sentences(self) -> list[str]:
        label = "asymptotic" if self.inputs["method"] == "asymptotic" else "exact under the model"
        return [f"{r.better} is stronger than {r.worse} (Bradley–Terry, {label}; "
                f"{'certified after battle ' + format(r.when, ',') if r.via == 'test' else 'by transitivity'})"
                for r in self.ranking.relations]

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.RESULT_KIND, "schema": SCHEMA, "about": self.about, "inputs": plain(self.inputs),
                "ranking": plain(self.ranking), "details": plain(self.details), "warnings": list(self.warnings)}
