"""The arena applies the server's budget policy: slow, raising and illegal answers are
replaced by the fallback and counted against the bot that gave them."""

from __future__ import annotations

from arena_bots import FirstLegal, Illegal, Raising, SeededRandom, Slow

from sdk.arena import run_arena
from sdk.budget import Budget

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
