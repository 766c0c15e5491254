"""Protocol v1 against hostile clients (a second audit): a resume's replay is sent in
pieces as the client reads and a client that does not read is dropped when replaced;
closed sockets holding unsent data stay counted until aborted; frames of unknown types
are logged briefly and a few times per connection; names and versions with control or
formatting characters and huge ``last_seq`` values are refused at the edge.

Servers bind 127.0.0.1 on ephemeral ports; every attack here is small and bounded.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import struct
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from pydantic import ValidationError
from server_bots.wsbot import play_ws
from socket_helpers import closed_within, upgraded

from protocol.actions import Action
from protocol.events import Discard, Draw
from protocol.names import display_name
from protocol.tiles import Tile
from protocol.wire import ActionRequest, SessionEnd, SessionStart, WireClient, WireServerSeat
from protocol.wire.codec import WireDecodeError, decode_client_frame
from protocol.wire.messages import SEQ_MAX, Hello
from protocol.wire.session import LOGGED_UNKNOWN, clip
from sdk.arena.loader import load_bot
from sdk.server import seats as seats_module
from sdk.server.config import ServerConfig
from sdk.server.guard import ConnectionGuard
from sdk.server.runner import ServerHandle, running_server


def _config(tmp_path: Path, **kw: Any) -> ServerConfig:
    return ServerConfig(port=0, db_path=str(tmp_path / "hostile.db"), **kw)


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[ServerHandle]:
    async with running_server(_config(tmp_path, finished_grace=60.0)) as handle:
        yield handle


async def _table(server: ServerHandle, seed: int, ws: tuple[int, ...], hands: int = 1) -> dict:
    seats = [
        {"seat": s, "bot_name": f"ws{s}", "transport": "ws"}
        if s in ws
        else {"seat": s, "bot_name": "random", "transport": "builtin"}
        for s in range(4)
    ]
    body = {"seed": seed, "hands": hands, "seats": seats, "timing": {"decision_ms": 1000}}
    async with httpx.AsyncClient(base_url=server.url, timeout=5) as http:
        answer = await http.post("/v1/tables", json=body)
    assert answer.status_code == 201, answer.text
    return answer.json()  # type: ignore[no-any-return]


def _hello(token: str | None, **fields: Any) -> str:
    return json.dumps({"type": "hello", "token": token, "bot_name": "hostile", **fields})


async def _answers(url: str, frame: str) -> tuple[list[dict], int | None]:
    """Send ``frame`` as the first frame of a fresh connection; what came back."""
    async with websockets.connect(url) as ws:
        await ws.send(frame)
        got = [json.loads(f) async for f in ws]
    return got, ws.close_code


# -- raw sockets: a client that never reads ------------------------------------------------


def _masked(payload: bytes) -> bytes:
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0xFE]) + struct.pack("!H", n))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def _non_reader(server: ServerHandle) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A WebSocket client with a tiny receive buffer that will not read; the server's
    side of its socket gets a tiny send buffer too (else the kernel of a loopback
    connection takes megabytes, hiding what the server itself holds)."""
    reader, writer = await upgraded(server, rcvbuf=4096)
    me = writer.get_extra_info("sockname")
    (transport,) = [t for t, _ in _server_sockets(server) if t.get_extra_info("peername") == me]
    transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    return reader, writer


def _server_sockets(server: ServerHandle) -> list[tuple[Any, str]]:
    return list(server.server.guard._open.values())


# -- 1: a resume's replay --------------------------------------------------------------------


