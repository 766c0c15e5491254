"""The local tournament server end to end, over real loopback sockets: SDK bots over
WebSocket, a line-protocol program over TCP and one on stdin/stdout, house bots, the
lobby, REST; every result identical to the same seed played in-process."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from sdk.arena.loader import load_bot
from sdk.bot import Bot
from sdk.local import play_match
from sdk.server.config import ServerConfig
from sdk.server.core import house_seed
from sdk.server.runner import ServerHandle, running_server
from sdk.transports.line import run_tcp
from sdk.transports.ws import run_ws

LINE_BOT = Path(__file__).parent / "server_bots" / "line_bot.py"
HANDS = 2


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[ServerHandle]:
    config = ServerConfig(
        port=0, line_port=0, db_path=str(tmp_path / "league.db"), allow_commands=True
    )
    async with running_server(config) as handle:
        yield handle


def _random(seed: int) -> Bot:
    return load_bot("bots.random").make(seed)


def _in_process(seed: int, bot_seeds: list[int], hands: int = HANDS) -> tuple[list, list]:
    result = play_match([_random(s) for s in bot_seeds], seed=seed, hands=hands, record_events=True)
    return [e.to_json() for e in result.events], list(result.scores)


async def _finished(http: httpx.AsyncClient, table_id: str) -> dict:
    for _ in range(200):
        status = (await http.get(f"/v1/tables/{table_id}")).json()
        if status["status"] in ("finished", "aborted"):
            return status
        await asyncio.sleep(0.05)
    raise AssertionError(f"{table_id} did not finish: {status}")


async def test_four_sdk_bots_over_websocket_play_the_in_process_match(
    server: ServerHandle,
) -> None:
    seed, bot_seeds = 31, [101, 102, 103, 104]
    async with httpx.AsyncClient(base_url=server.url) as http:
        seats = [{"seat": s, "bot_name": f"rnd{s}", "transport": "ws"} for s in range(4)]
        created = (
            await http.post("/v1/tables", json={"seed": seed, "hands": HANDS, "seats": seats})
        ).json()
        results = await asyncio.gather(
            *(
                run_ws(_random(bot_seeds[s]), server.ws_url, created["tokens"][str(s)], strict=True)
                for s in range(4)
            )
        )
        assert all(r.completed and r.mismatches == 0 for r in results)
        status = await _finished(http, created["table_id"])
        log = (await http.get(f"/v1/matches/{created['match_id']}/log")).json()
        board = (await http.get("/v1/leaderboard")).json()
    events, scores = _in_process(seed, bot_seeds)
    assert status["status"] == "finished" and status["scores"] == scores
    assert log["events"] == events and log["scores"] == scores
    assert [r.scores for r in results] == [tuple(scores)] * 4
    # credited to the name the bots gave in hello (all four "random"), not the REST seats'
    assert {e["bot_name"]: e["total_score"] for e in board["entries"]} == {"random": sum(scores)}
    assert all(s["fallbacks"] == 0 for s in status["seats"])


async def test_websocket_tcp_subprocess_and_house_bots_play_the_in_process_match(
    server: ServerHandle,
) -> None:
    seed, ws_seed, tcp_seed, cmd_seed = 47, 201, 202, 203
    command = [sys.executable, str(LINE_BOT), "--bot", "bots.random", "--seed", str(cmd_seed)]
    seats = [
        {"seat": 0, "bot_name": "ws-bot", "transport": "ws"},
        {"seat": 1, "bot_name": "tcp-bot", "transport": "line"},
        {"seat": 2, "bot_name": "cmd-bot", "transport": "line", "command": command},
        {"seat": 3, "bot_name": "random", "transport": "builtin"},
    ]
    async with httpx.AsyncClient(base_url=server.url) as http:
        response = await http.post(
            "/v1/tables", json={"seed": seed, "hands": HANDS, "seats": seats}
        )
        assert response.status_code == 201, response.text
        created = response.json()
        assert set(created["tokens"]) == {"0", "1"}  # the ws seat and the TCP line seat
        assert server.line_port is not None
        ws_result, tcp_result = await asyncio.gather(
            run_ws(_random(ws_seed), server.ws_url, created["tokens"]["0"], strict=True),
            run_tcp(
                _random(tcp_seed),
                "127.0.0.1",
                server.line_port,
                strict=True,
                token=created["tokens"]["1"],
            ),
        )
        status = await _finished(http, created["table_id"])
        lines = (await http.get(f"/v1/matches/{created['match_id']}/log.jsonl")).text
    assert ws_result.completed and tcp_result.completed
    assert [s["transport"] for s in status["seats"]] == ["ws", "line", "line", "builtin"]
    events, scores = _in_process(seed, [ws_seed, tcp_seed, cmd_seed, house_seed(seed, 3)])
    records = [json.loads(line) for line in lines.splitlines()]
    assert records[0]["type"] == "header" and records[-1]["scores"] == scores
    assert [r["event"] for r in records if r["type"] == "event"] == events
    decisions = [r for r in records if r["type"] == "decision"]
    assert decisions and all(d["outcome"] in ("ok", "overridden") for d in decisions)
    assert {d["seat"] for d in decisions} == {0, 1, 2, 3}
    line_replies = [d["raw"] for d in decisions if d["seat"] in (1, 2)]
    assert all(raw.startswith("/") for raw in line_replies)


async def test_lobby_seats_a_bot_without_token_and_fills_with_house_bots(
    tmp_path: Path,
) -> None:
    config = ServerConfig(
        port=0,
        db_path=str(tmp_path / "lobby.db"),
        lobby_wait=0.2,
        lobby_hands=1,
        lobby_house="random",
        lobby_seed=5,
    )
    async with running_server(config) as server:
        result = await run_ws(_random(7), server.ws_url, None, strict=True)
        async with httpx.AsyncClient(base_url=server.url) as http:
            status = await _finished(http, result.table_id)
    assert result.completed and result.seat is not None
    transports = [s["transport"] for s in status["seats"]]
    assert transports.count("ws") == 1 and transports.count("builtin") == 3
    assert status["seats"][result.seat]["transport"] == "ws"


async def test_rest_refuses_bad_tables_with_error_bodies(tmp_path: Path) -> None:
    config = ServerConfig(port=0, db_path=":memory:", admin_token="letmein")
    async with running_server(config) as server, httpx.AsyncClient(base_url=server.url) as http:
        body = {"seed": 1, "hands": 1, "seats": [{"seat": 0, "bot_name": "x"}]}
        unauthorised = await http.post("/v1/tables", json=body)
        assert unauthorised.status_code == 401
        assert unauthorised.json()["code"] == "bad_token"
        auth = {"authorization": "Bearer letmein"}
        cases = [
            ({**body, "seats": [{"seat": 0, "bot_name": "x", "transport": "builtin"}]}, 422),
            (
                {
                    **body,
                    "seats": [{"seat": 0, "bot_name": "x", "transport": "line", "command": ["sh"]}],
                },
                403,
            ),
            ({**body, "rules": "mcr"}, 422),
            ({**body, "hands": "3"}, 422),
            ({**body, "surprise": 1, "seats": [{"seat": 0, "bot_name": "x"}] * 2}, 422),
        ]
        for case, code in cases:
            response = await http.post("/v1/tables", json=case, headers=auth)
            assert response.status_code == code, (case, response.text)
            assert response.json()["code"] == "malformed"
        garbage = await http.post("/v1/tables", content=b"{not json", headers=auth)
        assert garbage.status_code == 422 and garbage.json()["code"] == "malformed"
        missing = await http.get("/v1/tables/t-999")
        assert missing.status_code == 404 and set(missing.json()) == {"code", "message"}
        assert missing.json()["code"] == "not_found"
        health = (await http.get("/v1/health")).json()
        assert health == {"status": "ok", "protocol_version": 1, "server_version": "0.1.0"}
