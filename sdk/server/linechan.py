"""Line-protocol transports: a TCP connection or a program's stdin/stdout, as one
:class:`LineChannel` of text lines.

Reading is metered: lines longer than the limit end the connection
(:class:`LineTooLongError`), and a program that sends lines faster than the rate is
slowed down, then cut off (:class:`~sdk.server.security.TokenBucket`). Writing never
blocks the table: a peer that stops reading until too much is queued is disconnected.

Programs the server starts (:func:`spawn_program`) get the care programs built from
public tournament code need:

* **start-up noise**: lines a program prints before its first ``/ask`` (up to
  ``startup_lines``) are not metered as a flood; the seat logs and ignores them;
* **standard error** goes to a per-seat file capped at ``stderr_bytes`` (the rest is
  read and dropped, so the program never blocks on a full pipe), never to the server's
  own log;
* **process tree**: the program runs in a session of its own under the keeper of
  :mod:`sdk.procs`, which ends every process the program left behind (a forgotten child,
  a daemon detached with ``setsid``) when it exits; a program still running ``grace``
  seconds after its match is killed with its whole tree (:func:`sdk.procs.kill_tree`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections.abc import Sequence
from pathlib import Path

from sdk.procs import kill_tree, session_command
from sdk.server.security import TokenBucket

__all__ = [
    "LineChannel",
    "LineTooLongError",
    "spawn_program",
    "spawn_tcp_program",
]

log = logging.getLogger("sdk.server.linechan")

_MAX_WRITE_BUFFER = 1 << 20
"""Bytes queued for a peer that does not read before it is disconnected."""
STARTUP_LINES = 10000
"""Lines a program may print before its first ``/ask`` without being metered."""
STDERR_BYTES = 1 << 20
"""Bytes of a started program's standard error kept in its file."""


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
        startup_lines: int = STARTUP_LINES,
    ) -> None:
        self.reader, self.writer, self.label = reader, writer, label
        self.process = process
        self.grace = grace
        self.closed = False
        self.starting = True
        """Until the first ``/ask`` is written: the program's lines are start-up noise."""
        self.startup_lines = startup_lines
        self.noise = 0
        """Lines read while :attr:`starting`."""
        self._bucket = TokenBucket(rate, burst, asyncio.get_running_loop().time(), flood_seconds)
        self.stderr_task: asyncio.Task[None] | None = None
        """Copies a started program's standard error to its file."""
        self._pending: list[str] = []
        self._flush_due = False

    @property
    def gone(self) -> bool:
        """Whether the peer is known to be gone: the channel was closed, or the peer
        ended its stream with nothing left unread (a client that connected and left)."""
        return self.closed or self.writer.transport.is_closing() or self.reader.at_eof()

    def write_lines(self, lines: Sequence[str]) -> None:
        """Queue ``lines`` (each ended by ``\\n``); never blocks. The lines queued in
        one turn of the event loop go out in one write when the turn ends: a decision's
        echoes and the next ask reach a program in one piece (one wake-up, not one per
        line, which on a busy machine cost the table more than all its other work)."""
        if self.closed:
            return
        self._pending.append("\n".join(lines) + "\n")
        if not self._flush_due:
            self._flush_due = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        """Write what was queued this turn."""
        self._flush_due = False
        if self.closed or not self._pending:
            return
        data, self._pending = "".join(self._pending), []
        try:
            self.writer.write(data.encode("ascii", "replace"))
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

    def end_startup(self) -> None:
        """The first ``/ask`` was written: from now on every line is metered."""
        self.starting = False

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
        if self.starting:  # start-up noise is not a flood, up to a bound
            self.noise += 1
            if self.noise > self.startup_lines:
                raise LineTooLongError(
                    f"{self.label} printed over {self.startup_lines} lines before its first /ask"
                )
            return data.decode("ascii", "replace").rstrip("\r\n")
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
        self._flush()
        if not self.closed:
            self.closed = True
            with contextlib.suppress(ConnectionError, RuntimeError):
                self.writer.close()
            with contextlib.suppress(ConnectionError, RuntimeError, TimeoutError):
                await asyncio.wait_for(self.writer.wait_closed(), self.grace)
        process = self.process
        if process is None:
            return
        try:
            if process.returncode is None:
                await asyncio.wait_for(process.wait(), self.grace)
        except TimeoutError:
            log.warning("%s did not exit after the match; killing it", self.label)
        finally:  # also when the server shuts down and cancels the wait
            _end_tree(process)
        await process.wait()
        if self.stderr_task is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.stderr_task, self.grace)


def _end_tree(process: asyncio.subprocess.Process) -> None:
    """Kill a started program's whole tree if it still runs (once it has exited, its
    keeper has ended the tree, and its pid may already be another process'); its
    process group in any case (a group id is not reused while the group lives)."""
    if process.returncode is None:
        kill_tree(process.pid)
    else:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)


