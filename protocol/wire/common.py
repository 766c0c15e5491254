"""What a bot receives, whichever wire format carried it: plain typed values.

Both decoders (protocol v1's :class:`~protocol.wire.session.WireClient` and the line
protocol's :class:`~protocol.line.adapter.LineClientAdapter`) turn what they read into
the same things: the referee's own :class:`~protocol.events.Event` values (the seat's
projection) plus the few values defined here. Nothing here imports pydantic.

>>> from protocol.actions import DISCARD, PASS, PUNG
>>> r = ActionRequest("7", seat=2, legal=(PUNG, PASS), time_left=3.0)
>>> r.is_claim, r.default
(True, Action.parse('pass'))
>>> ActionRequest("8", 0, (DISCARD[0], DISCARD[4]), 2.5, drawn_tile=Tile.M1).default
Action.parse('discard 1m')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from protocol.actions import PASS, Action
from protocol.defaults import default_action
from protocol.events import Event
from protocol.tiles import Tile

__all__ = [
    "DECISION_SECONDS",
    "STARTUP_SECONDS",
    "ActionRequest",
    "ErrorCode",
    "Outcome",
    "RejectReason",
    "ServerError",
    "SessionEnd",
    "SessionStart",
    "WireInput",
]

DECISION_SECONDS = 3.0
"""The budget of one decision (R17)."""
STARTUP_SECONDS = 30.0
"""The default start-up budget: from ``welcome`` to ``ready`` (loading a model)."""


class RejectReason(StrEnum):
    """Why a reply was not applied as sent (protocol v1 ``rejected.reason``; also the
    ``reason`` of a line reply the server seat refuses). Except for ``unknown_request``
    and ``stale``, the seat's R17 default was applied instead."""

    TIMEOUT = "timeout"
    """No reply before the deadline; the default was applied."""
    LATE = "late"
    """The reply came after the deadline; the default had been applied."""
    UNKNOWN_REQUEST = "unknown_request"
    """No request with this id was ever sent to this seat; nothing was applied."""
    STALE = "stale"
    """The request was already settled (answered or defaulted); nothing was applied."""
    NOT_LEGAL = "not_legal"
    """The action is not among the request's legal actions; the default was applied."""
    MALFORMED = "malformed"
    """The reply could not be read as an answer; the default was applied."""


class ErrorCode(StrEnum):
    """Stable codes of protocol v1 ``error`` messages."""

    VERSION_MISMATCH = "version_mismatch"
    BAD_TOKEN = "bad_token"
    MALFORMED = "malformed"
    UNEXPECTED_MESSAGE = "unexpected_message"
    BAD_RESUME = "bad_resume"
    SEAT_TAKEN = "seat_taken"
    STARTUP_TIMEOUT = "startup_timeout"
    RATE_LIMITED = "rate_limited"
    NOT_FOUND = "not_found"
    CONFLICT = "conflict"
    INTERNAL = "internal"


@dataclass(frozen=True, slots=True)
class SessionStart:
    """The session is set up: the bot sits at ``seat`` (0..3). ``config`` is protocol
    v1's rules and timing configuration (empty for the line protocol)."""

    seat: int
    name: str = ""
    match_id: str = ""
    table_id: str = ""
    config: Mapping[str, Any] = field(default_factory=dict)
    resumed: bool = False


@dataclass(frozen=True, slots=True)
class ActionRequest:
    """The seat must decide: choose one of ``legal`` (complete and exact) within
    ``time_left`` seconds from the moment the request was read. ``drawn_tile`` is the
    tile just drawn on one's own turn (for the R17 default)."""

    request_id: str
    seat: int
    legal: tuple[Action, ...]
    time_left: float = DECISION_SECONDS
    drawn_tile: Tile | None = None

    @property
    def is_claim(self) -> bool:
        """True when the decision answers another seat's discard."""
        return PASS in self.legal

    @property
    def default(self) -> Action:
        """What the referee applies without an answer in time (R17)."""
        return default_action(self.legal, self.drawn_tile)


@dataclass(frozen=True, slots=True)
class Outcome:
    """The server's answer to a decision: ``accepted``, or refused with ``reason``;
    ``applied`` is what the referee applied (the default when refused; ``None`` when
    nothing was applied, for ``unknown_request`` and ``stale``)."""

    request_id: str
    accepted: bool
    applied: Action | None
    reason: RejectReason | None = None
    message: str = ""


@dataclass(frozen=True, slots=True)
class ServerError:
    """An error the server reported, with its stable ``code``; ``fatal`` errors end the
    session."""

    code: str
    message: str
    fatal: bool = False


@dataclass(frozen=True, slots=True)
class SessionEnd:
    """The session is over (the line protocol's ``/exit`` or ``/close``, protocol v1's
    ``bye``)."""

    reason: str = ""


WireInput = Event | ActionRequest | SessionStart | Outcome | ServerError | SessionEnd
"""Everything a client decoder hands to the bot."""
