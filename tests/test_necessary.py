"""The necessary-tile fast path against the plain trial forms and brute force.

``protocol.analysis`` takes improving tiles from the tables of ``protocol.necessary``;
``tests/reference_analysis.py`` keeps the plain forms it replaced (one trial shanten per
discard and added kind). Both must give identical answers, on random hands of every size,
near-winning hands, hands holding four of a kind, with and without visible tiles.
"""

from __future__ import annotations

import random

import pytest
from reference_analysis import (
    brute_is_winning,
    brute_shanten,
    plain_efficiency_counts,
    plain_improvements_counts,
    plain_waits_counts,
)

from protocol.analysis import efficiency_counts, improvements_counts, waits_counts
from protocol.necessary import discard_accepts, necessary
from protocol.shapes import encode

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


def random_visible(rng: random.Random, counts: list[int]) -> list[int] | None:
    if rng.random() < 0.3:
        return None
    return [rng.randint(0, 4 - c) for c in counts]


@pytest.mark.parametrize("size", [2, 5, 8, 11, 14, 17])
def test_efficiency_equals_the_plain_trial_form(size: int) -> None:
    rng = random.Random(100 + size)
    for i in range(400):
        counts = random_counts(rng, size) if i % 2 else clustered_counts(rng, size)
        visible = random_visible(rng, counts)
        assert efficiency_counts(counts, visible) == plain_efficiency_counts(counts, visible), (
            counts,
            visible,
        )


@pytest.mark.parametrize("size", [1, 4, 7, 10, 13, 16])
def test_improvements_and_waits_equal_the_plain_forms(size: int) -> None:
    rng = random.Random(200 + size)
    for i in range(1500):
        counts = random_counts(rng, size) if i % 2 else clustered_counts(rng, size)
        visible = random_visible(rng, counts)
        assert improvements_counts(counts, visible) == plain_improvements_counts(counts, visible), (
            counts
        )
        melds = [t for t in range(34) if counts[t] < 4 and rng.random() < 0.05]
        assert waits_counts(counts) == plain_waits_counts(counts), counts
        assert waits_counts(counts, melds) == plain_waits_counts(counts, melds), (counts, melds)


def test_waits_of_waiting_hands_equal_the_plain_form() -> None:
    """Random hands rarely wait; take complete hands less one tile (many waits each)."""
    rng = random.Random(7)
    checked = 0
    while checked < 1500:
        counts = clustered_counts(rng, 17)
        if not brute_is_winning(counts) and rng.random() < 0.9:
            counts = _complete(rng)
        counts[rng.choice([k for k in range(34) if counts[k]])] -= 1
        melds = [t for t in range(34) if counts[t] < 4 and rng.random() < 0.1]
        assert waits_counts(counts, melds) == plain_waits_counts(counts, melds), counts
        checked += 1


def test_efficiency_matches_brute_force_shanten() -> None:
    """Shanten after each discard and each accepted kind, straight from the definition."""
    rng = random.Random(11)
    for size in (14, 11, 11, 8):
        counts = clustered_counts(rng, size)
        for option in efficiency_counts(counts):
            counts[option.discard] -= 1
            assert option.shanten == brute_shanten(counts)
            lowering = []
            for t in range(34):
                if counts[t] < 4:  # a fifth copy is never drawn
                    counts[t] += 1
                    if brute_shanten(counts) < option.shanten:
                        lowering.append(t)
                    counts[t] -= 1
            counts[option.discard] += 1
            assert list(option.accepts) == lowering, (counts, option)


@pytest.mark.parametrize("size", [2, 5, 8, 11, 14, 17])
def test_discard_accepts_rank_like_the_plain_efficiency_table(size: int) -> None:
    """The bots' table (distance and unseen acceptance per discard, no kinds) against the
    plain trial form: all discards, an allowed subset, and the lowest-distance ones."""
    rng = random.Random(300 + size)
    for i in range(400):
        counts = random_counts(rng, size) if i % 2 else clustered_counts(rng, size)
        visible = random_visible(rng, counts)
        unseen = [4 - c - (visible[k] if visible else 0) for k, c in enumerate(counts)]
        plain = {
            int(o.discard): (o.shanten + 1, o.total_unseen)
            for o in plain_efficiency_counts(counts, visible)
        }
        rows = discard_accepts(counts, encode(counts), unseen)
        assert {d: (dist, n) for d, dist, n in rows} == plain, counts
        assert [d for d, _, _ in rows] == sorted(plain)
        allowed = {d for d in plain if rng.random() < 0.6}
        some = discard_accepts(counts, encode(counts), unseen, allowed)
        assert {d: (dist, n) for d, dist, n in some} == {d: plain[d] for d in allowed}
        least = min(dist for dist, _ in plain.values())
        best = discard_accepts(counts, encode(counts), unseen, best_only=True)
        assert {d: (dist, n) for d, dist, n in best} == {
            d: v for d, v in plain.items() if v[0] == least
        }


def test_necessary_never_offers_a_fifth_copy() -> None:
    counts = [0] * 34
    counts[0] = 4  # 1111m 23m: 1m cannot be drawn again
    counts[1] = counts[2] = 1
    distance, kinds = necessary(encode(counts), 2)
    assert distance == 2
    assert 0 not in kinds
    assert [int(t) for t in kinds] == [t for t, _ in plain_improvements_counts(counts)]


def _complete(rng: random.Random) -> list[int]:
    while True:
        counts = [0] * 34
        counts[rng.randrange(34)] += 2
        for _ in range(5):
            if rng.random() < 0.6:
                suit, start = rng.randrange(3), rng.randrange(7)
                for k in range(3):
                    counts[suit * 9 + start + k] += 1
            else:
                counts[rng.randrange(34)] += 3
        if max(counts) <= 4:
            return counts
