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

import hashlib
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._params import validated
from .._escape import csv_guarded
from .._io import as_path, atomic_path
from .._validate import check_choice
from .._compat import keyword_only
from ..errors import DataError, ParameterError
from . import formats as _formats
from .files import (FILE_TYPES, POLICY_COLUMN_NAMES, SUMMARY_LABELS, _SUFFIX_TYPES, _existing_path, _file_type,
                    _is_missing, read_frame, typed_columns)
from .pairing import isolated_warning, pairing_note
from .preferences import PREFERENCE_COLUMNS, _preference_columns, validate_preferences
from ._cells import map_values, to_numbers
from .table import ALIASES, near_miss, validate_table

__all__ = ["FORMATS", "load", "write_table", "detect_layout"]

LAYOUTS = ("long", "wide", "preferences")
FORMATS = LAYOUTS + FILE_TYPES + _formats.NAMES

# Extra env aliases accepted in files only: spec 03 §9.1 names long replay data (policy, trial, score) and
# the RRPS matrix is `test_case,policy,score`. validate_table keeps its own alias list unchanged.
_FILE_ENV_ALIASES = ("trial", "test_case", "environment", "episode", "episode_ix", "episode_id", "trial_id", "seed",
                     # per-item files of LLM evaluations (the item each row scores), after the robot names
                     "item_id", "question_id", "doc_id", "sample_id", "example_id", "prompt_id", "instance_id",
                     "problem_id", "task_id", "id")
# Label columns allowed next to the policy columns of a wide table: at most one environment column and one
# trial column (then the row label is "<env>#<trial>").
_WIDE_ID_COLUMNS = ("env", "environment", "item", "task", "scene", "test_case")
# Column names robot labs use, accepted in files when the canonical name is absent (the policy's:
# files.POLICY_COLUMN_NAMES). Several candidates for one role are an error rather than a guess; `policy=` /
# `score=` then name the column. The trial names serve long and wide tables alike.
_LAB_SCORE = (("score",), ("success", "is_success", "succeeded", "outcome"),
              # per-item LLM results (lm-eval's acc/exact_match, SWE-bench's resolved, HumanEval's passed, pass@1)
              ("correct", "is_correct", "acc", "accuracy", "exact_match", "em", "passed", "pass", "pass@1", "resolved",
               "solved"),
              ("progress", "task_progress", "success_rate"))
_LAB_TRIAL = ("trial", "episode", "episode_ix", "episode_id", "trial_id", "seed", "rollout")
# Every header read as the environment/trial of a long file (to name a misspelt one when none is found).
_ENV_HEADERS = tuple(dict.fromkeys(("env", *(a for a, c in ALIASES.items() if c == "env"), *_FILE_ENV_ALIASES,
                                    *_LAB_TRIAL, "scene")))
# Outcome words in score cells (spreadsheets write TRUE/FALSE).
_WORDS = {"true": 1.0, "yes": 1.0, "success": 1.0, "succeeded": 1.0, "pass": 1.0, "passed": 1.0,
          "false": 0.0, "no": 0.0, "failure": 0.0, "failed": 0.0, "fail": 0.0}
_PERCENT = re.compile(r"\s*(\d+(?:\.\d+)?)\s*%\s*")


def _cell_word(v: Any) -> Any:
    """An outcome word (TRUE/FALSE, yes/no) or a percentage ("50%", spreadsheets' progress) as a number in [0, 1];
    None for any other cell."""
    if not isinstance(v, str):
        return None
    m = _PERCENT.fullmatch(v)
    return float(m.group(1)) / 100.0 if m else _WORDS.get(v.strip().lower())


# Cells of a wide table that mean "not run".
_BLANKS = frozenset({"", "nan", "na", "n/a", "null", "none"})

# Options each layout understands (the named readers declare theirs in the registry); anything else is a
# ParameterError rather than silently ignored.
_OPTIONS = {"long": {"sep", "policy", "score"}, "wide": {"sep"}, "preferences": {"sep", "policies"}}


# ---------------------------------------------------------------------------------------------------
# public entry points

