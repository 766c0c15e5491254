"""The canonical split (拆牌) of a winning hand, ruling R11 of ``docs/RULES.md``.

The tournament judge scores a hand on exactly one split, not on the split that scores
best. This module finds that split:

1. declared melds are sets as declared (R11.1);
2. a concealed honor kind with 3 copies is a pung *recorded as exposed*, one with 2
   copies is the pair (R11.2);
3. suited tiles: the pair (if not fixed by an honor) is the lowest kind for which the
   rest splits, and each suit is split from its lowest tile upward, a pung whenever 3 or
   more copies are present, otherwise a chow (R11.3);
4. on a discard win, a concealed pung of the winning tile's kind counts as exposed
   (R11.4).

Only one suit can hold the pair (its tile count is 2 mod 3), so trying pair kinds in
ascending order over all suits and over that one suit give the same answer. Each suit's
result depends only on its nine counts, so it is computed once per count pattern and
cached; a split costs a few dictionary look-ups.

>>> from protocol.tiles import parse_counts
>>> split = canonical_split(parse_counts("111222333m 456p 789s EE"))
>>> str(split)
'EE | pung:111m* pung:222m* pung:333m* chow:456p* chow:789s*'
>>> canonical_split(parse_counts("123m 456p 789s 11s 2345s")) is None
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from protocol.melds import Meld, MeldKind
from protocol.tiles import Tile, format_tiles

__all__ = ["Split", "SplitSet", "canonical_split"]

# Enum member look-ups cost ~100 ns each in Python 3.11; the hot path uses these.
_CHOW = MeldKind.CHOW
_PUNG = MeldKind.PUNG
_CONCEALED_KONG = MeldKind.CONCEALED_KONG


@dataclass(frozen=True, slots=True)
class SplitSet:
    """One of the five sets of a split.

    ``kind`` reuses :class:`~protocol.melds.MeldKind`: a set found in the concealed hand
    is a ``CHOW`` or a ``PUNG`` with ``declared=False``. ``concealed`` says whether it
    counts as concealed for the tai items (R11): concealed chows and suited pungs do,
    concealed kongs do, declared chows, pungs, exposed and added kongs do not, honor
    pungs from the hand do not (R11.2), nor a pung completed by the winning discard
    (R11.4).

    >>> str(SplitSet(MeldKind.PUNG, Tile.E, concealed=False, declared=False))
    'pung:EEE'
    """

    kind: MeldKind
    tile: Tile
    concealed: bool
    declared: bool

    @property
    def tiles(self) -> tuple[Tile, ...]:
        """The tiles of the set, lowest first (four for a kong)."""
        t = self.tile
        if self.kind is _CHOW:
            return (t, Tile(t + 1), Tile(t + 2))
        return (t,) * (4 if self.kind.is_kong else 3)

    @property
    def is_chow(self) -> bool:
        """Whether this set is a chow (three consecutive tiles)."""
        return self.kind is _CHOW

    def __str__(self) -> str:
        return f"{self.kind.value}:{format_tiles(self.tiles).replace(' ', '')}"

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict, tiles as text.

        >>> SplitSet(MeldKind.CHOW, Tile.M1, True, False).to_json()
        {'kind': 'chow', 'tile': '1m', 'tiles': '123m', 'concealed': True, 'declared': False}
        """
        return {
            "kind": self.kind.value,
            "tile": str(self.tile),
            "tiles": format_tiles(self.tiles).replace(" ", ""),
            "concealed": self.concealed,
            "declared": self.declared,
        }


