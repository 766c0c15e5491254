"""Fair limits on an address many clients share (issue 32): on the default loopback
server every local client has the address 127.0.0.1, so the per-address defences told
no one apart. There the limits go by connection and seat: one abusive local client loses
only its own connections, and its neighbours' bots, resumes and REST calls keep working.
(The per-address behaviour, for addresses that are not shared, is tested in
``test_server_hardening.py`` with ``shared_networks=[]``.)"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import websockets

from protocol.wire import WireClient
from sdk.server.config import ServerConfig
from sdk.server.runner import ServerHandle, running_server
from tests.socket_helpers import closed_within, raw_socket, upgraded, ws_frame


def _config(tmp_path: Path, **kw: object) -> ServerConfig:
    return ServerConfig(port=0, db_path=str(tmp_path / "shared.db"), **kw)  # type: ignore[arg-type]


async def _tokens(http: httpx.AsyncClient, seed: int) -> list[str]:
    seats = [{"seat": s, "bot_name": f"b{s}"} for s in range(4)]
    created = await http.post("/v1/tables", json={"seed": seed, "hands": 1, "seats": seats})
    return [created.json()["tokens"][str(s)] for s in range(4)]


async def _welcomed(server: ServerHandle, token: str) -> str:
    """The type of the first frame a hello with ``token`` is answered with."""
    async with websockets.connect(server.ws_url, open_timeout=5) as ws:
        await ws.send(WireClient(token, "me").hello())
        return str(json.loads(await asyncio.wait_for(ws.recv(), 5))["type"])


async def test_a_local_client_cut_off_for_pings_loses_its_seat_not_its_neighbours(
    tmp_path: Path,
) -> None:
    async with (
        running_server(_config(tmp_path, abuse_cooldown=2.0)) as server,
        httpx.AsyncClient(base_url=server.url, timeout=5) as http,
    ):
        abuser, victim = (await _tokens(http, 1))[:2]
        reader, writer = await upgraded(server)
        hello = WireClient(abuser, "abuser").hello()
        writer.write(ws_frame(0x1, hello.encode()))
        await writer.drain()
        await asyncio.sleep(0.2)
        writer.write(ws_frame(0x9, b"p") * 100)  # far more pings than a keepalive needs
        await writer.drain()
        assert await closed_within(reader, 5)
        assert await _welcomed(server, victim) == "welcome"  # same address, served
        assert (await http.get("/v1/tables")).status_code == 200
        assert await _welcomed(server, abuser) == "error"  # its seat waits out the bar
        for _ in range(50):  # and is served again after it
            await asyncio.sleep(0.1)
            if await _welcomed(server, abuser) == "welcome":
                break
        else:
            raise AssertionError("the abuser's seat stayed barred")


async def test_a_local_rest_flood_is_refused_on_its_own_connection_only(tmp_path: Path) -> None:
    config = _config(tmp_path, rest_rate=5.0, rest_burst=5)
    async with (
        running_server(config) as server,
        httpx.AsyncClient(base_url=server.url, timeout=5) as flooder,
        httpx.AsyncClient(base_url=server.url, timeout=5) as neighbour,
    ):
        codes = [(await flooder.get("/v1/health")).status_code for _ in range(20)]
        assert 429 in codes  # one keep-alive connection: one client, over its rate
        assert (await neighbour.get("/v1/health")).status_code == 200


async def test_idle_local_connections_give_way_but_a_seated_bot_keeps_its_own(
    tmp_path: Path,
) -> None:
    config = _config(tmp_path, max_per_address=4, handshake_timeout=30.0)
    async with (
        running_server(config) as server,
        httpx.AsyncClient(base_url=server.url, timeout=5) as http,
    ):
        token = (await _tokens(http, 2))[0]
        await http.aclose()  # its keep-alive connection would count too
        async with websockets.connect(server.ws_url) as seated:
            await seated.send(WireClient(token, "seated").hello())
            assert json.loads(await seated.recv())["type"] == "welcome"
            idle = [await raw_socket(server) for _ in range(3)]  # the address's cap: 4
            async with httpx.AsyncClient(base_url=server.url, timeout=5) as late:
                assert (await late.get("/v1/health")).status_code == 200
                assert await closed_within(idle[0][0], 2)  # the oldest idle one gave way
            await seated.send(WireClient(token, "seated").ready())
            await seated.ping()  # the seated bot's connection is still open
        assert server.server.guard.evicted >= 1


async def test_a_lobby_bot_waiting_for_its_table_does_not_give_way(tmp_path: Path) -> None:
    config = _config(tmp_path, max_per_address=3, handshake_timeout=30.0, lobby_wait=60.0)
    async with running_server(config) as server, websockets.connect(server.ws_url) as waiting:
        await waiting.send(WireClient(None, "waiting").hello())
        await asyncio.sleep(0.3)  # in the lobby now
        idle = [await raw_socket(server) for _ in range(3)]  # over the address's cap
        assert await closed_within(idle[0][0], 2)  # an idle one gave way, not the bot
        await asyncio.wait_for(waiting.ping(), 2)
