"""The WebSocket side of protocol v1: one coroutine per connection, thin around the
sans-I/O :class:`~protocol.wire.WireServerSeat` (held by :class:`~sdk.server.seats.WsSeat`).

A connection's first frame must be ``hello``. With a token it is routed to that token's
seat (and can only ever act for it); without one it waits in the lobby until a table
forms. Then every frame goes to the seat, with these limits around it:

* frames over ``max_frame_bytes`` get a fatal ``malformed`` error and close the
  connection (code 1009);
* a connection sending faster than ``rate_per_second`` is slowed down, and one that
  keeps flooding gets a fatal error and is closed (code 1008);
* frames to a client that does not read are queued up to ``max_outbox``, then it is
  closed (it may reconnect and resume).

Frames go straight into the socket's buffer while the client reads (one write per
loop turn); for a client that does not, they wait in the outbox of a writer task, so a
slow client never stalls its table. A resume's replay (up to a whole match) is pulled
from the seat's log a piece at a time as the client reads it, so it never sits in the
server's buffers whole.

A connection that is replaced by a newer one with its token, or cut off for not
reading, is dropped at once (``transport.abort()``) if the client is behind: a graceful
close would keep its socket and unsent data until a client that never reads read them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from protocol.wire import PROTOCOL_VERSION
from protocol.wire.codec import UnknownMessageError, WireDecodeError, decode_client_frame, encode
from protocol.wire.common import ErrorCode
from protocol.wire.messages import ErrorMsg, Hello
from protocol.wire.session import clip
from sdk.server.guard import HANG_UP, SEND_NOW, SOCKET, SocketControl
from sdk.server.lobby import Entrant, LobbyFullError
from sdk.server.records import Clock
from sdk.server.seats import WsSeat
from sdk.server.security import TokenBucket

if TYPE_CHECKING:
    from sdk.server.core import TournamentServer

__all__ = ["WsConnection", "serve_ws"]

log = logging.getLogger("sdk.server.ws")

HELLO_TIMEOUT = 10.0
"""Seconds a new connection has to send ``hello``."""
CLOSE_TOO_BIG, CLOSE_POLICY = 1009, 1008


def seat_key(token: str) -> str:
    """What an abuse bar on a shared address falls on: the seat of ``token``.

    >>> seat_key("abc")
    'seat:abc'
    """
    return f"seat:{token}"


class WsConnection:
    """One WebSocket connection: an outbox drained by a writer task (a
    :class:`~sdk.server.seats.FrameSink`)."""

    def __init__(
        self,
        websocket: WebSocket,
        max_outbox: int,
        bucket: TokenBucket,
        max_outbox_bytes: int = 1 << 20,
    ) -> None:
        self.websocket = websocket
        self.bucket = bucket
        self.max_outbox = max_outbox
        self.max_outbox_bytes = max_outbox_bytes
        self.closed = False
        self._out: deque[str] = deque()
        self._queued = 0
        """Characters queued in ``_out``."""
        self._pull: Callable[[], list[str]] | None = None
        """Where the rest of a resume's replay comes from, a piece at a time."""
        self._wake = asyncio.Event()
        self._close: tuple[int, str] | None = None
        self._hard = False
        """Closing for cause: nothing more is sent (no more of a replay)."""
        self._send_now: Callable[[Sequence[str]], bool] | None = websocket.scope.get(SEND_NOW)
        """The socket's direct write (:data:`~sdk.server.guard.SEND_NOW`), if served
        by :func:`~sdk.server.guard.protocol_classes`."""
        self._socket: SocketControl | None = websocket.scope.get(SOCKET)
        """The socket itself (:data:`~sdk.server.guard.SOCKET`): what it has not sent,
        and abort."""

    @property
    def behind(self) -> bool:
        """Whether the client is behind: more than :data:`~sdk.server.guard.BEHIND`
        bytes sent to it that it has not taken."""
        sock = self._socket
        return sock is not None and sock.behind

    def send(self, frames: Sequence[str]) -> None:
        """Send ``frames`` to the client: written at once when nothing is queued and
        the client reads, else queued for the writer task."""
        if self._close is not None or self.closed:
            return
        send_now = self._send_now
        if send_now is not None and not self._out and self._pull is None and send_now(frames):
            return
        self._out.extend(frames)
        self._queued += sum(map(len, frames))
        self._check()
        self._wake.set()

    def pull(self, source: Callable[[], list[str]], held: int) -> None:
        """Take a resume's replay from ``source()`` a piece at a time as the client
        reads (after what is queued now); ``held`` characters of frames wait behind it
        in the seat and count against the outbox limit."""
        if self._close is not None or self.closed:
            return
        if self._pull is None:
            self._pull = source
        self._check(held)
        self._wake.set()

    def _check(self, held: int = 0) -> None:
        if len(self._out) > self.max_outbox or self._queued + held > self.max_outbox_bytes:
            log.warning("a client does not read its frames; closing its connection")
            self.abort("not reading")

    def abort(self, reason: str = "aborted") -> None:
        """Drop the connection now with what it has not sent: for a client that does
        not read, whose socket a graceful close would keep open (and its buffers)."""
        self._out.clear()
        self._queued = 0
        self._pull = None
        self._hard = True
        if self._close is None:
            self._close = (CLOSE_POLICY, reason)
        if self._socket is not None:
            self._socket.abort()
        self._wake.set()

    def replaced(self) -> None:
        """A newer connection took the seat with its token: tell this client, or drop
        it at once if it is behind."""
        if self.behind:
            self.abort("replaced by a new connection")
            return
        self.error(ErrorCode.CONFLICT, "a new connection presented this seat's token")
        self.close(CLOSE_POLICY, "replaced by a new connection")

    def identify(self, key: str | None) -> None:
        """The connection holds the seat ``key`` names (``None``: a bot waiting in the
        lobby for one): its socket is settled (it never gives way to a newcomer on a
        shared address) and an abuse bar falls on ``key``."""
        if self._socket is not None:
            self._socket.identify(key)

    def grant(self) -> None:
        """Allow the client one more frame beyond the rate (an answer the server asked for)."""
        self.bucket.grant()

    def error(self, code: ErrorCode, message: str, *, fatal: bool = True) -> None:
        """Queue an ``error`` frame from the connection itself (no seat yet)."""
        self.send([encode(ErrorMsg(seq=0, code=code, message=message, fatal=fatal))])

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Close the connection with ``code`` and ``reason``: after what is queued (and
        the rest of a replay), or at once for cause (``code`` 1008, 1009) when the
        client is behind."""
        if self._close is None:
            self._close = (code, reason)
        if code in HANG_UP:
            self._hard = True
            self._pull = None
            if self.behind:
                self.abort(reason)
        self._wake.set()

    async def write(self) -> None:
        """The writer task: send queued frames in order, then the replay's pieces as
        the client takes them, then close when asked."""
        ws = self.websocket
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                while True:
                    while self._out:
                        frame = self._out.popleft()
                        self._queued -= len(frame)
                        await ws.send_text(frame)  # waits while the socket is full
                    pull = self._pull
                    if pull is None or self._hard:
                        break
                    piece = pull()
                    if not piece:
                        self._pull = None
                        break
                    self._out.extend(piece)
                    self._queued += sum(map(len, piece))
                    await asyncio.sleep(0)  # the last piece reaches the socket (or fills it)
                if self._close is not None:
                    with contextlib.suppress(RuntimeError):
                        await ws.close(*self._close)
                    return
        except (WebSocketDisconnect, RuntimeError, OSError):
            pass
        finally:
            self.closed = True


async def serve_ws(server: TournamentServer, websocket: WebSocket) -> None:
    """Serve one protocol v1 connection until it closes."""
    await websocket.accept()
    config = server.config
    bucket = TokenBucket(
        config.rate_per_second, config.rate_burst, Clock.now(), config.flood_seconds
    )
    conn = WsConnection(websocket, config.max_outbox, bucket, config.max_outbox_bytes)
    writer = asyncio.create_task(conn.write())
    session = _Session(server, websocket, conn)
    try:
        await session.run()
    except (WebSocketDisconnect, RuntimeError, OSError):
        pass
    finally:
        session.end()
        conn.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(writer, 5.0)
        if not writer.done():  # the client does not read what is left: drop it
            writer.cancel()
            conn.abort()


class _Session:
    """The reading side of one connection: handshake, routing, frames, limits."""

    def __init__(self, server: TournamentServer, websocket: WebSocket, conn: WsConnection) -> None:
        self.server, self.websocket, self.conn = server, websocket, conn
        config = server.config
        self.max_frame = config.max_frame_bytes
        self.bucket = conn.bucket
        self.seat: WsSeat | None = None
        self.entrant: Entrant | None = None

    async def run(self) -> None:
        try:
            first = await asyncio.wait_for(self._receive(), HELLO_TIMEOUT)
        except TimeoutError:
            self.conn.error(ErrorCode.UNEXPECTED_MESSAGE, "no hello in time")
            return
        if first is None:
            return
        hello = self._hello(first)
        if hello is None:
            return
        pending: asyncio.Task[str | bytes | None] | None = None
        if hello.token is None:  # a bot that spoke the protocol waits for its table
            self.conn.identify(None)
            pending = asyncio.create_task(self._receive())
            seat = await self._lobby(hello, pending)
            if seat is None:
                return
            first = encode(hello.model_copy(update={"token": seat.token}))
        else:
            if self.server.guard.barred(seat_key(hello.token)):
                self.conn.error(
                    ErrorCode.RATE_LIMITED, "this seat was cut off for abuse; retry soon"
                )
                return
            seat = self.server.seat_for_token(hello.token)
            if seat is None:
                ended = self.server.token_ended(hello.token)
                message = "this token's match has ended" if ended else "unknown token"
                self.conn.error(ErrorCode.BAD_TOKEN, message)
                return
            if hello.last_seq is None and seat.ctx is not None and seat.ctx.over:
                # a new session on a finished match: say so (a resume still gets the end)
                self.conn.error(ErrorCode.BAD_TOKEN, "this token's match has ended")
                return
        old = seat.conn
        if old is not None:  # the token's holder is back on a new connection: it wins
            seat.detach(old)
            if isinstance(old, WsConnection):
                old.replaced()
            else:
                old.close(CLOSE_POLICY, "replaced by a new connection")
        if not seat.attach(self.conn, first, Clock.now()):
            return
        self.seat = seat
        self.conn.identify(seat_key(seat.token))
        await self._frames(seat, pending)

    def end(self) -> None:
        if self.entrant is not None:
            self.server.lobby.leave(self.entrant)
        if self.seat is not None:
            self.seat.detach(self.conn)

    async def _receive(self) -> str | bytes | None:
        """The next frame (``None`` when the connection closed or the frame was too
        large, after telling the client)."""
        message: dict[str, Any] = await self.websocket.receive()
        if message["type"] == "websocket.disconnect":
            return None
        frame = message.get("text")
        if frame is None:
            frame = message.get("bytes")
        if frame is None:
            return None
        if len(frame) > self.max_frame:
            self.conn.error(ErrorCode.MALFORMED, f"a frame has at most {self.max_frame} bytes")
            self.conn.close(CLOSE_TOO_BIG, "frame too large")
            return None
        return frame  # type: ignore[no-any-return]

    def _hello(self, frame: str | bytes) -> Hello | None:
        try:
            msg = decode_client_frame(frame)
        except UnknownMessageError as exc:  # its type may be as long as a frame
            self.conn.error(ErrorCode.MALFORMED, f"unknown message type {clip(exc.type)}")
            return None
        except WireDecodeError as exc:
            self.conn.error(ErrorCode.MALFORMED, exc.reason)
            return None
        if not isinstance(msg, Hello):
            self.conn.error(ErrorCode.UNEXPECTED_MESSAGE, f"expected hello, not {msg.type}")
            return None
        if msg.protocol_version != PROTOCOL_VERSION:
            text = f"this server speaks protocol {PROTOCOL_VERSION}, not {msg.protocol_version}"
            self.conn.error(ErrorCode.VERSION_MISMATCH, text)
            return None
        return msg

    async def _lobby(
        self, hello: Hello, pending: asyncio.Task[str | bytes | None]
    ) -> WsSeat | None:
        """Wait in the lobby; ``None`` if the client left or spoke out of turn."""
        if not self.server.may_create(self.websocket.headers.get("authorization")):
            self.conn.error(ErrorCode.BAD_TOKEN, "this server's lobby needs the admin token")
            return None
        entrant = Entrant("ws", hello.bot_name)
        try:
            future = self.server.lobby.join(entrant)
        except LobbyFullError as exc:
            self.conn.error(ErrorCode.RATE_LIMITED, str(exc))
            return None
        self.entrant = entrant
        await asyncio.wait({future, pending}, return_when=asyncio.FIRST_COMPLETED)
        if not future.done():
            if pending.result() is not None:
                self.conn.error(ErrorCode.UNEXPECTED_MESSAGE, "wait for welcome")
            return None
        self.entrant = None
        if future.cancelled() or future.exception() is not None:
            self.conn.error(ErrorCode.INTERNAL, "the lobby could not seat this bot")
            return None
        seat = future.result()
        assert isinstance(seat, WsSeat)
        return seat

    async def _frames(self, seat: WsSeat, pending: asyncio.Task[str | bytes | None] | None) -> None:
        bucket = self.bucket
        while True:
            frame = await (pending if pending is not None else self._receive())
            pending = None
            if frame is None:
                return
            now = Clock.now()
            delay = bucket.take(now)
            if bucket.flooding:
                self.conn.error(ErrorCode.RATE_LIMITED, "too many messages: disconnected")
                self.conn.close(CLOSE_POLICY, "flooding")
                return
            if delay:
                await asyncio.sleep(delay)
                now = Clock.now()
            if seat.conn is not self.conn:  # taken over by a newer connection
                return
            if not seat.on_frame(frame, now):
                self.conn.close(CLOSE_POLICY, "fatal error")
                return
