"""Random: the baseline every other bot must beat.

It picks uniformly among the legal actions, with one exception: it always takes a win
(otherwise it would almost never score, and "beats random" would mean little). Chows,
pungs, kongs and pass are all just actions in the list, so it claims often and breaks
its hand freely: this is what playing without any idea looks like.

Give it a seed to make its games repeatable:

>>> from protocol.actions import DISCARD, PASS, PUNG, WIN
>>> from sdk.bot import DecisionRequest
>>> bot = RandomBot(seed=1)
>>> str(bot.choose(None, DecisionRequest((WIN, PUNG, PASS), deadline=0.0)))
'win'
>>> bot.choose(None, DecisionRequest((DISCARD[3], DISCARD[7]), deadline=0.0)) in (DISCARD[3], DISCARD[7])
True
"""

from __future__ import annotations

import random

from protocol.actions import WIN, Action
from sdk.bot import Bot, DecisionRequest
from sdk.view import GameView

__all__ = ["BOT", "RandomBot"]


class RandomBot(Bot):
    """Uniform over the legal actions, but always wins when it can."""

    name = "random"

    def __init__(self, seed: int | None = None, name: str | None = None) -> None:
        super().__init__(name)
        self.rng = random.Random(seed)

    def choose(self, view: GameView | None, request: DecisionRequest) -> Action:
        legal = request.legal_actions
        if legal[0] is WIN:  # a win comes first in a legal list (DecisionRequest)
            return WIN
        # the pick of sdk.search.random_policy (same rng, same picks): half rng.choice's cost
        return legal[int(self.rng.random() * len(legal))]


BOT = RandomBot
"""The bot class this module offers (what loaders look for)."""

if __name__ == "__main__":
    from sdk.cli import run

    run(RandomBot)
