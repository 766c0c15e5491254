"""The arena applies the server's budget policy: slow, raising and illegal answers are
replaced by the fallback and counted against the bot that gave them."""

from __future__ import annotations

import logging

import pytest
from arena_bots import FirstLegal, Illegal, Raising, SeededRandom, Slow

from protocol.actions import Action
from sdk.arena import run_arena
from sdk.bot import DecisionRequest
from sdk.budget import Budget
from sdk.view import GameView

TIGHT = Budget(decision=0.02, safety_margin=0.005)  # 15 ms to answer


def test_a_slow_bot_gets_fallbacks_and_the_others_do_not() -> None:
    result = run_arena(
        [Slow, SeededRandom, FirstLegal, SeededRandom],
        hands=1,
        match_hands=1,
        budget=TIGHT,
        backend="local",
    )
    slow = result.bot("slow")
    assert slow.outcomes.get("late", 0) > 0
    assert slow.fallbacks == slow.outcomes["late"]
    assert slow.timing.max >= 0.03  # its own time was measured, not the fallback's
    assert result.to_json()["bots"][0]["late"] == slow.fallbacks
    assert result.bot("seeded").fallbacks == result.bot("first").fallbacks == 0


def test_raising_and_illegal_answers_are_reported() -> None:
    result = run_arena(
        [Raising, Illegal, SeededRandom, SeededRandom], hands=2, match_hands=2, backend="local"
    )
    raising, illegal = result.bot("raising"), result.bot("illegal")
    assert raising.outcomes["error"] == raising.timing.count == raising.fallbacks > 0
    assert illegal.outcomes["illegal"] > 0 and illegal.outcomes.get("error", 0) == 0
    rows = result.to_json()["bots"]
    assert [r["illegal"] for r in rows][:2] == [0, illegal.outcomes["illegal"]]


class RaisingOnce(Raising):
    """Raises from a line of its own: the log keeps one traceback per bot, error type and
    line for the whole process, so no other test can have logged this one's."""

    name = "raising-here"

    def choose(self, view: GameView, request: DecisionRequest) -> Action:
        raise RuntimeError("a bug in this bot")


def test_a_raising_bot_logs_one_traceback_then_one_line_a_decision_each_named(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="sdk.decide"):
        result = run_arena(
            [RaisingOnce, Illegal, SeededRandom, SeededRandom],
            hands=2,
            match_hands=2,
            backend="local",
        )
    raised = [r for r in caplog.records if r.getMessage().startswith("raising-here raised")]
    assert len(raised) == result.bot("raising-here").fallbacks > 1
    assert [r.exc_info is not None for r in raised] == [True] + [False] * (len(raised) - 1)
    assert "a bug in this bot" in raised[1].getMessage()
    illegal = [r.getMessage() for r in caplog.records if r.getMessage().startswith("illegal ")]
    assert len(illegal) == result.bot("illegal").outcomes["illegal"]
    for message in [r.getMessage() for r in raised] + illegal:  # each names its decision
        assert "hand " in message and ", seat " in message, message
