"""The game under an environment: the referee's match, one live view per seat, rewards.

:class:`LearningGame` wraps a :class:`~protocol.match.Match` (the one rules model) and
gives each seat a :class:`~sdk.view.GameView` that shares the referee's state for that
seat (the public part and the seat's own part, kept by the same handlers a client
mirror runs, so it is equal to the mirror's view and never holds another seat's hidden
tiles). It turns action indices into decisions (refusing, with the legal set named and
nothing changed, an index outside the mask) and hand ends into rewards.

Seats decide in the referee's order: on a discard every seat that may claim it is
pending, in claim priority from the discarder's next seat (R5), and each one is asked.

>>> game = LearningGame(seed=3, hands=1)
>>> seat = game.next_seat()
>>> seat, int(game.mask(seat).sum()) > 0
(0, True)
>>> game.step(seat, 999)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
sdk.learn.action_space.MaskedActionError: seat 0 may not take action 999 (outside 0..150): legal are ...
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from protocol.actions import Action
from protocol.events import Event
from protocol.hand_state import HandState
from protocol.match import Match
from sdk.learn.action_space import check_index, legal_mask
from sdk.learn.encoder import Encoder
from sdk.learn.encoding import live_view
from sdk.view import GameView

__all__ = ["NO_POINTS", "REWARD_MODES", "LearningGame"]

REWARD_MODES = ("hand", "match")
"""``hand``: each hand's points when it ends; ``match``: the episode's total at its end."""

NO_POINTS: tuple[int, int, int, int] = (0, 0, 0, 0)
"""What :meth:`LearningGame.step` returns when no reward is due (the usual case; the
same object each time, so ``points is NO_POINTS`` is the cheap test)."""
_WHO = tuple(f"seat {seat}" for seat in range(4))


class LearningGame:
    """One episode: a match of ``hands`` hands from ``seed`` (``first_dealer`` deals
    first). ``reward`` is one of :data:`REWARD_MODES`."""

    __slots__ = ("_rewards", "encoder", "last_events", "match", "reward", "views")

    def __init__(
        self,
        seed: int,
        hands: int = 1,
        first_dealer: int = 0,
        reward: str = "hand",
        encoder: Encoder | None = None,
    ) -> None:
        if reward not in REWARD_MODES:
            raise ValueError(f"reward must be one of {REWARD_MODES}, not {reward!r}")
        self.match = Match.new(seed, hands, first_dealer=first_dealer)
        self.reward = reward
        self._rewards = [0, 0, 0, 0]
        self.views: list[GameView] = []
        self.last_events: list[Event] = list(self.match.events)
        """The events of the last decision (at first: the deal), with all information."""
        self.encoder = Encoder() if encoder is None else encoder
        """The incremental encoder (an environment passes its own from game to game)."""
        self._bind()

    def _bind(self) -> None:
        hand = self.match.current
        self.views = [GameView(live_view(hand, seat)) for seat in range(4)]
        self.encoder.clear()

    @property
    def hand(self) -> HandState:
        """The hand being played (the last one once the episode is over)."""
        return self.match.current

    @property
    def is_over(self) -> bool:
        """Whether the match is over."""
        return self.match.is_over

    def next_seat(self) -> int | None:
        """The next seat to decide, in the referee's order (``None`` once over)."""
        for seat in self.match.current.pending():
            return seat
        return None

    def pending_seats(self) -> list[int]:
        """Every seat that must decide now."""
        return list(self.match.current.pending())

    def legal(self, seat: int) -> tuple[Action, ...]:
        """``seat``'s legal actions now (empty when it has nothing to decide)."""
        return self.match.current.legal_actions(seat)

    def mask(self, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """``seat``'s action mask now (all zeros when it has nothing to decide)."""
        return legal_mask(self.match.current.legal_actions(seat), out)

    def observe(self, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """``seat``'s observation (:func:`sdk.learn.encoding.encode`, incremental)."""
        hand = self.match.current
        return self.encoder.encode_state(hand.public, hand.owns[seat], seat, out)

    def observe_oracle(self, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """``seat``'s oracle observation (:func:`sdk.learn.encoding.encode_oracle`)."""
        return self.encoder.encode_oracle(self.match.current, seat, out)

    def step(self, seat: int, index: int) -> Sequence[int]:
        """Play action ``index`` for ``seat``; return the rewards by seat it produced
        (zeros unless a hand or the episode ended). Raises
        :class:`~sdk.learn.action_space.MaskedActionError` if the index is not legal."""
        action = check_index(_WHO[seat], index, self.match.current.legal_actions(seat))
        return self.play(seat, action)

    def play(self, seat: int, action: Action) -> Sequence[int]:
        """Like :meth:`step` with an :class:`Action` (the referee checks it)."""
        hand = self.match.current
        self.last_events = self.match.apply(seat, action)
        if not hand.is_over:  # the usual case: no hand ended, no reward
            return NO_POINTS
        if self.match.current is not hand:
            self._bind()
        points = list(hand.result.payments)  # type: ignore[union-attr]
        if self.reward == "hand":
            return points
        self._rewards = [a + b for a, b in zip(self._rewards, points, strict=True)]
        return list(self._rewards) if self.match.is_over else NO_POINTS
