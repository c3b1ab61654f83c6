"""Proxy-assisted evidence from files (issue 35 item 3): ``compare FILE --proxy COLUMN --label-rate π`` and
``rank FILE --proxy COLUMN --label-rate π``.

The file is a long table (a pairing-unit column such as ``env``, ``policy``, ``score``) with one more column, the
proxy score of every row (a simulator, a world model, an LLM judge). ``score`` is blank where no real label was
drawn: each unit was labelled (for every policy) with probability π, fixed before the data and independent of
the outcomes. Blank scores are accepted only here, where a proxy column is declared (the ordinary readers refuse
them); the proxy column itself may not have blanks.

The three views of the file (real scores, proxy scores, which units are labelled) are read by the one reader
(:func:`certirank.load`, every check of a long table) and arranged in the same seeded random order of units
(spec 09 §3), so unit t of each view is the same unit.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import DataError, ParameterError
from ..evidence.forecast import FUTILITY

__all__ = ["read_proxy_file", "proxy_compare", "proxy_rank"]


@dataclasses.dataclass(frozen=True)
class ProxyViews:
    real: pd.DataFrame      # units x policies, NaN where not labelled (or not run)
    proxy: pd.DataFrame     # units x policies, NaN only where the policy was not run on the unit
    plan: Any               # the read order
    source: str | None
    warnings: tuple[str, ...]
    column: str = "proxy"


def _column(frame: pd.DataFrame, name: str, what: str, source: str | None) -> Any:
    hits = [c for c in frame.columns if str(c).strip().lower() == name.strip().lower()]
    if not hits:
        raise DataError(f"no {what} column {name!r} (columns: {', '.join(map(str, frame.columns))})", source=source)
    return hits[0]


def read_proxy_file(data: Any, proxy: str, *, format: str | None = None,
                    score_range: tuple[float, float] | None = None, read_options: dict[str, Any] | None = None,
                    order: str = "random", seed: int = 0, order_by: str | None = None) -> ProxyViews:
    """The real-score and proxy-score views of a long file (module docstring); every bad input is one line."""
    from ..data.files import _existing_path, _file_type, read_frame
    from ..data.order import read_order
    from ..data.readers import load
    from ..results import reader_warnings
    from .anyrank._wide import read_wide

    if not isinstance(proxy, str) or not proxy.strip():
        raise ParameterError(f"--proxy takes a column name, got {proxy!r}")
    if isinstance(data, pd.DataFrame):
        frame, source, offset = data.copy(), data.attrs.get("source"), 0
    else:
        p = _existing_path(data)
        source = str(data)
        if format is not None and format not in ("long", "csv", "tsv", "parquet", "jsonl", "json"):
            raise ParameterError(f"--proxy reads a long table file (csv, tsv, parquet, jsonl), not --format {format}")
        frame, offset = read_frame(p, _file_type(p) if format in (None, "long") else format,
                                   sep=(read_options or {}).get("sep"))
    if not any(str(c).strip().lower() == "score" for c in frame.columns):
        raise DataError(f"--proxy needs a long table (a unit column such as env, policy, score and the proxy "
                        f"column {proxy!r}); this file has no score column", source=source)
    pcol = _column(frame, proxy, "proxy", source)
    scol = _column(frame, "score", "score", source)
    if pcol == scol:
        raise ParameterError("--proxy names the score column itself; give the column of the proxy scores")
    raw = frame[pcol]
    vals = pd.to_numeric(raw, errors="coerce")
    bad = vals.isna() & raw.notna() & (raw.astype(str).str.strip() != "")
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise DataError(f"proxy score {raw.iloc[i]!r} is not a number", source=source, row=i + offset, column=str(pcol))
    if vals.isna().any():
        i = int(np.flatnonzero(vals.isna().to_numpy())[0])
        raise DataError(f"blank proxy score ({int(vals.isna().sum())} such row(s)); every row needs a proxy score "
                        "(the real score may be blank where no label was drawn)", source=source, row=i + offset,
                        column=str(pcol))
    lo, hi = (0.0, 1.0) if score_range is None else score_range
    out = (vals < lo) | (vals > hi)
    if out.any():
        i = int(np.flatnonzero(out.to_numpy())[0])
        raise DataError(f"proxy score {vals.iloc[i]:g} is outside the score range [{lo:g}, {hi:g}]", source=source,
                        row=i + offset, column=str(pcol))
    real = pd.to_numeric(frame[scol], errors="coerce")
    labelled = real.notna() | (frame[scol].notna() & (frame[scol].astype(str).str.strip() != ""))
    base = frame.drop(columns=[pcol])
    # the same rows three times: the reader's checks (and its row numbers) apply to each view alike
    real_view = base.assign(**{scol: frame[scol].where(labelled, vals)})
    proxy_view = base.assign(**{scol: vals})
    label_view = base.assign(**{scol: labelled.astype(float)})
    opts = {k: v for k, v in (read_options or {}).items() if k != "sep"}
    for view in (real_view, proxy_view, label_view):
        view.attrs["source"] = source
    t_real = load(real_view, format="long", score_range=score_range, **opts)
    t_proxy = load(proxy_view, format="long", score_range=score_range, **opts)
    t_label = load(label_view, format="long", **opts)
    plan = read_order(t_real, order=order, seed=seed, order_by=order_by)
    w_real = read_wide(t_real, plan)
    w_proxy = read_wide(t_proxy, plan).reindex(index=w_real.index, columns=w_real.columns)
    w_label = read_wide(t_label, plan).reindex(index=w_real.index, columns=w_real.columns)
    return ProxyViews(real=w_real.where(w_label == 1.0), proxy=w_proxy, plan=plan, source=source,
                      warnings=tuple(reader_warnings(t_real)), column=str(pcol))


def _pair_arrays(v: ProxyViews, a: str, b: str) -> tuple[np.ndarray, ...]:
    for name in (a, b):
        if name not in v.proxy.columns:
            raise DataError(f"no policy {name!r} in the file (policies: {', '.join(map(str, v.proxy.columns))})",
                            source=v.source)
    both = v.proxy[a].notna() & v.proxy[b].notna()  # units where both policies ran
    return (v.real[a][both].to_numpy(float), v.real[b][both].to_numpy(float), v.proxy[a][both].to_numpy(float),
            v.proxy[b][both].to_numpy(float))


def _unit_error(exc: DataError, v: ProxyViews, a: str, b: str) -> DataError:
    """check_proxy_inputs speaks of positions in the arrays; a file's user needs the unit's name."""
    import re
    msg = str(exc)
    m = re.match(r"unit (\d+): a real score for (x|y) but not for (x|y)", msg)
    if m:
        both = v.proxy[a].notna() & v.proxy[b].notna()
        unit = v.proxy.index[both][int(m.group(1))]
        has, lacks = (a, b) if m.group(2) == "x" else (b, a)
        return DataError(f"unit {unit}: a real score for {has} but not for {lacks}; a unit is labelled for every "
                         "policy or for none", source=v.source)
    return DataError(msg.replace("x, y", f"{a}, {b}"), source=v.source)


def proxy_compare(v: ProxyViews, a: str, b: str, *, label_rate: float, alpha: float = 0.05,
                  margin: float | None = None, n_max: int | None = None, futility: float = FUTILITY) -> Any:
    """`compare` with proxies on the units both policies ran, in the file views' order."""
    from .compare import compare
    x, y, fx, fy = _pair_arrays(v, a, b)
    try:
        res = compare(x, y, a=a, b=b, proxy_x=fx, proxy_y=fy, label_rate=label_rate, alpha=alpha, margin=margin,
                      n_max=n_max, futility=futility)
    except DataError as exc:
        raise _unit_error(exc, v, a, b) from None
    return dataclasses.replace(res, order=v.plan.to_dict(), source=v.source, warnings=(*v.warnings, *res.warnings))


