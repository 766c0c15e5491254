"""The observation encoding and the action mask, checked over many seeded hands.

* the mask equals the referee's legal actions for every agent at every step (zeros for
  an agent with nothing to decide), and equals what the seat's own mirror computes;
* the observation the environment gives (the fast :class:`Encoder` over the referee's
  live state) equals :func:`encode` of the view a live bot has (a mirror fed with the
  seat's projected events);
* an observation never depends on another seat's concealed tiles or the wall order:
  perturbing them leaves every observation of the seat unchanged, while the oracle
  encoding (which does include them) changes.
"""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

from protocol.events import project
from protocol.tiles import KIND_COUNT
from sdk.learn.action_space import N_ACTIONS, action_of, index_of, legal_mask
from sdk.learn.encoder import Encoder
from sdk.learn.encoding import (
    LAYOUT,
    OBS_SIZE,
    ORACLE_SIZE,
    encode,
    encode_oracle,
    section,
)
from sdk.learn.game import LearningGame
from sdk.mirror import Mirror
from sdk.view import GameView

HANDS = 2000
"""Hands played with every mask checked (about ten seconds)."""


def _random_hands(hands: int, seed: int, mirrored: bool = True):  # type: ignore[no-untyped-def]
    """Yield (game, mirrors) before every decision of ``hands`` seeded random hands
    (``mirrors`` empty unless ``mirrored``: one per seat, fed its projected events)."""
    rng = random.Random(seed)
    for n in range(hands):
        game = LearningGame(seed * 100_003 + n, 1, n % 4)
        mirrors = [Mirror(s) for s in range(4)] if mirrored else []
        _feed(mirrors, game.last_events)
        while not game.is_over:
            yield game, mirrors
            seat = game.next_seat()
            legal = game.legal(seat)
            game.play(seat, legal[rng.randrange(len(legal))])
            _feed(mirrors, game.last_events)


def _feed(mirrors: list[Mirror], events: list) -> None:  # type: ignore[type-arg]
    for event in events:
        for mirror in mirrors:
            seen = project(event, mirror.seat)
            if seen is not None:
                mirror.apply(seen)


def test_mask_is_the_referees_legal_actions_at_every_step() -> None:
    steps = claims_with_several = 0
    for game, _ in _random_hands(HANDS, seed=1, mirrored=False):
        pending = game.hand.pending()
        claims_with_several += len(pending) > 1
        for seat in range(4):
            mask = game.mask(seat)
            legal = pending.get(seat, ())
            expected = sorted(index_of(a) for a in legal)  # the referee's, as indices
            assert np.flatnonzero(mask).tolist() == expected, f"seat {seat}: {legal}"
        steps += 1
    assert steps > 50 * HANDS and claims_with_several > 0


def test_a_seats_own_mirror_gives_the_same_mask() -> None:
    asked = 0
    for game, mirrors in _random_hands(200, seed=4):
        for seat in game.pending_seats():
            assert (legal_mask(mirrors[seat].legal_actions()) == game.mask(seat)).all()
            asked += 1
    assert asked > 10_000


def test_environment_observation_equals_a_live_bots_encoding() -> None:
    checked = 0
    for game, mirrors in _random_hands(60, seed=2):
        for seat in range(4):
            fast = game.observe(seat)
            live = encode(mirrors[seat].window)  # what a bot over the network would compute
            assert fast.shape == (OBS_SIZE,) and fast.dtype == np.float32
            assert (fast == live).all(), _diff(fast, live)
            checked += 1
    assert checked > 12_000


def _diff(a: np.ndarray, b: np.ndarray) -> str:
    starts = {name: section(name) for name, _ in LAYOUT}
    bad = [n for n, s in starts.items() if not (a[s] == b[s]).all()]
    return f"sections differ: {bad}"


def _perturbed(game: LearningGame, seat: int, rng: random.Random) -> LearningGame:
    """A copy of ``game`` with the other seats' concealed tiles and the undrawn wall
    shuffled together and dealt back in the same numbers."""
    other = copy.deepcopy(game)
    hand = other.hand
    others = [s for s in range(4) if s != seat]
    pool = [k for s in others for k in range(KIND_COUNT) for _ in range(hand.owns[s].counts[k])]
    wall = hand.wall
    pool += list(wall.tiles[wall.front : wall.back])
    rng.shuffle(pool)
    for s in others:
        own = hand.owns[s]
        size = sum(own.counts)
        taken, pool = pool[:size], pool[size:]
        own.counts = [taken.count(k) for k in range(KIND_COUNT)]
        own.recount()
        if own.drawn is not None:
            own.drawn = taken[0]
    tiles = list(wall.tiles)
    tiles[wall.front : wall.back] = pool
    wall.tiles = tuple(tiles) if isinstance(wall.tiles, tuple) else type(wall.tiles)(tiles)
    other._bind()
    return other


