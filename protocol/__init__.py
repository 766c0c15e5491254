"""The rules model every participant shares: tiles, hand analysis, scoring, the referee
and the wire formats. Pure Python, no I/O.

>>> from protocol import Tile, parse_tiles
>>> str(Tile.parse("E"))
'E'
"""

from protocol.errors import MahjongError, MeldError, TileCountError, TileError, TileParseError
from protocol.melds import Meld, MeldKind
from protocol.tiles import (
    KIND_COUNT,
    TILE_COUNT,
    Tile,
    counts_to_tiles,
    format_counts,
    format_tiles,
    parse_counts,
    parse_tiles,
    tiles_to_counts,
)

__all__ = [
    "KIND_COUNT",
    "TILE_COUNT",
    "MahjongError",
    "Meld",
    "MeldError",
    "MeldKind",
    "Tile",
    "TileCountError",
    "TileError",
    "TileParseError",
    "counts_to_tiles",
    "format_counts",
    "format_tiles",
    "parse_counts",
    "parse_tiles",
    "tiles_to_counts",
]
