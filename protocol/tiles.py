"""Tiles: the 34 kinds, their text notation, and count vectors.

A tile *kind* is an int from 0 to 33 in this order::

    1m..9m (0..8)  1p..9p (9..17)  1s..9s (18..26)  E S W N (27..30)  C F P (31..33)

:class:`Tile` is an :class:`~enum.IntEnum` over those ints, so a ``Tile`` can index a
table directly and compares like an int, while printing in tournament notation.
The hot path (hand analysis, the referee) works on plain ints and on *count vectors*:
lists of 34 ints, ``counts[kind]`` copies of each kind.

>>> Tile.parse("5m")
<Tile.M5: 4>
>>> str(Tile.C), Tile.C.is_honor, Tile.M9.is_terminal
('C', True, True)
>>> parse_tiles("123m 45p EE")
[<Tile.M1: 0>, <Tile.M2: 1>, <Tile.M3: 2>, <Tile.P4: 12>, <Tile.P5: 13>, <Tile.E: 27>, <Tile.E: 27>]
>>> format_tiles(parse_tiles("EE 321m 54p"))
'123m45p EE'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import IntEnum

from protocol.errors import TileCountError, TileParseError

__all__ = [
    "HONOR_LETTERS",
    "KIND_COUNT",
    "SUITS",
    "TILES",
    "TILE_COUNT",
    "Tile",
    "check_tile_counts",
    "counts_to_tiles",
    "format_counts",
    "format_tiles",
    "parse_counts",
    "parse_tiles",
    "tiles_to_counts",
]

KIND_COUNT = 34
"""Number of tile kinds."""
TILE_COUNT = 136
"""Number of tiles in the wall: four copies of each kind."""
SUITS = "mps"
"""Suit letters in tile order: m 萬 (characters), p 筒 (dots), s 條 (bamboo)."""
HONOR_LETTERS = "ESWNCFP"
"""Honor letters in tile order: the winds 東南西北 then the dragons 中發白."""

_CHINESE = (
    [f"{n}萬" for n in "一二三四五六七八九"]
    + [f"{n}筒" for n in "一二三四五六七八九"]
    + [f"{n}條" for n in "一二三四五六七八九"]
    + list("東南西北中發白")
)


class Tile(IntEnum):
    """One of the 34 tile kinds; ``str()`` gives its tournament notation."""

    M1 = 0
    M2 = 1
    M3 = 2
    M4 = 3
    M5 = 4
    M6 = 5
    M7 = 6
    M8 = 7
    M9 = 8
    P1 = 9
    P2 = 10
    P3 = 11
    P4 = 12
    P5 = 13
    P6 = 14
    P7 = 15
    P8 = 16
    P9 = 17
    S1 = 18
    S2 = 19
    S3 = 20
    S4 = 21
    S5 = 22
    S6 = 23
    S7 = 24
    S8 = 25
    S9 = 26
    E = 27
    S = 28
    W = 29
    N = 30
    C = 31
    F = 32
    P = 33

    def __str__(self) -> str:
        return _NAMES[self]

    def __format__(self, spec: str) -> str:
        return format(_NAMES[self], spec)

    @classmethod
    def parse(cls, text: str) -> Tile:
        """Read one tile in notation ``5m``, ``9s``, ``E``…; raise :class:`TileParseError`.

        >>> Tile.parse("9s"), Tile.parse("W")
        (<Tile.S9: 26>, <Tile.W: 29>)
        """
        kind = _BY_NAME.get(text.strip())
        if kind is None:
            raise TileParseError(
                f"{text!r} is not a tile (expected 1m..9m, 1p..9p, 1s..9s, or one of ESWNCFP)"
            )
        return kind

    @property
    def suit(self) -> str | None:
        """``'m'``, ``'p'`` or ``'s'`` for suited tiles, ``None`` for honors."""
        return SUITS[self // 9] if self < 27 else None

    @property
    def rank(self) -> int:
        """1..9 for suited tiles; for honors 1..7 in the order E S W N C F P."""
        return self % 9 + 1 if self < 27 else self - 26

    @property
    def is_honor(self) -> bool:
        """Winds and dragons."""
        return self >= 27

    @property
    def is_suited(self) -> bool:
        """Whether this is a suited tile (m, p or s)."""
        return self < 27

    @property
    def is_wind(self) -> bool:
        """Whether this is a wind (E, S, W, N)."""
        return 27 <= self <= 30

    @property
    def is_dragon(self) -> bool:
        """Whether this is a dragon (C 中, F 發, P 白)."""
        return self >= 31

    @property
    def is_terminal(self) -> bool:
        """A 1 or a 9 of a suit (honors are not terminals)."""
        return self < 27 and self % 9 in (0, 8)

    @property
    def is_terminal_or_honor(self) -> bool:
        """Whether this is a 1, a 9 or an honor."""
        return self >= 27 or self % 9 in (0, 8)

    @property
    def chinese(self) -> str:
        """The Chinese name, for example ``五萬`` or ``中``."""
        return _CHINESE[self]


TILES: tuple[Tile, ...] = tuple(Tile)
"""Every tile kind by its int: ``TILES[k] is Tile(k)``, but a tuple index (C speed)
where ``Tile(k)`` is an enum call; the hot paths (views, analysis, the referee) use it.

