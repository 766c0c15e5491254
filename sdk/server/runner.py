"""Serving the app with uvicorn on loopback sockets: :func:`running_server` for tests,
benchmarks and embedding, :func:`serve` for the command line.

The WebSocket frame limit is given to uvicorn too (``ws_max_size``), so an oversized
frame is refused before it is even buffered whole. Compression (permessage-deflate) is
off: frames are small, and deflating each one cost a fifth of the server's time.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import socket
import sys
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

import uvicorn

from sdk.heap import freeze_heap
from sdk.server.app import create_app
from sdk.server.config import ServerConfig
from sdk.server.core import TournamentServer
from sdk.server.guard import AcceptLog, protocol_classes

__all__ = ["ServerHandle", "running_server", "serve"]

log = logging.getLogger("sdk.server")

SWITCH_INTERVAL = 0.001
"""Seconds a thread runs before the interpreter lock may pass (Python's default is
0.005): a house bot thinking in a worker thread delays the event loop at most this."""


@dataclass(frozen=True, slots=True)
class ServerHandle:
    """A running server: its state and where it listens."""

    server: TournamentServer
    host: str
    port: int

    @property
    def url(self) -> str:
        """The HTTP base URL."""
        return f"http://{self.host}:{self.port}"

    @property
    def ws_url(self) -> str:
        """The protocol v1 WebSocket URL."""
        return f"ws://{self.host}:{self.port}/v1/ws"

    @property
    def line_port(self) -> int | None:
        """The line-protocol TCP port, if listening."""
        return self.server.line_port


def _uvicorn(config: ServerConfig, server: TournamentServer, log_level: str) -> uvicorn.Server:
    app = create_app(server)
    http, ws = protocol_classes(server.guard, config.handshake_timeout, config.max_write_buffer)
    return uvicorn.Server(
        uvicorn.Config(
            app,
            host=config.host,
            port=config.port,
            http=http,
            ws=ws,
            ws_max_size=config.max_frame_bytes,
            ws_per_message_deflate=False,
            ws_ping_interval=20.0,
            ws_ping_timeout=20.0,
            log_level=log_level,
            access_log=False,
            lifespan="on",
        )
    )


def _bind(host: str, port: int) -> socket.socket:
    """A listening socket. ``proto=IPPROTO_TCP`` matters: asyncio sets ``TCP_NODELAY``
    on accepted connections only then, and without it Nagle's algorithm and delayed
    ACKs add about 40 ms to every request that follows an event frame."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(1024)
    sock.setblocking(False)
    return sock


@contextlib.asynccontextmanager
async def running_server(
    config: ServerConfig, seats: Sequence[str] = (), log_level: str = "warning"
) -> AsyncIterator[ServerHandle]:
    """Serve in this event loop until the block ends (``config.port`` 0: any free port)."""
    server = TournamentServer(config, seats)
    sock = _bind(config.host, config.port)
    server.http_port = sock.getsockname()[1]
    userver = _uvicorn(config, server, log_level)
    accept_log = AcceptLog(asyncio.get_running_loop(), config.accept_log_interval)
    accept_log.install()
    task = asyncio.create_task(userver.serve(sockets=[sock]))
    try:
        while not userver.started:
            if task.done():
                task.result()
                raise RuntimeError("the server stopped while starting")
            await asyncio.sleep(0.01)
        yield ServerHandle(server, config.host, sock.getsockname()[1])
    finally:
        userver.should_exit = True
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, 15.0)
        sock.close()
        accept_log.uninstall()


FULL_COLLECTION_RATIO = 100
"""Young-generation collections between two full ones (Python's default is 10)."""


def tune_garbage_collector() -> None:
    """Keep full garbage collections out of the tables' way; called once start-up is over.

    Every object alive after start-up (modules, the app, the routes, pydantic's
    validators: about 70,000) is frozen out of the collector's reach: they live as long
    as the process, yet each full collection walked them all, 50-60 ms on the
    development machine. And full collections come ten times rarer: one walks the whole
    heap of the tables playing (about 100,000 objects at 100 tables, 50-100 ms here), a
    pause that lands in the p99 latency of every table at once. Cyclic garbage waits
    longer (about 28 MiB more at the peak of the attack benchmark), but none of it is
    a finished table (those are freed by reference counting,
    :meth:`sdk.server.table.Table.dispose`), and :func:`full_collections` runs one at
    least once a minute; young collections are unchanged. ``benchmarks/bench_server.py`` measures the effect
    (``docs/SERVER.md``, Capacity)."""
    freeze_heap()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_RATIO)


FULL_COLLECTION_EVERY = 60.0
"""Seconds at most between two full collections of a served process (see
:func:`full_collections`)."""


def full_collections_so_far() -> int:
    """Full (generation 2) collections this process has run.

    >>> before = full_collections_so_far(); _ = gc.collect(); full_collections_so_far() > before
    True
    """
    return int(gc.get_stats()[2]["collections"])


async def full_collections(every: float = FULL_COLLECTION_EVERY) -> None:
    """Run a full collection whenever none ran for ``every`` seconds, forever.

    The rarer full collections of :func:`tune_garbage_collector` came so rarely under
    steady play that none ran in sixteen 1,024-hand tables, and whatever cyclic garbage
    there was waited for ever; this keeps them coming at least once a minute, one pause
    of a few tens of milliseconds, while finished tables themselves are freed at once by
    reference counting (:meth:`sdk.server.table.Table.dispose`)."""
    seen = full_collections_so_far()
    while True:
        await asyncio.sleep(every)
        now = full_collections_so_far()
        if now == seen:
            gc.collect()
            now = full_collections_so_far()
        seen = now


async def _tune_once_started(userver: uvicorn.Server) -> None:
    """:func:`tune_garbage_collector` as soon as ``userver`` has started (never, if it
    fails to start: the failure then ends :func:`serve` as it would without this), then
    :func:`full_collections` until the server stops."""
    while not userver.started:
        await asyncio.sleep(0.01)
    tune_garbage_collector()
    await full_collections()


def serve(config: ServerConfig, seats: Sequence[str] = (), log_level: str = "info") -> None:
    """Serve until interrupted (the command line)."""
    server = TournamentServer(config, seats)
    userver = _uvicorn(config, server, log_level)
    sock = _bind(config.host, config.port)
    server.http_port = sock.getsockname()[1]

    async def main() -> None:
        # house bots run in threads: hand the interpreter back to the event loop sooner
        sys.setswitchinterval(SWITCH_INTERVAL)
        AcceptLog(asyncio.get_running_loop(), config.accept_log_interval).install()
        watcher = asyncio.create_task(_tune_once_started(userver))
        try:
            await userver.serve(sockets=[sock])
        finally:
            watcher.cancel()

    asyncio.run(main())
