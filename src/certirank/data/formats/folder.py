"""A folder of per-policy files: one CSV/TSV per policy, the policy named by the file stem.

Typical sheets exported by hand look like ``env,trial #,success,avg,notes``: the environment label repeats
across its trials, a summary column (``avg``) and free-text notes sit beside the scores, and header cells
can be blank or repeated. Options name the columns that matter:

* ``score=COLUMN``: the outcome (number, or True/False / success/failure words); default a column named
  ``score`` or ``success``;
* ``trial=COLUMN``: the trial index; with it, environment labels may repeat (the observation is
  ``(env, trial)``); default a column named ``trial``, ``trial #``, ``trial_id`` or ``episode``;
* ``env=COLUMN``: the environment label; default a column named ``env``, ``environment`` or ``task``.

Every other column is ignored, and the notes say which. Rows whose score cell is blank (summary or
unfinished rows) are dropped and counted in the notes, as are summary rows (``Mean``, ``Total`` …) after the
last trial; a summary row between trials is an error. Trials are matched across policies by ``(env, trial)``
(or by trial / env alone when only one is given, by row position when neither is), so every file must have the
same key columns: a file without the environment or trial column the others have (a misspelled header), or
whose labels meet no other file's, is an error naming the file and the column — that policy could never be
compared. A file whose every score is blank is left out with a warning.
"""

from __future__ import annotations

import csv
import re
import warnings
from pathlib import Path
from typing import Any

import pandas as pd

from ...errors import CertirankWarning, DataError
from ..files import SUMMARY_LABELS, semicolon_error
from ..pairing import near_miss, unshared
from ._common import finish, is_blank, label, outcome

_SUFFIXES = {".csv": ",", ".tsv": "\t", ".tab": "\t"}
_SCORE_NAMES = ("score", "success", "succeeded", "outcome", "reward")
_TRIAL_NAMES = ("trial", "trial #", "trial#", "trial_id", "trial id", "trial no", "episode", "episode_ix",
                "episode_id", "episode #", "rollout", "run", "seed")
_ENV_NAMES = ("env", "environment", "task", "scene", "item")


def files(p: Path) -> list[Path]:
    if not p.is_dir():
        return []
    return sorted(f for f in p.iterdir() if f.is_file() and f.suffix.lower() in _SUFFIXES
                  and not f.name.startswith("."))


def detect(p: Path) -> bool:
    return len(files(p)) >= 1


def _header(raw: list[str]) -> tuple[list[str], list[str]]:
    """Unique column names: blank cells -> "(blank k)", repeats -> "name (2)"; and notes on what changed."""
    names: list[str] = []
    changed: list[str] = []
    for k, h in enumerate(raw):
        name = h.strip() or f"(blank {k + 1})"
        if not h.strip():
            changed.append(f"column {k + 1} has no name")
        base, j = name, 2
        while name in names:
            name = f"{base} ({j})"
            j += 1
        if name != base and h.strip():
            changed.append(f"{base!r} repeats (column {k + 1} read as {name!r})")
        names.append(name)
    return names, changed


def _pick(names: list[str], given: str | None, defaults: tuple[str, ...], what: str, src: str,
          required: bool) -> int | None:
    if given is not None:
        if given not in names:
            raise DataError(f"no column {given!r} ({what}=); columns: {', '.join(map(repr, names))}", source=src)
        return names.index(given)
    for k, n in enumerate(names):
        if n.strip().lower() in defaults:
            return k
    if required:
        raise DataError(f"which column holds the {what}? none is named {' / '.join(defaults[:2])}; pass "
                        f"--read-option {what}=COLUMN (columns: {', '.join(map(repr, names))})", source=src)
    return None


