"""Sans-I/O protocol v1 sessions: :class:`WireClient` (a bot) and :class:`WireServerSeat`
(one seat on the server). No sockets, no clock: the caller passes frames in, takes frames
out with ``data_to_send()``, and passes ``now`` (any monotonic seconds) where time
matters, in the style of h11 and websockets' sans-I/O objects.

>>> from protocol.actions import DISCARD, PASS
>>> from protocol.events import Discard
>>> from protocol.tiles import Tile
>>> server = WireServerSeat(seat=1, token="s3cret", match_id="m1", table_id="t1")
>>> client = WireClient(token="s3cret", bot_name="demo")
>>> server.connect(); server.receive_frame(client.hello(), now=0.0)
>>> [type(m).__name__ for f in server.data_to_send() for m in client.receive_frame(f)]
['SessionStart']
>>> server.push_event(Discard(0, Tile.M5))
>>> rid = server.request((PASS,), now=1.0)
>>> inputs = [m for f in server.data_to_send() for m in client.receive_frame(f)]
>>> [type(m).__name__ for m in inputs]
['Discard', 'ActionRequest']
>>> server.receive_frame(client.answer(PASS), now=1.5)
Decision(request_id='s1-1', action=Action.parse('pass'), defaulted=False, reason=None)
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from protocol.actions import Action
from protocol.defaults import default_action
from protocol.events import Event, HandEnd, project
from protocol.tiles import Tile
from protocol.wire import PROTOCOL_VERSION
from protocol.wire.codec import (
    UnknownMessageError,
    WireDecodeError,
    WireError,
    decode_client_frame,
    decode_event_frame,
    decode_request_frame,
    decode_server_frame,
    encode,
    event_frame,
    peek,
)
from protocol.wire.common import (
    ActionRequest,
    ErrorCode,
    Outcome,
    RejectReason,
    ServerError,
    SessionEnd,
    SessionStart,
    WireInput,
)
from protocol.wire.framelog import FrameLog
from protocol.wire.messages import (
    Ack,
    ActionModel,
    Bye,
    ErrorMsg,
    EventMsg,
    Hello,
    MatchConfig,
    Ready,
    Rejected,
    Reply,
    Request,
    Welcome,
)

__all__ = [
    "LOGGED_UNKNOWN",
    "Decision",
    "SequenceGapError",
    "VersionMismatchError",
    "WireClient",
    "WireServerSeat",
    "WireStateError",
    "clip",
]

log = logging.getLogger(__name__)

LOGGED_UNKNOWN = 20
"""Frames of unknown types logged per connection (as line seats log stray lines); the
rest are ignored silently."""


def clip(text: str, limit: int = 32) -> str:
    """``text`` as shown in a log line or an error message: its ``repr``, cut to
    ``limit`` characters (a peer chooses it, and may make it as long as a frame).

    >>> clip("teleport"), clip("z" * 1000, 8)
    ("'teleport'", "'zzzzzzzz'...")
    """
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."


class VersionMismatchError(WireError):
    """The peer speaks another protocol version."""


class SequenceGapError(WireError):
    """Events were missed: reconnect and resume with ``hello(last_seq)``."""

    def __init__(self, expected: int, got: int) -> None:
        self.expected, self.got = expected, got
        super().__init__(f"expected event {expected}, got {got}: resume from {expected - 1}")


class WireStateError(WireError):
    """A call that does not fit the session's state (e.g. answering without a request)."""


# --- client ----------------------------------------------------------------------------


