"""Narrow errors for records that cannot be read; each message names the line and what
is wrong, fit to print as a one-line error.

>>> str(TruncatedRecordError("game.jsonl", 12, "no result line"))
'game.jsonl line 12: the record is truncated: no result line'
"""

from __future__ import annotations

__all__ = ["CorruptRecordError", "RecordError", "RecordVersionError", "TruncatedRecordError"]


class RecordError(ValueError):
    """A game record could not be read. ``source`` names the file or URL (or
    ``"<record>"``), ``line`` the 1-based line number (0 for the whole record)."""

    what = "the record is unreadable"

    def __init__(self, source: str, line: int, detail: str) -> None:
        self.source = source
        self.line = line
        self.detail = detail
        where = f"{source} line {line}" if line else source
        super().__init__(f"{where}: {self.what}: {detail}")


class TruncatedRecordError(RecordError):
    """The record stops early: no header, a cut last line, or no result line."""

    what = "the record is truncated"


class CorruptRecordError(RecordError):
    """A line is not JSON, not a record line, or contradicts the lines before it."""

    what = "the record is corrupt"


class RecordVersionError(RecordError):
    """The record is of another format (version) than this code reads."""

    what = "unsupported record format"
