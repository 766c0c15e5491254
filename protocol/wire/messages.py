"""Protocol v1 messages: pydantic models, one per ``type``, validated strictly at the edge.

Events and actions are carried in the referee's own JSON forms
(:meth:`protocol.events.Event.to_json`, :meth:`protocol.actions.Action.to_json`); the
models only check them (through :func:`~protocol.events.event_from_json` and
:meth:`~protocol.actions.Action.from_json`) and convert back with :meth:`EventMsg.to_event`
and :meth:`ActionModel.to_action`. The referee and the simulator never import this module.

>>> m = Hello(token="t0k", bot_name="shanten-bot", client_version="0.1.0")
>>> m.type, m.protocol_version
('hello', 1)
>>> ActionModel.of(Action.parse("chow 4m 6m")).model_dump(exclude_none=True, mode="json")
{'type': 'chow', 'tiles': ['4m', '6m']}
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    NonNegativeInt,
    TypeAdapter,
    model_validator,
)

from protocol.actions import Action, ActionKind, ActionParseError
from protocol.events import Event, EventParseError, event_from_json
from protocol.names import bot_name, display_name
from protocol.tiles import Tile, TileParseError
from protocol.wire import PROTOCOL_VERSION
from protocol.wire.common import (
    DECISION_SECONDS,
    STARTUP_SECONDS,
    ErrorCode,
    RejectReason,
)

__all__ = [
    "CLIENT_TYPES",
    "SEQ_MAX",
    "SERVER_TYPES",
    "Ack",
    "ActionModel",
    "BotName",
    "Bye",
    "ClientMessage",
    "ErrorMsg",
    "EventMsg",
    "Hello",
    "LegalAction",
    "MatchConfig",
    "Ready",
    "Rejected",
    "Reply",
    "Request",
    "ServerMessage",
    "Timing",
    "VersionText",
    "Welcome",
    "client_adapter",
    "server_adapter",
]


class _Model(BaseModel):
    """Strict types (no "1" for 1); unknown fields from a newer peer are ignored."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


def _check_tile(text: str) -> str:
    try:
        Tile.parse(text)
    except TileParseError as exc:
        raise ValueError(str(exc)) from None
    return text


TileText = Annotated[str, AfterValidator(_check_tile)]
"""A tile in notation ``5m``, ``E``, ``C``…"""

BotName = Annotated[str, Field(min_length=1, max_length=64), AfterValidator(bot_name)]
"""A bot's name as a client gives it: 1 to 64 characters, the one rule for names
(:func:`~protocol.names.display_name`: NFC, trimmed, something visible, letters of any
script and emoji, nothing hidden), outside the server's reserved ``house:`` namespace."""
VersionText = Annotated[
    str,
    Field(max_length=64),
    AfterValidator(lambda text: display_name(text, "a version", empty=True)),
]
"""A version a client gives (``bot_version``, ``client_version``): as :data:`BotName`,
but may be empty."""

SEQ_MAX = 2**53
"""Largest ``last_seq`` a client may send (exact in every JSON reader); a match has far
fewer events."""


class ActionModel(_Model):
    """An action in the referee's JSON form, e.g. ``{"type": "discard", "tile": "5m"}``."""

    type: ActionKind
    tile: TileText | None = None
    tiles: list[TileText] | None = None

    @model_validator(mode="after")
    def _valid(self) -> ActionModel:
        try:
            self.to_action()
        except ActionParseError as exc:
            raise ValueError(str(exc)) from None
        return self

    def to_action(self) -> Action:
        """The referee's interned :class:`~protocol.actions.Action`."""
        return Action.from_json(self.model_dump(exclude_none=True, mode="json"))

    @classmethod
    def of(cls, action: Action) -> ActionModel:
        """The wire model of ``action``."""
        return cls.model_validate(action.to_json(), strict=False)


def _check_event(data: dict[str, Any]) -> dict[str, Any]:
    try:
        event_from_json(data)
    except (EventParseError, TypeError, ValueError, AttributeError) as exc:
        raise ValueError(f"not a referee event: {exc}") from None
    return data


EventJSON = Annotated[
    dict[str, Any],
    AfterValidator(_check_event),
    Field(
        json_schema_extra={
            "description": "A referee event in its JSON form (protocol.events), as the "
            "seat may see it; 'type' is one of hand_start, deal, draw, discard, chow, "
            "pung, kong, added_kong, concealed_kong, declined, win, exhaustive_draw, "
            "abort, hand_end, match_end.",
            "required": ["type"],
        }
    ),
]


# --- server to client ------------------------------------------------------------------


class Timing(_Model):
    """Time budgets in milliseconds (R17: 3 s per decision)."""

    decision_ms: NonNegativeInt = int(DECISION_SECONDS * 1000)
    startup_ms: NonNegativeInt = int(STARTUP_SECONDS * 1000)


class MatchConfig(_Model):
    """The rules and timing of the match the seat plays."""

    rules: str = "tcga-2024"
    hands: int = Field(default=16, ge=1)
    first_dealer: int = Field(default=0, ge=0, le=3)
    timing: Timing = Timing()


