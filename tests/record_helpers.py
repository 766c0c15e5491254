"""Play seeded matches straight on the referee and record them, and check rebuilt views
against the referee's (importable as ``record_helpers`` from the tests folder)."""

from __future__ import annotations

import random

from protocol.actions import PASS, WIN, Action, ActionKind
from protocol.defaults import default_action
from protocol.hand_state import HandState
from protocol.match import Match
from sdk.records import Decision, Header, Outcome, Record, SeatInfo, build_record, iter_views


def _choose(rng: random.Random, legal: tuple[Action, ...]) -> Action:
    """Win when possible, claim a third of the time, otherwise a random legal action."""
    if WIN in legal:
        return WIN
    if PASS in legal:
        claims = [a for a in legal if a is not PASS]
        return rng.choice(claims) if claims and rng.random() < 0.33 else PASS
    return rng.choice(legal)


def play_recorded(seed: int, hands: int = 4) -> Record:
    """Play a match of ``hands`` hands with a seeded random policy and record it; about
    one discard in fifty is "late" (the R17 default is applied instead)."""
    rng = random.Random(seed)
    match = Match.new(seed, hands)
    decisions: list[Decision] = []
    while not match.is_over:
        hand = match.current
        seat, legal = next(iter(match.pending().items()))
        answer = _choose(rng, legal)
        applied, outcome, ms = answer, Outcome.OK, round(rng.uniform(0.1, 5.0), 3)
        if answer.kind is ActionKind.DISCARD and rng.random() < 0.02:
            applied, outcome, ms = (
                default_action(legal, hand.drawn_tile(seat)),
                Outcome.LATE,
                2800.0,
            )
        decisions.append(
            Decision(match.hand_no, seat, len(match.events), legal, answer, applied, outcome, ms)
        )
        match.apply(seat, applied)
    seats = tuple(SeatInfo(s, s, f"policy{s}") for s in range(4))
    header = Header(seed, hands, seats)
    return build_record(header, match.events, decisions, status="finished")


def check_views_against_referee(record: Record) -> int:
    """Replay ``record``'s decisions on a fresh referee and compare the views rebuilt
    from the record (:func:`sdk.records.iter_views`) with the referee's own state at
    every decision point and every hand end; return how many steps were compared."""
    match = Match.new(record.header.seed, record.header.hands)
    steps = iter_views(record)
    step, views = next(steps)
    compared = 0

    def compare(hand: HandState, at: int) -> None:
        nonlocal step, views, compared
        while step < at:
            step, views = next(steps)
        for seat in range(4):
            assert views[seat].public == hand.public, f"step {at}: public state of seat {seat}"
            assert views[seat].own == hand.owns[seat], f"step {at}: own state of seat {seat}"
        compared += 1

    for d in record.decisions:
        hand = match.current
        compare(hand, len(match.events))
        match.apply(d.seat, d.applied)
        if hand.is_over:  # the step right after this hand's hand_end
            compare(hand, len(match.events) - (1 if match.is_over else len(match.current.events)))
    return compared
