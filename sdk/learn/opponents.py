"""SDK bots in the seats a learner does not play: each sees exactly what it would see
at a real table (a :class:`~sdk.mirror.Mirror` fed with its seat's projected events, its
hooks called) and answers through :meth:`~sdk.bot.Bot.choose`.

Unlike the arena, the clock does not police them: an environment must give the same
game for the same seed on any machine, so a slow answer is taken as it is. An answer
that raises or is not legal is replaced by the bot's :meth:`~sdk.bot.Bot.fallback`, as
everywhere in the SDK.

>>> from protocol.match import Match
>>> from sdk.arena.loader import load_bot
>>> match = Match.new(seed=1, hands=1)
>>> table = Opponents({1: load_bot("bots.random").make(7)}, hands=1)
>>> table.feed(match.events)
>>> seat, legal = next(iter(match.pending().items()))
>>> seat, table.plays(seat), table.plays(1)
(0, False, True)
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import math
from collections.abc import Mapping, Sequence

from protocol.actions import Action
from protocol.events import Event, HandEnd, HandStart, MatchEnd, project
from sdk.bot import Bot, DecisionRequest, MatchInfo
from sdk.mirror import Mirror

__all__ = ["Opponents"]

log = logging.getLogger("sdk.learn")


class Opponents:
    """The bots at some seats (``bots[seat]``) of one match of ``hands`` hands."""

    __slots__ = ("bots", "mirrors")

    def __init__(self, bots: Mapping[int, Bot], hands: int) -> None:
        self.bots = dict(bots)
        self.mirrors = {seat: Mirror(seat) for seat in self.bots}
        for seat, bot in self.bots.items():
            bot.on_match_start(MatchInfo(seat=seat, hands=hands))

    def plays(self, seat: int) -> bool:
        """Whether a bot sits at ``seat``."""
        return seat in self.bots

    def feed(self, events: Sequence[Event]) -> None:
        """Show each bot the events as its seat sees them, then call its hooks (in the
        order :func:`sdk.local.play_match` does)."""
        for event in events:
            for seat, bot in self.bots.items():
                seen = project(event, seat)
                if seen is not None:
                    self.mirrors[seat].view.apply(seen)
                    bot.on_event(self.mirrors[seat].window, seen)
        for event in events:
            for seat, bot in self.bots.items():
                if isinstance(event, HandEnd):
                    bot.on_hand_end(self.mirrors[seat].window, event.result)
                elif isinstance(event, MatchEnd):
                    bot.on_match_end(self.mirrors[seat].window, tuple(event.scores))
        if any(isinstance(event, HandStart) for event in events):
            for seat, bot in self.bots.items():
                bot.on_hand_start(self.mirrors[seat].window)

    def decide(self, seat: int, legal: tuple[Action, ...]) -> Action:
        """The bot's answer at ``seat`` (its fallback if it raises or answers wrong)."""
        bot, window = self.bots[seat], self.mirrors[seat].window
        request = DecisionRequest(legal, math.inf, "", window.drawn_tile)
        try:
            action = bot.choose(window, request)
            if inspect.isawaitable(action):
                action = asyncio.run(_await(action))
        except Exception:
            log.exception("%s raised while choosing; its fallback is used", bot.name)
            return bot.fallback(window, request)
        if action not in legal:
            log.warning(
                "%s answered %r, which is not legal; its fallback is used", bot.name, action
            )
            return bot.fallback(window, request)
        return action  # type: ignore[return-value]


async def _await(action: object) -> Action:
    return await action  # type: ignore[misc]
