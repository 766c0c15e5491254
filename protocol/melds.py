"""Melds: the declared sets (chow, pung and the three kinds of kong).

A :class:`Meld` is a small immutable value. Its ``tile`` is the lowest tile of the set
(the only tile that matters for a pung or kong). Its text form is ``kind:tiles``:

>>> m = Meld.parse("chow:345m")
>>> m.kind, str(m), [str(t) for t in m.tiles]
(<MeldKind.CHOW: 'chow'>, 'chow:345m', ['3m', '4m', '5m'])
>>> Meld(MeldKind.CONCEALED_KONG, Tile.E).is_concealed
True
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from protocol.errors import MeldError, TileParseError
from protocol.tiles import TILES, Tile, format_tiles, parse_tiles

__all__ = ["Meld", "MeldKind"]


class MeldKind(StrEnum):
    """What kind of set a meld is. The values are the stable text and JSON names."""

    CHOW = "chow"
    PUNG = "pung"
    EXPOSED_KONG = "kong"  # claimed on a discard (明槓)
    ADDED_KONG = "added_kong"  # a fourth tile added to one's own pung (加槓)
    CONCEALED_KONG = "concealed_kong"  # four concealed copies (暗槓)

    @property
    def is_kong(self) -> bool:
        """Whether this kind is a kong (exposed, added or concealed)."""
        return self in (MeldKind.EXPOSED_KONG, MeldKind.ADDED_KONG, MeldKind.CONCEALED_KONG)


@dataclass(frozen=True, slots=True)
class Meld:
    """One declared set.

    ``called`` is the discard that was claimed for it (``None`` for concealed kongs, and
    for added kongs it is the tile claimed for the original pung when known); ``source``
    is the seat it was claimed from, when known.
    """

    kind: MeldKind
    tile: Tile
    called: Tile | None = None
    source: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.kind, MeldKind):
            object.__setattr__(self, "kind", MeldKind(self.kind))
        object.__setattr__(self, "tile", Tile(self.tile))
        if self.kind is MeldKind.CHOW and (self.tile >= 27 or self.tile % 9 > 6):
            raise MeldError(f"a chow cannot start at {self.tile}")
        if self.called is not None:
            object.__setattr__(self, "called", Tile(self.called))
            if self.called not in self.tiles:
                raise MeldError(f"{self.called} is not a tile of {self}")

    @property
    def tiles(self) -> tuple[Tile, ...]:
        """The tiles of the set, lowest first (four for a kong)."""
        t = self.tile
        if self.kind is MeldKind.CHOW:
            return (t, TILES[t + 1], TILES[t + 2])
        return (t,) * (4 if self.kind.is_kong else 3)

    @property
    def is_kong(self) -> bool:
        """Whether this meld is a kong of any kind."""
        return self.kind.is_kong

    @property
    def is_concealed(self) -> bool:
        """Only a concealed kong keeps a hand concealed (門清)."""
        return self.kind is MeldKind.CONCEALED_KONG

    @property
    def is_set_of_three(self) -> bool:
        """A pung or any kong (刻子 for the tai items)."""
        return self.kind is not MeldKind.CHOW

    def __str__(self) -> str:
        return f"{self.kind.value}:{format_tiles(self.tiles).replace(' ', '')}"

    @classmethod
    def parse(cls, text: str) -> Meld:
        """Read ``kind:tiles`` (``chow:123m``, ``pung:555p``, ``kong:EEEE``,
        ``added_kong:5555s``, ``concealed_kong:CCCC``); raise :class:`MeldError`."""
        kind_text, sep, tiles_text = text.strip().partition(":")
        try:
            kind = MeldKind(kind_text)
        except ValueError:
            names = ", ".join(k.value for k in MeldKind)
            raise MeldError(f"{text!r}: meld kind must be one of {names}") from None
        if not sep:
            raise MeldError(f"{text!r}: expected kind:tiles, for example pung:555p")
        try:
            tiles = sorted(parse_tiles(tiles_text))
        except TileParseError as exc:
            raise MeldError(f"{text!r}: {exc}") from None
        meld = cls(kind, tiles[0]) if tiles else None
        if meld is None or list(meld.tiles) != tiles:
            raise MeldError(f"{text!r}: {tiles_text!r} is not a {kind.value}")
        return meld