>>> TILES[31] is Tile(31) is Tile.C
True
"""

_NAMES: tuple[str, ...] = tuple(
    [f"{r}{s}" for s in SUITS for r in range(1, 10)] + list(HONOR_LETTERS)
)
_BY_NAME: dict[str, Tile] = {name: Tile(i) for i, name in enumerate(_NAMES)}


def parse_tiles(text: str, *, check_counts: bool = True) -> list[Tile]:
    """Read tiles in compact notation, for example ``"123m456p789s EESS CC"``.

    Digits stand before their suit letter; honor letters stand alone; spaces and commas
    are optional. The result keeps the order written. With ``check_counts`` (the default)
    a fifth copy of a kind raises :class:`TileCountError`.

    >>> [str(t) for t in parse_tiles("19m,1p C")]
    ['1m', '9m', '1p', 'C']
    >>> parse_tiles("10m")
    Traceback (most recent call last):
      ...
    protocol.errors.TileParseError: '0' in '10m' (position 2) is not a rank: ranks are 1 to 9
    """
    tiles: list[Tile] = []
    digits: list[tuple[int, str]] = []
    for pos, ch in enumerate(text, start=1):
        if ch.isdigit():
            if ch == "0":
                raise TileParseError(
                    f"'0' in {text!r} (position {pos}) is not a rank: ranks are 1 to 9"
                )
            digits.append((pos, ch))
        elif ch in SUITS:
            if not digits:
                raise TileParseError(
                    f"suit letter {ch!r} in {text!r} (position {pos}) has no digits before it"
                )
            tiles.extend(_BY_NAME[d + ch] for _, d in digits)
            digits.clear()
        elif ch in HONOR_LETTERS:
            if digits:
                raise TileParseError(_dangling(text, digits))
            tiles.append(_BY_NAME[ch])
        elif ch in " ,\t\n":
            continue
        else:
            raise TileParseError(
                f"{ch!r} in {text!r} (position {pos}) is not a tile letter (use m p s or ESWNCFP)"
            )
    if digits:
        raise TileParseError(_dangling(text, digits))
    if check_counts:
        check_tile_counts(tiles)
    return tiles


def _dangling(text: str, digits: list[tuple[int, str]]) -> str:
    pos, _ = digits[0]
    run = "".join(d for _, d in digits)
    return f"digits {run!r} in {text!r} (from position {pos}) have no suit letter after them"


def check_tile_counts(tiles: Iterable[int]) -> None:
    """Raise :class:`TileCountError` if any kind appears more than four times."""
    counts = [0] * KIND_COUNT
    for t in tiles:
        counts[t] += 1
        if counts[t] > 4:
            raise TileCountError(f"more than four copies of {_NAMES[t]}")


def parse_counts(text: str) -> list[int]:
    """Read tiles in compact notation straight into a count vector.

    >>> parse_counts("112m E")[:3], parse_counts("112m E")[27]
    ([2, 1, 0], 1)
    """
    return tiles_to_counts(parse_tiles(text))


def tiles_to_counts(tiles: Iterable[int]) -> list[int]:
    """A list of 34 counts from an iterable of tile kinds (no count check)."""
    counts = [0] * KIND_COUNT
    for t in tiles:
        counts[t] += 1
    return counts


def counts_to_tiles(counts: Sequence[int]) -> list[Tile]:
    """The sorted tiles of a count vector."""
    return [Tile(k) for k in range(KIND_COUNT) for _ in range(counts[k])]


def format_tiles(tiles: Iterable[int]) -> str:
    """Compact sorted notation: suits as ``123m45p``, then honors after a space.

    >>> format_tiles([Tile.C, Tile.M1, Tile.M1, Tile.E])
    '11m EC'
    """
    return format_counts(tiles_to_counts(tiles))


def format_counts(counts: Sequence[int]) -> str:
    """Compact notation of a count vector (see :func:`format_tiles`)."""
    parts = []
    for s, letter in enumerate(SUITS):
        run = "".join(str(r + 1) * counts[s * 9 + r] for r in range(9))
        if run:
            parts.append(run + letter)
    suited = "".join(parts)
    honors = "".join(HONOR_LETTERS[h] * counts[27 + h] for h in range(7))
    return " ".join(p for p in (suited, honors) if p)
