"""Physical tile ids hide what the rules hide (issue #12 item 3).

Numbering copies by order of appearance told a program that copies 0..c-1 of a kind were
already out of the wall whenever it saw copy c. With ids from the seeded shuffle, the
copy digit says nothing about the copies a seat has not seen: those with a lower digit
are out of the wall no more often than those with a higher one.
"""

from __future__ import annotations

import random

from protocol.actions import Action
from protocol.line.adapter import LineTable
from protocol.line.leakage import (
    CopyDigitSamples,
    copy_digit_samples,
    ids_in_order_of_appearance,
)
from protocol.line.tile_ids import tile_id
from protocol.match import Match
from protocol.wall import hand_seed, shuffled_wall


def _claims_when_offered(rng: random.Random):
    """Random play that takes a claim whenever one is offered (more ids shown)."""

    def choose(legal: tuple[Action, ...]) -> Action:
        claims = [a for a in legal if a.kind.value in ("pung", "kong", "chow", "win")]
        return rng.choice(claims or legal)

    return choose


def test_a_copy_digit_says_nothing_about_the_unseen_copies() -> None:
    low: list[bool] = []
    high: list[bool] = []
    for seed in (1, 2):
        match = Match.new(seed, 4)
        samples = copy_digit_samples(
            match, match.physical_wall, _claims_when_offered(random.Random(seed))
        )
        low += samples.lower
        high += samples.higher
        assert samples.ids_seen > 200
    assert len(low) > 300 and len(high) > 300
    rate_low, rate_high = CopyDigitSamples.rate(low), CopyDigitSamples.rate(high)
    # Ids by order of appearance make rate_low 1.0 (every inference right).
    assert abs(rate_low - rate_high) < 0.05, (rate_low, rate_high)


def test_ids_by_order_of_appearance_would_leak() -> None:
    """The measurement can fail: with copies numbered in order of appearance, every
    unseen lower copy is already out of the wall."""
    match = Match.new(1, 2)
    samples = copy_digit_samples(
        match, ids_in_order_of_appearance(match), _claims_when_offered(random.Random(1))
    )
    rate_low = CopyDigitSamples.rate(samples.lower)
    assert rate_low > 0.9 and rate_low - CopyDigitSamples.rate(samples.higher) > 0.3


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