@dataclass(frozen=True, slots=True)
class Split:
    """The canonical split: the pair kind and the five sets.

    The sets list the declared melds first, in the order given, then the sets found in
    the concealed hand in tile order. ``str()`` marks concealed sets with ``*``.
    """

    pair: Tile
    sets: tuple[SplitSet, ...]

    def __str__(self) -> str:
        sets = " ".join(f"{s}{'*' if s.concealed else ''}" for s in self.sets)
        return f"{format_tiles((self.pair, self.pair))} | {sets}"

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: ``{"pair": "5m", "sets": [...]}``."""
        return {"pair": str(self.pair), "sets": [s.to_json() for s in self.sets]}


# A suit's split is a tuple of (rank index 0..8, is_pung) pairs, lowest first.
_SuitSets = tuple[tuple[int, bool], ...]


@cache
def _suit_sets(key: tuple[int, ...]) -> _SuitSets | None:
    """Split nine suit counts into sets only, lowest tile first, pung first (R11.3)."""
    c = list(key)
    out: list[tuple[int, bool]] = []
    for r in range(9):
        while c[r]:
            if c[r] >= 3:
                c[r] -= 3
                out.append((r, True))
            elif r <= 6 and c[r + 1] and c[r + 2]:
                c[r] -= 1
                c[r + 1] -= 1
                c[r + 2] -= 1
                out.append((r, False))
            else:
                return None
    return tuple(out)


@cache
def _suit_pair_sets(key: tuple[int, ...]) -> tuple[int, _SuitSets] | None:
    """The lowest pair rank for which the rest of the suit splits, and that split."""
    for r in range(9):
        if key[r] >= 2:
            c = list(key)
            c[r] -= 2
            sets = _suit_sets(tuple(c))
            if sets is not None:
                return r, sets
    return None


@cache
def _set_of(kind: MeldKind, tile: int, concealed: bool, declared: bool) -> SplitSet:
    """Shared immutable set values (there are only a few thousand distinct ones)."""
    return SplitSet(kind, Tile(tile), concealed, declared)


@cache
def _suit_split(base: int, key: tuple[int, ...]) -> tuple[int, tuple[SplitSet, ...]] | None:
    """One suit (first kind ``base``): its pair kind (-1 if none) and its sets, all
    concealed; ``None`` if the suit does not split (R11.3)."""
    rem = sum(key) % 3
    pair = -1
    if rem == 0:
        sets = _suit_sets(key)
    elif rem == 2:
        found = _suit_pair_sets(key)
        if found is None:
            return None
        pair, sets = base + found[0], found[1]
    else:
        return None
    if sets is None:
        return None
    kinds = (_CHOW, _PUNG)
    return pair, tuple(_set_of(kinds[is_pung], base + r, True, False) for r, is_pung in sets)


def _declared_set(meld: Meld) -> SplitSet:
    return _set_of(meld.kind, meld.tile, meld.kind is _CONCEALED_KONG, True)


def canonical_split(
    counts: Sequence[int],
    melds: Sequence[Meld] = (),
    win_tile: int | None = None,
    discard_win: bool = False,
) -> Split | None:
    """The canonical split (R11) of a winning hand, or ``None`` if it does not split.

    ``counts`` are the 34 counts of the concealed tiles including the winning tile
    (3n+2 tiles); ``melds`` the declared melds. With ``discard_win`` a concealed pung of
    ``win_tile``'s kind is marked not concealed (R11.4). Tile-count checks are the
    caller's business (see :func:`protocol.scoring.score_win`).

    >>> from protocol.tiles import parse_counts
    >>> str(canonical_split(parse_counts("55m 777p"), [], Tile.P7, discard_win=True))
    '55m | pung:777p'
    """
    pair = -1
    honor_sets: list[SplitSet] = []
    for k in range(27, 34):
        n = counts[k]
        if n == 3:
            honor_sets.append(_set_of(_PUNG, k, False, False))  # R11.2
        elif n == 2 and pair < 0:
            pair = k
        elif n:
            return None
    suited: list[SplitSet] = []
    for base in (0, 9, 18):
        found = _suit_split(base, tuple(counts[base : base + 9]))
        if found is None:
            return None
        if found[0] >= 0:
            if pair >= 0:
                return None
            pair = found[0]
        suited.extend(found[1])
    if pair < 0:
        return None
    if discard_win and win_tile is not None and win_tile < 27 and counts[win_tile] >= 3:
        exposed = _set_of(_PUNG, win_tile, False, False)  # R11.4
        concealed = _set_of(_PUNG, win_tile, True, False)
        suited = [exposed if st is concealed else st for st in suited]
    declared = [_declared_set(m) for m in melds]
    return Split(Tile(pair), (*declared, *suited, *honor_sets))
