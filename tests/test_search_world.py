"""The world sampler (sdk.search.world): consistency, uniformity, independence of the
hidden tiles, weights, and narrow errors on views that cannot be completed."""

from __future__ import annotations

import itertools
import random

import pytest
from search_views import decision_points, true_world

from protocol.hand_state import HandState
from protocol.tiles import KIND_COUNT
from protocol.wall import build_wall
from sdk.search import (
    InconsistentViewError,
    SamplingError,
    fork,
    sample_world,
    state_from_world,
)
from sdk.view import GameView


def test_sampled_worlds_keep_every_count_over_thousands_of_views() -> None:
    rng = random.Random(0)
    checked = 0
    for hand, seat in decision_points(40):
        view = hand.view(seat)
        pub = view.public
        world = sample_world(view, rng)
        assert world.counts[seat] == tuple(hand.owns[seat].counts)
        assert world.kongs[seat] == tuple(hand.owns[seat].concealed_kongs)
        assert len(world.wall) == pub.wall_left
        total = list(pub.visible)
        for t in world.wall:
            total[t] += 1
        for s in range(4):
            assert sum(world.counts[s]) == pub.concealed[s]
            assert len(world.kongs[s]) == pub.concealed_kongs[s]
            for k in range(KIND_COUNT):
                total[k] += world.counts[s][k]
            for k in world.kongs[s]:
                total[k] += 4
            if world.drawn[s] is not None:
                assert world.counts[s][world.drawn[s]] > 0
        assert total == [4] * KIND_COUNT
        checked += 1
    assert checked > 2000


def test_states_from_sampled_worlds_keep_the_rules_invariants() -> None:
    """The rebuilt referee state: 4 of every kind in play, the wall's ends where the
    view says, the same phase and turn, and the deciding seat's legal actions."""
    rng = random.Random(1)
    for hand, seat in itertools.islice(decision_points(30, first_seed=100), 0, None, 2):
        view = hand.view(seat)
        sim = state_from_world(view, sample_world(view, rng))
        assert sim.tiles_in_play() == [4] * KIND_COUNT
        assert sim.wall.remaining == hand.wall.remaining
        assert sim.wall.back == hand.wall.back  # kong replacements taken from the tail (R8)
        assert sim.public == hand.public
        assert sim.legal_actions(seat) == hand.legal_actions(seat)
        assert sim.owns[seat] == hand.owns[seat]  # its own R9 flags included


def test_the_true_world_continues_exactly_like_the_real_hand() -> None:
    """Built from the real hidden tiles, the state plays on exactly as the referee does
    (same pending seats, same events for the same decisions)."""
    rng = random.Random(2)
    for n, (hand, seat) in enumerate(decision_points(12, first_seed=300)):
        if n % 7 or hand._decisions:  # mid-window, others' answers are unknown to the seat
            continue
        sim = state_from_world(hand.view(seat), true_world(hand, seat))
        for s in range(4):  # other seats' R9 flags are private: a world leaves them clear
            sim.owns[s].passed_win = hand.owns[s].passed_win
            sim.owns[s].passed_pung = set(hand.owns[s].passed_pung)
        real = fork(hand)
        assert dict(sim.pending()) == dict(real.pending())
        while not real.is_over:
            for s, legal in list(real.pending().items()):
                action = legal[int(rng.random() * len(legal))]
                assert real.apply(s, action) == sim.apply(s, action)
        assert sim.result == real.result


def test_sampler_output_is_independent_of_the_true_hidden_tiles() -> None:
    """Two deals in which the dealer sees exactly the same but the other hands and the
    wall differ: the same rng seed gives the same samples."""
    mine = [0, 0, 1, 2, 3, 9, 10, 11, 18, 19, 20, 27, 27, 28, 31, 32, 33]
    rest = [k for k in range(KIND_COUNT) for _ in range(4)]
    for t in mine:
        rest.remove(t)
    other = rest[::-1]
    random.Random(5).shuffle(other)
    walls = [build_wall(0, [mine, r[:16], r[16:32], r[32:48]], draws=r[48:]) for r in (rest, other)]
    hands = [HandState.new(w, dealer=0) for w in walls]
    assert hands[0].owns[1].counts != hands[1].owns[1].counts
    views = [h.view(0) for h in hands]
    assert views[0] == views[1]
    for seed in range(20):
        a, b = (sample_world(v, random.Random(seed)) for v in views)
        assert a == b


