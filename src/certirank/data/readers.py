"""Reading evaluation data from files, and writing it back.

`load` is the single entry point: it works out the file type (CSV/TSV, Parquet, JSONL/JSON, an
lm-evaluation-harness samples folder, an inspect_ai log) and the layout (long, wide per-trial,
preferences), turns the content into a raw frame and hands it to `validate_table` (or, for
preferences, `validate_preferences`), so every path into certirank produces the same errors.

Layouts (spec 00, "Data formats"):

* **long**: columns ``policy`` (or ``model``) and ``score``, optional ``env`` (aliases ``item``, ``task``,
  and for files also ``trial`` and ``test_case``), ``replicate``, ``order``, ``block``, ``weight``;
* **wide** per-trial: one numeric column per policy, one row per trial/environment, blank = not run;
  detected when there is no policy/model/score column and every column is numeric (an optional label
  column named ``env``, ``environment``, ``item``, ``trial`` or ``test_case`` names the rows);
* **preferences**: ``A,B,preference`` (0 = A preferred, 1 = B preferred, 0.5 = tie), ``model_a,model_b,winner``
  (winner in {model_a, model_b, tie} or one of the two names) or the canonical ``policy_a,policy_b,preference``.

Row numbers in messages are line numbers for CSV/TSV/JSONL files (CSV header = line 1) and 1-based
record numbers for Parquet and JSON arrays.
"""

from __future__ import annotations

import csv
import json
import math
import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._escape import csv_cell, csv_uncell
from .._io import atomic_path
from .._validate import check_choice
from .._compat import keyword_only
from ..errors import DataError, ParameterError
from . import formats as _formats
from .table import ALIASES, validate_table

__all__ = ["FORMATS", "load", "load_preferences", "validate_preferences", "write_table", "detect_layout"]

LAYOUTS = ("long", "wide", "preferences")
FILE_TYPES = ("csv", "tsv", "parquet", "jsonl", "json")
IMPORTERS = ("lm-eval", "inspect")
FORMATS = LAYOUTS + FILE_TYPES + IMPORTERS + _formats.NAMES

PREFERENCE_COLUMNS = ("policy_a", "policy_b", "preference")

# Extra env aliases accepted in files only: spec 03 §9.1 names long replay data (policy, trial, score) and
# the RRPS matrix is `test_case,policy,score`. validate_table keeps its own alias list unchanged.
_FILE_ENV_ALIASES = ("trial", "test_case")
# Label columns allowed next to the policy columns of a wide table.
_WIDE_ID_COLUMNS = ("env", "environment", "item", "trial", "test_case")
# Cells of a wide table that mean "not run".
_BLANKS = frozenset({"", "nan", "na", "n/a", "null", "none"})
_COMPRESSIONS = (".gz", ".bz2", ".xz", ".zst", ".zip")
_SUFFIX_TYPES = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".parquet": "parquet", ".pq": "parquet",
                 ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json"}
_TIE_LABELS = frozenset({"tie", "tie (bothbad)", "both", "draw"})

# Options each reader understands; anything else is a ParameterError rather than silently ignored.
_OPTIONS = {
    "long": {"sep"}, "wide": {"sep"}, "preferences": {"sep", "policies"},
    "lm-eval": {"metric", "filter", "task"}, "inspect": {"scorer", "task"},
}


# ---------------------------------------------------------------------------------------------------
# public entry points

