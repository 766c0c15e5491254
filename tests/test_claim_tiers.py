"""Claims asked tier by tier give the referee's events exactly (issue #12 item 1).

The same seed and the same decisions must give the same game whatever the asking order:
every seat asked everything at once, every seat asked tier by tier (win, then kong/pung,
then chow, as the public referee asks), or a mix. A tiered seat's pung, kong or chow
answer is always the one applied; only a win can lose to another win at the same tier.
"""

from __future__ import annotations

import random

import pytest

from protocol.actions import PASS, PUNG, WIN, Action
from protocol.claim_tiers import WIN_TIER, ClaimTiers, tier_of
from protocol.match import Match
from protocol.view import CLAIMS


def _policy(seed: int, match: Match, seat: int, legal: tuple[Action, ...]) -> Action:
    """A seat's full decision: a fixed function of the game so far, claiming often."""
    rng = random.Random(f"{seed}/{len(match.events)}/{seat}")
    claims = [a for a in legal if tier_of(a) is not None]
    return rng.choice(claims) if claims and rng.random() < 0.8 else rng.choice(legal)


def _play(seed: int, hands: int, tiered: set[int] | None) -> tuple[list[dict], list[str]]:
    """A match with every claim window asked at once (``tiered`` None) or in tiers."""
    match = Match.new(seed, hands)
    losses: list[str] = []
    while not match.is_over:
        pending = dict(match.pending())
        if tiered is None or match.current.public.phase != CLAIMS:
            for seat, legal in pending.items():
                match.apply(seat, _policy(seed, match, seat, legal))
            continue
        before = len(match.events)
        tiers = ClaimTiers(pending, tiered)
        while not tiers.done:
            for seat, offered in tiers.asks().items():
                full = _policy(seed, match, seat, pending[seat])
                tiers.answer(seat, full if full in offered else PASS)
        assert len(match.events) == before  # nothing applied while asking
        decisions = tiers.decisions()
        for seat, lost_to in tiers.overridden().items():
            losses.append(f"{seat}:{decisions[seat]}>{lost_to}")
            if seat in tiered:  # an answered pung, kong or chow always applies
                assert tier_of(decisions[seat]) == WIN_TIER
        for seat, action in decisions.items():
            match.apply(seat, action)
    return [e.to_json() for e in match.events], losses


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_same_decisions_same_events_whatever_the_asking_order(seed: int) -> None:
    at_once, _ = _play(seed, 4, None)
    all_tiered, _ = _play(seed, 4, {0, 1, 2, 3})
    mixed, _ = _play(seed, 4, {seed % 4, (seed + 1) % 4})
    assert all_tiered == at_once
    assert mixed == at_once


def test_a_chow_asked_at_once_loses_to_a_tiered_pung_and_is_overridden() -> None:
    chow = Action.chow(1, 2)
    tiers = ClaimTiers({1: (chow, PASS), 3: (PUNG, PASS)}, tiered={3})
    assert tiers.asks() == {1: (chow, PASS), 3: (PUNG, PASS)}  # no win: the pung tier
    tiers.answer(3, PUNG)
    assert tiers.settled and not tiers.done  # seat 1 must still answer
    tiers.answer(1, chow)
    assert tiers.decisions() == {1: chow, 3: PUNG}
    assert tiers.overridden() == {1: 3}


def test_a_tiered_chow_is_asked_only_when_nobody_took_the_tile() -> None:
    chow = Action.chow(1, 2)
    claims = {1: (chow, PASS), 2: (WIN, PASS), 3: (PUNG, PASS)}
    tiers = ClaimTiers(claims, tiered={1, 2, 3})
    assert tiers.asks() == {2: (WIN, PASS)}
    tiers.answer(2, PASS)
    assert tiers.asks() == {3: (PUNG, PASS)}
    tiers.answer(3, PASS)
    assert tiers.asks() == {1: (chow, PASS)}
    tiers.answer(1, chow)
    assert tiers.done and tiers.taker == 1 and tiers.overridden() == {}
    again = ClaimTiers(claims, tiered={1, 2, 3})
    again.asks()
    again.answer(2, PASS)
    again.asks()
    again.answer(3, PUNG)
    assert again.done and again.asks() == {}
    assert again.decisions() == {1: PASS, 2: PASS, 3: PUNG}
