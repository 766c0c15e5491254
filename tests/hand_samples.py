"""Random hands for the analysis tests (one place for the generators they share).

* :func:`random_counts`: ``n`` tiles drawn from the 136-tile wall;
* :func:`clustered_counts`: tiles from a few neighbouring kinds, so that quads, long
  runs and dense waits are common;
* :func:`winning_counts`: a complete hand of random sets and a random pair;
* :func:`random_visible`: tiles seen outside a hand (or ``None``, nothing given).
"""

from __future__ import annotations

import random

WALL = [k for k in range(34) for _ in range(4)]


def random_counts(rng: random.Random, n: int) -> list[int]:
    counts = [0] * 34
    for t in rng.sample(WALL, n):
        counts[t] += 1
    return counts


def clustered_counts(rng: random.Random, n: int) -> list[int]:
    """Tiles from a few neighbouring kinds, so quads, long runs and dense waits are common."""
    kinds = rng.sample(range(34), rng.randint(3, 8))
    pool = [k for k in kinds for _ in range(4)]
    pool += [k + 1 for k in kinds if k % 9 < 8 and k < 26 for _ in range(4)]
    counts = [0] * 34
    for t in pool:
        if sum(counts) == n:
            break
        if counts[t] < 4 and rng.random() < 0.7:
            counts[t] += 1
    while sum(counts) < n:
        t = rng.randrange(34)
        if counts[t] < 4:
            counts[t] += 1
    return counts


def winning_counts(rng: random.Random, sets: int) -> list[int]:
    """A complete hand built from random sets and a random pair (copies capped at 4)."""
    while True:
        counts = [0] * 34
        pair = rng.randrange(34)
        counts[pair] += 2
        for _ in range(sets):
            if rng.random() < 0.6:
                suit, start = rng.randrange(3), rng.randrange(7)
                for k in range(3):
                    counts[suit * 9 + start + k] += 1
            else:
                counts[rng.randrange(34)] += 3
        if max(counts) <= 4:
            return counts


def random_visible(rng: random.Random, counts: list[int]) -> list[int] | None:
    if rng.random() < 0.3:
        return None
    return [rng.randint(0, 4 - c) for c in counts]