@keyword_only(("format",))
def load(path: str | os.PathLike[str] | pd.DataFrame, *, format: str | None = None,
         score_range: tuple[float, float] | None = None, **options: Any) -> pd.DataFrame:
    """Read evaluation data and return the validated table.

    Parameters
    ----------
    path:
        A file (CSV/TSV, Parquet, JSONL, JSON, inspect_ai ``.eval``/``.json`` log, lm-eval
        ``samples_<task>_<date>.jsonl``), a folder (lm-eval ``--output_path`` or one model's folder in it;
        a folder of inspect_ai logs), or a DataFrame.
    format:
        Force a layout (``long``, ``wide``, ``preferences``), a file type (``csv``, ``tsv``, ``parquet``,
        ``jsonl``, ``json``; the layout is then still detected), an importer (``lm-eval``, ``inspect``) or a
        format reader of `certirank.data.formats` (``outcome-lists``, ``folder``, ``helm``, ``arena``,
        ``lerobot``, ``eee``, ``openai-evals``; see docs/data-formats.md).
        Default: detected from the extension, the columns and the folder layout.
    score_range:
        ``(lo, hi)``: scores are rescaled to [0, 1]; without it, scores outside [0, 1] are an error.
    **options:
        ``sep`` (CSV delimiter); ``policies`` (preferences: allowed names); ``metric``, ``filter``,
        ``task`` (lm-eval); ``scorer``, ``task`` (inspect).

    Returns
    -------
    pandas.DataFrame
        The canonical long table of `validate_table` (``policy, env, replicate, score, order`` …), or for
        preference data the table of `validate_preferences`. ``attrs["format"]`` holds the detected
        layout or importer, ``attrs["source"]`` the path.

    Raises
    ------
    DataError
        Missing path, unreadable or malformed content; the message names the file, row and column.
    ParameterError
        Unknown `format` or option.
    """
    fmt = None if format is None else check_choice("format", format, FORMATS)
    if isinstance(path, pd.DataFrame):
        layout = fmt if fmt in LAYOUTS else None
        # a table read earlier keeps naming its file in later messages
        return _from_frame(path, layout, source=path.attrs.get("source"), score_range=score_range, row_offset=0,
                           file_type="dataframe", options=options)
    p = _existing_path(path)
    source = str(path)

    if fmt in _formats.NAMES:
        return _formats.read(fmt, p, score_range=score_range, options=options)
    kind = fmt if fmt in IMPORTERS else None
    if kind is None and fmt not in LAYOUTS + FILE_TYPES:
        kind = _detect_importer(p)
        found = _formats.detect(p) if kind is None else None
        if found is not None:  # the issue-16 readers (data/formats/), detected only where unambiguous
            return _formats.read(found, p, score_range=score_range, options=options)
    if kind is not None:
        _check_options(kind, options)
        from . import importers
        reader = importers.load_lm_eval if kind == "lm-eval" else importers.load_inspect
        return reader(p, score_range=score_range, **options)

    if p.is_dir():
        if any(p.glob("results_*.json")) or any(p.glob("*/results_*.json")):
            raise DataError("holds lm-eval results_*.json but no samples_*.jsonl; rerun lm_eval with --log_samples "
                            "(certirank needs one score per item)", source=source)
        raise DataError("is a folder, but not an lm-evaluation-harness --log_samples folder (expected "
                        "<out>/<model>/samples_<task>_<date>.jsonl) nor a folder of inspect_ai logs (*.eval); "
                        "pass a data file instead", source=source)
    file_type = fmt if fmt in FILE_TYPES else _file_type(p)
    layout = fmt if fmt in LAYOUTS else None
    try:
        frame, row_offset = read_frame(p, file_type, sep=options.pop("sep", None))
    except PermissionError:
        raise DataError("cannot read the file (permission denied)", source=source) from None
    return _from_frame(frame, layout, source=source, score_range=score_range, row_offset=row_offset,
                       file_type=file_type, options=options)


def _existing_path(path: Any) -> Path:
    """`path` as a Path that exists; anything else is a DataError (never a bare TypeError from Path(None))."""
    if not isinstance(path, (str, os.PathLike)):
        raise DataError(f"expected a file path or a pandas DataFrame, got {type(path).__name__}")
    p = Path(path)
    if not p.exists():
        raise DataError("no such file or folder", source=str(path))
    return p


def load_preferences(path: str | os.PathLike[str] | pd.DataFrame, format: str | None = None, *,
                     policies: Sequence[str] | None = None, **options: Any) -> pd.DataFrame:
    """Read a preference / battle table and return it validated (see `validate_preferences`).

    `format` may name the file type (``csv``, ``tsv``, ``parquet``, ``jsonl``, ``json``); the only layout
    accepted is ``preferences``.
    """
    fmt = None if format is None else check_choice("format", format, ("preferences",) + FILE_TYPES)
    if isinstance(path, pd.DataFrame):
        return validate_preferences(path, policies=policies, row_offset=0)
    p = _existing_path(path)
    source = str(path)
    if p.is_dir():
        raise DataError("is a folder; expected a preference table file (A,B,preference or "
                        "model_a,model_b,winner)", source=source)
    sep = options.pop("sep", None)
    if options:
        raise ParameterError(f"unknown option(s) for preference tables: {', '.join(sorted(options))} "
                             "(valid: policies, sep)")
    file_type = fmt if fmt in FILE_TYPES else _file_type(p)
    frame, row_offset = read_frame(p, file_type, sep=sep)
    table = validate_preferences(frame, policies=policies, source=source, row_offset=row_offset)
    table.attrs["file_type"] = file_type
    return table


