"""Connection limits below the app: how many sockets, how long to say something, how
much may be queued for a peer, and how loudly to complain when accepting fails.

uvicorn's protocol classes are subclassed (:func:`protocol_classes`) so that every
connection, HTTP or WebSocket, passes through one :class:`ConnectionGuard`:

* at most ``max_connections`` open sockets, and ``max_per_address`` from one address;
  a connection over either cap is closed at once (the client sees the connection
  closed before any answer);
* a connection that has not sent complete request headers within
  ``handshake_timeout`` seconds is closed (idle sockets cannot pile up);
* a WebSocket peer whose unsent output (frames, pongs) exceeds ``max_write_buffer``
  bytes is disconnected: a client that never reads cannot grow the server's memory;
  one that sends more than ``PING_RATE`` pings a second (bursts of ``PING_BURST``) is
  disconnected too;
* a text frame that is not UTF-8 is answered with close code 1007 and one log line;
* an address one of whose WebSocket connections was cut off here for abuse (too many
  pings, not reading) is barred for ``abuse_cooldown`` seconds: its new connections are
  closed on accept, before any parsing, so reconnecting in a loop costs the server
  next to nothing (its other open connections are left alone);
* but an address many clients share (``shared_networks``: loopback by default, where
  every local client has the same address) is never barred nor capped as one client:
  there the seat token of the connection cut off is barred instead (:meth:`barred`,
  checked at ``hello``), and a new connection over ``max_per_address`` makes room by
  closing the oldest *unsettled* connection of that address (one that has not sent its
  request headers, a keep-alive connection between requests, a WebSocket not seated
  yet nor waiting in the lobby: :meth:`settle`), which is the abuser's when one client
  holds hundreds;
* a socket closed while it still holds data its peer has not read stays counted (it
  is still open, with its buffer) and is aborted ``linger`` seconds later: a peer that
  never reads cannot keep closed sockets, and their buffers, forever.

:class:`AcceptLog` rate-limits the event loop's reports of failed ``accept()`` calls
(file descriptors exhausted): one line per interval with a count, not a traceback each.

>>> class T:
...     def __init__(self, host): self.host, self.closing = host, False
...     def get_extra_info(self, name): return (self.host, 1) if name == "peername" else None
...     def is_closing(self): return self.closing
>>> guard = ConnectionGuard(max_connections=3, max_per_address=2)
>>> a, b, c, d = T("10.0.0.1"), T("10.0.0.1"), T("10.0.0.1"), T("10.0.0.2")
>>> guard.admit(a), guard.admit(b), guard.admit(c), guard.admit(d)
(True, True, False, True)
>>> b.closing = True
>>> guard.admit(c), guard.open
(True, 3)
>>> guard.bar("10.0.0.2", now=0.0); guard.barred("10.0.0.2", now=1.0), guard.barred("10.0.0.2", now=9.0)
(True, False)

On a shared address the oldest unsettled connection gives way, and a settled one stays:

>>> guard = ConnectionGuard(max_connections=9, max_per_address=2, shared_networks=["127.0.0.0/8"])
>>> a, b, c = T("127.0.0.1"), T("127.0.0.1"), T("127.0.0.1")
>>> a.abort = b.abort = lambda: None
>>> guard.admit(a), guard.admit(b); guard.settle(a); guard.admit(c), guard.open
(True, True)
(True, 2)
>>> guard.bar("127.0.0.1", key="seat:k", now=0.0); guard.barred("127.0.0.1", now=1.0), guard.barred("seat:k", now=1.0)
(False, True)
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import struct
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any, Protocol

from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

from sdk.server.security import TokenBucket

__all__ = [
    "BEHIND",
    "SEND_NOW",
    "SOCKET",
    "AcceptLog",
    "ConnectionGuard",
    "SocketControl",
    "protocol_classes",
    "text_frame",
]

log = logging.getLogger("sdk.server.guard")


_MAX_BARRED = 10_000
"""Barred addresses kept; beyond, expired ones are forgotten."""


def _address(transport: Any) -> str:
    peer = transport.get_extra_info("peername")
    return str(peer[0]) if peer else "?"


def _unsent(transport: Any) -> int:
    """Bytes the transport holds for its peer (0 if it cannot say)."""
    size = getattr(transport, "get_write_buffer_size", None)
    try:
        return int(size()) if size is not None else 0
    except (OSError, RuntimeError, AttributeError):
        return 0


try:  # the kernel's send queue of a socket (Linux: SIOCOUTQ, the same number)
    import fcntl
    import termios

    _OUTQ: int | None = termios.TIOCOUTQ
except (ImportError, AttributeError):  # pragma: no cover - not Linux
    _OUTQ = None


def _kernel_unsent(transport: Any) -> int:
    """Bytes the kernel still holds for the peer of ``transport``'s socket (0 where the
    system cannot say): on a loopback connection it takes megabytes the peer never read."""
    sock = transport.get_extra_info("socket")
    if _OUTQ is None or sock is None:
        return 0
    with contextlib.suppress(OSError, ValueError, TypeError):
        return int(struct.unpack("i", fcntl.ioctl(sock.fileno(), _OUTQ, b"\0\0\0\0"))[0])
    return 0


BEHIND = 16 * 1024
"""Bytes a WebSocket peer may leave unread (in the transport and the kernel) and still
count as reading: one further behind is dropped, not closed gracefully, when it is
replaced, cut off, or silent past a timeout."""


class ConnectionGuard:
    """Counts open sockets (HTTP, WebSocket and line-protocol TCP) in total and per
    peer address. Sockets are tracked by transport; closed ones are pruned lazily, so
    no close hook is needed."""

    def __init__(
        self,
        max_connections: int,
        max_per_address: int,
        abuse_cooldown: float = 2.0,
        linger: float = 2.0,
        shared_networks: Sequence[str] = (),
    ) -> None:
        self.max_connections = max_connections
        self.max_per_address = max_per_address
        self.abuse_cooldown = abuse_cooldown
        self.linger = linger
        """Seconds a closed socket may keep unsent data before it is aborted."""
        self.aborted = 0
        """Closed sockets aborted so far because their peer did not take their data."""
        self._lingering: dict[int, float] = {}
        """Closed sockets still holding data -> since when (``time.monotonic``)."""
        self._sweeper: asyncio.TimerHandle | None = None
        self._open: dict[int, tuple[Any, str]] = {}
        self._per_address: Counter[str] = Counter()
        self._barred: dict[str, float] = {}
        """Address -> until when (``time.monotonic``) its new connections are refused."""
        self.refused = 0
        self.evicted = 0
        """Unsettled connections closed to make room on a shared address."""
        self._networks = tuple(ipaddress.ip_network(n) for n in shared_networks)
        self._shared: dict[str, bool] = {}
        self._unsettled: dict[int, tuple[Any, str]] = {}
        """Open sockets not settled (:meth:`settle`), oldest first."""

    def shared(self, address: str) -> bool:
        """Whether ``address`` is one many clients share (in ``shared_networks``)."""
        known = self._shared.get(address)
        if known is None:
            try:
                ip = ipaddress.ip_address(address)
                known = any(ip in network for network in self._networks)
            except ValueError:
                known = False
            if len(self._shared) < _MAX_BARRED:
                self._shared[address] = known
        return known

    def settle(self, transport: Any) -> None:
        """The connection is busy with a client's business (a request in progress, a
        WebSocket holding a seat): it no longer gives way on a shared address."""
        self._unsettled.pop(id(transport), None)

    def unsettle(self, transport: Any) -> None:
        """The connection is idle again (a keep-alive connection between requests)."""
        key = id(transport)
        entry = self._open.get(key)
        if entry is not None:
            self._unsettled.pop(key, None)
            self._unsettled[key] = entry  # the youngest

    def bar(self, address: str, now: float | None = None, key: str | None = None) -> None:
        """Refuse new connections from ``address`` for ``abuse_cooldown`` seconds (one of
        its connections was just cut off for abuse); on a shared address bar ``key``
        instead (the connection's seat, if it had one): the other clients there did
        nothing."""
        if self.abuse_cooldown <= 0:
            return
        if self.shared(address):
            if key is None:
                return
            address = key
        now = time.monotonic() if now is None else now
        if len(self._barred) >= _MAX_BARRED:
            self._barred = {a: t for a, t in self._barred.items() if t > now}
        self._barred[address] = now + self.abuse_cooldown

    def barred(self, address: str, now: float | None = None) -> bool:
        """Whether ``address`` (or a key given to :meth:`bar`) is barred now."""
        until = self._barred.get(address)
        if until is None:
            return False
        if (time.monotonic() if now is None else now) < until:
            return True
        del self._barred[address]
        return False

    @property
    def open(self) -> int:
        """Sockets open now."""
        self._prune()
        return len(self._open)

    def _prune(self) -> None:
        """Forget sockets that are gone: closed with nothing left to send (a closed
        socket with unsent data is still open, and counts)."""
        gone = [key for key, (t, _) in self._open.items() if t.is_closing() and not _unsent(t)]
        for key in gone:
            _, address = self._open.pop(key)
            self._per_address[address] -= 1
            self._lingering.pop(key, None)
            self._unsettled.pop(key, None)

    def sweep(self, now: float | None = None) -> int:
        """Abort the sockets closed ``linger`` seconds ago or more that still hold data
        their peer has not read; returns how many. Runs every ``linger / 2`` seconds
        (at most 1 s) while sockets are open."""
        now = time.monotonic() if now is None else now
        lingering, aborted = self._lingering, 0
        for key, (transport, _) in list(self._open.items()):
            if not transport.is_closing() or not _unsent(transport):
                lingering.pop(key, None)
                continue
            since = lingering.setdefault(key, now)
            if now - since >= self.linger:
                lingering.pop(key, None)
                transport.abort()
                aborted += 1
        for key in [k for k in lingering if k not in self._open]:
            del lingering[key]
        if aborted:
            self.aborted += aborted
            log.info(
                "%d closed connection(s) aborted: their peers did not read what was left",
                aborted,
            )
        return aborted

    def _schedule(self) -> None:
        if self._sweeper is not None or self.linger <= 0:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._sweeper = loop.call_later(min(1.0, max(0.05, self.linger / 2)), self._sweep)

    def _sweep(self) -> None:
        self._sweeper = None
        self.sweep()
        if self._open:
            self._schedule()

    def admit(self, transport: Any) -> bool:
        """Whether a new socket may stay open (it is counted if so)."""
        key = id(transport)
        if key in self._open:
            return True
        address = _address(transport)
        if self._barred and self.barred(address):
            self.refused += 1
            return False
        if (
            len(self._open) >= self.max_connections
            or self._per_address[address] >= self.max_per_address
        ):
            self._prune()
            if self._per_address[address] >= self.max_per_address and self.shared(address):
                self._evict(address)
            if (
                len(self._open) >= self.max_connections
                or self._per_address[address] >= self.max_per_address
            ):
                self.refused += 1
                if self.refused == 1 or self.refused % 1000 == 0:
                    log.warning(
                        "connection from %s refused: %d open (cap %d, %d per address);"
                        " %d refused so far",
                        address,
                        len(self._open),
                        self.max_connections,
                        self.max_per_address,
                        self.refused,
                    )
                return False
        self._open[key] = self._unsettled[key] = (transport, address)
        self._per_address[address] += 1
        self._schedule()
        return True

    def _evict(self, address: str) -> None:
        """Close the oldest unsettled connection of ``address`` (a shared one at its cap)."""
        for transport, where in self._unsettled.values():
            if where == address:
                self.release(transport)
                transport.abort()
                self.evicted += 1
                if self.evicted == 1 or self.evicted % 1000 == 0:
                    log.warning(
                        "%s (shared) has %d connections: the oldest idle one closed for a new"
                        " one; %d so closed so far",
                        address,
                        self.max_per_address,
                        self.evicted,
                    )
                return

    def release(self, transport: Any) -> None:
        """A socket closed (optional: closed sockets are also pruned lazily)."""
        entry = self._open.pop(id(transport), None)
        self._unsettled.pop(id(transport), None)
        if entry is not None:
            self._per_address[entry[1]] -= 1
            self._lingering.pop(id(transport), None)


class AcceptLog:
    """An event-loop exception handler that reports ``accept()`` failures at most once
    per ``interval`` seconds (with how many there were) and passes everything else to
    the previous handler."""

    def __init__(self, loop: asyncio.AbstractEventLoop, interval: float = 10.0) -> None:
        self.loop, self.interval = loop, interval
        self.previous = loop.get_exception_handler()
        self.suppressed = 0
        self._last = -interval

    def install(self) -> None:
        """Become the event loop's exception handler."""
        self.loop.set_exception_handler(self)

    def uninstall(self) -> None:
        """Give the loop its previous exception handler back."""
        self.loop.set_exception_handler(self.previous)

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if "accept" not in str(context.get("message", "")):
            if self.previous is not None:
                self.previous(loop, context)
            else:
                loop.default_exception_handler(context)
            return
        now = time.monotonic()
        if now - self._last < self.interval:
            self.suppressed += 1
            return
        exc = context.get("exception")
        log.error(
            "accepting connections fails: %s (%s); %d more such failure(s) since the last report",
            context.get("message"),
            exc,
            self.suppressed,
        )
        self._last, self.suppressed = now, 0


SEND_NOW = "taimahjong.send_now"
"""The WebSocket scope key of the connection's ``send_now(texts) -> bool`` (the
server's own shortcut around ASGI's one-message-per-coroutine ``send``)."""

SOCKET = "taimahjong.socket"
"""The WebSocket scope key of the connection's :class:`SocketControl`."""


class SocketControl(Protocol):
    """What the app may ask of a WebSocket connection's socket beyond ASGI."""

    @property
    def behind(self) -> bool:
        """Whether the peer is more than :data:`BEHIND` bytes behind."""

    def abort(self) -> None:
        """Drop the connection at once, discarding what it has not sent."""

    def identify(self, key: str | None) -> None:
        """The connection holds the seat ``key`` names, or waits for one in the lobby
        (``None``; see :meth:`ConnectionGuard.settle`)."""


def text_frame(payload: bytes) -> bytes:
    """An unmasked, unfragmented WebSocket text frame (RFC 6455, 5.2): a server's frame.

    >>> text_frame(b"hi")
    b'\\x81\\x02hi'
    >>> len(text_frame(b"x" * 200)), len(text_frame(b"x" * 70000))
    (204, 70010)
    """
    n = len(payload)
    if n < 126:
        return bytes((0x81, n)) + payload
    if n < 65536:
        return bytes((0x81, 126)) + n.to_bytes(2, "big") + payload
    return bytes((0x81, 127)) + n.to_bytes(8, "big") + payload


HANG_UP = frozenset({1008, 1009})
"""Close codes after which the server closes the socket at once (policy violations,
frames too big): it owes such a peer no closing handshake."""

PING_RATE, PING_BURST = 2.0, 20
"""Pings a WebSocket peer may send a second, with bursts: keepalive needs far fewer;
a peer over it is disconnected (answering pings costs the server CPU)."""


def protocol_classes(
    guard: ConnectionGuard, handshake_timeout: float, max_write_buffer: int
) -> tuple[type[H11Protocol], type[WebSocketsSansIOProtocol]]:
    """uvicorn's HTTP and WebSocket protocols with the guard's limits (see the module
    doc); pass them as ``uvicorn.Config(http=..., ws=...)``."""

    class GuardedHttp(H11Protocol):
        _handshake: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if not guard.admit(transport):
                transport.abort()
                return
            self._handshake = self.loop.call_later(handshake_timeout, self._handshake_expired)

        def _handshake_expired(self) -> None:
            self._handshake = None
            if self.cycle is None and not self.transport.is_closing():
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.cycle is not None:  # a request is in progress (not an upgrade)
                guard.settle(self.transport)
                if self._handshake is not None:
                    self._handshake.cancel()
                    self._handshake = None

        def on_response_complete(self) -> None:
            guard.unsettle(self.transport)  # idle until its next request
            super().on_response_complete()

        def handle_websocket_upgrade(self, event: Any) -> None:
            if self._handshake is not None:
                self._handshake.cancel()
                self._handshake = None
            super().handle_websocket_upgrade(event)

        def connection_lost(self, exc: Exception | None) -> None:
            if self._handshake is not None:
                self._handshake.cancel()
                self._handshake = None
            guard.release(self.transport)
            super().connection_lost(exc)

    class GuardedWs(WebSocketsSansIOProtocol):
        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            guard.admit(transport)  # counted already by the HTTP side (same socket)
            self._pings = TokenBucket(PING_RATE, PING_BURST, time.monotonic())
            self._batch: list[bytes] = []
            self._flush_soon = False
            self._client_key: str | None = None

        def handle_connect(self, event: Any) -> None:
            super().handle_connect(event)
            scope = getattr(self, "scope", None)
            if scope is not None:  # the app may write frames at once (see send_now)
                scope[SEND_NOW] = self.send_now
                scope[SOCKET] = self

        def identify(self, key: str | None) -> None:
            """The connection holds a seat (``key`` names it) or waits in the lobby for
            one (``None``): it is settled, and if it is cut off for abuse on a shared
            address, ``key`` is barred."""
            self._client_key = key
            guard.settle(self.transport)

        def backlog(self) -> int:
            """Bytes written for the peer that it has not taken: in the transport's
            buffer and the kernel's (this turn's batch, not written yet, is not
            counted)."""
            return _unsent(self.transport) + _kernel_unsent(self.transport)

        @property
        def behind(self) -> bool:
            """Whether the peer is more than :data:`BEHIND` bytes behind."""
            return self.backlog() > BEHIND

        def abort(self) -> None:
            """Drop the connection now, with what it has not sent."""
            self._batch = []
            self.transport.abort()

        def send_now(self, texts: Sequence[str]) -> bool:
            """Queue text frames for this turn's single socket write, without a
            coroutine per frame; ``False`` (nothing sent) when they must wait (the
            peer is not reading, or the connection is not open)."""
            conn = self.conn
            if (
                not self.handshake_complete
                or self.close_sent
                or self.initial_response is not None
                or self.disconnected
                or not self.writable.is_set()
                or conn.state is not State.OPEN
                or conn.extensions
            ):
                return False
            batch = self._batch
            for text in texts:
                batch.append(text_frame(text.encode()))
            if not self._flush_soon:
                self._flush_soon = True
                self.loop.call_soon(self._flush)
            return True

        async def send(self, message: Any) -> None:
            """Frames sent in one turn of the loop go out in one socket write (one
            system call instead of one per frame); anything else flushes them first."""
            if message["type"] == "websocket.send":
                text = message.get("text")
                if text is not None and self.send_now((text,)):
                    return
            self._flush()
            await super().send(message)
            if message["type"] == "websocket.close":
                if message.get("code") in HANG_UP:
                    self._hang_up()
                elif self.close_timer is not None:
                    self.close_timer.cancel()
                    self.close_timer = self.loop.call_later(self.close_timeout, self._unanswered)

        def _hang_up(self) -> None:
            """Close the socket once the close frame is out, without waiting for the
            peer's close reply: a flooder that never reads would never send it, and the
            server would read (and discard) its flood until the close timeout. A peer
            that is behind is dropped at once: a close would keep its unread data."""
            if self.behind:
                self.transport.abort()
            elif not self.transport.is_closing():
                self.transport.close()

        def _unanswered(self) -> None:
            """No close reply within the close timeout: close, or drop a peer that has
            not even read what it was sent."""
            self.close_timer = None
            if self.behind:
                self.transport.abort()
            else:
                self.transport.close()

        def keepalive_timeout(self) -> None:
            """No pong in time: as uvicorn does (close), but a peer that does not read
            is dropped (a close would keep its unread data)."""
            if self.behind and not self.close_sent and not self.transport.is_closing():
                self.pong_timer = None
                self.transport.abort()
                return
            super().keepalive_timeout()

        def _flush(self) -> None:
            self._flush_soon = False
            if self._batch:
                data, self._batch = b"".join(self._batch), []
                if not self.transport.is_closing():
                    self.transport.write(data)

        def handle_ping(self) -> None:
            if self._pings.take(time.monotonic()) > 0:
                if not self.transport.is_closing():
                    self._cut("sends too many pings")
                return
            super().handle_ping()

        def connection_lost(self, exc: Exception | None) -> None:
            guard.release(self.transport)
            super().connection_lost(exc)
            scope = getattr(self, "scope", None)
            if scope is not None:  # they held this protocol in a cycle through its scope
                scope.pop(SEND_NOW, None)
                scope.pop(SOCKET, None)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.transport.get_write_buffer_size() > max_write_buffer:
                self._cut("does not read what it is sent")

        def _cut(self, why: str) -> None:
            """Abort the connection for abuse and bar its address for a while."""
            address = _address(self.transport)
            guard.bar(address, key=self._client_key)
            barred = "its seat" if guard.shared(address) else "the address"
            log.warning(
                "%s %s; disconnecting (%s barred for %g s)",
                address,
                why,
                barred,
                guard.abuse_cooldown,
            )
            self.transport.abort()

        def send_receive_event_to_app(self) -> None:
            if self.curr_msg_data_type == "text" and not self.close_sent:
                try:
                    b"".join(self.frames).decode()
                except UnicodeDecodeError:
                    self.frames = []
                    log.warning(
                        "%s sent a text frame that is not UTF-8; closing (1007)",
                        _address(self.transport),
                    )
                    self.conn.send_close(1007, "invalid UTF-8")
                    self.transport.write(b"".join(self.conn.data_to_send()))
                    self.close_sent = True
                    self.transport.close()
                    return
            super().send_receive_event_to_app()

    return GuardedHttp, GuardedWs
