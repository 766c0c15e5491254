"""The default decision of a seat that does not answer in time (R17).

On a claim the default is to pass; on one's own turn it is to discard the tile just drawn
if that is legal, otherwise the highest legal tile in tile order (1m..9m, 1p..9p, 1s..9s,
E S W N C F P). The default never wins, calls or kongs.

>>> from protocol.actions import DISCARD, PASS, PUNG, WIN
>>> from protocol.tiles import Tile
>>> default_action((WIN, PUNG, PASS), None)
Action.parse('pass')
>>> str(default_action((WIN, DISCARD[0], DISCARD[5]), Tile.M1))
'discard 1m'
>>> str(default_action((DISCARD[0], DISCARD[5]), Tile.M9))  # e.g. right after a chow
'discard 6m'
"""

from __future__ import annotations

from collections.abc import Sequence

from protocol.actions import DISCARD, PASS, Action, ActionKind
from protocol.errors import MahjongError

__all__ = ["NoDefaultError", "default_action"]


class NoDefaultError(MahjongError):
    """The legal actions hold neither a pass nor a discard: nothing to default to."""


def default_action(legal: Sequence[Action], drawn_tile: int | None) -> Action:
    """The R17 default among ``legal`` (a seat's legal actions); ``drawn_tile`` is the
    tile it just drew (``None`` after a chow or pung, or on a claim)."""
    if PASS in legal:
        return PASS
    if drawn_tile is not None and DISCARD[drawn_tile] in legal:
        return DISCARD[drawn_tile]
    best: Action | None = None
    for action in legal:
        if action.kind is ActionKind.DISCARD and (best is None or action.tile > best.tile):  # type: ignore[operator]
            best = action
    if best is None:
        raise NoDefaultError(f"no pass and no discard among {[str(a) for a in legal]}")
    return best