def validate_preferences(frame: pd.DataFrame, policies: Sequence[str] | None = None, source: str | None = None,
                         *, row_offset: int = 2) -> pd.DataFrame:
    """Check and canonicalise a preference table; the one validation point for pairwise comparisons.

    Accepted layouts: ``A,B,preference`` or ``policy_a,policy_b,preference`` (preference 0 = A preferred,
    1 = B preferred, 0.5 = tie) and ``model_a,model_b,winner`` (winner ``model_a``, ``model_b``, ``tie``
    (also ``tie (bothbad)``), or the name of one of the two models).

    Parameters
    ----------
    frame:
        The raw table.
    policies:
        If given, every compared policy must be in this list.
    source:
        Name used in error messages.
    row_offset:
        Added to 0-based row positions in messages (2 = CSV line numbers).

    Returns
    -------
    pandas.DataFrame
        Columns ``policy_a``, ``policy_b`` (str) and ``preference`` (float64 in {0, 0.5, 1}), in file order;
        ``attrs["format"] == "preferences"``.
    """
    if not isinstance(frame, pd.DataFrame):
        raise DataError(f"expected a table (pandas DataFrame), got {type(frame).__name__}", source=source)
    cols = _preference_columns(frame.columns)
    if cols is None:
        found = ", ".join(repr(str(c)) for c in frame.columns) or "none"
        raise DataError(f"not a preference table: expected columns A,B,preference or model_a,model_b,winner; "
                        f"found {found}", source=source)
    a_col, b_col, v_col = cols
    if len(frame) == 0:
        raise DataError("the preference table is empty (no comparisons)", source=source)
    df = frame.reset_index(drop=True)
    names = {}
    for col in (a_col, b_col):
        raw = df[col]
        text = raw.map(lambda v: "" if _is_missing(v) else str(v).strip())
        bad = np.flatnonzero((text == "").to_numpy())
        if len(bad):
            raise DataError("empty policy name; every comparison names both sides", source=source,
                            row=int(bad[0]) + row_offset, column=str(col))
        names[col] = text.to_numpy(dtype=object)
    a, b = names[a_col], names[b_col]
    same = np.flatnonzero(a == b)
    if len(same):
        i = int(same[0])
        raise DataError(f"policy {a[i]!r} is compared with itself; a comparison needs two different policies",
                        source=source, row=i + row_offset)

    raw = df[v_col]
    pref = np.empty(len(df), dtype="float64")
    if v_col.lower() == "winner":
        for i, w in enumerate(raw):
            label = "" if _is_missing(w) else str(w).strip()
            key = label.lower()
            if key in ("model_a", "a"):
                pref[i] = 0.0
            elif key in ("model_b", "b"):
                pref[i] = 1.0
            elif key in _TIE_LABELS:
                pref[i] = 0.5
            elif label == a[i]:
                pref[i] = 0.0
            elif label == b[i]:
                pref[i] = 1.0
            else:
                raise DataError(f"winner {label!r} is neither side of this comparison ({a[i]!r} vs {b[i]!r}); "
                                "expected 'model_a', 'model_b', 'tie' or one of the two names",
                                source=source, row=i + row_offset, column=str(v_col))
    else:
        num = pd.to_numeric(raw, errors="coerce").to_numpy(dtype="float64")
        for i in np.flatnonzero(~np.isin(num, (0.0, 0.5, 1.0))):
            v = raw.iloc[int(i)]
            raise DataError(f"preference {v!r} is not 0 (A preferred), 1 (B preferred) or 0.5 (tie)",
                            source=source, row=int(i) + row_offset, column=str(v_col))
        pref[:] = num
    if policies is not None:
        allowed = {str(p) for p in policies}
        for col, side in ((a_col, a), (b_col, b)):
            unknown = np.flatnonzero([s not in allowed for s in side])
            if len(unknown):
                i = int(unknown[0])
                raise DataError(f"unknown policy {side[i]!r}; expected one of {', '.join(map(repr, policies))}",
                                source=source, row=i + row_offset, column=str(col))
    out = pd.DataFrame({"policy_a": pd.Series(a, dtype=object).astype(str),
                        "policy_b": pd.Series(b, dtype=object).astype(str), "preference": pref})
    out.attrs["source"] = source
    out.attrs["format"] = "preferences"
    return out


