"""One name per concept: the parameter declarations (certirank/_params.py), the public signatures, the CLI
options (every command and subcommand) and docs/glossary.md agree; short options mean one thing."""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from pathlib import Path

import typer

import certirank
from certirank._params import SPEC09, VERBS
from certirank.cli import app

ROOT = Path(__file__).resolve().parents[1]
GLOSSARY = ROOT / "docs" / "glossary.md"
sys.path.insert(0, str(ROOT / "docs" / "scripts"))
import build_glossary  # noqa: E402

#: verbs declared in _params that are not a name of the top-level package
WHERE = {"load": "certirank:load", "Saved.save": "certirank._saved:Saved.save",
         "Saved.load": "certirank._saved:Saved.load", "run_campaign": "certirank.methods.anyrank:run_campaign",
         "run_campaigns": "certirank.methods.anyrank:run_campaigns"}


def _glossary_names() -> set[str]:
    names: set[str] = set()
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        if line.startswith("| ") and not line.startswith("|---"):
            first = line.split("|")[1]
            names.update(re.findall(r"`([^`]+)`", first))
    return names


def _declared_names() -> set[str]:
    return {p.name for v in VERBS.values() for p in v.params} | {p.name for p in SPEC09}


def _verb_callable(name: str):
    if name in WHERE:
        module, attr = WHERE[name].split(":")
        obj = importlib.import_module(module)
        for part in attr.split("."):
            obj = getattr(obj, part)
        return obj
    head, _, method = name.partition(".")
    obj = getattr(certirank, head)
    if inspect.isclass(obj):
        return getattr(obj, method or "__init__")
    return obj


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


def _commands(group=None, prefix: str = ""):
    """Every command and subcommand (the `campaign` group's too), as (path, click command)."""
    group = group or typer.main.get_command(app)
    for name, c in group.commands.items():
        path = f"{prefix}{name}"
        if hasattr(c, "commands"):
            yield from _commands(c, f"{path} ")
        else:
            yield path, c


def _cli_options() -> dict[str, set[str]]:
    opts: dict[str, set[str]] = {}
    for cname, c in _commands():
        for p in c.params:
            if getattr(p, "hidden", False):  # deprecated aliases
                continue
            for o in (p.opts + p.secondary_opts if p.param_type_name == "option" else [p.name]):
                opts.setdefault(o, set()).add(cname)
    return opts


def test_the_generated_parameter_table_is_up_to_date():
    text = GLOSSARY.read_text(encoding="utf-8")
    assert build_glossary.render(text) == text, "run: .venv/bin/python docs/scripts/build_glossary.py"


def test_every_declared_verb_matches_its_signature():
    """A declaration lists exactly the parameters of its function (and the options its **options takes)."""
    for name, verb in VERBS.items():
        sig = inspect.signature(_verb_callable(name))
        params = {p for p, par in sig.parameters.items()
                  if p not in ("self", "cls") and par.kind not in (par.VAR_KEYWORD, par.VAR_POSITIONAL)}
        var_kw = any(par.kind is par.VAR_KEYWORD for par in sig.parameters.values())
        missing = params - set(verb.by_name)
        assert not missing, (name, "undeclared", sorted(missing))
        extra = set(verb.by_name) - params
        # beyond the signature: only options a **options argument takes (all of them, when the verb lists them)
        assert not extra or var_kw, (name, "not in the signature", sorted(extra))
        if verb.options is not None:
            assert extra == set(verb.options), (name, sorted(extra ^ set(verb.options)))


def test_validated_verbs_carry_their_declaration():
    for name in ("load", "anyrank", "Ranker", "compare", "check", "leaderboard", "Leaderboard", "baseline",
                 "preference_graph", "shuffled_ranking", "simulate", "compose_test", "evaluate_test_designs",
                 "graph_test", "e_holm", "letters", "Saved.save", "Saved.load", "Leaderboard.add_replicate", "run_campaign", "run_campaigns"):
        f = _verb_callable(name)
        seen = set()
        while f is not None and id(f) not in seen and not hasattr(f, "__contract__"):
            seen.add(id(f))
            f = getattr(f, "__wrapped__", None)
        assert f is not None and f.__contract__ is VERBS[name], name


def test_every_public_parameter_is_declared_or_in_the_glossary():
    known = _glossary_names()
    missing = {p: where for p, where in _public_parameters().items() if p not in known}
    assert not missing, f"names not in docs/glossary.md: {missing}"
    undeclared_verbs = {p for p in _declared_names() if p not in known}
    assert not undeclared_verbs, undeclared_verbs


def test_every_cli_option_is_in_the_glossary():
    known = _glossary_names()
    missing = {o: sorted(c) for o, c in _cli_options().items() if o not in known}
    assert not missing, f"options not in docs/glossary.md: {missing}"


def test_the_cli_walk_reaches_the_campaign_subcommands():
    paths = {p for p, _ in _commands()}
    assert {"rank", "campaign init", "campaign record", "campaign status", "campaign serve"} <= paths


def test_short_options_mean_one_thing():
    meaning: dict[str, set[str]] = {}
    for _, c in _commands():
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
    # ... and each is declared as the old name of its successor, so it still works for one release
    renamed = {old: p.name for v in VERBS.values() for p in v.params for old in p.renamed}
    assert renamed["nmax"] == "n_max" and renamed["metric"] == "bins" and renamed["ignore_ties"] == "ignore_draws"
