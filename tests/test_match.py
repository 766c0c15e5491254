"""Matches (R16): hand plan, cumulative scores, per-hand walls from the match seed,
seat permutations for duplicate play, and a seat view following a whole match."""

from __future__ import annotations

import random

import pytest

from protocol.actions import PASS, WIN, ActionKind
from protocol.analysis import shanten_counts
from protocol.events import HandEnd, HandStart, MatchEnd
from protocol.hand_state import HandOverError, IllegalActionError, NotPendingError
from protocol.match import Match, hand_plan, rotations
from protocol.tiles import Tile
from protocol.view import SeatView
from protocol.wall import hand_seed, shuffled_wall


def greedy(match: Match, seat: int, legal: tuple) -> object:
    """Win when possible; pass on claims; otherwise discard what keeps shanten lowest."""
    if legal[0] is WIN:
        return WIN
    if legal[-1] is PASS:
        return PASS
    counts = match.current.owns[seat].counts
    best, best_shanten = legal[-1], 99
    for action in legal:
        if action.kind is ActionKind.DISCARD:
            counts[action.tile] -= 1
            value = shanten_counts(counts)
            counts[action.tile] += 1
            if value < best_shanten:
                best, best_shanten = action, value
    return best


def play_match(match: Match, seed: int) -> list:
    rng = random.Random(seed)
    decisions = []
    while not match.is_over:
        pending = match.pending()
        seat = rng.choice(sorted(pending))
        legal = pending[seat]
        action = greedy(match, seat, legal) if rng.random() < 0.9 else rng.choice(legal)
        decisions.append((seat, action))
        match.apply(seat, action)
    return decisions


def test_hand_plan_follows_r16() -> None:
    plan = [hand_plan(k) for k in range(16)]
    assert [d for d, _ in plan] == [0, 1, 2, 3] * 4
    assert [w for _, w in plan] == [Tile.E] * 4 + [Tile.S] * 4 + [Tile.W] * 4 + [Tile.N] * 4
    assert hand_plan(0, first_dealer=3) == (3, Tile.E)
    assert hand_plan(5, first_dealer=3) == (0, Tile.S)


def test_a_match_plays_sixteen_hands_with_cumulative_scores() -> None:
    match = Match.new(seed=2024)
    play_match(match, 1)
    starts = [e for e in match.events if isinstance(e, HandStart)]
    ends = [e for e in match.events if isinstance(e, HandEnd)]
    assert len(starts) == len(ends) == len(match.results) == 16
    assert [(s.hand, s.dealer, s.round_wind) for s in starts] == [
        (k, *hand_plan(k)) for k in range(16)
    ]
    running = [0, 0, 0, 0]
    for start, end in zip(starts, ends, strict=True):
        assert list(start.scores) == running
        running = [a + b for a, b in zip(running, end.result.payments, strict=True)]
        assert list(end.scores) == running
    assert isinstance(match.events[-1], MatchEnd)
    assert list(match.scores) == running and sum(running) == 0
    assert any(r.outcome == "win" for r in match.results)
    with pytest.raises(HandOverError):
        match.apply(0, WIN)


def test_walls_come_from_the_match_seed_and_hand_number() -> None:
    match = Match.new(seed=77, hands=3)
    assert match.wall(2) == shuffled_wall(hand_seed(77, 2))
    assert match.wall(0) != match.wall(1)
    assert Match.new(seed=77, hands=3).wall(1) == match.wall(1)
    assert Match.new(seed=78, hands=3).wall(1) != match.wall(1)


def test_replay_gives_identical_events() -> None:
    first = Match.new(seed=5, hands=4)
    decisions = play_match(first, 9)
    again = Match.new(seed=5, hands=4)
    for seat, action in decisions:
        again.apply(seat, action)
    assert again.events == first.events


def test_seat_permutation_redeals_the_same_walls() -> None:
    plain = Match.new(seed=11, hands=4)
    decisions = play_match(plain, 3)
    rotated = Match.new(seed=11, hands=4, seat_permutation=(1, 2, 3, 0))
    for seat, action in decisions:
        rotated.apply(seat, action)
    assert rotated.events == plain.events  # same walls, same seats, same decisions
    assert rotated.player_at(1) == 0 and rotated.player_at(0) == 3
    assert rotated.player_scores() == tuple(plain.scores[(p + 1) % 4] for p in range(4))
    assert rotations() == [(0, 1, 2, 3), (1, 2, 3, 0), (2, 3, 0, 1), (3, 0, 1, 2)]


def test_match_options_are_checked() -> None:
    with pytest.raises(ValueError):
        Match.new(seed=1, seat_permutation=(0, 0, 1, 2))
    with pytest.raises(ValueError):
        Match.new(seed=1, hands=0)
    with pytest.raises(ValueError):
        Match.new(seed=1, first_dealer=4)


