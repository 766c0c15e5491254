"""The server tells you what it is doing (issue 18): the start banner (WebSocket URL,
line port, lobby policy, where records are), one log line per table opened and match
started and ended with ids and the record's path, and the SDK's closing line with the
match id and where its record is."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import httpx
import pytest

from bots.random import RandomBot
from sdk.cli import main
from sdk.server.config import ServerConfig
from sdk.server.runner import running_server


async def test_banner_table_and_match_logs_and_the_sdk_record_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    config = ServerConfig(port=0, line_port=0, db_path=str(tmp_path / "league.db"))
    with caplog.at_level(logging.INFO, logger="sdk.server"):
        async with running_server(config) as server:
            banner = next(
                r.getMessage() for r in caplog.records if "taimahjong server" in r.getMessage()
            )
            assert f"pages      {server.url}/   matches" in banner
            assert f"WebSocket  {server.ws_url}" in banner
            assert f"line port  127.0.0.1:{server.line_port}" in banner
            assert "lobby      a bot without a token waits; after 5 s house bots (greedy)" in banner
            assert f"records    {server.url}/v1/matches/{{match_id}}/log.jsonl" in banner
            async with httpx.AsyncClient(base_url=server.url) as http:
                seats = [{"seat": 0, "bot_name": "me", "transport": "ws"}]
                body = {"seed": 2, "hands": 1, "seats": seats}
                created = (await http.post("/v1/tables", json=body)).json()
                argv = ["--url", server.ws_url, "--token", created["tokens"]["0"]]
                assert await asyncio.to_thread(main, RandomBot, argv) == 0
                for _ in range(400):
                    if (await http.get(f"/v1/tables/{created['table_id']}")).json()[
                        "status"
                    ] == "finished":
                        break
                    await asyncio.sleep(0.05)
                record = f"{server.url}/v1/matches/{created['match_id']}/log.jsonl"
                assert (await http.get(record)).status_code == 200
    table, match = created["table_id"], created["match_id"]
    messages = [r.getMessage() for r in caplog.records]
    assert any(
        m.startswith(f"table {table} opened for match {match} (rest): 0 me, 1 ") for m in messages
    )
    assert any(m.startswith(f"match {match} started on table {table}") for m in messages)
    path = f"/v1/matches/{match}/log.jsonl"
    ended = f"{table}: match {match} finished, scores "
    said = next(m for m in messages if m.startswith(ended))
    scores = json.loads(said[len(ended) :].partition(";")[0])
    assert len(scores) == 4 and sum(scores) == 0  # the final scores: payments balance
    assert said.endswith(f"; its record: {path}")
    assert f"record: {record} (match {match}, served once it is over)" in capsys.readouterr().err