def test_observation_never_depends_on_hidden_tiles() -> None:
    rng = random.Random(3)
    compared = oracle_changed = 0
    for game, _ in _random_hands(40, seed=3, mirrored=False):
        if rng.random() > 0.06:
            continue
        for seat in range(4):
            before = encode(game.views[seat])
            oracle_before = encode_oracle(game.hand, seat)
            after_game = _perturbed(game, seat, rng)
            assert (encode(after_game.views[seat]) == before).all()
            assert (after_game.observe(seat) == before).all()
            assert (after_game.mask(seat) == game.mask(seat)).all()
            oracle_after = encode_oracle(after_game.hand, seat)
            assert (oracle_after[:OBS_SIZE] == before).all()
            oracle_changed += not (oracle_after == oracle_before).all()
            compared += 1
    assert compared > 60
    assert oracle_changed > compared // 2  # the perturbation does change hidden tiles


def test_layout_is_fixed_and_documented() -> None:
    from pathlib import Path

    assert sum(size for _, size in LAYOUT) == OBS_SIZE
    assert ORACLE_SIZE == OBS_SIZE + 7 * KIND_COUNT
    doc = (Path(__file__).parent.parent / "docs" / "LEARNING.md").read_text()
    names = {name.rstrip("0123") for name, _ in LAYOUT}
    for name in names:
        assert f"`{name}" in doc, f"section {name} is not documented in docs/LEARNING.md"


def test_first_observation_of_the_dealer() -> None:
    game = LearningGame(seed=11, hands=1, first_dealer=2)
    x = game.observe(2)
    assert x[section("hand")].sum() == 17
    assert x[section("decision")].tolist() == [1.0, 0.0, 0.0]
    assert x[section("seat_wind")].tolist() == [1.0, 0.0, 0.0, 0.0]  # the dealer is East
    assert x[section("seat_0")][3] == 1.0 and x[section("seat_1")][3] == 0.0
    assert x[section("drawn")].sum() == 1.0
    other = game.observe(3)
    assert other[section("seat_wind")].tolist() == [0.0, 1.0, 0.0, 0.0]
    assert other[section("seat_3")][3] == 1.0  # the dealer sits three places after seat 3


@pytest.mark.parametrize("index", range(0, N_ACTIONS, 7))
def test_action_index_round_trip(index: int) -> None:
    assert index_of(action_of(index)) == index


def test_view_only_encoding_needs_no_referee() -> None:
    game = LearningGame(seed=5, hands=1)
    mirror = Mirror(1)
    _feed([mirror], game.last_events)
    assert (encode(GameView(mirror.view)) == game.observe(1)).all()


def test_incremental_encoder_equals_the_reference_when_seats_look_now_and_then() -> None:
    """The environments' :class:`Encoder` keeps each seat's last observation and writes
    what moved since: it must equal a from-scratch :func:`encode` (and the oracle
    :func:`encode_oracle`) whether a seat looks at every step or after many, across
    hand ends (scores, dealer and winds change) in matches of several hands."""
    rng = random.Random(8)
    plain = oracle = 0
    for n in range(40):
        game = LearningGame(n, hands=3, first_dealer=n % 4)
        look = rng.choice((0.1, 0.5, 1.0))  # how often a seat looks
        while not game.is_over:
            for seat in range(4):
                if rng.random() < look:
                    if rng.random() < 0.5:
                        fast, slow = game.observe(seat), encode(game.views[seat])
                        plain += 1
                    else:
                        fast, slow = game.observe_oracle(seat), encode_oracle(game.hand, seat)
                        oracle += 1
                    assert (fast == slow).all(), _diff(fast[:OBS_SIZE], slow[:OBS_SIZE])
            seat = game.next_seat()
            legal = game.legal(seat)
            game.play(seat, legal[rng.randrange(len(legal))])
    assert plain > 2_000 and oracle > 2_000


def test_incremental_encoder_follows_a_live_bots_mirror() -> None:
    """Fed a mirror's view (as a :class:`~sdk.learn.policy.PolicyBot` would be), the
    encoder equals :func:`encode` at every decision of the seat, across hands."""
    encoders = [Encoder() for _ in range(4)]  # one per bot, from hand to hand
    checked = 0
    for game, mirrors in _random_hands(30, seed=6):
        for seat in game.pending_seats():
            window = mirrors[seat].window
            assert (encoders[seat].encode(window) == encode(window)).all()
            checked += 1
    assert checked > 2_000


def test_encoder_copies_start_empty_and_outputs_are_not_shared() -> None:
    game = LearningGame(seed=4, hands=1)
    first = game.observe(0)
    first[:] = -1.0  # the caller owns what it got
    again = game.observe(0)
    assert (again == encode(game.views[0])).all()
    clone = copy.deepcopy(game)
    assert (clone.observe(0) == again).all()
    out = np.empty(OBS_SIZE, np.float32)
    assert game.observe(1, out) is out and (out == encode(game.views[1])).all()
