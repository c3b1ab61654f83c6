"""Exceptions raised by certirank.

Every error a user can cause derives from :class:`CertirankError`; the CLI prints its message in one or
two lines and exits with code 2. Anything else escaping the library is a bug.
"""

from __future__ import annotations

__all__ = ["CertirankError", "DataError", "ParameterError", "StateError", "EditedStateError", "CertirankWarning"]


class CertirankError(Exception):
    """Base class of every error caused by input or usage (never by a bug)."""


class DataError(CertirankError, ValueError):
    """Evaluation data that cannot be used as given.

    The message names the source (file), the row and/or column where known, and what was expected.
    """

    def __init__(self, message: str, *, source: str | None = None, row: int | None = None,
                 column: str | None = None) -> None:
        self.source = source
        self.row = row
        self.column = column
        self._message = message
        where = []
        if source:
            where.append(str(source))
        if row is not None:
            where.append(f"row {row}")
        if column is not None:
            where.append(f"column {column!r}")
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {message}" if prefix else message)

    def bare_message(self) -> str:
        """The message without its "source, row N, column 'c': " prefix, to re-locate the error where the row
        came from (a reader builds a frame, `validate_table` finds the bad row, the reader names its file/line)."""
        return getattr(self, "_message", str(self))


class ParameterError(CertirankError, ValueError):
    """A parameter outside its allowed range or set of choices."""


class StateError(CertirankError, RuntimeError):
    """An engine was used out of order (e.g. recording a trial that was not suggested).

    Engines raise it *before* changing any state, so the engine is still usable afterwards.
    """


class EditedStateError(StateError, ParameterError):
    """A saved state (campaign, leaderboard) whose checksum is missing or does not match its contents.

    Raised by ``load`` / ``from_json`` unless ``trust_edited=True`` is passed. Also a :class:`ParameterError`,
    because a bad state file is a bad argument to ``load``.
    """


class CertirankWarning(UserWarning):
    """Input that is allowed but probably not what the user meant (e.g. alpha = 0.9, an empty policy column).

    The CLI prints each one as a single ``warning: ...`` line on stderr.
    """