@keyword_only(("format",))
@validated("load")
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
        ``jsonl``, ``json``; the layout is then still detected) or a reader of the registry
        `certirank.data.formats` (``lm-eval``, ``inspect``, ``helm``, ``lerobot``, ``eee``, ``openai-evals``,
        ``arena``, ``outcome-lists``, ``folder``; see docs/data-formats.md).
        Default: detected from the extension, the columns and the folder layout.
    score_range:
        ``(lo, hi)``: scores are rescaled to [0, 1]; without it, scores outside [0, 1] are an error.
    **options:
        ``sep`` (CSV delimiter); ``policy``, ``score`` (long files: the column naming the policy / holding the
        score, when the lab names are ambiguous); ``policies`` (preferences: allowed names); ``metric``, ``filter``,
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
    if format is None and score_range is None and not options and is_validated(path):
        return path  # read and validated already (a command reads its file once)
    table = _load(path, format=format, score_range=score_range, **options)
    table.attrs[_VALIDATED] = _fingerprint(table)
    return table


_VALIDATED = "validated"


def is_validated(table: Any) -> bool:
    """Whether `table` is one `load` returned and nobody changed since (then `load` hands it back as it is)."""
    return isinstance(table, pd.DataFrame) and table.attrs.get(_VALIDATED) is not None \
        and table.attrs[_VALIDATED] == _fingerprint(table)


def mark_rows_validated(rows: pd.DataFrame) -> pd.DataFrame:
    """Mark rows taken from a validated table (a group of ``group_by``) as validated: every check of `load` is
    about single rows and cells, or holds for any subset of rows (no duplicate key), so the rows need not be
    validated again; what a method needs of the whole group (two policies, pairs) it still checks itself."""
    rows.attrs[_VALIDATED] = _fingerprint(rows)
    return rows


def _fingerprint(table: pd.DataFrame) -> int | str | None:
    """A hash of a table's columns and cells: a validated table changed afterwards is validated again.

    Numeric and Arrow-backed columns are hashed through their memory buffers (a few hundredths of a second for
    five million rows, against a second for `hash_pandas_object`); a table equal in content but laid out
    differently in memory only hashes differently, which costs a second validation, never a skipped one."""
    # sha1 as a checksum, not for security: the fastest of hashlib here (hardware SHA instructions)
    digest = hashlib.sha1(repr((tuple(map(str, table.columns)), len(table))).encode(), usedforsecurity=False)
    index = table.index
    if isinstance(index, pd.RangeIndex):
        digest.update(repr(("range", index.start, index.stop, index.step)).encode())
    elif not _hash_cells(digest, pd.Series(index)):
        return None
    for c in table.columns:
        if not _hash_cells(digest, table[c]):
            return None
    return digest.hexdigest()


def _hash_cells(digest: Any, col: pd.Series) -> bool:
    """Feed one column's cells to ``digest``; False for unhashable cells (never taken for validated)."""
    arr = col.array
    chunked = getattr(arr, "_pa_array", None)
    digest.update(str(col.dtype).encode())
    if chunked is not None:
        for chunk in getattr(chunked, "chunks", [chunked]):
            digest.update(repr((chunk.offset, len(chunk))).encode())
            for buf in chunk.buffers():
                digest.update(b"-" if buf is None else memoryview(buf))
        return True
    values = col.to_numpy()
    if values.dtype.kind in "biufcmM":
        digest.update(np.ascontiguousarray(values).view(np.uint8))
        return True
    try:
        digest.update(pd.util.hash_pandas_object(col, index=False).to_numpy().view(np.uint8))
    except TypeError:
        return False
    return True


