"""What a bot sees: a read-only window on its seat's mirror, with the analysis helpers.

The SDK keeps one :class:`protocol.view.SeatView` per seat, updated from that seat's
projected events by the referee's own code (see :mod:`sdk.mirror`). A bot gets a
:class:`GameView` over it: everything the seat knows, nothing it does not, and no way to
change it.

>>> from protocol.hand_state import HandState
>>> hand = HandState.new(seed=7, dealer=0)
>>> view = GameView(hand.view(0))
>>> len(view.hand), view.seat_wind(), view.wall_left  # 136 - 17 - 3 * 16
(17, <Tile.E: 27>, 71)
>>> view.shanten() >= -1 and len(view.tile_efficiency()) > 0
True
"""

from __future__ import annotations

from protocol.analysis import (
    DiscardOption,
    efficiency_counts,
    shanten_counts,
    waits_counts,
)
from protocol.melds import Meld
from protocol.tiles import Tile
from protocol.view import SeatView
from protocol.wall import RESERVED

__all__ = ["GameView"]


class GameView:
    """One seat's knowledge of the game, read-only. Seats are 0..3; seat ``s + 1`` plays
    after seat ``s``."""

    __slots__ = ("_view",)

    def __init__(self, view: SeatView) -> None:
        self._view = view

    # --- who and where ----------------------------------------------------------------

    @property
    def seat(self) -> int:
        return self._view.seat

    @property
    def dealer(self) -> int:
        return self._view.public.dealer

    @property
    def hand_number(self) -> int:
        """The hand's number in the match, from 0."""
        return self._view.public.hand

    def seat_wind(self, seat: int | None = None) -> Tile:
        """The wind of ``seat`` (default: own seat): E for the dealer, then S, W, N."""
        return self._view.seat_wind(self.seat if seat is None else seat)

    @property
    def round_wind(self) -> Tile:
        return self._view.round_wind

    @property
    def scores(self) -> tuple[int, ...]:
        """Cumulative scores by seat, before this hand."""
        return tuple(self._view.public.scores)

    # --- own tiles ----------------------------------------------------------------------

    @property
    def hand(self) -> list[Tile]:
        """Own concealed tiles, sorted."""
        return self._view.hand

    @property
    def counts(self) -> tuple[int, ...]:
        """Own concealed tiles as 34 counts (the fast form for protocol.analysis)."""
        return tuple(self._view.own.counts)

    @property
    def drawn_tile(self) -> Tile | None:
        """The tile just drawn, while it is this seat's turn after a draw."""
        drawn = self._view.own.drawn
        return None if drawn is None else Tile(drawn)

    @property
    def passed_win(self) -> bool:
        """In the passed-win state (過水): self-draw wins are blocked (R9)."""
        return self._view.own.passed_win

    # --- the table ------------------------------------------------------------------------

    def melds(self, seat: int | None = None) -> list[Meld]:
        """Declared melds of ``seat`` (default own). Another seat's concealed kongs are
        hidden: see :meth:`concealed_kongs`."""
        return self._view.melds(self.seat if seat is None else seat)

    def concealed_kongs(self, seat: int) -> int:
        """How many concealed kongs ``seat`` has declared (their tiles are hidden)."""
        return self._view.public.concealed_kongs[seat]

    def river(self, seat: int) -> list[Tile]:
        """Every discard of ``seat`` in order, claimed ones included."""
        return self._view.river(seat)

    def claimed_discards(self, seat: int) -> list[int]:
        """Positions in ``seat``'s :meth:`river` of the discards another seat claimed."""
        return list(self._view.public.claimed[seat])

    def concealed_count(self, seat: int) -> int:
        """How many concealed tiles ``seat`` holds."""
        return self._view.public.concealed[seat]

    @property
    def last_discard(self) -> Tile | None:
        """The discard now open to claims, if any."""
        tile = self._view.public.pending_tile
        return None if tile is None else Tile(tile)

    @property
    def wall_left(self) -> int:
        """Tiles left in the wall, the 16 reserved ones included."""
        return self._view.public.wall_left

    @property
    def drawable(self) -> int:
        """Tiles that may still be drawn before the end of the wall (R2)."""
        return self._view.public.wall_left - RESERVED

    @property
    def first_go_round(self) -> bool:
        """No chow, pung or exposed kong yet this hand (R10)."""
        return self._view.public.first_round

    def visible_counts(self) -> list[int]:
        """Copies of each kind this seat can see: own tiles, all rivers and shown melds."""
        return self._view.visible_counts()

    def unseen_counts(self) -> list[int]:
        """Copies of each kind this seat cannot see (in the wall or other hands)."""
        return [4 - v for v in self._view.visible_counts()]

    # --- analysis of the own hand -----------------------------------------------------

    def shanten(self) -> int:
        """Shanten of the own concealed tiles (-1 complete, 0 waiting)."""
        return shanten_counts(self._view.own.counts)

    def waits(self) -> list[Tile]:
        """Winning kinds while holding 3n+1 tiles, minus kinds held four times (R12)."""
        meld_tiles = [t for m in self.melds() for t in m.tiles]
        return [Tile(t) for t in waits_counts(self._view.own.counts, meld_tiles)]

    def tile_efficiency(self) -> list[DiscardOption]:
        """Each discard of a 3n+2 hand with the shanten left and the unseen improving
        tiles, best first (see :func:`protocol.analysis.efficiency_counts`)."""
        own = self._view.own
        outside = list(self._view.public.visible)
        for k in own.concealed_kongs:
            outside[k] += 4
        return efficiency_counts(own.counts, outside)

    @property
    def seat_view(self) -> SeatView:
        """The underlying mirror state (treat it as read-only)."""
        return self._view

    def __repr__(self) -> str:
        return f"GameView(seat={self.seat}, hand={''.join(map(str, self.hand))}, wall_left={self.wall_left})"
