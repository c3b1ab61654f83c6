"""Outcome-list cells: one row per (group…, policy) and one cell listing every rollout's outcome.

The layout robot labs publish with sequential A/B tests::

    Panel,Task,Method,Success/Failure,Notes
    1,stack cups,pi0,"[False, True, True]",
    1,stack cups,ours,"[True, True, False, True]",

Each list element becomes one observation. Rollout ``i`` of every policy in the same group (the key
columns, by default every column left of the policy column) gets the environment label
``"<key values>#i"``, so the k-th rollouts of two methods are compared with each other (pairing by
order within the group); the key columns and ``rollout`` are kept, for ``--group-by``.

The file is parsed line by line with the list cell cut out first: stray quote characters (``"`` or ``'``)
and spaces next to or inside a list (export artefacts) are ignored and said so with the line, instead of
swallowing the rest of the file; an error about a cell quotes the cell as the file has it. A policy that shares
no group with any other policy could never be compared: that is an error naming it and the group columns.
"""

from __future__ import annotations

import ast
import csv
import json
import re
import warnings
from pathlib import Path
from typing import Any

import pandas as pd

from ...errors import CertirankWarning, DataError
from ..files import POLICY_COLUMN_NAMES, semicolon_error
from ..pairing import unshared
from ._common import finish, is_blank, outcome

# spaces only around the brackets: a tab next to a list is a TSV separator
_LIST_RE = re.compile(r"[\"']*[ ]*\[([^\[\]]*)\][ ]*[\"']*")
_PLACEHOLDER = re.compile(r"\x00(\d+)\x00")
_SUFFIXES = {".csv": ",", ".tsv": "\t", ".tab": "\t", ".txt": None}
# names validate_table gives a meaning to: key columns called so are kept under "key:<name>"
_RESERVED = frozenset({"policy", "model", "env", "item", "task", "trial", "test_case", "score", "replicate",
                       "order", "block", "weight", "rollout"})


def _lines(p: Path) -> list[str]:
    try:
        text = p.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise DataError("not a UTF-8 text file (expected CSV text)", source=str(p)) from None
    return text.splitlines()


def detect(p: Path) -> bool:
    if not p.is_file() or p.suffix.lower() not in _SUFFIXES:
        return False
    try:
        with open(p, encoding="utf-8-sig") as fh:
            head = [fh.readline() for _ in range(6)]
    except (OSError, UnicodeDecodeError):
        return False
    data = [h for h in head[1:] if h.strip()]
    # most rows must hold a closed list; a broken row then gets its own error instead of a CSV parse failure
    hits = sum(bool(_LIST_RE.search(h)) for h in data)
    return bool(data) and 2 * hits > len(data) and "score" not in head[0].lower().split(",")


def _sep(p: Path, header: str, sep: str | None) -> str:
    if sep:
        return sep
    guess = _SUFFIXES.get(p.suffix.lower())
    if guess == "," and ";" in header and "," not in _LIST_RE.sub("", header):
        raise semicolon_error(str(p))
    if guess:
        return guess
    return "\t" if header.count("\t") > header.count(",") else ","


def parse_list(text: str) -> tuple[list[Any], bool]:
    """Elements of a list cell (JSON, Python literal, or loose ``[a, b]``) and whether it needed tidying."""
    body = text.strip()
    for parse in (json.loads, ast.literal_eval):
        try:
            val = parse(body)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(val, (list, tuple)):
            return list(val), False
    inner = body.strip().strip("\"'").strip()
    if inner.startswith("["):
        inner = inner[1:]
    if inner.endswith("]"):
        inner = inner[:-1]
    items = [t.strip().strip("\"'").strip() for t in re.split(r"[,;\s]+", inner)]
    return [t for t in items if t], True