def _load(path: str | os.PathLike[str] | pd.DataFrame, *, format: str | None = None,
          score_range: tuple[float, float] | None = None, **options: Any) -> pd.DataFrame:
    fmt = None if format is None else check_choice("format", format, FORMATS)
    if isinstance(path, pd.DataFrame):
        if isinstance(path.columns, pd.MultiIndex):  # str() of a tuple would silently become a policy name
            raise DataError(f"the table has {path.columns.nlevels} header levels (MultiIndex columns); flatten them "
                            "to one name per column first (e.g. table.columns = ['_'.join(map(str, c)) for c in "
                            "table.columns])")
        layout = fmt if fmt in LAYOUTS else None
        # a table read earlier keeps naming its file in later messages, and its reader's notes were said already
        return _from_frame(path, layout, source=path.attrs.get("source"), score_range=score_range, row_offset=0,
                           file_type="dataframe", options=options, read_before="format" in path.attrs)
    p = _existing_path(path)
    source = str(path)

    reader = fmt if fmt in _formats.NAMES else _formats.detect(p) if fmt is None else None
    if reader is not None:
        return _formats.read(reader, p, score_range=score_range, options=options)

    if p.is_dir():
        # results.json: lm-eval before 0.4.3 wrote the summary without a date
        if any(p.glob("results*.json")) or any(p.glob("*/results*.json")):
            raise DataError("holds lm-eval results_*.json but no samples_*.jsonl; rerun lm_eval with --log_samples "
                            "(certirank needs one score per item)", source=source)
        raise DataError("is a folder, but not an lm-evaluation-harness --log_samples folder (expected "
                        "<out>/<model>/samples_<task>_<date>.jsonl) nor a folder of inspect_ai logs (*.eval); "
                        "pass a data file instead", source=source)
    file_type = fmt if fmt in FILE_TYPES else _file_type(p)
    layout = fmt if fmt in LAYOUTS else None
    sep = options.pop("sep", None)
    if file_type in ("csv", "tsv") and layout in (None, "long") and p.stat().st_size >= _TYPED_MIN_BYTES:
        # numbers read as numbers; a table that reads the same either way is the text read's table, and anything
        # else (a bad cell to name, a numeric label column, another layout) is read again as text
        try:
            frame, row_offset = read_frame(p, file_type, sep=sep, typed=True)
            return _from_frame(frame, layout, source=source, score_range=score_range, row_offset=row_offset,
                               file_type=file_type, options=dict(options), typed=True)
        except (DataError, _AsText):
            pass
        except PermissionError:
            raise DataError("cannot read the file (permission denied)", source=source) from None
    try:
        frame, row_offset = read_frame(p, file_type, sep=sep)
    except PermissionError:
        raise DataError("cannot read the file (permission denied)", source=source) from None
    return _from_frame(frame, layout, source=source, score_range=score_range, row_offset=row_offset,
                       file_type=file_type, options=options)


# Files from this size on are read typed first (below it the text read costs milliseconds).
_TYPED_MIN_BYTES = 1 << 20
# Columns of a long table whose values are the same read as numbers by the CSV parser or parsed from the text by
# `validate_table` (the same float parser; tests/test_data_typed_read.py compares them).
_NUMERIC_ROLES = frozenset({"score", "replicate", "order", "weight"})


class _AsText(Exception):
    """A typed read that must be read again as text."""


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
    p = as_path(path)
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
            csv_guarded(out).to_csv(tmp, index=False, sep="," if file_type == "csv" else "\t")
        elif file_type == "parquet":
            out.to_parquet(tmp, index=False)
        else:
            names = [str(c) for c in out.columns]
            columns = [[_json_value(v) for v in out[c].tolist()] for c in out.columns]
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.writelines(json.dumps(dict(zip(names, row))) + "\n" for row in zip(*columns))
    return p


# ---------------------------------------------------------------------------------------------------
# options

def _check_options(kind: str, options: dict[str, Any]) -> None:
    unknown = set(options) - _OPTIONS[kind]
    if unknown:
        valid = ", ".join(sorted(_OPTIONS[kind])) or "none"
        raise ParameterError(f"unknown option(s) for {kind} data: {', '.join(sorted(unknown))} (valid: {valid})")


# ---------------------------------------------------------------------------------------------------
# layouts

