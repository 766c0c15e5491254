"""Independent, deliberately simple reference implementations used only by the tests.

They share nothing with ``protocol.analysis`` but the definitions:

* a hand of 3n+2 tiles wins when it splits into n sets and a pair (recursive search);
* shanten = min over winning hands T (n sets + a pair, at most four of a kind) of the
  number of tiles of T the hand lacks, minus one. Computed by a forward dynamic program
  over the 34 kinds that decides, kind by kind, how many chows start there, whether a pung
  and whether the pair sit there, and charges the copies the hand does not have.
"""

from __future__ import annotations

from collections.abc import Sequence


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
