"""Every public signature and every CLI option uses a name from docs/glossary.md; short options mean one
thing across commands."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import typer

import certirank
from certirank.cli import app

GLOSSARY = Path(__file__).resolve().parents[1] / "docs" / "glossary.md"


def _glossary_names() -> set[str]:
    names: set[str] = set()
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        if line.startswith("| ") and not line.startswith("|---"):
            first = line.split("|")[1]
            names.update(re.findall(r"`([^`]+)`", first))
    return names


def _public_parameters() -> dict[str, str]:
    out: dict[str, str] = {}
    for n in certirank.__all__:
        obj = getattr(certirank, n)
        if inspect.isclass(obj) and issubclass(obj, Exception) or not callable(obj):
            continue
        funcs = [(n, obj)]
        if inspect.isclass(obj):
            # methods a class inherits from the package's own mixins are public on it too
            members = {m: f for k in reversed(obj.__mro__) if k.__module__.startswith("certirank")
                       for m, f in vars(k).items()}
            funcs = [(f"{n}.{m}", f) for m, f in members.items() if (not m.startswith("_") or m == "__init__")
                     and callable(f)]
            funcs += [(f"{n}.{m}", f.__func__) for m, f in members.items()
                      if isinstance(f, (classmethod, staticmethod)) and not m.startswith("_")]
        for q, f in funcs:
            try:
                sig = inspect.signature(f)
            except (TypeError, ValueError):
                continue
            for p, par in sig.parameters.items():
                if p in ("self", "cls") or p.startswith("_") or par.kind in (par.VAR_KEYWORD, par.VAR_POSITIONAL):
                    continue
                out.setdefault(p, q)
    return out


def _cli_options() -> dict[str, set[str]]:
    cmd = typer.main.get_command(app)
    opts: dict[str, set[str]] = {}
    for cname, c in cmd.commands.items():
        for p in c.params:
            if getattr(p, "hidden", False):  # deprecated aliases
                continue
            for o in (p.opts + p.secondary_opts if p.param_type_name == "option" else [p.name]):
                opts.setdefault(o, set()).add(cname)
    return opts


def test_every_public_parameter_is_in_the_glossary():
    known = _glossary_names()
    missing = {p: where for p, where in _public_parameters().items() if p not in known}
    assert not missing, f"names not in docs/glossary.md: {missing}"


def test_every_cli_option_is_in_the_glossary():
    known = _glossary_names()
    missing = {o: sorted(c) for o, c in _cli_options().items() if o not in known}
    assert not missing, f"options not in docs/glossary.md: {missing}"


def test_short_options_mean_one_thing():
    cmd = typer.main.get_command(app)
    meaning: dict[str, set[str]] = {}
    for c in cmd.commands.values():
        for p in c.params:
            if getattr(p, "hidden", False) or p.param_type_name != "option":
                continue
            longs = [o for o in p.opts + p.secondary_opts if o.startswith("--")]
            for o in p.opts + p.secondary_opts:
                if not o.startswith("--"):
                    meaning.setdefault(o, set()).update(longs)
    assert all(len(v) == 1 for v in meaning.values()), meaning


def test_the_old_names_are_gone_from_public_signatures():
    params = _public_parameters()
    for old in ("nmax", "metric", "p_value", "ignore_ties"):
        assert old not in params, (old, params.get(old))
