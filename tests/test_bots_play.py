"""The sample bots only ever answer legal actions, and play whole matches cleanly."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bots.defensive import DefensiveBot
from bots.greedy import GreedyBot
from bots.random import RandomBot
from protocol.actions import Action
from sdk.arena import load_bot
from sdk.bot import Bot, DecisionRequest
from sdk.local import play_match
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
    for seed in range(5):
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
        [sys.executable, "-m", f"bots.{name}", "--hands", "1", "--opponents", "random"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    assert "fallbacks 0" in out and out.count(" seat ") == 4
