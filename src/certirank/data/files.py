"""Reading table files into raw frames: the file type from the name (or the first bytes), then CSV/TSV,
Parquet, JSON lines or a JSON array, with one located DataError per unreadable file, line or record.

Nothing here knows about layouts: `certirank.data.readers` decides what the raw frame means.
"""

from __future__ import annotations

import csv
import json
import math
import os
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._escape import csv_uncell
from ..errors import DataError, ParameterError
from ._cells import map_values

__all__ = ["FILE_TYPES", "read_frame", "jsonl_records"]

FILE_TYPES = ("csv", "tsv", "parquet", "jsonl", "json")
_COMPRESSIONS = (".gz", ".bz2", ".xz", ".zst", ".zip")
_SUFFIX_TYPES = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".parquet": "parquet", ".pq": "parquet",
                 ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json"}


def _existing_path(path: Any) -> Path:
    """`path` as a Path that exists; anything else is a DataError (never a bare TypeError from Path(None))."""
    if not isinstance(path, (str, os.PathLike)):
        raise DataError(f"expected a file path or a pandas DataFrame, got {type(path).__name__}")
    p = Path(path)
    if not p.exists():
        raise DataError("no such file or folder", source=str(path))
    return p


def read_frame(p: Path, file_type: str, *, sep: str | None = None, typed: bool = False) -> tuple[pd.DataFrame, int]:
    """Read a table file into a raw DataFrame (text cells stay text); return it and its row offset.

    `typed` (CSV/TSV only): columns pandas reads as numbers are numbers (int64/float64), every other column is the
    text cells exactly as the text read gives them; the caller must accept the numbers only where reading the text
    would give the same values (scores, replicates), and read the file as text otherwise (`typed_columns`)."""
    source = str(p)
    if p.stat().st_size == 0:
        raise DataError("the file is empty (expected a header line and data rows)", source=source)
    if file_type in ("csv", "tsv"):
        if sep is None and file_type == "csv":
            check_sep(p)
        return _read_csv(p, sep or ("," if file_type == "csv" else "\t"), typed=typed), 2
    if file_type == "parquet":
        try:
            frame = pd.read_parquet(p)
        except Exception as exc:  # pyarrow raises several unrelated types for corrupt files
            raise DataError(f"cannot read as Parquet ({_first_line(exc)})", source=source) from None
        return frame, 1
    if file_type == "jsonl":
        return _read_jsonl(p), 1
    if file_type == "json":
        obj = read_json(p)
        if isinstance(obj, dict) and "eval" in obj:
            raise DataError("this is an inspect_ai log; load it with format='inspect'", source=source)
        if isinstance(obj, dict):
            raise DataError(_json_object_hint(obj), source=source)
        if not isinstance(obj, list) or not all(isinstance(r, dict) for r in obj):
            raise DataError("expected a JSON array of records (one object per observation)", source=source)
        return pd.DataFrame.from_records(obj), 1
    raise ParameterError(f"unknown file type {file_type!r}")


def _json_object_hint(obj: dict) -> str:
    """What a JSON object (not an array of records) most likely is, and what to pass instead."""
    if "results" in obj and ({"versions", "configs", "config", "n-shot"} & set(obj)):
        # users pass the file they see first; the per-item scores sit beside it only with --log_samples
        return ("this is lm-eval's results file (aggregate scores only); pass the folder holding its "
                "samples_<task>_<date>.jsonl files (lm_eval --log_samples)")
    if {"columns", "data"} <= set(obj):
        return ("expected a JSON array of records, got pandas 'split' JSON; write it with "
                "DataFrame.to_json(orient='records')")
    if obj and all(isinstance(v, dict) for v in obj.values()):
        return ("expected a JSON array of records, got an object of objects (pandas' default to_json); write it "
                "with DataFrame.to_json(orient='records')")
    return "expected a JSON array of records (one object per observation), got a JSON object"


def typed_columns(frame: pd.DataFrame) -> list[Any]:
    """The columns of a `typed` read that do not hold the text cells (numbers, or mixed cells of a column whose
    chunks pandas typed differently)."""
    return [c for c in frame.columns if not _text_dtype(frame[c].dtype)]


def _text_dtype(dtype: Any) -> bool:
    return pd.api.types.is_string_dtype(dtype) and not pd.api.types.is_object_dtype(dtype)


