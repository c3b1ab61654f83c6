"""Comparison baselines (spec 06: the Bradley–Terry family; spec 04 §12: leaderboard baselines).

Every baseline returns a :class:`BaselineResult` with the same fields as the certified methods
(``decisions`` of ``{better, worse, kind, ...}``, ``undecided``, ``policies``, ``method``, ``alpha``,
``means``) plus ``scores``, so the simulator and the reports treat all methods alike. **None of them
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
    return func(data, **options)
