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
def check(data: Any, claims: Any, *, alpha: float | None = None, bettor: str = "nscore", ties: str = "allow",
          bins: Any = "progress", format: str | None = None, score_range: tuple[float, float] | None = None,
          **read_options: Any) -> CheckResult:
    """Check claims "A>B" against evaluation data or a campaign file; see `certirank.methods.check.check`.

    ``alpha``: default 0.05; for a campaign file its own locked alpha (a smaller one is refused). The
    test options (``bettor``, ``ties``, ``bins``) and the reader options do not apply to a campaign, whose
    settings were locked at init: giving one is an error rather than silently ignored.
    """
    from ..campaign._check import check_campaign, is_campaign_file

    if is_campaign_file(data):
        given = {"bettor": bettor != "nscore", "ties": ties != "allow", "bins": bins != "progress",
                 "format": format is not None, "score_range": score_range is not None, **dict.fromkeys(read_options, True)}
        bad = [k for k, v in given.items() if v]
        if bad:
            raise ParameterError(f"{', '.join(bad)}: not used with a campaign file {data} (its method and settings "
                                 "were locked at init)")
        return check_campaign(data, claims, alpha=alpha)
    from ..methods.check import check as check_table

    return check_table(data, claims, alpha=0.05 if alpha is None else alpha, bettor=bettor, ties=ties, bins=bins,
                       format=format, score_range=score_range, **read_options)
