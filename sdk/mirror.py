"""The client-side mirror: one seat's game state rebuilt from its events, checked.

The mirror applies the seat's projected events with the referee's own code
(:class:`protocol.view.SeatView`), so the legal actions it computes are the referee's.
When a server sends its list of legal actions, :meth:`Mirror.check` compares the two; a
mismatch means the mirror or the server is wrong and is logged with both lists, or
raised as :class:`MirrorMismatchError` in strict mode (the tests use strict mode).

>>> from protocol.hand_state import HandState
>>> hand = HandState.new(seed=3, dealer=0)
>>> mirror = Mirror(0, strict=True)
>>> for event in hand.projected_events(0):
...     mirror.apply(event)
>>> mirror.check(hand.legal_actions(0))
True
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from protocol.actions import Action
from protocol.errors import MahjongError
from protocol.events import Event
from protocol.view import SeatView
from sdk.view import GameView

__all__ = ["Mirror", "MirrorMismatchError"]

log = logging.getLogger("sdk.mirror")


class MirrorMismatchError(MahjongError):
    """The mirror's legal actions differ from the ones the server sent."""


class Mirror:
    """One seat's state, fed with that seat's events (never anything hidden)."""

    __slots__ = ("mismatches", "seat", "strict", "view", "window")

    def __init__(self, seat: int, *, strict: bool = False) -> None:
        self.seat = seat
        self.strict = strict
        self.view = SeatView(seat)
        self.window = GameView(self.view)
        """The read-only :class:`GameView` handed to the bot."""
        self.mismatches = 0

    def apply(self, event: Event) -> None:
        """Take in one event of this seat's projection."""
        self.view.apply(event)

    def apply_all(self, events: Iterable[Event]) -> None:
        """Apply ``events`` in order."""
        for event in events:
            self.view.apply(event)

    def legal_actions(self) -> tuple[Action, ...]:
        """The legal actions by the referee's rules, from this seat's knowledge."""
        return tuple(self.view.legal_actions())

    def check(self, server_legal: Iterable[Action]) -> bool:
        """Compare the server's legal actions with the mirror's; log (or raise in strict
        mode) on a mismatch. Returns whether they agree."""
        theirs = tuple(server_legal)
        ours = self.legal_actions()
        if set(theirs) == set(ours):
            return True
        self.mismatches += 1
        message = (
            f"seat {self.seat}: mirror legal actions {[str(a) for a in ours]} differ from the "
            f"server's {[str(a) for a in theirs]}"
        )
        if self.strict:
            raise MirrorMismatchError(message)
        log.error(message)
        return False

    def reset(self) -> None:
        """Forget everything (for example before replaying a resumed session)."""
        self.view = SeatView(self.seat)
        self.window = GameView(self.view)
