"""Tile ids of the tournament line protocol: the one place that maps them to tile kinds.

Every physical tile has its own id ``type*100 + rank*10 + copy`` (copy 0..3). Types 1, 2,
3 are the suits m (characters), p (dots), s (bamboo), ranks 1..9; type 4 is the honors,
ranks 1..7 in the order E S W N C F P (so 中 = 45x, 發 = 46x, 白 = 47x). The suit and
dragon orders are not confirmed publicly (see ``tcga-line-protocol.md``): if they turn
out different, :data:`TYPE_OF_SUIT` and :data:`HONOR_RANKS` below are the only things to
change.

>>> tile_id(Tile.M5, 2), tile_id(Tile.E, 0), tile_id(Tile.P, 3)
(152, 410, 473)
>>> kind_of(152), copy_of(152), kind_of(460)
(<Tile.M5: 4>, 2, <Tile.F: 32>)
>>> kind_of(480)
Traceback (most recent call last):
  ...
protocol.line.tile_ids.TileIdError: 480 is not a tile id (type*100 + rank*10 + copy: 110..193, 210..293, 310..393, 410..473)
"""

from __future__ import annotations

from collections.abc import Iterable

from protocol.errors import MahjongError
from protocol.tiles import Tile

__all__ = [
    "ALL_TILE_IDS",
    "HONOR_RANKS",
    "TYPE_OF_SUIT",
    "LineError",
    "TileIdError",
    "copy_of",
    "kind_of",
    "kinds_of",
    "tile_id",
]


class LineError(MahjongError):
    """Base class of every error of the tournament line protocol."""


class TileIdError(LineError):
    """A number is not a valid tile id."""


TYPE_OF_SUIT: dict[str, int] = {"m": 1, "p": 2, "s": 3}
"""The id type of each suit (the suit letters of :mod:`protocol.tiles`)."""
HONOR_TYPE = 4
HONOR_RANKS: dict[Tile, int] = {
    Tile.E: 1,
    Tile.S: 2,
    Tile.W: 3,
    Tile.N: 4,
    Tile.C: 5,
    Tile.F: 6,
    Tile.P: 7,
}
"""The id rank of each honor kind."""


def _base(kind: Tile) -> int:
    if kind.is_honor:
        return HONOR_TYPE * 100 + HONOR_RANKS[kind] * 10
    return TYPE_OF_SUIT[kind.suit or ""] * 100 + kind.rank * 10


_BASE: tuple[int, ...] = tuple(_base(k) for k in Tile)
_KIND_BY_ID: dict[int, Tile] = {_BASE[k] + c: k for k in Tile for c in range(4)}
ALL_TILE_IDS: tuple[int, ...] = tuple(sorted(_KIND_BY_ID))
"""The 136 valid ids, ascending."""


def tile_id(kind: int, copy: int) -> int:
    """The id of copy ``copy`` (0..3) of tile kind ``kind`` (0..33)."""
    if not 0 <= copy <= 3 or not 0 <= kind < len(_BASE):
        raise TileIdError(f"no tile id for kind {kind!r} copy {copy!r}")
    return _BASE[kind] + copy


def kind_of(tid: int) -> Tile:
    """The tile kind of id ``tid``; raise :class:`TileIdError` if it is not an id."""
    kind = _KIND_BY_ID.get(tid)
    if kind is None:
        raise TileIdError(
            f"{tid!r} is not a tile id (type*100 + rank*10 + copy: "
            "110..193, 210..293, 310..393, 410..473)"
        )
    return kind


def kinds_of(tids: Iterable[int]) -> list[Tile]:
    """The kinds of several ids, in order."""
    return [kind_of(t) for t in tids]


def copy_of(tid: int) -> int:
    """The copy number (0..3) of a valid id."""
    kind_of(tid)
    return tid % 10
