"""Reading records back, with narrow errors: a truncated record, a corrupt line and a
record of another format version each raise their own
:class:`~sdk.records.errors.RecordError` naming the line.

The reader checks what the writer promises: the header comes first, events are numbered
in order, a decision comes right before the events it caused and applies one of its
legal actions, a hand's line follows its ``hand_end`` and agrees with it, the result line
comes last. It does not replay the referee (:func:`sdk.records.verify_record` does).

>>> parse_record(['{"type":"header","format":"taimahjong-record","version":9}'])
Traceback (most recent call last):
...
sdk.records.errors.RecordVersionError: <record> line 1: unsupported record format: version 9; this code reads version 1
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from protocol.events import HandEnd, event_from_json
from sdk.records.errors import (
    CorruptRecordError,
    RecordError,
    RecordVersionError,
    TruncatedRecordError,
)
from sdk.records.model import (
    FORMAT,
    VERSION,
    Decision,
    HandRecord,
    Header,
    MatchSummary,
    Record,
)

__all__ = ["parse_record", "parse_text", "read_record"]

_BAD_VALUE = (KeyError, TypeError, ValueError, AttributeError, IndexError)
"""What reading a malformed value raises (every parse error of :mod:`protocol` is a
ValueError)."""


def read_record(path: str | Path, *, partial: bool = False) -> Record:
    """Read the record in file ``path``. ``partial`` accepts a record without its
    result line (a match still running). Raises :class:`OSError` if the file cannot be
    read, a :class:`~sdk.records.errors.RecordError` if its content is not a record."""
    path = Path(path)
    with path.open(encoding="utf-8", newline="") as f:
        text = f.read()
    return parse_text(text, source=str(path), partial=partial)


def parse_text(text: str, *, source: str = "<record>", partial: bool = False) -> Record:
    """Read a record from its whole text; a last line without its newline is a cut line
    if it is not valid JSON."""
    lines = text.split("\n")
    ends_cleanly = lines[-1] == ""
    if ends_cleanly:
        lines.pop()
    return parse_record(lines, source=source, partial=partial, cut_last=not ends_cleanly)


def parse_record(
    lines: Iterable[str],
    *,
    source: str = "<record>",
    partial: bool = False,
    cut_last: bool = False,
) -> Record:
    """Read a record from its lines (without newlines). ``cut_last`` says the last line
    had no newline (so a JSON error there means the record was truncated)."""
    reader = _Reader(source)
    items = list(lines)
    for number, line in enumerate(items, start=1):
        reader.line(number, line, cut=cut_last and number == len(items))
    return reader.finish(len(items), partial)


class _Reader:
    """The state of one :func:`parse_record` call."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.header: Header | None = None
        self.events: list[Any] = []
        self.decisions: list[Decision] = []
        self.hands: list[HandRecord] = []
        self.summary: MatchSummary | None = None

    def corrupt(self, number: int, detail: str) -> CorruptRecordError:
        return CorruptRecordError(self.source, number, detail)

    def line(self, number: int, line: str, cut: bool) -> None:
        if not line.strip():
            raise self.corrupt(number, "an empty line")
        try:
            data = json.loads(line)
        except ValueError:
            if cut:
                raise TruncatedRecordError(self.source, number, "the last line is cut") from None
            raise self.corrupt(number, f"not JSON: {line[:60]!r}") from None
        if not isinstance(data, dict):
            raise self.corrupt(number, f"not a JSON object: {line[:60]!r}")
        if self.summary is not None:
            raise self.corrupt(number, "a line after the result line")
        kind = data.get("type")
        if self.header is None:
            self.header = self.read_header(number, data)
            return
        handler = _HANDLERS.get(kind)  # type: ignore[arg-type]
        if handler is None:
            raise self.corrupt(number, f"unknown line type {kind!r}")
        try:
            handler(self, number, data)
        except RecordError:
            raise
        except _BAD_VALUE as exc:
            raise self.corrupt(number, f"bad {kind} line: {exc}") from None

    def read_header(self, number: int, data: Mapping[str, Any]) -> Header:
        if data.get("type") != "header" or data.get("format") != FORMAT:
            raise RecordVersionError(
                self.source, number, f"not a {FORMAT} header: {dumps_short(data)}"
            )
        if data.get("version") != VERSION:
            raise RecordVersionError(
                self.source,
                number,
                f"version {data.get('version')!r}; this code reads version {VERSION}",
            )
        try:
            return Header.from_json(data)
        except _BAD_VALUE as exc:
            raise self.corrupt(number, f"bad header: {exc}") from None

    def event(self, number: int, data: Mapping[str, Any]) -> None:
        if data["index"] != len(self.events):
            raise self.corrupt(number, f"event {data['index']} where {len(self.events)} is due")
        self.events.append(event_from_json(data["event"]))

    def decision(self, number: int, data: Mapping[str, Any]) -> None:
        d = Decision.from_json(data)
        if d.after_event != len(self.events):
            raise self.corrupt(
                number, f"a decision after event {d.after_event} among event {len(self.events)}"
            )
        if d.legal and d.applied not in d.legal:
            raise self.corrupt(number, f"applied {d.applied} is not among its legal actions")
        self.decisions.append(d)

    def hand(self, number: int, data: Mapping[str, Any]) -> None:
        h = HandRecord.from_json(data)
        last = self.events[-1] if self.events else None
        if h.end_event != len(self.events) - 1 or type(last) is not HandEnd:
            raise self.corrupt(number, f"hand {h.hand} does not follow its hand_end event")
        if last.result != h.result or tuple(last.scores) != h.scores:
            raise self.corrupt(number, f"hand {h.hand} disagrees with its hand_end event")
        self.hands.append(h)

    def result(self, number: int, data: Mapping[str, Any]) -> None:
        self.summary = MatchSummary.from_json(data)

    def finish(self, count: int, partial: bool) -> Record:
        if self.header is None:
            raise TruncatedRecordError(self.source, 0, "it is empty (no header line)")
        if self.summary is None and not partial:
            raise TruncatedRecordError(
                self.source, count, "no result line (the match did not finish writing)"
            )
        return Record(
            self.header,
            tuple(self.events),
            tuple(self.decisions),
            tuple(self.hands),
            self.summary,
        )


_HANDLERS = {
    "event": _Reader.event,
    "decision": _Reader.decision,
    "hand": _Reader.hand,
    "result": _Reader.result,
}


def dumps_short(data: Any) -> str:
    """At most 60 characters of ``data`` as JSON, for error messages."""
    text = json.dumps(data, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."
