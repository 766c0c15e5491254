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
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from protocol import actions as _actions
from protocol import events as ev_codecs
from protocol.actions import Action, ActionKind
from protocol.events import Discard, Draw, Event, HandEnd, HandStart, MatchEnd
from protocol.tiles import KIND_COUNT, Tile
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
    "comparable_lines",
    "decision_text",
    "dumps",
    "encode_record",
    "event_text",
    "record_lines",
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
    ordered = sorted(decisions, key=lambda d: (d.after_event, d.seat))
    hands = tuple(_hands(events))
    summary = None
    if status is not None:
        summary = MatchSummary(status, len(hands), _final_scores(events, hands), ended_at)
    return Record(header, events, tuple(_mark_overridden(ordered, events)), hands, summary)


def _hands(events: Sequence[Event]) -> Iterator[HandRecord]:
    start: HandStart | None = None
    for i, ev in enumerate(events):
        if type(ev) is HandStart:
            start = ev
        elif type(ev) is HandEnd and start is not None:
            yield HandRecord(start.hand, start.dealer, start.round_wind, ev.result, ev.scores, i)


def _final_scores(events: Sequence[Event], hands: Sequence[HandRecord]) -> tuple[int, ...]:
    if events and type(events[-1]) is MatchEnd:
        return tuple(events[-1].scores)  # type: ignore[attr-defined]
    if hands:
        return hands[-1].scores
    return tuple(events[0].scores) if events else (0, 0, 0, 0)  # type: ignore[attr-defined]


def _mark_overridden(decisions: list[Decision], events: Sequence[Event]) -> Iterator[Decision]:
    """Mark ``ok`` claims that the referee did not take (R5: a higher claim won)."""
    for d in decisions:
        if d.outcome is Outcome.OK and d.applied.kind in _CLAIM_KINDS:
            taker = _taker(events, d.after_event)
            if taker is None or taker[0] != d.seat or taker[1] is not d.applied.kind:
                d = _replace_outcome(d, Outcome.OVERRIDDEN, _lost_to(taker))
        yield d


def _lost_to(taker: tuple[int, ActionKind] | None) -> str:
    """The reason of an overridden claim, as the server's table writes it."""
    if taker is None:
        return "lost to a higher claim (R5)"
    return f"lost to seat {taker[0]}'s {taker[1].value} (R5)"


def _taker(events: Sequence[Event], start: int) -> tuple[int, ActionKind] | None:
    """Who took the discard whose claim window opened at ``start``, with which kind."""
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


# --- fast encoding (the arena writes hundreds of lines per hand) -------------------------
# Each encoder returns what ``dumps(x.to_json())`` returns (a test checks it; only a
# decision's ``ms`` is written with three decimals, ``2.500`` for ``2.5``), from cached
# fragments: tiles and actions are a few hundred interned values.


def dumps(obj: Any) -> str:
    """One compact JSON line (no newline), non-ASCII kept (tai item names)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


_TILE_TEXT = {Tile(k): f'"{Tile(k)}"' for k in range(KIND_COUNT)}
_ACTION_TEXT: dict[Action, str] = {a: dumps(a.to_json()) for a in _actions._INTERNED.values()}
"""Every action's JSON text (actions are interned: there are a few hundred)."""
_Encoder = Callable[[Any], str]


_action_text = _ACTION_TEXT.__getitem__


def _event_encoder(cls: type[Event]) -> Callable[[Event], str]:
    """An encoder for one event type, from its fields' codecs (rare codecs: dumps)."""
    fast: dict[int, _Encoder] = {
        id(ev_codecs._INT): str,
        id(ev_codecs._BOOL): lambda b: "true" if b else "false",
        id(ev_codecs._TILE): _TILE_TEXT.__getitem__,
        id(ev_codecs._TILES): _tiles_text,
        id(ev_codecs._INTS): _ints_text,
    }
    head = '{"type":' + dumps(cls.type)
    parts: list[tuple[str, str, _Encoder]] = []
    for name, key, codec in cls._fields:
        encode = codec[0]
        enc = fast.get(id(codec)) or (lambda value, encode=encode: dumps(encode(value)))
        parts.append((name, f',"{key}":', enc))

    def encode_event(ev: Event) -> str:
        out = head
        for name, prefix, enc in parts:
            value = getattr(ev, name)
            if value is not None:
                out += prefix + enc(value)
        return out + "}"

    return encode_event


def _tiles_text(tiles: Sequence[Tile]) -> str:
    return "[" + ",".join(map(_TILE_TEXT.__getitem__, tiles)) + "]"


def _ints_text(values: Sequence[int]) -> str:
    return "[" + ",".join(map(str, values)) + "]"


def _draw_text(ev: Draw) -> str:
    tile = "" if ev.tile is None else ',"tile":' + _TILE_TEXT[ev.tile]
    replacement = "true" if ev.replacement else "false"
    return f'{{"type":"draw","seat":{ev.seat},"replacement":{replacement}{tile}}}'


def _discard_text(ev: Discard) -> str:
    return f'{{"type":"discard","seat":{ev.seat},"tile":{_TILE_TEXT[ev.tile]}}}'


_EVENT_TEXT: dict[type, Callable[[Any], str]] = {Draw: _draw_text, Discard: _discard_text}
"""Encoders by event type: the two of almost every turn written out, the rest built
from their fields' codecs on first use."""


def event_text(event: Event) -> str:
    """``dumps(event.to_json())``, fast (the same text)."""
    cls = type(event)
    encoder = _EVENT_TEXT.get(cls)
    if encoder is None:
        encoder = _EVENT_TEXT[cls] = _event_encoder(cls)
    return encoder(event)


_OUTCOME_TEXT = {o: f'"{o.value}"' for o in Outcome}


def decision_text(d: Decision) -> str:
    """``dumps(d.to_json())``, fast (the same JSON; ``ms`` always with three decimals)."""
    out = (
        f'{{"type":"decision","hand":{d.hand},"seat":{d.seat},"after_event":{d.after_event},'
        f'"request_id":{dumps(d.request_id) if d.request_id else chr(34) * 2},"legal":['
        + ",".join(map(_action_text, d.legal))
        + '],"answer":'
        + ("null" if d.answer is None else _action_text(d.answer))
        + ',"applied":'
        + _action_text(d.applied)
        + ',"outcome":'
        + _OUTCOME_TEXT[d.outcome]
        + ',"ms":'
        + ("null" if d.ms is None else f"{d.ms:.3f}")
    )
    if d.raw is not None:
        out += ',"raw":' + dumps(d.raw)
    if d.reason:
        out += ',"reason":' + dumps(d.reason)
    if d.sent_at is not None:
        out += ',"sent_at":' + dumps(round(d.sent_at, 6)) + ',"replied_at":'
        out += "null" if d.replied_at is None else dumps(round(d.replied_at, 6))
    return out + "}"


def record_lines(record: Record) -> Iterator[str]:
    """The record's JSON lines (without newlines): the header, then every event with the
    decisions that caused it just before it and each hand's result just after its
    ``hand_end``, then the result line if the match is over."""
    yield dumps(record.header.to_json())
    decisions = record.decisions
    hands = {h.end_event: h for h in record.hands}
    d, n = 0, len(decisions)
    for i, ev in enumerate(record.events):
        while d < n and decisions[d].after_event <= i:
            yield decision_text(decisions[d])
            d += 1
        yield f'{{"type":"event","index":{i},"event":{event_text(ev)}}}'
        hand = hands.get(i)
        if hand is not None:
            yield dumps(hand.to_json())
    while d < n:
        yield decision_text(decisions[d])
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
