"""Blind codes: a stable, meaningless code per policy, so the operator running a rollout cannot tell which
policy it is (as in blind A/B robot trials). Drawn once at init and locked with the configuration."""

from __future__ import annotations

import secrets
from collections.abc import Sequence

import numpy as np

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