def proxy_rank(v: ProxyViews, *, label_rate: float, alpha: float = 0.05, margin: float | None = None,
               n_max: int | None = None, futility: float = FUTILITY, policies: Sequence[str] | None = None) -> Any:
    """A certified ranking from proxy-assisted pair tests: every pair tested at alpha / K (Bonferroni over the K
    pairs: each pair's difference and equivalence claims share its level, so FWER <= alpha over every claim, at
    every stopping time, by the union bound)."""
    from ..order import Relation, make_ranking
    from ..results import note
    from .anyrank.result import RankingResult
    pols = [str(p) for p in (policies if policies is not None else v.proxy.columns)]
    if len(pols) < 2:
        raise DataError(f"ranking needs at least two policies; the file has {len(pols)}", source=v.source)
    k = len(pols) * (len(pols) - 1) // 2
    level = alpha / k
    rels, open_pairs, details, eq = [], [], [], []
    units = int(v.proxy.notna().any(axis=1).sum())
    for i in range(len(pols)):
        for j in range(i + 1, len(pols)):
            a, b = pols[i], pols[j]
            if units == 0:  # a campaign before its first complete trial (a file with no unit is refused earlier)
                open_pairs.append((a, b))
                details.append({"pair": [a, b], "trials": 0, "labels": 0, "pvalue": 1.0, "p_less": 1.0,
                                "p_more": 1.0, "level": level, "budget_exhausted": False, "futile": False,
                                "verdict": "undecided", "p_equivalent": None, "more_needed": None, "forecast": None})
                continue
            r = proxy_compare(v, a, b, label_rate=label_rate, alpha=level, margin=margin, n_max=n_max,
                              futility=futility)
            if r.decision is not None:
                better, worse = (b, a) if r.decision == "x<y" else (a, b)
                rels.append(Relation(better, worse, "test", r.decided_at, r.pvalue, "p-value",
                                     {"trials": r.decided_at, "labels": r.labels, "level": level}))
                continue
            open_pairs.append((a, b))
            fc = r.forecast.to_dict() if r.forecast is not None else None
            verdict = "equivalent" if r.equivalent else ("futile" if fc and fc.get("futile") else "undecided")
            if verdict == "equivalent":
                eq.append([a, b])
            details.append({"pair": [a, b], "trials": r.n, "labels": r.labels, "pvalue": r.pvalue,
                            "p_less": r.p_less, "p_more": r.p_more, "level": level, "budget_exhausted": False,
                            "futile": False, "verdict": verdict, "p_equivalent": r.p_equivalent,
                            "more_needed": None if fc is None else fc.get("more_needed"), "forecast": fc})
    labelled = v.real.notna()
    means = {p: (float(v.real[p][labelled[p]].mean()) if labelled[p].any() else None) for p in pols}
    guarantee = (f"With probability at least {100 * (1 - alpha):g}%, every ordering"
                 + (" and equivalence" if margin is not None else "") + " reported is correct, at whatever time "
                 f"the reading stops (Bonferroni: each of the {k} pairs tested at alpha/{k} by the proxy-assisted "
                 f"e-process; valid whatever the proxy's bias when each unit was labelled with probability "
                 f"{label_rate:g}, fixed before the data and independent of the outcomes).")
    rk = make_ranking(pols, rels, kind="proxy-bonferroni", alpha=alpha, guarantee=guarantee, means=means,
                      n={p: int(labelled[p].sum()) for p in pols}, when_unit="units", about="policy",
                      stopped="data exhausted" if open_pairs else "complete ranking")
    if margin is not None:
        rk = rk.with_equivalent(eq, margin)
    return RankingResult(method="proxy-bonferroni", alpha=alpha, guarantee="paper", ties="allow", policies=pols,
                         ranking=rk, undecided_details=details, total_samples=int(labelled.to_numpy().sum()),
                         iterations=units, n_max=n_max, margin=margin, about="policy", order=v.plan.to_dict(),
                         source=v.source, warnings=(*v.warnings, note(
                             f"proxy-assisted: proxy column {v.column!r}, label rate {label_rate:g}; each policy's "
                             "mean and trials are over its real labels")))


def label_rate_needed(label_rate: Any, proxy: Any) -> None:
    """--proxy and --label-rate come together (the rate is what makes the rectified mean unbiased)."""
    if proxy is not None and label_rate is None:
        raise ParameterError("--proxy needs --label-rate π: the probability, fixed before the data, with which each "
                             "unit got a real label")
    if label_rate is not None and proxy is None:
        raise ParameterError("--label-rate needs --proxy COLUMN: the column of proxy scores")
    if label_rate is not None and (isinstance(label_rate, bool) or not math.isfinite(float(label_rate))):
        raise ParameterError(f"--label-rate must be a number in (0, 1], got {label_rate!r}")
