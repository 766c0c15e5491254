"""The wall: one ordered sequence of 136 tiles per hand (R1).

Normal draws take from the front, kong replacements from the back, and the last 16 tiles
are reserved: *drawable* is the number of tiles left minus those 16 (R2). A wall is a
plain tuple of 136 tile kinds (ints), front first; :class:`Wall` keeps the two ends.

A seeded wall is a ``random.Random(seed)`` shuffle of the 136 tiles in tile order, so the
same int seed gives the same wall on every platform and Python version (no ``hash()``):

>>> w = Wall(shuffled_wall(7))
>>> w.remaining, w.drawable
(136, 120)
>>> first = w.draw(); last = w.draw_replacement()
>>> (first, last) == (shuffled_wall(7)[0], shuffled_wall(7)[-1]), w.remaining
(True, 134)
>>> hand_seed(2024, 0) == hand_seed(2024, 0) != hand_seed(2024, 1)
True
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Sequence

from protocol.errors import MahjongError
from protocol.tiles import KIND_COUNT, TILE_COUNT, Tile

__all__ = [
    "DEALER_TILES",
    "DEAL_SIZE",
    "HAND_TILES",
    "RESERVED",
    "Wall",
    "WallError",
    "build_wall",
    "check_wall",
    "hand_seed",
    "physical_wall",
    "shuffled_wall",
]

RESERVED = 16
"""Tiles at the end of the wall that are never drawn (R2)."""
DEALER_TILES = 17
"""The dealer's starting tiles (R1)."""
HAND_TILES = 16
"""Every other seat's starting tiles (R1)."""
DEAL_SIZE = DEALER_TILES + 3 * HAND_TILES
"""Tiles taken from the front by the deal (65)."""

_ALL_TILES: tuple[int, ...] = tuple(k for k in range(KIND_COUNT) for _ in range(4))
_SORTED_TILES: list[int] = list(_ALL_TILES)


class WallError(MahjongError):
    """A wall or a scripted deal is not a valid arrangement of the 136 tiles."""


def shuffled_wall(seed: int) -> tuple[int, ...]:
    """The wall of ``seed``: the 136 tiles in tile order shuffled by ``random.Random(seed)``."""
    tiles = list(_ALL_TILES)
    random.Random(seed).shuffle(tiles)
    return tuple(tiles)


def physical_wall(seed: int) -> tuple[int, ...]:
    """The physical tiles of ``seed``'s wall, front first: numbers 0..135 where tile
    ``p`` is copy ``p % 4`` of kind ``p // 4``. It is the same shuffle as
    :func:`shuffled_wall` (``random.shuffle`` draws the same indices for any list of 136),
    so the kinds are exactly that wall's; the copy of each tile is as random as its place,
    which is what the line protocol's physical tile ids need.

    >>> tuple(p // 4 for p in physical_wall(7)) == shuffled_wall(7)
    True
    >>> sorted(physical_wall(7)) == list(range(136))
    True
    """
    tiles = list(range(TILE_COUNT))
    random.Random(seed).shuffle(tiles)
    return tuple(tiles)


