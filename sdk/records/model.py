"""The values of a game record: a header, the referee's events, every decision, each
hand's result and the match's end (``docs/RECORDS.md`` describes the JSON of each).

A :class:`Record` is what :func:`sdk.records.read_record` returns and what
:func:`sdk.records.encode_record` writes. Event indices ("steps") count the referee's
events of the whole match from 0; a decision's ``after_event`` is how many events
preceded its request, so it caused the events from that index on.

>>> from protocol.actions import PASS
>>> d = Decision(0, 2, 40, (PASS,), PASS, PASS, Outcome.OK, 1.5)
>>> d.fallback, d.to_json()["outcome"]
(False, 'ok')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any

from protocol.actions import Action
from protocol.events import Event, HandResult
from protocol.tiles import Tile
from sdk.records.outcome import FALLBACKS, Outcome

__all__ = [
    "FORMAT",
    "RULES_ID",
    "SOURCES",
    "VARIABLE_FIELDS",
    "VERSION",
    "Decision",
    "HandRecord",
    "Header",
    "MatchSummary",
    "Origin",
    "Record",
    "SeatInfo",
    "Timing",
]

FORMAT = "taimahjong-record"
"""The ``format`` of every header line."""
VERSION = 1
"""The record format version this code writes and reads."""
RULES_ID = "tcga-2024"
"""The rules the referee plays (the same id protocol v1 announces in ``welcome``)."""
SOURCES = ("local", "arena", "server")
"""Where a record comes from (``origin.source``)."""
VARIABLE_FIELDS: dict[str, tuple[tuple[str, ...], ...]] = {
    "header": (("timing", "started_at"), ("origin",)),
    "decision": (("ms",), ("request_id",), ("raw",), ("sent_at",), ("replied_at",)),
    "result": (("ended_at",),),
}
"""Per line type, the fields (as key paths) that say when and how a match was played
rather than what happened: records of one match from different sources differ only
there (:func:`sdk.records.writer.comparable_lines`)."""


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """Who sat at ``seat``: ``player`` is the index of the bot in the run's order (the
    arena's duplicate seating moves players between seats), ``version`` may be empty."""

    seat: int
    player: int
    name: str
    version: str = ""

    def to_json(self) -> dict[str, Any]:
        """The record line's JSON form."""
        return {
            "seat": self.seat,
            "player": self.player,
            "name": self.name,
            "version": self.version,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeatInfo:
        """Read the JSON form of :meth:`to_json`."""
        return cls(int(data["seat"]), int(data["player"]), str(data["name"]), str(data["version"]))


@dataclass(frozen=True, slots=True)
class Timing:
    """The time budget of every decision, and when the match started (Unix seconds;
    ``None`` if unknown)."""

    decision_seconds: float = 3.0
    safety_margin: float = 0.2
    started_at: float | None = None

    def to_json(self) -> dict[str, Any]:
        """The record line's JSON form."""
        return {
            "decision_seconds": self.decision_seconds,
            "safety_margin": self.safety_margin,
            "started_at": None if self.started_at is None else round(self.started_at, 3),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Timing:
        """Read the JSON form of :meth:`to_json`."""
        started = data.get("started_at")
        return cls(
            float(data["decision_seconds"]),
            float(data["safety_margin"]),
            None if started is None else float(started),
        )


@dataclass(frozen=True, slots=True)
class Origin:
    """Which program played the match: ``source`` is one of :data:`SOURCES`; the
    server's match and table ids, the arena's deal number."""

    source: str
    match_id: str = ""
    table_id: str = ""
    deal: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The record line's JSON form."""
        out: dict[str, Any] = {"source": self.source, "match_id": self.match_id}
        if self.table_id:
            out["table_id"] = self.table_id
        if self.deal is not None:
            out["deal"] = self.deal
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Origin:
        """Read the JSON form of :meth:`to_json`."""
        deal = data.get("deal")
        return cls(
            str(data["source"]),
            str(data.get("match_id", "")),
            str(data.get("table_id", "")),
            None if deal is None else int(deal),
        )


@dataclass(frozen=True, slots=True)
class Header:
    """The first line: what was played (seed, hands, first dealer, rules), by whom
    (``seats``, indexed by seat), under which clock, from where."""

    seed: int
    hands: int
    seats: tuple[SeatInfo, ...]
    first_dealer: int = 0
    rules: str = RULES_ID
    timing: Timing = field(default_factory=Timing)
    origin: Origin = field(default_factory=lambda: Origin("local"))
    version: int = VERSION

    def to_json(self) -> dict[str, Any]:
        """The record line's JSON form."""
        return {
            "type": "header",
            "format": FORMAT,
            "version": self.version,
            "rules": self.rules,
            "seed": self.seed,
            "hands": self.hands,
            "first_dealer": self.first_dealer,
            "seats": [s.to_json() for s in self.seats],
            "timing": self.timing.to_json(),
            "origin": self.origin.to_json(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Header:
        """Read the JSON form of :meth:`to_json`."""
        return cls(
            seed=int(data["seed"]),
            hands=int(data["hands"]),
            seats=tuple(SeatInfo.from_json(s) for s in data["seats"]),
            first_dealer=int(data["first_dealer"]),
            rules=str(data["rules"]),
            timing=Timing.from_json(data["timing"]),
            origin=Origin.from_json(data["origin"]),
            version=int(data["version"]),
        )

    def name_at(self, seat: int) -> str:
        """The bot name at ``seat``."""
        return self.seats[seat].name


def _action(data: Any) -> Action | None:
    return None if data is None else Action.from_json(data)


@dataclass(frozen=True, slots=True)
class Decision:
    """One settled decision: ``seat`` was asked (``request_id``, after ``after_event``
    events, in hand ``hand``) to choose one of ``legal``; it answered ``answer`` (``None``
    if nothing usable came), ``applied`` went to the referee, settled as ``outcome``,
    after ``ms`` milliseconds (``None``: no reply). ``raw`` keeps the reply as received
    (server), ``reason`` says why an answer was refused."""

    hand: int
    seat: int
    after_event: int
    legal: tuple[Action, ...]
    answer: Action | None
    applied: Action
    outcome: Outcome = Outcome.OK
    ms: float | None = None
    request_id: str = ""
    raw: str | None = None
    reason: str = ""
    sent_at: float | None = None
    """When the request went out (Unix seconds; the server's records only)."""
    replied_at: float | None = None
    """When the reply arrived (``None``: no reply; the server's records only)."""

    @property
    def fallback(self) -> bool:
        """Whether the seat's own answer was replaced (late, error, illegal...)."""
        return self.outcome in FALLBACKS

    def to_json(self) -> dict[str, Any]:
        """The record line's JSON form."""
        out: dict[str, Any] = {
            "type": "decision",
            "hand": self.hand,
            "seat": self.seat,
            "after_event": self.after_event,
            "request_id": self.request_id,
            "legal": [a.to_json() for a in self.legal],
            "answer": None if self.answer is None else self.answer.to_json(),
            "applied": self.applied.to_json(),
            "outcome": self.outcome.value,
            "ms": None if self.ms is None else round(self.ms, 3),
        }
        if self.raw is not None:
            out["raw"] = self.raw
        if self.reason:
            out["reason"] = self.reason
        if self.sent_at is not None:
            out["sent_at"] = round(self.sent_at, 6)
            out["replied_at"] = None if self.replied_at is None else round(self.replied_at, 6)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Decision:
        """Read the JSON form of :meth:`to_json`."""
        ms = data["ms"]
        raw = data.get("raw")
        applied = _action(data["applied"])
        if applied is None:
            raise ValueError("'applied' is null")
        return cls(
            hand=int(data["hand"]),
            seat=int(data["seat"]),
            after_event=int(data["after_event"]),
            legal=tuple(Action.from_json(a) for a in data["legal"]),
            answer=_action(data["answer"]),
            applied=applied,
            outcome=Outcome(data["outcome"]),
            ms=None if ms is None else float(ms),
            request_id=str(data["request_id"]),
            raw=None if raw is None else str(raw),
            reason=str(data.get("reason", "")),
            sent_at=_float(data.get("sent_at")),
            replied_at=_float(data.get("replied_at")),
        )


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def _fast_init(cls: type) -> type:
    """Give a frozen slots dataclass an ``__init__`` that sets the slots directly (the
    generated one goes through ``object.__setattr__``, several times slower; the arena
    makes one :class:`Decision` per decision). Same parameters and defaults; instances
    stay frozen."""
    params, body, env = [], [], {}
    for f in fields(cls):
        env[f"_set_{f.name}"] = getattr(cls, f.name).__set__
        if f.default is MISSING:
            params.append(f.name)
        else:
            env[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        body.append(f"    _set_{f.name}(self, {f.name})")
    exec(f"def __init__(self, {', '.join(params)}):\n" + "\n".join(body), env)
    init = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init  # type: ignore[misc]
    return cls


_fast_init(Decision)


@dataclass(frozen=True, slots=True)
class HandRecord:
    """How hand ``hand`` ended: its dealer and round wind, the result (for a win the
    scoring module's breakdown: split, tai items, total, payments), the cumulative scores
    by seat after it, and the index of its ``hand_end`` event."""

    hand: int
    dealer: int
    round_wind: Tile
    result: HandResult
    scores: tuple[int, ...]
    end_event: int

    def to_json(self) -> dict[str, Any]:
        """The record line's JSON form."""
        return {
            "type": "hand",
            "hand": self.hand,
            "dealer": self.dealer,
            "round_wind": str(self.round_wind),
            "end_event": self.end_event,
            "result": self.result.to_json(),
            "scores": list(self.scores),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> HandRecord:
        """Read the JSON form of :meth:`to_json`."""
        return cls(
            hand=int(data["hand"]),
            dealer=int(data["dealer"]),
            round_wind=Tile.parse(data["round_wind"]),
            result=HandResult.from_json(data["result"]),
            scores=tuple(int(s) for s in data["scores"]),
            end_event=int(data["end_event"]),
        )


@dataclass(frozen=True, slots=True)
class MatchSummary:
    """The last line: ``status`` (``finished`` or ``aborted``), hands played, the final
    scores by seat and when it ended (Unix seconds, ``None`` if unknown)."""

    status: str
    hands_played: int
    scores: tuple[int, ...]
    ended_at: float | None = None

    def to_json(self) -> dict[str, Any]:
        """The record line's JSON form."""
        return {
            "type": "result",
            "status": self.status,
            "hands_played": self.hands_played,
            "scores": list(self.scores),
            "ended_at": None if self.ended_at is None else round(self.ended_at, 3),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MatchSummary:
        """Read the JSON form of :meth:`to_json`."""
        ended = data["ended_at"]
        return cls(
            status=str(data["status"]),
            hands_played=int(data["hands_played"]),
            scores=tuple(int(s) for s in data["scores"]),
            ended_at=None if ended is None else float(ended),
        )


@dataclass(frozen=True, slots=True)
class Record:
    """A whole match as recorded. ``summary`` is ``None`` for a match still running
    (read with ``partial=True``).

    ``perspective`` is ``None`` for a game record (the referee's full log). A record
    rebuilt from one seat's side of a line-protocol session
    (:func:`sdk.records.transcript.record_from_transcript`) has that seat there: its
    events are that seat's projection and its decisions that seat's only, so only that
    seat's view can be rebuilt; such a record is never written as a game record."""

    header: Header
    events: tuple[Event, ...]
    decisions: tuple[Decision, ...]
    hands: tuple[HandRecord, ...]
    summary: MatchSummary | None = None
    perspective: int | None = None

    @property
    def steps(self) -> int:
        """How many steps there are: one per event, plus step 0 (before any event)."""
        return len(self.events) + 1

    def hand_steps(self, hand: int) -> range:
        """The event indices of hand ``hand`` (from its ``hand_start`` to its
        ``hand_end``; to the last event if it is still being played)."""
        starts = [i for i, e in enumerate(self.events) if e.type == "hand_start"]
        if not 0 <= hand < len(starts):
            raise IndexError(f"hand {hand} is not in this record (hands 0..{len(starts) - 1})")
        end = starts[hand + 1] if hand + 1 < len(starts) else len(self.events)
        return range(starts[hand], end)

    def decisions_of(self, seat: int) -> list[Decision]:
        """Every decision of ``seat``, in order."""
        return [d for d in self.decisions if d.seat == seat]

    def decisions_at(self, after_event: int) -> list[Decision]:
        """The decisions asked after ``after_event`` events (several for a claim)."""
        return [d for d in self.decisions if d.after_event == after_event]
