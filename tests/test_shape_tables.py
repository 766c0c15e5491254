"""The shipped shape tables (protocol/data/shapes.bin) against direct computation."""

from __future__ import annotations

import random

from reference_analysis import brute_distance, brute_is_winning

from protocol import necessary, shapes


def group_counts(key: int, honors: bool) -> list[int]:
    """A 34-count vector holding only one group, from that group's key."""
    counts = [0] * 34
    first, size = (27, 7) if honors else (0, 9)
    for r in range(size):
        counts[first + r] = key % 5
        key //= 5
    return counts


def test_signature_rows_match_direct_distances() -> None:
    rng = random.Random(3)
    for honors in (False, True):
        size = 5**7 if honors else 5**9
        table = shapes._HONOR_SIG if honors else shapes._SUIT_SIG
        for _ in range(150):
            key = rng.randrange(size)
            counts = group_counts(key, honors)
            if sum(counts) > 17:
                continue
            row = shapes._ROWS[table[key]]
            expected = tuple(brute_distance(counts, m, h) for m in range(6) for h in (0, 1))
            assert row == expected, (counts, row, expected)


def test_win_codes_match_direct_decomposition() -> None:
    rng = random.Random(4)
    for honors in (False, True):
        size = 5**7 if honors else 5**9
        table = shapes._HONOR_WIN if honors else shapes._SUIT_WIN
        for _ in range(3000):
            key = rng.randrange(size) if rng.random() < 0.5 else _complete_key(rng, honors)
            counts = group_counts(key, honors)
            n = sum(counts)
            if n > 17:
                continue
            if n % 3 == 2:
                assert (table[key] == 1) == brute_is_winning(counts), counts
            elif n % 3 == 0:
                with_pair = list(counts)
                with_pair[27 if not honors else 0] += 2  # add a pair from another group
                assert (table[key] == 0) == brute_is_winning(with_pair), counts
            else:
                assert table[key] == 9


def _complete_key(rng: random.Random, honors: bool) -> int:
    while True:
        ranks = 7 if honors else 9
        c = [0] * ranks
        for _ in range(rng.randrange(5)):
            if not honors and rng.random() < 0.6:
                r = rng.randrange(7)
                c[r] += 1
                c[r + 1] += 1
                c[r + 2] += 1
            else:
                c[rng.randrange(ranks)] += 3
        if rng.random() < 0.5:
            c[rng.randrange(ranks)] += 2
        if max(c) <= 4:
            return sum(v * 5**r for r, v in enumerate(c))


def test_keys_are_incremental() -> None:
    counts = [0] * 34
    keys = shapes.encode(counts)
    rng = random.Random(5)
    for t in rng.sample([k for k in range(34) for _ in range(4)], 17):
        counts[t] += 1
        keys[shapes.GROUP[t]] += shapes.POWER[t]
        assert keys == shapes.encode(counts)


def test_necessary_masks_match_direct_distances() -> None:
    """protocol/data/necessary.bin: bit r of column (m, h) is set exactly when adding rank r
    (held fewer than four times) lowers the group's distance to m sets and h pairs."""
    rng = random.Random(6)
    necessary._load()
    for honors in (False, True):
        size, ranks = (5**7, 7) if honors else (5**9, 9)
        checked = 0
        while checked < 8:  # each key costs 120 brute-force distances
            key = rng.randrange(size)
            counts = group_counts(key, honors)
            if sum(counts) > 16:  # no 3n+1 hand holds more than 16 of one group
                continue
            checked += 1
            rid = necessary._row_id(3 if honors else 0, key)
            first = 27 if honors else 0
            for m in range(6):
                for h in (0, 1):
                    base = brute_distance(counts, m, h)
                    expected = 0
                    for r in range(ranks):
                        if counts[first + r] < 4:
                            counts[first + r] += 1
                            if brute_distance(counts, m, h) < base:
                                expected |= 1 << r
                            counts[first + r] -= 1
                    assert necessary._Masks.rows[12 * rid + 2 * m + h] == expected, (counts, m, h)
