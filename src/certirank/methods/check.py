"""`certirank.check`: a CI gate — are these claims ("A>B") certified by the evaluation data?

Each claim "A>B" is the paired, anytime-valid comparison of `certirank.compare` on the trials both policies
have (in recorded order). Claims are decided together by Holm's step-down procedure on their anytime-valid
p-values, so with probability at least 1 - alpha every "certified" and every "certified the other way" line
is right at once, however many claims are checked. The gate's exit code:

- 0: every claim is certified;
- 1: some claim is not (yet) certified, none is contradicted;
- 3: some claim is certified the other way.

An exit 0 that is wrong needs a false claim to be certified, which happens with probability <= alpha.

A claim "A>=B" with a margin delta fixed before the data (``margin=``, ``--margin``) is a non-inferiority claim:
A's mean is not below B's by delta or more (mu_A - mu_B > -delta), the question a pull-request gate asks of a
change that must not make a model worse. It is tested by the one-sided anytime-valid e-process against -delta
(the half of `certirank.evidence.equivalence` that certifies it) on the same rows in the same order, and enters
Holm with the other claims; it is "certified" or "not certified" (never "the other way").
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, ClassVar

import numpy as np

from .._validate import check_alpha
from ..errors import DataError, ParameterError
from ..order.result import Ranking, Relation, make_ranking
from ..multitest.graphical import holm_rejections
from ..results import Result, inputs, note, reader_warnings
from .compare import compare_all_rows

__all__ = ["check", "CheckResult", "parse_claim", "claim_kind", "EXIT_CODES"]

EXIT_CODES = {"certified": 0, "not certified": 1, "certified the other way": 3}
_CLAIM_RE = re.compile(r"^\s*(?P<a>.+?)\s*(?P<op>>=?|<=?)\s*(?P<b>.+?)\s*$")
#: the kind of a claim: a difference "A>B", or "A>=B", A not worse than B by the margin (non-inferiority)
DIFFERENCE, NOT_WORSE = "difference", "not worse"


def parse_claims(claims: Any) -> tuple[list[str], list[tuple[str, str]]]:
    """One claim or a sequence of them -> (the claims as given, their (better, worse) pairs)."""
    claims = [claims] if isinstance(claims, str) else list(claims)  # their type is checked at the boundary
    if not claims:
        raise ParameterError("give at least one claim, e.g. --claim 'A>B'")
    return claims, [parse_claim(c) for c in claims]


def parse_claim(text: str) -> tuple[str, str]:
    """``"A>B"`` -> ("A", "B") (A claimed better); ``"A<B"`` -> ("B", "A"); ``"A>=B"`` / ``"B<=A"`` -> ("A", "B")
    (A claimed not worse than B by the margin: :func:`claim_kind`)."""
    if not isinstance(text, str):
        raise ParameterError(f"a claim must be text like 'A>B', got {text!r}")
    if text.count(">") + text.count("<") != 1 or text.count("=") > 1:
        raise ParameterError(f"claim {text!r} must compare two policies with one '>' or '<' (or '>=', '<='), "
                             "e.g. 'A>B'")
    m = _CLAIM_RE.match(text)
    if m is None or not m["a"] or not m["b"] or "=" in m["a"] + m["b"]:
        raise ParameterError(f"claim {text!r} must look like 'A>B' (A better than B), 'A<B', or 'A>=B' (A not "
                             "worse than B by the margin)")
    a, b = m["a"], m["b"]
    if a == b:
        raise ParameterError(f"claim {text!r} compares {a!r} with itself")
    return (a, b) if m["op"].startswith(">") else (b, a)


def claim_kind(text: str) -> str:
    """DIFFERENCE for "A>B" / "A<B", NOT_WORSE for "A>=B" / "A<=B" (text already read by :func:`parse_claim`)."""
    return NOT_WORSE if "=" in text else DIFFERENCE


@dataclasses.dataclass(frozen=True)
class CheckResult(Result):
    """Verdict on every claim (record kind ``"check"``).

    Attributes
    ----------
    alpha, bettor, ties : inputs
        Family-wise level over all claims (Holm) and the paired tests' settings.
    ranking : Ranking
        What the claims were read from: for evaluation data, the claimed policies with every claim certified
        (either way) as a relation (not transitive: exactly the claims' tests); for a campaign file, the
        campaign's certified ranking.
    claims : list of dict
        Per claim, in the order given: ``claim`` (as written), ``better`` / ``worse`` (what it asserts),
        ``status`` ("certified", "not certified", "certified the other way"), ``pvalue`` (anytime-valid,
        both directions), ``p_claim`` / ``p_reverse`` (one-sided p-values), ``pairs`` (paired trials used),
        ``mean_better`` / ``mean_worse`` (means over those trials).
    exit_code : int
        0 all certified, 1 some not (yet) certified, 3 some certified the other way (with ``fail_on =
        "reversed"``: 3 if some claim is certified the other way, else 0).
    fail_on : input
        ``any`` or ``reversed`` (see :func:`check`).
    statement : str
        The guarantee of the gate in one sentence.
    """

    KIND: ClassVar[str] = "check"

    alpha: float = inputs()
    ranking: Ranking = dataclasses.field(repr=False)
    claims: list[dict[str, Any]]
    exit_code: int
    statement: str
    bettor: str = inputs(default="nscore")
    ties: str = inputs(default="allow")
    fail_on: str = inputs(default="any")

    def lines(self) -> list[str]:
        """One line per claim, for people and CI logs."""
        out = []
        for c in self.claims:
            base = f"{c['claim']}: {c['status']}"
            if c.get("margin") is not None:
                base += f" (claim: mean {c['better']} > mean {c['worse']} - {c['margin']:g})"
            if c["status"] == "certified the other way":
                base += f" ({c['worse']} is better than {c['better']})"
            p = "-" if c["pvalue"] is None else f"{c['pvalue']:.4g}"
            mb, mw = (("-" if v is None else f"{v:.3f}") for v in (c["mean_better"], c["mean_worse"]))
            # the means are named: a claim written A<B puts its better policy second
            out.append(f"{base} (p = {p}, {c['pairs']} paired trials, means {c['better']} {mb} vs {c['worse']} {mw})")
        return out


def check(data: Any, claims: Any, *, alpha: float = 0.05, bettor: str | None = None, ties: str = "allow",
          bins: Any = None, format: str | None = None, score_range: tuple[float, float] | None = None,
          about: str = "policy", order: str = "random", seed: int = 0, order_by: str | None = None,
          orders: int = 1, fail_on: str = "any", margin: float | None = None, **read_options: Any) -> CheckResult:
    """Check claims "A>B" against evaluation data (any input `certirank.load` reads, or a loaded table).

    Parameters
    ----------
    data : path or DataFrame
        A long/wide table, an lm-eval output folder, inspect_ai logs, ... (see `certirank.load`).
    claims : str or list of str
        Each "A>B" (A better than B) or "A<B"; or "A>=B" (A not worse than B by `margin`: mu_A - mu_B > -margin).
    alpha : float
        Family-wise level over all claims.
    bettor, ties, bins
        As for `certirank.compare` on a table (the same defaults): binary scores when every value of the table is
        0 or 1, and then the exact budget test with the items both policies ran as its budget; the bettor changes
        power, never validity.
    about : {"policy", "benchmark", "table"}, default "policy"
        What a certified claim is about (spec 09 §2). ``policy``: each claim is `compare`'s paired test on the
        items (rows) both policies ran; with repeated runs (several replicates per item), each item's score is
        first averaged over its runs. ``benchmark``: the models' expected scores on this item set over runs,
        tested by BB-EDGE (`certirank.leaderboard`) on the claimed models. ``table``: the averages over exactly
        these rows (`certirank.methods.shuffled.table_ranking`).
    order, seed, order_by, orders
        How the rows are read (spec 09 §3, §5), as for `certirank.compare`.
    fail_on : {"any", "reversed"}, default "any"
        The gate's exit code: ``any`` fails (1) on a claim not certified yet and (3) on a claim certified the
        other way; ``reversed`` fails only on a claim certified the other way (a pull-request gate that lets
        an undecided change through).
    margin : float in (0, 1), optional
        The non-inferiority margin of the claims written "A>=B", fixed before the data (required by them, refused
        without one).
    """
    from ..data.readers import load

    alpha = check_alpha(alpha)
    claims, parsed = parse_claims(claims)
    kinds = [claim_kind(c) for c in claims]
    margin = _check_margin(margin, kinds, about=about, orders=orders)
    table = load(data, format=format, score_range=score_range, **read_options)
    names = list(dict.fromkeys(n for pair in parsed for n in pair))
    if about in ("benchmark", "table"):
        if about == "benchmark" and (order != "random" or order_by is not None or orders != 1):
            raise ParameterError("about='benchmark' reads the runs in their recorded order (items within a run "
                                 "do not play an order); order, order_by and orders do not apply")
        res = _read_off(table, names, about, alpha=alpha, seed=seed, order=order, order_by=order_by, orders=orders)
        return _off_ranking(res, claims, parsed, alpha=alpha, fail_on=fail_on, about=about)
    runs_note = None
    if "replicate" in table.columns and table["replicate"].nunique() > 1:
        table, runs_note = _average_runs(table)
    results, warns = [], list(reader_warnings(table))
    if runs_note:
        warns.append(note(runs_note))
    share = _whole_table_share(table, bins)
    for text, (better, worse), kind in zip(claims, parsed, kinds):
        try:
            # every row read (compare itself stops at its decision): Holm merges each claim's p-value over all rows
            res = compare_all_rows(table, alpha=alpha, a=better, b=worse, bettor=bettor, ties=ties, bins=bins,
                                   order=order, seed=seed, order_by=order_by, orders=orders, **share)
            p_not_worse = None if kind == DIFFERENCE else _p_not_worse(table, better, worse, margin, alpha,
                                                                       order=order, seed=seed, order_by=order_by)
        except DataError as err:
            raise DataError(f"claim {text!r}: {err.bare_message()}", source=err.source) from None
        warns += [w for w in res.warnings if w not in warns]
        results.append((text, better, worse, res, p_not_worse))
    pvalues = np.array([r[3].pvalue if r[4] is None else r[4] for r in results])
    rejected = holm_rejections(pvalues, alpha)
    rows = []
    for (text, better, worse, res, p_not_worse), rej, p in zip(results, rejected, pvalues):
        means = res.ranking.means
        if p_not_worse is not None:
            rows.append({"claim": text, "better": better, "worse": worse, "margin": margin,
                         "status": "certified" if rej else "not certified", "pvalue": float(p), "p_claim": float(p),
                         "p_reverse": None, "pairs": res.n, "mean_better": means[better], "mean_worse": means[worse]})
            continue
        # a = the claimed better policy: "x>y" is the claim, "x<y" its reverse
        if rej and res.p_more < res.p_less:
            status = "certified"
        elif rej and res.p_less < res.p_more:
            status = "certified the other way"
        else:
            status = "not certified"
        rows.append({"claim": text, "better": better, "worse": worse, "status": status, "pvalue": res.pvalue,
                     "p_claim": res.p_more, "p_reverse": res.p_less, "pairs": res.n,
                     "mean_better": means[better], "mean_worse": means[worse]})
    k = len(rows)
    first = results[0][3]
    when = ("after all rows (averaged over random orders)" if orders > 1
            else "at whatever trial the data ends")
    not_worse = ("" if margin is None else f"; a claim 'A>=B' says mean(A) > mean(B) - {margin:g}, by the one-sided "
                 "e-process against the margin")
    statement = (f"With probability at least {100 * (1 - alpha):g}%, every claim reported as certified (either way) "
                 f"is true, {when} (paired tests of compare, Holm over {k} claim{'s' if k != 1 else ''}, alpha = "
                 f"{alpha:g}; claims about the policies' expected scores{not_worse}).")
    rels = {}
    for r, (*_, res, _) in zip(rows, results):
        if r["status"] != "not certified" and "margin" not in r:  # a non-inferiority claim orders no pair
            b, w = (r["better"], r["worse"]) if r["status"] == "certified" else (r["worse"], r["better"])
            rels[(b, w)] = Relation(b, w, "test", res.decided_at, res.pvalue, "pvalue")
    means = {}
    for r in rows:
        means.setdefault(r["better"], r["mean_better"])
        means.setdefault(r["worse"], r["mean_worse"])
    ranking = make_ranking(names, rels.values(), kind="check", alpha=alpha, guarantee=statement, means=means,
                           when_unit="paired trials", closure=False, about="policy")
    source = table.attrs.get("source")
    return CheckResult(alpha=alpha, ranking=ranking, claims=rows, exit_code=exit_code(rows, fail_on),
                       statement=statement, bettor=first.bettor, ties=first.ties, fail_on=fail_on, about="policy",
                       order=first.order, source=None if source is None else str(source), warnings=tuple(warns))


def _check_margin(margin: Any, kinds: list[str], *, about: str, orders: int) -> float | None:
    """The non-inferiority margin, required by claims "A>=B" and by nothing else."""
    wanted = NOT_WORSE in kinds
    if margin is None:
        if wanted:
            raise ParameterError("a claim 'A>=B' (A not worse than B) needs its margin, fixed before the data: give "
                                 "margin= (--margin 0.02 allows A up to 2 points below B)")
        return None
    from ..evidence.equivalence import check_margin
    margin = check_margin(margin)
    if not wanted:
        raise ParameterError("--margin is the non-inferiority margin of claims written 'A>=B'; no claim uses it")
    if about != "policy" or orders != 1:
        raise ParameterError("a claim 'A>=B' is read from the rows in one order, about the policies (about='policy', "
                             "orders=1)")
    return margin


def _p_not_worse(table: Any, a: str, b: str, margin: float, alpha: float, *, order: str, seed: int,
                 order_by: str | None) -> float:
    """Anytime-valid p-value of H0: mu_a - mu_b <= -margin on the pairs of a and b in compare's read order: the
    half of the equivalence test that certifies mu_a - mu_b > -margin."""
    from ..evidence.equivalence import EquivalenceTest
    from .compare import read_pairs
    xa, ya = read_pairs(table, a, b, order=order, seed=seed, order_by=order_by)
    # x = a, y = b: the upper half rejects mu_b - mu_a >= margin
    return EquivalenceTest(margin, alpha).update_many(xa, ya).p_upper


def exit_code(rows: Any, fail_on: str = "any") -> int:
    """The gate's exit code for claim rows (``status`` each): the worst verdict, or, with ``fail_on="reversed"``,
    3 only for a claim certified the other way (else 0)."""
    worst = max(EXIT_CODES[r["status"]] for r in rows)
    return (3 if worst == 3 else 0) if fail_on == "reversed" else worst


def _average_runs(table: Any) -> tuple[Any, str]:
    """One score per (policy, item): the mean over its runs (repeated epochs or replicates), and the sentence
    that says so."""
    src = table.attrs.get("source")
    if table["env"].isna().any():
        raise DataError("repeated runs without item labels: each run's trials cannot be matched to an item "
                        "(give an item / env column)", source=src)
    runs = int(table["replicate"].nunique())
    grouped = table.groupby(["policy", "env"], sort=False)
    out = grouped.agg(score=("score", "mean"), order=("order", "min")).reset_index()
    out["replicate"] = 0
    counts = grouped.size()
    per = (f"{runs} runs" if counts.nunique() == 1 else f"{int(counts.min())} to {int(counts.max())} runs")
    out = out[["policy", "env", "replicate", "score", "order"]]
    out.attrs = {k: v for k, v in table.attrs.items() if k != "validated"}
    sentence = (f"repeated runs: each item's score is the mean over its {per} (claims about the policies' expected "
                "scores on new items; about='benchmark' (--about benchmark) tests the runs themselves with BB-EDGE)")
    return out, sentence


def _read_off(table: Any, names: list[str], about: str, **kw: Any) -> Any:
    """The ranking the claims are read from, for ``about="benchmark"`` (BB-EDGE) or ``"table"``."""
    sub = table[table["policy"].isin(names)].copy()
    sub.attrs = {k: v for k, v in table.attrs.items() if k != "validated"}
    missing = [n for n in names if n not in set(sub["policy"])]
    if missing:
        raise DataError(f"claimed polic{'y' if len(missing) == 1 else 'ies'} {', '.join(map(repr, missing))} not "
                        f"in the data; it has {', '.join(map(str, table['policy'].unique()))}",
                        source=table.attrs.get("source"))
    if about == "benchmark":
        from .bbedge import leaderboard
        return leaderboard(sub, kw["alpha"], about="benchmark")
    from .shuffled import table_ranking
    if kw["order"] != "random" or kw["order_by"] is not None or kw["orders"] != 1:
        raise ParameterError("about='table' (--about table) reads whole rows in one seeded random order; order, "
                             "order_by and orders do not apply")
    return table_ranking(sub, kw["alpha"], seed=kw["seed"], policies=names)


def _off_ranking(res: Any, claims: list[str], parsed: list[tuple[str, str]], *, alpha: float, fail_on: str,
                 about: str) -> CheckResult:
    """Claims read off a ranking that certifies every pair at once (BB-EDGE's or the table's)."""
    ranking = res.ranking
    rel = {(r.better, r.worse): r for r in ranking.relations}
    rows = []
    for text, (better, worse) in zip(claims, parsed):
        if ranking.better(better, worse):
            status, found = "certified", rel.get((better, worse))
        elif ranking.better(worse, better):
            status, found = "certified the other way", rel.get((worse, better))
        else:
            status, found = "not certified", None
        pvalue = found.evidence if found is not None and found.evidence_kind == "pvalue" else None
        rows.append({"claim": text, "better": better, "worse": worse, "status": status, "pvalue": pvalue,
                     "p_claim": None, "p_reverse": None,
                     "pairs": ranking.policy(better).n, "mean_better": ranking.means[better],
                     "mean_worse": ranking.means[worse]})
    what = ("BB-EDGE on the claimed models' runs (claims about their expected scores on this item set)"
            if about == "benchmark" else "the table's averages (claims about exactly these rows)")
    statement = (f"Claims read off {what}: {ranking.guarantee}")
    return CheckResult(alpha=alpha, ranking=ranking, claims=rows, exit_code=exit_code(rows, fail_on),
                       statement=statement, bettor=getattr(res, "method", about), ties="allow", fail_on=fail_on,
                       about=about, order=res.order, source=res.source, warnings=res.warnings)


def _whole_table_share(table: Any, bins: Any) -> dict[str, float]:
    """``{"final_share": WHOLE_TABLE_SHARE}`` when every claim runs the exact budget test (binary scores, the
    table's pairs as budget: spec 09 §6), else nothing (the anytime e-process has no end to share with)."""
    from .plan import WHOLE_TABLE_SHARE, plan_whole_data

    if bins not in (None, "binary") or "score" not in table.columns or not len(table):
        return {}
    units = int(table.groupby("policy").size().max())
    return {"final_share": WHOLE_TABLE_SHARE} if plan_whole_data(table["score"], bins=bins, units=units).exact else {}