class Welcome(_Model):
    """The handshake's answer: the seat (0..3), ids, configuration. ``resumed`` when the
    server continues an earlier session; ``seq`` is the last event sequence number.
    ``token`` is the seat's secret, to send in ``hello`` when resuming (a bot that came
    through the lobby learns it here)."""

    type: Literal["welcome"] = "welcome"
    seq: NonNegativeInt
    protocol_version: int = PROTOCOL_VERSION
    seat: int = Field(ge=0, le=3)
    match_id: str
    table_id: str
    token: str | None = Field(default=None, min_length=1, max_length=256)
    config: MatchConfig = MatchConfig()
    resumed: bool = False


class EventMsg(_Model):
    """One referee event as the seat may see it; events are numbered 1, 2, 3… per seat."""

    type: Literal["event"] = "event"
    seq: int = Field(ge=1)
    event: EventJSON

    def to_event(self) -> Event:
        """The referee's event this message carries."""
        return event_from_json(self.event)


class LegalAction(_Model):
    """One legal action and the id a reply may name it by."""

    id: NonNegativeInt
    action: ActionModel


class Request(_Model):
    """A decision: answer ``request_id`` with one of ``legal`` within ``time_left_ms``
    (counted from when the server sent it). ``default_id`` is what the server applies
    without a valid answer in time (R17). ``seq`` is the last event it follows."""

    type: Literal["request"] = "request"
    seq: NonNegativeInt
    request_id: str = Field(min_length=1, max_length=64)
    time_left_ms: NonNegativeInt
    legal: list[LegalAction] = Field(min_length=1)
    default_id: NonNegativeInt
    drawn_tile: TileText | None = None

    @model_validator(mode="after")
    def _ids(self) -> Request:
        ids = [a.id for a in self.legal]
        if len(set(ids)) != len(ids) or self.default_id not in ids:
            raise ValueError("legal action ids must be unique and include default_id")
        return self


class Ack(_Model):
    """The reply to ``request_id`` was applied."""

    type: Literal["ack"] = "ack"
    seq: NonNegativeInt
    request_id: str
    action: ActionModel


class Rejected(_Model):
    """The reply to ``request_id`` was not applied as sent: ``reason`` says why and
    ``applied`` is what the referee applied instead (the R17 default), if anything."""

    type: Literal["rejected"] = "rejected"
    seq: NonNegativeInt
    request_id: str
    reason: RejectReason
    message: str = ""
    applied: ActionModel | None = None


class ErrorMsg(_Model):
    """An error with a stable ``code``; after a ``fatal`` one the server closes."""

    type: Literal["error"] = "error"
    seq: NonNegativeInt
    code: ErrorCode
    message: str
    fatal: bool = False


class Bye(_Model):
    """The server ends the session (the match is over, or the seat was removed)."""

    type: Literal["bye"] = "bye"
    seq: NonNegativeInt
    reason: str = ""


# --- client to server ------------------------------------------------------------------


class Hello(_Model):
    """The first frame of every connection. ``token`` names the seat; without one the
    server seats the bot through its lobby. ``last_seq`` resumes a session: the server
    sends the events after it and the request still pending. ``bot_version`` (optional)
    tells versions of one bot apart: the leaderboard groups by name and version."""

    type: Literal["hello"] = "hello"
    protocol_version: int = PROTOCOL_VERSION
    token: str | None = Field(default=None, min_length=1, max_length=256)
    bot_name: BotName
    client_version: VersionText = ""
    bot_version: VersionText = ""
    last_seq: int | None = Field(default=None, ge=0, le=SEQ_MAX)


class Ready(_Model):
    """The bot has loaded what it needs and can decide within the decision budget."""

    type: Literal["ready"] = "ready"


class Reply(_Model):
    """The answer to ``request_id``: the chosen action's ``action_id``, or the ``action``
    itself (exactly one of the two)."""

    type: Literal["reply"] = "reply"
    request_id: str = Field(min_length=1, max_length=64)
    action_id: NonNegativeInt | None = None
    action: ActionModel | None = None

    @model_validator(mode="after")
    def _one(self) -> Reply:
        if (self.action_id is None) == (self.action is None):
            raise ValueError("a reply names exactly one of action_id and action")
        return self


ServerMessage = Annotated[
    Welcome | EventMsg | Request | Ack | Rejected | ErrorMsg | Bye, Field(discriminator="type")
]
"""Any frame the server sends."""
ClientMessage = Annotated[Hello | Ready | Reply, Field(discriminator="type")]
"""Any frame the client sends."""

SERVER_TYPES = frozenset({"welcome", "event", "request", "ack", "rejected", "error", "bye"})
CLIENT_TYPES = frozenset({"hello", "ready", "reply"})

server_adapter: TypeAdapter[Any] = TypeAdapter(ServerMessage)
client_adapter: TypeAdapter[Any] = TypeAdapter(ClientMessage)
