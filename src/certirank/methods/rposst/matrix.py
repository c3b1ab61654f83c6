"""Test-result matrices for RPOSST: rows = test cases, columns = policies (spec 00 "Test matrix", spec 05 §11).

Readers accept the long layout ``test_case,policy,score`` (aliases: ``case``/``item``/``opponent`` for the
test case, ``model`` for the policy) or a wide table whose rows are test cases and whose columns are
policies (first column = test-case names when it is not numeric). Raw scores are kept as given; the
min–max rescaling of spec 05 §11.3 depends on which columns are *tuning* columns, so it is applied by
:meth:`ScoreMatrix.scaled` (all columns) and by the holdout protocol (tuning columns only).
"""

from __future__ import annotations


from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

import numpy as np
import pandas as pd

from ...errors import DataError, ParameterError
from ...results import ResultMixin

__all__ = ["ScoreMatrix", "read_test_matrix", "as_score_matrix"]

_CASE_ALIASES = ("test_case", "case", "item", "opponent", "env", "task")
_POLICY_ALIASES = ("policy", "model")
_MAX_LISTED = 5


@dataclass(frozen=True)
class ScoreMatrix(ResultMixin):
    """A test-case × policy score matrix with names.

    Attributes
    ----------
    raw : numpy.ndarray, shape (n_T, n)
        Scores as read (not rescaled). ``raw[i, j]`` = result of policy j on test case i.
    test_cases : tuple of str
        Row names.
    policies : tuple of str
        Column names.
    source : str or None
        File name (for messages).
    """

    raw: np.ndarray
    test_cases: tuple[str, ...]
    policies: tuple[str, ...]
    source: str | None = None

    @property
    def shape(self) -> tuple[int, int]:
        return self.raw.shape  # type: ignore[return-value]

    def scaled(self, columns: np.ndarray | None = None) -> tuple[np.ndarray, float, float]:
        """Min–max rescale with lo/hi taken over all rows × `columns` (default: all columns).

        Returns ``(A, lo, hi)`` where A = (raw - lo)/(hi - lo) over **all** columns (not clipped; columns
        outside `columns` may leave [0, 1], spec 05 §11.3).
        """
        sub = self.raw if columns is None else self.raw[:, columns]
        lo, hi = float(sub.min()), float(sub.max())
        if not hi > lo:
            raise DataError("the score matrix is constant on the columns used for rescaling "
                            f"(every score = {lo:g}); a test cannot be composed from it", source=self.source)
        return (self.raw - lo) / (hi - lo), lo, hi

    @property
    def scores(self) -> np.ndarray:
        """Scores min–max rescaled to [0, 1] over the whole matrix."""
        return self.scaled()[0]

    def to_frame(self) -> pd.DataFrame:
        """Wide DataFrame (index = test cases, columns = policies) of the raw scores."""
        return pd.DataFrame(self.raw, index=pd.Index(self.test_cases, name="test_case"), columns=list(self.policies))

    def to_dict(self) -> dict[str, Any]:
        return {"test_cases": list(self.test_cases), "policies": list(self.policies),
                "raw": self.raw.tolist(), "source": self.source}


def _listing(items: list[str]) -> str:
    shown = ", ".join(items[:_MAX_LISTED])
    more = len(items) - _MAX_LISTED
    return shown + (f" and {more} more" if more > 0 else "")


def _is_eval_log(path: Path) -> bool:
    """A folder or a log file (JSON, JSONL, inspect ``.eval``) rather than a CSV/TSV/Parquet table."""
    return path.is_dir() or path.suffix.lower() in (".json", ".jsonl", ".eval")


def _read_file(path: Path) -> pd.DataFrame:
    """A table file as the data layer reads it (one separator per file type, never guessed from the content: a
    sniffer took the 's' of a one-column file's header 'score' for the separator)."""
    from ...data.files import _existing_path, _file_type, read_frame

    p = _existing_path(path)
    if p.is_dir():
        raise DataError("is a folder; pass a test matrix file (CSV/TSV/Parquet) or an evaluation log folder",
                        source=str(path))
    frame, _ = read_frame(p, _file_type(p))
    return frame


def _find(columns: dict[str, str], aliases: tuple[str, ...]) -> str | None:
    for a in aliases:
        if a in columns:
            return columns[a]
    return None


