"""A protocol v1 bot for the server tests: raw :mod:`websockets` driving the sans-I/O
:class:`~protocol.wire.WireClient`, a :class:`~sdk.mirror.Mirror` checked against every
request (strict), and a :class:`~sdk.bot.Bot` choosing. Hooks let a test misbehave:
drop the connection after some requests, stay silent, or send extra frames.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import websockets

from protocol.events import Event, MatchEnd
from protocol.wire import (
    ActionRequest,
    Outcome,
    SequenceGapError,
    ServerError,
    SessionEnd,
    SessionStart,
    WireClient,
)
from sdk.bot import Bot, DecisionRequest, MatchInfo
from sdk.mirror import Mirror


@dataclass
class WsPlay:
    """What a bot saw and did in one match."""

    seat: int | None = None
    token: str | None = None
    events: list[Event] = field(default_factory=list)
    frames: list[str] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)
    errors: list[ServerError] = field(default_factory=list)
    requests: int = 0
    connections: int = 0
    scores: tuple[int, ...] | None = None
    ended: bool = False


class Drop(Exception):
    """Raised by a hook to drop the connection (the bot then resumes)."""


async def play_ws(
    url: str,
    bot: Bot,
    token: str | None,
    *,
    keep_frames: bool = False,
    on_request: Callable[[ActionRequest, WsPlay], str | list[str] | None] | None = None,
    max_reconnects: int = 3,
    timeout: float = 60.0,
) -> WsPlay:
    """Play a whole match at ``url`` and return what happened. ``on_request`` may
    return the frame to send instead of the bot's answer ("" sends nothing), a list of
    frames to send before the answer, or raise :class:`Drop` to disconnect and resume."""
    client = WireClient(token, bot.name, "test")
    play = WsPlay()
    mirror: Mirror | None = None
    async with asyncio.timeout(timeout):
        while not play.ended:
            play.connections += 1
            try:
                async with websockets.connect(url, max_size=None) as ws:
                    await ws.send(client.hello())
                    await ws.send(client.ready())
                    async for frame in ws:
                        assert isinstance(frame, str)
                        if keep_frames:
                            play.frames.append(frame)
                        for item in client.receive_frame(frame):
                            mirror = await _handle(item, client, bot, mirror, play, ws, on_request)
                        if play.ended:
                            break
            except (Drop, SequenceGapError, websockets.ConnectionClosed):
                if play.connections > max_reconnects:
                    raise
                await asyncio.sleep(0.05)
            if any(e.fatal for e in play.errors):
                break
    play.token = client.token
    return play


async def _handle(
    item: object,
    client: WireClient,
    bot: Bot,
    mirror: Mirror | None,
    play: WsPlay,
    ws: websockets.ClientConnection,
    on_request: Callable[[ActionRequest, WsPlay], str | list[str] | None] | None,
) -> Mirror | None:
    if isinstance(item, SessionStart):
        play.seat = item.seat
        if mirror is None:
            mirror = Mirror(item.seat, strict=True)
            bot.on_match_start(MatchInfo(seat=item.seat, hands=int(item.config["hands"])))
    elif isinstance(item, Event):
        assert mirror is not None
        mirror.apply(item)
        play.events.append(item)
        if isinstance(item, MatchEnd):
            play.scores = tuple(item.scores)
    elif isinstance(item, ActionRequest):
        assert mirror is not None
        play.requests += 1
        mirror.check(item.legal)
        frame = on_request(item, play) if on_request is not None else None
        if isinstance(frame, list):
            for extra in frame:
                await ws.send(extra)
            frame = None
        if frame is None:
            deadline = time.monotonic() + item.time_left
            request = DecisionRequest(
                item.legal, deadline, item.request_id, mirror.window.drawn_tile
            )
            frame = client.answer(bot.choose(mirror.window, request))  # type: ignore[arg-type]
        if frame:
            await ws.send(frame)
    elif isinstance(item, Outcome):
        play.outcomes.append(item)
    elif isinstance(item, ServerError):
        play.errors.append(item)
    elif isinstance(item, SessionEnd):
        play.ended = True
    return mirror
