"""The table as one seat saw it at a decision, frozen as plain values for the review.

Only what the seat knew: its own concealed tiles (the drawn tile apart), and for every
seat the melds shown, the river (claimed discards marked), the concealed count and the
score; the wall count, dealer and round wind. Another seat's concealed tiles are never
in a :class:`Board` (a review of a transcript holds nothing else anyway).

>>> from protocol.match import Match
>>> from protocol.events import project
>>> from sdk.mirror import Mirror
>>> m = Match.new(seed=1, hands=1)
>>> mirror = Mirror(0)
>>> for e in m.events:
...     seen = project(e, 0)
...     if seen is not None:
...         mirror.apply(seen)
>>> board = board_of(mirror.window)
>>> len(board.hand), board.drawn is not None, board.seats[1].concealed, board.wall
(16, True, 16, 71)
"""

from __future__ import annotations

from dataclasses import dataclass

from protocol.tiles import Tile
from sdk.view import GameView

__all__ = ["Board", "SeatBoard", "board_of"]

WINDS = "ESWN"


@dataclass(frozen=True, slots=True)
class SeatBoard:
    """One seat at the table, as the seat under review saw it."""

    seat: int
    wind: str
    score: int
    concealed: int
    """How many concealed tiles it holds."""
    melds: tuple[tuple[str, tuple[Tile, ...]], ...]
    """(kind, tiles) of each meld shown."""
    hidden_kongs: int
    """Concealed kongs whose tiles the seat under review cannot see."""
    river: tuple[Tile, ...]
    claimed: frozenset[int]
    """Positions in ``river`` another seat claimed."""


@dataclass(frozen=True, slots=True)
class Board:
    """The table at one decision, from the deciding seat's side."""

    seat: int
    dealer: int
    round_wind: Tile
    wall: int
    """Tiles left in the wall, the reserved ones included."""
    hand: tuple[Tile, ...]
    """Own concealed tiles, sorted, without :attr:`drawn`."""
    drawn: Tile | None
    last_discard: Tile | None
    """The discard open to claims (a claim decision), else ``None``."""
    seats: tuple[SeatBoard, ...]


def board_of(view: GameView) -> Board:
    """The :class:`Board` of ``view`` now."""
    hand = list(view.hand)
    drawn = view.drawn_tile
    if drawn is not None and drawn in hand:
        hand.remove(drawn)
    return Board(
        view.seat,
        view.dealer,
        view.round_wind,
        view.wall_left,
        tuple(hand),
        drawn,
        view.last_discard if view.drawn_tile is None else None,
        tuple(_seat(view, s) for s in range(4)),
    )


def _seat(view: GameView, s: int) -> SeatBoard:
    melds = tuple((m.kind.value, tuple(m.tiles)) for m in view.melds(s))
    shown = sum(1 for kind, _ in melds if kind == "concealed_kong")
    return SeatBoard(
        s,
        WINDS[(s - view.dealer) % 4],
        view.scores[s],
        view.concealed_count(s),
        melds,
        max(0, view.concealed_kongs(s) - shown),
        tuple(view.river(s)),
        frozenset(view.claimed_discards(s)),
    )