def read(p: Path, *, score_range: tuple[float, float] | None = None, sep: str | None = None,
         trial: str | None = None, score: str | None = None, env: str | None = None) -> pd.DataFrame:
    source = str(p)
    if not p.is_dir():
        raise DataError("the folder format reads a folder of per-policy CSV/TSV files; this is a file", source=source)
    fs = files(p)
    if not fs:
        raise DataError("no .csv or .tsv files in the folder (expected one file per policy, named after it)",
                        source=source)
    stems = [f.stem for f in fs]
    dup = {s for s in stems if stems.count(s) > 1}
    if dup:
        raise DataError(f"two files name the same policy {sorted(dup)[0]!r}; keep one file per policy", source=source)
    rows: dict[str, list[Any]] = {"policy": [], "env": [], "score": [], "trial_label": [], "env_label": []}
    where: list[tuple[Any, Any]] = []
    notes: list[str] = []
    ignored: set[str] = set()
    blank_rows = 0
    used: dict[str, str] = {}
    header_notes: dict[str, list[str]] = {}
    keys_of: dict[Path, dict[str, str | None]] = {}  # file -> {"env": column or None, "trial": ...}
    sheets = []
    for f in fs:  # every header first: a file keyed differently is named before any row of it is read
        table = _sheet(f, sep)
        names, changed = _header(table[0])
        for c in changed:
            header_notes.setdefault(c, []).append(f.name)
        s_k = _pick(names, score, _SCORE_NAMES, "score", str(f), True)
        t_k = _pick(names, trial, _TRIAL_NAMES, "trial", str(f), False)
        e_k = _pick(names, env, _ENV_NAMES, "env", str(f), False)
        keys_of[f] = {"env": None if e_k is None else names[e_k], "trial": None if t_k is None else names[t_k]}
        sheets.append((f, table, names, s_k, t_k, e_k))
    _check_key_columns(keys_of, {f: names for f, _, names, *_ in sheets}, given={"env": env, "trial": trial})
    summary_rows: list[str] = []
    for f, table, names, s_k, t_k, e_k in sheets:
        fsrc = str(f)
        used.update({"score": names[s_k]})
        if t_k is not None:
            used["trial"] = names[t_k]
        if e_k is not None:
            used["env"] = names[e_k]
        ignored.update(n for k, n in enumerate(names) if k not in (s_k, t_k, e_k))
        seen: dict[str, int] = {}
        last = _last_trial_line(table, s_k)
        for n, cells in enumerate(table[1:], start=2):
            if not any(c.strip() for c in cells):
                continue
            first = next((c.strip() for c in cells if c.strip()), "")
            if first.lower() in SUMMARY_LABELS and n > last:
                summary_rows.append(f"{f.name} line {n} {first!r}")
                continue
            if len(cells) > len(names) and any(c.strip() for c in cells[len(names):]):
                raise DataError(f"line has {len(cells)} fields but the header has {len(names)} columns",
                                source=fsrc, row=n)
            cells = cells + [""] * (len(names) - len(cells))
            raw = cells[s_k]
            if is_blank(raw):
                blank_rows += 1
                continue
            # with ';' separators, spreadsheets write decimal commas (0,5)
            v = outcome(raw.replace(",", ".") if sep == ";" and re.fullmatch(r"\s*[+-]?\d+,\d+\s*", raw) else raw)
            if v is None:
                raise DataError(f"{raw!r} is not a score (expected a number or True/False)", source=fsrc, row=n,
                                column=names[s_k])
            t_lab = label(cells[t_k]) if t_k is not None else ""
            e_lab = label(cells[e_k]) if e_k is not None else ""
            if first.lower() in SUMMARY_LABELS:
                raise DataError(f"{first!r} looks like a summary row, not a trial, and trials follow it; delete it or "
                                "blank its score", source=fsrc, row=n)
            if t_k is not None and not t_lab:
                raise DataError("empty trial cell (the trial column names each trial)", source=fsrc, row=n,
                                column=names[t_k])
            if e_k is not None and not e_lab:
                raise DataError("empty environment label", source=fsrc, row=n, column=names[e_k])
            key = f"{e_lab}#{t_lab}" if (t_k is not None and e_k is not None) else (t_lab or e_lab or str(n - 1))
            if key in seen:
                if t_k is None:
                    raise DataError(f"environment label {e_lab!r} repeats (first on line {seen[key]}); name the trial "
                                    "column with --read-option trial=COLUMN so each row is one trial", source=fsrc,
                                    row=n, column=names[e_k] if e_k is not None else None)
                raise DataError(f"trial {t_lab!r}{' in ' + repr(e_lab) if e_lab else ''} appears twice (first on line "
                                f"{seen[key]})", source=fsrc, row=n)
            seen[key] = n
            rows["policy"].append(f.stem)
            rows["env"].append(key)
            rows["score"].append(v)
            rows["trial_label"].append(t_lab)
            rows["env_label"].append(e_lab)
            where.append((f"{f.name}, line {n}", names[s_k]))
    _check_shared(rows, fs, keys_of)
    head = [f"folder: {len(fs)} policies from file names; score from column {used['score']!r}"]
    if "trial" in used:
        head.append(f"trial from {used['trial']!r}")
    if "env" in used:
        head.append(f"environment from {used['env']!r}")
    notes.insert(0, ", ".join(head) + "; trials matched across policies by "
                 + ("(environment, trial)" if "trial" in used and "env" in used else
                    "trial" if "trial" in used else "environment" if "env" in used else "row position"))
    for c, where_f in header_notes.items():
        notes.append(f"folder: {c} in {', '.join(where_f) if len(where_f) < len(fs) else 'every file'}")
    if ignored:
        notes.append(f"folder: column(s) ignored: {', '.join(sorted(map(repr, ignored)))}")
    if blank_rows:
        notes.append(f"folder: {blank_rows} row(s) with a blank score dropped (summary or unfinished rows)")
    if summary_rows:
        notes.append(f"folder: summary row(s) after the last trial dropped: {', '.join(summary_rows[:5])}"
                     + (f" and {len(summary_rows) - 5} more" if len(summary_rows) > 5 else ""))
    return finish(rows, where, source=source, score_range=score_range, notes=notes)


