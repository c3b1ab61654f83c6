"""Method adapters: name -> callable that runs one method on simulated runs and returns trajectories.

The registry and the adapter class live in :mod:`certirank.sim._registry` (a leaf module); each
``_adapters_*`` module registers its methods there, and importing this module imports them all. Here: the
parsing of a method selection (``"anyrank,bt[seed=1]"``, mappings, lists) and its resolution against the
registry for a scenario.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .._validate import check_choice
from ..errors import ParameterError
# registration order is the order methods are listed in (help, errors, reports)
from . import _adapters_baselines, _adapters_leaderboard, _adapters_anyrank, _adapters_bbedge  # noqa: F401,I001
from .options import parse_value
from ._registry import METHODS, MethodAdapter, MethodSpec, describe_methods, method_names, register_method

__all__ = ["MethodAdapter", "MethodSpec", "METHODS", "register_method", "method_names", "resolve_methods",
           "parse_methods", "describe_methods"]


def _split_top(text: str) -> list[str]:
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def parse_methods(methods: Any) -> list[tuple[str, str, dict[str, Any]]]:
    """Normalise a method selection into ``(label, name, options)`` triples.

    Accepts ``"a,b[opt=v;opt2=w],c"``, a list of such strings, :class:`MethodSpec` objects,
    ``(name, options)`` / ``(label, name, options)`` tuples, or a mapping ``label -> name | (name, options)``.
    """
    out: list[tuple[str, str, dict[str, Any]]] = []
    if isinstance(methods, str):
        items: list[Any] = _split_top(methods)
    elif isinstance(methods, Mapping):
        items = []
        for label, v in methods.items():
            if isinstance(v, str):
                items.append((label, v, {}))
            else:
                name, opts = v
                items.append((label, name, dict(opts)))
    elif isinstance(methods, (list, tuple)):
        items = list(methods)
    else:
        raise ParameterError(f"methods must be names (e.g. 'anyrank0,bonferroni'), got {methods!r}")
    for it in items:
        if isinstance(it, MethodSpec):
            out.append((it.label, it.name, dict(it.options)))
        elif isinstance(it, str):
            s = it.strip()
            if "[" in s:
                if not s.endswith("]"):
                    raise ParameterError(f"method {s!r}: options go in brackets at the end, e.g. anyrank0[ties=assume_none]")
                name, _, rest = s[:-1].partition("[")
                opts = {}
                for kv in rest.replace(";", ",").split(","):
                    if not kv.strip():
                        continue
                    if "=" not in kv:
                        raise ParameterError(f"method {s!r}: option {kv!r} must be key=value")
                    k, _, v = kv.partition("=")
                    opts[k.strip()] = parse_value(v)
                out.append((s, name.strip(), opts))
            else:
                out.append((s, s, {}))
        elif isinstance(it, tuple) and len(it) == 2:
            out.append((str(it[0]), str(it[0]), dict(it[1])))
        elif isinstance(it, tuple) and len(it) == 3:
            out.append((str(it[0]), str(it[1]), dict(it[2])))
        else:
            raise ParameterError(f"cannot read method {it!r}; give a name such as 'anyrank0'")
    if not out:
        raise ParameterError(f"no method given; valid methods: {', '.join(METHODS)}")
    labels = [o[0] for o in out]
    if len(set(labels)) != len(labels):
        raise ParameterError(f"duplicate method labels {labels}; give each method once")
    return out


def resolve_methods(methods: Any, scenario: Any, global_options: Mapping[str, Any]) -> list[MethodSpec]:
    """Validate a method selection against the registry and the scenario kind."""
    specs = []
    for label, name, opts in parse_methods(methods):
        # `certirank leaderboard --method` spells BB-EDGE "bb-edge"; accept that spelling here too (spec 00)
        canon = check_choice("method", re.sub(r"^bb[-_]edge", "bbedge", str(name).strip(), flags=re.I),
                             list(METHODS))
        ad = METHODS[canon]
        if scenario.kind not in ad.kinds:
            valid = method_names(scenario.kind)
            raise ParameterError(f"method {canon!r} does not apply to {scenario.kind} scenarios such as "
                                 f"{scenario.name!r}; valid methods here: {', '.join(valid)}")
        why = ad.missing()
        if why is not None:
            raise ParameterError(f"method {canon!r} is not available: {why}; available methods for this scenario: "
                                 f"{', '.join(method_names(scenario.kind, available_only=True)) or 'none'}")
        unknown = [k for k in opts if k not in ad.options]
        if unknown:
            raise ParameterError(f"unknown option(s) {', '.join(map(repr, unknown))} for method {canon!r}; valid "
                                 f"options: {', '.join(ad.options) or 'none'}")
        merged = dict(ad.options)
        merged.update({k: v for k, v in global_options.items() if k in ad.options})
        merged.update(opts)
        specs.append(MethodSpec(label=label if label != name else canon, name=canon, options=merged, adapter=ad))
    if global_options:
        used = {k for s in specs for k in s.adapter.options}
        unused = [k for k in global_options if k not in used]
        if unused:
            raise ParameterError(f"method option(s) {', '.join(map(repr, unused))} are accepted by none of the "
                                 "selected methods")
    return specs


# register the built-in adapters (their modules import the methods lazily)