def _from_frame(frame: pd.DataFrame, layout: str | None, *, source: str | None,
                score_range: tuple[float, float] | None, row_offset: int, file_type: str,
                options: dict[str, Any], read_before: bool = False, typed: bool = False) -> pd.DataFrame:
    options = dict(options)
    options.pop("sep", None)
    notes: list[str] = []
    # lab column names are read in files; a DataFrame keeps the strict names unless policy=/score= name them
    lab = file_type != "dataframe" or "policy" in options or "score" in options
    if lab and layout in (None, "long") and _preference_columns(frame.columns) is None:
        frame = _lab_columns(frame, options.pop("policy", None), options.pop("score", None), source, notes)
    layout = layout or detect_layout(frame.columns)
    _check_options(layout, options)
    if layout == "preferences":
        if typed:
            raise _AsText
        table = validate_preferences(frame, policies=options.get("policies"), source=source,
                                     row_offset=row_offset)
    elif layout == "wide":
        if typed:
            raise _AsText
        table = _wide_to_table(frame, source=source, score_range=score_range, row_offset=row_offset, notes=notes)
    else:
        frame = _file_aliases(frame, notes) if file_type != "dataframe" else frame
        if typed and any(ALIASES.get(str(c).strip(), str(c).strip()) not in _NUMERIC_ROLES
                         or frame[c].dtype not in (np.int64, np.float64) for c in typed_columns(frame)):
            raise _AsText  # a label read as a number ('007' as 7), or cells of mixed types
        if file_type != "dataframe":
            _refuse_misspelt_role(frame, source)
            frame = _file_cells(frame, source, row_offset, notes, score_range)
        table = validate_table(frame, score_range=score_range, source=source, row_offset=row_offset)
        # the data's own run order, read as such (spec 09 §3, data.order); a table loaded before says whether
        # its `order` column came from the data or was the row position
        given = frame.attrs.get("order_column") if "format" in frame.attrs else "order" in frame.columns
        if given:
            table.attrs["order_column"] = True
    if layout != "preferences" and not read_before:
        note = pairing_note(table, frame.columns, _ENV_HEADERS)
        notes += [note] if note else []
        lonely = isolated_warning(table, source or "table", rows=layout == "wide")
        if lonely:
            import warnings

            from ..errors import CertirankWarning
            warnings.warn(lonely, CertirankWarning, stacklevel=3)
    table.attrs["format"] = layout
    table.attrs["file_type"] = file_type
    known = list(table.attrs.get("notes") or [])  # a table read earlier keeps its notes, each said once
    if notes:
        table.attrs["notes"] = known + [n for n in notes if n not in known]
    return table


def _lab_columns(frame: pd.DataFrame, policy: str | None, score: str | None, source: str | None,
                 notes: list[str]) -> pd.DataFrame:
    """Rename the policy and score columns of a file named as labs name them (Policy, method, success, …)."""
    cols = [str(c).strip() for c in frame.columns]
    rename: dict[Any, str] = {}

    def given(name: str, what: str) -> Any:
        found = [c for c, s in zip(frame.columns, cols) if s == name]
        if not found:
            raise DataError(f"no column {name!r} ({what}=); columns: {', '.join(map(repr, cols))}", source=source)
        return found[0]

    def candidates(names: tuple[str, ...]) -> list[Any]:
        return [c for c, s in zip(frame.columns, cols) if s.lower() in names]

    if policy is not None:
        rename[given(policy, "policy")] = "policy"
    elif not {"policy", "model"} & set(cols):
        # a numeric column of that name is a policy of a wide table (say one called 'agent'), unless a score
        # column sits beside it (numbered checkpoints)
        has_score = score is not None or any(candidates(g) for g in _LAB_SCORE)
        found = [c for c in candidates(POLICY_COLUMN_NAMES) if has_score or not _all_numbers(frame[c])]
        if len(found) > 1:
            raise DataError(f"several columns could name the policy ({', '.join(repr(str(c)) for c in found)}); "
                            "choose one with --read-option policy=COLUMN", source=source)
        if found:
            rename[found[0]] = "policy"
    if score is not None:
        rename[given(score, "score")] = "score"
    elif "score" not in cols and (rename or {"policy", "model"} & set(cols)):
        groups = [candidates(g) for g in _LAB_SCORE]
        found = next((g for g in groups if g), [])
        if len(found) > 1:
            raise DataError(f"several columns could hold the score ({', '.join(repr(str(c)) for c in found)}); "
                            "choose one with --read-option score=COLUMN", source=source)
        if found:
            rename[found[0]] = "score"
            others = [str(c) for g in groups for c in g if c is not found[0]]
            if others:
                notes.append(f"score from column {str(found[0])!r}; {', '.join(map(repr, others))} not used "
                             f"(--read-option score=COLUMN to use another)")
    if "policy" in rename.values() or "score" in rename.values():
        # the other canonical names, written in another case (Task, Episode, Replicate)
        for c, s in zip(frame.columns, cols):
            low = s.lower()
            if c not in rename and low != s and low in ("env", "item", "task", "replicate", "order", "block",
                                                        "weight") + _FILE_ENV_ALIASES + _LAB_TRIAL \
                    and low not in cols:
                rename[c] = low
        moved = [f"{str(c)!r} as {v!r}" for c, v in rename.items() if v in ("policy", "score") and str(c) != v]
        if moved:
            notes.append(f"long table: column {' and '.join(moved)}")
    return frame.rename(columns=rename) if rename else frame


