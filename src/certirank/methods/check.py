"""`certirank.check`: a CI gate — are these claims ("A>B") certified by the evaluation data?

Each claim "A>B" is the paired, anytime-valid comparison of `certirank.compare` on the trials both policies
have (in recorded order). Claims are decided together by Holm's step-down procedure on their anytime-valid
p-values, so with probability at least 1 - alpha every "certified" and every "certified the other way" line
is right at once, however many claims are checked. The gate's exit code:

- 0: every claim is certified;
- 1: some claim is not (yet) certified, none is contradicted;
- 3: some claim is certified the other way.

An exit 0 that is wrong needs a false claim to be certified, which happens with probability <= alpha.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import numpy as np

from .._validate import check_alpha
from ..errors import DataError, ParameterError
from ..results import ResultMixin

__all__ = ["check", "CheckResult", "parse_claim", "EXIT_CODES"]

EXIT_CODES = {"certified": 0, "not certified": 1, "certified the other way": 3}
_CLAIM_RE = re.compile(r"^\s*(?P<a>.+?)\s*(?P<op>>|<)\s*(?P<b>.+?)\s*$")


def parse_claims(claims: Any) -> tuple[list[str], list[tuple[str, str]]]:
    """One claim or a sequence of them -> (the claims as given, their (better, worse) pairs)."""
    claims = [claims] if isinstance(claims, str) else list(claims)  # their type is checked at the boundary
    if not claims:
        raise ParameterError("give at least one claim, e.g. --claim 'A>B'")
    return claims, [parse_claim(c) for c in claims]


def parse_claim(text: str) -> tuple[str, str]:
    """``"A>B"`` -> ("A", "B") (A claimed better); ``"A<B"`` -> ("B", "A")."""
    if not isinstance(text, str):
        raise ParameterError(f"a claim must be text like 'A>B', got {text!r}")
    if text.count(">") + text.count("<") != 1:
        raise ParameterError(f"claim {text!r} must compare two policies with one '>' or '<', e.g. 'A>B'")
    m = _CLAIM_RE.match(text)
    if m is None or not m["a"] or not m["b"]:
        raise ParameterError(f"claim {text!r} must look like 'A>B' (A better than B) or 'A<B'")
    a, b = m["a"], m["b"]
    if a == b:
        raise ParameterError(f"claim {text!r} compares {a!r} with itself")
    return (a, b) if m["op"] == ">" else (b, a)


@dataclasses.dataclass(frozen=True)
class CheckResult(ResultMixin):
    """Verdict on every claim.

    Attributes
    ----------
    claims : list of dict
        Per claim, in the order given: ``claim`` (as written), ``better`` / ``worse`` (what it asserts),
        ``status`` ("certified", "not certified", "certified the other way"), ``pvalue`` (anytime-valid,
        both directions), ``p_claim`` / ``p_reverse`` (one-sided p-values), ``pairs`` (paired trials used),
        ``mean_better`` / ``mean_worse`` (means over those trials).
    alpha : float
        Family-wise level over all claims (Holm).
    exit_code : int
        0 all certified, 1 some not (yet) certified, 3 some certified the other way.
    statement : str
        The guarantee in one sentence.
    source : str or None
    """

    RESULT_KIND = "check"

    claims: list[dict[str, Any]]
    alpha: float
    exit_code: int
    statement: str
    bettor: str = "nscore"
    ties: str = "allow"
    source: str | None = None

    def lines(self) -> list[str]:
        """One line per claim, for people and CI logs."""
        out = []
        for c in self.claims:
            base = f"{c['claim']}: {c['status']}"
            if c["status"] == "certified the other way":
                base += f" ({c['worse']} is better than {c['better']})"
            p = "-" if c["pvalue"] is None else f"{c['pvalue']:.4g}"
            mb, mw = (("-" if v is None else f"{v:.3f}") for v in (c["mean_better"], c["mean_worse"]))
            # the means are named: a claim written A<B puts its better policy second
            out.append(f"{base} (p = {p}, {c['pairs']} paired trials, means {c['better']} {mb} vs {c['worse']} {mw})")
        return out


def check(data: Any, claims: Any, *, alpha: float = 0.05, bettor: str = "nscore", ties: str = "allow",
          bins: Any = "progress", format: str | None = None, score_range: tuple[float, float] | None = None,
          **read_options: Any) -> CheckResult:
    """Check claims "A>B" against evaluation data (any input `certirank.load` reads, or a loaded table).

    Parameters
    ----------
    data : path or DataFrame
        A long/wide table, an lm-eval output folder, inspect_ai logs, ... (see `certirank.load`).
    claims : str or list of str
        Each "A>B" (A better than B) or "A<B".
    alpha : float
        Family-wise level over all claims.
    bettor, ties, bins
        As for `certirank.compare` (speed only; never validity).
    """
    from ..data.readers import load
    from ..evidence.compare import _pairs_from_table, compare
    from ..multitest.graphical import holm_rejections

    alpha = check_alpha(alpha)
    claims, parsed = parse_claims(claims)
    table = load(data, format=format, score_range=score_range, **read_options)
    source = table.attrs.get("source") if hasattr(table, "attrs") else None
    results = []
    for text, (better, worse) in zip(claims, parsed):
        try:
            x, y = _pairs_from_table(table, better, worse)
        except DataError as err:
            raise DataError(f"claim {text!r}: {err}") from None
        results.append((text, better, worse, x, y, compare(x, y, alpha=alpha, bettor=bettor, ties=ties, bins=bins)))
    pvalues = np.array([r[5].pvalue for r in results])
    rejected = holm_rejections(pvalues, alpha)
    rows = []
    for (text, better, worse, x, y, res), rej in zip(results, rejected):
        # x = the claimed better policy: "x>y" is the claim, "x<y" its reverse
        if rej and res.p_more < res.p_less:
            status = "certified"
        elif rej and res.p_less < res.p_more:
            status = "certified the other way"
        else:
            status = "not certified"
        rows.append({"claim": text, "better": better, "worse": worse, "status": status, "pvalue": res.pvalue,
                     "p_claim": res.p_more, "p_reverse": res.p_less, "pairs": res.n,
                     "mean_better": float(np.mean(x)), "mean_worse": float(np.mean(y))})
    code = max(EXIT_CODES[r["status"]] for r in rows)
    k = len(rows)
    statement = (f"With probability at least {100 * (1 - alpha):g}%, every claim reported as certified (either way) "
                 f"is true, at whatever trial the data ends (anytime-valid paired tests, Holm over {k} "
                 f"claim{'s' if k != 1 else ''}, alpha = {alpha:g}).")
    return CheckResult(claims=rows, alpha=alpha, exit_code=code, statement=statement, bettor=results[0][5].bettor,
                       ties=results[0][5].ties, source=None if source is None else str(source))
