"""Hand analysis: win check, shanten, waits and tile efficiency (standard shape only).

Under these rules a hand wins only as sets plus one pair: five sets for the full 17
tiles, one set fewer per declared meld. Seven pairs and thirteen orphans do not exist.

Each function comes twice:

* a friendly form taking tiles as text or as an iterable of kinds, validating sizes and
  copies, and returning :class:`~protocol.tiles.Tile` values;
* a fast ``*_counts`` form taking a count vector (a list of 34 ints) and trusting it;
  the referee and the bots call these thousands of times per decision.

>>> is_winning("111122233344m 567p 99s")
True
>>> shanten("123m 456p 789s 11s 23s EE C F")
1
>>> [str(t) for t in waits("1234444m")]  # 4m is held four times: not a wait (R12)
['1m']
>>> best = tile_efficiency("123m 456p 789s 11s 23s EE C F")[0]
>>> str(best.discard), best.shanten, [str(t) for t in best.accepts]
('C', 1, ['1s', '2s', '3s', '4s', 'E', 'F'])

Shanten is the number of tiles a hand lacks to be waiting: 0 when waiting (or, for a
3n+2 hand, waiting after the right discard), -1 when complete. It is computed exactly as
"tiles to swap to complete the hand, minus one", never counting a fifth copy of a kind.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from protocol.errors import TileCountError
from protocol.melds import Meld
from protocol.necessary import discard_table, kinds_of, necessary, share_of
from protocol.shapes import distance, encode, win_codes
from protocol.tiles import KIND_COUNT, TILES, Tile, parse_tiles, tiles_to_counts

__all__ = [
    "DiscardOption",
    "efficiency_counts",
    "improvements_counts",
    "is_winning",
    "is_winning_counts",
    "shanten",
    "shanten_counts",
    "tile_efficiency",
    "waits",
    "waits_counts",
]

_SUIT_WIN, _HONOR_WIN = win_codes()
HandInput = str | Iterable[int]


class DiscardOption(NamedTuple):
    """One possible discard of a 3n+2 hand and what it leaves.

    ``accepts`` are the kinds that would lower ``shanten`` if drawn next, and
    ``unseen[i]`` is how many copies of ``accepts[i]`` the player has not seen.
    Immutable; a named tuple because a table of them is built per decision (a frozen
    dataclass cost more to build than the table reads behind it).
    """

    discard: Tile
    shanten: int
    accepts: tuple[Tile, ...]
    unseen: tuple[int, ...]

    @property
    def total_unseen(self) -> int:
        """All unseen copies of every accepted kind: the usual measure of a discard."""
        return sum(self.unseen)

    def to_json(self) -> dict[str, object]:
        """A plain dict (tiles in text form), as ``protocol.analyze --json`` prints."""
        return {
            "discard": str(self.discard),
            "shanten": self.shanten,
            "accepts": {str(t): n for t, n in zip(self.accepts, self.unseen, strict=True)},
            "total_unseen": self.total_unseen,
        }


# --- fast forms on count vectors -----------------------------------------------------


def is_winning_counts(counts: Sequence[int]) -> bool:
    """Whether 34 counts (3n+2 tiles) form sets plus one pair. About a microsecond.

    Groups are checked one at a time so that most non-winning hands stop early.
    """
    c = counts
    w = _SUIT_WIN
    a = w[
        c[0] + 5 * c[1] + 25 * c[2] + 125 * c[3] + 625 * c[4]
        + 3125 * c[5] + 15625 * c[6] + 78125 * c[7] + 390625 * c[8]
    ]  # fmt: skip
    if a > 1:
        return False
    a += w[
        c[9] + 5 * c[10] + 25 * c[11] + 125 * c[12] + 625 * c[13]
        + 3125 * c[14] + 15625 * c[15] + 78125 * c[16] + 390625 * c[17]
    ]  # fmt: skip
    if a > 1:
        return False
    a += w[
        c[18] + 5 * c[19] + 25 * c[20] + 125 * c[21] + 625 * c[22]
        + 3125 * c[23] + 15625 * c[24] + 78125 * c[25] + 390625 * c[26]
    ]  # fmt: skip
    if a > 1:
        return False
    return (
        a + _HONOR_WIN[
            c[27] + 5 * c[28] + 25 * c[29] + 125 * c[30] + 625 * c[31] + 3125 * c[32] + 15625 * c[33]
        ]
        == 1
    )  # fmt: skip


def shanten_counts(counts: Sequence[int]) -> int:
    """Shanten of 34 counts holding 3n+1 or 3n+2 tiles (n sets and a pair wanted)."""
    return distance(encode(counts), sum(counts) // 3) - 1


def waits_counts(counts: Sequence[int], meld_tiles: Iterable[int] = ()) -> list[int]:
    """Winning kinds of a 3n+1 hand, leaving out kinds held four times (RULINGS R12).

    ``meld_tiles`` are the tiles of the player's own melds, which count as held. The
    winning kinds of a waiting hand (distance 1) are exactly its necessary tiles
    (:mod:`protocol.necessary`), which already leave out kinds held four times in hand.
    """
    keys = encode(counts)
    share = share_of(keys, sum(counts) // 3)
    if share[0] != 1:
        return []
    kinds = kinds_of(keys, share)
    if meld_tiles:
        held = list(counts)
        for t in meld_tiles:
            held[t] += 1
        return [int(t) for t in kinds if held[t] < 4]
    return list(map(int, kinds))


def efficiency_counts(
    counts: Sequence[int], visible: Sequence[int] | None = None
) -> list[DiscardOption]:
    """Every distinct discard of a 3n+2 hand with its shanten and accepted kinds.

    ``visible`` counts the tiles seen outside this concealed hand (rivers, all melds);
    the unseen copies of a kind are ``4 - in hand - visible``. Sorted best first:
    lowest shanten, then most unseen accepted tiles, then tile order. The accepted kinds
    come from the necessary-tile tables (:func:`protocol.necessary.discard_table`).
    """
    ranked = discard_table(counts, encode(counts), _unseen(counts, visible))
    ranked.sort()  # (distance, -total unseen, kind, ...): best first
    new = tuple.__new__
    return [
        new(DiscardOption, (TILES[d], dist - 1, kinds, copies))
        for dist, _, d, kinds, copies in ranked
    ]


def improvements_counts(
    counts: Sequence[int], visible: Sequence[int] | None = None
) -> list[tuple[Tile, int]]:
    """For a 3n+1 hand: the kinds whose draw lowers shanten, with their unseen copies."""
    unseen = _unseen(counts, visible)
    _, kinds = necessary(encode(counts), sum(counts) // 3)
    return [(t, unseen[t]) for t in kinds]


def _unseen(counts: Sequence[int], visible: Sequence[int] | None) -> list[int]:
    if visible is None:
        return [4 - n if n < 4 else 0 for n in counts]
    return [4 - a - b if a + b < 4 else 0 for a, b in zip(counts, visible, strict=False)]


# --- friendly forms -------------------------------------------------------------------


def hand_counts(
    tiles: HandInput, melds: Sequence[Meld] = (), sizes: tuple[int, ...] = (1, 2)
) -> list[int]:
    """Counts of a hand given as text or kinds, checked for copies and size.

    ``sizes`` are the allowed remainders of the concealed count modulo 3. With melds the
    concealed count must also fit them: ``len(tiles) + 3 * len(melds)`` is 16 or 17.
    """
    kinds = parse_tiles(tiles, check_counts=False) if isinstance(tiles, str) else list(tiles)
    counts = tiles_to_counts(kinds)
    held = list(counts)
    for meld in melds:
        for t in meld.tiles:
            held[t] += 1
    for t in range(KIND_COUNT):
        if held[t] > 4:
            raise TileCountError(f"more than four copies of {Tile(t)} (concealed tiles plus melds)")
    n = len(kinds)
    if n % 3 not in sizes:
        allowed = " or ".join(f"3n+{r}" for r in sizes)
        raise TileCountError(f"a hand of {n} concealed tiles: expected {allowed} tiles")
    if melds and n + 3 * len(melds) not in (16, 17):
        raise TileCountError(
            f"{n} concealed tiles do not fit {len(melds)} melds (16 or 17 tiles in all)"
        )
    return counts


def is_winning(tiles: HandInput, melds: Sequence[Meld] = ()) -> bool:
    """Whether the concealed tiles (3n+2 of them) are sets plus one pair.

    The melds declared already are not part of ``tiles``; they only set how many sets
    the concealed part needs.

    >>> is_winning("123m 456p 789s 111s EE"), is_winning("123m 456p 789s 111s EF")
    (True, False)
    >>> is_winning("11m 123p", melds=[Meld.parse(m) for m in ("pung:EEE", "kong:SSSS", "chow:789s", "pung:555p")])
    True
    """
    return is_winning_counts(hand_counts(tiles, melds, sizes=(2,)))


def shanten(tiles: HandInput, melds: Sequence[Meld] = ()) -> int:
    """Shanten of 3n+1 or 3n+2 concealed tiles: -1 complete, 0 waiting, and so on.

    >>> shanten("11m"), shanten("1m 9p"), shanten("123m 456p 789s 111s EE")
    (-1, 0, -1)
    """
    return shanten_counts(hand_counts(tiles, melds))


def waits(tiles: HandInput, melds: Sequence[Meld] = ()) -> list[Tile]:
    """Winning kinds of 3n+1 concealed tiles, minus kinds held four times (R12).

    >>> [str(t) for t in waits("1112345678999m")]
    ['1m', '2m', '3m', '4m', '5m', '6m', '7m', '8m', '9m']
    """
    counts = hand_counts(tiles, melds, sizes=(1,))
    meld_tiles = [t for m in melds for t in m.tiles]
    return [Tile(t) for t in waits_counts(counts, meld_tiles)]


def tile_efficiency(
    tiles: HandInput, visible: HandInput = (), melds: Sequence[Meld] = ()
) -> list[DiscardOption]:
    """For each discard of 3n+2 concealed tiles: the shanten left, the kinds that would
    lower it and how many of those are unseen; best first.

    ``visible`` lists the tiles the player can see outside the concealed hand (all
    rivers and melds, own melds included); own ``melds`` are counted as visible too.

    >>> [(str(o.discard), o.total_unseen) for o in tile_efficiency("1199m 5p")][:2]
    [('5p', 4), ('1m', 31)]
    """
    counts = hand_counts(tiles, melds, sizes=(2,))
    kinds = parse_tiles(visible, check_counts=False) if isinstance(visible, str) else list(visible)
    seen = tiles_to_counts(kinds)
    for meld in melds:
        for t in meld.tiles:
            seen[t] += 1
    return efficiency_counts(counts, seen)
