"""Transports: how frames travel. The session loop (:mod:`sdk.session`) is the same for
every one of them; a transport only supplies two small objects.

* A :class:`Channel` moves text: ``recv()`` one frame or line, ``send()`` one, ``close()``.
  It raises :class:`ChannelClosed` when the connection is gone, whatever the cause.
* A :class:`Codec` wraps a sans-I/O protocol object (protocol v1's
  :class:`~protocol.wire.WireClient` or the line protocol's
  :class:`~protocol.line.adapter.LineClientAdapter`): text in, typed values out
  (:data:`protocol.wire.common.WireInput`), and the text of answers.

Implementations: :mod:`sdk.transports.ws` (protocol v1 over WebSocket),
:mod:`sdk.transports.line` (the tournament line protocol over stdin/stdout or TCP) and
:mod:`sdk.transports.mock` (scripted, for tests).

>>> issubclass(ChannelClosed, ConnectionError)
True
"""

from __future__ import annotations

from typing import Protocol

from protocol.actions import Action
from protocol.wire.common import WireInput

__all__ = ["Channel", "ChannelClosed", "Codec", "ConnectFailed"]


class ChannelClosed(ConnectionError):
    """The connection is gone (closed by the peer, dropped, or never opened)."""


class ConnectFailed(ChannelClosed):
    """The connection could not be opened: nothing listens there, or it is unreachable
    (worth retrying: the server may be starting)."""


class Channel(Protocol):
    """One connection that carries text frames (WebSocket messages or lines)."""

    async def recv(self) -> str:
        """The next frame; raises :class:`ChannelClosed` when the connection ends."""
        ...

    async def send(self, frame: str) -> None:
        """Write one frame; raises :class:`ChannelClosed` if the connection is gone."""
        ...

    async def close(self) -> None:
        """Close the connection (never raises)."""
        ...


class Codec(Protocol):
    """A sans-I/O client protocol object, seen by the session loop.

    ``checks_legal``: the server sends its own list of legal actions, so the mirror can
    check it (protocol v1; the line protocol sends none). ``resumable``: after a drop the
    session can reconnect and resume (protocol v1 only). ``recoverable``: decode errors
    the session may log and skip outside strict mode.
    """

    checks_legal: bool
    resumable: bool
    recoverable: tuple[type[Exception], ...]

    def opening(self) -> list[str]:
        """Frames to write as soon as a connection opens (protocol v1's ``hello``)."""
        ...

    def receive(self, frame: str) -> list[WireInput]:
        """Decode one frame into what the bot should see, in order."""
        ...

    def outgoing(self) -> list[str]:
        """Frames the protocol object wrote by itself (line-protocol follow-up answers)."""
        ...

    def ready(self) -> list[str]:
        """Frames that say the bot has loaded (protocol v1's ``ready``)."""
        ...

    def answer(self, request_id: str, action: Action) -> str | None:
        """The frame answering ``request_id`` with ``action``, or ``None`` when that
        request is no longer pending (settled by the server, or superseded)."""
        ...
