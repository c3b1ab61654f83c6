"""`certirank.check`: the CI gate on any input -- evaluation data (`certirank.load`) or a campaign file.

Evaluation data is checked by `certirank.methods.check.check` (paired anytime-valid tests, Holm over the
claims). A campaign file (SQLite, `certirank campaign`) is verified end to end and its claims are read off
the campaign's own certified ranking (`certirank.campaign._check`), so the gate always agrees with
`certirank campaign status`. This dispatcher lives above both layers, so neither imports the other.
"""

from __future__ import annotations

from typing import Any

from .._params import validated
from ..errors import ParameterError
from ..methods.check import CheckResult

__all__ = ["check"]


@validated("check")
def check(data: Any, claims: Any, *, alpha: float | None = None, bettor: str | None = None, ties: str = "allow",
          bins: Any = None, format: str | None = None, score_range: tuple[float, float] | None = None,
          about: str = "policy", order: str = "random", seed: int = 0, order_by: str | None = None,
          orders: int = 1, fail_on: str = "any", margin: float | None = None, **read_options: Any) -> CheckResult:
    """Check claims "A>B" against evaluation data or a campaign file; see `certirank.methods.check.check`.

    ``alpha``: default 0.05; for a campaign file its own locked alpha (a smaller one is refused). The
    test options (``bettor``, ``ties``, ``bins``), the way rows are read (``about``, ``order``, ``seed``,
    ``order_by``, ``orders``: a campaign is read in arrival order) and the reader options do not apply to a
    campaign, whose settings were locked at init: giving one is an error rather than silently ignored.
    ``fail_on`` applies to both.
    """
    from ..campaign._check import check_campaign, is_campaign_file

    if is_campaign_file(data):
        given = {"bettor": bettor is not None, "ties": ties != "allow", "bins": bins is not None,
                 "format": format is not None, "score_range": score_range is not None, "about": about != "policy",
                 "order": order != "random", "seed": seed != 0, "order_by": order_by is not None,
                 "orders": orders != 1, "margin": margin is not None, **dict.fromkeys(read_options, True)}
        bad = [k for k, v in given.items() if v]
        if bad:
            raise ParameterError(f"{', '.join(bad)}: not used with a campaign file {data} (its method and settings "
                                 "were locked at init)")
        return check_campaign(data, claims, alpha=alpha, fail_on=fail_on)
    from ..methods.check import check as check_table

    return check_table(data, claims, alpha=0.05 if alpha is None else alpha, bettor=bettor, ties=ties, bins=bins,
                       format=format, score_range=score_range, about=about, order=order, seed=seed,
                       order_by=order_by, orders=orders, fail_on=fail_on, margin=margin, **read_options)
