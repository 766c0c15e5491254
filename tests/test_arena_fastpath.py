"""The in-process fast path (live views, lighter budget policing) against the plain one.

``play_match(lazy_views=True)`` (the default, what the arena uses) gives a bot that does
not listen to events a view on the referee's own state of its seat, and feeds a
listener's mirror event by event; ``lazy_views=False`` feeds every mirror at every event,
the way the SDK did before. Both run here, in the same test, on the same seeds: the
events (byte for byte as JSON), scores, hand results, decision outcomes and everything a
listening bot observed must be identical.
"""

from __future__ import annotations

import copy
import json
import random
import time
from typing import Any

import pytest

from bots.defensive import DefensiveBot
from bots.greedy import GreedyBot
from bots.random import RandomBot
from protocol.actions import DISCARD, PASS, Action
from protocol.events import Event, HandResult
from protocol.hand_state import HandState
from protocol.match import rotations
from sdk.arena.deal import ArenaPlan, play_deal, seatings
from sdk.arena.loader import load_bot
from sdk.bot import Bot, DecisionRequest, MatchInfo
from sdk.budget import Budget
from sdk.local import MatchResult, play_match
from sdk.records import comparable_lines, parse_text
from sdk.view import GameView


class _Notes(Bot):
    """Notes what its view shows at each hand and match hook and at each decision
    (``_note`` says what to note); plays at random. It does not listen to events."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        self.rng = random.Random(seed)
        self.notes: list[str] = []

    def _note(self, what: str, view: GameView) -> None:
        raise NotImplementedError

    def _choice_note(self, view: GameView, request: DecisionRequest) -> str:
        return f"choose {request.drawn_tile}"

    def on_hand_start(self, view: GameView) -> None:
        self._note("hand start", view)

    def on_hand_end(self, view: GameView, result: HandResult) -> None:
        self._note(f"hand end {result.outcome}", view)

    def on_match_end(self, view: GameView, scores: tuple[int, ...]) -> None:
        self._note(f"match end {scores}", view)

    def choose(self, view: GameView, request: DecisionRequest) -> Action:
        self._note(self._choice_note(view, request), view)
        return self.rng.choice(request.legal_actions)


class Observer(_Notes):
    """Listens to every hook and notes what its view shows at each; plays at random, but
    reads its view first (so a lazy mirror must be caught up exactly then)."""

    name = "observer"

    def _note(self, what: str, view: GameView) -> None:
        self.notes.append(f"{what} {view.hand} {view.wall_left} {view.river(0)} {view.melds()}")

    def _choice_note(self, view: GameView, request: DecisionRequest) -> str:
        return f"choose {request.drawn_tile} {view.drawn_tile}"

    def on_match_start(self, info: MatchInfo) -> None:
        self.notes.append(f"start {info.seat}")

    def on_event(self, view: GameView, event: Event) -> None:
        self._note(json.dumps(event.to_json()), view)


class DrawnTileCheck(Bot):
    """Reads its view only on some decisions, and checks that the request's drawn tile
    (the referee's, on the fast path) is the mirror's."""

    name = "drawn-check"

    def __init__(self, seed: int) -> None:
        super().__init__()
        self.rng = random.Random(seed)

    def choose(self, view: GameView, request: DecisionRequest) -> Action:
        if self.rng.random() < 0.3:
            assert request.drawn_tile == view.drawn_tile
        return self.rng.choice(request.legal_actions)


class Reader(_Notes):
    """Does not listen (so the fast path gives it the referee's live state): notes all
    its view shows at each decision and at each hook, ``seat_view`` included."""

    name = "reader"

    def _note(self, what: str, view: GameView) -> None:
        seats = range(4)
        sv = view.seat_view
        self.notes.append(
            f"{what} {view.hand} {view.counts} {view.drawn_tile} {view.passed_win} "
            f"{[view.melds(s) for s in seats]} {[view.river(s) for s in seats]} "
            f"{[view.claimed_discards(s) for s in seats]} {[view.concealed_kongs(s) for s in seats]} "
            f"{[view.concealed_count(s) for s in seats]} {view.last_discard} {view.wall_left} "
            f"{view.first_go_round} {view.visible_counts()} {view.scores} {view.dealer} "
            f"{view.hand_number} {view.seat_wind()} {view.round_wind} {sv.public} {sv.own} "
            f"{view.seat_view.legal_actions()}"
        )


def _lineup(kind: str, seed: int) -> list[Bot]:
    if kind == "readers":
        return [Reader(seed + i) for i in range(3)] + [GreedyBot()]
    if kind == "mixed":
        return [GreedyBot(), DefensiveBot(), RandomBot(seed), Observer(seed + 1)]
    if kind == "observers":
        return [Observer(seed + i) for i in range(4)]
    return [DrawnTileCheck(seed + i) for i in range(4)]


def _play(kind: str, seed: int, seats: tuple[int, ...], lazy: bool) -> tuple[object, ...]:
    bots = _lineup(kind, seed)
    result = play_match(bots, seed=seed, hands=4, seats=seats, record_events=True, lazy_views=lazy)
    log = json.dumps([e.to_json() for e in result.events], separators=(",", ":"))
    notes = [getattr(b, "notes", None) for b in bots]
    outcomes = [dict(s.outcomes) for s in result.stats]
    hands = [r.to_json() for r in result.hand_results]
    return log, result.scores, hands, outcomes, notes


@pytest.mark.parametrize("kind", ["mixed", "observers", "drawn", "readers"])
def test_lazy_mirrors_play_exactly_like_eager_ones(kind: str) -> None:
    for seed, seats in ((1, (0, 1, 2, 3)), (2, (2, 3, 0, 1)), (3, (1, 0, 3, 2))):
        lazy = _play(kind, seed, seats, lazy=True)
        eager = _play(kind, seed, seats, lazy=False)
        assert lazy == eager


def _played(record: bytes | None) -> list[dict[str, Any]]:
    """A game record's lines without the timing fields (what was played)."""
    assert record is not None
    return comparable_lines(parse_text(record.decode()))


def test_arena_deals_are_identical_on_both_paths() -> None:
    """Whole duplicate deals through the arena's own worker function, logs included."""
    bots = tuple(
        load_bot(s) for s in ("bots.greedy", "bots.defensive", "bots.random", "bots.random")
    )
    plans = [
        ArenaPlan(
            bots,
            seed=11,
            match_hands=2,
            seatings=tuple(seatings(True)),
            records_every=1,
            lazy_views=lazy,
        )
        for lazy in (True, False)
    ]
    for deal in range(2):
        fast, plain = (play_deal(plan, deal) for plan in plans)
        assert [_played(m.record) for m in fast.matches] == [
            _played(m.record) for m in plain.matches
        ]
        assert [m.scores for m in fast.matches] == [m.scores for m in plain.matches]
        for a, b in zip(fast.matches, plain.matches, strict=True):
            for x, y in zip(a.players, b.players, strict=True):
                assert (x.points, x.wins, x.deal_ins, x.tai, x.outcomes) == (
                    y.points,
                    y.wins,
                    y.deal_ins,
                    y.tai,
                    y.outcomes,
                )
                assert x.timing.count == y.timing.count


def test_a_bot_cannot_change_the_referee_through_its_view() -> None:
    """``seat_view`` of the fast path is a copy: changing it changes nothing."""

    class Vandal(Bot):
        def choose(self, view: GameView, request: DecisionRequest) -> Action:
            sv = view.seat_view
            sv.own.counts[:] = [0] * 34
            sv.public.visible[:] = [4] * 34
            sv.public.wall_left = 0
            return request.legal_actions[0]

    vandals = play_match([Vandal(name=f"v{i}") for i in range(4)], seed=3, hands=2)
    first = [Bot.from_function(lambda v, r: r.legal_actions[0], name=f"f{i}") for i in range(4)]
    plain = play_match(first, seed=3, hands=2)
    assert vandals.scores == plain.scores
    assert [r.to_json() for r in vandals.hand_results] == [r.to_json() for r in plain.hand_results]


def test_strict_mode_still_checks_every_mirror() -> None:
    """Strict play feeds every mirror eagerly and checks it against the referee."""
    bots = [RandomBot(s) for s in range(4)]
    result = play_match(bots, seed=5, hands=2, strict=True)
    assert len(result.hand_results) == 2


def test_state_copies_are_whole_and_independent() -> None:
    """``PublicState.copy`` / ``OwnState.copy`` (what the fast path's ``seat_view``
    hands out) equal the state field for field and share no list with it."""
    hand = HandState.new(seed=9, dealer=1)
    rng = random.Random(9)
    while not hand.is_over:
        seat, legal = next(iter(hand.pending().items()))
        hand.apply(seat, rng.choice(legal))
        public, own = hand.public, hand.owns[seat]
        assert public.copy() == copy.deepcopy(public)
        assert own.copy() == copy.deepcopy(own)
    public, own = hand.public.copy(), hand.owns[0].copy()
    public.rivers[0].append(0)
    public.melds[1].append(None)  # type: ignore[arg-type]
    own.counts[0] += 1
    own.keys[0] += 1
    own.passed_pung.add(3)
    assert public != hand.public and own != hand.owns[0]
    assert hand.public.copy() == copy.deepcopy(hand.public)


class Unruly(Bot):
    """Plays at random but, on a seeded schedule, raises, answers an illegal action,
    answers from a coroutine (legal or not) or is late: every branch of the budget
    policy, on the table loop that polices answers itself (no listener, no hook)."""

    name = "unruly"

    def __init__(self, seed: int, late_at: frozenset[int] = frozenset(), raise_at: int = 0) -> None:
        super().__init__()
        self.rng = random.Random(seed)
        self.late_at = late_at
        self.raise_at = raise_at
        self.asked = 0

    def choose(self, view: GameView, request: DecisionRequest) -> Any:
        self.asked += 1
        roll = self.rng.random()
        legal = request.legal_actions
        if self.asked in self.late_at:
            time.sleep(request.time_left + 0.005)
        if roll < 0.03 or self.asked == self.raise_at:
            raise RuntimeError("unruly")
        if roll < 0.06:
            return PASS if PASS not in legal else DISCARD[0]  # not legal (or, rarely, legal)
        if roll < 0.09:
            return "discard 1m"
        if roll < 0.12:
            return self._later(self.rng.choice(legal))
        if roll < 0.14:
            return self._later(PASS if PASS not in legal else DISCARD[0])
        if roll < 0.15:
            return self._later(None, fail=True)
        return self.rng.choice(legal)

    async def _later(self, action: Action | None, fail: bool = False) -> Action | None:
        if fail:
            raise RuntimeError("unruly coroutine")
        return action


def _run_both(make: Any, seed: int, seats: tuple[int, ...], **options: Any) -> list[Any]:
    """The same match on the lazy loop and on the plain path: everything played, the
    record's lines without their timing fields, the outcomes and decision counts. The
    lazy loop also plays it without any log (no record, no events kept: the arena's
    usual table), which must give the same scores, results and outcomes."""
    out = []
    for lazy in (True, False):
        result = play_match(
            make(),
            seed=seed,
            hands=4,
            seats=seats,
            record_events=True,
            record=True,
            lazy_views=lazy,
            **options,
        )
        out.append(
            (
                json.dumps([e.to_json() for e in result.events], separators=(",", ":")),
                *_summary(result),
                _played(result.record_bytes),
            )
        )
    unlogged = play_match(make(), seed=seed, hands=4, seats=seats, **options)
    assert unlogged.events == [] and unlogged.record_bytes is None
    assert _summary(unlogged) == out[1][1:4]
    return out


def _summary(result: MatchResult) -> tuple[Any, ...]:
    """Scores, hand results and each player's outcomes (in order) and decision count."""
    stats = [(list(s.outcomes.items()), len(s.times)) for s in result.stats]
    return result.scores, [r.to_json() for r in result.hand_results], stats


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_the_lazy_loop_plays_like_the_plain_path(seed: int) -> None:
    """Tables with no listener and no hook take the lazy loop (answers policed in the
    loop, ``HandState.apply_legal``, ``Match.sync`` at each hand's end): events, scores,
    results, outcomes and records are those of the plain path."""
    seats = rotations()[seed % 4]
    lineups = [
        lambda: [RandomBot(seed + i) for i in range(4)],
        lambda: [GreedyBot(), RandomBot(seed), GreedyBot(), RandomBot(seed + 1)],
    ]
    for make in lineups:
        fast, plain = _run_both(make, seed, seats)
        assert fast == plain


def test_the_lazy_loop_polices_like_the_plain_path() -> None:
    """Raising, illegal, coroutine and late answers: the same fallbacks and outcomes on
    both paths (every kind occurs), with the same events and records."""
    budget = Budget(decision=0.05, safety_margin=0.0)

    def make() -> list[Bot]:
        late = frozenset({3, 40})
        return [Unruly(10, late), Unruly(11), Unruly(12, raise_at=1), Unruly(13)]

    fast, plain = _run_both(make, 5, (0, 1, 2, 3), budget=budget)
    assert fast == plain
    kinds = {kind for outcomes, _ in fast[3] for kind, _ in outcomes}
    assert kinds == {"ok", "error", "illegal", "late"}
    assert fast[3][2][0][0][0] == "error"  # its first answer raised: listed before "ok"
