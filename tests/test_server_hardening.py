"""Hardening of the local server (issue 16): each test is one defect found by attacking
the server as a hostile or broken client would; each failed before its fix.

Servers bind 127.0.0.1 on ephemeral ports; every attack here is small and bounded.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from sdk.server.config import ServerConfig
from sdk.server.runner import ServerHandle, running_server
from sdk.server.store import MatchRow, Store


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
        assert watch.worst < 0.25, watch.worst


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
