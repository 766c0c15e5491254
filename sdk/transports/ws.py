"""Protocol v1 over WebSocket: the client a bot uses to play on a server.

:func:`run_ws` connects to ``url`` (for the local server ``ws://127.0.0.1:PORT/v1/ws``),
says ``hello`` with the seat's token (or none, to be seated by the server's lobby), plays
the match through :class:`~sdk.session.Session` and returns its
:class:`~sdk.session.SessionResult`. Keepalive is websockets' own ping (``ping_interval``,
``ping_timeout``); it keeps working while a bot thinks because bots never run on the
event loop. A dropped connection is re-opened with jittered backoff and resumed from the
last event seen; the server then replays what was missed and re-sends a pending request.

>>> codec = WireCodec(WireClient("tok", "demo"))
>>> import json; json.loads(codec.opening()[0])["type"]
'hello'
>>> WsOptions().ping_interval
5.0
"""

from __future__ import annotations

import concurrent.futures
from dataclasses import dataclass
from urllib.parse import urlsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus, InvalidURI

from protocol.actions import Action
from protocol.wire import WireClient, WireDecodeError
from protocol.wire.common import WireInput
from sdk.bot import Bot
from sdk.budget import DEFAULT_BUDGET, Budget
from sdk.session import Reconnect, ServerRefused, Session, SessionResult, drive
from sdk.transports import ChannelClosed, ConnectFailed

__all__ = [
    "CLIENT_VERSION",
    "WireCodec",
    "WsChannel",
    "WsOptions",
    "check_url",
    "open_ws",
    "run_ws",
]

CLIENT_VERSION = "taimahjong-sdk/0.1.0"
"""Sent in ``hello`` as ``client_version``."""


@dataclass(frozen=True, slots=True)
class WsOptions:
    """WebSocket settings. Pings every ``ping_interval`` seconds; no pong within
    ``ping_timeout`` counts as a dropped connection (then the session resumes).
    ``proxy`` is websockets' option (``None``: connect directly)."""

    ping_interval: float | None = 5.0
    ping_timeout: float | None = 5.0
    open_timeout: float = 5.0
    close_timeout: float = 2.0
    max_size: int = 2**20
    max_queue: int = 256
    proxy: str | bool | None = None


class WsChannel:
    """A :class:`~sdk.transports.Channel` over one websockets client connection."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws

    async def recv(self) -> str:
        """The next frame; :class:`~sdk.transports.ChannelClosed` when the connection ends."""
        try:
            data = await self.ws.recv()
        except ConnectionClosed as exc:
            raise ChannelClosed(f"connection closed: {exc}") from exc
        return data if isinstance(data, str) else data.decode("utf-8", "replace")

    async def send(self, frame: str) -> None:
        """Write one frame; :class:`~sdk.transports.ChannelClosed` if the connection is gone."""
        try:
            await self.ws.send(frame)
        except ConnectionClosed as exc:
            raise ChannelClosed(f"connection closed: {exc}") from exc

    async def close(self) -> None:
        """Close the connection."""
        await self.ws.close()


DEFAULT_OPTIONS = WsOptions()
DEFAULT_RECONNECT = Reconnect()


async def open_ws(url: str, options: WsOptions = DEFAULT_OPTIONS) -> WsChannel:
    """Open a connection to ``url``; :class:`ChannelClosed` if it cannot be opened."""
    try:
        ws = await connect(
            url,
            compression=None,  # small JSON frames: deflate costs more time than it saves
            ping_interval=options.ping_interval,
            ping_timeout=options.ping_timeout,
            open_timeout=options.open_timeout,
            close_timeout=options.close_timeout,
            max_size=options.max_size,
            max_queue=options.max_queue,
            proxy=options.proxy,
        )
    except InvalidURI:
        raise
    except InvalidStatus as exc:
        status = exc.response.status_code
        if 400 <= status < 500:  # the answer will not change: do not retry
            raise ServerRefused(
                f"http_{status}",
                f"{url} answered HTTP {status} to the WebSocket handshake; check the URL's "
                "path (the local server's is /v1/ws)",
            ) from None
        raise ChannelClosed(f"cannot connect to {url}: {exc}") from exc
    except (OSError, TimeoutError) as exc:
        raise ConnectFailed(f"cannot connect to {url}: {exc}") from exc
    except InvalidHandshake as exc:
        raise ChannelClosed(f"cannot connect to {url}: {exc}") from exc
    return WsChannel(ws)


class WireCodec:
    """Protocol v1's :class:`~protocol.wire.WireClient` as a session :class:`Codec`."""

    checks_legal = True
    resumable = True
    recoverable: tuple[type[Exception], ...] = (WireDecodeError,)

    def __init__(self, client: WireClient) -> None:
        self.client = client

    def opening(self) -> list[str]:
        """The frames sent when a connection opens."""
        return [self.client.hello()]

    def receive(self, frame: str) -> list[WireInput]:
        """Decode one frame into the session's inputs."""
        return self.client.receive_frame(frame)

    def outgoing(self) -> list[str]:
        """Frames the codec wants sent now."""
        return []

    def ready(self) -> list[str]:
        """The frames that say the bot is ready."""
        return [self.client.ready()]

    def answer(self, request_id: str, action: Action) -> str | None:
        """The frame answering ``request_id`` with ``action`` (``None``: no longer asked)."""
        pending = self.client.pending_request
        if pending is None or pending.request_id != request_id:
            return None
        return self.client.answer(action)


def check_url(url: str) -> str:
    """``url`` if it is a ``ws://`` or ``wss://`` URL with a host, else ``ValueError``.

    >>> check_url("ws://127.0.0.1:8765/v1/ws")
    'ws://127.0.0.1:8765/v1/ws'
    >>> check_url("http://example.org")
    Traceback (most recent call last):
    ...
    ValueError: not a WebSocket URL (ws://HOST:PORT/PATH or wss://...): 'http://example.org'
    """
    parts = urlsplit(url)
    if parts.scheme not in ("ws", "wss") or not parts.hostname:
        raise ValueError(f"not a WebSocket URL (ws://HOST:PORT/PATH or wss://...): {url!r}")
    return url


async def run_ws(
    bot: Bot,
    url: str,
    token: str | None = None,
    *,
    name: str | None = None,
    budget: Budget = DEFAULT_BUDGET,
    strict: bool = False,
    executor: concurrent.futures.Executor | None = None,
    reconnect: Reconnect = DEFAULT_RECONNECT,
    options: WsOptions = DEFAULT_OPTIONS,
) -> SessionResult:
    """Play one match at ``url`` with ``bot``; returns the session's result.

    ``token`` is the seat's secret (from ``POST /v1/tables``); ``None`` asks the
    server's lobby for a seat. Raises :class:`~sdk.session.ConnectionLost` when the
    connection cannot be kept, :class:`~sdk.session.ServerRefused` on a fatal server
    error (bad token, version mismatch).
    """
    check_url(url)
    client = WireClient(token, name or bot.name, CLIENT_VERSION, bot.version)
    session = Session(bot, WireCodec(client), budget=budget, strict=strict, executor=executor)
    return await drive(session, lambda: open_ws(url, options), reconnect)
