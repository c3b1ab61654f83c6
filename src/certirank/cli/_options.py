"""CLI options built from the parameter contract (certirank/_params.py): one declaration, two spellings.

``declared("ties", "allow")`` is the typer Option of the ``ties`` parameter: spelled ``--ties``, its help says
what it means and which values it takes (from the declaration), and a bad value is refused while the command
line is parsed with the API's own sentence (one line, exit 2). The value reaches the command already in its
canonical spelling (``--ties ranking`` arrives as ``"allow"``).
"""

from __future__ import annotations

from typing import Any

import typer

from .._params import VERBS, Param, declaration
from ..errors import ParameterError

__all__ = ["declared", "option_help"]


def _param(name: str, verb: str | None) -> Param:
    return VERBS[verb][name] if verb is not None else declaration(name)


def option_help(p: Param, extra: str = "") -> str:
    """The help of an option: the meaning, then the accepted values where they are a list."""
    text = p.help[:1].upper() + p.help[1:]
    choices = p.constraint.choices()
    if choices and not all(c in text for c in choices):
        text += f": {', '.join(choices)}"
    return f"{text}.{(' ' + extra) if extra else ''}"


def declared(name: str, default: Any, *, verb: str | None = None, extra_help: str = "", **kwargs: Any) -> Any:
    """The typer Option of parameter `name` (of `verb`, or the shared declaration), with `default`.

    ``extra_help`` is appended to the declared meaning (what the default is, a pointer to the docs); other
    keyword arguments go to ``typer.Option`` (``hidden``, ``show_default``, ...).
    """
    p = _param(name, verb)

    def canonical(value: Any) -> Any:
        if value is None or value == default:
            return value
        try:
            return p.check(value)
        except ParameterError as exc:
            raise typer.BadParameter(str(exc)) from None

    return typer.Option(default, p.cli, help=option_help(p, extra_help), callback=canonical, **kwargs)
