"""The line-protocol client against a broken referee (found by scripting one): every
``/ask`` it can answer gets one answer of the kind asked, and a session that cannot go
on ends as a protocol error (exit 3) with one line, never a traceback or a hang."""

from __future__ import annotations

import asyncio

import pytest

from protocol.actions import ActionKind
from protocol.line.adapter import LineClientAdapter, LineSessionError
from protocol.line.codec import ExitLine, parse_referee_line
from protocol.wire.common import ActionRequest
from sdk.transports.line import StreamChannel

DEALER = "111 121 131 141 151 161 171 181 191 211 221 231 241 251 261 271 281"
OTHER = "111 121 131 141 151 161 171 181 191 211 221 231 241 251 261 271"


def _adapter(*lines: str) -> tuple[LineClientAdapter, list[object]]:
    adapter = LineClientAdapter()
    out = [item for line in ("/start MJ 1 bot", *lines) for item in adapter.receive_line(line)]
    return adapter, out


def test_a_throw_asked_in_a_claim_window_is_offered_discards_never_a_pass() -> None:
    # seat 1 (not the dealer) sees seat 2 discard, then is asked to throw: our rules see
    # a claim window, but a throw can never be passed (it answered /pass)
    adapter, _ = _adapter("/initGame East East 1 2 0", f"/initCard {OTHER}", "/throw 2 471")
    (request,) = adapter.receive_line("/ask throw")
    assert isinstance(request, ActionRequest)
    assert request.legal and all(a.kind is ActionKind.DISCARD for a in request.legal)
    assert adapter.send_action(request.legal[0]).startswith("/throw ")


@pytest.mark.parametrize(
    "deal",
    [
        ["/initCard 111 121 131"],  # unreadable: skipped by the session, so no tiles
        [],  # no /initCard at all
    ],
)
def test_a_throw_asked_of_a_hand_never_dealt_ends_the_session(deal: list[str]) -> None:
    adapter, _ = _adapter("/initGame East East 1 1 0")
    for line in deal:
        with pytest.raises(Exception):  # noqa: B017 - the codec's own parse error
            adapter.receive_line(line)
    with pytest.raises(LineSessionError, match="holds no tile it knows of") as info:
        adapter.receive_line("/ask throw")
    assert getattr(info.value, "fatal", False)  # not skipped like an unreadable line


def test_a_start_that_moves_the_seat_mid_hand_ends_the_session() -> None:
    adapter, _ = _adapter("/initGame East East 1 1 0", f"/initCard {DEALER}")
    with pytest.raises(LineSessionError, match="from 1 to 2 in the middle of a hand"):
        adapter.receive_line("/start MJ 2 bot")
    adapter.receive_line("/start MJ 1 bot")  # the same seat again: a warning at most


def test_close_with_arguments_ends_the_game_like_exit() -> None:
    assert parse_referee_line("/close 1 2") == ExitLine("close")
    assert parse_referee_line("/close") == ExitLine("close")


async def test_a_line_over_the_limit_is_dropped_and_reading_goes_on() -> None:
    reader = asyncio.StreamReader(limit=1024)
    reader.feed_data(b"/ask " + b"A" * 5000 + b"\n/ready\n")
    reader.feed_eof()
    channel = StreamChannel(reader, writer=None)  # type: ignore[arg-type]
    assert await channel.recv() == "/ready"  # the long line was dropped, not fatal


async def test_the_bot_command_ends_such_a_session_with_exit_3_and_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from bots.random import RandomBot
    from sdk.cli import EXIT_PROTOCOL, main

    async def referee(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"/start MJ 1 ref\n/initGame East East 1 1 0\n/initCard 111 121\n")
        writer.write(b"/ask throw\n")
        await writer.drain()
        await reader.read()  # until the program hangs up
        writer.close()

    server = await asyncio.start_server(referee, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        argv = ["--tcp", f"127.0.0.1:{port}", "--reconnect-attempts", "0"]
        code = await asyncio.wait_for(asyncio.to_thread(main, RandomBot, argv), 30)
    err = capsys.readouterr().err
    assert code == EXIT_PROTOCOL and "Traceback" not in err
    assert err.splitlines()[-1] == (
        "error: protocol error: /ask throw, but the seat holds no tile it knows of "
        "(was its /initCard unreadable?)"
    )
