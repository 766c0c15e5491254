"""Properties of the referee over thousands of random legal hands.

Bots pick among the legal actions (winning often, so that scoring and payments are
exercised); the checks are the invariants the rules imply: every tile accounted for,
every listed action applies and nothing else does, payments sum to zero, projections
hide what they must and rebuild each seat's view exactly, and replay is deterministic.
"""

from __future__ import annotations

import copy
import random

import pytest

from protocol.actions import (
    ADDED_KONG,
    CHOW,
    CONCEALED_KONG,
    DISCARD,
    KONG,
    PASS,
    PUNG,
    WIN,
    Action,
    ActionKind,
)
from protocol.events import ConcealedKong, Deal, Declined, Draw, event_from_json
from protocol.hand_state import HandState, IllegalActionError
from protocol.view import CLAIMS, SeatView

ALL_ACTIONS: tuple[Action, ...] = (
    WIN,
    KONG,
    PUNG,
    PASS,
    *DISCARD,
    *CONCEALED_KONG,
    *ADDED_KONG,
    *CHOW.values(),
)


def choose(rng: random.Random, legal: tuple[Action, ...]) -> Action:
    """Win most of the time when possible, otherwise uniform among the legal actions."""
    if legal[0] is WIN and rng.random() < 0.7:
        return WIN
    return rng.choice(legal)


def play(seed: int, on_step=None) -> tuple[HandState, list[tuple[int, Action]]]:
    """One random hand from the wall of ``seed``; returns it and its decisions."""
    rng = random.Random(seed * 7919 + 1)
    hand = HandState.new(seed=seed, dealer=seed % 4, round_wind=27 + (seed // 4) % 4)
    decisions = []
    while not hand.is_over:
        if on_step is not None:
            on_step(hand, rng)
        pending = hand.pending()
        seat = rng.choice(sorted(pending))
        action = choose(rng, pending[seat])
        decisions.append((seat, action))
        hand.apply(seat, action)
    return hand, decisions


def snapshot(hand: HandState) -> tuple:
    return (
        len(hand.events),
        copy.deepcopy(hand.public),
        copy.deepcopy(hand.owns),
        {s: a for s, a in hand.pending().items()},
        hand.wall.front,
        hand.wall.back,
    )


def test_tiles_accounted_and_payments_sum_to_zero() -> None:
    outcomes = set()
    for seed in range(1000):
        hand, _ = play(seed)
        assert hand.tiles_in_play() == [4] * 34
        result = hand.result
        assert result is not None
        assert sum(result.payments) == 0
        assert tuple(hand.public.scores) == result.payments
        if result.outcome == "win":
            assert result.score is not None and result.score["total_tai"] >= 0
            assert max(result.payments) == result.payments[result.winner]
        else:
            assert result.payments == (0, 0, 0, 0)
        outcomes.add(result.outcome)
    assert {"win", "exhaustive_draw"} <= outcomes


def test_tiles_accounted_at_every_step() -> None:
    def check(hand: HandState, rng: random.Random) -> None:
        assert hand.tiles_in_play() == [4] * 34
        assert sum(hand.public.concealed) == sum(sum(o.counts) for o in hand.owns)

    for seed in range(60):
        play(seed, check)


def test_every_listed_action_applies() -> None:
    def check(hand: HandState, rng: random.Random) -> None:
        if rng.random() > 0.1:
            return
        for seat, legal in hand.pending().items():
            for action in legal:
                trial = copy.deepcopy(hand)
                trial.apply(seat, action)  # must not raise

    for seed in range(25):
        play(seed, check)


def test_unlisted_actions_are_refused_and_change_nothing() -> None:
    def check(hand: HandState, rng: random.Random) -> None:
        if rng.random() > 0.15:
            return
        before = snapshot(hand)
        for _ in range(6):
            seat = rng.randrange(4)
            action = rng.choice(ALL_ACTIONS)
            if action in hand.pending().get(seat, ()):
                continue
            with pytest.raises(IllegalActionError) as info:
                hand.apply(seat, action)
            assert info.value.reason
            assert snapshot(hand) == before

    for seed in range(100):
        play(seed, check)


def test_views_rebuilt_from_projections_equal_the_referee_views() -> None:
    def check(hand: HandState, rng: random.Random) -> None:
        if rng.random() > 0.2:
            return
        for seat in range(4):
            view = SeatView.from_events(seat, hand.projected_events(seat))
            assert view == hand.view(seat)
            mirror = view.legal_actions()
            if seat in hand.pending():
                assert mirror == hand.pending()[seat]
            elif hand.public.phase != CLAIMS:
                assert mirror == ()

    for seed in range(80):
        hand, _ = play(seed, check)
        for seat in range(4):
            assert SeatView.from_events(seat, hand.projected_events(seat)) == hand.view(seat)


def test_projections_hold_no_hidden_tile() -> None:
    for seed in range(300):
        hand, _ = play(seed)
        for seat in range(4):
            for ev in hand.projected_events(seat):
                data = ev.to_json()
                assert event_from_json(data) == ev
                if ev.seat is None or ev.seat == seat:
                    continue
                assert not isinstance(ev, Declined)
                if isinstance(ev, Draw | ConcealedKong):
                    assert ev.tile is None and "tile" not in data
                if isinstance(ev, Deal):
                    assert ev.tiles is None and "tiles" not in data


def test_full_events_round_trip_through_json() -> None:
    for seed in range(100):
        hand, _ = play(seed)
        assert [event_from_json(e.to_json()) for e in hand.events] == hand.events


def test_replay_from_seed_and_decisions_is_identical() -> None:
    for seed in range(200):
        hand, decisions = play(seed)
        again = HandState.new(seed=seed, dealer=seed % 4, round_wind=27 + (seed // 4) % 4)
        for seat, action in decisions:
            again.apply(seat, Action.parse(str(action)))
        assert again.events == hand.events
        assert [e.to_json() for e in again.events] == [e.to_json() for e in hand.events]


def test_kongs_and_claims_happen_in_random_play() -> None:
    """The random games above do reach the interesting branches."""
    kinds = set()
    for seed in range(400):
        _, decisions = play(seed)
        kinds.update(a.kind for _, a in decisions)
    assert {
        ActionKind.WIN,
        ActionKind.CHOW,
        ActionKind.PUNG,
        ActionKind.KONG,
        ActionKind.CONCEALED_KONG,
        ActionKind.ADDED_KONG,
    } <= kinds