def read(p: Path, *, score_range: tuple[float, float] | None = None, sep: str | None = None,
         policy: str | None = None, outcomes: str | None = None, keys: str | None = None) -> pd.DataFrame:
    source = str(p)
    if p.is_dir():
        raise DataError("is a folder; the outcome-lists format reads one CSV/TSV file", source=source)
    lines = _lines(p)
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        raise DataError("the file is empty (expected a header line and rows with outcome lists)", source=source)
    delim = _sep(p, lines[0], sep)
    header = [h.strip() for h in next(csv.reader([lines[0]], delimiter=delim))]
    if any(_LIST_RE.fullmatch(h) for h in header):
        raise DataError("the first line holds an outcome list; expected a header line naming the columns",
                        source=source, row=1)
    for k, h in enumerate(header):
        if h and h in header[:k]:
            raise DataError("column name appears twice in the header", source=source, row=1, column=h)

    records: list[tuple[int, list[str], dict[int, str]]] = []  # (line, cells, {column index: list text})
    tidied: list[int] = []
    for n, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        lists: list[str] = []
        texts: list[str] = []  # each list as the file writes it, to quote a cell in a message

        def cut(m: re.Match[str]) -> str:
            inner = m.group(1)
            around = m.group(0).replace(f"[{inner}]", "", 1)
            if around.count('"') == 2 and "'" not in around and '"' not in inner.replace('""', ""):
                inner = inner.replace('""', '"')  # a properly quoted CSV cell: its quotes were doubled
            elif around.count('"') not in (0, 2) or "'" in around or '"' in inner:
                tidied.append(n)
            lists.append("[" + inner + "]")
            texts.append(m.group(0).strip())
            return f"\x00{len(lists) - 1}\x00"

        def shown(cell: str) -> str:
            return _PLACEHOLDER.sub(lambda m: texts[int(m.group(1))], cell).strip()

        rest = _LIST_RE.sub(cut, line)
        if "[" in rest:
            frag = shown(rest[rest.index("["):])
            raise DataError(f"the outcome list {frag[:40]!r} is not closed with ']' (truncated row?)", source=source,
                            row=n)
        if '"' in rest.replace('""', "") and rest.count('"') % 2:
            tidied.append(n)
            rest = rest.replace('"', "")
        cells = next(csv.reader([rest], delimiter=delim)) if rest else []
        if not lists and not any(c.strip() for c in cells):
            continue  # a row of empty cells: spreadsheet padding
        if len(cells) > len(header) and all(not c.strip() for c in cells[len(header):]):
            cells = cells[:len(header)]
        if len(cells) > len(header):
            raise DataError(f"malformed line: {len(cells)} fields but the header has {len(header)} columns",
                            source=source, row=n)
        cells += [""] * (len(header) - len(cells))
        found = {}
        for k, c in enumerate(cells):
            m = re.fullmatch(r"\s*\x00(\d+)\x00\s*", c)
            if m:
                found[k] = lists[int(m.group(1))]
                cells[k] = ""
            else:
                cells[k] = shown(c) if "\x00" in c else c
        records.append((n, cells, found))
    if not records:
        raise DataError("no data rows after the header", source=source)

    list_cols = sorted({k for _, _, f in records for k in f})
    if outcomes is not None:
        if outcomes not in header:
            raise DataError(f"no column {outcomes!r} (outcomes=); columns: {', '.join(map(repr, header))}",
                            source=source)
        out_k = header.index(outcomes)
    elif not list_cols:
        raise DataError("no cell holds an outcome list such as [True, False, ...]; expected one column of lists",
                        source=source)
    elif len(list_cols) > 1:
        names = ", ".join(repr(header[k]) for k in list_cols)
        raise DataError(f"several columns hold lists ({names}); choose one with --read-option outcomes=COLUMN",
                        source=source)
    else:
        out_k = list_cols[0]
    if policy is not None:
        if policy not in header:
            raise DataError(f"no column {policy!r} (policy=); columns: {', '.join(map(repr, header))}", source=source)
        pol_k = header.index(policy)
    else:
        cands = [k for k, h in enumerate(header) if h.lower() in POLICY_COLUMN_NAMES]
        if not cands:
            raise DataError("no policy column (expected one named Method, Policy or Model; or pass "
                            "--read-option policy=COLUMN)", source=source)
        pol_k = cands[0]
    if keys is not None:
        key_names = [k.strip() for k in keys.split(",") if k.strip()]
        for k in key_names:
            if k not in header:
                raise DataError(f"no column {k!r} (keys=); columns: {', '.join(map(repr, header))}", source=source)
        key_k = [header.index(k) for k in key_names]
    else:
        key_k = [k for k in range(pol_k) if k != out_k and header[k]]
    ignored = [header[k] or f"(blank {k + 1})" for k in range(len(header)) if k not in key_k + [pol_k, out_k]]
    key_cols = [f"key:{header[k]}" if header[k] in _RESERVED else header[k] for k in key_k]

    rows: dict[str, list[Any]] = {"policy": [], "env": [], "score": [], "rollout": []}
    for c in key_cols:
        rows[c] = []
    where: list[tuple[Any, Any]] = []
    seen: dict[tuple[str, ...], int] = {}
    groups: dict[str, dict[str, int]] = {}  # policy -> {group: first line}, rollouts listed only
    for n, cells, found in records:
        text = found.get(out_k)
        if text is None:
            if "[" in cells[out_k] and "]" not in cells[out_k]:
                raise DataError(f"the outcome list {cells[out_k].strip()!r} is not closed with ']' (truncated row?)",
                                source=source, row=n, column=header[out_k])
            if is_blank(cells[out_k]):
                raise DataError("the outcome cell is empty; expected a list such as [True, False, ...]",
                                source=source, row=n, column=header[out_k])
            raise DataError(f"{cells[out_k]!r} is not an outcome list; expected e.g. [True, False, ...]",
                            source=source, row=n, column=header[out_k])
        items, loose = parse_list(text)
        if loose:
            tidied.append(n)
        name = cells[pol_k].strip()
        if not name:
            raise DataError("empty policy name", source=source, row=n, column=header[pol_k])
        kv = tuple(cells[k].strip() for k in key_k)
        ident = kv + (name,)
        if ident in seen:
            raise DataError(f"policy {name!r} has a second row for the same group (first at line {seen[ident]}); "
                            "each (group, policy) lists its rollouts in one row", source=source, row=n)
        seen[ident] = n
        prefix = "/".join(kv)
        if items:
            groups.setdefault(name, {}).setdefault(prefix, n)
        for i, item in enumerate(items):
            v = outcome(item)
            if v is None:
                raise DataError(f"rollout {i + 1} of the list is {item!r}; expected True/False or a number",
                                source=source, row=n, column=header[out_k])
            rows["policy"].append(name)
            rows["env"].append(f"{prefix}#{i}" if prefix else str(i))
            rows["score"].append(v)
            rows["rollout"].append(i)
            for c, val in zip(key_cols, kv):
                rows[c].append(val)
            where.append((n, header[out_k]))
    _check_groups(groups, {name for _, cells, _ in records if (name := cells[pol_k].strip())},
                  [header[k] for k in key_k], source)
    notes = [f"outcome-lists: outcomes from column {header[out_k]!r}, policy from {header[pol_k]!r}, groups from "
             f"{', '.join(repr(header[k]) for k in key_k) or 'none'}; rollout i of each policy in a group is "
             "compared with rollout i of the others (pairing by order)"]
    if ignored:
        notes.append(f"outcome-lists: column(s) {', '.join(map(repr, ignored))} ignored")
    if tidied:
        lines_t = sorted(set(tidied))
        notes.append(f"outcome-lists: stray quote characters in the list cell ignored on line(s) "
                     f"{', '.join(map(str, lines_t[:5]))}{' …' if len(lines_t) > 5 else ''}")
    if any(c.startswith("key:") for c in key_cols):
        notes.append("outcome-lists: key columns whose names certirank reserves are kept as 'key:<name>'")
    return finish(rows, where, source=source, score_range=score_range, notes=notes)


def _check_groups(groups: dict[str, dict[str, int]], named: set[str], keys: list[str], source: str) -> None:
    """Refuse a policy that no other policy meets in any group (it could never be compared); warn about a policy
    whose every list is empty (it is left out, as a wide table's empty column is)."""
    lonely = unshared(groups)
    if lonely:
        name = lonely[0]
        where = ", ".join(repr(g) for g in list(groups[name])[:3])
        raise DataError(f"policy {name!r} shares no group with any other policy (no other policy has rollouts in "
                        f"{where}; groups from {', '.join(map(repr, keys))}), so it could never be compared; check the "
                        "spelling of those cells, or choose the group columns with --read-option keys=COLUMN[,COLUMN]",
                        source=source, row=min(groups[name].values()))
    empty = sorted(named - set(groups))
    if empty:
        warnings.warn(f"{source}: every outcome list of {', '.join(map(repr, empty[:5]))} is empty; "
                      f"{'that policy is' if len(empty) == 1 else 'those policies are'} left out", CertirankWarning,
                      stacklevel=3)
