"""The server's ``/v1/matches/{id}/log.jsonl`` is a game record written by the one
writer: the same record as ``--local`` for the same seed (apart from timing fields),
readable by the replay from its URL; the SDK prints where it is."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from bots.greedy import GreedyBot
from sdk.cli import main as bot_main
from sdk.local import play_match
from sdk.records import comparable_lines, parse_text, verify_record
from sdk.records.schema import validate_line
from sdk.replay.__main__ import main as replay_main
from sdk.server.config import ServerConfig
from sdk.server.runner import ServerHandle, running_server

SEED, HANDS = 5, 2


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[ServerHandle]:
    config = ServerConfig(
        port=0, db_path=str(tmp_path / "league.db"), lobby_wait=0.2, lobby_hands=1
    )
    async with running_server(config) as handle:
        yield handle


async def _finished(http: httpx.AsyncClient, table_id: str) -> None:
    for _ in range(400):
        status = (await http.get(f"/v1/tables/{table_id}")).json()
        if status["status"] in ("finished", "aborted"):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{table_id} did not finish")


async def test_the_server_record_equals_the_local_one_apart_from_timing(
    server: ServerHandle, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="sdk.server.table")
    seats = [{"seat": s, "bot_name": "greedy", "transport": "builtin"} for s in range(4)]
    async with httpx.AsyncClient(base_url=server.url) as http:
        created = (
            await http.post("/v1/tables", json={"seed": SEED, "hands": HANDS, "seats": seats})
        ).json()
        await _finished(http, created["table_id"])
        url = f"{server.url}/v1/matches/{created['match_id']}/log.jsonl"
        text = (await http.get(url)).text
        missing = await http.get(f"{server.url}/v1/matches/no-such-match/log.jsonl")
    record = parse_text(text, source=url)
    verify_record(record)
    for line in text.splitlines():
        validate_line(json.loads(line))
    assert record.header.origin.source == "server"
    assert record.header.origin.match_id == created["match_id"]
    local = play_match([GreedyBot() for _ in range(4)], seed=SEED, hands=HANDS, record=True)
    assert local.record is not None
    assert comparable_lines(record) == comparable_lines(local.record)
    assert missing.status_code == 404
    match_id, scores = created["match_id"], list(record.summary.scores)  # type: ignore[union-attr]
    said = (
        f"match {match_id} finished, scores {scores}; its record: /v1/matches/{match_id}/log.jsonl"
    )
    assert said in caplog.text
    code = await asyncio.to_thread(replay_main, [url, "--hand", "1", "--print", "--width", "160"])
    assert code == 0 and "hand 1: dealer" in capsys.readouterr().out
    code = await asyncio.to_thread(replay_main, [f"{server.url}/v1/matches/no-such-match"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.startswith("error:") and "no such match" in err and "\n" not in err


async def test_a_bot_on_the_server_prints_where_its_record_is(
    server: ServerHandle, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--url", server.ws_url, "--json"]
    code = await asyncio.to_thread(bot_main, GreedyBot, argv)
    assert code == 0
    err = capsys.readouterr().err
    line = next(x for x in err.splitlines() if x.startswith("record: "))
    url = line.split()[1]
    assert url.startswith(f"{server.url}/v1/matches/") and url.endswith("/log.jsonl")
    async with httpx.AsyncClient() as http:
        for _ in range(100):  # the lobby match ends for the server a moment after the bot
            response = await http.get(url)
            if response.status_code == 200:
                break
            await asyncio.sleep(0.05)
    verify_record(parse_text(response.text))