async def _capture(stream: asyncio.StreamReader, path: Path, cap: int, label: str) -> None:
    """Copy ``stream`` to ``path`` up to ``cap`` bytes; read and drop the rest (so the
    program never blocks writing its standard error)."""
    kept = 0
    try:
        with path.open("wb") as out:
            while data := await stream.read(65536):
                if kept < cap:
                    out.write(data[: cap - kept])
                    out.flush()
                    kept += len(data[: cap - kept])
                    if kept >= cap:
                        out.write(b"\n[standard error cut at %d bytes]\n" % cap)
                        log.info("%s: standard error over %d bytes; the rest dropped", label, cap)
    except OSError as exc:
        log.warning("%s: cannot keep standard error in %s: %s", label, path, exc)
        while await stream.read(65536):
            pass


async def spawn_program(
    command: Sequence[str],
    label: str,
    *,
    limit: int,
    rate: float,
    burst: int,
    flood_seconds: float,
    grace: float,
    stderr_path: str | Path | None = None,
    stderr_bytes: int = STDERR_BYTES,
    startup_lines: int = STARTUP_LINES,
    cwd: str | Path | None = None,
) -> LineChannel:
    """Start ``command`` in a session of its own under the :mod:`sdk.procs` keeper (in
    folder ``cwd``, if given), with pipes on stdin/stdout, its standard error kept in
    ``stderr_path`` (at most ``stderr_bytes``; ``None``: dropped), and wrap it in a
    :class:`LineChannel`. Raises :class:`OSError` if it cannot start."""
    process = await asyncio.create_subprocess_exec(
        *session_command(command),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=limit,
        start_new_session=True,
        cwd=cwd,
    )
    assert process.stdout is not None and process.stdin is not None
    limits = {"rate": rate, "burst": burst, "flood_seconds": flood_seconds, "grace": grace}
    channel = LineChannel(process.stdout, process.stdin, label, process=process,
                          startup_lines=startup_lines, **limits)  # fmt: skip
    _keep_stderr(channel, process, label, stderr_path, stderr_bytes)
    return channel


def _keep_stderr(
    channel: LineChannel,
    process: asyncio.subprocess.Process,
    label: str,
    stderr_path: str | Path | None,
    stderr_bytes: int,
) -> None:
    """Copy the program's standard error to ``stderr_path`` (capped) as it runs."""
    assert process.stderr is not None
    path = Path(os.devnull) if stderr_path is None else Path(stderr_path)
    if stderr_path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
    channel.stderr_task = asyncio.get_running_loop().create_task(
        _capture(process.stderr, path, stderr_bytes, label), name=f"{label} stderr"
    )


async def spawn_tcp_program(
    template: Sequence[str],
    label: str,
    *,
    connect_seconds: float,
    limit: int,
    rate: float,
    burst: int,
    flood_seconds: float,
    grace: float,
    stderr_path: str | Path | None = None,
    stderr_bytes: int = STDERR_BYTES,
    startup_lines: int = STARTUP_LINES,
    cwd: str | Path | None = None,
) -> LineChannel:
    """Start a program that connects to its referee by TCP (``MctsPlayer HOST PORT``):
    listen on a loopback port of our own, start ``template`` with ``{host}`` and
    ``{port}`` filled in (under the :mod:`sdk.procs` keeper, like :func:`spawn_program`), and
    wrap the first connection that arrives within ``connect_seconds`` in a
    :class:`LineChannel` that owns the process. Raises :class:`OSError` if it cannot
    start or never connects (the program is then stopped)."""
    accepted: asyncio.Future[tuple[asyncio.StreamReader, asyncio.StreamWriter]]
    accepted = asyncio.get_running_loop().create_future()

    def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if accepted.done():
            writer.close()  # one program, one connection
        else:
            accepted.set_result((reader, writer))

    server = await asyncio.start_server(on_connect, "127.0.0.1", 0, limit=limit)
    try:
        host, port = server.sockets[0].getsockname()[:2]
        command = [w.replace("{host}", host).replace("{port}", str(port)) for w in template]
        process = await asyncio.create_subprocess_exec(
            *session_command(command),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            cwd=cwd,
        )
        exited = asyncio.ensure_future(process.wait())
        done, _ = await asyncio.wait({accepted, exited}, timeout=connect_seconds,
                                     return_when=asyncio.FIRST_COMPLETED)  # fmt: skip
        if accepted not in done:
            exited.cancel()
            _end_tree(process)
            await process.wait()
            why = "exited" if process.returncode is not None and exited in done else "timed out"
            raise OSError(f"{label} did not connect to {host}:{port} ({why})")
        exited.cancel()
    finally:
        server.close()
    reader, writer = accepted.result()
    limits = {"rate": rate, "burst": burst, "flood_seconds": flood_seconds, "grace": grace}
    channel = LineChannel(reader, writer, label, process=process,
                          startup_lines=startup_lines, **limits)  # fmt: skip
    _keep_stderr(channel, process, label, stderr_path, stderr_bytes)
    return channel
