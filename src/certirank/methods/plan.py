"""Which test runs on data that arrive whole, from what is known before any row is read (spec 09 §6, issue 31).

A file or a table in hand has a known number of pairing units, so that number is a legitimate budget for the
exact test of spec 08, fixed before the data; a column is binary when declared so or when every value in the
*whole* table is 0 or 1 (whole data only: a live campaign never infers its scale from what it has seen); and
how trials pair comes from the layout, not from the scores:

* outcome lists (one list of rollouts per policy), long tables without an environment column and per-policy
  folders matched by trial number or row position pair each policy's n-th rollout with the others' n-th only by
  order: **independent arms** (the Barnard-type test of both success counts, `certirank.evidence.barnard`);
* wide rows (one row per environment), long tables with environment labels, per-policy folders keyed by
  environment and item tables stay **paired** (the discordant-pair test, valid for any correlation).

An explicit choice always wins; an explicit ``arms="independent"`` on data visibly paired by environment is
kept with one warning line (the paired test is valid for any correlation, the independent one only when the
rollouts are independent). Every result says in one line which test ran and why (`TestPlan.describe`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

from .._params import AUTO_BUDGET_MAX
from ..errors import DataError, ParameterError

__all__ = ["TestPlan", "plan_whole_data", "layout_arms", "WHOLE_TABLE_SHARE"]

#: a whole table read once (check's claims, a leaderboard of a single-run item table): most of each pair's level
#: goes to McNemar's exact test at the table's end (certifies what McNemar + Holm certifies on item tables), the
#: rest keeps the sequential test valid at every stop up to the table's size (`certirank.evidence.budget`,
#: ``final_share``; issue 31 item 7)
WHOLE_TABLE_SHARE = 0.95


@dataclasses.dataclass(frozen=True)
class TestPlan:
    """The per-comparison test chosen before the data, and why.

    Attributes
    ----------
    bins : {"binary", "progress"}
        The score scale.
    n_max : int or None
        The budget of the exact test (None: the anytime e-process).
    arms : {"paired", "independent"}
        How the exact test is calibrated.
    budget : str
        ``final`` (exact budget test, valid up to ``n_max``) or ``none`` (anytime e-process), or what was given.
    scale_because, budget_because, arms_because : str
        Why each was chosen ("declared" when the caller gave it).
    warnings : tuple of str
        One-line warnings (an explicit choice the data argue against).
    """

    bins: str
    n_max: int | None
    arms: str
    budget: str
    scale_because: str
    budget_because: str
    arms_because: str
    warnings: tuple[str, ...] = ()

    @property
    def exact(self) -> bool:
        return self.budget in ("final", "extendable") and self.n_max is not None and self.bins == "binary"

    def describe(self) -> str:
        """One line: which test ran and why, e.g. ``binary scores (every value is 0 or 1), exact budget test,
        N = 50 (the pairing units in hand), independent arms: outcome lists (each policy's rollouts are its
        own)``."""
        scale = "binary scores" if self.bins == "binary" else "partial-progress scores"
        if self.exact:
            return (f"{scale} ({self.scale_because}), exact budget test, N = {self.n_max} "
                    f"({self.budget_because}), {self.arms} arms: {self.arms_because}")
        return f"{scale} ({self.scale_because}), anytime e-process ({self.budget_because})"


def layout_arms(table: Any) -> tuple[str, str]:
    """(arms, why) read from a validated table's layout (`certirank.load`'s ``attrs["format"]`` and its
    environment labels): independent where trials pair only by order, paired where they share environments."""
    attrs: Mapping[str, Any] = getattr(table, "attrs", {}) or {}
    fmt = str(attrs.get("format") or attrs.get("reader") or "")
    cols = getattr(table, "columns", ())
    if fmt == "outcome-lists":
        return "independent", "outcome lists (each policy's rollouts are its own)"
    if fmt == "folder":
        keyed = "env_label" in cols and table["env_label"].notna().any()
        if keyed:
            return "paired", "per-policy folder keyed by environment"
        return "independent", "per-policy folder matched by trial number or row"
    if fmt == "wide":
        return "paired", "wide rows (one row per environment)"
    if "env" in cols and len(table) and table["env"].isna().all():
        return "independent", "long table without an environment column"
    return "paired", "trials share environments or items"


def plan_whole_data(values: Any, *, bins: str | None = None, n_max: int | None = None, arms: str | None = None,
                    budget: str = "auto", layout: tuple[str, str] | None = None, units: int | None = None,
                    exact_only: tuple[str, ...] = (), bettor: str | None = None) -> TestPlan:
    """The test for data that arrive whole (a file or a table), from what is known before the data.

    Parameters
    ----------
    values : array-like
        Every score of the table (NaN = not run); only whether all of them are 0 or 1 is read.
    bins, n_max, arms, budget
        What the caller gave (None: choose). ``budget="none"`` keeps the anytime e-process.
    layout : (arms, why), optional
        From :func:`layout_arms` (default: paired, "trials share environments or items").
    units : int, optional
        Pairing units in hand (rows of a wide table; the longest list when pairing by order); the default
        budget. Required unless `n_max` is given.
    exact_only : tuple of str
        Other options the caller gave that only the exact test reads (``statistic``, ``concentration``):
        refused, naming them, when the plan is the anytime e-process.
    bettor : str, optional
        A bettor the caller declared: it runs the anytime e-process, so no budget is inferred (an explicit
        `n_max` still selects the exact test).
    """
    if bettor is not None and n_max is None and budget == "auto":
        budget = "none"  # a declared bettor asks for the anytime e-process: no budget is inferred under it
    plan = _plan(values, bins, n_max, arms, budget, layout, units)
    given = [*(["arms"] if arms is not None else []), *exact_only]
    if given and not plan.exact:
        names = ", ".join(f"{n} (--{n.replace('_', '-')})" for n in given)
        raise ParameterError(f"{names} {'applies' if len(given) == 1 else 'apply'} to the exact budget test only "
                             f"(binary scores and a budget: --bins binary --n-max N); this run uses the anytime "
                             f"e-process ({plan.budget_because})")
    return plan


def _plan(values: Any, bins: str | None, n_max: int | None, arms: str | None, budget: str,
          layout: tuple[str, str] | None, units: int | None) -> TestPlan:
    arr = np.asarray(values, dtype=float)
    finite = arr[~np.isnan(arr)]
    if bins is None:
        all01 = bool(finite.size) and bool(np.isin(finite, (0.0, 1.0)).all())
        bins, scale_because = ("binary", "every value is 0 or 1") if all01 else (
            "progress", "some scores lie strictly between 0 and 1" if finite.size else "no scores")
    else:
        scale_because = "declared"
    layout_arm, layout_why = layout or ("paired", "trials share environments or items")
    warnings: list[str] = []
    if arms is None:
        arms, arms_because = layout_arm, layout_why
    else:
        arms_because = "declared"
        if arms == "independent" and layout_arm == "paired" and layout_why != "trials share environments or items":
            warnings.append(f"arms='independent' (--arms independent) was declared on data paired by environment "
                            f"({layout_why}); the "
                            "paired test is valid for any correlation, the independent one only when the rollouts "
                            "are independent")
    if budget == "none":
        return TestPlan(bins, None, arms, "none", scale_because, "no budget declared", arms_because,
                        tuple(warnings))
    if budget in ("final", "extendable") and bins != "binary":
        raise ParameterError(f"budget={budget!r} (--budget {budget}, the exact budget test) needs binary scores, and some scores lie "
                        "strictly between 0 and 1; leave the budget out (the anytime e-process) or give 0/1 data")
    if n_max is not None:
        if units is not None and n_max < units and bins == "binary":
            raise DataError(f"the budget n_max = {n_max} is smaller than the data in hand ({units} pairing units); "
                            f"give n_max >= {units} or leave it out (the budget is then the data in hand)")
        budget_because = "declared"
    elif bins == "binary" and units is not None and units <= AUTO_BUDGET_MAX:
        n_max, budget_because = int(units), "the pairing units in hand"
    else:
        budget_because = ("partial-progress scores: the exact test needs binary scores" if bins != "binary" else
                          f"{units} pairing units: above {AUTO_BUDGET_MAX:,} the anytime e-process is used")
        return TestPlan(bins, None, arms, "none", scale_because, budget_because, arms_because, tuple(warnings))
    if bins != "binary":
        return TestPlan(bins, n_max, arms, "none", scale_because,
                        "partial-progress scores: the exact test needs binary scores", arms_because, tuple(warnings))
    chosen_budget = budget if budget != "auto" else "final"
    return TestPlan(bins, n_max, arms, chosen_budget, scale_because, budget_because, arms_because, tuple(warnings))