def _refuse_misspelt_role(frame: pd.DataFrame, source: str | None) -> None:
    """A long file without a policy or score column whose header is close to a name read as one ('Succes',
    'sucess', 'progres', 'polciy'): one line naming both, rather than a guess (the other header is never taken in
    its place) or the bare "missing column" error."""
    cols = {str(c).strip() for c in frame.columns}
    for role, names, option in (("policy", POLICY_COLUMN_NAMES, "policy"),
                                ("score", tuple(n for g in _LAB_SCORE for n in g), "score")):
        if role in cols or (role == "policy" and "model" in cols):
            continue
        miss = near_miss(frame.columns, names)
        if miss:
            raise DataError(f"no {role} column; {miss[0]!r} looks like a misspelling of {miss[1]!r}: rename it, or "
                            f"choose it with --read-option {option}={miss[0]}", source=source, column=miss[0])


def _all_numbers(col: pd.Series) -> bool:
    return all(_is_blank(v) or _is_number(v) for v in col.tolist())


def _file_cells(frame: pd.DataFrame, source: str | None, row_offset: int, notes: list[str],
                score_range: tuple[float, float] | None = None) -> pd.DataFrame:
    """Spreadsheet cells of a long file: TRUE/FALSE outcomes as 1/0; totals rows after the last trial are dropped
    (and noted), one between trials is refused."""
    if "policy" in frame.columns:
        frame = _drop_summary_rows(frame, frame["policy"], "policy", source, row_offset, notes)
    if "score" in frame.columns and not pd.api.types.is_numeric_dtype(frame["score"]):
        # a cell that reads as a number is neither a word nor a percentage: look only at the others
        other = to_numbers(frame["score"]).isna().to_numpy()
        text = frame["score"][other]
        found = np.full(len(frame), None, dtype=object)
        found[other] = map_values(text, _cell_word).to_numpy(dtype=object)
        words = pd.Series(found, index=frame.index).infer_objects()
        is_pct = np.zeros(len(frame), dtype=bool)
        is_pct[other] = map_values(text, lambda v: isinstance(v, str) and bool(_PERCENT.fullmatch(v))).to_numpy(bool)
        pct = np.flatnonzero(is_pct)
        if len(pct) and score_range is not None:
            # "50%" is already a fraction of 1; rescaling it again by a range would shrink it silently
            raise DataError(f"score {frame['score'].iloc[pct[0]]!r} is a percentage, read as a fraction of 1; drop "
                            "--score-range (or write plain numbers in that range)", source=source,
                            row=int(pct[0]) + row_offset, column="score")
        if words.notna().any():
            frame = frame.assign(score=frame["score"].where(words.isna(), words))
            notes.append("score words read as outcomes (true/yes/success = 1, false/no/failure = 0, 50% = 0.5)")
    return frame


def _file_aliases(frame: pd.DataFrame, notes: list[str] | None = None) -> pd.DataFrame:
    cols = [str(c).strip() for c in frame.columns]
    if len(set(cols)) == len(cols):
        frame = frame.set_axis(cols, axis=1)
    env = [c for c in cols if c == "env" or ALIASES.get(c) == "env"]
    if env:
        trial = next((c for c in _LAB_TRIAL if c in cols), None)
        if (len(env) == 1 and trial is not None and "policy" in cols and "replicate" not in cols
                and frame.assign(_e=frame[env[0]].astype(str)).duplicated(["policy", "_e"]).any()):
            # task repeats within a policy and an episode/seed column tells its trials apart: the observation is
            # (task, episode), as in the folder reader; the raw labels stay for --group-by
            lab = frame[env[0]].map(lambda v: "" if _is_missing(v) else _cell_label(v))
            tri = frame[trial].map(lambda v: "" if _is_missing(v) else _cell_label(v))
            if notes is not None:
                notes.append(f"{env[0]!r} repeats within a policy: each row is one ({env[0]}, {trial}) trial, env "
                             f"'<{env[0]}>#<{trial}>' (kept as env_label, trial_label)")
            return frame.rename(columns={env[0]: "env_label", trial: "trial_label"}).assign(env=lab + "#" + tri)
        return frame
    for alias in _FILE_ENV_ALIASES:
        if alias in cols:
            if alias == "id" and not _shared_label(frame, alias):
                continue  # a bare 'id' unique to each row numbers the rows (a rollout id), not the items
            return frame.rename(columns={c: "env" for c in frame.columns if str(c).strip() == alias})
    return frame


def _shared_label(frame: pd.DataFrame, column: str) -> bool:
    """Whether some label of `column` is scored for two policies (then it names what they share)."""
    who = next((c for c in ("policy", "model") if c in frame.columns), None)
    if who is None:
        return False
    both = frame[[column, who]].astype(str).drop_duplicates()
    return bool(both.duplicated(column).any())