async def test_a_resume_that_does_not_read_holds_one_piece_and_is_dropped_when_replaced(
    server: ServerHandle,
) -> None:
    """Before: the whole replay went into the socket in one write (megabytes for a long
    match), and each takeover left the old socket open with it, uncounted once closed."""
    created = await _table(server, 3, (0,), hands=30)
    token = created["tokens"]["0"]
    result = await asyncio.wait_for(
        play_ws(server.ws_url, load_bot("bots.random").make(1), token), 60
    )
    assert result.ended
    wire = server.server.tables[created["table_id"]].seats[0].wire
    replay = sum(map(len, wire._log.frames(0, len(wire._log))))
    assert replay > 250_000  # several pieces, more than the server may hold for one client
    bound = 64 * 1024 + seats_module.REPLAY_PIECE + 16 * 1024  # the high-water mark + a piece
    mine: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    try:
        for _ in range(3):  # each takes the seat from the one before, none reads
            reader, writer = await _non_reader(server)
            writer.write(_masked(_hello(token, last_seq=0).encode()))
            await writer.drain()
            mine.append((reader, writer))
            await asyncio.sleep(0.5)
            held = [t.get_write_buffer_size() for t, _ in _server_sockets(server)]
            assert max(held) < bound, (held, replay)
        for old, _ in mine[:-1]:  # replaced while behind: aborted at once, buffers freed
            assert await closed_within(old, 2)
        ours = {w.get_extra_info("sockname") for _, w in mine}
        left = [t for t, _ in _server_sockets(server) if t.get_extra_info("peername") in ours]
        assert len(left) == 1 and not left[0].is_closing()
    finally:
        for _, writer in mine:
            writer.close()


