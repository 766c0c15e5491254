"""Protocol v1 frames: JSON text to typed messages and back.

:func:`decode_server_frame` / :func:`decode_client_frame` validate one frame at the edge
and raise a narrow :class:`WireDecodeError` (never anything else): an
:class:`UnknownMessageError` for a ``type`` this version does not know (a newer peer:
ignore it with a warning), a :class:`WireDecodeError` for anything malformed.
:func:`encode` writes a message; :func:`event_frame` is the server's fast path for events,
built straight from the referee's values without pydantic.

>>> from protocol.events import Discard
>>> from protocol.tiles import Tile
>>> frame = event_frame(7, Discard(2, Tile.M5))
>>> frame
'{"type":"event","seq":7,"event":{"type":"discard","seat":2,"tile":"5m"}}'
>>> decode_server_frame(frame).to_event()
Discard(seat=2, tile=<Tile.M5: 4>)
>>> decode_client_frame('{"type": "teleport"}')
Traceback (most recent call last):
  ...
protocol.wire.codec.UnknownMessageError: unknown message type 'teleport' (a newer peer?); frame: '{"type": "teleport"}'
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from protocol.actions import Action, ActionParseError
from protocol.errors import MahjongError, TileParseError
from protocol.events import Event, EventParseError, event_from_json
from protocol.tiles import Tile
from protocol.wire.messages import (
    CLIENT_TYPES,
    SERVER_TYPES,
    ClientMessage,
    ServerMessage,
    client_adapter,
    server_adapter,
)

__all__ = [
    "MAX_FRAME",
    "FastRequest",
    "UnknownMessageError",
    "WireDecodeError",
    "WireError",
    "decode_client_frame",
    "decode_event_frame",
    "decode_request_frame",
    "decode_server_frame",
    "encode",
    "event_frame",
    "peek",
]

MAX_FRAME = 1 << 20
"""Frames longer than this (in characters) are refused."""


class WireError(MahjongError):
    """Base class of protocol v1 errors."""


class WireDecodeError(WireError):
    """A frame is not a valid message; ``frame`` is the text and the message says why."""

    def __init__(self, frame: object, reason: str) -> None:
        self.frame = frame
        self.reason = reason
        shown = frame if not isinstance(frame, str | bytes) or len(frame) < 200 else frame[:200]
        super().__init__(f"{reason}; frame: {shown!r}")


class UnknownMessageError(WireDecodeError):
    """A frame of a ``type`` this protocol version does not know; ignore it."""

    def __init__(self, frame: object, type_: str) -> None:
        self.type = type_
        super().__init__(frame, f"unknown message type {type_!r} (a newer peer?)")


def encode(message: BaseModel) -> str:
    """The JSON text frame of ``message`` (fields that are ``None`` left out)."""
    return message.model_dump_json(exclude_none=True)


def event_frame(seq: int, event: Event) -> str:
    """The ``event`` frame of a (projected) referee event, without pydantic."""
    payload = json.dumps(event.to_json(), separators=(",", ":"), ensure_ascii=False)
    return f'{{"type":"event","seq":{seq},"event":{payload}}}'


_EVENT_KEYS = frozenset({"type", "seq", "event"})


def decode_event_frame(frame: str | bytes) -> tuple[int, Event] | None:
    """The fast path for the commonest server frame: ``(seq, event)`` for an ``event``
    frame, ``None`` for any other frame (decode those with :func:`decode_server_frame`).

    It validates exactly what the pydantic model does (the keys, a positive ``seq`` and a
    referee event with all its required fields, via :func:`protocol.events.event_from_json`)
    with one JSON parse and no model, because a client reads several events per decision.

    >>> decode_event_frame('{"type":"event","seq":3,"event":{"type":"discard","seat":1,"tile":"5m"}}')
    (3, Discard(seat=1, tile=<Tile.M5: 4>))
    >>> decode_event_frame('{"type":"bye","seq":3}') is None
    True
    """
    if isinstance(frame, str) and len(frame) <= MAX_FRAME and frame.startswith('{"type":"event"'):
        try:
            data = json.loads(frame)
        except (ValueError, RecursionError) as exc:
            raise WireDecodeError(frame, f"not JSON: {exc}") from None
        if not isinstance(data, dict) or data.keys() != _EVENT_KEYS or data["type"] != "event":
            return None  # unusual layout: let the full decoder judge it
        seq, payload = data["seq"], data["event"]
        if type(seq) is not int or seq < 1 or not isinstance(payload, dict):
            raise WireDecodeError(
                frame, "invalid 'event' message: seq is a positive int, event an object"
            )
        try:
            return seq, event_from_json(payload)
        except (EventParseError, TypeError, ValueError, AttributeError) as exc:
            raise WireDecodeError(
                frame, f"invalid 'event' message: not a referee event: {exc}"
            ) from None
    return None


_REQUEST_KEYS = frozenset({"type", "seq", "request_id", "time_left_ms", "legal", "default_id"})
_ACTION_KEYS = frozenset({"type", "tile", "tiles"})


@dataclass(frozen=True, slots=True)
class FastRequest:
    """A ``request`` frame read by :func:`decode_request_frame`."""

    seq: int
    request_id: str
    time_left_ms: int
    legal: tuple[tuple[int, Action], ...]
    default_id: int
    drawn_tile: Tile | None


def decode_request_frame(frame: str | bytes) -> FastRequest | None:
    """The fast path for ``request`` frames (one per decision, with up to ~20 actions).

    It accepts only a request in exactly the standard layout and otherwise returns
    ``None``, leaving the frame to :func:`decode_server_frame`; so on what it accepts it
    agrees with the pydantic model (``tests/test_wire_fastpath.py`` checks that).

    >>> r = decode_request_frame('{"type":"request","seq":4,"request_id":"9","time_left_ms":3000,'
    ...     '"legal":[{"id":0,"action":{"type":"win"}},{"id":1,"action":{"type":"pass"}}],"default_id":1}')
    >>> r.request_id, [str(a) for _, a in r.legal], r.default_id
    ('9', ['win', 'pass'], 1)
    """
    if not (
        isinstance(frame, str) and len(frame) <= MAX_FRAME and frame.startswith('{"type":"request"')
    ):
        return None
    try:
        data = json.loads(frame)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    keys = data.keys()
    drawn_text = data.get("drawn_tile")
    if not (keys >= _REQUEST_KEYS and len(keys) - (drawn_text is not None) == len(_REQUEST_KEYS)):
        return None
    seq, rid, left, default_id, legal = (
        data["seq"], data["request_id"], data["time_left_ms"], data["default_id"], data["legal"]
    )  # fmt: skip
    if not (
        type(seq) is int and seq >= 0 and type(rid) is str and 1 <= len(rid) <= 64
        and type(left) is int and left >= 0 and type(default_id) is int and default_id >= 0
        and type(legal) is list and legal
    ):  # fmt: skip
        return None
    pairs = []
    for item in legal:
        pair = _fast_legal(item)
        if pair is None:
            return None
        pairs.append(pair)
    ids = [i for i, _ in pairs]
    if len(set(ids)) != len(ids) or default_id not in ids:
        return None
    drawn = None
    if drawn_text is not None:
        if type(drawn_text) is not str:
            return None
        try:
            drawn = Tile.parse(drawn_text)
        except TileParseError:
            return None
    return FastRequest(seq, rid, left, tuple(pairs), default_id, drawn)


def _fast_legal(item: object) -> tuple[int, Action] | None:
    if type(item) is not dict or item.keys() != {"id", "action"}:
        return None
    action_id, data = item["id"], item["action"]
    if (
        type(action_id) is not int
        or action_id < 0
        or type(data) is not dict
        or not data.keys() <= _ACTION_KEYS
    ):
        return None
    tile, tiles = data.get("tile"), data.get("tiles")
    if (tile is not None and type(tile) is not str) or (
        tiles is not None and (type(tiles) is not list or any(type(t) is not str for t in tiles))
    ):
        return None
    try:
        return action_id, Action.from_json(data)
    except (ActionParseError, TileParseError):
        return None


def peek(frame: str | bytes) -> dict[str, Any] | None:
    """The frame as a JSON object if it is one (for error reports), else ``None``."""
    try:
        data = json.loads(frame)
    except (ValueError, RecursionError, TypeError):
        return None
    return data if isinstance(data, dict) else None


def _decode(frame: str | bytes, known: frozenset[str], adapter: Any) -> Any:
    if isinstance(frame, bytes | bytearray):
        try:
            frame = bytes(frame).decode("utf-8")
        except UnicodeDecodeError:
            raise WireDecodeError(frame, "a frame is UTF-8 JSON text") from None
    if not isinstance(frame, str):
        raise WireDecodeError(frame, f"a frame is text, not {type(frame).__name__}")
    if len(frame) > MAX_FRAME:
        raise WireDecodeError(frame, f"a frame has at most {MAX_FRAME} characters")
    try:
        data = json.loads(frame)
    except (ValueError, RecursionError) as exc:
        raise WireDecodeError(frame, f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise WireDecodeError(frame, "a frame is a JSON object")
    type_ = data.get("type")
    if not isinstance(type_, str):
        raise WireDecodeError(frame, "a frame has a string 'type'")
    if type_ not in known:
        raise UnknownMessageError(frame, type_)
    try:
        return adapter.validate_json(frame)
    except (ValidationError, ValueError, RecursionError) as exc:
        raise WireDecodeError(frame, f"invalid {type_!r} message: {_summary(exc)}") from None


def _summary(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(
            f"{'.'.join(map(str, e['loc'][1:])) or e['loc'][0] if e['loc'] else 'frame'}: {e['msg']}"
            for e in exc.errors()[:3]
        )
    return str(exc)


def decode_server_frame(frame: str | bytes) -> ServerMessage:
    """Read a frame the server sent (client side)."""
    return _decode(frame, SERVER_TYPES, server_adapter)  # type: ignore[no-any-return]


def decode_client_frame(frame: str | bytes) -> ClientMessage:
    """Read a frame a client sent (server side)."""
    return _decode(frame, CLIENT_TYPES, client_adapter)  # type: ignore[no-any-return]
