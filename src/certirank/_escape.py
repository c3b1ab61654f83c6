"""Escaping of user-supplied text (policy, model and task names) for every text output format.

Names come from data files anyone can write, so a name is treated as hostile wherever it is printed: a
Mermaid label must not carry HTML, a DOT string must not end early, a Markdown cell must not split the table,
a spreadsheet must not run a formula, and a terminal must not receive control sequences. One small function
per format, shared by every renderer (order/, report/, cli/), so each format is escaped the same way
everywhere. Ordinary names (letters, digits, spaces, ``-_.:/()``) come out as they are, or render so.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

__all__ = ["visible_controls", "terminal_text", "dot_string", "mermaid_label", "markdown_cell", "csv_cell",
           "csv_guarded", "csv_uncell", "CSV_FORMULA_STARTS"]

# C0 and C1 controls, DEL, and the bidirectional overrides/isolates that can reorder what a reader sees
# ("Trojan Source"); line and paragraph separators also break single-line outputs.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _visible(m: re.Match[str]) -> str:
    c = ord(m.group(0))
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def visible_controls(text: object, keep: str = "") -> str:
    """`text` with every control / bidi-override character replaced by its visible ``\\xNN`` / ``\\uNNNN`` form
    (except the characters in `keep`, e.g. the newlines a figure label wraps at)."""
    if keep:
        return _CONTROL.sub(lambda m: m.group(0) if m.group(0) in keep else _visible(m), str(text))
    return _CONTROL.sub(_visible, str(text))


def terminal_text(text: object) -> str:
    """A name safe to print to a terminal: no escape sequences, bells, carriage returns or newlines.

    Rich markup is *not* escaped here (print names with ``markup=False`` or through :func:`rich.markup.escape`).
    """
    return visible_controls(text)


def dot_string(text: object) -> str:
    """Contents of a double-quoted Graphviz DOT string (spec 07 §4.2: ``\\`` -> ``\\\\``, ``"`` -> ``\\"``).

    Controls become visible text first, so a raw newline cannot end the statement.
    """
    return visible_controls(text).replace("\\", "\\\\").replace('"', '\\"')


# Mermaid decodes "#name;" / "#123;" entities in quoted labels and renders the label as HTML, so '#' goes
# first (it would otherwise let a name spell an entity) and every HTML-significant character is an entity.
_MERMAID = {"#": "#35;", '"': "#quot;", "<": "#lt;", ">": "#gt;", "&": "#amp;", "`": "#96;"}


def mermaid_label(text: object) -> str:
    """Text safe inside a quoted Mermaid label (spec 07 §4.3 replaces ``"`` by ``#quot;``; we also entity-code
    ``#``, ``<``, ``>``, ``&`` and backticks, and make controls visible)."""
    return "".join(_MERMAID.get(ch, ch) for ch in visible_controls(text))


_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")


def markdown_cell(text: object) -> str:
    """Text safe inside a Markdown (GFM) table cell: no ``|`` splits, no HTML, no emphasis or links."""
    s = visible_controls(text)
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", s)


CSV_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(text: object) -> str:
    """A text cell a spreadsheet will show rather than evaluate (OWASP: prefix formula starts with ``'``).

    Reversible with :func:`csv_uncell`: a text already starting with ``'`` followed by a formula start or
    another ``'`` is prefixed too, so ``csv_uncell(csv_cell(s)) == s`` for every string.
    """
    s = str(text)
    if s[:1] in CSV_FORMULA_STARTS or (s[:1] == "'" and (s[1:2] in CSV_FORMULA_STARTS or s[1:2] == "'")):
        return "'" + s
    return s


def csv_guarded(frame: Any) -> Any:
    """A copy of a pandas table ready for ``to_csv``: every text cell and column name through :func:`csv_cell`
    (the one guard of every CSV certirank writes; its readers undo it, so tables still round-trip)."""
    from pandas.api.types import is_string_dtype  # the frame is pandas: pandas is loaded

    guarded = frame.copy()
    for c in guarded.columns:
        col = guarded[c]
        if col.dtype == object or is_string_dtype(col):
            guarded[c] = col.map(lambda v: csv_cell(v) if isinstance(v, str) else v)
    guarded.columns = [csv_cell(str(c)) for c in guarded.columns]
    return guarded


def csv_uncell(text: str) -> str:
    """Undo :func:`csv_cell`."""
    if text[:1] == "'" and (text[1:2] in CSV_FORMULA_STARTS or text[1:2] == "'"):
        return text[1:]
    return text


def is_printable_name(text: str) -> bool:
    """True when `text` has no control or format characters (what a name should look like)."""
    return not _CONTROL.search(text) and not any(unicodedata.category(c) == "Cf" for c in text)