def test_sampler_output_is_independent_of_hidden_tiles_mid_hand() -> None:
    """Mid-hand: a second state with the same view but other hidden tiles (itself built
    from a sampled world) gives identical samples for the same seed."""
    for hand, seat in itertools.islice(decision_points(6, first_seed=40), 20, None, 25):
        view = hand.view(seat)
        twin = state_from_world(view, sample_world(view, random.Random(99)))
        assert twin.view(seat) == view
        others = [s for s in range(4) if s != seat]
        assert any(twin.owns[s].counts != hand.owns[s].counts for s in others) or not any(
            view.public.concealed[s] for s in others
        )
        for seed in range(5):
            assert sample_world(view, random.Random(seed)) == sample_world(
                twin.view(seat), random.Random(seed)
            )


def test_sampling_is_uniform_over_the_unseen_tiles() -> None:
    """At the deal, each unseen copy is in seat 1's hand with probability 16/unseen."""
    view = HandState.new(seed=11, dealer=0).view(0)
    unseen = [4 - c for c in view.own.counts]
    total = sum(unseen)
    rng = random.Random(3)
    n = 3000
    held = [0] * KIND_COUNT
    for _ in range(n):
        world = sample_world(view, rng)
        for k in range(KIND_COUNT):
            held[k] += world.counts[1][k]
    for k in range(KIND_COUNT):
        expected = n * 16 * unseen[k] / total
        assert abs(held[k] - expected) < 5 * (expected**0.5) + 1, (k, held[k], expected)


def test_weight_function_shapes_the_samples() -> None:
    view = GameView(HandState.new(seed=12, dealer=0).view(0))
    rng = random.Random(4)
    calls = []

    def no_dragons_for_seat_2(world) -> float:
        calls.append(1)
        return 0.0 if any(world.counts[2][k] for k in (31, 32, 33)) else 1.0

    for _ in range(50):
        world = sample_world(view, rng, no_dragons_for_seat_2)
        assert not any(world.counts[2][k] for k in (31, 32, 33))
    assert len(calls) > 50  # some worlds were rejected
    with pytest.raises(SamplingError, match="kept none"):
        sample_world(view, rng, lambda w: 0.0, max_tries=20)


def test_inconsistent_views_raise_a_narrow_error() -> None:
    hand = HandState.new(seed=13, dealer=0)
    view = hand.view(1)
    first = next(k for k in range(KIND_COUNT) if view.own.counts[k])
    view.public.visible[first] = 4  # five of a kind seen
    with pytest.raises(InconsistentViewError, match="more than four"):
        sample_world(view, random.Random(0))
    view = hand.view(1)
    view.public.wall_left += 3  # tiles that are nowhere
    with pytest.raises(InconsistentViewError, match="unseen"):
        sample_world(view, random.Random(0))
    view = hand.view(1)
    view.public.concealed_kongs[2] = 30  # more hidden kongs than kinds left for them
    view.public.concealed[2] = 16 - 4 * 30
    with pytest.raises(InconsistentViewError):
        sample_world(view, random.Random(0))
    done = HandState.new(seed=13, dealer=0)
    while not done.is_over:
        for s, legal in list(done.pending().items()):
            done.apply(s, legal[0])
    with pytest.raises(InconsistentViewError, match="over"):
        sample_world(done.view(0), random.Random(0))
    assert issubclass(InconsistentViewError, ValueError)


def test_the_ready_model_builds_waiting_hands_and_keeps_every_count() -> None:
    """With ``ready`` = 1 for every other seat, each seat holding 3n+1 tiles gets a
    waiting hand (shanten 0); counts still add up to 4 of every kind; the output still
    depends only on the view (same seed, same world from a twin view)."""
    from protocol.analysis import shanten_counts

    rng = random.Random(7)
    waiting = checked = 0
    for hand, seat in itertools.islice(decision_points(12, first_seed=500), 0, None, 3):
        view = hand.view(seat)
        pub = view.public
        world = sample_world(view, rng, ready=[1.0] * 4)
        total = list(pub.visible)
        for t in world.wall:
            total[t] += 1
        for s in range(4):
            assert sum(world.counts[s]) == pub.concealed[s]
            for k in range(KIND_COUNT):
                total[k] += world.counts[s][k]
            for k in world.kongs[s]:
                total[k] += 4
            if s != seat and pub.concealed[s] % 3 == 1:
                waiting += shanten_counts(world.counts[s]) == 0
                checked += 1
        assert total == [4] * KIND_COUNT
        twin = state_from_world(view, sample_world(view, random.Random(1)))
        assert sample_world(view, random.Random(2), ready=[0.5] * 4) == sample_world(
            twin.view(seat), random.Random(2), ready=[0.5] * 4
        )
    assert checked > 100 and waiting >= 0.95 * checked
