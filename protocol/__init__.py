"""The rules model every participant shares: tiles, hand analysis, scoring, the referee
and the wire formats. Pure Python, no I/O. ``import protocol`` stays light: the wire
formats (pydantic) live in :mod:`protocol.wire` and :mod:`protocol.line`.

>>> from protocol import shanten, waits, is_winning
>>> shanten("123m 456p 789s 123s 555s E"), [str(t) for t in waits("123m 456p 789s 123s 555s E")]
(0, ['E'])
"""

from protocol.actions import Action, ActionKind, ActionParseError
from protocol.analysis import (
    DiscardOption,
    efficiency_counts,
    is_winning,
    is_winning_counts,
    shanten,
    shanten_counts,
    tile_efficiency,
    waits,
    waits_counts,
)
from protocol.defaults import default_action
from protocol.errors import MahjongError, MeldError, TileCountError, TileError, TileParseError
from protocol.hand_state import HandState, IllegalActionError
from protocol.match import Match
from protocol.melds import Meld, MeldKind
from protocol.scoring import ScoreResult, WinSituation, score_win
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
    "Action",
    "ActionKind",
    "ActionParseError",
    "DiscardOption",
    "HandState",
    "IllegalActionError",
    "MahjongError",
    "Match",
    "Meld",
    "MeldError",
    "MeldKind",
    "ScoreResult",
    "Tile",
    "TileCountError",
    "TileError",
    "TileParseError",
    "WinSituation",
    "counts_to_tiles",
    "default_action",
    "efficiency_counts",
    "format_counts",
    "format_tiles",
    "is_winning",
    "is_winning_counts",
    "parse_counts",
    "parse_tiles",
    "score_win",
    "shanten",
    "shanten_counts",
    "tile_efficiency",
    "tiles_to_counts",
    "waits",
    "waits_counts",
]