def detect_layout(columns: Sequence[Any]) -> str:
    """Layout of a table from its column names: ``preferences``, ``long`` or ``wide``."""
    if _preference_columns(columns) is not None:
        return "preferences"
    lower = {str(c).strip().lower() for c in columns}
    if lower & {"policy", "model", "score"}:
        return "long"
    return "wide"


def write_table(table: pd.DataFrame, path: str | os.PathLike[str], format: str | None = None) -> Path:
    """Write an evaluation or preference table to CSV, TSV, Parquet or JSONL, atomically.

    The file is written next to its destination under a temporary name and moved into place with
    `os.replace`, so readers never see half a file. Raw tables are validated first, so whatever is
    written loads back with `load` to the same table.

    Parameters
    ----------
    table:
        An evaluation table (validated or raw long) or a preference table.
    path:
        Destination; the type comes from the extension (``.csv``, ``.tsv``, ``.parquet``, ``.jsonl``)
        unless `format` names it.
    format:
        ``csv``, ``tsv``, ``parquet`` or ``jsonl``.

    Returns
    -------
    pathlib.Path
        The written path.
    """
    p = Path(path)
    file_type = (check_choice("format", format, ("csv", "tsv", "parquet", "jsonl")) if format is not None
                 else _SUFFIX_TYPES.get(p.suffix.lower()))
    if file_type not in ("csv", "tsv", "parquet", "jsonl"):
        raise ParameterError(f"cannot tell the file type of {str(p)!r} from its extension; use .csv, .tsv, "
                             ".parquet or .jsonl, or pass format=")
    if not isinstance(table, pd.DataFrame):
        raise DataError(f"expected a table (pandas DataFrame), got {type(table).__name__}")
    if set(PREFERENCE_COLUMNS) <= set(map(str, table.columns)):
        out = validate_preferences(table, row_offset=0)
    else:
        out = validate_table(table, source=table.attrs.get("source"), row_offset=0)
    out = out.copy()
    out.attrs = {}
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise DataError(f"folder {str(parent)!r} does not exist", source=str(p))
    with atomic_path(p) as tmp:
        if file_type in ("csv", "tsv"):
            # names such as '=HYPERLINK(...)' must not run as formulas when the file is opened in a spreadsheet;
            # the reader undoes the guard, so the table still round-trips exactly
            guarded = out.copy()
            for c in guarded.columns:
                if guarded[c].dtype == object or pd.api.types.is_string_dtype(guarded[c]):
                    guarded[c] = guarded[c].map(lambda v: csv_cell(v) if isinstance(v, str) else v)
            guarded.columns = [csv_cell(str(c)) for c in guarded.columns]
            guarded.to_csv(tmp, index=False, sep="," if file_type == "csv" else "\t")
        elif file_type == "parquet":
            out.to_parquet(tmp, index=False)
        else:
            names = [str(c) for c in out.columns]
            columns = [[_json_value(v) for v in out[c].tolist()] for c in out.columns]
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.writelines(json.dumps(dict(zip(names, row))) + "\n" for row in zip(*columns))
    return p


# ---------------------------------------------------------------------------------------------------
# file reading

def read_frame(p: Path, file_type: str, *, sep: str | None = None) -> tuple[pd.DataFrame, int]:
    """Read a table file into a raw DataFrame (text cells stay text); return it and its row offset."""
    source = str(p)
    if p.stat().st_size == 0:
        raise DataError("the file is empty (expected a header line and data rows)", source=source)
    if file_type in ("csv", "tsv"):
        return _read_csv(p, sep or ("," if file_type == "csv" else "\t")), 2
    if file_type == "parquet":
        try:
            frame = pd.read_parquet(p)
        except Exception as exc:  # pyarrow raises several unrelated types for corrupt files
            raise DataError(f"cannot read as Parquet ({_first_line(exc)})", source=source) from None
        return frame, 1
    if file_type == "jsonl":
        return _read_jsonl(p), 1
    if file_type == "json":
        obj = _read_json(p)
        if isinstance(obj, dict) and "eval" in obj:
            raise DataError("this is an inspect_ai log; load it with format='inspect'", source=source)
        if not isinstance(obj, list) or not all(isinstance(r, dict) for r in obj):
            raise DataError("expected a JSON array of records (one object per observation)", source=source)
        return pd.DataFrame.from_records(obj), 1
    raise ParameterError(f"unknown file type {file_type!r}")


