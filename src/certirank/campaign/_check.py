"""`certirank check` on a campaign file: the claims are read off the campaign's own certified ranking.

Why not re-test the rollouts with check's paired test: the campaign's method, alpha and budget were locked at
``init`` (pre-registered), and its ranking is what ``campaign status`` shows. A second, different test on the
same rollouts could disagree with it, and a user who may pick whichever of the two says "certified" has two
chances to be wrong (up to 2 alpha). So a claim "A>B" is *certified* exactly when the campaign certifies
A above B (directly or by transitivity), *certified the other way* when it certifies B above A, and *not
certified* otherwise; the campaign's guarantee covers all its certified relations at once, so no further
multiplicity correction is needed over the claims.

The file is verified end to end first (configuration lock, hash chain, undo marks, checkpoint replay: the
store's ``verify``), so an edited campaign is refused (exit 2) instead of gating CI on it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .._validate import check_alpha
from ..errors import ParameterError, StateError
from ..methods.check import NOT_WORSE, CheckResult, claim_kind, exit_code, parse_claims

__all__ = ["check_campaign", "is_campaign_file"]

_SQLITE_MAGIC = b"SQLite format 3\x00"


def is_campaign_file(data: Any) -> bool:
    """True if ``data`` is a path to an SQLite file (a campaign, or something ``Campaign.open`` will refuse)."""
    if not isinstance(data, (str, os.PathLike)):
        return False
    path = Path(data)
    try:
        if not path.is_file():
            return False
        with open(path, "rb") as fh:
            return fh.read(len(_SQLITE_MAGIC)) == _SQLITE_MAGIC
    except OSError:
        return False


def check_campaign(path: str | os.PathLike[str], claims: Any, *, alpha: float | None = None,
                   fail_on: str = "any") -> CheckResult:
    """Check claims "A>B" against the certified ranking of the campaign file ``path``.

    ``alpha`` (default: the campaign's own) may not be smaller than the campaign's locked alpha: its
    ranking is certified at that level and no smaller one. A larger alpha is accepted; the verdicts then
    hold at the campaign's (stronger) level, which the result reports. In a blind campaign claims name the
    codes (``campaign status`` shows them) until the campaign is unblinded.
    """
    from ._campaign import Campaign

    claims, parsed = parse_claims(claims)
    if any(claim_kind(c) == NOT_WORSE for c in claims):
        raise ParameterError(f"{path}: a claim 'A>=B' (not worse by a margin) is checked on evaluation data; a campaign "
                             "file answers claims 'A>B' from its certified ranking")
    with Campaign.open(path) as camp:
        report = camp.verify()
        if not report.ok:
            failed = "; ".join(f"{c.name}" + (f" ({c.detail})" if c.detail else "") for c in report.failures)
            raise StateError(f"{path}: the campaign file failed verification ({failed}); its ranking cannot be "
                             f"trusted -- see `certirank campaign verify {path}`")
        status = camp.status()
    res = status.result
    ranking = status.ranking
    level = float(ranking.alpha if ranking.alpha is not None else res.alpha)
    if alpha is not None:
        alpha = check_alpha(alpha)
        if alpha < level:
            raise ParameterError(f"{path} was pre-registered at alpha = {level:g}; its certified ranking holds at "
                                 f"that level, not at alpha = {alpha:g} (leave --alpha out, or start a campaign at "
                                 "the smaller alpha)")
    names = set(ranking.names)
    what = "codes" if status.blind and not status.unblinded else "policies"
    rows = []
    for text, (better, worse) in zip(claims, parsed):
        for name in (better, worse):
            if name not in names:
                raise ParameterError(f"claim {text!r}: {name!r} is not in campaign {path} (its {what}: "
                                     f"{', '.join(sorted(names))})")
        rows.append(_claim_row(text, better, worse, res, ranking, status))
    code = exit_code(rows, fail_on)
    state = ("finished" if status.done else "still running") + f", {status.records} live records"
    statement = (f"Read off campaign {Path(path).name} ({status.campaign}, {state}): {ranking.guarantee} "
                 f"A claim is certified exactly when the campaign certifies it (alpha = {level:g}, locked at init).")
    return CheckResult(alpha=level, ranking=ranking, claims=rows, exit_code=code, statement=statement,
                       bettor=f"campaign:{ranking.kind}", ties=str(getattr(res, "ties", "allow")), fail_on=fail_on,
                       about=ranking.about, order={"kind": "arrival"}, source=str(path))


def _claim_row(text: str, better: str, worse: str, res: Any, ranking: Any, status: Any) -> dict[str, Any]:
    rel = {(r.better, r.worse): r for r in ranking.relations}
    if ranking.better(better, worse):
        verdict, found = "certified", rel.get((better, worse))
    elif ranking.better(worse, better):
        verdict, found = "certified the other way", rel.get((worse, better))
    else:
        verdict, found = "not certified", None
    p_claim = p_reverse = pvalue = None
    pairs = None
    if found is not None:
        if found.evidence_kind == "pvalue" and found.evidence is not None:
            pvalue = float(found.evidence)
            p_claim, p_reverse = (pvalue, 1.0) if verdict == "certified" else (1.0, pvalue)
        pairs = None if found.when is None else int(found.when)
    for d in getattr(res, "undecided_details", None) or []:
        if found is None and set(d["pair"]) == {better, worse}:
            # AnyRank keeps the open pair's one-sided p-values in the pair's listed order (p_more: the first is
            # better); the blind relabelling re-sorts the pair without swapping them, so they are left out there
            first = d["pair"][0]
            p_more, p_less = d.get("p_more"), d.get("p_less")
            if p_more is not None and p_less is not None and not (status.blind and not status.unblinded):
                p_claim, p_reverse = (p_more, p_less) if first == better else (p_less, p_more)
            pvalue = d.get("pvalue")
            pairs = int(d["trials"])
    if pairs is None and status.campaign == "leaderboard":
        pairs = int(res.replicates)
    means = ranking.means
    return {"claim": text, "better": better, "worse": worse, "status": verdict, "pvalue": pvalue,
            "p_claim": p_claim, "p_reverse": p_reverse, "pairs": pairs,
            "mean_better": means.get(better), "mean_worse": means.get(worse)}