async def test_an_honest_resume_reads_a_replay_of_many_pieces_in_order(
    server: ServerHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mid-match, a bot comes back with a fresh client (``last_seq`` 1: nearly everything
    is replayed) while the table plays on; pieces are tiny, so events and the pending
    request arrive while it is replayed. The client checks every sequence number."""
    monkeypatch.setattr(seats_module, "REPLAY_PIECE", 300)
    created = await _table(server, 8, (0, 1), hands=4)
    token = created["tokens"]["0"]
    other = asyncio.create_task(
        play_ws(server.ws_url, load_bot("bots.random").make(2), created["tokens"]["1"])
    )
    async with websockets.connect(server.ws_url) as ws:  # a few decisions, then gone
        client = WireClient(token, "first")
        await ws.send(client.hello())
        await ws.send(client.ready())
        answered = 0
        while answered < 5:
            for item in client.receive_frame(await ws.recv()):
                if isinstance(item, ActionRequest):
                    await ws.send(client.answer(item.default))
                    answered += 1
    client = WireClient(token, "again")
    client.last_seq = 1  # resumes (even should the match be over by now) from event 2
    starts, ends, requests = 0, 0, 0
    async with websockets.connect(server.ws_url, max_size=None) as ws:
        await ws.send(client.hello())
        await ws.send(client.ready())
        async for frame in ws:
            for item in client.receive_frame(frame):  # raises on any gap or misorder
                if isinstance(item, SessionStart):
                    starts += 1
                elif isinstance(item, ActionRequest):
                    requests += 1
                    await ws.send(client.answer(item.default))
                elif isinstance(item, SessionEnd):
                    ends += 1
    assert (await asyncio.wait_for(other, 60)).ended
    wire = server.server.tables[created["table_id"]].seats[0].wire
    assert starts == 1 and ends == 1 and requests > 0
    assert client.last_seq == wire.seq > 20


def test_a_replay_in_pieces_is_the_same_frames_in_the_same_order() -> None:
    def seat_with_history() -> WireServerSeat:
        seat = WireServerSeat(0, "tok", "m", "t")
        for i in range(40):
            seat.push_event(Discard(1, Tile(i % 27)))
        return seat

    def events_and_request(seat: WireServerSeat) -> None:
        seat.push_event(Draw(0, Tile.M1))
        seat.request((Action.parse("discard 1m"), Action.parse("discard 2m")), 1.0, Tile.M1)

    whole = seat_with_history()
    whole.connect()
    whole.receive_frame(_hello("tok", last_seq=0), 0.0)
    events_and_request(whole)
    expected = whole.data_to_send()

    paged = seat_with_history()
    paged.connect()
    paged.receive_frame(_hello("tok", last_seq=0), 0.0)
    got = paged.data_to_send(0)  # the welcome only
    assert [json.loads(f)["type"] for f in got] == ["welcome"] and paged.replaying
    got += paged.data_to_send(200)
    events_and_request(paged)  # arrives mid-replay: held behind it
    assert paged.data_to_send(0) == [] and paged.held > 0
    while paged.replaying:
        piece = paged.data_to_send(200)
        assert piece and (len(piece) == 1 or sum(map(len, piece[:-1])) < 200)
        got += piece
    assert got == expected and paged.held == 0
    assert json.loads(got[-1])["type"] == "request"
    paged.push_event(Discard(1, Tile.M9))  # after the replay: straight out
    assert len(paged.data_to_send(0)) == 1


def test_closed_sockets_with_unsent_data_stay_counted_until_aborted() -> None:
    class Transport:
        def __init__(self, host: str) -> None:
            self.host, self.closing, self.unsent, self.aborted = host, False, 0, False

        def get_extra_info(self, name: str) -> object:
            return (self.host, 1) if name == "peername" else None

        def is_closing(self) -> bool:
            return self.closing

        def get_write_buffer_size(self) -> int:
            return self.unsent

        def abort(self) -> None:
            self.closing, self.unsent, self.aborted = True, 0, True

    guard = ConnectionGuard(max_connections=10, max_per_address=2, linger=1.0)
    stuck, done = Transport("10.0.0.1"), Transport("10.0.0.1")
    assert guard.admit(stuck) and guard.admit(done)
    stuck.closing, stuck.unsent = True, 50_000  # closed, but its peer has not read
    done.closing = True
    assert guard.open == 1  # the flushed one is gone, the stuck one still counts
    assert guard.admit(Transport("10.0.0.1"))
    assert not guard.admit(Transport("10.0.0.1"))  # two per address: the stuck one is one
    assert guard.sweep(now=100.0) == 0  # first seen lingering
    assert guard.sweep(now=100.5) == 0 and not stuck.aborted
    assert guard.sweep(now=101.0) == 1 and stuck.aborted and guard.aborted == 1
    assert guard.open == 1 and guard.admit(Transport("10.0.0.1"))


# -- 2: frames of unknown types -------------------------------------------------------------


async def test_unknown_types_are_logged_short_naming_the_seat_and_only_a_few_times(
    server: ServerHandle, caplog: pytest.LogCaptureFixture
) -> None:
    """Before: each frame's whole type (tens of KB) was logged, every time, no seat named."""
    created = await _table(server, 5, (0,))
    huge = json.dumps({"type": "z" * 20_000})
    with caplog.at_level(logging.WARNING, logger="protocol.wire.session"):
        async with websockets.connect(server.ws_url) as ws:
            await ws.send(_hello(created["tokens"]["0"]))
            assert json.loads(await ws.recv())["type"] == "welcome"
            for _ in range(LOGGED_UNKNOWN + 10):
                await ws.send(huge)
            await ws.send(json.dumps({"type": "ready"}))
            await asyncio.sleep(0.5)
            assert ws.state is websockets.State.OPEN  # ignored, not fatal
    lines = [r.getMessage() for r in caplog.records if r.name == "protocol.wire.session"]
    assert len(lines) == LOGGED_UNKNOWN + 1, len(lines)
    assert all(len(line) < 200 for line in lines)
    assert all(f"table {created['table_id']} seat 0" in line for line in lines)
    assert "zzz'..." in lines[0] and "not logged" in lines[-1]
    got, _ = await _answers(server.ws_url, huge)  # as the first frame: a short error
    assert [(f["code"], f["fatal"]) for f in got] == [("malformed", True)]
    assert len(got[0]["message"]) < 100


def test_clip_keeps_short_text_and_cuts_long_text() -> None:
    assert clip("teleport") == "'teleport'"
    assert clip("\n" * 100) == repr("\n" * 32) + "..."


# -- 3: names and versions ------------------------------------------------------------------


@pytest.mark.parametrize(
    "field",
    [
        {"bot_name": "x\n2026-01-01 00:00:00 sdk.server INFO FORGED"},
        {"bot_name": "red\x1b[31m"},
        {"bot_name": "evil\u202etxt.exe"},
        {"bot_name": "a\u2028b"},
        {"bot_name": "zero\u200bwidth"},
        {"bot_name": "nul\x00"},
        {"bot_name": "ok", "bot_version": "v\n\r<b>"},
        {"bot_name": "ok", "bot_version": "1\u2066"},
        {"bot_name": "ok", "client_version": "0\x7f"},
    ],
)
def test_names_and_versions_with_control_or_formatting_characters_are_malformed(
    field: dict[str, str],
) -> None:
    frame = json.dumps({"type": "hello", "token": "t", "bot_name": "x", **field})
    with pytest.raises(WireDecodeError) as caught:
        decode_client_frame(frame)
    assert "control, formatting, private-use or unassigned characters (U+" in caught.value.reason


@pytest.mark.parametrize(
    "name", ["機器人", "shanten-bot 2.0", "Ångström_bot", "麻將\u3000王", "🀄"]
)
def test_names_of_any_script_are_fine(name: str) -> None:
    assert Hello(bot_name=name, bot_version=name).bot_name == name
    assert display_name(name) == name


async def test_a_hello_with_a_forged_name_is_refused_and_a_chinese_name_is_welcome(
    server: ServerHandle,
) -> None:
    created = await _table(server, 6, (0,))
    token = created["tokens"]["0"]
    for frame in (
        _hello(None, bot_name="L\nFAKE LINE\x1b[31m"),  # the lobby
        _hello(token, bot_name="x", bot_version="v\n\r<b>"),
        _hello(token, bot_name="evil\u202e"),
    ):
        got, _ = await _answers(server.ws_url, frame)
        assert [(f["code"], f["fatal"]) for f in got] == [("malformed", True)]
        assert "\n" not in got[0]["message"] and "\u202e" not in got[0]["message"]
    async with websockets.connect(server.ws_url) as ws:
        await ws.send(_hello(token, bot_name="機器人", bot_version="二.一"))
        assert json.loads(await ws.recv())["type"] == "welcome"


# -- 4: last_seq -----------------------------------------------------------------------------


def test_last_seq_is_bounded() -> None:
    assert Hello(bot_name="b", last_seq=SEQ_MAX).last_seq == SEQ_MAX
    with pytest.raises(ValidationError):
        Hello(bot_name="b", last_seq=SEQ_MAX + 1)
    with pytest.raises(ValidationError):
        Hello(bot_name="b", last_seq=-1)


async def test_a_huge_last_seq_is_malformed_and_not_echoed(server: ServerHandle) -> None:
    """Before: a 4,000-digit ``last_seq`` came back whole in ``bad_resume``."""
    created = await _table(server, 7, (0,))
    token = created["tokens"]["0"]
    huge = _hello(token)[:-1] + ', "last_seq": ' + "9" * 4000 + "}"
    got, _ = await _answers(server.ws_url, huge)
    assert [(f["code"], f["fatal"]) for f in got] == [("malformed", True)]
    assert "9999999999999999999" not in got[0]["message"] and len(got[0]["message"]) < 200
    got, _ = await _answers(server.ws_url, _hello(token, last_seq=SEQ_MAX))
    assert [(f["code"], f["fatal"]) for f in got] == [("bad_resume", True)]
    assert len(got[0]["message"]) < 100


@pytest.mark.parametrize("name", ["L\nFAKE LINE", "red\x1b[31m", "rtl\u202e"])
async def test_a_rest_seat_name_with_control_characters_is_malformed(
    server: ServerHandle, name: str
) -> None:
    seats = [{"seat": 0, "bot_name": name, "transport": "builtin"}]
    async with httpx.AsyncClient(base_url=server.url, timeout=5) as http:
        answer = await http.post("/v1/tables", json={"seed": 1, "hands": 1, "seats": seats})
    assert answer.status_code == 422 and answer.json()["code"] == "malformed"
    assert name not in answer.text  # named by code point, never echoed
