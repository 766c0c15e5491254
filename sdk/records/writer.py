"""Writing records: one writer for every source (``--local``, the arena, the server).

:func:`build_record` assembles a :class:`~sdk.records.model.Record` from what a match
produced (the header, the referee's events, the decisions as they were settled) and
:func:`encode_record` turns it into JSON lines. No I/O: the callers write the text.

Two things are settled here so that every source writes the same record for the same
play: decisions asked at the same moment (a claim window) are ordered by seat, whatever
order their answers arrived in; and a legal claim that lost to a higher claim (R5) is
marked ``overridden``.

>>> from protocol.match import Match
>>> from sdk.records.model import Header, SeatInfo
>>> m = Match.new(seed=1, hands=1)
>>> seats = tuple(SeatInfo(s, s, f"bot{s}") for s in range(4))
>>> rec = build_record(Header(1, 1, seats), m.events, [])
>>> text = encode_record(rec)
>>> text.splitlines()[0][:60]
'{"type":"header","format":"taimahjong-record","version":1,"r'
>>> len(text.splitlines()) == 1 + len(m.events)  # no result line: the match is running
True
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from protocol.actions import ActionKind
from protocol.events import Event, HandEnd, HandStart, MatchEnd
from sdk.records.model import (
    VARIABLE_FIELDS,
    Decision,
    HandRecord,
    Header,
    MatchSummary,
    Record,
)
from sdk.records.outcome import Outcome

__all__ = [
    "build_record",
    "canonical_decisions",
    "comparable_lines",
    "dumps",
    "encode_record",
    "final_scores",
    "lost_to",
    "record_lines",
    "taker",
]

_CLAIMED = {"win": ActionKind.WIN, "pung": ActionKind.PUNG, "chow": ActionKind.CHOW}
_CLAIMED["kong"] = ActionKind.KONG
_CLAIM_KINDS = frozenset(_CLAIMED.values())
_SETTLES = frozenset({"win", "pung", "chow", "kong", "draw", "exhaustive_draw"})
"""Event types that settle a claim window (the taken claim, or the next draw)."""


def build_record(
    header: Header,
    events: Sequence[Event],
    decisions: Iterable[Decision],
    *,
    status: str | None = None,
    ended_at: float | None = None,
) -> Record:
    """The record of a match: its hands are read off the events, decisions put in the
    canonical order and claims that lost marked. ``status`` (``finished``,
    ``aborted``) ends the record with a result line; ``None`` leaves it open (a match
    still running)."""
    events = tuple(events)
    hands = tuple(_hands(events))
    summary = None
    if status is not None:
        last = hands[-1].scores if hands else None
        summary = MatchSummary(status, len(hands), final_scores(events, last), ended_at)
    return Record(header, events, canonical_decisions(decisions, events), hands, summary)


def canonical_decisions(
    decisions: Iterable[Decision], events: Sequence[Event]
) -> tuple[Decision, ...]:
    """``decisions`` as a record holds them: in the order they were asked (by the event
    they follow, then seat), the claims that lost marked ``overridden``. Each decision
    is settled by the events after it alone, so a part of a match's decisions (one
    hand's) comes out as it does within the whole."""
    ordered = sorted(decisions, key=lambda d: (d.after_event, d.seat))
    return tuple(_mark_overridden(ordered, events))


def _hands(events: Sequence[Event]) -> Iterator[HandRecord]:
    start: HandStart | None = None
    for i, ev in enumerate(events):
        if type(ev) is HandStart:
            start = ev
        elif type(ev) is HandEnd and start is not None:
            yield HandRecord(start.hand, start.dealer, start.round_wind, ev.result, ev.scores, i)


def final_scores(events: Sequence[Event], last: Sequence[int] | None) -> tuple[int, ...]:
    """The scores of the result line: the ``match_end`` event's, else ``last`` (those
    after the last hand), else the first event's (a match that played no hand)."""
    if events and type(events[-1]) is MatchEnd:
        return tuple(events[-1].scores)  # type: ignore[attr-defined]
    if last is not None:
        return tuple(last)
    return tuple(events[0].scores) if events else (0, 0, 0, 0)  # type: ignore[attr-defined]


