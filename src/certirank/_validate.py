"""The machinery of the parameter contract: constraints, one refusal message, and validation once per call.

The declarations themselves (which parameter takes what) live in :mod:`certirank._params`; this module only
knows how to check a value against a constraint and how to skip re-checks inside a validated call.

One message shape everywhere: ``"<name> must be <what it may be>, got <value>"``. Cross-parameter rules
word their own sentence, naming every parameter involved.

Validation once per call (scikit-learn's ``prefer_skip_nested_validation`` in spirit): a public verb
decorated with :func:`certirank._params.validated` checks its declared parameters at the boundary, then runs
its body with those names marked *trusted*. Inside, the ``check_*`` helpers below return a trusted name's
value without checking it again, so a lower layer that is also reachable on its own (``graph_test``,
``PairedTest``) keeps its checks for direct callers without repeating them under ``rank``. Only names the
boundary validated are skipped: an option passed through ``**options`` is still checked where it is used.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import numbers
import os
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import ParameterError

#: no size argument (budget, runs, rounds, rows) is meaningful beyond this; larger values are typos
MAX_SIZE = 10**12
#: longest name a caller may give to a policy, model, environment or operator
MAX_NAME = 200

# names validated by the enclosing public call (empty outside any)
_TRUSTED: contextvars.ContextVar[frozenset[str]] = contextvars.ContextVar("certirank_trusted", default=frozenset())


# ============================================================================================ one message

def shown(value: Any) -> str:
    """A value as a refusal quotes it: its repr, cut to 80 characters, with the type when that helps."""
    # "nan" reads like a word; the refusal names the IEEE value the user must look for
    text = "NaN" if isinstance(value, (float, np.floating)) and value != value else repr(value)
    if len(text) > 80:
        text = text[:77] + "..."
    if isinstance(value, (bool, np.bool_, str, bytes, int, float)) or value is None:
        return text
    return f"{text} ({type(value).__name__})"


def refuse(name: str, expected: str, value: Any) -> ParameterError:
    """The one refusal of the contract: ``<name> must be <expected>, got <value>``."""
    return ParameterError(f"{name} must be {expected}, got {shown(value)}")


@contextlib.contextmanager
def trusting(names: Iterable[str]) -> Iterator[None]:
    """Mark `names` as validated for the duration of a public call (nested calls add to the set)."""
    token = _TRUSTED.set(_TRUSTED.get() | frozenset(names))
    try:
        yield
    finally:
        _TRUSTED.reset(token)


def user_stacklevel() -> int:
    """The ``stacklevel`` that points a warning raised by the caller of this function at the first frame
    outside certirank (the user's line, however many wrappers lie between)."""
    import sys
    package = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def trusted(name: str) -> bool:
    """True inside a public call that has validated `name` at its boundary."""
    return name in _TRUSTED.get()


# ============================================================================================ constraints

class Constraint:
    """What a value may be. ``check`` returns the canonical value or raises :func:`refuse`'s error."""

    none: bool = False

    def check(self, name: str, value: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def describe(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def invalid(self) -> list[Any]:
        """Values this constraint must refuse (the generated invalid-input tests use them)."""
        return [] if self.none else [None]

    def choices(self) -> tuple[str, ...] | None:
        return None

    def _none(self, name: str, value: Any) -> bool:
        if value is None:
            if self.none:
                return True
            raise refuse(name, self.describe(), value)
        return False


def is_number_text(text: str) -> bool:
    """Whether `text` reads as a float (a header cell or an option's value told from a number)."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def _is_number(value: Any) -> bool:
    return (isinstance(value, (numbers.Real, np.integer, np.floating))
            and not isinstance(value, (bool, np.bool_)))


def _interval(lo: float | None, hi: float | None, lo_open: bool, hi_open: bool) -> str:
    if lo is not None and hi is not None:
        return f"in {'(' if lo_open else '['}{lo:g}, {hi:g}{')' if hi_open else ']'}"
    if lo is not None:
        return f"{'>' if lo_open else '>='} {lo:g}"
    if hi is not None:
        return f"{'<' if hi_open else '<='} {hi:g}"
    return ""


@dataclass(frozen=True)
class Real(Constraint):
    """A finite real number (bools, strings and complex numbers refused) in an optional interval."""

    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False
    hi_open: bool = False
    none: bool = False

    def describe(self) -> str:
        where = _interval(self.lo, self.hi, self.lo_open, self.hi_open)
        return f"a number {where}".strip() + (" or None" if self.none else "")

    def check(self, name: str, value: Any) -> float | None:
        if self._none(name, value):
            return None
        if not _is_number(value):
            raise refuse(name, self.describe(), value)
        try:
            v = float(value)
        except OverflowError:  # an integer beyond any float (10**400): out of every range
            raise refuse(name, self.describe(), value) from None
        if not math.isfinite(v):
            raise refuse(name, self.describe(), value)
        if self.lo is not None and (v < self.lo or (self.lo_open and v == self.lo)):
            raise refuse(name, self.describe(), value)
        if self.hi is not None and (v > self.hi or (self.hi_open and v == self.hi)):
            raise refuse(name, self.describe(), value)
        return v

    def invalid(self) -> list[Any]:
        out: list[Any] = [*super().invalid(), "0.5", True, 1j, math.nan, math.inf]
        if self.lo is not None:
            out.append(self.lo - 1.0 if not self.lo_open else self.lo)
        if self.hi is not None:
            out.append(self.hi + 1.0 if not self.hi_open else self.hi)
        return out


@dataclass(frozen=True)
class Integer(Constraint):
    """An integer (integral floats such as ``1e4`` accepted; bools and strings refused) in [lo, hi].

    ``hint`` is added to the refusal (where the numbering is not obvious: "replicates are numbered from 1").
    """

    lo: int = 0
    hi: int = MAX_SIZE
    none: bool = False
    hint: str = ""

    def describe(self) -> str:
        kind = {0: "a non-negative integer", 1: "a positive integer"}.get(self.lo, f"an integer >= {self.lo:,}")
        upto = "" if self.hi >= MAX_SIZE else f" up to {self.hi:,}"
        return f"{kind}{upto}" + (" or None" if self.none else "") + (f" ({self.hint})" if self.hint else "")

    def check(self, name: str, value: Any) -> int | None:
        if self._none(name, value):
            return None
        if not _is_number(value):
            raise refuse(name, self.describe(), value)
        if not isinstance(value, (int, np.integer)):
            f = float(value)
            if not math.isfinite(f) or f != math.floor(f):
                raise refuse(name, self.describe(), value)
            value = int(f)
        v = int(value)
        if v > self.hi:  # say the bound: "a positive integer" would not explain refusing 10**20
            raise refuse(name, f"an integer between {self.lo:,} and {self.hi:,}", value)
        if v < self.lo:
            raise refuse(name, self.describe(), value)
        return v

    def invalid(self) -> list[Any]:
        return [*super().invalid(), "3", True, 2.5, math.nan, self.lo - 1, self.hi + 1]


@dataclass(frozen=True)
class Choice(Constraint):
    """One of a fixed set of words, case-insensitive, ``_`` and ``-`` alike.

    ``aliases`` map other spellings that mean the same (the papers' labels) to a canonical value;
    ``deprecated`` map old spellings that still work for one release, with a DeprecationWarning.
    ``values`` may be a callable that returns them (a registry in a higher layer, read when checked).
    """

    values: tuple[str, ...] | Callable[[], Iterable[str]] = ()
    aliases: Mapping[str, str] = field(default_factory=dict)
    deprecated: Mapping[str, str] = field(default_factory=dict)
    none: bool = False
    fold: bool = True

    def choices(self) -> tuple[str, ...]:
        return tuple(self.values() if callable(self.values) else self.values)

    def _key(self, text: str) -> str:
        key = text.strip().lower()
        return key.replace("_", "-") if self.fold else key

    def describe(self) -> str:
        return "one of " + ", ".join(self.choices()) + (" (or None)" if self.none else "")

    def check(self, name: str, value: Any) -> str | None:
        if self._none(name, value):
            return None
        if isinstance(value, (str, np.str_)):
            key = self._key(str(value))
            for c in self.choices():
                if key == self._key(c):
                    return c
            for table, old in ((self.aliases, False), (self.deprecated, True)):
                for spelling, canon in table.items():
                    if key == self._key(spelling):
                        if old:
                            import warnings
                            warnings.warn(f"{name}={value!r} is deprecated and will be removed in certirank 0.3; "
                                          f"use {name}={canon!r}", DeprecationWarning, stacklevel=user_stacklevel())
                        return canon
        raise refuse(name, self.describe(), value)

    def invalid(self) -> list[Any]:
        return [*super().invalid(), "no-such-choice", 1, True]


@dataclass(frozen=True)
class Flag(Constraint):
    """True or False (numpy bools too; 0/1 and strings refused: ``"no"`` is truthy)."""

    none: bool = False

    def describe(self) -> str:
        return "True or False" + (" (or None)" if self.none else "")

    def check(self, name: str, value: Any) -> bool | None:
        if self._none(name, value):
            return None
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
        raise refuse(name, self.describe(), value)

    def invalid(self) -> list[Any]:
        return [*super().invalid(), "no", 1]


_WORDS = {2: "two", 3: "three"}


def _name_problem(text: str) -> str | None:
    if not text:
        return "empty"
    if len(text) > MAX_NAME:
        return f"{len(text):,} characters long (at most {MAX_NAME})"
    bad = next((ch for ch in text if unicodedata.category(ch) == "Cc"), None)
    if bad is not None:
        return f"holding the control character {bad!r}"
    return None


@dataclass(frozen=True)
class Names(Constraint):
    """A list of distinct names: strings (a bare string is refused: ``'AB'`` is not ``['A', 'B']``), none
    empty, none longer than ``MAX_NAME`` characters, no control characters. Surrounding spaces are removed."""

    minimum: int = 2
    what: str = "names"
    none: bool = False

    def describe(self) -> str:
        least = f"at least {_WORDS.get(self.minimum, self.minimum)} " if self.minimum > 1 else ""
        return f"a list of {least}distinct {self.what} (strings)" + (" or None" if self.none else "")

    def check(self, name: str, value: Any) -> tuple[str, ...] | None:
        if self._none(name, value):
            return None
        if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
            raise refuse(name, self.describe(), value)
        items = list(value)
        out = []
        for i, item in enumerate(items):
            if not isinstance(item, (str, np.str_)):
                raise ParameterError(f"{name} must be {self.describe()}, got {shown(item)} at position {i}")
            text = str(item).strip()
            problem = _name_problem(text)
            if problem:
                raise ParameterError(f"{name} must be {self.describe()}; the name at position {i} is {problem}")
            out.append(text)
        dup = sorted({n for n in out if out.count(n) > 1})
        if dup:
            raise ParameterError(f"{name} must be {self.describe()}; repeated: {', '.join(dup)}")
        if len(out) < self.minimum:
            raise refuse(name, self.describe(), value)
        return tuple(out)

    def invalid(self) -> list[Any]:
        return [*super().invalid(), "AB", ["A", 1], ["A", None], ["A", "A"], ["A", ""], ["A\0x", "B"],
                ["A", "b" * (MAX_NAME + 1)], 3]


@dataclass(frozen=True)
class Text(Constraint):
    """A string without NUL characters, at most ``maximum`` characters long."""

    maximum: int = 10_000
    what: str = "text"
    none: bool = False
    minimum: int = 0

    def describe(self) -> str:
        size = (f"{self.minimum:,} to {self.maximum:,}" if self.minimum else f"at most {self.maximum:,}")
        return f"{self.what} of {size} characters" + (" or None" if self.none else "")

    def check(self, name: str, value: Any) -> str | None:
        if self._none(name, value):
            return None
        if not isinstance(value, (str, np.str_)):
            raise refuse(name, self.describe(), value)
        if "\0" in value:
            raise ParameterError(f"{name} must be {self.describe()}; it holds a NUL character")
        if not self.minimum <= len(value) <= self.maximum:
            raise ParameterError(f"{name} must be {self.describe()}, got {len(value):,} characters")
        return str(value)

    def invalid(self) -> list[Any]:
        return [*super().invalid(), 3, "a\0b", "x" * (self.maximum + 1), *([""] if self.minimum else [])]


@dataclass(frozen=True)
class PathArg(Constraint):
    """A file path: a non-empty string or ``os.PathLike`` without NUL characters."""

    none: bool = False

    def describe(self) -> str:
        return "a file path (str or pathlib.Path)" + (" or None" if self.none else "")

    def check(self, name: str, value: Any) -> Any:
        if self._none(name, value):
            return None
        if not isinstance(value, (str, os.PathLike)):
            raise refuse(name, self.describe(), value)
        text = os.fspath(value)
        if isinstance(text, str) and "\0" in text:
            raise ParameterError(f"{name} must be {self.describe()}; it holds a NUL character")
        if not isinstance(text, str) or not text:
            raise refuse(name, self.describe(), value)
        return value

    def invalid(self) -> list[Any]:
        return [*super().invalid(), 123, "", "a\0b.json"]


@dataclass(frozen=True)
class Seed(Constraint):
    """A seed: an integer in [0, 2**63); with ``generator``, also a numpy Generator or SeedSequence."""

    generator: bool = False
    none: bool = False

    #: seeds are stored in SQLite and JSON as signed 64-bit integers, so every seed is below 2**63
    LIMIT = 2**63

    def describe(self) -> str:
        extra = " (or a list of them), a numpy SeedSequence or Generator" if self.generator else ""
        return f"a non-negative integer below 2**63{extra}" + (" or None" if self.none else "")

    def check(self, name: str, value: Any) -> Any:
        if self._none(name, value):
            return None
        if self.generator and isinstance(value, (np.random.Generator, np.random.SeedSequence)):
            return value
        if self.generator and isinstance(value, (list, tuple)) and value and all(
                isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and v >= 0 for v in value):
            return value  # numpy's seed sequence entropy: several non-negative integers
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
                or not 0 <= int(value) < self.LIMIT:
            raise refuse(name, self.describe(), value)
        return int(value)

    def invalid(self) -> list[Any]:
        return [*super().invalid(), -1, 1.5, "0", True, 2**64]


@dataclass(frozen=True)
class OneOf(Constraint):
    """The first of several constraints that accepts the value (``epochs``: an integer or ``"open"``)."""

    options: tuple[Constraint, ...] = ()
    none: bool = False

    def describe(self) -> str:
        return " or ".join(c.describe() for c in self.options) + (" or None" if self.none else "")

    def check(self, name: str, value: Any) -> Any:
        if self._none(name, value):
            return None
        for c in self.options:
            try:
                return c.check(name, value)
            except ParameterError:
                continue
        raise refuse(name, self.describe(), value)

    def invalid(self) -> list[Any]:
        bad = [v for c in self.options for v in c.invalid()]
        out = []
        for v in bad:
            try:
                self.check("x", v)
            except ParameterError:
                out.append(v)
        return out[:8]


@dataclass(frozen=True)
class Given(Constraint):
    """A value whose validity depends on the data or on other arguments (a table, a prior, item weights):
    declared here for its meaning, checked by the verb itself. ``kinds`` refuses other Python types early."""

    what: str = "a value"
    kinds: tuple[type, ...] = ()
    none: bool = True

    def describe(self) -> str:
        return self.what

    def check(self, name: str, value: Any) -> Any:
        if value is None:
            if self.none:
                return None
            raise refuse(name, self.describe(), value)
        if self.kinds and not isinstance(value, self.kinds):
            raise refuse(name, self.describe(), value)
        return value

    def invalid(self) -> list[Any]:
        return [] if not self.kinds else [*super().invalid(), object()]


@dataclass(frozen=True)
class Function(Constraint):
    """A callable (``False`` also means none where ``false`` is set: ``progress=False`` turns progress off)."""

    what: str = "a callable"
    none: bool = True
    false: bool = False

    def describe(self) -> str:
        return self.what + (" or None" if self.none else "")

    def check(self, name: str, value: Any) -> Any:
        if self.false and value is False:
            return None
        if self._none(name, value):
            return None
        if not callable(value):
            raise refuse(name, self.describe(), value)
        return value

    def invalid(self) -> list[Any]:
        return [*super().invalid(), 3, "print"]


# ============================================================================================ lower layers
# The helpers the layers below the public boundary call on their own entry points (alpha's range is the one
# certirank._params declares; the other ranges are given by the caller).

#: alpha's range, declared once (certirank._params.ALPHA is this constraint)
ALPHA_RANGE = Real(0.0, 1.0, lo_open=True, hi_open=True)
#: alpha above this gets a warning (it still runs: a user may want it for a demonstration)
ALPHA_WARN = 0.5


def warn_alpha(value: float) -> None:
    if value > ALPHA_WARN:
        import warnings

        from .errors import CertirankWarning
        warnings.warn(f"alpha = {value:g} allows a wrong ordering with probability up to {value:.0%}; certified "
                      "results at this level are close to noise (usual levels: 0.05 or 0.1)", CertirankWarning,
                      stacklevel=user_stacklevel())


def check_alpha(alpha: Any, name: str = "alpha") -> float:
    if name == "alpha" and trusted("alpha"):
        return float(alpha)
    value = ALPHA_RANGE.check(name, alpha)
    if name == "alpha":
        warn_alpha(value)
    return value


def check_choice(name: str, value: Any, choices: Iterable[str], *, normalize_underscores: bool = True) -> str:
    """The canonical spelling of `value` among `choices` (case-insensitive; ``_`` for ``-`` unless told)."""
    if trusted(name) and isinstance(value, str) and value in choices:
        return value
    return Choice(tuple(choices), fold=normalize_underscores).check(name, value)


def check_nonnegative(name: str, value: Any) -> float:
    if trusted(name) and _is_number(value):
        return float(value)
    return Real(lo=0.0).check(name, value)


def check_positive_int(name: str, value: Any, *, minimum: int = 1, maximum: int | None = None) -> int:
    """An integer in [minimum, maximum] (maximum defaults to MAX_SIZE: every size has a sane bound)."""
    if trusted(name) and isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    return Integer(lo=minimum, hi=MAX_SIZE if maximum is None else maximum).check(name, value)


def as_generator(seed: int | np.random.Generator | np.random.SeedSequence | None) -> np.random.Generator:
    """One way to turn a user's `seed` into a Generator (ints, SeedSequences and Generators accepted)."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(Seed(generator=True, none=True).check("seed", seed))