def _read_csv(p: Path, sep: str) -> pd.DataFrame:
    source = str(p)
    kind = "TSV" if sep == "\t" else "CSV"
    try:
        # The header is read on its own because pandas silently renames duplicate columns ("score.1").
        head = pd.read_csv(p, sep=sep, header=None, nrows=1, dtype=str, keep_default_na=False,
                           encoding="utf-8-sig", skip_blank_lines=False)
    except pd.errors.EmptyDataError:
        raise DataError("the file is empty or starts with a blank line (expected a header line naming the "
                        "columns, then data rows)", source=source) from None
    except UnicodeDecodeError:
        raise DataError(f"not a UTF-8 text file (expected {kind} text)", source=source) from None
    except (pd.errors.ParserError, OSError, EOFError, ValueError) as exc:
        raise DataError(f"cannot read as {kind} ({_first_line(exc)})", source=source) from None
    names = [str(h).strip() for h in head.iloc[0].tolist()] if len(head) else []
    if not any(names):
        raise DataError("the first line is empty; expected a header line naming the columns", source=source)
    seen: set[str] = set()
    for n in names:
        if n in seen:
            raise DataError("column name appears twice in the header", source=source, row=1, column=n)
        seen.add(n)
    try:
        with warnings.catch_warnings():
            # index_col=False stops pandas from silently turning the first column into an index when every
            # row has one field too many; it warns instead, which we make an error.
            warnings.simplefilter("error", pd.errors.ParserWarning)
            frame = pd.read_csv(p, sep=sep, dtype=str, keep_default_na=False, na_values=[""], encoding="utf-8-sig",
                                skip_blank_lines=True, index_col=False)
    except pd.errors.ParserWarning:
        line = _first_long_row(p, sep, len(names))
        raise DataError(f"malformed {kind}: line {line} has more fields than the "
                        f"{len(names)} columns of the header", source=source) from None
    except pd.errors.EmptyDataError:
        raise DataError("the file is empty (expected a header line and data rows)", source=source) from None
    except pd.errors.ParserError as exc:
        raise DataError(f"malformed {kind}: {_first_line(exc)}", source=source) from None
    except UnicodeDecodeError:
        raise DataError(f"not a UTF-8 text file (expected {kind} text)", source=source) from None
    frame.columns = [csv_uncell(str(c).strip()) for c in frame.columns]
    # undo write_table's spreadsheet-formula guard (a leading ' before = + - @); see certirank._escape.csv_cell
    for c in frame.columns:
        col = frame[c]
        if col.map(lambda v: isinstance(v, str) and v[:1] == "'").any():
            frame[c] = col.map(lambda v: csv_uncell(v) if isinstance(v, str) else v)
    return frame


def _first_long_row(p: Path, sep: str, width: int) -> int | str:
    try:
        with open(p, newline="", encoding="utf-8-sig") as fh:
            for n, row in enumerate(csv.reader(fh, delimiter=sep), start=1):
                if len(row) > width:
                    return n
    except (UnicodeDecodeError, csv.Error):  # compressed files: pandas read them, we cannot point at the line
        pass
    return "?"