def test_a_seat_view_follows_the_whole_match() -> None:
    match = Match.new(seed=31, hands=5, first_dealer=2)
    play_match(match, 4)
    for seat in range(4):
        events = match.projected_events(seat)
        assert isinstance(events[-1], MatchEnd)
        view = SeatView.from_events(seat, events[:-1])
        assert view == match.current.view(seat)  # the last hand, as the referee sees it
        assert view.public.hand == 4 and view.public.dealer == (2 + 4) % 4
        view.apply(events[-1])
        assert view.public.match_over and view.scores == list(match.scores)


def _first_pending_policy(match: Match, rng: random.Random) -> tuple[int, tuple, object]:
    seat, legal = next(iter(match.pending().items()))
    action = greedy(match, seat, legal) if rng.random() < 0.7 else rng.choice(legal)
    return seat, legal, action


@pytest.mark.parametrize("seed", range(6))
def test_trusted_steps_play_like_apply(seed: int) -> None:
    """The arena's way through a match (``HandState.next_pending``, ``apply_legal`` on
    the current hand, ``Match.sync`` at each hand's end; or ``Match.apply_legal`` per
    step) gives the events, results and scores of ``Match.apply``."""
    plain, direct, stepped = (Match.new(seed, hands=5, first_dealer=seed % 4) for _ in range(3))
    rngs = [random.Random(seed) for _ in range(3)]
    while not plain.is_over:
        seat, _, action = _first_pending_policy(plain, rngs[0])
        plain.apply(seat, action)
    while not direct.is_over:
        hand = direct.current
        item = hand.next_pending()
        while item is not None:
            seat, legal, action = _first_pending_policy(direct, rngs[1])
            assert (seat, legal) == item
            hand.apply_legal(seat, action, legal)  # type: ignore[arg-type]
            item = hand.next_pending()
        assert hand.is_over
        direct.sync()
    while not stepped.is_over:
        seat, legal, action = _first_pending_policy(stepped, rngs[2])
        stepped.apply_legal(seat, action, legal)  # type: ignore[arg-type]
    for match in (direct, stepped):
        assert [e.to_json() for e in match.events] == [e.to_json() for e in plain.events]
        assert match.results == plain.results and match.scores == plain.scores
        assert match.hand_no == plain.hand_no
    direct.sync()  # nothing left to take in: no change
    assert len(direct.events) == len(plain.events)


def test_trusted_steps_refuse_a_stale_legal_tuple() -> None:
    """``apply_legal`` trusts the caller's check of the action, not its tuple: a tuple
    that is not the seat's current one is refused and nothing changes."""
    match = Match.new(3, hands=1)
    hand = match.current
    seat, legal = hand.next_pending()  # type: ignore[misc]
    copy_of_legal = tuple(list(legal))  # equal, but not the referee's own tuple
    before = len(hand.events)
    with pytest.raises(IllegalActionError):
        hand.apply_legal(seat, legal[-1], copy_of_legal)
    with pytest.raises(NotPendingError):
        hand.apply_legal((seat + 1) % 4, legal[-1], legal)
    assert len(hand.events) == before
    match.apply_legal(seat, legal[-1], legal)
    with pytest.raises(IllegalActionError):  # the tuple of a decision already made
        hand.apply_legal(seat, legal[-1], legal)
    while not match.is_over:
        seat, legal = match.current.next_pending()  # type: ignore[misc]
        match.apply_legal(seat, legal[-1], legal)
    assert match.current.next_pending() is None
    with pytest.raises(HandOverError):
        match.apply_legal(seat, legal[-1], legal)


@pytest.mark.parametrize("seed", range(4))
def test_a_match_without_a_log_plays_the_same(seed: int) -> None:
    """``keep_events=False``: ``events`` holds only the current hand's events, while
    ``apply`` still returns every new event and results and scores are unchanged;
    driving it with ``HandState.apply_legal`` and ``sync`` works the same way."""
    full = Match.new(seed, hands=5)
    lean, direct = (Match.new(seed, hands=5, keep_events=False) for _ in range(2))
    rngs = [random.Random(seed) for _ in range(3)]
    returned = list(lean.events)
    while not full.is_over:
        seat, _, action = _first_pending_policy(full, rngs[0])
        full.apply(seat, action)
        seat, _, action = _first_pending_policy(lean, rngs[1])
        returned += lean.apply(seat, action)
        if not lean.is_over:
            assert lean.events == lean.current.events
    assert lean.is_over
    assert [e.to_json() for e in returned] == [e.to_json() for e in full.events]
    assert lean.events == [*lean.current.events, full.events[-1]]
    while not direct.is_over:
        hand = direct.current
        while hand.next_pending() is not None:
            seat, legal, action = _first_pending_policy(direct, rngs[2])
            hand.apply_legal(seat, action, legal)  # type: ignore[arg-type]
        direct.sync()
        assert direct.events[: len(direct.current.events)] == direct.current.events
    for match in (lean, direct):
        assert match.results == full.results and match.scores == full.scores
    assert isinstance(direct.events[-1], MatchEnd)
