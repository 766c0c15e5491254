"""Physical tile ids hide what the rules hide (issue #12 item 3).

Numbering copies by order of appearance told a program that copies 0..c-1 of a kind were
already out of the wall whenever it saw copy c. With ids from the seeded shuffle, the
copy digit says nothing about the copies a seat has not seen: those with a lower digit
are out of the wall no more often than those with a higher one.
"""

from __future__ import annotations

import random
import re

from protocol.line.adapter import LineTable
from protocol.line.tile_ids import ALL_TILE_IDS, kind_of, tile_id
from protocol.match import Match
from protocol.wall import hand_seed, shuffled_wall

_ID = re.compile(r"\b[1-4][1-9][0-3]\b")


def _play(seed: int, hands: int) -> tuple[list[int], list[int], int]:
    """Random play (claims taken when offered); per line a seat receives, for every id
    it sees for the first time with copy c: is each unseen lower copy out of the wall
    (low), is each unseen higher copy out (high)."""
    match = Match.new(seed, hands)
    table = LineTable(match.physical_wall)
    for s in range(4):
        table.add_seat(s, f"p{s + 1}")
    rng = random.Random(seed)
    seen: list[set[int]] = [set() for _ in range(4)]
    low: list[int] = []
    high: list[int] = []
    ids_seen = 0

    def feed(events: list) -> None:
        nonlocal ids_seen
        for ev in events:
            if type(ev).__name__ == "HandStart":
                for s in seen:
                    s.clear()
            for s, lines in table.feed(ev).items():
                for line in lines:
                    if line.startswith(("/initGame", "/start")):
                        continue
                    for tid in map(int, _ID.findall(line)):
                        if tid not in ALL_TILE_IDS or tid in seen[s]:
                            continue
                        ids_seen += 1
                        seen[s].add(tid)
                        kind, copy = kind_of(tid), tid % 10
                        for j in range(4):
                            other = tile_id(kind, j)
                            if other in seen[s]:
                                continue
                            (low if j < copy else high).append(other in table.tracker.out)

    feed(match.events)
    while not match.is_over:
        seat, legal = next(iter(match.pending().items()))
        claims = [a for a in legal if a.kind.value in ("pung", "kong", "chow", "win")]
        feed(match.apply(seat, rng.choice(claims or legal)))
    return low, high, ids_seen


def test_a_copy_digit_says_nothing_about_the_unseen_copies() -> None:
    low: list[int] = []
    high: list[int] = []
    for seed in (1, 2):
        lo, hi, seen = _play(seed, 4)
        low += lo
        high += hi
        assert seen > 200
    assert len(low) > 300 and len(high) > 300
    rate_low, rate_high = sum(low) / len(low), sum(high) / len(high)
    # Ids by order of appearance make rate_low 1.0 (every inference right).
    assert abs(rate_low - rate_high) < 0.05, (rate_low, rate_high)


def test_ids_follow_the_seeded_wall_and_its_kinds() -> None:
    match = Match.new(9, 2)
    for k in range(2):
        physical = match.physical_wall(k)
        assert tuple(p // 4 for p in physical) == match.wall(k) == shuffled_wall(hand_seed(9, k))
    table = LineTable(match.physical_wall)
    table.add_seat(0, "p1")
    dealt = [line for ev in match.events for line in table.feed(ev)[0]]
    ids = [int(t) for t in dealt[1].split()[1:]]
    assert ids == [tile_id(p // 4, p % 4) for p in match.physical_wall(0)[:17]]