def _numeric(values: pd.Series, source: str | None, column: str, rows: list[str] | None = None,
             row_offset: int = 2) -> np.ndarray:
    """Convert a column to float, naming the first non-numeric or missing cell.

    Long tables name the file line (`row_offset` = 2: header is line 1); wide tables name the test case.
    """
    num = pd.to_numeric(values, errors="coerce")
    bad = (num.isna() & values.notna()).to_numpy()
    missing = (values.isna() | ~np.isfinite(num.fillna(0.0))).to_numpy() & ~bad
    for mask, what in ((bad, "is not a number (expected numeric scores)"),
                       (missing, "is missing or not finite (every test case x policy cell needs a finite score)")):
        if mask.any():
            pos = int(np.flatnonzero(mask)[0])
            cell = values.iloc[pos]
            # repr() of a numpy scalar reads "np.float64(nan)"; users should see the cell as it was written
            shown = "(blank)" if pd.isna(cell) else (repr(cell) if isinstance(cell, str) else f"{cell}")
            if rows is None:
                raise DataError(f"score {shown} {what}", source=source, row=pos + row_offset, column=column)
            raise DataError(f"score {shown} for test case {rows[pos]!r} {what}", source=source, column=column)
    return num.to_numpy(dtype=float)


def _sorted_names(names: np.ndarray) -> list[str]:
    """Names sorted as numbers when every one is a number (item ids 0, 1, 2, ..., 10), else as text."""
    unique = sorted(set(names))
    try:
        return sorted(unique, key=float)
    except ValueError:
        return unique


def _from_long(frame: pd.DataFrame, case_col: str, policy_col: str, score_col: str,
               source: str | None) -> ScoreMatrix:
    for col in (case_col, policy_col):
        miss = frame[col].isna()
        if miss.any():
            raise DataError(f"{col} name is missing", source=source, row=int(np.flatnonzero(miss)[0]) + 2, column=col)
    scores = _numeric(frame[score_col], source, score_col)
    cases = frame[case_col].astype(str).to_numpy()
    pols = frame[policy_col].astype(str).to_numpy()
    tidy = pd.DataFrame({"test_case": cases, "policy": pols, "score": scores})
    # repeated cells (several runs of the same pairing) are averaged: the matrix holds expected results
    wide = tidy.pivot_table(index="test_case", columns="policy", values="score", aggfunc="mean", sort=True)
    wide = wide.reindex(index=_sorted_names(cases), columns=_sorted_names(pols))
    holes = np.argwhere(wide.isna().to_numpy())
    if holes.size:
        cells = [f"({wide.index[i]}, {wide.columns[j]})" for i, j in holes]
        raise DataError(f"{len(cells)} test case × policy cell(s) have no score: {_listing(cells)} "
                        "(every pairing must be present)", source=source)
    return _finish(wide.to_numpy(dtype=float), list(wide.index), list(wide.columns), source)


def _from_wide(frame: pd.DataFrame, source: str | None) -> ScoreMatrix:
    frame = frame.copy()
    first = frame.columns[0] if len(frame.columns) else None
    lowered = str(first).strip().lower() if first is not None else ""
    if first is not None and (lowered in _CASE_ALIASES or lowered in ("", "unnamed: 0")
                              or (frame[first].dtype == object
                                  and pd.to_numeric(frame[first], errors="coerce").isna().all())):
        names = frame[first]
        if names.isna().any():
            raise DataError("test-case name is missing", source=source,
                            row=int(np.flatnonzero(names.isna())[0]) + 2, column=str(first))
        frame = frame.drop(columns=first)
        cases = names.astype(str).tolist()
    elif not isinstance(frame.index, pd.RangeIndex):
        cases = [str(v) for v in frame.index]
    else:
        cases = [f"case {i + 1}" for i in range(len(frame))]
    if frame.shape[1] == 0 or frame.shape[0] == 0:
        raise DataError("a test matrix needs at least one test case (row) and one policy (column)", source=source)
    if frame.shape[1] == 1:
        raise DataError(f"one column of scores ({str(frame.columns[0])!r}): a wide test matrix has one column per "
                        "policy (or use the long layout test_case,policy,score)", source=source)
    if len(set(cases)) != len(cases):
        dup = pd.Series(cases)[pd.Series(cases).duplicated()].tolist()
        raise DataError(f"test-case names repeat: {_listing(dup)}", source=source)
    rows = list(cases)
    values = np.column_stack([_numeric(frame[c].reset_index(drop=True), source, str(c), rows=rows)
                              for c in frame.columns])
    return _finish(values, cases, [str(c) for c in frame.columns], source)


def _finish(values: np.ndarray, cases: list[str], pols: list[str], source: str | None) -> ScoreMatrix:
    if len(set(pols)) != len(pols):
        raise DataError("policy names repeat", source=source)
    if values.size == 0:
        raise DataError("the test matrix is empty", source=source)
    if np.ptp(values) == 0:
        raise DataError(f"the score matrix is constant (every score = {values.flat[0]:g}); nothing "
                        "distinguishes test cases, so a test cannot be composed", source=source)
    values = np.ascontiguousarray(values, dtype=float)
    values.setflags(write=False)
    return ScoreMatrix(values, tuple(cases), tuple(pols), source)


