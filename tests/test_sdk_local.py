"""In-process play: bots see their mirror, the budget policy replaces bad answers."""

from __future__ import annotations

import asyncio
import random
import time

import pytest

from protocol.actions import PASS, Action, ActionKind
from protocol.defaults import default_action
from sdk.bot import Bot, DecisionRequest
from sdk.budget import Budget, DecisionStats, Outcome
from sdk.decide import decide_async, decide_inline
from sdk.local import play_match
from sdk.mirror import Mirror, MirrorMismatchError
from sdk.view import GameView


class RandomBot(Bot):
    def __init__(self, seed: int) -> None:
        super().__init__()
        self.rng = random.Random(seed)

    def choose(self, view: GameView, request: DecisionRequest) -> Action:
        return self.rng.choice(request.legal_actions)


def test_mirrors_agree_with_the_referee_over_random_matches() -> None:
    for seed in range(6):
        result = play_match(
            [RandomBot(seed * 4 + i) for i in range(4)], seed=seed, hands=8, strict=True
        )
        assert sum(result.scores) == 0
        assert len(result.hand_results) == 8
        assert all(s.fallbacks == 0 for s in result.stats)


def test_same_seed_and_bots_give_the_same_match() -> None:
    a = play_match([RandomBot(i) for i in range(4)], seed=11, hands=4, record_events=True)
    b = play_match([RandomBot(i) for i in range(4)], seed=11, hands=4, record_events=True)
    assert [e.to_json() for e in a.events] == [e.to_json() for e in b.events]
    assert a.scores == b.scores


def test_seat_permutation_moves_players_not_walls() -> None:
    a = play_match([RandomBot(i) for i in range(4)], seed=2, hands=1, record_events=True)
    b = play_match(
        [RandomBot(i) for i in range(4)], seed=2, hands=1, seats=(1, 2, 3, 0), record_events=True
    )
    deal_a = [e for e in a.events if type(e).__name__ == "Deal"]
    deal_b = [e for e in b.events if type(e).__name__ == "Deal"]
    assert deal_a == deal_b  # the same wall and deal by seat
    assert b.seats == (1, 2, 3, 0) and b.player_at(1) == 0


class SlowBot(Bot):
    """Sleeps past the budget on every own-turn decision."""

    def choose(self, view: GameView, request: DecisionRequest) -> Action:
        if not request.is_claim:
            time.sleep(0.03)
        return request.legal_actions[0]


def test_a_late_bot_gets_its_fallback_and_the_match_completes() -> None:
    bots = [SlowBot(), RandomBot(1), RandomBot(2), RandomBot(3)]
    result = play_match(bots, seed=3, hands=1, budget=Budget(decision=0.02, safety_margin=0.005))
    slow = result.stats[0]
    assert slow.outcomes.get(Outcome.LATE, 0) > 0
    assert sum(result.scores) == 0


class RaisingBot(Bot):
    def choose(self, view: GameView, request: DecisionRequest) -> Action:
        raise RuntimeError("bug in the bot")


class IllegalBot(Bot):
    def choose(self, view: GameView, request: DecisionRequest) -> Action:
        return Action.parse("win") if not request.allows("win") else request.legal_actions[-1]


def test_raising_and_illegal_bots_get_fallbacks() -> None:
    result = play_match([RaisingBot(), IllegalBot(), RandomBot(2), RandomBot(3)], seed=4, hands=2)
    assert result.stats[0].outcomes.get(Outcome.ERROR, 0) == result.stats[0].count > 0
    assert result.stats[1].outcomes.get(Outcome.ILLEGAL, 0) > 0


def _request(legal: tuple[Action, ...], seconds: float) -> DecisionRequest:
    return DecisionRequest(legal, time.monotonic() + seconds, "r1", None)


LEGAL = (Action.parse("win"), Action.parse("pung"), PASS)


def test_decide_inline_records_and_polices() -> None:
    stats = DecisionStats()
    view = GameView(Mirror(0).view)
    good = Bot.from_function(lambda v, r: r.legal_actions[1])
    assert decide_inline(good, view, _request(LEGAL, 1.0), stats) is LEGAL[1]
    assert decide_inline(RaisingBot(), view, _request(LEGAL, 1.0), stats) is PASS  # R17 default
    assert stats.outcomes == {Outcome.OK: 1, Outcome.ERROR: 1}


async def test_decide_async_sends_the_fallback_by_the_deadline() -> None:
    class Sleeper(Bot):
        def choose(self, view: GameView, request: DecisionRequest) -> Action:
            time.sleep(0.3)
            return request.legal_actions[0]

    stats = DecisionStats()
    start = time.monotonic()
    action = await decide_async(Sleeper(), GameView(Mirror(0).view), _request(LEGAL, 0.05), stats)
    assert action is PASS
    assert time.monotonic() - start < 0.2  # did not wait for the sleeping bot
    assert stats.outcomes == {Outcome.LATE: 1}


async def test_decide_async_awaits_coroutine_bots_and_keeps_the_loop_free() -> None:
    class Thinker(Bot):
        async def choose(self, view: GameView, request: DecisionRequest) -> Action:
            await asyncio.sleep(0.01)
            return request.legal_actions[1]

    ticks = 0

    class Burner(Bot):
        def choose(self, view: GameView, request: DecisionRequest) -> Action:
            # Burn CPU until the loop has ticked three times (it can only tick if the bot
            # runs off the loop), or give up after 0.8 s (the assertion below then fails).
            end = time.monotonic() + 0.8
            while ticks < 3 and time.monotonic() < end:
                pass
            return request.legal_actions[0]

    stats = DecisionStats()
    assert (
        await decide_async(Thinker(), GameView(Mirror(0).view), _request(LEGAL, 1.0), stats)
        is LEGAL[1]
    )

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    task = asyncio.create_task(ticker())
    await decide_async(Burner(), GameView(Mirror(0).view), _request(LEGAL, 1.0), stats)
    task.cancel()
    assert ticks >= 3  # the event loop kept running while the bot burned CPU in a thread


def test_strict_mirror_raises_on_a_mismatch() -> None:
    mirror = Mirror(0, strict=True)
    with pytest.raises(MirrorMismatchError, match="differ"):
        mirror.check((PASS,))


def test_request_helpers() -> None:
    request = _request(LEGAL, 1.0)
    assert (
        request.is_claim
        and request.allows(ActionKind.WIN)
        and request.of_kind("pung") == [LEGAL[1]]
    )
    assert request.default() is default_action(LEGAL, None) is PASS
    assert 0 < request.time_left <= 1.0


async def test_async_function_bots_run_on_the_callers_loop() -> None:
    loop = asyncio.get_running_loop()
    seen = []

    async def choose(view: GameView, request: DecisionRequest) -> Action:
        seen.append(asyncio.get_running_loop())
        return request.legal_actions[0]

    bot = Bot.from_function(choose)
    action = await decide_async(
        bot, GameView(Mirror(0).view), _request(LEGAL, 1.0), DecisionStats()
    )
    assert action is LEGAL[0] and seen == [loop]


def _first_legal(view: GameView, request: DecisionRequest) -> Action:
    return request.legal_actions[1]


async def test_decide_async_with_a_process_pool() -> None:
    import concurrent.futures

    stats = DecisionStats()
    bot = Bot.from_function(_first_legal, name="pooled")
    with concurrent.futures.ProcessPoolExecutor(max_workers=1) as pool:
        action = await decide_async(
            bot, GameView(Mirror(0).view), _request(LEGAL, 20.0), stats, pool
        )
    assert action is LEGAL[1]
    assert stats.outcomes == {Outcome.OK: 1}
