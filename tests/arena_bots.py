"""Small bots for the arena tests (importable as ``arena_bots`` from the tests folder).

Each one exercises one part of the arena's contract: the three seeding mechanisms, the
budget policy (slow, raising, illegal) and Ctrl-C during a run.
"""

from __future__ import annotations

import random
import signal
import time

from protocol.actions import WIN, Action
from sdk.bot import Bot, DecisionRequest, MatchInfo
from sdk.view import GameView


def _pick(rng: random.Random, request: DecisionRequest) -> Action:
    return WIN if WIN in request.legal_actions else rng.choice(request.legal_actions)


class SeededRandom(Bot):
    """Seeded through its constructor's ``seed`` parameter."""

    name = "seeded"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__()
        self.seed = seed
        self.rng = random.Random(seed)

    def choose(self, view: GameView, request: DecisionRequest) -> Action:
        return _pick(self.rng, request)


class RngAttribute(Bot):
    """No ``seed`` parameter: the arena seeds its ``rng`` attribute."""

    name = "rng-attr"

    def __init__(self) -> None:
        super().__init__()
        self.rng = random.Random()

    def choose(self, view: GameView, request: DecisionRequest) -> Action:
        return _pick(self.rng, request)


class GlobalRandom(Bot):
    """Uses the global ``random`` module: the arena seeds it per match."""

    name = "global"

    def choose(self, view: GameView, request: DecisionRequest) -> Action:
        return WIN if WIN in request.legal_actions else random.choice(request.legal_actions)


class FirstLegal(Bot):
    """Always the first legal action (wins, kongs and pungs whenever it can)."""

    name = "first"

    def choose(self, view: GameView, request: DecisionRequest) -> Action:
        return request.legal_actions[0]


class Slow(Bot):
    """Sleeps 30 ms on each own-turn decision (over a 20 ms test budget)."""

    name = "slow"

    def choose(self, view: GameView, request: DecisionRequest) -> Action:
        if not request.is_claim:
            time.sleep(0.03)
        return request.legal_actions[-1]


class Raising(Bot):
    name = "raising"

    def choose(self, view: GameView, request: DecisionRequest) -> Action:
        raise RuntimeError("a bug in the bot")


class Illegal(Bot):
    """Answers a win when none is legal."""

    name = "illegal"

    def choose(self, view: GameView, request: DecisionRequest) -> Action:
        return WIN if WIN not in request.legal_actions else request.legal_actions[-1]


class CtrlCAtMatch(Bot):
    """Sends this process SIGINT when the ``AT``-th match (from 1) starts, as a user
    pressing Ctrl-C would. ``started`` counts match starts in this process (the bot at
    seat 0 counts, so play it in all four places)."""

    name = "ctrl-c"
    AT = 9
    started = 0

    def __init__(self, seed: int | None = None) -> None:
        super().__init__()
        self.rng = random.Random(seed)

    def on_match_start(self, info: MatchInfo) -> None:
        if info.seat != 0:
            return
        type(self).started += 1
        if type(self).started == self.AT:
            signal.raise_signal(signal.SIGINT)

    def choose(self, view: GameView, request: DecisionRequest) -> Action:
        return _pick(self.rng, request)
