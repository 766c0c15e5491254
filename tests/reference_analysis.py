"""Independent, deliberately simple reference implementations used only by the tests.

They share nothing with ``protocol.analysis`` but the definitions:

* a hand of 3n+2 tiles wins when it splits into n sets and a pair (recursive search);
* shanten = min over winning hands T (n sets + a pair, at most four of a kind) of the
  number of tiles of T the hand lacks, minus one. Computed by a forward dynamic program
  over the 34 kinds that decides, kind by kind, how many chows start there, whether a pung
  and whether the pair sit there, and charges the copies the hand does not have.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from protocol.analysis import DiscardOption
from protocol.shapes import GROUP, POWER, distance, encode, win_codes
from protocol.tiles import KIND_COUNT, Tile

_SUIT_WIN, _HONOR_WIN = win_codes()


def brute_is_winning(counts: Sequence[int]) -> bool:
    c = list(counts)
    if sum(c) % 3 != 2:
        return False
    for p in range(34):
        if c[p] >= 2:
            c[p] -= 2
            ok = _all_sets(c, 0)
            c[p] += 2
            if ok:
                return True
    return False


def _all_sets(c: list[int], i: int) -> bool:
    while i < 34 and c[i] == 0:
        i += 1
    if i == 34:
        return True
    if c[i] >= 3:
        c[i] -= 3
        ok = _all_sets(c, i)
        c[i] += 3
        if ok:
            return True
    if i < 27 and i % 9 <= 6 and c[i + 1] and c[i + 2]:
        for k in (i, i + 1, i + 2):
            c[k] -= 1
        ok = _all_sets(c, i)
        for k in (i, i + 1, i + 2):
            c[k] += 1
        return ok
    return False


def brute_shanten(counts: Sequence[int]) -> int:
    return brute_distance(counts, sum(counts) // 3, 1) - 1


def brute_distance(counts: Sequence[int], n_sets: int, n_pairs: int) -> int:
    """Fewest tiles missing from ``counts`` for n_sets sets and n_pairs (0 or 1) pairs."""
    # state: (sets used, pair used, chows started at k-1, chows started at k-2) -> cost
    states: dict[tuple[int, int, int, int], int] = {(0, 0, 0, 0): 0}
    for k in range(34):
        can_start_chow = k < 27 and k % 9 <= 6
        nxt: dict[tuple[int, int, int, int], int] = {}
        for (sets, pair, a, b), cost in states.items():
            for x in range(0, 5 if can_start_chow else 1):
                for pung in (0, 1):
                    for q in (0, 1):
                        used = sets + x + pung
                        if used > n_sets or pair + q > n_pairs:
                            continue
                        t = a + b + x + 3 * pung + 2 * q
                        if t > 4:
                            continue
                        new_cost = cost + max(0, t - counts[k])
                        # chows never run across suits: carries are only kept inside a suit
                        key = (
                            (used, pair + q, x, a)
                            if (k < 27 and k % 9 < 8)
                            else (used, pair + q, 0, 0)
                        )
                        if key[2] and not (k < 27 and k % 9 <= 6):
                            continue
                        if new_cost < nxt.get(key, 99):
                            nxt[key] = new_cost
        states = nxt
    return states.get((n_sets, n_pairs, 0, 0), 99)


def plain_waits_counts(counts: Sequence[int], meld_tiles: Iterable[int] = ()) -> list[int]:
    """Winning kinds of a 3n+1 hand by one win-code check per kind, minus R12 kinds."""
    keys = encode(counts)
    held = list(counts)
    for t in meld_tiles:
        held[t] += 1
    codes = [_SUIT_WIN[keys[0]], _SUIT_WIN[keys[1]], _SUIT_WIN[keys[2]], _HONOR_WIN[keys[3]]]
    total = sum(codes)
    out = []
    for t in range(KIND_COUNT):
        if held[t] >= 4:
            continue
        g = GROUP[t]
        rest = total - codes[g]
        if rest > 1:
            continue
        table = _HONOR_WIN if g == 3 else _SUIT_WIN
        if rest + table[keys[g] + POWER[t]] == 1:
            out.append(t)
    return out


def plain_efficiency_counts(
    counts: Sequence[int], visible: Sequence[int] | None = None
) -> list[DiscardOption]:
    """Every discard of a 3n+2 hand by trial: one shanten per discard and added kind."""
    keys = encode(counts)
    sets = sum(counts) // 3
    unseen = _unseen(counts, visible)
    options = []
    for d in range(KIND_COUNT):
        if not counts[d]:
            continue
        keys[GROUP[d]] -= POWER[d]
        base = distance(keys, sets)
        accepts = _lowering(keys, sets, base, counts, d)
        keys[GROUP[d]] += POWER[d]
        options.append(
            DiscardOption(
                Tile(d), base - 1, tuple(map(Tile, accepts)), tuple(unseen[t] for t in accepts)
            )
        )
    options.sort(key=lambda o: (o.shanten, -o.total_unseen, o.discard))
    return options


def plain_improvements_counts(
    counts: Sequence[int], visible: Sequence[int] | None = None
) -> list[tuple[Tile, int]]:
    """For a 3n+1 hand, by trial: the kinds whose draw lowers shanten, with unseen copies."""
    keys = encode(counts)
    sets = sum(counts) // 3
    unseen = _unseen(counts, visible)
    return [(Tile(t), unseen[t]) for t in _lowering(keys, sets, distance(keys, sets), counts, None)]


def _unseen(counts: Sequence[int], visible: Sequence[int] | None) -> list[int]:
    seen = visible if visible is not None else (0,) * KIND_COUNT
    return [max(0, 4 - counts[t] - seen[t]) for t in range(KIND_COUNT)]


def _lowering(
    keys: list[int], sets: int, base: int, counts: Sequence[int], removed: int | None
) -> list[int]:
    """Kinds whose addition to ``keys`` (a hand ``counts`` less ``removed``) lowers ``base``."""
    out = []
    for t in range(KIND_COUNT):
        if counts[t] - (t == removed) >= 4:
            continue
        g = GROUP[t]
        keys[g] += POWER[t]
        if distance(keys, sets) < base:
            out.append(t)
        keys[g] -= POWER[t]
    return out
