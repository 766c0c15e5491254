"""The REST side against hostile clients (second audit): stalled request bodies must not
lock an address out, and bad query parameters answer the documented ``ErrorBody``.

Servers bind 127.0.0.1 on ephemeral ports; every attack here is a handful of sockets
for a few seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from sdk.server.config import ServerConfig
from sdk.server.runner import ServerHandle, running_server

DEADLINE = 1.5
"""``rest_body_timeout`` in these tests (5 s by default)."""

STALLED = 10
"""Stalled uploads: more than ``rest_concurrency`` (8)."""

Conn = tuple[asyncio.StreamReader, asyncio.StreamWriter]


def _config(tmp_path: Path, **kw: object) -> ServerConfig:
    return ServerConfig(port=0, db_path=str(tmp_path / "rest.db"), **kw)  # type: ignore[arg-type]


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[ServerHandle]:
    async with running_server(_config(tmp_path, rest_body_timeout=DEADLINE)) as handle:
        yield handle


async def _stalled_post(server: ServerHandle, sent: bytes = b"{") -> Conn:
    """A ``POST /v1/tables`` that promises 100 bytes of body and sends ``sent``."""
    reader, writer = await asyncio.open_connection(server.host, server.port)
    writer.write(
        b"POST /v1/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100\r\n\r\n" + sent
    )
    await writer.drain()
    return reader, writer


async def _answer(reader: asyncio.StreamReader, wait: float) -> tuple[int, dict, bytes]:
    """Status, JSON body and what followed (b"" once the server closed)."""
    async with asyncio.timeout(wait):
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        headers = dict(line.lower().split(": ", 1) for line in lines[1:] if line)
        body = await reader.readexactly(int(headers["content-length"]))
        rest = await reader.read(100)  # the connection is closed after a 408
    return int(lines[0].split()[1]), json.loads(body), rest


def _close(conns: list[Conn]) -> None:
    for _, writer in conns:
        writer.close()


async def test_stalled_uploads_do_not_lock_the_address_out(server: ServerHandle) -> None:
    started = time.monotonic()
    conns = [await _stalled_post(server) for _ in range(STALLED)]
    try:
        await asyncio.sleep(0.2)
        async with httpx.AsyncClient(base_url=server.url, timeout=5) as http:
            for path in ("/v1/health", "/v1/tables", "/v1/health"):
                asked = time.monotonic()
                answer = await http.get(path)
                assert answer.status_code == 200, answer.text
                assert time.monotonic() - asked < 0.5
        assert time.monotonic() - started < DEADLINE  # all while the uploads were held
        for reader, _ in conns:
            status, body, rest = await _answer(reader, DEADLINE + 3)
            assert status == 408
            assert body == {"code": "malformed", "message": body["message"]}
            assert f"{DEADLINE:g} s" in body["message"]
            assert rest == b""
        assert time.monotonic() - started >= DEADLINE - 0.1
    finally:
        _close(conns)


async def test_a_trickled_body_is_cut_at_the_deadline(server: ServerHandle) -> None:
    reader, writer = await _stalled_post(server, b"")
    started = time.monotonic()
    try:

        async def trickle() -> None:
            with contextlib.suppress(ConnectionError):
                for _ in range(99):  # 1 byte every 0.2 s: never a 100-byte body in time
                    writer.write(b" ")
                    await writer.drain()
                    await asyncio.sleep(0.2)

        feeder = asyncio.create_task(trickle())
        try:
            status, body, _ = await _answer(reader, DEADLINE + 3)
        finally:
            feeder.cancel()
        assert status == 408 and body["code"] == "malformed"
        assert DEADLINE - 0.1 <= time.monotonic() - started < DEADLINE + 2
    finally:
        writer.close()


async def test_a_complete_body_is_served_after_others_stall(server: ServerHandle) -> None:
    conns = [await _stalled_post(server) for _ in range(STALLED)]
    try:
        await asyncio.sleep(0.2)
        async with httpx.AsyncClient(base_url=server.url, timeout=5) as http:
            answer = await http.post("/v1/tables", json={"seed": 1, "hands": 1})
            assert answer.status_code == 422  # read, validated: not refused with 429
            assert answer.json()["code"] == "malformed"
    finally:
        _close(conns)


async def test_requests_being_served_still_count_against_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _config(
        tmp_path, rest_concurrency=2, rest_rate=1000.0, rest_burst=1000, shared_networks=[]
    )  # per address, as for addresses that are not shared
    async with running_server(config) as server:
        release = asyncio.Event()
        listing = server.server.list_tables

        async def slow(*args: object) -> object:
            await release.wait()
            return await listing(*args)  # type: ignore[arg-type]

        monkeypatch.setattr(server.server, "list_tables", slow)
        async with httpx.AsyncClient(base_url=server.url, timeout=5) as http:
            held = [asyncio.create_task(http.get(f"/v1/tables?limit={n}")) for n in (1, 2)]
            await asyncio.sleep(0.3)
            refused = await http.get("/v1/health")
            assert refused.status_code == 429 and refused.json()["code"] == "rate_limited"
            release.set()
            assert [(await h).status_code for h in held] == [200, 200]
            assert (await http.get("/v1/health")).status_code == 200


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("/v1/tables?limit=abc", "limit"),
        ("/v1/tables?before=abc", "before"),
        ("/v1/tables?limit=" + "9" * 5000, "limit"),
        ("/v1/tables?before=" + "x" * 5000, "before"),
        ("/v1/matches/m-1/view?seat=abc", "seat"),
    ],
)
async def test_bad_query_parameters_answer_the_error_body(
    server: ServerHandle, query: str, name: str
) -> None:
    async with httpx.AsyncClient(base_url=server.url, timeout=5) as http:
        answer = await http.get(query)
    assert answer.status_code == 422, answer.text
    body = answer.json()
    assert set(body) == {"code", "message"} and body["code"] == "malformed"
    message = body["message"]
    assert message.startswith(f"{name}: ") and "\n" not in message
    assert len(message) <= 100 and "999" not in message and "xxx" not in message
