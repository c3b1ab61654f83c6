"""The evaluation table: one validation point for every way data enters certirank.

Canonical long layout (a pandas DataFrame), one row per observation:

========== ======== ==========================================================================
column     dtype    meaning
========== ======== ==========================================================================
policy     str      the policy / model evaluated (input alias: ``model``)
env        str      environment / item / task (aliases ``item``, ``task``); ``<NA>`` if unknown
replicate  int64    repeated run index (0 when the data has a single run)
score      float64  the observation, in [0, 1] (rescaled from ``score_range`` if given)
order      int64    recorded order (row position unless the data has an ``order`` column)
block      str      optional: design block of the env (BB-EDGE)
weight     float64  optional: item weight (BB-EDGE)
========== ======== ==========================================================================

`validate_table` is the only function that checks evaluation data; every reader builds a raw
frame and hands it over, so every entry path produces the same errors.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..errors import DataError
from ._cells import label_codes, map_values, to_numbers

REQUIRED = ("policy", "score")
ALIASES = {"model": "policy", "item": "env", "task": "env"}
OPTIONAL = ("env", "block", "replicate", "order", "weight")
CANONICAL = ("policy", "env", "replicate", "score", "order")

_MAX_LISTED = 5


def _rows(index: Sequence[int], offset: int) -> str:
    shown = ", ".join(str(int(i) + offset) for i in list(index)[:_MAX_LISTED])
    more = len(index) - _MAX_LISTED
    return shown + (f" and {more} more" if more > 0 else "")


def validate_table(frame: pd.DataFrame, *, score_range: tuple[float, float] | None = None,
                   source: str | None = None, row_offset: int = 2) -> pd.DataFrame:
    """Check and canonicalise a long evaluation table; return a new DataFrame.

    Parameters
    ----------
    frame:
        Raw long table with at least ``policy`` (or ``model``) and ``score`` columns.
    score_range:
        ``(lo, hi)``: rescale scores by ``(score - lo) / (hi - lo)``; scores outside [lo, hi] are still
        an error. Without it, scores must lie in [0, 1].
    source:
        Name used in error messages (usually the file path).
    row_offset:
        Added to 0-based row positions in messages; 2 matches a CSV file's line numbers (header = line 1).
    """
    if not isinstance(frame, pd.DataFrame):
        raise DataError(f"expected a table (pandas DataFrame), got {type(frame).__name__}", source=source)
    df = frame.copy(deep=False)  # columns are replaced, never written into: the caller's frame stays as it was
    df.columns = [str(c).strip() for c in df.columns]
    rename = {}
    for alias, canon in ALIASES.items():
        if alias in df.columns:
            if canon in df.columns or canon in rename.values():
                raise DataError(f"both {alias!r} and {canon!r} columns given; keep one", source=source)
            rename[alias] = canon
    df = df.rename(columns=rename)
    if len(df) == 0:
        raise DataError("the table is empty (no observations)", source=source)
    missing = [c for c in REQUIRED if c not in df.columns]
    if missing:
        miss = near_miss(df.columns, ("policy", "model", "score"))
        hint = f"; {miss[0]!r} looks like a misspelling of {miss[1]!r}" if miss else ""
        raise DataError(f"missing required column(s) {', '.join(map(repr, missing))}; found columns: "
                        f"{', '.join(map(repr, df.columns)) or 'none'} (a long table needs 'policy' or 'model', "
                        f"and 'score'){hint}", source=source)
    df = df.reset_index(drop=True)

    # policy
    pol = df["policy"]
    name = pol.astype(str).str.strip()
    bad = pol.isna() | (name == "")
    if bad.any():
        raise DataError(f"empty policy name at row(s) {_rows(np.flatnonzero(bad), row_offset)}; every row must "
                        "name its policy", source=source, column="policy")
    df["policy"] = name
    _refuse_controls(df["policy"], "policy name", source, row_offset, _CONTROLS)

    # score
    raw = df["score"]
    score = to_numbers(raw)
    if score.dtype.kind in "cO":  # complex numbers pass to_numeric, and float64 would drop their imaginary part
        cplx = np.flatnonzero([isinstance(v, (complex, np.complexfloating)) for v in score.to_numpy()])
        if cplx.size:
            i = int(cplx[0])
            raise DataError(f"score {raw.iloc[i]!r} is a complex number (expected a real number in "
                            f"{_range_text(score_range)})", source=source, row=i + row_offset, column="score")
    nonnum = score.isna() & raw.notna()
    if nonnum.any():
        i = int(np.flatnonzero(nonnum)[0])
        raise DataError(f"score {raw.iloc[i]!r} is not a number (expected a number in "
                        f"{_range_text(score_range)})", source=source, row=i + row_offset, column="score")
    score = score.astype("float64").to_numpy()  # rescaled below into a new array, never in place
    nan = ~np.isfinite(score)
    if nan.any():
        i = int(np.flatnonzero(nan)[0])
        what = "missing (NaN)" if np.isnan(score[i]) else f"{score[i]!r}"
        raise DataError(f"score is {what}; expected a finite number in {_range_text(score_range)} "
                        f"(drop unrun trials instead of recording them; {int(nan.sum())} such row(s))",
                        source=source, row=i + row_offset, column="score")
    lo, hi = (0.0, 1.0) if score_range is None else _check_range(score_range, source)
    out = (score < lo) | (score > hi)
    if out.any():
        i = int(np.flatnonzero(out)[0])
        hint = "" if score_range is not None else " (pass score_range=(lo, hi) / --score-range lo,hi to rescale)"
        raise DataError(f"score {score[i]:g} is outside [{lo:g}, {hi:g}]{hint}; {int(out.sum())} such row(s)",
                        source=source, row=i + row_offset, column="score")
    if score_range is not None:
        score = (score - lo) / (hi - lo)
    df["score"] = score

    # env
    if "env" in df.columns:
        env = df["env"]
        df["env"] = map_values(env, lambda v: pd.NA if pd.isna(v) else _label(v)).astype("string")
        _refuse_controls(df["env"].fillna(""), "environment label", source, row_offset, "\x00")
    else:
        df["env"] = pd.Series(pd.NA, index=df.index, dtype="string")

    for col in ("replicate", "order"):
        if col in df.columns:
            df[col] = _integer_column(df[col], col, source, row_offset)
        else:
            df[col] = 0 if col == "replicate" else np.arange(len(df), dtype="int64")
        df[col] = df[col].astype("int64")

    if "block" in df.columns:
        blk = df["block"]
        if blk.isna().any():
            i = int(np.flatnonzero(blk.isna())[0])
            raise DataError("block is missing; every row needs a block when the column is present",
                            source=source, row=i + row_offset, column="block")
        df["block"] = map_values(blk, _label).astype("string")
        if df["env"].notna().all():
            per_env = df.groupby("env")["block"].nunique()
            split = per_env[per_env > 1]
            if len(split):
                raise DataError(f"item {split.index[0]!r} appears in {int(split.iloc[0])} blocks; each item belongs "
                                "to exactly one block", source=source, column="block")
    if "weight" in df.columns:
        w = pd.to_numeric(df["weight"], errors="coerce").to_numpy(dtype="float64")
        badw = ~np.isfinite(w) | (w < 0)
        if badw.any():
            i = int(np.flatnonzero(badw)[0])
            raise DataError(f"weight {df['weight'].iloc[i]!r} is not a non-negative number", source=source,
                            row=i + row_offset, column="weight")
        df["weight"] = w

    if df["env"].notna().all():
        key = ["policy", "env", "replicate"]
        if _may_repeat(df, key):
            dup = df.duplicated(key, keep=False)
        else:
            dup = np.zeros(0, dtype=bool)
        if dup.any():
            idx = np.flatnonzero(dup)
            first = df.iloc[idx[0]]
            raise DataError(f"duplicate observations for the same (policy, env, replicate) = ({first['policy']}, "
                            f"{first['env']}, {first['replicate']}) at rows {_rows(idx, row_offset)}; each policy may "
                            "have one score per env and replicate", source=source)

    cols = list(CANONICAL) + [c for c in ("block", "weight") if c in df.columns]
    extra = [c for c in df.columns if c not in cols]
    result = df[cols + extra]  # a new frame (the columns are df's own, made above)
    result.attrs["source"] = source
    return result


def _may_repeat(df: pd.DataFrame, key: list[str]) -> bool:
    """False when no two rows share ``key``, found on integer codes (pandas' ``duplicated`` on millions of text
    cells costs seconds); True means: look with ``duplicated`` (which also names the rows)."""
    codes = np.zeros(len(df), dtype=np.int64)
    span = 1
    for c in key:
        k, uniq = label_codes(df[c])
        span *= max(len(uniq), 1)
        if span >= 1 << 62:  # the combined code could overflow
            return True
        codes *= len(uniq)  # in place: each temporary of five million rows is 40 MB of fresh pages
        codes += k
    if span <= 4 * len(codes) + 1024:  # counts per possible key: one pass, no sort
        return bool(np.bincount(codes, minlength=span).max(initial=0) > 1)
    codes.sort()
    return bool((codes[1:] == codes[:-1]).any())


def near_miss(columns: Sequence[object], known: Sequence[str]) -> tuple[str, str] | None:
    """(column, known name) for a column that looks like a misspelling of a known name, else None."""
    exact = {str(c).strip() for c in columns}
    for c in columns:
        name = str(c).strip()
        text = name.lower()
        if text in known:
            if name != text and text not in exact:  # 'Policy' where 'policy' is meant
                return name, text
            continue
        match = difflib.get_close_matches(text, [k for k in known if k not in exact], n=1, cutoff=0.75) if text else []
        if match:
            return name, match[0]
    return None


# Control characters (Unicode category Cc) a policy name may not hold: the parameter contract refuses them in the
# names given to the API (Ranker, Leaderboard, campaigns), so a file is held to the same rule. Environment labels
# may be long item texts with line breaks; only NUL is refused there.
_CONTROLS = "".join(map(chr, (*range(0x20), *range(0x7f, 0xa0))))


def _refuse_controls(col: pd.Series, what: str, source: str | None, row_offset: int, chars: str) -> None:
    """Refuse a name holding one of `chars`: a NUL means a binary or damaged file (no tool writes one on purpose)
    and cuts a name short in C strings, SQLite text and file names; other controls act on terminals."""
    # tested once per distinct value: a long table repeats each name thousands of times
    codes, uniques = label_codes(col)
    held = np.fromiter((isinstance(v, str) and any(c in chars for c in v) for v in uniques), dtype=bool,
                       count=len(uniques))
    bad = (codes >= 0) & np.append(held, False)[codes]
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        text = col.iloc[i]
        ch = next(c for c in text if c in chars)
        why = " (a binary or damaged file?)" if ch == "\x00" else "; names are plain text"
        raise DataError(f"{what} {text!r} holds the control character {ch!r}{why}", source=source,
                        row=i + row_offset, column=str(col.name))


def _label(v: object) -> str:
    """Item/block labels as strings; integral floats (from CSV blanks upcasting ints) lose their '.0'."""
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    return str(v).strip()


def _integer_column(col: pd.Series, name: str, source: str | None, row_offset: int) -> pd.Series:
    num = to_numbers(col)
    if num.dtype.kind in "iu":  # integers already (and so none missing): nothing to refuse
        return num.astype("int64")
    bad = num.isna() | (num.astype("float64") % 1 != 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise DataError(f"{name} {col.iloc[i]!r} is not an integer", source=source, row=i + row_offset, column=name)
    return num.astype("int64")


def _check_range(score_range: Sequence[float], source: str | None) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in score_range)
    except (TypeError, ValueError):
        raise DataError(f"score_range must be two numbers (lo, hi), got {score_range!r}", source=source) from None
    if not (np.isfinite(lo) and np.isfinite(hi) and hi > lo):
        raise DataError(f"score_range must satisfy lo < hi (finite), got ({lo}, {hi})", source=source)
    if not np.isfinite(hi - lo) or (hi - lo) < 1e-300:
        # hi - lo overflows (or underflows) and every rescaled score would become 0 or inf
        raise DataError(f"score_range ({lo:g}, {hi:g}) is too wide or too narrow to rescale by; give the scores' "
                        "real range", source=source)
    return lo, hi


def _range_text(score_range: Sequence[float] | None) -> str:
    return "[0, 1]" if score_range is None else f"[{score_range[0]}, {score_range[1]}]"


def policies(table: pd.DataFrame) -> list[str]:
    """Policies in order of first appearance (the order users wrote them in)."""
    return [str(p) for p in pd.unique(table["policy"])]


def check_per_trial(table: pd.DataFrame, who: str) -> None:
    """Refuse tables a trial-by-trial comparison cannot use faithfully (``who`` names the command/method).

    Preferences have no per-trial scores; several replicates per (policy, env) cannot be paired one trial per
    environment; unequal item weights would be silently dropped, because each trial counts once.
    """
    source = table.attrs.get("source")
    if table.attrs.get("format") == "preferences" or "preference" in table.columns:
        raise DataError(f"these are pairwise preferences, not per-trial scores; {who} needs one score per policy "
                        "and trial (a wide per-trial table or a long policy/score table). For preferences use the "
                        "certified preference graph (certirank rank FILE) or the Bradley-Terry baselines "
                        "(certirank baseline bt)", source=source)
    if "replicate" in table.columns and table["replicate"].nunique() > 1:
        raise DataError(f"the table has several replicates per (policy, env); {who} pairs one trial of each "
                        "policy per environment (keep one replicate, or use certirank leaderboard for repeated "
                        "runs)", source=source)
    if "weight" in table.columns:
        w = table["weight"].to_numpy(dtype=float)
        if w.size and not np.allclose(w, w[0]):
            raise DataError(f"the 'weight' column gives items different weights, which {who} cannot use: it "
                            "compares policies trial by trial, each trial counting once (drop the column, or use "
                            "certirank leaderboard, which weights items)", source=source, column="weight")


def to_wide(table: pd.DataFrame) -> pd.DataFrame:
    """Wide per-trial view: rows = env (in recorded order), columns = policies, NaN = not run.

    Requires a single replicate per (policy, env); tables without env are laid out by each policy's own
    recorded order (row j = the j-th trial of every policy).
    """
    t = table.sort_values("order", kind="stable")
    if t["env"].isna().any():
        t = t.assign(env=t.groupby("policy").cumcount().astype(str))
    if t.duplicated(["policy", "env"]).any():
        raise DataError("the table has several replicates per (policy, env); a wide view needs one",
                        source=t.attrs.get("source"))
    envs = list(dict.fromkeys(t["env"]))
    wide = t.pivot(index="env", columns="policy", values="score")
    return wide.reindex(index=envs, columns=policies(table))


def dropped_notes(table: pd.DataFrame) -> list[str]:
    """Sentences about rows an importer left out (from ``table.attrs``), for the methods' outputs."""
    notes = []
    k = int(table.attrs.get("skipped_errors") or 0)
    if k:
        notes.append(f"{k} sample{'s' if k != 1 else ''} that ended in an error (no score) left out of the log(s).")
    return notes