def jsonl_records(p: Path) -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line of a JSON-lines file; one clear error per bad line."""
    source = str(p)
    out = []
    try:
        with open(p, encoding="utf-8") as fh:
            for n, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise DataError(f"not valid JSON ({exc.msg}); expected one JSON object per line",
                                    source=source, row=n) from None
                if not isinstance(rec, dict):
                    raise DataError(f"expected a JSON object per line, got {type(rec).__name__}", source=source,
                                    row=n)
                out.append((n, rec))
    except UnicodeDecodeError:
        raise DataError("not a UTF-8 text file (expected JSON lines)", source=source) from None
    return out


def _read_jsonl(p: Path) -> pd.DataFrame:
    records = [rec for _, rec in jsonl_records(p)]
    if not records:
        raise DataError("the file has no records (expected one JSON object per line)", source=str(p))
    return pd.DataFrame.from_records(records)


def _read_json(p: Path) -> Any:
    try:
        with open(p, encoding="utf-8") as fh:
            return json.load(fh)
    except json.JSONDecodeError as exc:
        raise DataError(f"not valid JSON ({exc.msg})", source=str(p), row=exc.lineno) from None
    except UnicodeDecodeError:
        raise DataError("not a UTF-8 text file (expected JSON)", source=str(p)) from None


def _file_type(p: Path) -> str:
    suffixes = [s.lower() for s in p.suffixes]
    if suffixes and suffixes[-1] in _COMPRESSIONS:
        suffixes = suffixes[:-1]
    if suffixes and suffixes[-1] in _SUFFIX_TYPES:
        return _SUFFIX_TYPES[suffixes[-1]]
    # No telling extension: look at the first bytes.
    with open(p, "rb") as fh:
        head = fh.read(4096)
    if head.startswith(b"PAR1"):
        return "parquet"
    text = head.lstrip()
    if text.startswith(b"["):
        return "json"
    if text.startswith(b"{"):
        return "jsonl"
    first = head.split(b"\n", 1)[0]
    return "tsv" if first.count(b"\t") > first.count(b",") else "csv"


def _detect_importer(p: Path) -> str | None:
    from . import importers
    if p.is_dir():
        if importers.lm_eval_files(p):
            return "lm-eval"
        if importers.inspect_log_files(p):
            return "inspect"
        return None
    name = p.name.lower()
    if name.endswith(".eval"):
        return "inspect"
    if importers.is_lm_eval_samples_file(p):
        return "lm-eval"
    if name.endswith(".json") and importers.is_inspect_json(p):
        return "inspect"
    return None


def _check_options(kind: str, options: dict[str, Any]) -> None:
    unknown = set(options) - _OPTIONS[kind]
    if unknown:
        valid = ", ".join(sorted(_OPTIONS[kind])) or "none"
        raise ParameterError(f"unknown option(s) for {kind} data: {', '.join(sorted(unknown))} (valid: {valid})")


# ---------------------------------------------------------------------------------------------------
# layouts

def _from_frame(frame: pd.DataFrame, layout: str | None, *, source: str | None,
                score_range: tuple[float, float] | None, row_offset: int, file_type: str,
                options: dict[str, Any]) -> pd.DataFrame:
    options = dict(options)
    options.pop("sep", None)
    layout = layout or detect_layout(frame.columns)
    _check_options(layout, options)
    if layout == "preferences":
        table = validate_preferences(frame, policies=options.get("policies"), source=source,
                                     row_offset=row_offset)
    elif layout == "wide":
        table = _wide_to_table(frame, source=source, score_range=score_range, row_offset=row_offset)
    else:
        table = validate_table(_file_aliases(frame), score_range=score_range, source=source,
                               row_offset=row_offset)
    table.attrs["format"] = layout
    table.attrs["file_type"] = file_type
    return table


def _file_aliases(frame: pd.DataFrame) -> pd.DataFrame:
    cols = [str(c).strip() for c in frame.columns]
    if "env" in cols or any(a in cols for a, c in ALIASES.items() if c == "env"):
        return frame
    for alias in _FILE_ENV_ALIASES:
        if alias in cols:
            return frame.rename(columns={c: "env" for c in frame.columns if str(c).strip() == alias})
    return frame


def _wide_to_table(frame: pd.DataFrame, *, source: str | None, score_range: tuple[float, float] | None,
                   row_offset: int) -> pd.DataFrame:
    """Melt a wide per-trial table (row j = environment j) into the long table, row by row.

    Blank cells are trials that were not run and are dropped; every other cell goes through
    `validate_table`, and its errors are moved back to the wide table's row and column.
    """
    frame = frame.reset_index(drop=True)
    columns = [str(c).strip() for c in frame.columns]
    id_cols = [c for c in frame.columns if str(c).strip().lower() in _WIDE_ID_COLUMNS]
    if len(id_cols) > 1:
        raise DataError(f"several row-label columns ({', '.join(map(repr, id_cols))}); a wide table may have one",
                        source=source)
    if len(frame.columns) == 0 or len(id_cols) == len(frame.columns):
        raise DataError("no policy columns; a wide per-trial table has one column of scores per policy "
                        "(a long table needs 'policy' and 'score' columns)", source=source)
    if any(c == "" or c.lower().startswith("unnamed:") for c in columns):
        raise DataError("a column has no name; a wide per-trial table needs one policy name per column",
                        source=source, row=1 if row_offset == 2 else None)
    n = len(frame)
    if id_cols:
        labels = frame[id_cols[0]].map(lambda v: "" if _is_missing(v) else _cell_label(v)).to_numpy(dtype=object)
        empty = np.flatnonzero(labels == "")
        if len(empty):
            raise DataError("empty row label", source=source, row=int(empty[0]) + row_offset, column=str(id_cols[0]))
        dup = pd.Series(labels).duplicated(keep=False).to_numpy()
        if dup.any():
            rows = np.flatnonzero(dup)
            raise DataError(f"row label {labels[rows[0]]!r} appears in several rows "
                            f"({', '.join(str(int(r) + row_offset) for r in rows[:5])}); each row is one environment",
                            source=source, column=str(id_cols[0]))
    else:
        labels = np.array([str(j) for j in range(n)], dtype=object)
    pol_cols = [c for c in frame.columns if c not in id_cols]

    cells = np.empty((n, len(pol_cols)), dtype=object)
    present = np.zeros((n, len(pol_cols)), dtype=bool)
    for k, c in enumerate(pol_cols):
        col = frame[c]
        vals = col.to_numpy(dtype=object)
        cells[:, k] = vals
        present[:, k] = [not _is_blank(v) for v in vals]
        for j in np.flatnonzero(present[:, k]):
            if not _is_number(vals[j]):
                raise DataError(f"{vals[j]!r} is not a number; the table has no 'policy'/'model' or 'score' "
                                "column, so it was read as a wide per-trial table (one column of scores per "
                                "policy, blank = not run)", source=source, row=int(j) + row_offset,
                                column=str(c).strip())
    empty_cols = [str(pol_cols[k]).strip() for k in range(len(pol_cols)) if not present[:, k].any()]
    if empty_cols and len(empty_cols) < len(pol_cols):
        import warnings

        from ..errors import CertirankWarning
        warnings.warn(f"{source or 'table'}: column(s) {', '.join(map(repr, empty_cols[:5]))} have no values; "
                      f"{'that policy is' if len(empty_cols) == 1 else 'those policies are'} left out",
                      CertirankWarning, stacklevel=2)
    rows_idx, col_idx = np.nonzero(present)  # row-major: trial j of every policy, then trial j + 1
    long = pd.DataFrame({
        "policy": [str(pol_cols[k]).strip() for k in col_idx],
        "env": labels[rows_idx] if len(rows_idx) else np.array([], dtype=object),
        "score": cells[rows_idx, col_idx] if len(rows_idx) else np.array([], dtype=object),
        "order": rows_idx.astype("int64"),
    })
    try:
        table = validate_table(long, score_range=score_range, source=source, row_offset=0)
    except DataError as err:
        if err.row is None:
            raise
        i = err.row
        raise DataError(_bare_message(err), source=source, row=int(rows_idx[i]) + row_offset,
                        column=str(pol_cols[int(col_idx[i])]).strip()) from None
    return table


# ---------------------------------------------------------------------------------------------------
# helpers

def _preference_columns(columns: Sequence[Any]) -> tuple[str, str, str] | None:
    by_lower = {str(c).strip().lower(): c for c in columns}
    for a, b, v in (("policy_a", "policy_b", "preference"), ("a", "b", "preference"),
                    ("model_a", "model_b", "winner")):
        if a in by_lower and b in by_lower and v in by_lower:
            return by_lower[a], by_lower[b], by_lower[v]
    return None


def _is_missing(v: Any) -> bool:
    if v is None or v is pd.NA:
        return True
    return isinstance(v, (float, np.floating)) and math.isnan(v)


def _is_blank(v: Any) -> bool:
    if _is_missing(v):
        return True
    return isinstance(v, str) and v.strip().lower() in _BLANKS


def _is_number(v: Any) -> bool:
    if isinstance(v, (bool, int, float, np.bool_, np.integer, np.floating)):
        return True
    try:
        float(str(v))
    except ValueError:
        return False
    return True


def _cell_label(v: Any) -> str:
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    return str(v).strip()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _bare_message(err: DataError) -> str:
    """The message of `err` without its "source, row N, column 'c': " prefix (to re-locate it)."""
    where = []
    if err.source:
        where.append(str(err.source))
    if err.row is not None:
        where.append(f"row {err.row}")
    if err.column is not None:
        where.append(f"column {err.column!r}")
    text = str(err)
    prefix = ", ".join(where) + ": " if where else ""
    return text[len(prefix):] if prefix and text.startswith(prefix) else text


def _json_value(v: Any) -> Any:
    if _is_missing(v):
        return None
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    if isinstance(v, np.bool_):
        return bool(v)
    return v
