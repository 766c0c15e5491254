"""What the server keeps of every decision, so that any dispute can be settled.

A :class:`DecisionRecord` says which request went to which seat, when it was sent and
when the reply arrived (Unix seconds, from one clock), the raw reply as received
(truncated to :data:`RAW_LIMIT` characters), what was applied and why:

* ``ok``: the seat's own action;
* ``late``: no usable reply before the deadline (or one after it);
* ``illegal``: an action that was not legal (wrong id, wrong tiles, wrong ask);
* ``malformed``: a reply that could not be read;
* ``disconnected``: the seat was not connected, so the default was applied;
* ``overridden``: a claim the seat answered in time but that lost to a higher claim
  (R5); ``applied`` is the claim the seat answered, which the referee made void.

:class:`Outcome` is defined once for the whole SDK in :mod:`sdk.records.outcome`
(with ``overridden`` for a claim that lost to a higher one, and the in-process ``error``).

>>> from protocol.actions import PASS
>>> r = DecisionRecord(3, 1, "7", 12.5, 12.75, '{"type":"reply"}', PASS, Outcome.OK)
>>> r.to_json()["latency_ms"], r.to_json()["outcome"]
(250.0, 'ok')
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from protocol.actions import Action
from protocol.wire.common import RejectReason
from sdk.records.outcome import Outcome

__all__ = ["RAW_LIMIT", "Clock", "DecisionRecord", "Outcome", "outcome_of"]

RAW_LIMIT = 2048
"""Characters of a raw reply kept in the record."""


def outcome_of(reason: RejectReason | None, connected: bool = True) -> Outcome:
    """The record's outcome for a wire rejection ``reason`` (``None``: accepted)."""
    if reason is None:
        return Outcome.OK
    if reason is RejectReason.NOT_LEGAL:
        return Outcome.ILLEGAL
    if reason is RejectReason.MALFORMED:
        return Outcome.MALFORMED
    return Outcome.LATE if connected else Outcome.DISCONNECTED


class Clock:
    """Monotonic seconds for deadlines, and the matching Unix time for records (one
    clock, so that ``sent_at`` and ``replied_at`` are comparable and never go back)."""

    __slots__ = ("_offset",)

    def __init__(self) -> None:
        self._offset = time.time() - time.monotonic()

    @staticmethod
    def now() -> float:
        return time.monotonic()

    def wall(self, mono: float) -> float:
        """The Unix time of monotonic instant ``mono``."""
        return mono + self._offset


@dataclass(frozen=True, slots=True)
class DecisionRecord:
    """One settled decision (times in Unix seconds; ``replied_at`` is ``None`` when no
    reply came)."""

    hand: int
    seat: int
    request_id: str
    sent_at: float
    replied_at: float | None
    raw: str | None
    applied: Action
    outcome: Outcome
    reason: str = ""
    after_event: int = 0
    """How many referee events of the match preceded the request."""

    def to_json(self) -> dict[str, Any]:
        latency = None if self.replied_at is None else (self.replied_at - self.sent_at) * 1000
        return {
            "hand": self.hand,
            "seat": self.seat,
            "request_id": self.request_id,
            "sent_at": round(self.sent_at, 6),
            "replied_at": None if self.replied_at is None else round(self.replied_at, 6),
            "latency_ms": None if latency is None else round(latency, 3),
            "raw": None if self.raw is None else self.raw[:RAW_LIMIT],
            "applied": self.applied.to_json(),
            "outcome": self.outcome.value,
            "reason": self.reason,
            "after_event": self.after_event,
        }
