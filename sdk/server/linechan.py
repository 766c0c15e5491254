"""Line-protocol transports: a TCP connection or a program's stdin/stdout, as one
:class:`LineChannel` of text lines.

Reading is metered: lines longer than the limit end the connection
(:class:`LineTooLongError`), and a program that sends lines faster than the rate is
slowed down, then cut off (:class:`~sdk.server.security.TokenBucket`). Writing never
blocks the table: a peer that stops reading until too much is queued is disconnected.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence

from sdk.server.security import TokenBucket

__all__ = ["LineChannel", "LineTooLongError", "spawn_program"]

log = logging.getLogger("sdk.server.linechan")

_MAX_WRITE_BUFFER = 1 << 20
"""Bytes queued for a peer that does not read before it is disconnected."""


class LineTooLongError(Exception):
    """A peer sent a line over the limit (or flooded); the channel is closed."""


class LineChannel:
    """Text lines over an asyncio stream pair (a TCP connection, or a subprocess' stdout
    and stdin). ``process`` is set for a program the server started."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        label: str,
        *,
        rate: float,
        burst: int,
        flood_seconds: float = 2.0,
        process: asyncio.subprocess.Process | None = None,
        grace: float = 2.0,
    ) -> None:
        self.reader, self.writer, self.label = reader, writer, label
        self.process = process
        self.grace = grace
        self.closed = False
        self._bucket = TokenBucket(rate, burst, asyncio.get_running_loop().time(), flood_seconds)

    def write_lines(self, lines: Sequence[str]) -> None:
        """Queue ``lines`` (each ended by ``\\n``); never blocks."""
        if self.closed:
            return
        try:
            self.writer.write(("\n".join(lines) + "\n").encode("ascii", "replace"))
        except (ConnectionError, RuntimeError) as exc:
            log.info("%s: write failed (%s); closing", self.label, exc)
            self._abort()
            return
        transport = self.writer.transport
        if transport.get_write_buffer_size() > _MAX_WRITE_BUFFER:
            log.warning("%s does not read its lines; disconnecting", self.label)
            self._abort()

    def grant(self, n: int) -> None:
        """``n`` answers are due from the peer (asks and probes it was sent)."""
        if n:
            self._bucket.grant(n)

    async def read_line(self) -> str | None:
        """The next line (without its end), or ``None`` at the end of the stream.
        Raises :class:`LineTooLongError` for an over-long line or a flood."""
        if self.closed:
            return None
        try:
            data = await self.reader.readline()
        except (asyncio.LimitOverrunError, ValueError):
            raise LineTooLongError(f"{self.label} sent a line over the limit") from None
        except ConnectionError:
            return None
        if not data:
            return None
        loop = asyncio.get_running_loop()
        delay = self._bucket.take(loop.time())
        if self._bucket.flooding:
            raise LineTooLongError(f"{self.label} floods lines")
        if delay:
            await asyncio.sleep(delay)
        return data.decode("ascii", "replace").rstrip("\r\n")

    def _abort(self) -> None:
        self.closed = True
        with contextlib.suppress(RuntimeError):
            self.writer.transport.abort()

    async def close(self) -> None:
        """Flush and close; for a program, wait ``grace`` seconds, then kill it."""
        if not self.closed:
            self.closed = True
            with contextlib.suppress(ConnectionError, RuntimeError):
                self.writer.close()
            with contextlib.suppress(ConnectionError, RuntimeError, TimeoutError):
                await asyncio.wait_for(self.writer.wait_closed(), self.grace)
        process = self.process
        if process is not None and process.returncode is None:
            try:
                await asyncio.wait_for(process.wait(), self.grace)
            except TimeoutError:
                log.warning("%s did not exit after the match; killing it", self.label)
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()


async def spawn_program(
    command: Sequence[str],
    label: str,
    *,
    limit: int,
    rate: float,
    burst: int,
    flood_seconds: float,
    grace: float,
) -> LineChannel:
    """Start ``command`` with pipes on stdin/stdout (stderr goes to the server's) and
    wrap them in a :class:`LineChannel`. Raises :class:`OSError` if it cannot start."""
    process = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        limit=limit,
    )
    assert process.stdout is not None and process.stdin is not None
    return LineChannel(
        process.stdout,
        process.stdin,
        label,
        rate=rate,
        burst=burst,
        flood_seconds=flood_seconds,
        process=process,
        grace=grace,
    )
