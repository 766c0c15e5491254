"""Forks, playouts and policies (sdk.search.state / playout / policies): a playout from
a sampled world never breaks a rule, forks are independent, policies answer legally."""

from __future__ import annotations

import copy
import dataclasses
import itertools
import random

import pytest
from search_views import decision_points, true_world

from bots.defensive import DefensiveBot
from bots.random import RandomBot
from protocol.actions import WIN as WIN_ACTION
from protocol.actions import Action
from protocol.events import Draw, HandStart, project_all
from protocol.hand_state import HandState, IllegalActionError
from protocol.rules import legal_actions
from protocol.tiles import KIND_COUNT
from protocol.view import CLAIMS, OwnState, PublicState
from sdk.search import (
    bot_policy,
    efficiency_policy,
    fork,
    lite_policy,
    playout,
    random_policy,
    sample_world,
    state_from_world,
)


def checked(policy):
    """The policy, asserting the rules invariants at every decision it is asked."""

    def check(state: HandState, seat: int, legal: tuple[Action, ...], rng: random.Random) -> Action:
        pub = state.public
        assert state.tiles_in_play() == [4] * KIND_COUNT
        assert pub.wall_left == state.wall.remaining
        assert pub.concealed[seat] == sum(state.owns[seat].counts)
        if pub.phase != CLAIMS or not state._decisions:
            assert legal == legal_actions(state.owns[seat], pub)  # the rules function
        action = policy(state, seat, legal, rng)
        assert action in legal
        return action

    return check


@pytest.mark.parametrize("policy", [random_policy, lite_policy, efficiency_policy])
def test_playouts_from_sampled_worlds_never_break_a_rule(policy) -> None:
    rng = random.Random(5)
    played = 0
    for hand, seat in itertools.islice(decision_points(8, first_seed=500), 0, None, 9):
        view = hand.view(seat)
        state = state_from_world(view, sample_world(view, rng))
        first = state.legal_actions(seat)
        if first:
            state.apply(seat, first[int(rng.random() * len(first))])
        out = playout(state, [checked(policy)] * 4, rng)
        assert state.is_over and out.result == state.result
        assert sum(out.points) == 0
        assert state.tiles_in_play() == [4] * KIND_COUNT
        assert state.public.drawable >= -1  # only an added kong on the last tile dips (R2)
        played += 1
    assert played > 30


def test_fork_is_independent_and_complete() -> None:
    rng = random.Random(6)
    for hand, _seat in itertools.islice(decision_points(4, first_seed=600), 0, None, 11):
        before = copy.deepcopy((hand.public, hand.owns, hand.wall.front, hand.wall.back))
        copy_ = fork(hand)
        assert copy_.public == hand.public and copy_.owns == hand.owns
        assert dict(copy_.pending()) == dict(hand.pending())
        playout(copy_, [random_policy] * 4, rng)
        assert (hand.public, hand.owns, hand.wall.front, hand.wall.back) == before


def test_fork_copies_every_field_of_the_states() -> None:
    """A field added to PublicState or OwnState must be copied by fork too."""
    hand = next(h for h, _ in itertools.islice(decision_points(1, first_seed=7), 30, None))
    copy_ = fork(hand)
    for cls, a, b in (
        (PublicState, copy_.public, hand.public),
        (OwnState, copy_.owns[0], hand.owns[0]),
    ):
        for f in dataclasses.fields(cls):
            assert getattr(a, f.name) == getattr(b, f.name), f.name
    assert copy_.public.rivers is not hand.public.rivers
    assert copy_.public.melds[0] is not hand.public.melds[0]
    assert copy_.owns[0].counts is not hand.owns[0].counts


def test_bot_policy_plays_a_sample_bot_and_refuses_illegal_answers() -> None:
    rng = random.Random(7)
    hand = HandState.new(seed=8, dealer=1)
    out = playout(hand, [bot_policy(DefensiveBot())] + [lite_policy] * 3, rng)
    assert sum(out.points) == 0 and out.steps > 10

    class Stubborn(DefensiveBot):
        def choose(self, view, request):
            return Action.parse("pung")

    with pytest.raises(ValueError, match="not one of its legal actions"):
        playout(HandState.new(seed=8, dealer=1), [bot_policy(Stubborn())] * 4, rng)


class Listener(DefensiveBot):
    """Defensive that also keeps every event it hears."""

    def __init__(self) -> None:
        super().__init__()
        self.heard: list = []

    def on_event(self, view, event) -> None:
        super().on_event(view, event)
        self.heard.append(event)


def test_a_listening_bot_hears_the_hand_as_its_seat_sees_it_once_each() -> None:
    bot = Listener()
    policy = bot_policy(bot)
    hand = HandState.new(seed=12, dealer=2)
    playout(hand, [lite_policy, policy, lite_policy, lite_policy], random.Random(3))
    seen = project_all(hand.events, 1)
    assert len(bot.heard) > 40
    assert bot.heard == seen[: len(bot.heard)]  # in order, each once, then the rest unheard
    assert all(e.tile is None for e in bot.heard if isinstance(e, Draw) and e.seat != 1)
    # on another state the same policy starts over: a fork replays the hand so far
    start, rng = HandState.new(seed=13, dealer=0), random.Random(0)
    for _ in range(30):
        seat, legal = next(iter(start.pending().items()))
        start.apply(seat, lite_policy(start, seat, legal, rng))
    bot.heard.clear()
    playout(fork(start), [lite_policy, policy, lite_policy, lite_policy], random.Random(4))
    assert bot.heard[: len(project_all(start.events, 1))] == project_all(start.events, 1)
    assert sum(isinstance(e, HandStart) for e in bot.heard) == 1


