"""A real server on loopback for the viewer's tests (:func:`loopback_server`),
its tables created and played to the end, and the data a viewer page embeds."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx

from sdk.server.config import ServerConfig
from sdk.server.runner import ServerHandle, running_server

BUILTIN = [{"seat": s, "bot_name": "random", "transport": "builtin"} for s in range(4)]
"""Four built-in random bots: a match the server plays alone."""


@asynccontextmanager
async def loopback_server(tmp_path: Path) -> AsyncIterator[ServerHandle]:
    """The server (REST, WebSocket and line ports on loopback) with a fresh database in
    ``tmp_path`` (a test module's ``server`` fixture yields it)."""
    config = ServerConfig(port=0, line_port=0, db_path=str(tmp_path / "league.db"))
    async with running_server(config) as handle:
        yield handle


async def create_table(
    http: httpx.AsyncClient, seed: int, hands: int, seats: list[dict[str, Any]]
) -> dict[str, Any]:
    """A new table's answer (ids and seat tokens)."""
    response = await http.post("/v1/tables", json={"seed": seed, "hands": hands, "seats": seats})
    assert response.status_code == 201, response.text
    return response.json()


async def until_over(http: httpx.AsyncClient, table_id: str) -> None:
    """Wait until the table's match is finished (or aborted)."""
    for _ in range(400):
        status = (await http.get(f"/v1/tables/{table_id}")).json()
        if status["status"] in ("finished", "aborted"):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{table_id} did not finish")


async def finished_match(http: httpx.AsyncClient, seed: int, hands: int) -> dict[str, Any]:
    """A match of four built-in random bots, played to its end."""
    created = await create_table(http, seed, hands, BUILTIN)
    await until_over(http, created["table_id"])
    return created


def embedded(page: str) -> dict[str, Any]:
    """The JSON a viewer page holds (its outline, and its first hand on the server)."""
    blob = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', page, re.S)
    assert blob is not None
    return json.loads(blob.group(1))