def read_test_matrix(data: Union[str, Path, pd.DataFrame], *, layout: str | None = None,
                     source: str | None = None, score_range: tuple[float, float] | None = None,
                     **read_options: Any) -> ScoreMatrix:
    """Read a test-case × policy score matrix.

    Parameters
    ----------
    data : path or pandas.DataFrame
        CSV/TSV/Parquet file or DataFrame; or evaluation logs as `certirank.load` reads them (an lm-eval output
        folder, inspect_ai logs, a HELM or arena folder, JSONL), items = test cases, models = policies.
        Long layout: columns ``test_case`` (aliases ``case``, ``item``, ``opponent``, ``env``, ``task``),
        ``policy`` (alias ``model``) and ``score``; rows and columns are
        sorted by name and repeated cells averaged. Wide layout: one row per test case, one column per
        policy; the first column holds test-case names when it is not numeric (else the DataFrame index or
        "case 1", "case 2", ... are used); file order is kept.
    layout : {"long", "wide"} or None
        Force a layout (default: long when the three long columns are present).
    source : str, optional
        Name used in error messages.
    score_range, **read_options
        Passed to `certirank.load` for evaluation logs (e.g. ``score_range=(0, 100)`` for a 0–100 metric,
        ``filter="strict-match"`` for lm-eval); a table file takes neither (its scores are used as they are and
        rescaled with the matrix).

    Returns
    -------
    ScoreMatrix
        Raw scores with names; ``.scores`` gives the min–max rescaled matrix (spec 05 §11.3).

    Raises
    ------
    DataError
        Non-numeric, missing or non-finite scores, missing cells, repeated names, or a constant matrix.
    """
    is_log = isinstance(data, (str, Path)) and _is_eval_log(Path(data))
    if not is_log and (score_range is not None or read_options):
        raise ParameterError("score_range and reader options apply to evaluation logs (folders, JSON, JSONL, "
                             ".eval); a test-matrix table is read as it is and min-max rescaled")
    if isinstance(data, ScoreMatrix):
        return data
    if isinstance(data, (str, Path)):
        source = source or str(data)
        if is_log:
            # lm-eval output folders, inspect_ai logs, HELM/arena folders, JSONL: the evaluation readers give the
            # canonical long table (item = env); repeated runs of an item are averaged below
            from ...data.readers import load

            frame = load(data, score_range=score_range, **read_options)
            return _from_long(frame, "env", "policy", "score", source)
        frame = _read_file(Path(data))
    elif isinstance(data, pd.DataFrame):
        frame = data
    else:
        raise ParameterError(f"expected a file path or a pandas DataFrame, got {type(data).__name__}")
    if layout is not None and layout not in ("long", "wide"):
        raise ParameterError(f"layout must be 'long' or 'wide', got {layout!r}")
    columns = {str(c).strip().lower(): c for c in frame.columns}
    case_col, policy_col = _find(columns, _CASE_ALIASES), _find(columns, _POLICY_ALIASES)
    score_col = columns.get("score")
    is_long = case_col is not None and policy_col is not None and score_col is not None
    if layout == "long" and not is_long:
        raise DataError("a long test matrix needs columns test_case, policy and score; found "
                        f"{_listing([str(c) for c in frame.columns])}", source=source)
    if (layout or ("long" if is_long else "wide")) == "long":
        return _from_long(frame, case_col, policy_col, score_col, source)  # type: ignore[arg-type]
    try:
        return _from_wide(frame, source)
    except DataError as exc:
        if layout is None and policy_col is not None and score_col is not None:
            # a long table that lacks only its test-case column is otherwise reported as a wide one
            raise DataError(f"{exc}; the file has '{policy_col}' and '{score_col}' columns but no test-case "
                            "column (test_case, case, item, opponent, env or task), so it was read as a wide "
                            "matrix") from None
        raise


def as_score_matrix(matrix: Any) -> ScoreMatrix:
    """Accept a ScoreMatrix, a path, a DataFrame or a 2-D array (rows = test cases)."""
    if isinstance(matrix, ScoreMatrix):
        return matrix
    if isinstance(matrix, (str, Path, pd.DataFrame)):
        return read_test_matrix(matrix)
    try:
        values = np.asarray(matrix, dtype=float)
    except (TypeError, ValueError):
        raise DataError("the score matrix must be numeric (rows = test cases, columns = policies)") from None
    if values.ndim != 2:
        raise DataError(f"the score matrix must be 2-D (rows = test cases, columns = policies), got shape "
                        f"{values.shape}")
    if not np.all(np.isfinite(values)):
        i, j = np.argwhere(~np.isfinite(values))[0]
        raise DataError(f"score at test case {i + 1}, policy {j + 1} is missing or not finite")
    return _finish(values.copy(), [f"case {i + 1}" for i in range(values.shape[0])],
                   [f"policy {j + 1}" for j in range(values.shape[1])], None)

