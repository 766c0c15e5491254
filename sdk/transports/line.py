"""The tournament line protocol (TCGA / TAAI / ICGA) over stdin/stdout or TCP.

The official wrapper starts a program and talks to it over its stdin and stdout, one
ASCII line per message; some referees connect over TCP instead. Either way the bot is
played by the same :class:`~sdk.session.Session` as over protocol v1, with
:class:`~protocol.line.adapter.LineClientAdapter` turning lines into the referee's
events and requests (its legal actions come from the referee's own rules code, since
the line protocol sends none). Follow-up asks of one decision are answered by the
adapter without asking the bot again. The line protocol cannot resume: a lost
connection ends the session.

>>> codec = LineCodec()
>>> codec.receive("/start MJ 2 demo")
[SessionStart(seat=1, name='demo', match_id='', table_id='', config={}, resumed=False)]
>>> codec.receive("/ready"), codec.outgoing()
([], ['/ready'])
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import stat
import threading
import time
from collections.abc import Awaitable, Callable
from typing import BinaryIO

from protocol.actions import Action
from protocol.line.adapter import LineClientAdapter
from protocol.line.tile_ids import LineError
from protocol.wire.common import ActionRequest, WireInput
from sdk.bot import Bot
from sdk.budget import DEFAULT_BUDGET, Budget
from sdk.session import NO_RECONNECT, Session, SessionResult, drive
from sdk.transports import Channel, ChannelClosed, ConnectFailed
from sdk.transports.transcript import TranscriptWriter

__all__ = [
    "LineCodec",
    "StreamChannel",
    "open_stdio",
    "open_tcp",
    "run_line",
    "run_stdio",
    "run_tcp",
    "token_line",
]

log = logging.getLogger(__name__)

_LIMIT = 1 << 16
"""Longest line accepted (the protocol's lines are at most 255 characters)."""


class LineCodec:
    """The line protocol's :class:`LineClientAdapter` as a session :class:`Codec`; with
    a ``transcript`` every line in and out, every ask's legal actions and every answer
    are written to it (:mod:`sdk.transports.transcript`)."""

    checks_legal = False  # the line protocol sends no legal actions to check against
    resumable = False
    recoverable: tuple[type[Exception], ...] = (LineError,)

    def __init__(
        self, adapter: LineClientAdapter | None = None, transcript: TranscriptWriter | None = None
    ) -> None:
        self.adapter = adapter or LineClientAdapter()
        self.transcript = transcript
        self._asked_at = 0.0
        """When the last request was read (for the transcript's answer times)."""

    def opening(self) -> list[str]:
        """The frames sent when a connection opens."""
        return []  # the referee speaks first (/start)

    def receive(self, frame: str) -> list[WireInput]:
        """Decode one frame into the session's inputs."""
        if self.transcript is None:
            return self.adapter.receive_line(frame)
        self.transcript.received(frame)  # first: a line that cannot be read is kept too
        items = self.adapter.receive_line(frame)
        for item in items:
            if isinstance(item, ActionRequest):
                self._asked_at = time.monotonic()
                self.transcript.offered(item.legal)
        return items

    def outgoing(self) -> list[str]:
        """Frames the codec wants sent now."""
        lines = self.adapter.lines_to_send()
        if self.transcript is not None:
            for line in lines:
                self.transcript.sent(line)
        return lines

    def ready(self) -> list[str]:
        """The frames that say the bot is ready."""
        return []  # readiness is probed by the referee (/ready), answered by the adapter

    def answer(self, request_id: str, action: Action) -> str | None:
        """The frame answering ``request_id`` with ``action`` (``None``: no longer asked)."""
        pending = self.adapter.pending_request
        if pending is None or pending.request_id != request_id:
            return None
        line = self.adapter.send_action(action)
        if self.transcript is not None:
            self.transcript.chose(action, (time.monotonic() - self._asked_at) * 1000)
            self.transcript.sent(line)
        return line


class _SyncWriter:
    """Blocking writes for an output that is not a pipe (a terminal or a file): the lines
    are short, so writing them directly never holds the loop for long."""

    def __init__(self, file: BinaryIO) -> None:
        self.file = file

    def write(self, data: bytes) -> None:
        self.file.write(data)
        self.file.flush()

    async def drain(self) -> None:
        return None

    def close(self) -> None:
        self.file.flush()

    async def wait_closed(self) -> None:
        return None


class _PipeWriter(asyncio.streams.FlowControlMixin):
    """The protocol of a write pipe, with the close waiter ``StreamWriter.wait_closed``
    needs (set once the transport has flushed and closed)."""

    def __init__(self) -> None:
        super().__init__()
        self._closed = asyncio.get_running_loop().create_future()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if not self._closed.done():
            self._closed.set_result(None)

    def _get_close_waiter(self, stream: object) -> asyncio.Future[None]:
        return self._closed


class StreamChannel:
    """Lines over an asyncio :class:`~asyncio.StreamReader` and a writer (a TCP socket
    or the process's stdin and stdout). Blank lines are skipped; a trailing ``\\r`` is
    accepted."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter | _SyncWriter):
        self.reader, self.writer = reader, writer

    async def recv(self) -> str:
        """The next frame; :class:`~sdk.transports.ChannelClosed` when the connection ends."""
        while True:
            try:
                raw = await self.reader.readline()
            except (ValueError, asyncio.LimitOverrunError):  # over the stream's limit
                log.warning(
                    "dropped a line from the referee over %d bytes (what follows of it, "
                    "up to its end, is read as a line of its own)",
                    _LIMIT,
                )
                continue
            except OSError as exc:
                raise ChannelClosed(f"cannot read: {exc}") from exc
            if not raw:
                raise ChannelClosed("end of input")
            line = raw.decode("ascii", "replace").rstrip("\r\n")
            if line.strip():
                return line

    async def send(self, frame: str) -> None:
        """Write one frame; :class:`~sdk.transports.ChannelClosed` if the connection is gone."""
        try:
            self.writer.write(frame.encode("ascii", "replace") + b"\n")
            await self.writer.drain()
        except OSError as exc:
            raise ChannelClosed(f"cannot write: {exc}") from exc

    async def close(self) -> None:
        """Close the connection."""
        try:
            self.writer.close()
            await self.writer.wait_closed()
        except OSError:
            pass


def _is_pipe(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _read_in_thread(file: BinaryIO, reader: asyncio.StreamReader) -> None:
    """Feed ``reader`` from a blocking ``file`` (a terminal or a regular file, which
    asyncio pipes do not accept) in a daemon thread."""
    loop = asyncio.get_running_loop()

    def pump() -> None:
        try:
            for line in iter(file.readline, b""):
                loop.call_soon_threadsafe(reader.feed_data, line)
            loop.call_soon_threadsafe(reader.feed_eof)
        except (OSError, RuntimeError):  # closed file, or the loop is gone
            pass

    threading.Thread(target=pump, name="sdk-stdin", daemon=True).start()


async def open_stdio(stdin_fd: int = 0, stdout_fd: int = 1) -> StreamChannel:
    """A channel over this process's stdin and stdout (as the official wrapper runs
    programs). Pipes and sockets use asyncio streams; a terminal or a file is read by a
    helper thread and written directly."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=_LIMIT)
    infile = os.fdopen(stdin_fd, "rb", buffering=0, closefd=False)
    if _is_pipe(stdin_fd):
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), infile)
    else:
        _read_in_thread(infile, reader)
    outfile = os.fdopen(stdout_fd, "wb", buffering=0, closefd=False)
    writer: asyncio.StreamWriter | _SyncWriter
    if _is_pipe(stdout_fd):
        transport, protocol = await loop.connect_write_pipe(_PipeWriter, outfile)
        writer = asyncio.StreamWriter(transport, protocol, reader, loop)
    else:
        writer = _SyncWriter(outfile)
    return StreamChannel(reader, writer)


