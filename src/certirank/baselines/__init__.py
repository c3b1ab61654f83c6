"""Comparison baselines (spec 06: the Bradley–Terry family; spec 04 §12: leaderboard baselines).

Every baseline returns a :class:`BaselineResult`: the record of the certified methods (its
:class:`~certirank.order.Ranking` says who ranks above whom) plus ``scores``, so the simulator and the reports
treat all methods alike. **None of them
controls the FWER of the mean-performance ranking**; they exist to reproduce the papers' comparisons and
to show the failure modes.

Use :func:`baseline` (``certirank.baseline``) with a method name:

================== ==================================================== ======================
name               method                                               input
================== ==================================================== ======================
``bt``             classical Bradley–Terry (spec 06 §1)                  preferences or scores
``bt-davidson``    Davidson ties model (spec 06 §2)                      preferences or scores
``bt-em``          RoboArena BT-EM with task buckets (spec 06 §3)        preferences or scores
``bt-bootstrap``   bootstrapped BT, non-overlapping intervals (06 §4)    preferences or scores
``emr``            empirical-mean ranking (04 §12 B1)                    per-item scores
``t-holm``         paired t-tests + Holm (B2)                            per-item scores
``cbtl``           BTL + clustered multiplier bootstrap (B3)             per-item scores
``serpant``        item-stream aGRAPA + e-Holm per item (B4)             per-item scores
``serpant-r``      SERPANT checked at replicates (B5)                    per-item scores
``beb-holm``       Maurer–Pontil empirical Bernstein + Holm (B6)         per-item scores
``asympcs-bonf``   asymptotic confidence sequences + Bonferroni (B9)     per-item scores
================== ==================================================== ======================
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from .._params import validated
from .._validate import check_choice
from ..errors import ParameterError
from ._prefs import Comparisons, as_comparisons, preference_games
from ._result import BaselineResult
from .bradley_terry import bootstrap_bt, bradley_terry, bt_fit, bt_fit_batch, davidson, davidson_fit
from .bt_em import bt_em, bt_em_fit
from .leaderboard import Panel, as_panel, asympcs_bonf, beb_holm, cbtl, emr, serpant, serpant_r, t_holm

__all__ = [
    "BASELINES", "BaselineResult", "Comparisons", "Panel", "as_comparisons", "as_panel", "asympcs_bonf", "baseline",
    "beb_holm", "bootstrap_bt", "bradley_terry", "bt_em", "bt_em_fit", "bt_fit", "bt_fit_batch", "cbtl", "davidson",
    "davidson_fit", "emr", "preference_games", "serpant", "serpant_r", "t_holm",
]

BASELINES: dict[str, Callable[..., BaselineResult]] = {
    "bt": bradley_terry,
    "bt-davidson": davidson,
    "bt-em": bt_em,
    "bt-bootstrap": bootstrap_bt,
    "emr": emr,
    "t-holm": t_holm,
    "cbtl": cbtl,
    "serpant": serpant,
    "serpant-r": serpant_r,
    "beb-holm": beb_holm,
    "asympcs-bonf": asympcs_bonf,
}

# other spellings users are likely to type (the papers' labels)
_ALIASES = {"bradley-terry": "bt", "bt-classical": "bt", "davidson": "bt-davidson", "btem": "bt-em",
            "bootstrap-bt": "bt-bootstrap", "bt-alpha": "bt-bootstrap"}

PREFERENCE_METHODS = frozenset({"bt", "bt-davidson", "bt-em", "bt-bootstrap"})


@validated("baseline")
def baseline(name: str, data: Any, **options: Any) -> BaselineResult:
    """Run the baseline ``name`` on ``data``.

    Parameters
    ----------
    name:
        One of ``bt``, ``bt-davidson``, ``bt-em``, ``bt-bootstrap`` (preference methods) or ``emr``,
        ``t-holm``, ``cbtl``, ``serpant``, ``serpant-r``, ``beb-holm``, ``asympcs-bonf`` (leaderboard
        methods); underscores are accepted for dashes.
    data:
        Preference methods: a preference table (``A,B,preference`` / ``policy_a,policy_b,preference`` /
        ``model_a,model_b,winner``), a score table (pairs on the same env compete: higher score wins, equal
        scores tie) or a path. Leaderboard methods: a long per-item score table over replicates
        (``model, item, replicate, score``; complete panels) or a path.
    **options:
        Passed to the method (e.g. ``alpha``, ``seed``, ``n_boot``, ``tau``, ``replicates``,
        ``history``, ``use_partials``); see each function's docstring.

    Returns
    -------
    BaselineResult
    """
    if isinstance(name, str):
        key = name.strip().lower().replace("_", "-")
        name = _ALIASES.get(key, key)
    method = check_choice("baseline", name, list(BASELINES))
    func = BASELINES[method]
    allowed = {k for k, p in inspect.signature(func).parameters.items()
               if p.kind is inspect.Parameter.KEYWORD_ONLY} | {"format", "score_range"}
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise ParameterError(f"unknown option(s) for baseline {method!r}: {', '.join(unknown)}; valid: "
                             f"{', '.join(sorted(allowed))}")
    # the contract lets alpha be None because the point-estimate baselines (bt, ...) take None as "no test";
    # a baseline that tests at a level has a number as its default and must not receive None
    alpha_param = inspect.signature(func).parameters.get("alpha")
    if "alpha" in options and options["alpha"] is None and alpha_param is not None and alpha_param.default is not None:
        takes_none = sorted(n for n, f in BASELINES.items()
                            if getattr(inspect.signature(f).parameters.get("alpha"), "default", 0) is None)
        raise ParameterError(f"alpha must be a number in (0, 1) for baseline {method!r} (it tests at a level); "
                             f"alpha=None (no test) is only for {', '.join(takes_none)}")
    import os

    import pandas as pd
    if not isinstance(data, (str, os.PathLike, pd.DataFrame)):
        return func(data, **options)
    import dataclasses

    from ..data.readers import load
    from ..results import reader_warnings
    table = load(data, format=options.pop("format", None), score_range=options.pop("score_range", None))
    res = func(table, **options)
    src = table.attrs.get("source")
    return dataclasses.replace(res, source=None if src is None else str(src),
                               warnings=(*reader_warnings(table), *res.warnings))
