"""Hardening of the local server (issue 16): each test is one defect found by attacking
the server as a hostile or broken client would; each failed before its fix.

Servers bind 127.0.0.1 on ephemeral ports; every attack here is small and bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import struct
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
import websockets
from server_bots.slow_bot import DELAY as SLOW_DELAY
from socket_helpers import closed_within, raw_socket, upgraded, ws_frame

from protocol.wire import WireClient
from sdk.arena.loader import load_bot
from sdk.bot import Bot
from sdk.server.config import ServerConfig
from sdk.server.core import derive_seed
from sdk.server.guard import AcceptLog
from sdk.server.housepool import HousePool
from sdk.server.runner import ServerHandle, running_server
from sdk.server.security import TokenBucket
from sdk.server.store import MatchRow, Store
from sdk.session import Reconnect, ServerRefused, Session, drive
from sdk.transports.line import run_tcp
from sdk.transports.mock import MockTransport
from sdk.transports.ws import WireCodec, run_ws


def _config(tmp_path: Path, **kw: object) -> ServerConfig:
    return ServerConfig(port=0, db_path=str(tmp_path / "hard.db"), **kw)  # type: ignore[arg-type]


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[ServerHandle]:
    async with running_server(_config(tmp_path)) as handle:
        yield handle


def _house_table(seed: int, hands: int = 1, bot: str = "random") -> dict:
    seats = [{"seat": s, "bot_name": bot, "transport": "builtin"} for s in range(4)]
    return {"seed": seed, "hands": hands, "seats": seats}


def _ws_table(seed: int, hands: int = 1, ws: tuple[int, ...] = (0, 1, 2, 3)) -> dict:
    seats = [
        {"seat": s, "bot_name": f"ws{s}", "transport": "ws"}
        if s in ws
        else {"seat": s, "bot_name": "random", "transport": "builtin"}
        for s in range(4)
    ]
    return {"seed": seed, "hands": hands, "seats": seats}


async def _status(http: httpx.AsyncClient, table_id: str, until: set[str], wait: float) -> dict:
    deadline = asyncio.get_running_loop().time() + wait
    while True:
        status = (await http.get(f"/v1/tables/{table_id}")).json()
        if status["status"] in until or asyncio.get_running_loop().time() > deadline:
            return status  # type: ignore[no-any-return]
        await asyncio.sleep(0.05)


class _LoopWatch:
    """The longest gap between ticks of a 10 ms ticker: how long the loop was blocked."""

    def __init__(self) -> None:
        self.worst = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _tick(self) -> None:
        loop = asyncio.get_running_loop()
        last = loop.time()
        while True:
            await asyncio.sleep(0.01)
            now = loop.time()
            self.worst = max(self.worst, now - last - 0.01)
            last = now

    def __enter__(self) -> _LoopWatch:
        self._task = asyncio.get_running_loop().create_task(self._tick())
        return self

    def __exit__(self, *_: object) -> None:
        assert self._task is not None
        self._task.cancel()


# -- 1: one POST must not stop all recording ----------------------------------------------


async def test_out_of_range_integers_are_refused_at_the_edge(server: ServerHandle) -> None:
    async with httpx.AsyncClient(base_url=server.url, timeout=5) as http:
        for body in (
            _house_table(2**63),
            _house_table(-(2**63) - 1),
            {**_house_table(1), "timing": {"decision_ms": 2**70}},
            {**_house_table(1), "timing": {"decision_ms": 100, "startup_ms": 2**64}},
        ):
            answer = await http.post("/v1/tables", json=body)
            assert answer.status_code == 422, answer.text
            assert answer.json()["code"] == "malformed"
        # and the store still records and answers
        created = (await http.post("/v1/tables", json=_house_table(2**63 - 1))).json()
        status = await _status(http, created["table_id"], {"finished", "aborted"}, 20)
        assert status["status"] == "finished"
        assert (await http.get("/v1/tables")).status_code == 200
        assert (await http.get("/v1/leaderboard")).status_code == 200


def test_the_store_survives_any_exception_and_keeps_serving() -> None:
    store = Store(":memory:")
    store.start()
    try:

        def boom(db: object) -> None:
            raise OverflowError("Python int too large to convert to SQLite INTEGER")

        store.submit(boom)
        failed = store.call(lambda db: 1 // 0)
        store.begin_match(MatchRow("m-1", "t-1", 1, 2**64, 1, ["a", "b", "c", "d"], {}))
        store.begin_match(MatchRow("m-2", "t-2", 2, 7, 1, ["a", "b", "c", "d"], {}))
        rows = store.call(lambda db: db.execute("SELECT match_id FROM matches").fetchall())
        assert rows.result(timeout=5) == [("m-2",)]
        with pytest.raises(ZeroDivisionError):
            failed.result(timeout=5)
    finally:
        store.close()


# -- 2: an unattended table must not freeze the loop ---------------------------------------


async def test_a_table_nobody_attends_does_not_play_and_never_blocks_the_loop(
    tmp_path: Path,
) -> None:
    config = _config(tmp_path, connect_wait=0.2, unattended_wait=0.6)
    async with (
        running_server(config) as server,
        httpx.AsyncClient(base_url=server.url, timeout=5) as http,
    ):
        with _LoopWatch() as watch:
            created = (await http.post("/v1/tables", json=_ws_table(3, hands=256))).json()
            status = await _status(http, created["table_id"], {"finished", "aborted"}, 10)
        assert status["status"] == "aborted"
        assert status["hand_no"] == 0 and status["scores"] == [0, 0, 0, 0]
        assert watch.worst < 0.5, watch.worst


# -- also: not_found for unknown routes, no public API docs, ids never reused -------------


async def test_unknown_routes_are_not_found_and_api_docs_are_off_by_default(
    server: ServerHandle, tmp_path: Path
) -> None:
    async with httpx.AsyncClient(base_url=server.url, timeout=5) as http:
        for path in ("/nowhere", "/v1/nothing/here", "/docs", "/openapi.json", "/redoc"):
            answer = await http.get(path)
            assert answer.status_code == 404, path
            assert answer.json()["code"] == "not_found", path
    (tmp_path / "docs").mkdir()
    async with (
        running_server(_config(tmp_path / "docs", api_docs=True)) as docs,
        httpx.AsyncClient(base_url=docs.url, timeout=5) as http,
    ):
        assert (await http.get("/openapi.json")).status_code == 200


async def test_ids_of_tables_never_started_are_not_reused_after_a_restart(
    tmp_path: Path,
) -> None:
    config = _config(tmp_path, connect_wait=60.0)
    seen = set()
    for _ in range(2):
        async with (
            running_server(config) as server,
            httpx.AsyncClient(base_url=server.url, timeout=5) as http,
        ):
            created = (await http.post("/v1/tables", json=_ws_table(5))).json()
            seen.add(created["table_id"])
    assert len(seen) == 2, seen


# -- 4: one policy for every way a table is made; house bots off the loop ---------------


async def _hello(url: str, headers: dict[str, str] | None = None, wait: float = 1.0) -> dict | None:
    """A lobby ``hello``: the first frame back within ``wait`` seconds (``None``: none)."""
    async with websockets.connect(url, additional_headers=headers) as ws:
        await ws.send(WireClient(None, "lobby-bot").hello())
        try:
            return json.loads(await asyncio.wait_for(ws.recv(), wait))  # type: ignore[no-any-return]
        except TimeoutError:
            return None


async def test_the_lobby_obeys_the_admin_token_and_the_table_limits(tmp_path: Path) -> None:
    config = _config(
        tmp_path,
        admin_token="adm",
        lobby_wait=0.05,
        lobby_hands=1,
        lobby_house="random",
        max_tables=1,
        max_lobby=1,
        connect_wait=30.0,
    )
    auth = {"authorization": "Bearer adm"}
    async with running_server(config) as server:
        refused = await _hello(server.ws_url)
        assert refused is not None and (refused["code"], refused["fatal"]) == ("bad_token", True)
        async with httpx.AsyncClient(base_url=server.url, timeout=5, headers=auth) as http:
            assert (await http.post("/v1/tables", json=_ws_table(1))).status_code == 201
        # max_tables is reached: a lobby bot waits (no table is made for it)...
        async with websockets.connect(server.ws_url, additional_headers=auth) as waiting:
            await waiting.send(WireClient(None, "patient").hello())
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(waiting.recv(), 0.5)
            # ...and the lobby holds max_lobby bots: the next is refused
            full = await _hello(server.ws_url, auth)
            assert full is not None and full["code"] == "rate_limited"
        assert len(server.server.tables) == 1


async def test_house_bots_decide_off_the_event_loop(tmp_path: Path) -> None:
    config = _config(tmp_path)
    config.house_bots["slow"] = "server_bots.slow_bot:SlowBot"
    async with (
        running_server(config) as server,
        httpx.AsyncClient(base_url=server.url, timeout=5) as http,
    ):
        with _LoopWatch() as watch:
            created = (await http.post("/v1/tables", json=_house_table(9, bot="slow"))).json()
            await asyncio.sleep(1.0)
            status = (await http.get(f"/v1/tables/{created['table_id']}")).json()
        assert status["status"] == "running"
        assert watch.worst < SLOW_DELAY * 2 / 3, watch.worst


def test_house_workers_rest_in_proportion_to_the_cpu_they_use() -> None:
    pool = HousePool(workers=1, share=0.25)

    def burn() -> tuple[float, float, float]:
        start, cpu = time.monotonic(), time.thread_time()
        while time.thread_time() - cpu < 0.03:
            pass
        return start, time.monotonic(), time.thread_time() - cpu

    try:
        _, first_end, used = pool.submit(burn).result()
        second_start, _, _ = pool.submit(burn).result()
    finally:
        pool.shutdown()
    assert second_start - first_end >= used * 3 * 0.99  # rested 3 t: thinks 1/4 of the time


# -- 8: lobby walls cannot be predicted from finished matches -----------------------------


async def test_lobby_seeds_come_from_a_secret_key_and_are_published_after_the_match(
    tmp_path: Path,
) -> None:
    key = "00" * 31 + "2a"
    config = _config(
        tmp_path, lobby_wait=0.05, lobby_hands=1, lobby_house="random", lobby_seed=5, seed_key=key
    )
    seeds = []
    async with (
        running_server(config) as server,
        httpx.AsyncClient(base_url=server.url, timeout=5) as http,
    ):
        for _ in range(2):
            result = await run_ws(load_bot("bots.random").make(1), server.ws_url, None)
            assert result.completed
            await _status(http, result.table_id, {"finished"}, 10)
            log = (await http.get(f"/v1/matches/{result.match_id}/log")).json()
            seeds.append(log["seed"])
    assert seeds == [derive_seed(bytes.fromhex(key), 5, n) for n in range(2)]
    assert seeds[1] - seeds[0] != 1 and 5 not in seeds


# -- 9: the token's holder takes its seat back from a frozen connection -------------------


async def test_a_new_connection_with_the_token_takes_the_seat_from_a_frozen_one(
    server: ServerHandle,
) -> None:
    async with httpx.AsyncClient(base_url=server.url, timeout=5) as http:
        body = {**_ws_table(11, ws=(0,)), "timing": {"decision_ms": 400}}
        created = (await http.post("/v1/tables", json=body)).json()
        token = created["tokens"]["0"]
        async with websockets.connect(server.ws_url) as frozen:  # says hello, then hangs
            client = WireClient(token, "frozen")
            await frozen.send(client.hello())
            await frozen.send(client.ready())
            await asyncio.sleep(0.5)
            bot = load_bot("bots.random").make(2)
            result = await asyncio.wait_for(run_ws(bot, server.ws_url, token), 30)
        assert result.completed
        status = await _status(http, created["table_id"], {"finished", "aborted"}, 10)
        assert status["status"] == "finished"
        text = (await http.get(f"/v1/matches/{created['match_id']}/log.jsonl")).text
    mine = [
        r for r in map(json.loads, text.splitlines()) if r["type"] == "decision" and r["seat"] == 0
    ]
    assert sum(d["outcome"] != "ok" for d in mine) <= 2  # only while the frozen one held it


async def test_the_sdk_keeps_knocking_while_the_seat_is_held() -> None:
    taken = '{"type": "error", "seq": 0, "code": "seat_taken", "message": "busy", "fatal": true}'
    over = '{"type": "error", "seq": 0, "code": "bad_token", "message": "over", "fatal": true}'
    transport = MockTransport()
    for _ in range(6):  # twice the policy's attempts
        transport.connection().expect({"type": "hello"}, taken)
    transport.connection().expect({"type": "hello"}, over)
    session = Session(Bot.from_function(lambda v, r: r.default()), WireCodec(WireClient("t", "b")))
    policy = Reconnect(attempts=3, initial=0.001, maximum=0.002, give_up_after=0.5)
    with pytest.raises(ServerRefused, match="bad_token"):
        await drive(session, transport.connect, policy)
    transport.assert_done()


# -- raw sockets, for clients no library would be --------------------------------------------


# -- cheap to attack: floods are found out, abusers are barred for a while ------------------


def test_a_throttled_flooder_is_found_out_and_an_honest_burst_is_not() -> None:
    bucket = TokenBucket(rate=20, burst=50, now=0.0, flood_seconds=2.0)
    now, sent = 0.0, 0
    while not bucket.flooding and sent < 500:  # the reader sleeps each delay, works 10 ms
        now += bucket.take(now) + 0.01
        sent += 1
    assert bucket.flooding and sent < 200
    honest = TokenBucket(rate=20, burst=50, now=0.0, flood_seconds=2.0)
    for burst in range(20):  # 60 frames at once, then quiet for 3 s
        for _ in range(60):
            honest.take(burst * 3.0)
    assert not honest.flooding


async def test_an_address_cut_off_for_abuse_is_barred_for_a_while(tmp_path: Path) -> None:
    config = _config(tmp_path, abuse_cooldown=1.0, shared_networks=[])  # addresses not shared
    async with running_server(config) as server:
        reader, writer = await upgraded(server, source="127.0.0.2")
        writer.write(ws_frame(0x9, b"p") * 100)  # far more pings than a keepalive needs
        await writer.drain()
        assert await closed_within(reader, 5)
        again, _ = await raw_socket(server, "127.0.0.2")
        assert await closed_within(again, 2)  # closed on accept, before any parsing
        async with httpx.AsyncClient(base_url=server.url, timeout=5) as http:
            assert (await http.get("/v1/health")).status_code == 200  # others unaffected
        local = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
        async with httpx.AsyncClient(base_url=server.url, transport=local, timeout=5) as http:
            for _ in range(100):  # after the cooldown the address is served again
                with contextlib.suppress(httpx.HTTPError):
                    if (await http.get("/v1/health")).status_code == 200:
                        break
                await asyncio.sleep(0.1)
            else:
                raise AssertionError("the address stayed barred")


# -- 5: bounded memory ---------------------------------------------------------------------


async def test_rest_bodies_are_limited_while_they_are_read(server: ServerHandle) -> None:
    for chunked in (False, True):
        reader, writer = await raw_socket(server)
        length = "Transfer-Encoding: chunked" if chunked else "Content-Length: 100000000"
        writer.write(
            f"POST /v1/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"{length}\r\n\r\n".encode()
        )
        piece = b"x" * 16384
        for _ in range(8):  # 128 KiB of a body that claims 100 MB (or never ends)
            writer.write(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(4096), 5)
        assert answer.startswith(b"HTTP/1.1 413"), answer[:80]
        assert b'"malformed"' in answer
        writer.close()


async def test_a_client_that_pings_and_never_reads_is_cut_off(tmp_path: Path) -> None:
    async with running_server(_config(tmp_path, max_write_buffer=1 << 16)) as server:
        reader, writer = await upgraded(server, rcvbuf=4096)
        ping = ws_frame(0x9, b"p" * 125)
        cut = False
        with contextlib.suppress(TimeoutError, ConnectionError):
            async with asyncio.timeout(8):
                for _ in range(100_000):  # pongs asked for, never read
                    writer.write(ping * 50)
                    await writer.drain()
                    await asyncio.sleep(0)
        with contextlib.suppress(ConnectionError):
            cut = await closed_within(reader, 2)
        assert cut and server.server.guard.open == 0


async def test_finished_tables_leave_memory_and_stay_served(tmp_path: Path) -> None:
    async with (
        running_server(_config(tmp_path, finished_grace=0.1)) as server,
        httpx.AsyncClient(base_url=server.url, timeout=5) as http,
    ):
        created = (await http.post("/v1/tables", json=_house_table(4))).json()
        final = await _status(http, created["table_id"], {"finished"}, 20)
        await asyncio.sleep(0.3)
        assert created["table_id"] not in server.server.tables
        again = (await http.get(f"/v1/tables/{created['table_id']}")).json()
        assert again == final and final["status"] == "finished"
        listed = (await http.get("/v1/tables")).json()["tables"]
        assert [t["table_id"] for t in listed] == [created["table_id"]]


async def test_a_finished_table_keeps_its_status_but_not_its_referee_state(
    tmp_path: Path,
) -> None:
    """In the grace period a finished table answers late resumes, but its match (every
    event, walked by each full garbage collection) is already gone."""
    async with (
        running_server(_config(tmp_path, finished_grace=30.0)) as server,
        httpx.AsyncClient(base_url=server.url, timeout=5) as http,
    ):
        created = (await http.post("/v1/tables", json=_house_table(2, hands=2))).json()
        final = await _status(http, created["table_id"], {"finished"}, 20)
        table = server.server.tables[created["table_id"]]
        assert table.match is None and table.records == []
        assert table.status().model_dump(mode="json", exclude_none=True) == final
        assert final["status"] == "finished" and final["hand_no"] == 1
        assert sum(final["scores"]) == 0


# -- 6: connections that never speak; caps; accept failures -------------------------------


async def test_connections_that_never_speak_are_closed(tmp_path: Path) -> None:
    async with running_server(_config(tmp_path, handshake_timeout=0.3)) as server:
        silent, _ = await raw_socket(server)
        slow, slow_writer = await raw_socket(server)
        slow_writer.write(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n")  # never finished
        assert await closed_within(silent, 3)
        assert await closed_within(slow, 3)


async def test_connections_are_capped_in_total_and_per_address(tmp_path: Path) -> None:
    config = _config(
        tmp_path, max_connections=6, max_per_address=3, handshake_timeout=30.0, shared_networks=[]
    )
    async with running_server(config) as server:
        held = [await raw_socket(server) for _ in range(3)]
        over, _ = await raw_socket(server)
        assert await closed_within(over, 2)
        local = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
        async with httpx.AsyncClient(base_url=server.url, transport=local, timeout=5) as http:
            assert (await http.get("/v1/health")).status_code == 200
        held += [await raw_socket(server, "127.0.0.3") for _ in range(3)]
        full, _ = await raw_socket(server, "127.0.0.4")
        assert await closed_within(full, 2)
        assert server.server.guard.refused == 2 and len(held) == 6


def test_accept_failures_are_logged_once_per_interval(caplog: pytest.LogCaptureFixture) -> None:
    loop = asyncio.new_event_loop()
    try:
        handler = AcceptLog(loop, interval=60.0)
        handler.install()
        error = OSError(24, "Too many open files")
        with caplog.at_level(logging.ERROR):
            for _ in range(1000):
                loop.call_exception_handler(
                    {"message": "socket.accept() out of system resource", "exception": error}
                )
        assert len(caplog.records) == 1 and caplog.records[0].exc_info is None
        assert handler.suppressed == 999
    finally:
        loop.close()


async def test_a_text_frame_that_is_not_utf8_closes_with_one_log_line(
    server: ServerHandle, caplog: pytest.LogCaptureFixture
) -> None:
    reader, writer = await upgraded(server)
    with caplog.at_level(logging.INFO):
        writer.write(ws_frame(0x1, b"\xff\xfe not utf-8"))
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(64), 5)
        await asyncio.sleep(0.1)
    assert answer[:1] == b"\x88" and struct.unpack("!H", answer[2:4])[0] == 1007
    assert not [r for r in caplog.records if r.exc_info], [r.getMessage() for r in caplog.records]


# -- 3: lists that grow are paged; REST requests are rate-limited ----------------------------


async def test_table_lists_are_paged(server: ServerHandle) -> None:
    async with httpx.AsyncClient(base_url=server.url, timeout=5) as http:
        ids = []
        for seed in range(5):
            created = (await http.post("/v1/tables", json=_house_table(seed))).json()
            ids.append(created["table_id"])
        for table_id in ids:
            await _status(http, table_id, {"finished"}, 20)
        seen, before = [], None
        while True:
            params = {"limit": 2} if before is None else {"limit": 2, "before": before}
            page = (await http.get("/v1/tables", params=params)).json()
            assert len(page["tables"]) <= 2
            seen += [t["table_id"] for t in page["tables"]]
            before = page.get("next_before")
            if before is None:
                break
        assert seen == ids[::-1]


async def test_rest_requests_are_rate_limited_per_client(tmp_path: Path) -> None:
    async with running_server(_config(tmp_path, rest_rate=2.0, rest_burst=5)) as server:
        async with httpx.AsyncClient(base_url=server.url, timeout=5) as http:
            started = time.monotonic()
            codes = [(await http.get("/v1/tables")).status_code for _ in range(30)]
            elapsed = time.monotonic() - started
            limited = await http.get("/v1/leaderboard")
        assert 5 <= codes.count(200) <= 5 + 2 * elapsed + 1 and 429 in codes
        assert limited.status_code == 429 and limited.json()["code"] == "rate_limited"
        assert int(limited.headers["retry-after"]) >= 1
        local = httpx.AsyncHTTPTransport(local_address="127.0.0.2")  # another client
        async with httpx.AsyncClient(base_url=server.url, transport=local, timeout=5) as http:
            assert (await http.get("/v1/health")).status_code == 200


async def test_a_client_has_few_requests_in_progress_and_lists_are_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _config(
        tmp_path, rest_concurrency=2, rest_rate=1000.0, rest_burst=1000, shared_networks=[]
    )
    async with running_server(config) as server:
        release = asyncio.Event()
        calls = []
        listing = server.server.list_tables

        async def counted(*args: object) -> object:
            calls.append(args)
            await release.wait()
            return await listing(*args)  # type: ignore[arg-type]

        monkeypatch.setattr(server.server, "list_tables", counted)
        async with httpx.AsyncClient(base_url=server.url, timeout=5) as http:
            # requests in progress (a stalled body holds no slot: test_server_rest_hostile)
            held = [asyncio.create_task(http.get(f"/v1/tables?limit={n}")) for n in (1, 2)]
            await asyncio.sleep(0.2)
            refused = await http.get("/v1/health")
            assert refused.status_code == 429 and refused.json()["code"] == "rate_limited"
            release.set()
            assert [(await h).status_code for h in held] == [200, 200]
            assert (await http.get("/v1/health")).status_code == 200
            calls.clear()
            answers = [(await http.get("/v1/tables?limit=7")).json() for _ in range(5)]
        assert len(calls) == 1 and all(a == answers[0] for a in answers)


# -- 10: a TCP line seat can be bound to one program ------------------------------------


async def test_a_tcp_line_seat_is_taken_only_with_its_token_by_default(tmp_path: Path) -> None:
    """Issue #32 item 5: by default a program without the token cannot take the seat
    first (it waits in the lobby), and the owner takes it with its token."""
    config = _config(tmp_path, line_port=0, lobby_wait=30.0)
    seats = [{"seat": 1, "bot_name": "owner", "transport": "line"}]
    async with (
        running_server(config) as server,
        httpx.AsyncClient(base_url=server.url, timeout=5) as http,
    ):
        created = (
            await http.post("/v1/tables", json={"seed": 13, "hands": 1, "seats": seats})
        ).json()
        assert server.line_port is not None
        intruder, intruder_writer = await asyncio.open_connection("127.0.0.1", server.line_port)
        with pytest.raises(TimeoutError):  # no seat for a program without the token
            await asyncio.wait_for(intruder.readline(), 1.0)

        bot = load_bot("bots.random").make(3)  # the SDK sends the /token line (--token)
        token = created["tokens"]["1"]
        result = await asyncio.wait_for(
            run_tcp(bot, "127.0.0.1", server.line_port, token=token), 30
        )
        assert result.completed and result.seat == 1
        status = await _status(http, created["table_id"], {"finished", "aborted"}, 10)
        assert status["status"] == "finished"
        intruder_writer.close()


async def test_plain_line_programs_still_take_open_seats_when_allowed(tmp_path: Path) -> None:
    config = _config(tmp_path, line_port=0, line_tokens=False)  # --open-line-seats
    seats = [{"seat": 2, "bot_name": "plain", "transport": "line"}]
    async with (
        running_server(config) as server,
        httpx.AsyncClient(base_url=server.url, timeout=5) as http,
    ):
        created = (
            await http.post("/v1/tables", json={"seed": 14, "hands": 1, "seats": seats})
        ).json()
        assert "2" in created["tokens"]
        assert server.line_port is not None
        bot = load_bot("bots.random").make(4)
        result = await asyncio.wait_for(run_tcp(bot, "127.0.0.1", server.line_port), 30)
        assert result.completed and result.seat == 2


def test_the_served_process_freezes_its_start_up_heap_and_collects_fully_less_often() -> None:
    """What ``serve`` calls once uvicorn has started (run in a child: freezing is
    global)."""
    probe = (
        "import gc\n"
        "from sdk.server.runner import FULL_COLLECTION_RATIO, tune_garbage_collector\n"
        "young = gc.get_threshold()[:2]\n"
        "tune_garbage_collector()\n"
        "assert gc.get_freeze_count() > 1000, gc.get_freeze_count()\n"
        "assert gc.get_threshold() == (*young, FULL_COLLECTION_RATIO) and FULL_COLLECTION_RATIO > 10\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
