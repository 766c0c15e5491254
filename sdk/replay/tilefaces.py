"""The viewer's tile faces as inline SVG, legible on any machine: no CJK font needed.

Each of the 34 kinds is one ``<symbol id="t-5m">`` of a hidden sprite put once in the
page; a tile is ``<svg><use href="#t-5m"/></svg>``. Dots and bamboos are drawn as
shapes in the usual arrangements; characters as their number in Latin digits over a red
萬 mark drawn in strokes; winds as E, S, W, N; the red dragon 中 in strokes, the green
dragon as F, the white dragon as its blue frame. Only Latin letters and digits are
written as text, and every machine has a font for those.

>>> sprite = tile_sprite()
>>> sprite.count("<symbol "), 'id="t-5p"' in sprite, 'id="t-C"' in sprite
(34, True, True)
>>> any(ord(c) > 0x2E7F for c in sprite)  # no CJK character to draw
False
"""

from __future__ import annotations

from functools import cache

from protocol.tiles import Tile

__all__ = ["VIEWBOX", "tile_face", "tile_sprite"]

VIEWBOX = "0 0 30 40"
"""Each face's coordinates: 30 wide, 40 high."""

INK, RED, BLUE, GREEN = "#1b1b1b", "#b3261e", "#1f4fa3", "#1d7a3a"
_FONT = 'font-family="DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif" font-weight="700"'

_DOTS: dict[int, tuple[float, list[tuple[float, float]]]] = {
    1: (10, [(15, 20)]),
    2: (6.5, [(15, 11), (15, 29)]),
    3: (5.6, [(7, 9), (15, 20), (23, 31)]),
    4: (5.6, [(9, 11), (21, 11), (9, 29), (21, 29)]),
    5: (5.0, [(8.5, 9), (21.5, 9), (15, 20), (8.5, 31), (21.5, 31)]),
    6: (4.7, [(9, 7), (21, 7), (9, 21), (21, 21), (9, 33), (21, 33)]),
    7: (4.0, [(6, 5), (15, 9), (24, 13), (9, 24), (21, 24), (9, 34), (21, 34)]),
    8: (4.1, [(9, y) for y in (5.5, 15, 25, 34.5)] + [(21, y) for y in (5.5, 15, 25, 34.5)]),
    9: (4.2, [(x, y) for y in (7, 20, 33) for x in (6, 15, 24)]),
}
"""Each dots tile's radius and centres."""

_RED_DOTS = {1: {0}, 3: {1}, 5: {2}, 6: {2, 3, 4, 5}, 7: {3, 4, 5, 6}, 9: {3, 4, 5}}

_STICKS: dict[int, list[tuple[float, float, float]]] = {
    1: [(15, 20, 30)],
    2: [(15, 11, 14), (15, 29, 14)],
    3: [(15, 11, 14), (9, 29, 14), (21, 29, 14)],
    4: [(9, 11, 14), (21, 11, 14), (9, 29, 14), (21, 29, 14)],
    5: [(8, 11, 14), (22, 11, 14), (15, 20, 14), (8, 29, 14), (22, 29, 14)],
    6: [(x, y, 14) for y in (11, 29) for x in (7, 15, 23)],
    7: [(15, 6, 9)] + [(x, y, 10) for y in (19, 32) for x in (7, 15, 23)],
    8: [(x, y, 14) for y in (11, 29) for x in (6, 12, 18, 24)],
    9: [(x, y, 10) for y in (7, 20, 33) for x in (7, 15, 23)],
}
"""Each bamboo tile's sticks: centre and height."""

_RED_STICKS = {5: {2}, 7: {0}, 9: {1, 4, 7}}


def _dots(n: int) -> str:
    r, centres = _DOTS[n]
    out = []
    for i, (x, y) in enumerate(centres):
        colour = RED if i in _RED_DOTS.get(n, ()) else BLUE
        out.append(
            f'<circle cx="{x}" cy="{y}" r="{r}" fill="{colour}"/>'
            f'<circle cx="{x}" cy="{y}" r="{r * 0.58:.2f}" fill="#fbf8ef"/>'
            f'<circle cx="{x}" cy="{y}" r="{r * 0.25:.2f}" fill="{colour}"/>'
        )
    return "".join(out)


def _sticks(n: int) -> str:
    out = []
    width = 6.0 if n == 1 else 4.2
    for i, (x, y, h) in enumerate(_STICKS[n]):
        colour = RED if i in _RED_STICKS.get(n, ()) else GREEN
        left, top = x - width / 2, y - h / 2
        nodes = (y - h / 3, y, y + h / 3) if n == 1 else (y,)
        out.append(
            f'<rect x="{left:g}" y="{top:g}" width="{width:g}" height="{h:g}" rx="{width / 2:g}"'
            f' fill="{colour}"/>'
        )
        out += [
            f'<path d="M{left:g} {ny:g}h{width:g}" stroke="#fbf8ef" stroke-width="0.9"/>'
            for ny in nodes
        ]
    return "".join(out)


_WAN = (
    f'<path d="M6.5 25.5H23.5M13.5 25.5C13.5 31 12 35 7.5 37.5M13.8 30H21.5V35.5'
    f'Q21.5 37.5 18.5 37.3" fill="none" stroke="{RED}" stroke-width="2.4"'
    f' stroke-linecap="round" stroke-linejoin="round"/>'
)
"""萬 (as its short form 万) in three strokes."""


def _characters(n: int) -> str:
    return f'<text x="15" y="20" font-size="19" text-anchor="middle" {_FONT} fill="{INK}">{n}</text>{_WAN}'


def _letter(letter: str, colour: str) -> str:
    return (
        f'<text x="15" y="29" font-size="24" text-anchor="middle" {_FONT}'
        f' fill="{colour}">{letter}</text>'
    )


_HONORS = {
    "E": _letter("E", INK),
    "S": _letter("S", INK),
    "W": _letter("W", INK),
    "N": _letter("N", INK),
    "C": (
        f'<g fill="none" stroke="{RED}" stroke-width="2.8" stroke-linecap="round">'
        f'<rect x="6.5" y="12" width="17" height="13" rx="1"/><path d="M15 4.5V36"/></g>'
    ),
    "F": _letter("F", GREEN),
    "P": (
        f'<g fill="none" stroke="{BLUE}"><rect x="5.5" y="5.5" width="19" height="29"'
        f' rx="1.5" stroke-width="2.2"/><rect x="9" y="9" width="12" height="22"'
        f' stroke-width="1"/></g>'
    ),
}
"""The winds and dragons (中 red, 發 green, 白 the white frame)."""


def tile_face(tile: Tile) -> str:
    """The SVG shapes of one tile's face (in :data:`VIEWBOX` coordinates).

    >>> tile_face(Tile.P3).count("<circle")  # three dots, three circles each
    9
    """
    suit = tile.suit
    if suit == "p":
        return _dots(tile.rank)
    if suit == "s":
        return _sticks(tile.rank)
    if suit == "m":
        return _characters(tile.rank)
    return _HONORS[str(tile)]


@cache
def tile_sprite() -> str:
    """The hidden ``<svg>`` holding one ``<symbol>`` per tile kind, ids ``t-`` and the
    notation (``t-5m``, ``t-E``)."""
    symbols = "".join(
        f'<symbol id="t-{t}" viewBox="{VIEWBOX}">{tile_face(t)}</symbol>' for t in Tile
    )
    return f'<svg width="0" height="0" aria-hidden="true" style="position:absolute">{symbols}</svg>'