def test_the_random_bot_picks_exactly_as_random_policy_does() -> None:
    bot = RandomBot()
    bot.rng = random.Random(9)
    by_bot, by_policy = HandState.new(seed=3, dealer=1), HandState.new(seed=3, dealer=1)
    playout(by_bot, [bot_policy(bot)] * 4, random.Random(0))
    playout(by_policy, [random_policy] * 4, random.Random(9))
    assert len(by_bot.events) > 50 and by_bot.events == by_policy.events


def test_a_bot_policy_can_be_told_not_to_listen() -> None:
    bot = Listener()
    playout(HandState.new(seed=12, dealer=2), [bot_policy(bot, listen=False)] * 4, random.Random(3))
    assert bot.heard == []


def test_an_illegal_policy_answer_raises_and_changes_nothing() -> None:
    hand = HandState.new(seed=9, dealer=0)
    events = list(hand.events)
    with pytest.raises(IllegalActionError):
        playout(hand, [lambda s, seat, legal, rng: Action.parse("pass")] * 4, random.Random(0))
    assert hand.legal_actions(0) and hand.events == events


def test_search_keeps_the_reference_unless_another_is_clearly_better() -> None:
    from sdk.search import CandidateStats, SearchStats

    ref, a, b = (Action.parse(t) for t in ("discard 1m", "discard 2m", "discard 3m"))
    stats = SearchStats([CandidateStats(ref, 4), CandidateStats(a, 4), CandidateStats(b, 4)])
    for p in (1000, 0, 1000, 0):  # a: +500 on average, but noisy
        stats.candidates[1].diff += p
        stats.candidates[1].diff_sq += p * p
    assert stats.best(confidence=2.0) == ref
    assert stats.best(confidence=1.0) == a
    for p in (600, 500, 700, 600):  # b: +600, consistently
        stats.candidates[2].diff += p
        stats.candidates[2].diff_sq += p * p
    assert stats.best(confidence=2.0) == b


def test_a_sampler_of_ones_own_replaces_sample_world_for_every_sample() -> None:
    from sdk.search import search

    hand = HandState.new(seed=21, dealer=0)
    view, legal = hand.view(0), hand.legal_actions(0)[:3]
    asked = []

    def sampler(sv, rng):  # sample_world itself, through the hook
        asked.append(sv)
        return sample_world(sv, rng)

    hooked = search(view, legal, random.Random(5), samples=6, sampler=sampler)
    plain = search(view, legal, random.Random(5), samples=6)
    assert asked == [view] * 6
    assert [(c.total, c.diff_sq) for c in hooked.candidates] == [
        (c.total, c.diff_sq) for c in plain.candidates
    ]
    truth = search(
        view, legal, random.Random(5), samples=6, sampler=lambda sv, rng: true_world(hand, 0)
    )
    assert [(c.total, c.diff_sq) for c in truth.candidates] != [
        (c.total, c.diff_sq) for c in plain.candidates
    ]
    with pytest.raises(ValueError, match="not both"):
        search(view, legal, random.Random(5), samples=1, sampler=sampler, ready=[0.5] * 4)


def test_the_inline_random_playout_plays_exactly_like_the_random_policy() -> None:
    """``playout`` runs uniform-random seats inline; a wrapped policy takes the generic
    loop: the same seed must give the same hand, step by step."""

    def wrapped(state: HandState, seat: int, legal: tuple, rng: random.Random):  # type: ignore[no-untyped-def]
        return random_policy(state, seat, legal, rng)

    for seed in range(6):
        fast = playout(HandState.new(seed=seed, dealer=0), [random_policy] * 4, random.Random(seed))
        slow = playout(HandState.new(seed=seed, dealer=0), [wrapped] * 4, random.Random(seed))
        assert (fast.steps, fast.result) == (slow.steps, slow.result)


def test_guard_policy_folds_against_shown_sets() -> None:
    """Against a seat showing three sets (two late), guard throws a kind in that seat's
    river whenever it may; otherwise it discards like lite."""
    from protocol.actions import ActionKind
    from protocol.wall import RESERVED
    from sdk.search import guard_policy
    from sdk.search.policies import GUARD_DRAWABLE

    rng = random.Random(0)
    folded = plain = 0
    for hand, seat in decision_points(60, first_seed=1200):
        legal = hand.legal_actions(seat)
        if WIN_ACTION in legal or legal[-1].kind == "pass":
            continue
        pub = hand.public
        need = 2 if pub.wall_left - RESERVED < GUARD_DRAWABLE else 3
        threats = [
            s for s in range(4) if s != seat and len(pub.melds[s]) + pub.concealed_kongs[s] >= need
        ]
        action = guard_policy(hand, seat, legal, rng)
        assert action in legal
        if not threats:
            assert action == lite_policy(hand, seat, legal, rng)
            plain += 1
            continue
        safe = [
            a.tile for a in legal
            if a.kind is ActionKind.DISCARD and all(a.tile in pub.rivers[s] for s in threats)
        ]  # fmt: skip
        if safe:
            assert action.tile in safe or (action.tile >= 27 and pub.visible[action.tile] >= 1)
            folded += 1
    assert folded > 20 and plain > 100
