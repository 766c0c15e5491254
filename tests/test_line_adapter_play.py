"""Whole hands through the line protocol: referee ↔ server seats ↔ client adapters.

The client adapters only see lines, yet the events they rebuild must be the referee's
projection for their seat, their legal actions must be exactly the referee's, and every
decision must arrive at the referee unchanged. The line protocol carries no scores, so
the ``hand_end`` events (result, tai breakdown, scores) and the scores of ``hand_start``
and ``match_end`` are the seat's own scoring of what it saw
(:mod:`protocol.line.hand_end`): they must be the referee's too, except after another
seat's win with concealed kongs, whose kinds ``/hu`` does not list.
"""

from __future__ import annotations

import logging
import random

import pytest

from protocol.actions import PASS, Action, ActionKind
from protocol.analysis import shanten_counts
from protocol.events import Event, HandEnd, HandStart, MatchEnd, Win
from protocol.line.adapter import Decided, LineClientAdapter, LineTable, NextAsk
from protocol.line.codec import parse_referee_line
from protocol.line.tile_ids import tile_id
from protocol.match import Match
from protocol.melds import MeldKind
from protocol.wire.common import ActionRequest, SessionEnd, SessionStart


def _normal(ev: Event, seat: int, scored: bool) -> object:
    if isinstance(ev, HandStart) and not scored:
        return ("hand_start", ev.hand, ev.dealer, ev.round_wind)
    if isinstance(ev, Win) and ev.seat != seat:  # others' concealed kongs stay hidden
        melds = tuple(m for m in ev.melds if m.kind is not MeldKind.CONCEALED_KONG)
        return Win(ev.seat, ev.tile, ev.from_seat, ev.hand, melds)
    return ev


class Harness:
    def __init__(
        self, seed: int, dealer: int, rng: random.Random, hands: int = 2, long_hu: bool = False
    ) -> None:
        self.match = Match.new(seed, hands, first_dealer=dealer)
        self.table = LineTable()
        self.seats = [self.table.add_seat(s, f"bot{s + 1}") for s in range(4)]
        self.clients = [LineClientAdapter() for _ in range(4)]
        self.seen: list[list[Event]] = [[], [], [], []]
        self.rng = rng
        self.lines = 0
        self.ended = [False] * 4
        self.scored = 0
        self.long_hu = long_hu
        """Write ``/hu`` with the winner's declared sets too (a form a referee may use)."""
        """Seats whose hand ends were all compared with the referee's."""
        for s in range(4):
            (start,) = self._deliver(s, self.seats[s].start_line())
            assert start == SessionStart(s, f"bot{s + 1}")
        self._feed(self.match.events)

    def _deliver(self, seat: int, line: str) -> list[object]:
        parse_referee_line(line)  # every line the server writes is valid
        self.lines += 1
        items = self.clients[seat].receive_line(line)
        self.seen[seat].extend(i for i in items if isinstance(i, Event))
        self.ended[seat] |= any(isinstance(i, SessionEnd) for i in items)
        return items

    def _feed(self, events: list[Event]) -> None:
        for ev in events:
            for seat, lines in self.table.feed(ev).items():
                if self.long_hu and isinstance(ev, Win):
                    lines = [_with_sets(line, ev) for line in lines]
                for line in lines:
                    assert not [
                        i for i in self._deliver(seat, line) if isinstance(i, ActionRequest)
                    ]

    def decide(self, seat: int, legal: tuple[Action, ...]) -> Action:
        pub = self.match.current.public
        claim_tile = pub.pending_tile if PASS in legal else None
        line = self.seats[seat].request(legal, claim_tile)
        chosen = None
        while True:
            items = self._deliver(seat, line)
            requests = [i for i in items if isinstance(i, ActionRequest)]
            if requests:
                assert chosen is None and requests[0].legal == legal
                chosen = self.choose(seat, legal)
                reply = self.clients[seat].send_action(chosen)
            else:
                (reply,) = self.clients[seat].lines_to_send()
            step = self.seats[seat].receive_line(reply)
            if isinstance(step, Decided):
                assert step.action is chosen
                return step.action
            assert isinstance(step, NextAsk)
            line = step.line

    def choose(self, seat: int, legal: tuple[Action, ...]) -> Action:
        """Random play, or (for half of the seats) a greedy player that wins, kongs and
        punges when it can and otherwise discards to the lowest shanten."""
        if seat % 2 == 0:
            return self.rng.choice(legal)
        view = self.clients[seat].view
        assert view is not None
        for a in legal:
            if a.kind is not ActionKind.DISCARD and a.kind is not ActionKind.CHOW:
                return a
        discards = [a for a in legal if a.kind is ActionKind.DISCARD]
        if not discards:
            return legal[0]
        counts = list(view.own.counts)

        def after(a: Action) -> int:
            counts[a.tile] -= 1  # type: ignore[index]
            value = shanten_counts(counts)
            counts[a.tile] += 1  # type: ignore[index]
            return value

        return min(discards, key=lambda a: (after(a), self.rng.random()))

    def play(self) -> None:
        while not self.match.is_over:
            for seat, legal in list(self.match.pending().items()):
                action = self.decide(seat, legal)
                self._feed(self.match.apply(seat, action))
        assert self.ended == [True] * 4
        for seat in range(4):
            events = self.match.projected_events(seat)
            scored = self.long_hu or not _hidden_kong_win(events, seat)
            self.scored += scored
            compared = [
                [_normal(e, seat, scored) for e in seen if scored or not isinstance(e, _SCORED)]
                for seen in (self.seen[seat], events)
            ]
            assert compared[0] == compared[1]
            assert self.clients[seat].view.legal_actions() == ()  # type: ignore[union-attr]
            if scored:
                assert self.clients[seat].keeper.scores == self.match.scores


