"""Blind codes: a stable, meaningless code per policy, so the operator running a rollout cannot tell which
policy it is (as in blind A/B robot trials). Drawn once at init and locked with the configuration."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import ParameterError

# no 0/O, 1/I, 2/Z, 5/S, 8/B, 6/G: codes are read aloud and written on tape at the robot
_ALPHABET = "ACDEFHJKLMNPRTUVWXY3479"


def make_codes(names: Sequence[str], seed: int | None) -> dict[str, str]:
    """{policy: code}, codes of three characters, all distinct; random (or from ``seed``, reproducibly)."""
    if seed is None:
        draw = lambda k: secrets.randbelow(k)
    else:
        rng = np.random.default_rng([int(seed), 0xB11D])
        draw = lambda k: int(rng.integers(k))
    used: set[str] = set(names)  # a code must never equal a policy name: record accepts either
    out: dict[str, str] = {}
    for name in names:
        while True:
            code = "".join(_ALPHABET[draw(len(_ALPHABET))] for _ in range(3))
            if code not in used:
                break
        used.add(code)
        out[name] = code
    return out


class Names:
    """The campaign's policy (or model) names and, in blind mode, the operator's view of them: codes until the
    campaign is unblinded. Holds no state of its own beyond the locked configuration; whether the campaign is
    unblinded is passed in (the store knows it)."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        eng = config["engine"]
        self.kind = config["kind"]
        self.names: list[str] = list(eng["ranker"]["policies"] if self.kind == "anyrank" else
                                     eng["policies"] if self.kind == "proxy" else eng["models"])
        self.blind = bool(config.get("blind"))
        codes = config.get("codes") or {}
        self.code_of: dict[str, str] = dict(codes)
        self.name_of: dict[str, str] = {c: n for n, c in codes.items()}

    def hidden(self, revealed: bool) -> bool:
        return self.blind and not revealed

    def listed(self, revealed: bool) -> list[str]:
        """As the operator sees them; sorted codes while blind (the configured order would tell which is which)."""
        return sorted(self.code_of[n] for n in self.names) if self.hidden(revealed) else list(self.names)

    def shown(self, name: str | None, revealed: bool) -> str | None:
        if name is None or not self.hidden(revealed):
            return name
        return self.code_of.get(name, name)

    def resolve(self, policy: Any, revealed: bool) -> str:
        """The stored name of what the operator typed (a name, or a code in blind mode)."""
        text = str(policy).strip()
        if text in self.name_of:
            return self.name_of[text]
        # while blind, a name is refused like any unknown word: accepting it would print its code back
        if text in self.names and not self.hidden(revealed):
            return text
        what = "policy or code" if self.blind else ("model" if self.kind in ("leaderboard", "items") else "policy")
        raise ParameterError(f"unknown {what} {policy!r}; this campaign's {'codes' if self.blind else 'names'} "
                             f"are: {', '.join(self.listed(revealed))}")