def _drop_summary_rows(frame: pd.DataFrame, labels: pd.Series, column: str, source: str | None, row_offset: int,
                       notes: list[str]) -> pd.DataFrame:
    """`frame` without its trailing summary rows (a label such as 'Total' or 'Mean' after the last trial), each
    named in `notes`; a summary row with trials after it is refused (it is not clear what it summarises)."""
    low = map_values(labels, lambda v: "" if _is_missing(v) else str(v).strip().lower()).to_numpy(dtype=object)
    summary = np.flatnonzero(np.isin(low, list(SUMMARY_LABELS)))
    if not len(summary):
        return frame
    trials = np.flatnonzero(~np.isin(low, list(SUMMARY_LABELS)))
    last = int(trials[-1]) if len(trials) else -1
    inside = summary[summary < last]
    if len(inside):
        i = int(inside[0])
        raise DataError(f"{labels.iloc[i]!r} looks like a summary row, not a trial, and trials follow it; delete it "
                        "(each row is one trial)", source=source, row=i + row_offset, column=column)
    shown = ", ".join(f"{int(i) + row_offset} ({labels.iloc[int(i)]!r})" for i in summary[:5])
    notes.append(f"summary row(s) after the last trial dropped: line {shown}" if row_offset == 2 else
                 f"summary row(s) after the last trial dropped: row {shown}")
    return frame.iloc[:last + 1]


def _wide_to_table(frame: pd.DataFrame, *, source: str | None, score_range: tuple[float, float] | None,
                   row_offset: int, notes: list[str]) -> pd.DataFrame:
    """Melt a wide per-trial table (row j = environment j) into the long table, row by row.

    Blank cells are trials that were not run and are dropped; every other cell goes through
    `validate_table`, and its errors are moved back to the wide table's row and column.
    """
    frame = frame.reset_index(drop=True)
    columns = [str(c).strip() for c in frame.columns]
    id_cols = [c for c in frame.columns if str(c).strip().lower() in _WIDE_ID_COLUMNS]
    trial_cols = [c for c in frame.columns if str(c).strip().lower() in _LAB_TRIAL]
    if len(id_cols) > 1 or len(trial_cols) > 1:
        several = id_cols if len(id_cols) > 1 else trial_cols
        raise DataError(f"several row-label columns ({', '.join(map(repr, several))}); a wide table may have one "
                        "(and one trial column such as 'episode' or 'seed')", source=source)
    id_cols += trial_cols
    if len(frame.columns) == 0 or len(id_cols) == len(frame.columns):
        raise DataError("no policy columns; a wide per-trial table has one column of scores per policy "
                        "(a long table needs 'policy' and 'score' columns)", source=source)
    if any(c == "" or c.lower().startswith("unnamed:") for c in columns):
        raise DataError("a column has no name; a wide per-trial table needs one policy name per column",
                        source=source, row=1 if row_offset == 2 else None)
    n = len(frame)
    if id_cols:
        parts = [frame[c].map(lambda v: "" if _is_missing(v) else _cell_label(v)).to_numpy(dtype=object)
                 for c in id_cols]
        for k, c in enumerate(id_cols):  # each drop only cuts the tail, so the labels stay aligned
            frame = _drop_summary_rows(frame, pd.Series(parts[k][:len(frame)]), str(c), source, row_offset, notes)
        n = len(frame)
        parts = [q[:n] for q in parts]
        for c, part in zip(id_cols, parts):
            empty = np.flatnonzero(part == "")
            if len(empty):
                raise DataError("empty row label", source=source, row=int(empty[0]) + row_offset, column=str(c))
        labels = parts[0] if len(parts) == 1 else np.array([f"{a}#{b}" for a, b in zip(*parts)], dtype=object)
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
        # with a score range a percentage is left as text (refused) rather than rescaled a second time
        vals = col.map(lambda v: v if _cell_word(v) is None or (score_range is not None and _PERCENT.fullmatch(v))
                       else _cell_word(v)).to_numpy(dtype=object)
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
        raise DataError(err.bare_message(), source=source, row=int(rows_idx[i]) + row_offset,
                        column=str(pol_cols[int(col_idx[i])]).strip()) from None
    return table


# ---------------------------------------------------------------------------------------------------
# helpers

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
