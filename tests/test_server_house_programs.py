"""A house bot of the server may be a line-protocol program (``--house me=cmd:./prog``
or ``tcp:./prog {host} {port}``): a table seating it starts the program for the match,
over pipes or by TCP, and stops it at the end."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
from program_helpers import compile_c, running
from test_server_programs import _finish

from sdk.server.config import ServerConfig
from sdk.server.runner import running_server


async def test_house_programs_play_a_table(tmp_path: Path) -> None:
    binary = compile_c(tmp_path)
    config = ServerConfig(port=0, db_path=str(tmp_path / "db.sqlite"), subprocess_grace=0.5,
                          program_log_dir=str(tmp_path / "logs"))  # fmt: skip
    config.house_bots["pipes"] = f"cmd:{binary}"
    config.house_bots["tcp"] = f"tcp:{binary} {{host}} {{port}}"
    seats = [{"seat": s, "bot_name": n, "transport": "builtin"}
             for s, n in enumerate(("pipes", "tcp", "random", "random"))]  # fmt: skip
    async with asyncio.timeout(120):
        async with running_server(config) as server, httpx.AsyncClient(base_url=server.url) as c:
            made = await c.post("/v1/tables", json={"seed": 5, "hands": 2, "seats": seats})
            assert made.status_code == 201, made.text
            records = await _finish(c, made.json())
    header = records[0]
    assert [s["name"] for s in header["seats"]][:2] == ["pipes", "tcp"]
    mine = [r for r in records if r["type"] == "decision" and r["seat"] in (0, 1)]
    assert {r["seat"] for r in mine} == {0, 1} and all(r["outcome"] == "ok" for r in mine)
    assert running(str(binary)) == []