class WireClient:
    """A bot's side of protocol v1. Send :meth:`hello` first, read every frame with
    :meth:`receive_frame` (it returns the same values as the line protocol's adapter),
    send :meth:`ready` once loaded, and answer each request with :meth:`answer`. After a
    disconnect or a :class:`SequenceGapError`, reconnect and send :meth:`hello` again: it
    carries :attr:`last_seq`, so the server resumes. With ``token=None`` the server seats
    the bot through its lobby; the token in ``welcome`` is kept for resuming."""

    def __init__(
        self, token: str | None, bot_name: str, client_version: str = "", bot_version: str = ""
    ) -> None:
        self.token, self.bot_name, self.client_version = token, bot_name, client_version
        self.bot_version = bot_version
        self.last_seq = 0
        self.seat: int | None = None
        self.welcome: Welcome | None = None
        self._request: ActionRequest | None = None
        self._ids: dict[Action, int] = {}
        self._unknown = 0

    def hello(self) -> str:
        """The ``hello`` frame (with ``last_seq`` once events were received)."""
        return encode(
            Hello(
                token=self.token,
                bot_name=self.bot_name,
                client_version=self.client_version,
                bot_version=self.bot_version,
                last_seq=self.last_seq or None,
            )
        )

    def ready(self) -> str:
        """The ``ready`` frame (after the bot's start-up work)."""
        return encode(Ready())

    def answer(self, action: Action) -> str:
        """The ``reply`` frame choosing ``action`` for the pending request."""
        request = self._request
        if request is None:
            raise WireStateError("there is no request to answer")
        action_id = self._ids.get(action)
        self._request = None
        if action_id is None:  # not offered: send it as is, the server will refuse it
            return encode(Reply(request_id=request.request_id, action=ActionModel.of(action)))
        return encode(Reply(request_id=request.request_id, action_id=action_id))

    @property
    def pending_request(self) -> ActionRequest | None:
        """The request the server is waiting on, if any."""
        return self._request

    def receive_frame(self, frame: str | bytes) -> list[WireInput]:
        """Read one server frame. Unknown message types are ignored with a warning;
        raises :class:`WireDecodeError`, :class:`VersionMismatchError` or
        :class:`SequenceGapError`."""
        fast = decode_event_frame(frame)
        if fast is not None:
            return self._event(*fast)
        fast_request = decode_request_frame(frame)
        if fast_request is not None:
            r = fast_request
            return self._new_request(r.seq, r.request_id, r.time_left_ms, r.legal, r.drawn_tile)
        try:
            msg = decode_server_frame(frame)
        except UnknownMessageError as exc:
            self._unknown += 1
            if self._unknown <= LOGGED_UNKNOWN:
                log.warning("protocol v1: ignoring a message of unknown type %s", clip(exc.type))
            return []
        handler = getattr(self, "_on_" + msg.type)
        return handler(msg)  # type: ignore[no-any-return]

    def _on_welcome(self, msg: Welcome) -> list[WireInput]:
        if msg.protocol_version != PROTOCOL_VERSION:
            raise VersionMismatchError(
                f"the server speaks protocol {msg.protocol_version}, this client {PROTOCOL_VERSION}"
            )
        self.welcome, self.seat = msg, msg.seat
        if msg.token is not None:
            self.token = msg.token  # a lobby seat: resume with the token the server gave
        if not msg.resumed:
            self.last_seq = 0
        config = msg.config.model_dump(mode="json")
        return [
            SessionStart(msg.seat, self.bot_name, msg.match_id, msg.table_id, config, msg.resumed)
        ]

    def _on_event(self, msg: EventMsg) -> list[WireInput]:
        return self._event(msg.seq, msg.to_event())

    def _event(self, seq: int, event: Event) -> list[WireInput]:
        if seq <= self.last_seq:
            return []  # already seen (a resume replays from last_seq)
        if seq != self.last_seq + 1:
            raise SequenceGapError(self.last_seq + 1, seq)
        self.last_seq = seq
        return [event]

    def _on_request(self, msg: Request) -> list[WireInput]:
        pairs = tuple((a.id, a.action.to_action()) for a in msg.legal)
        drawn = None if msg.drawn_tile is None else Tile.parse(msg.drawn_tile)
        return self._new_request(msg.seq, msg.request_id, msg.time_left_ms, pairs, drawn)

    def _new_request(
        self,
        seq: int,
        request_id: str,
        time_left_ms: int,
        pairs: Sequence[tuple[int, Action]],
        drawn: Tile | None,
    ) -> list[WireInput]:
        if seq > self.last_seq:
            raise SequenceGapError(self.last_seq + 1, seq)
        legal = tuple(a for _, a in pairs)
        self._ids = {a: i for i, a in pairs}
        seat = self.seat if self.seat is not None else -1
        self._request = ActionRequest(request_id, seat, legal, time_left_ms / 1000, drawn)
        return [self._request]

    def _settled(self, request_id: str) -> None:
        if self._request is not None and self._request.request_id == request_id:
            self._request = None

    def _on_ack(self, msg: Ack) -> list[WireInput]:
        self._settled(msg.request_id)
        return [Outcome(msg.request_id, True, msg.action.to_action())]

    def _on_rejected(self, msg: Rejected) -> list[WireInput]:
        self._settled(msg.request_id)
        applied = None if msg.applied is None else msg.applied.to_action()
        return [Outcome(msg.request_id, False, applied, msg.reason, msg.message)]

    def _on_error(self, msg: ErrorMsg) -> list[WireInput]:
        if msg.code is ErrorCode.VERSION_MISMATCH:
            raise VersionMismatchError(msg.message)
        return [ServerError(msg.code.value, msg.message, msg.fatal)]

    def _on_bye(self, msg: Bye) -> list[WireInput]:
        return [SessionEnd(msg.reason)]


