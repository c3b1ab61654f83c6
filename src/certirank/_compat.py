"""Old spellings that keep working for one release (0.2), each with a DeprecationWarning naming the new one.

``docs/glossary.md`` lists the one name per concept; this module is where the old names are mapped. Remove
the aliases in 0.3.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["keyword_only", "warn_renamed"]


def warn_renamed(old: str, new: str, *, where: str = "", stacklevel: int = 3) -> None:
    """Warn that ``old`` is spelled ``new`` now."""
    at = f" in {where}" if where else ""
    warnings.warn(f"{old!r}{at} is deprecated and will be removed in certirank 0.3; use {new!r}",
                  DeprecationWarning, stacklevel=stacklevel)


def keyword_only(old_positional: Sequence[str] = (), renamed: Mapping[str, str] | None = None) -> Callable[[F], F]:
    """Accept, with a DeprecationWarning, the positional arguments and keyword names of the old signature.

    ``old_positional``: names, in their old order, that used to be accepted positionally after the ones that
    still are (now keyword-only). ``renamed``: old keyword -> new keyword. The wrapped function keeps its new
    signature (``inspect.signature`` shows it), so the glossary test sees only current names.
    """
    renamed = dict(renamed or {})

    def deco(func: F) -> F:
        sig = inspect.signature(func)
        n_pos = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in sig.parameters.values())
        name = func.__qualname__.replace(".__init__", "")

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if len(args) > n_pos and old_positional:
                extra = args[n_pos:]
                if len(extra) > len(old_positional):
                    raise TypeError(f"{name}() takes at most {n_pos + len(old_positional)} positional arguments")
                names = [renamed.get(k, k) for k in old_positional[:len(extra)]]
                warnings.warn(f"passing {', '.join(names)} to {name}() by position is deprecated and will fail in "
                              f"certirank 0.3; pass {', '.join(f'{k}=...' for k in names)}",
                              DeprecationWarning, stacklevel=2)
                for k, v in zip(names, extra):
                    if k in kwargs:
                        raise TypeError(f"{name}() got multiple values for argument {k!r}")
                    kwargs[k] = v
                args = args[:n_pos]
            for old, new in renamed.items():
                if old in kwargs:
                    warnings.warn(f"{name}({old}=...) is deprecated and will be removed in certirank 0.3; use "
                                  f"{new}=...", DeprecationWarning, stacklevel=2)
                    if new in kwargs:
                        raise TypeError(f"{name}() got both {old}= and {new}=")
                    kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return deco
