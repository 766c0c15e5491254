"""Hand analysis (PROVISIONAL slow version; the table-driven one replaces the internals).

Public contract (stable): counts are lists of 34 ints.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

from protocol.tiles import KIND_COUNT, Tile, parse_tiles, tiles_to_counts


def _sets_only(c: list[int], i: int = 0) -> bool:
    while i < KIND_COUNT and c[i] == 0:
        i += 1
    if i == KIND_COUNT:
        return True
    if c[i] >= 3:
        c[i] -= 3
        ok = _sets_only(c, i)
        c[i] += 3
        if ok:
            return True
    if i < 27 and i % 9 <= 6 and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        ok = _sets_only(c, i)
        c[i] += 1
        c[i + 1] += 1
        c[i + 2] += 1
        return ok
    return False


def is_winning_counts(counts: Sequence[int]) -> bool:
    c = list(counts)
    if sum(c) % 3 != 2:
        return False
    for k in range(KIND_COUNT):
        if c[k] >= 2:
            c[k] -= 2
            ok = _sets_only(c)
            c[k] += 2
            if ok:
                return True
    return False


def waits_counts(counts: Sequence[int], meld_tiles: Iterable[int] = ()) -> list[int]:
    held = list(counts)
    for t in meld_tiles:
        held[t] += 1
    c = list(counts)
    out = []
    for k in range(KIND_COUNT):
        if held[k] >= 4:
            continue
        c[k] += 1
        if is_winning_counts(c):
            out.append(k)
        c[k] -= 1
    return out


@lru_cache(maxsize=None)
def _shanten_key(key: tuple[int, ...]) -> int:
    c = list(key)
    n = sum(c)
    if n % 3 == 2 and is_winning_counts(c):
        return -1
    if n % 3 == 1:
        return min(_shanten_key(tuple(c[:k] + [c[k] + 1] + c[k + 1 :])) for k in range(34) if c[k] < 4) + 1
    best = 99
    for k in range(34):
        if c[k]:
            c[k] -= 1
            best = min(best, _shanten_key(tuple(c)))
            c[k] += 1
    return best


def shanten_counts(counts: Sequence[int]) -> int:
    return _shanten_key(tuple(counts))


def _counts(tiles: str | Iterable[int]) -> list[int]:
    return tiles_to_counts(parse_tiles(tiles) if isinstance(tiles, str) else tiles)


def is_winning(tiles: str | Iterable[int], melds: Sequence = ()) -> bool:
    return is_winning_counts(_counts(tiles))


def shanten(tiles: str | Iterable[int]) -> int:
    return shanten_counts(_counts(tiles))


def waits(tiles: str | Iterable[int], melds: Sequence = ()) -> list[Tile]:
    meld_tiles = [t for m in melds for t in m.tiles]
    return [Tile(k) for k in waits_counts(_counts(tiles), meld_tiles)]