def _with_sets(line: str, win: Win) -> str:
    """``/hu`` followed by the ids of the winner's declared sets, concealed kongs too."""
    if not line.startswith("/hu "):
        return line
    kinds = [k for meld in win.melds for k in meld.tiles]
    return " ".join([line, *(str(tile_id(k, i % 4)) for i, k in enumerate(kinds))])


_SCORED = (HandEnd, MatchEnd)
"""Events left out of the comparison after a win that cannot be scored."""


def _hidden_kong_win(events: list[Event], seat: int) -> bool:
    """Whether another seat won holding concealed kongs (not listed by /hu)."""
    return any(
        isinstance(e, Win)
        and e.seat != seat
        and any(m.kind is MeldKind.CONCEALED_KONG for m in e.melds)
        for e in events
    )


@pytest.mark.parametrize("seed", range(40))
def test_random_hands_agree_with_the_referee(seed: int) -> None:
    harness = Harness(seed, seed % 4, random.Random(seed))
    harness.play()
    assert harness.lines > 120
    assert harness.scored >= 1  # the winner of a hidden-kong hand scores it itself


def test_a_hu_listing_the_declared_sets_lets_every_seat_score_every_hand(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # seed 23: a seat wins holding a concealed kong; with the short /hu the three others
    # cannot score that hand (and say so), with the sets listed they all can
    with caplog.at_level(logging.WARNING, "protocol.line.hand_end"):
        short = Harness(23, 3, random.Random(23))
        short.play()
    assert short.scored == 1
    unscored = [r.getMessage() for r in caplog.records]
    assert (
        unscored
        == [
            "line protocol: seat 4 won with concealed kongs /hu does not list; "
            "hand 1 is not scored and the scores leave it out"
        ]
        * 3
    )
    caplog.clear()
    listed = Harness(23, 3, random.Random(23), long_hu=True)
    listed.play()
    assert listed.scored == 4
    assert all(client.keeper.scores == listed.match.scores for client in listed.clients)
    assert not caplog.records


def test_clients_rebuild_the_referees_hands_and_tile_ids() -> None:
    harness = Harness(7, 2, random.Random(3), hands=1)
    checked = 0
    original = harness._feed

    def feed_and_compare(events: list[Event]) -> None:
        nonlocal checked
        original(events)
        if not harness.match.is_over:
            for seat in range(4):
                assert sorted(harness.clients[seat].hand_ids) == sorted(
                    harness.table.tracker.hands[seat]
                )
                checked += 1

    harness._feed = feed_and_compare  # type: ignore[method-assign]
    harness.play()
    assert checked > 40
