"""A match: hands in a row with dealer rotation, round winds and cumulative scores (R16).

Hand ``k`` (from 0) has dealer ``(first_dealer + k) % 4`` (no dealer repeat) and round
wind E, S, W, N for ``k // 4`` = 0, 1, 2, 3. Its wall comes from the match seed and ``k``
(:func:`protocol.wall.hand_seed`), so a match is replayable from its seed and decisions.

For duplicate evaluation the same match can be re-dealt with the players permuted:
``seat_permutation[player]`` is the seat where ``player`` sits. The referee works in seats
only, so the walls and the table are the same for every permutation; only who sits where
changes (:meth:`Match.player_at`, :meth:`Match.player_scores`).

>>> m = Match.new(seed=5, hands=2)
>>> m.hand_no, m.current.dealer, m.current.public.round_wind == Tile.E
(0, 0, True)
>>> hand_plan(5), hand_plan(13, first_dealer=2)
((1, <Tile.S: 28>), (3, <Tile.N: 30>))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from protocol.actions import Action
from protocol.events import Event, HandResult, MatchEnd, project_all
from protocol.hand_state import HandOverError, HandState, Scorer
from protocol.scoring import score_win
from protocol.tiles import Tile
from protocol.view import OVER
from protocol.wall import hand_seed, physical_wall, shuffled_wall

__all__ = ["DEFAULT_HANDS", "Match", "hand_plan", "rotations"]

DEFAULT_HANDS = 16
"""Hands in a match unless configured (R16)."""

_ROUND_WINDS = (Tile.E, Tile.S, Tile.W, Tile.N)


def hand_plan(hand_no: int, first_dealer: int = 0) -> tuple[int, Tile]:
    """The dealer seat and round wind of hand ``hand_no`` (R16)."""
    return (first_dealer + hand_no) % 4, _ROUND_WINDS[(hand_no // 4) % 4]


def rotations() -> list[tuple[int, int, int, int]]:
    """The four cyclic seatings (player p at seat (p + r) % 4): a duplicate set.

    >>> rotations()[1]
    (1, 2, 3, 0)
    """
    return [tuple((p + r) % 4 for p in range(4)) for r in range(4)]  # type: ignore[misc]


class Match:
    """A whole match; build it with :meth:`new`, then :meth:`pending` / :meth:`apply` as
    for a :class:`~protocol.hand_state.HandState` until :attr:`is_over`."""

    def __init__(
        self,
        seed: int,
        hands: int,
        first_dealer: int,
        seat_permutation: tuple[int, ...],
        scorer: Scorer,
        keep_events: bool = True,
    ) -> None:
        self.seed = seed
        self.hands = hands
        self.first_dealer = first_dealer
        self.seat_permutation = seat_permutation
        self.scorer = scorer
        self.hand_no = 0
        self.scores: tuple[int, ...] = (0, 0, 0, 0)
        self.results: list[HandResult] = []
        self.events: list[Event] = []
        """All events of the match, hand after hand, then :class:`MatchEnd` (with
        ``keep_events=False``, the current hand's only)."""
        self.keep_events = keep_events
        self.is_over = False
        self._hand_start = 0
        """Where the current hand's events begin in :attr:`events` (for :meth:`sync`)."""
        self.current = self._start_hand()

    @classmethod
    def new(
        cls,
        seed: int,
        hands: int = DEFAULT_HANDS,
        *,
        first_dealer: int = 0,
        seat_permutation: Sequence[int] = (0, 1, 2, 3),
        scorer: Scorer = score_win,
        keep_events: bool = True,
    ) -> Match:
        """Start a match of ``hands`` hands from ``seed``; ``seat_permutation[player]`` is
        the seat of ``player`` (for duplicate play, see :func:`rotations`).

        ``keep_events=False`` keeps no log of the hands played: :attr:`events` then holds
        the current hand's events only (and ends with :class:`MatchEnd`), for a driver
        that never reads past hands' events (the in-process arena without records), so
        a match holds no dead events (memory, and the garbage collector's work). The
        play, :meth:`apply`'s return value and :attr:`results` are the same."""
        perm = tuple(seat_permutation)
        if sorted(perm) != [0, 1, 2, 3]:
            raise ValueError(f"seat_permutation must order the seats 0..3, not {perm!r}")
        if hands < 1:
            raise ValueError("a match has at least one hand")
        if first_dealer not in range(4):
            raise ValueError(f"first_dealer must be a seat 0..3, not {first_dealer!r}")
        return cls(seed, hands, first_dealer, perm, scorer, keep_events)

    def wall(self, hand_no: int) -> tuple[int, ...]:
        """The wall of hand ``hand_no``: the same for every seat permutation."""
        return shuffled_wall(hand_seed(self.seed, hand_no))

    def physical_wall(self, hand_no: int) -> tuple[int, ...]:
        """The physical tiles (0..135, kind ``p // 4``) of hand ``hand_no``'s wall, for
        the line protocol's tile ids (:func:`protocol.wall.physical_wall`)."""
        return physical_wall(hand_seed(self.seed, hand_no))

    def _start_hand(self) -> HandState:
        dealer, round_wind = hand_plan(self.hand_no, self.first_dealer)
        hand = HandState.new(
            self.wall(self.hand_no),
            dealer,
            round_wind,
            hand_no=self.hand_no,
            scores=self.scores,
            scorer=self.scorer,
        )
        if not self.keep_events:
            self.events.clear()
        self._hand_start = len(self.events)
        self.events.extend(hand.events)
        return hand

    def pending(self) -> Mapping[int, tuple[Action, ...]]:
        """The seats that must decide now in the current hand, with their legal actions."""
        return self.current.pending()

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Apply a decision in the current hand; when it ends, start the next one (or end
        the match). Returns every new event."""
        if self.is_over:
            raise HandOverError(seat, action, (), "the match is over")
        start = len(self.events)
        self.events.extend(self.current.apply(seat, action))
        if self.current.is_over:
            if not self.keep_events:  # the next hand clears the log: keep what is new
                ended = self.events[start:]
                self._next_hand()
                return ended + self.events[-1 if self.is_over else self._hand_start :]
            self._next_hand()
        return self.events[start:]

    def apply_legal(self, seat: int, action: Action, legal: tuple[Action, ...]) -> None:
        """:meth:`apply` for a caller that has checked ``action in legal`` against the
        current hand's own tuple (:meth:`HandState.apply_legal`); returns nothing, the
        new events are at the end of :attr:`events`."""
        if self.is_over:
            raise HandOverError(seat, action, (), "the match is over")
        hand = self.current
        events = hand.events
        start = len(events)
        hand.apply_legal(seat, action, legal)
        self.events += events[start:]
        if hand.public.phase == OVER:
            self._next_hand()

    def sync(self) -> None:
        """After the current hand was played directly (:meth:`HandState.apply_legal` on
        :attr:`current`): take in the events it emitted since, and when it is over, keep
        its result and deal the next (or end the match). :meth:`apply` does this itself
        at every step; a driver that plays a whole hand at once calls this at its end."""
        if self.is_over:  # the last hand was taken in already
            return
        hand = self.current
        copied = len(self.events) - self._hand_start
        if len(hand.events) > copied:
            self.events += hand.events[copied:]
        if hand.public.phase == OVER:
            self._next_hand()

    def _next_hand(self) -> None:
        """The current hand has ended: keep its result, then deal the next or end."""
        hand = self.current
        assert hand.result is not None
        self.results.append(hand.result)
        self.scores = tuple(hand.public.scores)
        self.hand_no += 1
        if self.hand_no < self.hands:
            self.current = self._start_hand()
        else:
            self.events.append(MatchEnd(self.scores))
            self.is_over = True

    def player_at(self, seat: int) -> int:
        """The player sitting at ``seat``."""
        return self.seat_permutation.index(seat)

    def player_scores(self) -> tuple[int, ...]:
        """Cumulative scores by player rather than by seat."""
        return tuple(self.scores[self.seat_permutation[p]] for p in range(4))

    def projected_events(self, seat: int) -> list[Event]:
        """The match's events as ``seat`` may see them."""
        return project_all(self.events, seat)
