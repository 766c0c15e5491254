"""Exception types shared by the whole rules model.

Every error raised for bad input is a narrow subclass of :class:`ValueError`, so callers
can catch exactly what they expect (``except TileParseError``) or everything at once
(``except ValueError``), in the style of python-chess's ``IllegalMoveError``.
"""

from __future__ import annotations


class MahjongError(ValueError):
    """Base class of every input error raised by :mod:`protocol`."""


class TileError(MahjongError):
    """A tile or a group of tiles is not valid."""


class TileParseError(TileError):
    """Text could not be read as tiles; the message names the offending part."""


class TileCountError(TileError):
    """More than four copies of one tile kind, or a hand of an impossible size."""


class MeldError(MahjongError):
    """A meld is not a valid chow, pung or kong."""
