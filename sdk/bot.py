"""The Bot base class: subclass it and write one method.

A bot answers decision requests. :meth:`Bot.choose` gets the seat's :class:`GameView`
and a :class:`DecisionRequest` (the exact legal actions and the deadline) and returns one
of the legal actions. It may be a plain method or a coroutine. Everything else has a
sensible default: the hooks do nothing and :meth:`Bot.fallback` is the tournament's own
default (RULINGS R17), used when ``choose`` is late, raises or answers something illegal.

>>> import random
>>> class RandomBot(Bot):
...     def choose(self, view, request):
...         return random.choice(request.legal_actions)

A plain function works too:

>>> first = Bot.from_function(lambda view, request: request.legal_actions[0], name="first")
>>> first.name
'first'
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from protocol.actions import PASS, Action, ActionKind
from protocol.defaults import default_action
from protocol.events import Event, HandResult
from protocol.tiles import Tile
from sdk.view import GameView

__all__ = ["Bot", "DecisionRequest", "MatchInfo"]


@dataclass(frozen=True, slots=True)
class DecisionRequest:
    """One decision to make.

    Fields:

    * ``legal_actions`` — the complete list of :class:`~protocol.actions.Action`, ordered
      win, kongs, pung, chows, discards, pass. Return one of them.
    * ``deadline`` — the :func:`time.monotonic` instant by which the SDK sends the answer
      (the server's deadline less the safety margin); :attr:`time_left` reads it.
    * ``request_id`` — the server's id of this request ("" in-process).
    * ``drawn_tile`` — the tile just drawn, on one's own turn after a draw; else ``None``.

    Helpers: :attr:`time_left` (seconds, never negative), :attr:`is_claim` (answering
    another seat's discard), :meth:`allows` and :meth:`of_kind` (by action kind, such as
    ``"win"``), :meth:`default` (the tournament's R17 answer).

    >>> from protocol import Action
    >>> request = DecisionRequest((Action.pung(), Action.pass_()), deadline=0.0)
    >>> request.is_claim, request.allows("pung"), request.default(), request.time_left
    (True, True, Action.parse('pass'), 0.0)
    """

    legal_actions: tuple[Action, ...]
    deadline: float
    request_id: str = ""
    drawn_tile: Tile | None = None

    @property
    def time_left(self) -> float:
        """Seconds left to answer (never negative)."""
        return max(0.0, self.deadline - time.monotonic())

    @property
    def is_claim(self) -> bool:
        """True when this answers another seat's discard (pass is then legal)."""
        return PASS in self.legal_actions

    def allows(self, kind: ActionKind | str) -> bool:
        """Whether any legal action is of ``kind`` (for example ``"win"``)."""
        return any(a.kind == kind for a in self.legal_actions)

    def of_kind(self, kind: ActionKind | str) -> list[Action]:
        """The legal actions of ``kind``."""
        return [a for a in self.legal_actions if a.kind == kind]

    def default(self) -> Action:
        """The tournament's default answer (R17): pass, or discard the drawn tile, or
        the highest legal tile. Never wins, calls or kongs."""
        return default_action(self.legal_actions, self.drawn_tile)


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """What a bot learns when a match starts."""

    seat: int
    hands: int
    match_id: str = ""
    table_id: str = ""
    decision_seconds: float = 3.0
    rules: dict[str, Any] = field(default_factory=dict)


class Bot:
    """Base class of every bot. Override :meth:`choose`; the rest is optional.

    ``name`` defaults to the class name; ``version`` (default empty) tells versions of
    one bot apart on a server's leaderboard. Hooks are called with the view already
    updated. A bot object plays one seat at a time.
    """

    name: ClassVar[str] = ""
    version: ClassVar[str] = ""
    """Optional: sent in ``hello``; the server's leaderboard groups by name and version."""

    def __init__(self, name: str | None = None) -> None:
        if name is not None:
            self.name = name  # type: ignore[misc]
        elif not type(self).name:
            self.name = type(self).__name__  # type: ignore[misc]

    def choose(self, view: GameView, request: DecisionRequest) -> Action | Awaitable[Action]:
        """Pick one of ``request.legal_actions``. May be ``async``."""
        raise NotImplementedError(f"{type(self).__name__} must implement choose()")

    def fallback(self, view: GameView, request: DecisionRequest) -> Action:
        """The answer sent when :meth:`choose` is late, raises or returns something
        illegal. Default: the tournament's default (R17). Keep it instant."""
        return request.default()

    # --- optional hooks (all no-ops) ----------------------------------------------------

    def on_match_start(self, info: MatchInfo) -> None:
        """A match begins; load models here (the start-up budget is separate)."""

    def on_hand_start(self, view: GameView) -> None:
        """A hand was dealt."""

    def on_event(self, view: GameView, event: Event) -> None:
        """Any event this seat sees, after the view took it in."""

    def on_hand_end(self, view: GameView, result: HandResult) -> None:
        """A hand ended (a win, an exhaustive draw or a four-winds abort); ``view.scores``
        are the scores after it. Over the line protocol, which sends no scores, the
        seat scores the hand itself (:mod:`protocol.line.hand_end`)."""

    def on_match_end(self, view: GameView, scores: tuple[int, ...]) -> None:
        """The match ended with these scores by seat."""

    @classmethod
    def from_function(
        cls,
        fn: Callable[[GameView, DecisionRequest], Action | Awaitable[Action]],
        name: str | None = None,
    ) -> Bot:
        """A bot whose :meth:`choose` is ``fn``."""
        kind = _AsyncFunctionBot if inspect.iscoroutinefunction(fn) else _FunctionBot
        bot = kind(name or getattr(fn, "__name__", "function"))
        bot._fn = fn
        return bot

    def wants(self, hook: str) -> bool:
        """Whether this bot overrides ``hook`` (so runners skip calls that do nothing)."""
        return getattr(type(self), hook) is not getattr(Bot, hook)


class _FunctionBot(Bot):
    _fn: Callable[[GameView, DecisionRequest], Action | Awaitable[Action]]

    def choose(self, view: GameView, request: DecisionRequest) -> Action | Awaitable[Action]:
        return self._fn(view, request)


class _AsyncFunctionBot(_FunctionBot):
    """For a coroutine function: ``choose`` is itself a coroutine, so runners await it
    on their own event loop instead of running it in a thread."""

    async def choose(self, view: GameView, request: DecisionRequest) -> Action:  # type: ignore[override]
        return await self._fn(view, request)  # type: ignore[misc]
