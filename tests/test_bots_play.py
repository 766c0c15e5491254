"""The sample bots only ever answer legal actions, and play whole matches cleanly."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from bots.defensive import DefensiveBot
from bots.greedy import GreedyBot
from bots.random import RandomBot
from protocol.actions import Action
from sdk.arena import load_bot
from sdk.bot import Bot, DecisionRequest
from sdk.local import play_match
from sdk.server.config import ServerConfig
from sdk.server.runner import ServerHandle, running_server
from sdk.transports.line import run_tcp
from sdk.transports.ws import run_ws
from sdk.view import GameView


class Shadow(RandomBot):
    """Plays randomly (so the table wanders into odd states: many claims, kongs, late
    hands) and asks the bots under test the same question each time."""

    def __init__(self, seed: int, tested: list[Bot], asked: list[int]) -> None:
        super().__init__(seed)
        self.tested, self.asked = tested, asked

    def choose(self, view: GameView | None, request: DecisionRequest) -> Action:
        for i, bot in enumerate(self.tested):
            answer = bot.choose(view, request)  # type: ignore[arg-type]
            assert answer in request.legal_actions, (bot.name, view, answer)
            self.asked[i] += 1
        return super().choose(view, request)


def test_bots_answer_only_legal_actions_in_thousands_of_random_states() -> None:
    tested: list[Bot] = [RandomBot(seed=5), GreedyBot(), DefensiveBot()]
    asked = [0, 0, 0]
    for seed in range(3):
        bots = [Shadow(seed * 4 + i, tested, asked) for i in range(4)]
        play_match(bots, seed=seed, hands=16)
    assert min(asked) >= 3000


@pytest.mark.parametrize("seed", [0, 1])
def test_a_mixed_table_plays_a_strict_match_without_fallbacks(seed: int) -> None:
    bots = [GreedyBot(), DefensiveBot(), RandomBot(seed=seed), DefensiveBot()]
    result = play_match(bots, seed=seed, hands=16, strict=True)
    assert sum(result.scores) == 0 and len(result.hand_results) == 16
    assert [s.fallbacks for s in result.stats] == [0, 0, 0, 0]
    assert sum(s.count for s in result.stats[:2]) > 200


@pytest.mark.parametrize("name", ["random", "greedy", "defensive"])
def test_the_arena_loads_each_module(name: str) -> None:
    factory = load_bot(f"bots.{name}")
    expected = {"random": RandomBot, "greedy": GreedyBot, "defensive": DefensiveBot}[name]
    assert type(factory.make(seed=1)) is expected


@pytest.mark.parametrize("name", ["random", "greedy", "defensive"])
def test_python_m_plays_a_local_match(name: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", f"bots.{name}", "--local", "--hands", "1", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    players = json.loads(out)["players"]
    assert players[0]["name"] == name
    assert all(p["timing"]["fallbacks"] == 0 for p in players)


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[ServerHandle]:
    config = ServerConfig(
        port=0, line_port=0, db_path=str(tmp_path / "bots.db"), allow_commands=True
    )
    async with running_server(config) as handle:
        yield handle


@pytest.mark.parametrize("shift", [0, 1, 2])
async def test_each_bot_plays_over_every_transport(server: ServerHandle, shift: int) -> None:
    """Rotating the three bots over WebSocket, line-over-TCP and a line-protocol
    subprocess (``python -m bots.<name> --line``), plus the server's own house seat,
    puts every bot on every transport."""
    names = ["random", "greedy", "defensive"]
    ws_bot, tcp_bot, cmd_bot = (names[(shift + k) % 3] for k in range(3))
    seats = [
        {"seat": 0, "bot_name": ws_bot, "transport": "ws"},
        {"seat": 1, "bot_name": tcp_bot, "transport": "line"},
        {
            "seat": 2,
            "bot_name": cmd_bot,
            "transport": "line",
            "command": [sys.executable, "-m", f"bots.{cmd_bot}", "--line"],
        },
        {"seat": 3, "bot_name": cmd_bot, "transport": "builtin"},
    ]
    async with httpx.AsyncClient(base_url=server.url) as http:
        response = await http.post("/v1/tables", json={"seed": shift, "hands": 1, "seats": seats})
        assert response.status_code == 201, response.text
        created = response.json()
        assert server.line_port is not None
        ws_result, tcp_result = await asyncio.gather(
            run_ws(load_bot(f"bots.{ws_bot}").make(1), server.ws_url, created["tokens"]["0"]),
            run_tcp(
                load_bot(f"bots.{tcp_bot}").make(2),
                "127.0.0.1",
                server.line_port,
                token=created["tokens"]["1"],
            ),
        )
        for _ in range(400):
            status = (await http.get(f"/v1/tables/{created['table_id']}")).json()
            if status["status"] in ("finished", "aborted"):
                break
            await asyncio.sleep(0.05)
    assert ws_result.completed and tcp_result.completed
    assert status["status"] == "finished"
    assert [s["fallbacks"] for s in status["seats"]] == [0, 0, 0, 0]