TOKEN_LINE = "/token"
"""The line a program sends first to take the TCP line seat its token names (this
project's server, ``docs/SERVER.md``; other referees know nothing of it)."""


def token_line(token: str) -> str:
    """The ``/token`` line for a seat token (one line of printable ASCII).

    >>> token_line("s3cret")
    '/token s3cret'
    >>> token_line("two words")
    Traceback (most recent call last):
    ...
    ValueError: a line seat token is printable ASCII without spaces, not 'two words'
    """
    if not token or not token.isascii() or not token.isprintable() or " " in token:
        raise ValueError(f"a line seat token is printable ASCII without spaces, not {token!r}")
    return f"{TOKEN_LINE} {token}"


async def open_tcp(host: str, port: int, token: str | None = None) -> StreamChannel:
    """A channel to a referee listening on ``host:port``; :class:`ChannelClosed` if it
    cannot be reached. With a ``token`` its ``/token`` line goes first (before the
    referee's ``/start``), so the server seats this program in that token's seat."""
    line = None if token is None else token_line(token)
    try:
        reader, writer = await asyncio.open_connection(host, port, limit=_LIMIT)
    except OSError as exc:
        raise ConnectFailed(f"cannot connect to {host}:{port}: {exc}") from exc
    channel = StreamChannel(reader, writer)
    if line is not None:
        await channel.send(line)
    return channel


async def run_line(
    bot: Bot,
    connect: Callable[[], Awaitable[Channel]],
    *,
    budget: Budget = DEFAULT_BUDGET,
    strict: bool = False,
    executor: concurrent.futures.Executor | None = None,
    transcript: TranscriptWriter | None = None,
) -> SessionResult:
    """Play one line-protocol session over the channel ``connect`` opens (kept in
    ``transcript`` if given)."""
    codec = LineCodec(LineClientAdapter(budget.decision), transcript)
    session = Session(bot, codec, budget=budget, strict=strict, executor=executor)
    return await drive(session, connect, NO_RECONNECT)


async def run_stdio(
    bot: Bot,
    *,
    budget: Budget = DEFAULT_BUDGET,
    strict: bool = False,
    executor: concurrent.futures.Executor | None = None,
    stdin_fd: int = 0,
    stdout_fd: int = 1,
    transcript: TranscriptWriter | None = None,
) -> SessionResult:
    """Play over stdin/stdout (``--line``). Nothing else may write to ``stdout_fd``."""

    async def connect() -> Channel:
        return await open_stdio(stdin_fd, stdout_fd)

    return await run_line(
        bot, connect, budget=budget, strict=strict, executor=executor, transcript=transcript
    )


async def run_tcp(
    bot: Bot,
    host: str,
    port: int,
    *,
    budget: Budget = DEFAULT_BUDGET,
    strict: bool = False,
    executor: concurrent.futures.Executor | None = None,
    token: str | None = None,
    transcript: TranscriptWriter | None = None,
) -> SessionResult:
    """Connect to a line-protocol referee at ``host:port`` and play (``--tcp``). A
    ``token`` (``--token``) is sent first as a ``/token`` line: this project's server
    then gives the program exactly that seat (required unless the server runs with
    ``--open-line-seats``). The ``/token`` line is not part of the referee's dialogue,
    so a ``transcript`` leaves it out."""
    if token is not None:
        token_line(token)  # a bad token is a usage error before connecting

    async def connect() -> Channel:
        return await open_tcp(host, port, token)

    return await run_line(
        bot, connect, budget=budget, strict=strict, executor=executor, transcript=transcript
    )