# --- server ----------------------------------------------------------------------------

_ACTION_JSON: dict[Action, str] = {}


def action_json(action: Action) -> str:
    """The compact JSON text of an action, cached (actions are interned).

    >>> from protocol.actions import Action
    >>> action_json(Action.parse("chow 4m 6m"))
    '{"type":"chow","tiles":["4m","6m"]}'
    """
    text = _ACTION_JSON.get(action)
    if text is None:
        text = _ACTION_JSON[action] = json.dumps(action.to_json(), separators=(",", ":"))
    return text


def legal_json(legal: Sequence[Action]) -> str:
    """The ``legal`` list of a request frame: each action with its id, in order."""
    return (
        "[" + ",".join(f'{{"id":{i},"action":{action_json(a)}}}' for i, a in enumerate(legal)) + "]"
    )


@dataclass(frozen=True, slots=True)
class Decision:
    """What to apply to the referee for ``request_id``: the seat's ``action``, or its R17
    default (``defaulted``, with the ``reason``)."""

    request_id: str
    action: Action
    defaulted: bool = False
    reason: RejectReason | None = None


@dataclass(slots=True)
class _Pending:
    request_id: str
    legal: tuple[Action, ...]
    default: Action
    deadline: float
    frame_fields: tuple[str, str]
    """The request frame's text before and after ``time_left_ms``."""


