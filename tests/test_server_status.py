"""A table's REST status right after its match ends is the table's own final status, not
a version rebuilt from the database (a hostile-client audit read, for a moment after each
match, every fallback as 0 and every seat as never connected).

The server binds 127.0.0.1 on an ephemeral port.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from sdk.server.config import ServerConfig
from sdk.server.core import TournamentServer
from sdk.server.runner import running_server


async def test_the_status_of_a_match_just_over_is_the_tables_final_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the moment between the match's end and the table's release, held open
    monkeypatch.setattr(TournamentServer, "_done", lambda self, table: None)
    config = ServerConfig(port=0, db_path=str(tmp_path / "status.db"))
    seats = [{"seat": s, "bot_name": "random", "transport": "builtin"} for s in range(4)]
    async with (
        running_server(config) as server,
        httpx.AsyncClient(base_url=server.url, timeout=5) as http,
    ):
        made = await http.post("/v1/tables", json={"seed": 3, "hands": 1, "seats": seats})
        table_id = made.json()["table_id"]
        for _ in range(200):
            status = (await http.get(f"/v1/tables/{table_id}")).json()
            if status["status"] not in ("waiting", "running"):
                break
            await asyncio.sleep(0.05)
    assert status["status"] == "finished"
    assert all(seat["connected"] and seat["ready"] for seat in status["seats"]), status
    table = server.server.tables[table_id]
    assert status["scores"] == list(table.status().scores) and sum(status["scores"]) == 0
