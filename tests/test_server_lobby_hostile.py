"""Line-protocol clients that connect and leave must not take tables (a hostile-client
audit filled every table slot of a server with 16 connect-and-close TCP clients, and
legitimate ``POST /v1/tables`` got 503 until the dead tables timed out).

Servers bind 127.0.0.1 on ephemeral ports; each attack is a handful of sockets.
"""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import httpx

from sdk.server.config import ServerConfig
from sdk.server.runner import running_server


def _config(tmp_path: Path) -> ServerConfig:
    return ServerConfig(
        port=0,
        line_port=0,
        db_path=str(tmp_path / "lobby.db"),
        lobby_wait=0.2,
        lobby_hands=1,
        lobby_house="random",
        max_tables=2,
        line_token_wait=0.05,
    )


def _connect_and_close(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=2):
        pass


async def test_clients_that_connect_and_leave_take_no_table(tmp_path: Path) -> None:
    async with running_server(_config(tmp_path)) as server:
        port = server.line_port
        assert port
        for _ in range(12):
            await asyncio.to_thread(_connect_and_close, port)
        await asyncio.sleep(0.8)  # past the lobby's wait: a table would have formed
        assert not server.server.tables
        assert not server.server.lobby.waiting
        seats = [{"seat": s, "bot_name": "random", "transport": "builtin"} for s in range(4)]
        async with httpx.AsyncClient(base_url=server.url, timeout=5) as http:
            made = await http.post("/v1/tables", json={"seed": 1, "hands": 1, "seats": seats})
        assert made.status_code == 201, made.text


async def test_a_client_that_stays_still_gets_a_table(tmp_path: Path) -> None:
    async with running_server(_config(tmp_path)) as server:
        port = server.line_port
        assert port
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            line = await asyncio.wait_for(reader.readline(), 5)  # seated with house bots
            assert line.startswith(b"/start MJ ")
            assert len(server.server.tables) == 1
        finally:
            writer.close()


async def test_a_first_line_over_the_limit_gets_no_seat(tmp_path: Path) -> None:
    # it counted as "no token": the client took an open seat, or a lobby place
    async with running_server(_config(tmp_path)) as server:
        port = server.line_port
        assert port
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            writer.write(b"/token " + b"x" * (server.server.config.max_line_bytes + 10))
            await writer.drain()
            assert await asyncio.wait_for(reader.read(), 5) == b""  # closed, nothing sent
            await asyncio.sleep(0.5)  # past the lobby's wait
            assert not server.server.tables and not server.server.lobby.waiting
        finally:
            writer.close()