class WireServerSeat:
    """One seat's protocol v1 state on the server; it outlives connections so that a
    bot can resume. Per connection: :meth:`connect`, then feed each frame to
    :meth:`receive_frame` and write :meth:`data_to_send`; :meth:`disconnect` when it
    drops. From the referee: :meth:`push_event` for every event (full or projected; it
    projects for its seat), :meth:`request` for each decision, :meth:`check_timeout` when
    :attr:`deadline` passes. A :class:`Decision` returned by :meth:`receive_frame` or
    :meth:`check_timeout` is applied to the referee exactly once."""

    def __init__(
        self,
        seat: int,
        token: str,
        match_id: str,
        table_id: str,
        config: MatchConfig | None = None,
    ) -> None:
        self.seat, self.token = seat, token
        self.match_id, self.table_id = match_id, table_id
        self.config = config or MatchConfig()
        self.seq = 0
        self.connected = False
        self.greeted = False
        self.ready = False
        self.startup_deadline: float | None = None
        self.bot_name = ""
        self.bot_version = ""
        self._log = FrameLog()
        """Every event frame sent, for resumes (finished hands packed)."""
        self._out: list[str] = []
        self._replay = self._replay_end = 0
        """``_log[_replay:_replay_end]``: the events a resume has still to send."""
        self._after: list[str] = []
        """Frames queued behind the replay (in order, after it)."""
        self._after_chars = 0
        self._unknown = 0
        """Frames of unknown types on this connection."""
        self._pending: _Pending | None = None
        self._settled: dict[str, Action | None] = {}
        """Every settled request id: the default applied if it timed out (a late reply is
        told what was played), else ``None``. Plain values, not :class:`Decision`
        objects: a long match settles thousands, and the server's garbage collector
        would walk every one on each full collection."""
        self._requests = 0

    # -- connection --

    def connect(self) -> None:
        """A new connection for this seat: the next frame must be ``hello``."""
        self.connected, self.greeted = True, False
        self._clear()

    def disconnect(self) -> None:
        """The connection dropped; the seat keeps being played by defaults (R17)."""
        self.connected = self.greeted = False
        self._clear()

    def _clear(self) -> None:
        self._out.clear()
        self._after.clear()
        self._replay = self._replay_end = self._after_chars = self._unknown = 0

    def data_to_send(self, max_replay: int | None = None) -> list[str]:
        """The frames to write now, in order (drains the queue).

        A resume's replay (every event after ``last_seq``: a whole match may be
        megabytes) is part of them; with ``max_replay`` only about that many characters
        of it are (at least one frame, none if 0), and the frames after it wait. Call
        again as the peer reads, while :attr:`replaying`."""
        out, self._out = self._out, []
        start, end = self._replay, self._replay_end
        if start < end:
            piece = self._log.frames(start, end, max_replay)
            stop = start + len(piece)
            out += piece
            self._replay = stop
            if stop == end:
                out += self._after
                self._after = []
                self._replay = self._replay_end = self._after_chars = 0
        return out

    @property
    def replaying(self) -> bool:
        """Whether a resume's replay is still being sent (see :meth:`data_to_send`)."""
        return self._replay < self._replay_end

    @property
    def held(self) -> int:
        """Characters of the frames waiting behind the replay (0 when not replaying)."""
        return self._after_chars

    def _queue(self, frame: str) -> None:
        if self._replay < self._replay_end:
            self._after.append(frame)
            self._after_chars += len(frame)
        else:
            self._out.append(frame)

    def _send(self, frame: str) -> None:
        if self.connected and self.greeted:
            self._queue(frame)

    def _error(self, code: ErrorCode, message: str, *, fatal: bool = False) -> None:
        if self.connected:
            self._queue(encode(ErrorMsg(seq=self.seq, code=code, message=message, fatal=fatal)))
        if fatal:
            self.greeted = False

    # -- from the referee --

    @property
    def deadline(self) -> float | None:
        """When the pending request times out (in the caller's ``now`` units)."""
        return None if self._pending is None else self._pending.deadline

    @property
    def pending_request_id(self) -> str | None:
        """The id of the request waiting for this seat's reply, if any."""
        return None if self._pending is None else self._pending.request_id

    def push_event(self, event: Event) -> None:
        """Record and send a referee event as this seat may see it."""
        seen = project(event, self.seat)
        if seen is None:
            return
        self.seq += 1
        frame = event_frame(self.seq, seen)
        self._log.append(frame)
        self._send(frame)
        if type(seen) is HandEnd:
            self._log.pack()

    def request(self, legal: Sequence[Action], now: float, drawn_tile: int | None = None) -> str:
        """Ask the seat to choose among the referee's ``legal`` actions; returns the
        request id. ``drawn_tile`` is the tile just drawn (for the R17 default)."""
        if self._pending is not None:
            raise WireStateError(f"request {self._pending.request_id} is still pending")
        legal = tuple(legal)
        default = default_action(legal, drawn_tile)
        self._requests += 1
        request_id = f"s{self.seat}-{self._requests}"  # never the same as another seat's
        fields = (
            f'"request_id":{json.dumps(request_id)},"time_left_ms":',
            f',"legal":{legal_json(legal)},"default_id":{legal.index(default)}'
            + ("" if drawn_tile is None else f',"drawn_tile":"{Tile(drawn_tile)}"')
            + "}",
        )
        budget = self.config.timing.decision_ms / 1000
        self._pending = _Pending(request_id, legal, default, now + budget, fields)
        self._send(self._request_frame(now))
        return request_id

    def _request_frame(self, now: float) -> str:
        """The ``request`` frame, built as text (the server's hottest frame); equal to
        ``encode(Request(...))``, which ``tests/test_wire_fastpath.py`` checks."""
        pending = self._pending
        assert pending is not None
        left = max(0, int((pending.deadline - now) * 1000))
        head, tail = pending.frame_fields
        return f'{{"type":"request","seq":{self.seq},{head}{left}{tail}'

    def check_timeout(self, now: float) -> Decision | None:
        """The R17 default if the pending request's deadline has passed."""
        pending = self._pending
        if pending is None or now < pending.deadline:
            return None
        return self._refuse(RejectReason.TIMEOUT, "no reply before the deadline")

    def startup_expired(self, now: float) -> bool:
        """Whether the start-up budget ran out before ``ready`` (the server then starts
        and plays the seat by defaults until it is ready)."""
        deadline = self.startup_deadline
        return not self.ready and deadline is not None and now >= deadline

    # -- from the client --

    def receive_frame(self, frame: str | bytes, now: float) -> Decision | None:
        """Read one client frame; returns a :class:`Decision` to apply, if any."""
        try:
            msg = decode_client_frame(frame)
        except UnknownMessageError as exc:
            self._unknown += 1
            if self._unknown <= LOGGED_UNKNOWN:
                log.warning(
                    "table %s seat %d: ignoring a message of unknown type %s",
                    self.table_id,
                    self.seat,
                    clip(exc.type),
                )
            elif self._unknown == LOGGED_UNKNOWN + 1:
                log.warning(
                    "table %s seat %d: more messages of unknown types on this connection,"
                    " not logged",
                    self.table_id,
                    self.seat,
                )
            return None
        except WireDecodeError as exc:
            return self._malformed(frame, exc)
        if not self.greeted and not isinstance(msg, Hello):
            self._error(ErrorCode.UNEXPECTED_MESSAGE, f"expected hello, not {msg.type}", fatal=True)
            return None
        if isinstance(msg, Hello):
            self._hello(msg, now)
            return None
        if isinstance(msg, Ready):
            self.ready = True
            return None
        return self._reply(msg, now)

    def _malformed(self, frame: str | bytes, exc: WireDecodeError) -> Decision | None:
        data = peek(frame)
        pending = self._pending
        if (
            data is not None
            and data.get("type") == "reply"
            and pending is not None
            and data.get("request_id") == pending.request_id
        ):
            return self._refuse(RejectReason.MALFORMED, exc.reason)
        self._error(ErrorCode.MALFORMED, exc.reason, fatal=not self.greeted)
        return None

    def _hello(self, msg: Hello, now: float) -> None:
        if msg.protocol_version != PROTOCOL_VERSION:
            text = f"this server speaks protocol {PROTOCOL_VERSION}, not {msg.protocol_version}"
            self._error(ErrorCode.VERSION_MISMATCH, text, fatal=True)
            return
        if msg.token != self.token:
            self._error(ErrorCode.BAD_TOKEN, "unknown token for this seat", fatal=True)
            return
        last = msg.last_seq or 0
        if last > self.seq:
            self._error(ErrorCode.BAD_RESUME, f"last_seq {last} is ahead of {self.seq}", fatal=True)
            return
        self.greeted, self.bot_name, self.bot_version = True, msg.bot_name, msg.bot_version
        resumed = msg.last_seq is not None
        if self.startup_deadline is None:
            self.startup_deadline = now + self.config.timing.startup_ms / 1000
        welcome = Welcome(
            seq=self.seq,
            seat=self.seat,
            match_id=self.match_id,
            table_id=self.table_id,
            token=self.token,
            config=self.config,
            resumed=resumed,
        )
        if self._replay < self._replay_end:  # a second hello while replaying: finish first
            self._out = self.data_to_send()
        self._out.append(encode(welcome))
        if last < len(self._log):  # sent in pieces by data_to_send(max_replay)
            self._replay, self._replay_end = last, len(self._log)
        if self._pending is not None:
            self._queue(self._request_frame(now))

    def _reply(self, msg: Reply, now: float) -> Decision | None:
        pending = self._pending
        if pending is None or msg.request_id != pending.request_id:
            settled = self._settled
            if msg.request_id not in settled:
                self._reject(msg.request_id, RejectReason.UNKNOWN_REQUEST, "no such request", None)
            elif (default := settled[msg.request_id]) is not None:
                self._reject(msg.request_id, RejectReason.LATE, "after the deadline", default)
            else:
                self._reject(msg.request_id, RejectReason.STALE, "already settled", None)
            return None
        if now > pending.deadline:
            return self._refuse(RejectReason.LATE, "after the deadline")
        if msg.action_id is not None:
            if msg.action_id >= len(pending.legal):
                return self._refuse(RejectReason.NOT_LEGAL, f"no legal action {msg.action_id}")
            action = pending.legal[msg.action_id]
        else:
            assert msg.action is not None
            action = msg.action.to_action()
            if action not in pending.legal:
                return self._refuse(RejectReason.NOT_LEGAL, f"{action} is not legal now")
        decision = Decision(pending.request_id, action)
        self._settle(decision)
        rid = json.dumps(decision.request_id)
        self._send(
            f'{{"type":"ack","seq":{self.seq},"request_id":{rid},"action":{action_json(action)}}}'
        )
        return decision

    def _settle(self, decision: Decision) -> None:
        timed_out = decision.reason is RejectReason.TIMEOUT
        self._settled[decision.request_id] = decision.action if timed_out else None
        self._pending = None

    def _refuse(self, reason: RejectReason, message: str) -> Decision:
        pending = self._pending
        assert pending is not None
        decision = Decision(pending.request_id, pending.default, True, reason)
        self._settle(decision)
        self._reject(pending.request_id, reason, message, pending.default)
        return decision

    def _reject(
        self, request_id: str, reason: RejectReason, message: str, applied: Action | None
    ) -> None:
        model = None if applied is None else ActionModel.of(applied)
        frame = Rejected(
            seq=self.seq, request_id=request_id, reason=reason, message=message, applied=model
        )
        self._send(encode(frame))

    def release(self) -> None:
        """Forget the match's frames and settled requests (the server keeps the match's
        record elsewhere): the seat is no longer served. A seat released mid-match
        replays nothing to a later resume."""
        self._log, self._settled, self._pending = FrameLog(), {}, None
        self._clear()

    def bye(self, reason: str = "") -> None:
        """End the session (after the match)."""
        self._send(encode(Bye(seq=self.seq, reason=reason)))