def _mark_overridden(decisions: list[Decision], events: Sequence[Event]) -> Iterator[Decision]:
    """Mark ``ok`` claims that the referee did not take (R5: a higher claim won)."""
    for d in decisions:
        if d.outcome is Outcome.OK and d.applied.kind in _CLAIM_KINDS:
            took = taker(events, d.after_event)
            if took is None or took[0] != d.seat or took[1] is not d.applied.kind:
                d = _replace_outcome(d, Outcome.OVERRIDDEN, lost_to(took))
        yield d


def lost_to(taker: tuple[int, ActionKind] | None) -> str:
    """The reason of an overridden claim, as the server's table writes it."""
    if taker is None:
        return "lost to a higher claim (R5)"
    return f"lost to seat {taker[0]}'s {taker[1].value} (R5)"


def taker(events: Sequence[Event], start: int) -> tuple[int, ActionKind] | None:
    """Who took the discard whose claim window opened at ``start``, with which kind
    (``None``: nobody, the next draw or the end of the hand came first)."""
    for i in range(start, len(events)):
        ev = events[i]
        if ev.type in _SETTLES:
            kind = _CLAIMED.get(ev.type)
            return None if kind is None else (ev.seat, kind)  # type: ignore[return-value]
    return None


def _replace_outcome(d: Decision, outcome: Outcome, reason: str = "") -> Decision:
    return Decision(
        d.hand,
        d.seat,
        d.after_event,
        d.legal,
        d.answer,
        d.applied,
        outcome,
        d.ms,
        d.request_id,
        d.raw,
        d.reason or reason,
        d.sent_at,
        d.replied_at,
    )


def dumps(obj: Any) -> str:
    """One compact JSON line (no newline), non-ASCII kept (tai item names)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def record_lines(record: Record) -> Iterator[str]:
    """The record's JSON lines (without newlines): the header, then every event with the
    decisions that caused it just before it and each hand's result just after its
    ``hand_end``, then the result line if the match is over. Each line is
    :func:`dumps` of the value's ``to_json()``: the reference encoding (the arena's
    fast path, :mod:`sdk.records.stream`, writes the same bytes). A seat's record
    (``perspective`` set: one seat's side, from a transcript) is refused: a game record
    holds every seat's tiles."""
    if record.perspective is not None:
        raise ValueError(
            f"a record of seat {record.perspective}'s side only cannot be written as a game "
            "record (it lacks the other seats' tiles)"
        )
    yield dumps(record.header.to_json())
    decisions = record.decisions
    hands = {h.end_event: h for h in record.hands}
    d, n = 0, len(decisions)
    for i, ev in enumerate(record.events):
        while d < n and decisions[d].after_event <= i:
            yield dumps(decisions[d].to_json())
            d += 1
        yield dumps({"type": "event", "index": i, "event": ev.to_json()})
        hand = hands.get(i)
        if hand is not None:
            yield dumps(hand.to_json())
    while d < n:
        yield dumps(decisions[d].to_json())
        d += 1
    if record.summary is not None:
        yield dumps(record.summary.to_json())


def encode_record(record: Record) -> str:
    """The whole record as text: JSON lines, each ending with a newline."""
    return "".join(line + "\n" for line in record_lines(record))


def comparable_lines(record: Record) -> list[dict[str, Any]]:
    """The record's lines as dicts without the :data:`~sdk.records.model.VARIABLE_FIELDS`
    (timing and transport): equal for the same play from any source.

    >>> from sdk.records.model import Header, SeatInfo
    >>> seats = tuple(SeatInfo(s, s, "b") for s in range(4))
    >>> comparable_lines(build_record(Header(1, 1, seats), [], []))[0]["timing"]
    {'decision_seconds': 3.0, 'safety_margin': 0.2}
    """
    out = []
    for line in record_lines(record):
        data = json.loads(line)
        for path in VARIABLE_FIELDS.get(data["type"], ()):
            node = data
            for key in path[:-1]:
                node = node[key]
            node.pop(path[-1], None)
        out.append(data)
    return out
