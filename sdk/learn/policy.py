"""Policies: functions from (observation, mask) to an action index, and the SDK bot
that plays one anywhere a bot plays.

A *policy* is any callable ``policy(observation, mask) -> int`` over the encoding of
:mod:`sdk.learn.encoding` and the mask of :mod:`sdk.learn.action_space`. A
:class:`PolicyBot` wraps one as a :class:`~sdk.bot.Bot`: the arena, ``--local``, a
server or the tournament line protocol then play it like any other bot. An index
outside the mask raises inside ``choose``, so the SDK sends the bot's fallback (R17)
and records the decision as illegal: a bad model loses the decision, not the game.

>>> from sdk.local import play_match
>>> bots = [PolicyBot(RandomPolicy(seed=s), name=f"r{s}") for s in range(4)]
>>> result = play_match(bots, seed=2, hands=2)
>>> sum(result.scores), sum(s.fallbacks for s in result.stats)
(0, 0)
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np

from protocol.actions import Action
from sdk.bot import Bot, DecisionRequest
from sdk.learn.action_space import check_index, legal_mask
from sdk.learn.encoder import Encoder
from sdk.view import GameView

__all__ = ["Policy", "PolicyBot", "RandomPolicy", "random_policy"]

Policy = Callable[[np.ndarray, np.ndarray], int]
"""``policy(observation, mask) -> action index``."""


class PolicyBot(Bot):
    """A bot that encodes its view (:class:`~sdk.learn.encoder.Encoder`, the same
    numbers as :func:`~sdk.learn.encoding.encode`) and plays ``policy``'s index."""

    def __init__(self, policy: Policy, name: str | None = None) -> None:
        super().__init__(name or getattr(policy, "name", None) or "policy")
        self.policy = policy
        self.encoder = Encoder()

    def choose(self, view: GameView, request: DecisionRequest) -> Action:
        legal = request.legal_actions
        index = self.policy(self.encoder.encode(view), legal_mask(legal))
        return check_index(self.name, index, legal)


class RandomPolicy:
    """Uniform over the legal actions (seeded): the baseline policy.

    >>> RandomPolicy(seed=1)(np.zeros(3), np.array([0, 1, 1], np.int8)) in (1, 2)
    True
    """

    name = "random-policy"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        return int(legal[self.rng.randrange(len(legal))])


def random_policy(seed: int | None = None) -> RandomPolicy:
    """A :class:`RandomPolicy` (a factory, importable by name for Ray workers)."""
    return RandomPolicy(seed)
