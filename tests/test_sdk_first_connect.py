"""The first connection of a WebSocket session: a server that is not there is one
:class:`ConnectionLost` after ``Reconnect.first_connect`` seconds, with no warnings; a
server that comes up within that time is reached."""

from __future__ import annotations

import logging
import time

import pytest

from protocol.wire import WireClient
from sdk.bot import Bot
from sdk.session import ConnectionLost, Reconnect, ServerRefused, Session, drive
from sdk.transports import Channel, ConnectFailed
from sdk.transports.mock import MockTransport
from sdk.transports.ws import WireCodec


def _session() -> Session:
    bot = Bot.from_function(lambda v, r: r.default())
    return Session(bot, WireCodec(WireClient("t", "b")))


async def test_nobody_listening_is_one_error_within_the_wait(
    caplog: pytest.LogCaptureFixture,
) -> None:
    tries = 0

    async def connect() -> Channel:
        nonlocal tries
        tries += 1
        raise ConnectFailed("cannot connect to ws://127.0.0.1:9/v1/ws: refused")

    started = time.monotonic()
    with caplog.at_level(logging.INFO), pytest.raises(ConnectionLost, match="cannot connect"):
        await drive(_session(), connect, Reconnect(first_connect=0.6))
    assert time.monotonic() - started < 1.0 and tries >= 2
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


async def test_no_attempts_means_no_second_try() -> None:
    tries = 0

    async def connect() -> Channel:
        nonlocal tries
        tries += 1
        raise ConnectFailed("refused")

    with pytest.raises(ConnectionLost):
        await drive(_session(), connect, Reconnect(attempts=0))
    assert tries == 1


async def test_a_server_that_comes_up_within_the_wait_is_reached() -> None:
    over = '{"type": "error", "seq": 0, "code": "bad_token", "message": "over", "fatal": true}'
    transport = MockTransport()
    transport.connection().expect({"type": "hello"}, over)
    tries = 0

    async def connect() -> Channel:
        nonlocal tries
        tries += 1
        if tries < 3:
            raise ConnectFailed("refused")
        return await transport.connect()

    with pytest.raises(ServerRefused, match="bad_token"):  # it got through and said hello
        await drive(_session(), connect, Reconnect(first_connect=2.0))
    transport.assert_done()
