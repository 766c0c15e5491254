"""The fast path of in-process records (:mod:`sdk.records.stream`): byte for byte the
reference encoding (each line ``dumps(value.to_json())``) for the same decisions, the
same record to replay, and no record work at all when records are off."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from arena_bots import Illegal, Raising
from hypothesis import given
from hypothesis import strategies as st
from record_helpers import check_views_against_referee

import sdk.local
from bots.greedy import GreedyBot
from bots.random import RandomBot
from protocol.actions import PASS, WIN, Action, ActionKind
from protocol.defaults import default_action
from protocol.events import Discard, Draw, event_from_json
from protocol.hand_state import DISCARDS, DRAWS
from protocol.match import Match
from protocol.tiles import Tile
from sdk.arena import run_arena
from sdk.records import (
    Decision,
    Header,
    Outcome,
    SeatInfo,
    Timing,
    build_record,
    encode_record,
    iter_views,
    parse_text,
    verify_record,
)
from sdk.records.stream import RecordStream, micros, micros_text
from sdk.records.writer import dumps

FALLBACKS = (Outcome.LATE, Outcome.ERROR, Outcome.ILLEGAL)


def _answer(rng: random.Random, legal: tuple[Action, ...]) -> Action:
    """A claim half the time it may (so claims often lose to higher ones, R5)."""
    if WIN in legal and rng.random() < 0.7:
        return WIN
    if PASS in legal:
        claims = [a for a in legal if a is not PASS]
        return rng.choice(claims) if claims and rng.random() < 0.5 else PASS
    return rng.choice(legal)


def _settle(rng: random.Random, legal: tuple[Action, ...], drawn: object) -> tuple:
    """(answer, applied, outcome, seconds): mostly ``ok``, some fallbacks of each kind
    (with the answer or without one), times from microseconds to seconds."""
    answer = _answer(rng, legal)
    seconds = rng.choice((rng.uniform(0, 0.002), rng.uniform(0, 0.5), rng.uniform(0, 5000)))
    if rng.random() < 0.05:
        outcome = rng.choice(FALLBACKS)
        applied = default_action(legal, drawn)  # type: ignore[arg-type]
        return (None if outcome is Outcome.ERROR else answer), applied, outcome, seconds
    return answer, answer, Outcome.OK, seconds


def _played(seed: int, hands: int, flush_at_random: bool) -> tuple[bytes, bytes, Header]:
    """A match straight on the referee, recorded twice from the same decisions: through
    a :class:`RecordStream` (flushed at each new hand, or also at random moments, even
    inside a claim window) and through the reference ``build_record``."""
    rng = random.Random(seed)
    match = Match.new(seed, hands)
    names = ("甲 bot", "b", "c", "d")  # a non-ASCII name: the header line
    header = Header(
        seed,
        hands,
        tuple(SeatInfo(s, s, names[s], "1.0") for s in range(4)),
        timing=Timing(3.0, 0.2, 1_764_559_000.125),
    )
    stream = RecordStream(header, match.events)
    decisions = []
    seen = None
    while not match.is_over:
        hand = match.current
        if hand is not seen or (flush_at_random and rng.random() < 0.1):
            stream.flush()
            seen = hand
        seat, legal = next(iter(match.pending().items()))
        answer, applied, outcome, seconds = _settle(rng, legal, hand.drawn_tile(seat))
        stream.asked.append((seat, len(match.events), legal))
        stream.settled.append((answer, applied, outcome, seconds))
        decisions.append(
            Decision(
                match.hand_no,
                seat,
                len(match.events),
                legal,
                answer,
                applied,
                outcome,
                micros(seconds) / 1000,
            )
        )
        match.apply(seat, applied)
    fast = stream.finish("finished", 1_764_559_123.5)
    reference = build_record(
        header, match.events, decisions, status="finished", ended_at=1_764_559_123.5
    )
    return fast, encode_record(reference).encode(), header


@pytest.mark.parametrize("flush_at_random", [False, True])
def test_the_fast_encoding_is_byte_identical_to_the_reference(flush_at_random: bool) -> None:
    outcomes: set[str] = set()
    for seed in range(12):
        fast, reference, _ = _played(seed, 4, flush_at_random)
        assert fast == reference
        record = parse_text(fast.decode())
        outcomes.update(d.outcome.value for d in record.decisions)
    assert outcomes >= {"ok", "overridden", "late", "error", "illegal"}


def test_fast_and_reference_records_replay_identically() -> None:
    fast, reference, _ = _played(5, 4, flush_at_random=True)
    a, b = parse_text(fast.decode()), parse_text(reference.decode())
    assert a == b
    verify_record(a)
    for (step_a, views_a), (step_b, views_b) in zip(iter_views(a), iter_views(b), strict=True):
        assert step_a == step_b and views_a == views_b


def test_a_stream_of_a_match_still_running_has_no_result_line() -> None:
    match = Match.new(3, 2)
    header = Header(3, 2, tuple(SeatInfo(s, s, "b") for s in range(4)))
    stream = RecordStream(header, match.events)
    for _ in range(30):
        seat, legal = next(iter(match.pending().items()))
        stream.asked.append((seat, len(match.events), legal))
        stream.settled.append((legal[0], legal[0], Outcome.OK, 0.001))
        match.apply(seat, legal[0])
    stream.asked.append((0, len(match.events), (PASS,)))  # asked, its effects not yet seen
    stream.settled.append((PASS, PASS, Outcome.OK, 0.0))
    text = stream.finish(None).decode()
    assert '"type":"result"' not in text
    record = parse_text(text, partial=True)
    assert record.decisions[-1].after_event == len(match.events)


@given(st.integers(min_value=0, max_value=10**13))
def test_milliseconds_are_written_as_json_writes_the_float(us: int) -> None:
    assert micros_text(us) == dumps(round(us / 1000, 3)) == dumps(us / 1000)


@pytest.mark.parametrize(
    "bots",
    [
        lambda: [RandomBot(seed=s) for s in range(4)],
        lambda: [GreedyBot() for _ in range(4)],
        lambda: [Raising(), Illegal(), GreedyBot(), RandomBot(seed=1)],
    ],
)
def test_in_process_records_are_the_reference_encoding_of_what_was_played(bots) -> None:  # type: ignore[no-untyped-def]
    result = sdk.local.play_match(bots(), seed=7, hands=3, record=True)
    assert result.record_bytes is not None
    record = result.record
    assert record is not None
    assert encode_record(record).encode() == result.record_bytes
    verify_record(record)
    assert check_views_against_referee(record) > len(record.decisions)
    kinds = {d.applied.kind for d in record.decisions}
    assert ActionKind.DISCARD in kinds


def test_records_off_do_no_record_work(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """0% when off: without --save-logs no stream exists, so no table asks or traces
    anything (the only cost is two ``is None`` tests per decision)."""
    made: list[int] = []
    streams: list[object] = []

    class Counted(RecordStream):
        def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
            made.append(1)
            super().__init__(*args, **kwargs)

    real = sdk.local._Table.run

    def spy(table: sdk.local._Table) -> None:  # the stream each table plays with
        streams.append(table.stream)
        real(table)

    monkeypatch.setattr(sdk.local, "RecordStream", Counted)
    monkeypatch.setattr(sdk.local._Table, "run", spy)
    run_arena(["bots.random"] * 4, hands=32, backend="local", seed=3)
    assert not made and streams and all(s is None for s in streams)
    streams.clear()
    run_arena(["bots.random"] * 4, hands=32, backend="local", seed=3, save_logs=tmp_path)
    assert made and len(made) == len(list(tmp_path.glob("*.jsonl")))
    assert streams and all(s is not None for s in streams)


def test_the_referee_shares_one_event_per_draw_and_discard() -> None:
    """The encoder finds a draw's or a discard's text by object: the referee's shared
    events must equal the ones it would build, and be the ones it emits."""
    for seat in range(4):
        for tile in Tile:
            assert DISCARDS[seat][tile] == Discard(seat, tile)
            for replacement in (False, True):
                assert DRAWS[seat][replacement][tile] == Draw(seat, replacement, tile)
    match = Match.new(2, 2)
    while not match.is_over:
        seat, legal = next(iter(match.pending().items()))
        match.apply(seat, legal[-1])
    for ev in match.events:
        if type(ev) is Discard:
            assert ev is DISCARDS[ev.seat][ev.tile]
        elif type(ev) is Draw:
            assert ev is DRAWS[ev.seat][ev.replacement][ev.tile]  # type: ignore[index]


def test_events_not_shared_are_encoded_the_same() -> None:
    """A stream over events built afresh (read back from JSON, so no draw or discard is
    the referee's shared object) writes the same bytes."""
    match = Match.new(4, 3)
    rng = random.Random(4)
    asked, settled = [], []
    while not match.is_over:
        seat, legal = next(iter(match.pending().items()))
        answer, applied, outcome, seconds = _settle(rng, legal, match.current.drawn_tile(seat))
        asked.append((seat, len(match.events), legal))
        settled.append((answer, applied, outcome, seconds))
        match.apply(seat, applied)
    fresh = [event_from_json(ev.to_json()) for ev in match.events]
    assert fresh == match.events
    assert not any(a is b for a, b in zip(fresh, match.events, strict=True))
    header = Header(4, 3, tuple(SeatInfo(s, s, "b") for s in range(4)))
    records = []
    for events in (match.events, fresh):
        stream = RecordStream(header, events)
        stream.asked, stream.settled = list(asked), list(settled)
        records.append(stream.finish("finished", 1.5))
    assert records[0] == records[1]


def test_arena_record_files_are_the_reference_encoding(tmp_path: Path) -> None:
    """Every file ``--save-logs`` writes re-encodes byte for byte through the reference
    writer, with wins (non-ASCII tai items), claims that lost and fallbacks."""
    lineup = ["bots.random", "bots.greedy", "bots.random", "bots.greedy"]
    run_arena(lineup, hands=32, match_hands=8, backend="local", seed=3, save_logs=tmp_path)
    files = sorted(tmp_path.glob("*.jsonl"))
    assert len(files) == 4
    outcomes: set[Outcome] = set()
    for path in files:
        data = path.read_bytes()
        record = parse_text(data.decode())
        assert record.summary is not None
        decisions = record.decisions
        again = build_record(
            record.header,
            record.events,
            decisions,
            status=record.summary.status,
            ended_at=record.summary.ended_at,
        )
        assert encode_record(again).encode() == data
        outcomes.update(d.outcome for d in decisions)
    assert any(not p.read_bytes().isascii() for p in files)
    assert Outcome.OVERRIDDEN in outcomes
