"""Where a record comes from: a file, or a server URL (``/v1/matches/{id}/log.jsonl``).

Every failure is a :class:`ReplayInputError` with a one-line message and the exit code
the command-line tools use: 2 when the argument names nothing readable (no such file, a
URL the server does not know), 1 when the data is bad (truncated, corrupt, another
format version) or the server cannot be reached.

>>> record_url("http://127.0.0.1:8765/v1/matches/m-1")
'http://127.0.0.1:8765/v1/matches/m-1/log.jsonl'
>>> record_url("http://127.0.0.1:8765/v1/matches/m-1/log.jsonl")
'http://127.0.0.1:8765/v1/matches/m-1/log.jsonl'
>>> record_url("http://127.0.0.1:8765/v1/matches/m-1/view?seat=2")
'http://127.0.0.1:8765/v1/matches/m-1/log.jsonl'
"""

from __future__ import annotations

import argparse
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from sdk.records import Record, RecordError, parse_text
from sdk.records.transcript import looks_like_transcript, record_from_transcript

__all__ = [
    "EXIT_BAD_DATA",
    "EXIT_USAGE",
    "MIN_WIDTH",
    "ReplayInputError",
    "add_width_option",
    "load_record",
    "match_record_url",
    "record_url",
]

EXIT_BAD_DATA = 1
EXIT_USAGE = 2


MIN_WIDTH = 20
"""The narrowest ``--width`` the terminal tools accept (a table needs some room)."""


def add_width_option(parser: argparse.ArgumentParser) -> None:
    """``--width COLUMNS`` of the terminal tools (replay, review): at least
    :data:`MIN_WIDTH`, or argparse's usage error (a width of 0 printed nothing)."""
    parser.add_argument(
        "--width", type=_columns, default=None, metavar="COLUMNS",
        help=f"output width, at least {MIN_WIDTH} (default: the terminal's)",
    )  # fmt: skip


def _columns(text: str) -> int:
    try:
        width = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if width < MIN_WIDTH:
        raise argparse.ArgumentTypeError(f"{width} is too narrow: at least {MIN_WIDTH}")
    return width


class ReplayInputError(Exception):
    """A record could not be loaded; ``exit_code`` is 2 (usage) or 1 (bad data)."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def is_url(text: str) -> bool:
    return text.startswith(("http://", "https://"))


def record_url(url: str) -> str:
    """The ``log.jsonl`` URL of a match URL: the match itself, its ``log.jsonl``, its
    ``log`` or its viewer page (``/view?seat=2``)."""
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    for suffix in ("/view", "/log"):
        if path.endswith(suffix):
            path = path[: -len(suffix)]
    if not path.endswith(".jsonl"):
        path += "/log.jsonl"
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def match_record_url(server_url: str, match_id: str) -> str:
    """Where a server serves a match's record, from any URL of that server (its
    WebSocket ``ws://HOST:PORT/v1/ws`` or HTTP base).

    >>> match_record_url("ws://127.0.0.1:8765/v1/ws", "m-3")
    'http://127.0.0.1:8765/v1/matches/m-3/log.jsonl'
    """
    parts = urlsplit(server_url)
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
    return urlunsplit((scheme, parts.netloc, f"/v1/matches/{match_id}/log.jsonl", "", ""))


def load_record(source: str, *, partial: bool = False, timeout: float = 10.0) -> Record:
    """Read the record at ``source``, a file path or an ``http(s)://`` URL. A file that
    is a line-protocol transcript (``--save-transcript``) gives its seat's record
    (:func:`~sdk.records.transcript.record_from_transcript`; a session cut short is
    read as far as it goes)."""
    text = _fetch(record_url(source), timeout) if is_url(source) else _read(source)
    try:
        if not is_url(source) and looks_like_transcript(text):
            return record_from_transcript(text, source)
        return parse_text(text, source=source, partial=partial)
    except RecordError as exc:
        raise ReplayInputError(str(exc), EXIT_BAD_DATA) from None


def refused_seat(record: Record, seat: int | None) -> str | None:
    """Why ``seat`` cannot be shown from ``record``, or ``None``: a record of one seat's
    side (a transcript) shows that seat only.

    >>> from sdk.records import Header, Record, SeatInfo
    >>> rec = Record(Header(0, 1, tuple(SeatInfo(s, s, "b") for s in range(4))), (), (), (), None, 2)
    >>> refused_seat(rec, 2), refused_seat(rec, 0)
    (None, '--seat 0: this transcript shows seat 2 only')
    """
    if record.perspective is None or seat in (None, record.perspective):
        return None
    return f"--seat {seat}: this transcript shows seat {record.perspective} only"


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReplayInputError(f"{path}: no such file", EXIT_USAGE) from None
    except UnicodeDecodeError:
        raise ReplayInputError(
            f"{path}: the record is corrupt: not UTF-8 text", EXIT_BAD_DATA
        ) from None
    except OSError as exc:
        raise ReplayInputError(f"{path}: cannot read it ({exc.strerror})", EXIT_USAGE) from None


def _fetch(url: str, timeout: float) -> str:
    import httpx

    try:
        response = httpx.get(url, timeout=timeout)
    except httpx.HTTPError as exc:
        raise ReplayInputError(f"{url}: cannot reach the server ({exc})", EXIT_BAD_DATA) from None
    if response.status_code == 404:
        raise ReplayInputError(f"{url}: the server knows no such match (404)", EXIT_USAGE)
    if response.status_code != 200:
        raise ReplayInputError(
            f"{url}: the server answered {response.status_code}: {response.text[:80]!r}",
            EXIT_BAD_DATA,
        )
    return response.text