def _last_trial_line(table: list[list[str]], s_k: int) -> int:
    """Line number of the last row that is a trial (a score, and not a summary label first), 0 if none."""
    last = 0
    for n, cells in enumerate(table[1:], start=2):
        first = next((c.strip() for c in cells if c.strip()), "")
        if first and first.lower() not in SUMMARY_LABELS and s_k < len(cells) and not is_blank(cells[s_k]):
            last = n
    return last


def _sheet(f: Path, sep: str | None) -> list[list[str]]:
    """The rows of one per-policy file (leading blank lines dropped); one located error if it cannot be read."""
    try:
        with open(f, newline="", encoding="utf-8-sig") as fh:
            table = list(csv.reader(fh, delimiter=sep or _SUFFIXES[f.suffix.lower()]))
    except UnicodeDecodeError:
        raise DataError("not a UTF-8 text file (expected CSV text)", source=str(f)) from None
    except csv.Error as exc:
        raise DataError(f"malformed CSV ({exc})", source=str(f)) from None
    while table and not any(c.strip() for c in table[0]):
        table.pop(0)
    if not table:
        raise DataError("the file is empty (expected a header line and one row per trial)", source=str(f))
    if sep is None and len(table[0]) == 1 and ";" in table[0][0]:
        raise semicolon_error(str(f))
    return table


def _check_key_columns(keys_of: dict[Path, dict[str, str | None]], columns_of: dict[Path, list[str]],
                       given: dict[str, str | None]) -> None:
    """Every file must have the key columns the others have: without them its trials match no other file's."""
    for role, what in (("env", "environment"), ("trial", "trial")):
        if given[role] is not None:  # named by the user: every file was required to have it
            continue
        having = {f: k[role] for f, k in keys_of.items() if k[role] is not None}
        lacking = [f for f in keys_of if f not in having]
        if not having or not lacking:
            continue
        f = lacking[0]
        names = sorted(set(having.values()))
        miss = near_miss(columns_of[f], (*names, *(_ENV_NAMES if role == "env" else _TRIAL_NAMES)))
        hint = (f"column {miss[0]!r} looks like a misspelling of {miss[1]!r}: rename it" if miss else
                f"add that column, or name the key with --read-option {role}=COLUMN")
        others = [g.name for g in having][:3]
        raise DataError(f"no {what} column, but {', '.join(others)}{' …' if len(having) > 3 else ''} "
                        f"{'has' if len(having) == 1 else 'have'} one ({', '.join(map(repr, names))}); trials are "
                        f"matched across files by it, so policy {f.stem!r} would never be compared; {hint}",
                        source=str(f), column=miss[0] if miss else None)


def _check_shared(rows: dict[str, list[Any]], fs: list[Path], keys_of: dict[Path, dict[str, str | None]]) -> None:
    """A file whose trial keys meet no other file's is an error (never compared); one with no trials is warned."""
    keys: dict[str, list[str]] = {}
    for pol, key in zip(rows["policy"], rows["env"]):
        keys.setdefault(pol, []).append(key)
    by_stem = {f.stem: f for f in fs}
    empty = [f.name for f in fs if f.stem not in keys]
    if empty and len(empty) < len(fs):
        left = "that policy is" if len(empty) == 1 else "those policies are"
        warnings.warn(f"{', '.join(empty[:5])}: every score cell is blank; {left} left out", CertirankWarning,
                      stacklevel=3)
    lonely = unshared(keys)
    if lonely:
        f = by_stem[lonely[0]]
        cols = [c for c in (keys_of[f]["env"], keys_of[f]["trial"]) if c is not None]
        mine = list(dict.fromkeys(k.rstrip("#") for k in keys[lonely[0]]))[:3]
        other = next(k for p, ks in keys.items() if p != lonely[0] for k in ks)
        raise DataError(f"none of its trial labels ({', '.join(map(repr, mine))} …) appears in another file (they have "
                        f"{other.rstrip('#')!r} …); trials are matched across files by "
                        f"{' and '.join(map(repr, cols)) or 'row position'}, so policy {lonely[0]!r} would never be "
                        "compared; check those labels", source=str(f), column=cols[0] if len(cols) == 1 else None)
