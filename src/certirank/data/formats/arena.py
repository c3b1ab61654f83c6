"""Chatbot-Arena battles: records ``model_a, model_b, winner`` (JSON array or JSON lines, CSV also works).

``winner`` is ``model_a``, ``model_b``, ``tie`` or ``tie (bothbad)``. By default both ties are draws (half a
win to each side); ``tie=drop`` / ``bothbad=drop`` leave them out instead, and the notes state the mapping
used. Battles stay in file order (the recorded order the sequential test replays). The Kaggle / Hugging Face
``arena-human-preference-55k`` layout, three 0/1 columns ``winner_model_a, winner_model_b, winner_tie``
instead of ``winner``, is read too (CSV, JSON or JSON lines).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..._validate import check_choice
from ...errors import DataError
from ..files import _file_type, read_frame
from ..preferences import validate_preferences
from ._common import outcome

_COLS = ("model_a", "model_b", "winner")
_ONEHOT = ("winner_model_a", "winner_model_b", "winner_tie")


def _onehot_header(p: Path) -> bool:
    """A CSV whose header has model_a, model_b and the three winner_* columns (arena-human-preference-55k)."""
    try:
        with open(p, encoding="utf-8-sig", errors="replace") as fh:
            header = fh.readline()
    except OSError:
        return False
    cells = {c.strip().strip('"').lower() for c in header.split(",")}
    return {"model_a", "model_b", *_ONEHOT} <= cells


def detect(p: Path) -> bool:
    if p.is_file() and p.suffix.lower() == ".csv":
        return _onehot_header(p)
    if not p.is_file() or p.suffix.lower() not in (".json", ".jsonl", ".ndjson"):
        return False
    try:
        with open(p, encoding="utf-8") as fh:
            head = fh.read(65536)
    except (OSError, UnicodeDecodeError):
        return False
    text = head.lstrip().lstrip("[").lstrip()
    if not text.startswith("{"):
        return False
    try:
        rec, _ = json.JSONDecoder().raw_decode(text)
    except (json.JSONDecodeError, RecursionError):
        return all(f'"{c}"' in head for c in _COLS) or all(f'"{c}"' in head for c in (*_COLS[:2], *_ONEHOT))
    return isinstance(rec, dict) and (all(c in rec for c in _COLS) or all(c in rec for c in (*_COLS[:2], *_ONEHOT)))


def read(p: Path, *, score_range: tuple[float, float] | None = None, tie: str = "draw", bothbad: str = "draw",
         policies: Any = None) -> pd.DataFrame:
    source = str(p)
    tie = check_choice("tie", tie, ("draw", "drop"))
    bothbad = check_choice("bothbad", bothbad, ("draw", "drop"))
    if p.is_dir():
        raise DataError("is a folder; the arena format reads one battle file (JSON array or JSON lines)",
                        source=source)
    frame, row_offset = read_frame(p, _file_type(p))
    lower = {str(c).strip().lower(): c for c in frame.columns}
    onehot = "winner" not in lower and all(c in lower for c in _ONEHOT)
    if onehot:
        frame = frame.assign(winner=_onehot_winner(frame[[lower[c] for c in _ONEHOT]], source, row_offset))
        lower["winner"] = "winner"
    missing = [c for c in _COLS if c not in lower]
    if missing:
        raise DataError(f"not an arena battle file: missing field(s) {', '.join(map(repr, missing))} (expected "
                        "records with model_a, model_b, winner)", source=source)
    sub = frame[[lower[c] for c in _COLS]]
    sub.columns = list(_COLS)
    names = policies.split(",") if isinstance(policies, str) else policies
    table = validate_preferences(sub, policies=names, source=source, row_offset=row_offset)
    win = sub["winner"].map(lambda v: "" if v is None or (isinstance(v, float) and np.isnan(v))
                            else str(v).strip().lower()).to_numpy()
    keep = np.ones(len(table), dtype=bool)
    dropped = []
    if tie == "drop":
        keep &= ~np.isin(win, ("tie", "draw"))
    if bothbad == "drop":
        keep &= win != "tie (bothbad)"
    if not keep.all():
        dropped.append(f"{int((~keep).sum())} tie battle(s) left out")
        table = table[keep].reset_index(drop=True)
        table.attrs.update({"source": source, "format": "preferences"})
    if len(table) == 0:
        raise DataError("no battles left after leaving out ties", source=source)
    mapping = (f"winner 'tie' -> {'draw (half a win each)' if tie == 'draw' else 'left out'}, "
               f"'tie (bothbad)' -> {'draw (half a win each)' if bothbad == 'draw' else 'left out'}")
    table.attrs["mapping"] = mapping
    table.attrs["notes"] = [f"arena: {mapping}" + (f"; {dropped[0]}" if dropped else "")
                            + ("; winner read from winner_model_a, winner_model_b, winner_tie" if onehot else "")]
    table.attrs["file_type"] = "arena"
    return table


def _onehot_winner(cols: pd.DataFrame, source: str, row_offset: int) -> list[str]:
    """``winner`` from the 0/1 columns winner_model_a, winner_model_b, winner_tie (exactly one 1 per battle)."""
    out = []
    for i, row in enumerate(cols.itertuples(index=False)):
        flags = [outcome(v) for v in row]
        if sorted(flags, key=lambda x: -1 if x is None else x) != [0.0, 0.0, 1.0]:
            raise DataError(f"expected exactly one of {', '.join(_ONEHOT)} to be 1, got "
                            f"{', '.join(map(repr, row))}", source=source, row=i + row_offset)
        out.append(("model_a", "model_b", "tie")[flags.index(1.0)])
    return out