def _read_csv(p: Path, sep: str, *, typed: bool = False) -> pd.DataFrame:
    source = str(p)
    typed = typed and sep != ";"  # ';' files may hold decimal commas: their numbers are read from the text
    kind = "TSV" if sep == "\t" else "CSV"
    try:
        # The header is read on its own because pandas silently renames duplicate columns ("score.1").
        # skipinitialspace: a quoted cell after "; " or ", " (hand-edited exports) is still one quoted cell
        head = pd.read_csv(p, sep=sep, header=None, nrows=1, dtype=str, keep_default_na=False,
                           encoding="utf-8-sig", skip_blank_lines=False, skipinitialspace=True)
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
        if n and n in seen:  # several blank header cells: spreadsheet padding, handled below
            raise DataError("column name appears twice in the header", source=source, row=1, column=n)
        seen.add(n)
    try:
        with warnings.catch_warnings():
            # index_col=False stops pandas from silently turning the first column into an index when every
            # row has one field too many; it warns instead, which we make an error.
            warnings.simplefilter("error", pd.errors.ParserWarning)
            # a typed read costs a third of the text read on millions of rows (no five million text cells for the
            # numbers); a column whose chunks were typed differently comes back mixed, and the caller reads as text
            warnings.simplefilter("ignore", pd.errors.DtypeWarning)
            frame = pd.read_csv(p, sep=sep, dtype=None if typed else str, keep_default_na=False, na_values=[""],
                                encoding="utf-8-sig", skip_blank_lines=True, index_col=False, skipinitialspace=True)
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
    # Spreadsheet exports pad the sheet with empty columns and rows; they hold no data. Only trailing empty
    # rows go, so the line numbers of every other row stay right.
    padding = [c for c, n in zip(frame.columns, names) if not n and frame[c].isna().all()]
    frame = frame.drop(columns=padding)
    filled = frame.notna().any(axis=1).to_numpy()
    if len(filled) and not filled[-1]:
        frame = frame.iloc[:int(np.flatnonzero(filled)[-1]) + 1 if filled.any() else 0]
    if sep == ";":
        frame = _decimal_commas(frame)
    # undo write_table's spreadsheet-formula guard (a leading ' before = + - @); see certirank._escape.csv_cell
    for c in frame.columns:
        col = frame[c]
        if typed and not _text_dtype(col.dtype):
            continue  # numbers (or mixed cells, read again as text by the caller) hold no guarded text
        guarded = (col.str.startswith("'").fillna(False) if pd.api.types.is_string_dtype(col) and
                   not pd.api.types.is_object_dtype(col) else map_values(col, lambda v: isinstance(v, str) and v[:1] == "'"))
        if guarded.any():
            frame[c] = col.map(lambda v: csv_uncell(v) if isinstance(v, str) else v)
    return frame


# What labs' files call the policy column, and the first cell of a spreadsheet's summary row (not a trial):
# one vocabulary for every reader of lab files.
POLICY_COLUMN_NAMES = ("policy", "model", "policy_name", "policy name", "method", "method_name", "model_name", "agent",
                       "checkpoint")
SUMMARY_LABELS = frozenset({"total", "totals", "sum", "mean", "average", "avg", "overall", "success rate"})


def semicolon_error(source: str, *, hint: str = "") -> DataError:
    """The one refusal of a ';'-separated file read with ','."""
    return DataError(f"the header line is separated by ';', not ','; pass --read-option sep=';'{hint}", source=source,
                     row=1)


def check_sep(p: Path) -> None:
    """Refuse a ';'-separated file read as CSV (European spreadsheet exports): read with ',' it is one column,
    and every later message would be about that one column instead of the separator."""
    if p.suffix.lower() in _COMPRESSIONS:
        return
    try:
        with open(p, encoding="utf-8-sig", errors="replace") as fh:
            first = fh.readline()
    except OSError:
        return
    if ";" in first and "," not in first and "\t" not in first:
        raise semicolon_error(str(p), hint=" (Python: sep=';'), which also reads decimal commas such as 0,5")


_DECIMAL_COMMA = r"[+-]?\d+,\d+"


def _decimal_commas(frame: pd.DataFrame) -> pd.DataFrame:
    """In a ';'-separated file, '0,5' is the number 0.5; a column changes only if all its cells are numbers."""
    for c in frame.columns:
        col = frame[c].dropna().astype(str).str.strip()
        comma = col.str.fullmatch(_DECIMAL_COMMA)
        if comma.any() and (comma | pd.to_numeric(col, errors="coerce").notna()).all():
            frame[c] = frame[c].map(lambda v: v.strip().replace(",", ".") if isinstance(v, str) else v)
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
                except RecursionError:
                    raise DataError(_DEEP, source=source, row=n) from None
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


_DEEP = "JSON nested too deeply (past Python's recursion limit) to be evaluation data"


def read_json(p: Path, *, hint: str = "") -> Any:
    """The JSON value of file `p`; every way it cannot be read (malformed, not UTF-8, nested past the recursion
    limit) is one DataError naming the file and, where known, the line. `hint` follows the parser's message."""
    try:
        with open(p, encoding="utf-8") as fh:
            return json.load(fh)
    except json.JSONDecodeError as exc:
        raise DataError(f"not valid JSON ({exc.msg}{hint})", source=str(p), row=exc.lineno) from None
    except UnicodeDecodeError:
        raise DataError("not a UTF-8 text file (expected JSON)", source=str(p)) from None
    except RecursionError:
        raise DataError(_DEEP, source=str(p)) from None


def json_value(text: str | bytes, *, source: str, row: int | None = None, what: str = "not valid JSON") -> Any:
    """The JSON value of `text` (one line of a JSON-lines file, one archive member): as `read_json`."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(f"{what} ({exc.msg})", source=source, row=row) from None
    except UnicodeDecodeError:
        raise DataError("not a UTF-8 text file (expected JSON)", source=source, row=row) from None
    except RecursionError:
        raise DataError(_DEEP, source=source, row=row) from None


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


def _is_missing(v: Any) -> bool:
    if v is None or v is pd.NA:
        return True
    return isinstance(v, (float, np.floating)) and math.isnan(v)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
