"""The campaign's schedule (spec 09 §7): which environment each trial runs on, and in which order the policies
of a trial are run.

* **Balanced blocks.** The trials are cut into blocks of as many trials as there are environments; each block
  runs every environment once, in an order shuffled for that block (``numpy.random.default_rng([seed, 1,
  block])``). Slow drift (battery, light, wear) then spreads evenly over environments, and after every whole
  block each environment has been run equally often.
* **Williams-balanced policy order.** Within a trial every policy runs on the same environment; the order in
  which they run follows a Williams square (Williams 1949) over the policies, whose rows are used in a
  shuffled order per cycle and whose labels are a seeded permutation of the policies: over each cycle of rows,
  every policy runs first equally often and directly after every other policy equally often (carry-over:
  the gripper state or the scene a policy leaves behind is not always left for the same next policy). In a
  blind campaign the label permutation also randomises which code runs first.
* **Segments.** An amendment may add environments or draw a new seed; it takes effect at the next block
  boundary after every trial already handed out, so no environment a rollout was run on ever changes and the
  running block stays balanced. Campaigns made before balanced blocks drew each trial's environment
  independently (``environment_draw``); their schedule is that draw, and a segment added by an amendment
  switches them to blocks.

Everything here is a pure function of the locked configuration and the amendments: the schedule is stored as
its seed and rule, and is the same on every machine and every run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ..errors import ParameterError, StateError
from ._util import _environment

__all__ = ["Schedule", "Segment", "williams_rows", "check_environments", "fresh_seed"]

# domain separation of the seeded streams: blind codes use [seed, 0xB11D]
_ENV_STREAM = 1
_ORDER_STREAM = 2
#: longest environment name (printed in one terminal line and a table cell)
MAX_ENVIRONMENT = 200


def williams_rows(m: int) -> list[list[int]]:
    """The rows of a Williams design for ``m`` treatments: ``m`` rows when ``m`` is even, ``2 m`` when odd.

    Over all rows each treatment is in each position equally often, and each ordered pair (a, b), a != b,
    appears as neighbours (a directly before b) equally often (once for even ``m``, twice for odd ``m``).
    """
    if m < 1:
        raise ParameterError(f"a Williams design needs at least one treatment, got {m}")
    first, lo, hi = [0], 1, m - 1
    while len(first) < m:
        first.append(lo)
        lo += 1
        if len(first) < m:
            first.append(hi)
            hi -= 1
    rows = [[(x + i) % m for x in first] for i in range(m)]
    if m % 2 == 1 and m > 1:
        rows += [list(reversed(r)) for r in rows]
    return rows


def fresh_seed() -> int:
    """A seed drawn from fresh entropy, to be stored with the campaign (so a resumed campaign draws the same)."""
    return int(np.random.SeedSequence().entropy % (2**63))


def check_environments(environments: Any, what: str = "environments") -> list[str]:
    """A list of distinct environment names (each one line of text)."""
    from ._util import _has_control
    if isinstance(environments, (str, bytes)) or not hasattr(environments, "__iter__"):
        raise ParameterError(f"{what} must be a list of environment names, got {environments!r}")
    envs = [str(e).strip() for e in environments]
    if not envs:
        raise ParameterError(f"{what} must list at least one environment")
    for e in envs:
        if not e:
            raise ParameterError(f"{what}: an environment name is empty")
        if len(e) > MAX_ENVIRONMENT:
            raise ParameterError(f"{what}: environment {e[:20]!r}... is {len(e)} characters long; keep names under "
                                 f"{MAX_ENVIRONMENT}")
        if _has_control(e):
            raise ParameterError(f"{what}: environment {e!r} contains a control character (newline, escape, ...)")
    repeated = sorted({e for e in envs if envs.count(e) > 1})
    if repeated:  # a balanced block runs each environment once: a repeat would be run twice as often, silently
        raise ParameterError(f"{what} must be distinct; repeated: {', '.join(repeated[:5])}")
    return envs


@dataclass(frozen=True)
class Segment:
    """A stretch of trials run under one rule, from trial ``start`` on (until the next segment's start)."""

    start: int
    first_block: int | None       # the global number of its first block (None: independent draws)
    rule: str                     # "blocks" or "independent" (the draw of campaigns made before blocks)
    environments: tuple[str, ...]
    seed: int
    amendment: int | None = None  # the log entry that started it (None: the locked configuration)

    def to_dict(self) -> dict[str, Any]:
        return {"from_trial": self.start, "first_block": self.first_block, "rule": self.rule,
                "environments": list(self.environments), "seed": self.seed, "amendment": self.amendment}


@lru_cache(maxsize=4096)
def _block_order(n: int, seed: int, block: int) -> tuple[int, ...]:
    return tuple(int(i) for i in np.random.default_rng([seed, _ENV_STREAM, block]).permutation(n))


@lru_cache(maxsize=256)
def _labels(m: int, seed: int) -> tuple[int, ...]:
    return tuple(int(i) for i in np.random.default_rng([seed, _ORDER_STREAM]).permutation(m))


@lru_cache(maxsize=4096)
def _cycle_rows(m: int, seed: int, cycle: int) -> tuple[int, ...]:
    n_rows = len(williams_rows(m))
    return tuple(int(i) for i in np.random.default_rng([seed, _ORDER_STREAM, cycle]).permutation(n_rows))


class Schedule:
    """The schedule of an AnyRank campaign: environments and policy order per trial (see the module docs).

    ``policies`` are the stored names in configuration order; ``segments`` start at trial 0 and at block
    boundaries after it (none: the campaign has no environments). ``order_seed`` seeds the Williams order
    (None, for campaigns made before it: the configured order).
    """

    def __init__(self, policies: Sequence[str], segments: Sequence[Segment], order_seed: int | None) -> None:
        self.policies = list(policies)
        self.segments = list(segments)
        self.order_seed = order_seed
        self._rows = williams_rows(len(self.policies))

    # ---------------------------------------------------------------- building
    @classmethod
    def from_config(cls, config: Mapping[str, Any], amendments: Sequence[tuple[int, Mapping[str, Any]]] = ()
                    ) -> Schedule:
        """The schedule of a configuration, with the plan changes of ``amendments`` ((entry id, change) in log
        order, each change ``{"environments", "seed", "from_trial"}``) applied."""
        eng = config["engine"]
        policies = list(eng["ranker"]["policies"] if "ranker" in eng else eng["policies"])  # AnyRank, proxy
        plan = config.get("plan")
        draw = config["engine"].get("environment_draw")
        segments: list[Segment] = []
        if plan and plan.get("environments"):
            segments.append(Segment(0, 0, "blocks", tuple(plan["environments"]), int(plan["seed"])))
        elif draw:
            segments.append(Segment(0, None, "independent", tuple(draw["choices"]), int(draw["seed"])))
        out = cls(policies, segments, None if not plan else int(plan["seed"]))
        for entry, change in amendments:
            out = out.amended(int(change["from_trial"]), change["environments"], int(change["seed"]), entry)
        return out

    def amended(self, start: int, environments: Sequence[str], seed: int, entry: int | None) -> Schedule:
        """This schedule with a new segment of balanced blocks from trial ``start`` (from :meth:`next_start`)."""
        prev = self.segments[-1] if self.segments else None
        if prev is not None and start < prev.start:
            raise StateError(f"a schedule change cannot start at trial {start}, before the current segment "
                             f"(from trial {prev.start})")
        if prev is None or prev.first_block is None:
            first = 0
        else:
            first = prev.first_block + -(-(start - prev.start) // len(prev.environments))
        seg = Segment(int(start), first, "blocks", tuple(environments), int(seed), entry)
        kept = [s for s in self.segments if s.start < start]
        return Schedule(self.policies, [*kept, seg], self.order_seed)

    # ---------------------------------------------------------------- reading
    @property
    def has_environments(self) -> bool:
        return bool(self.segments)

    @property
    def environments(self) -> list[str]:
        """The environments of the current (last) segment."""
        return list(self.segments[-1].environments) if self.segments else []

    def segment(self, trial: int) -> Segment | None:
        found = None
        for s in self.segments:
            if s.start > trial:
                break
            found = s
        return found

    def environment(self, trial: int) -> str | None:
        s = self.segment(trial)
        if s is None:
            return None
        if s.rule == "independent":
            return _environment({"choices": s.environments, "seed": s.seed}, trial)
        n = len(s.environments)
        local = trial - s.start
        return s.environments[_block_order(n, s.seed, local // n)[local % n]]

    def block(self, trial: int) -> int | None:
        """The global number of the balanced block trial ``trial`` belongs to (None: no blocks there)."""
        s = self.segment(trial)
        if s is None or s.first_block is None:
            return None
        return s.first_block + (trial - s.start) // len(s.environments)

    def block_start(self, trial: int) -> int:
        """The first trial of the block ``trial`` belongs to (``trial`` itself where there are no blocks)."""
        s = self.segment(trial)
        if s is None or s.first_block is None:
            return trial
        n = len(s.environments)
        return s.start + (trial - s.start) // n * n

    def next_start(self, after: int) -> int:
        """The first trial at which a new segment may start once trials up to ``after`` are handed out: the
        next block boundary (the next trial where environments are drawn independently or absent)."""
        t = max(after + 1, self.segments[-1].start if self.segments else 0)
        s = self.segment(t)
        if s is None or s.first_block is None:
            return t
        n = len(s.environments)
        return s.start + -(-(t - s.start) // n) * n

    def order(self, trial: int) -> list[str]:
        """The policies of trial ``trial`` in the order they should run: a row of a Williams design (rows in
        a shuffled order per cycle, policies assigned to its labels by a seeded permutation)."""
        m = len(self.policies)
        if self.order_seed is None or m < 2:
            return list(self.policies)
        rows = self._rows
        row = rows[_cycle_rows(m, self.order_seed, trial // len(rows))[trial % len(rows)]]
        labels = _labels(m, self.order_seed)
        return [self.policies[labels[x]] for x in row]

    def to_dict(self) -> dict[str, Any]:
        return {"segments": [s.to_dict() for s in self.segments], "order_seed": self.order_seed}
