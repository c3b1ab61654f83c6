"""The proxy campaign (issue 35 item 3): every rollout records a proxy outcome (a simulator's or a world model's
score) and, on the trials the campaign drew for a real label, the real outcome too.

The label draw is the campaign's, fixed at ``init`` and independent of every outcome: trial ``t`` gets a real
label iff ``u(seed, t) < label_rate``, where ``u`` is a uniform number in [0, 1) read from SHA-256 of the locked
seed and the trial number. ``next`` can therefore say before a rollout is run whether it needs a real label,
and ``verify`` recomputes every draw from the locked configuration. The e-process is the proxy-assisted one of
``compare(..., proxy_x=, proxy_y=, label_rate=)``, run by :func:`methods.proxyfile.proxy_rank` (Bonferroni over
the K pairs) on the campaign's units: the trials every policy has a live record of, in the order they were
completed (recording order), so a new unit is always appended after the ones already counted.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .._validate import check_alpha
from ..evidence.ppi import check_label_rate
from ..errors import DataError, ParameterError, StateError
from ._util import check_budget, json_differences, ranked_names, replay_mismatch

__all__ = ["ProxyEngine", "label_drawn", "label_u"]

#: what the label draw hashes (a new rule gets a new tag, so an old file's draws stay what they were)
_DRAW_TAG = b"certirank.campaign.label/1"
#: default budget: units (trials of every policy) per campaign, as AnyRank's per-comparison default
DEFAULT_N_MAX = 5000


def label_u(seed: int, trial: int) -> float:
    """The uniform number in [0, 1) of ``trial``'s label draw: the first 53 bits of SHA-256(tag, seed, trial).
    A pure function of the locked seed and the trial number (the same on every machine and version)."""
    digest = hashlib.sha256(_DRAW_TAG + b":%d:%d" % (int(seed), int(trial))).digest()
    return (int.from_bytes(digest[:8], "big") >> 11) / float(1 << 53)


def label_drawn(seed: int, trial: int, label_rate: float) -> bool:
    """Whether ``trial`` gets a real label: ``label_u(seed, trial) < label_rate`` (probability ``label_rate``)."""
    return label_u(seed, trial) < float(label_rate)


class ProxyEngine:
    """The state of a proxy campaign: its live records ``(policy, trial, real score or None, proxy)`` in
    recording order; its result is ``proxy_rank`` over the complete trials in the order they were completed."""

    kind = "proxy"
    fmt = "certirank.proxy.state/1"

    def __init__(self, config: Mapping[str, Any], records: Sequence[Sequence[Any]] = (),
                 n_max: int | None = None) -> None:
        self.config = dict(config)
        self._n_max = int(config["n_max"] if n_max is None else n_max)
        self.records: list[tuple[str, int, float | None, float]] = []
        self._held: dict[tuple[str, int], int] = {}
        self._count: dict[int, int] = {}
        self._units: list[int] = []  # complete trials, in the order they were completed
        self._result: Any = None
        for p, t, y, f in records:
            self._add(str(p), int(t), None if y is None else float(y), float(f))

    # ---------------------------------------------------------------- configuration
    @staticmethod
    def make_config(policies: Sequence[str], *, alpha: float, label_rate: Any, seed: int, n_max: int | None,
                    margin: float | None = None) -> dict[str, Any]:
        names = ranked_names(policies, "policy", "policies", "a proxy campaign")
        n_max = check_budget(n_max, "trials")
        out = {"policies": names, "alpha": check_alpha(alpha), "label_rate": check_label_rate(label_rate),
               "label_seed": int(seed), "n_max": DEFAULT_N_MAX if n_max is None else n_max}
        if margin is not None:  # only when given: a configuration without one reads as before
            out["margin"] = float(margin)
        return out

    @classmethod
    def fresh(cls, config: Mapping[str, Any]) -> ProxyEngine:
        return cls(config)

    @classmethod
    def restore(cls, blob: bytes) -> ProxyEngine:
        try:
            state = json.loads(blob.decode())
            if state.get("format") != cls.fmt:
                raise ValueError(state.get("format"))
            return cls(state["config"], state["records"], n_max=state["n_max"])
        except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError) as exc:
            raise StateError(f"the proxy campaign's checkpoint is not readable ({exc})") from None

    def checkpoint(self) -> bytes:
        state = {"format": self.fmt, "config": self.config, "n_max": self._n_max,
                 "records": [list(r) for r in self.records]}
        return json.dumps(state, sort_keys=True, separators=(",", ":")).encode()

    differences = staticmethod(json_differences)

    @staticmethod
    def test_line(config: Mapping[str, Any]) -> str:
        m = len(config["policies"])
        k = m * (m - 1) // 2
        eq = "" if config.get("margin") is None else f" (and equivalence within {config['margin']:g})"
        return (f"prediction-powered e-process{eq} on a proxy (simulator / world model) for every trial and a real "
                f"outcome on the trials drawn, Bonferroni over K = {k} pairs (each at alpha/{k}), at most n_max = "
                f"{config['n_max']} trials: valid at any stop when labels are drawn at random with π = "
                f"{config['label_rate']:g} (drawn by the campaign from its locked seed, independent of the "
                "outcomes)")

    def mismatch(self, live: Sequence[Mapping[str, Any]], config: Mapping[str, Any]) -> str | None:
        return replay_mismatch(live, self.records, _row_values, "a proxy score")

    _SETTINGS = ("policies", "alpha", "label_rate", "label_seed", "margin")

    def settings(self) -> dict[str, Any]:
        return {k: self.config.get(k) for k in self._SETTINGS}

    @classmethod
    def locked_settings(cls, config: Mapping[str, Any]) -> dict[str, Any]:
        return {k: config.get(k) for k in cls._SETTINGS}

    # ---------------------------------------------------------------- the loop
    @property
    def policies(self) -> list[str]:
        return list(self.config["policies"])

    @property
    def n_max(self) -> int:
        return self._n_max

    @property
    def units(self) -> int:
        return len(self._units)

    def drawn(self, trial: int) -> bool:
        """Whether ``trial`` needs a real label (the campaign's locked draw)."""
        return label_drawn(self.config["label_seed"], trial, self.config["label_rate"])

    def recorded(self) -> dict[str, int]:
        out = {p: 0 for p in self.policies}
        for p, _, _, _ in self.records:
            out[p] += 1
        return out

    @property
    def done(self) -> bool:
        if len(self._units) >= self._n_max:
            return True
        return bool(self._units) and self.result().complete

    def _current(self) -> int:
        t = 0
        while self._count.get(t, 0) == len(self.config["policies"]):
            t += 1
        return t

    def needed(self) -> list[tuple[str, int]]:
        """Every policy on the first trial not yet complete (every policy runs every trial: a unit is shared)."""
        if self.done:
            return []
        t = self._current()
        return [(p, t) for p in self.policies if (p, t) not in self._held]

    def trial_limit(self) -> int:
        return 100 * self._n_max + 10_000

    def check_entry(self, policy: str, trial: int, score: float | None, proxy: float) -> None:
        """The label rule: a real score exactly on the trials drawn (one line each, naming the trial)."""
        if self.drawn(trial) and score is None:
            raise ParameterError(f"trial {trial} was drawn for a real label: give the real score beside the proxy "
                                 "(campaign next shows 'real + proxy')")
        if not self.drawn(trial) and score is not None:
            raise ParameterError(f"trial {trial} was not drawn for a real label (proxy only): record the proxy "
                                 f"alone; a real score here would bias the test (labels must be drawn at random "
                                 f"with π = {self.config['label_rate']:g})")
        if not (math.isfinite(proxy) and 0.0 <= proxy <= 1.0):
            raise ParameterError(f"proxy {proxy!r} is outside [0, 1]")

    def _add(self, p: str, t: int, y: float | None, f: float) -> None:
        if p not in self.config["policies"]:
            raise DataError(f"unknown policy {p!r}")
        if (p, t) in self._held:
            raise DataError(f"{p} trial {t} is recorded twice")
        self.check_entry(p, t, y, f)
        self._held[(p, t)] = len(self.records)
        self.records.append((p, t, y, f))
        self._count[t] = self._count.get(t, 0) + 1
        if self._count[t] == len(self.config["policies"]):
            self._units.append(t)
            self._result = None  # only a completed trial changes what the ranking reads

    def apply(self, row: Mapping[str, Any]) -> None:
        if row["action"] != "record":  # amendments of a proxy campaign change no engine state
            return
        self._add(*_row_values(row))

    def views(self) -> Any:
        """The proxy and real tables (units x policies, units in completion order) that ``proxy_rank`` reads."""
        import pandas as pd

        from ..methods.proxyfile import ProxyViews
        pols = self.policies
        row = {t: i for i, t in enumerate(self._units)}
        col = {p: j for j, p in enumerate(pols)}
        real = np.full((len(row), len(pols)), np.nan)
        proxy = real.copy()
        for p, t, y, f in self.records:
            i = row.get(t)
            if i is not None:
                proxy[i, col[p]] = f
                if y is not None:
                    real[i, col[p]] = y
        index = pd.Index(self._units, name="trial")
        return ProxyViews(real=pd.DataFrame(real, index=index, columns=pols),
                          proxy=pd.DataFrame(proxy, index=index, columns=pols), plan=_Arrival(), source=None,
                          warnings=())

    def result(self) -> Any:
        if self._result is None:
            from ..methods.proxyfile import proxy_rank
            c = self.config
            self._result = proxy_rank(self.views(), label_rate=c["label_rate"], alpha=c["alpha"], n_max=self._n_max,
                                      margin=c.get("margin"))
        return self._result


class _Arrival:
    """The read order of a campaign's units: as they arrived (spec 09 §3)."""

    @staticmethod
    def to_dict() -> dict[str, str]:
        return {"kind": "arrival"}


def _row_values(row: Mapping[str, Any]) -> tuple[str, int, float | None, float]:
    payload = json.loads(row["payload"]) if row.get("payload") else {}
    if "proxy" not in payload:
        raise DataError(f"entry {row.get('id')}: a proxy campaign's record holds a proxy score")
    score = row["score"]
    return str(row["policy"]), int(row["trial"]), None if score is None else float(score), float(payload["proxy"])