def hand_seed(match_seed: int, hand_no: int) -> int:
    """The wall seed of hand ``hand_no`` of a match (R16): SHA-256 of both, 64 bits."""
    digest = hashlib.sha256(f"taimahjong/hand/{match_seed}/{hand_no}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def check_wall(wall: Sequence[int]) -> tuple[int, ...]:
    """Return ``wall`` as a tuple of ints; raise :class:`WallError` unless it holds exactly
    four copies of each of the 34 kinds."""
    try:
        tiles = tuple(map(int, wall))
    except (TypeError, ValueError):
        raise WallError(f"a wall is a sequence of tile kinds 0..33, not {wall!r}") from None
    if len(tiles) != TILE_COUNT:
        raise WallError(f"a wall has {TILE_COUNT} tiles, not {len(tiles)}")
    if sorted(tiles) == _SORTED_TILES:
        return tiles
    for t in tiles:
        if not 0 <= t < KIND_COUNT:
            raise WallError(f"{t} is not a tile kind (0..33)")
    counts = [0] * KIND_COUNT
    for t in tiles:
        counts[t] += 1
    wrong = [f"{Tile(k)} x{n}" for k, n in enumerate(counts) if n != 4]
    raise WallError(f"a wall holds four of each kind; here: {', '.join(wrong)}")


def build_wall(
    dealer: int,
    hands: Sequence[Iterable[int]],
    draws: Iterable[int] = (),
    replacements: Iterable[int] = (),
) -> tuple[int, ...]:
    """Arrange a wall so that the deal (R1) gives ``hands`` (indexed by seat: 17 tiles for
    the dealer, 16 for the others, the dealer's 17th being the last one listed), the front
    draws after the deal come in the order of ``draws`` and the kong replacements in the
    order of ``replacements`` (the first one is the wall's last tile). The unlisted tiles
    fill the middle in tile order, so the same script always gives the same wall.

    >>> w = build_wall(0, [[0] * 4 + [1] * 4 + [2] * 4 + [3] * 4 + [4]] + [[]] * 3)
    Traceback (most recent call last):
      ...
    protocol.wall.WallError: seat 1 must be dealt 16 tiles, not 0
    """
    hands = [list(h) for h in hands]
    if len(hands) != 4:
        raise WallError(f"a deal has four hands, not {len(hands)}")
    front: list[int] = []
    for i in range(4):
        seat = (dealer + i) % 4
        want = DEALER_TILES if i == 0 else HAND_TILES
        if len(hands[seat]) != want:
            raise WallError(f"seat {seat} must be dealt {want} tiles, not {len(hands[seat])}")
        front.extend(hands[seat])
    front.extend(draws)
    back = list(replacements)
    if len(front) + len(back) > TILE_COUNT:
        raise WallError("the scripted tiles are more than the 136 of a wall")
    counts = [4] * KIND_COUNT
    for t in front + back:
        if not 0 <= t < KIND_COUNT:
            raise WallError(f"{t} is not a tile kind (0..33)")
        counts[t] -= 1
        if counts[t] < 0:
            raise WallError(f"the script uses more than four of {Tile(t)}")
    middle = [k for k in range(KIND_COUNT) for _ in range(counts[k])]
    return tuple(front + middle + back[::-1])


class Wall:
    """The two ends of a hand's wall: ``draw()`` from the front, ``draw_replacement()``
    from the back (R1). ``drawable`` may go below zero after an added kong on the last
    tile, whose replacement dips into the reserve (R2)."""

    __slots__ = ("back", "front", "tiles")

    def __init__(self, tiles: Sequence[int], *, checked: bool = False) -> None:
        """``checked=True`` skips :func:`check_wall` for a tuple known to be a wall
        (the output of :func:`shuffled_wall`)."""
        self.tiles: tuple[int, ...] = tiles if checked else check_wall(tiles)  # type: ignore[assignment]
        self.front = 0
        self.back = TILE_COUNT

    @property
    def remaining(self) -> int:
        """Tiles still in the wall, reserve included."""
        return self.back - self.front

    @property
    def drawable(self) -> int:
        """Tiles that may still be drawn: remaining minus the 16 reserved (R2)."""
        return self.back - self.front - RESERVED

    def draw(self) -> int:
        """Take the tile at the front."""
        tile = self.tiles[self.front]
        self.front += 1
        return tile

    def draw_replacement(self) -> int:
        """Take the tile at the back (kong replacement, R8)."""
        self.back -= 1
        return self.tiles[self.back]

    def take(self, n: int) -> list[int]:
        """Take ``n`` tiles from the front (the deal)."""
        out = list(self.tiles[self.front : self.front + n])
        self.front += n
        return out
