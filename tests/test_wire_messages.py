"""Protocol v1 messages: round trips of every frame and REST body, strictness, the
committed schema, and fuzzing of both decoders."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.actions import PASS, PUNG, WIN, Action
from protocol.events import Discard, Draw, event_from_json
from protocol.tiles import Tile
from protocol.wire import PROTOCOL_VERSION
from protocol.wire import rest as r
from protocol.wire.codec import (
    UnknownMessageError,
    WireDecodeError,
    decode_client_frame,
    decode_server_frame,
    encode,
    event_frame,
)
from protocol.wire.common import ErrorCode, RejectReason
from protocol.wire.messages import (
    CLIENT_TYPES,
    SERVER_TYPES,
    Ack,
    ActionModel,
    Bye,
    ErrorMsg,
    EventMsg,
    Hello,
    LegalAction,
    MatchConfig,
    Ready,
    Rejected,
    Reply,
    Request,
    Welcome,
)
from protocol.wire.schema import SCHEMA_PATH, schema_text


def _a(text: str) -> ActionModel:
    return ActionModel.of(Action.parse(text))


SERVER = [
    Welcome(seq=0, seat=2, match_id="m-1", table_id="t-1", config=MatchConfig(hands=4)),
    Welcome(seq=12, seat=0, match_id="m", table_id="t", resumed=True),
    EventMsg(seq=1, event={"type": "draw", "seat": 1, "replacement": False}),
    EventMsg(seq=2, event={"type": "concealed_kong", "seat": 3}),
    Request(
        seq=9,
        request_id="17",
        time_left_ms=2950,
        legal=[LegalAction(id=0, action=_a("win")), LegalAction(id=1, action=_a("pass"))],
        default_id=1,
    ),
    Request(
        seq=9,
        request_id="18",
        time_left_ms=3000,
        legal=[
            LegalAction(id=0, action=_a("chow 4m 6m")),
            LegalAction(id=1, action=_a("discard 5m")),
        ],
        default_id=1,
        drawn_tile="5m",
    ),
    Ack(seq=9, request_id="17", action=_a("concealed_kong E")),
    Rejected(
        seq=9, request_id="17", reason=RejectReason.NOT_LEGAL, message="x", applied=_a("pass")
    ),
    Rejected(seq=9, request_id="16", reason=RejectReason.STALE),
    ErrorMsg(seq=0, code=ErrorCode.VERSION_MISMATCH, message="v2 only", fatal=True),
    Bye(seq=40, reason="match over"),
]
CLIENT = [
    Hello(token="tok", bot_name="b", client_version="1.2"),
    Hello(token="tok", bot_name="b", last_seq=41),
    Ready(),
    Reply(request_id="17", action_id=0),
    Reply(request_id="17", action=_a("added_kong 5p")),
]
REST: list[Any] = [
    r.Health(server_version="0.1.0"),
    r.TableCreate(
        seed=5,
        hands=8,
        seats=[
            r.SeatAssignment(seat=0, bot_name="a"),
            r.SeatAssignment(seat=1, bot_name="b", transport="line", command=["./bot"]),
        ],
    ),
    r.TableCreated(table_id="t", match_id="m", tokens={"0": "secret"}),
    r.TableStatus(
        table_id="t",
        match_id="m",
        status="running",
        hand_no=3,
        hands=16,
        seats=[r.SeatStatus(seat=0, bot_name="a", transport="ws", connected=True, ready=True)],
        scores=[100, -100, 0, 0],
    ),
    r.TableList(tables=[]),
    r.MatchLog(
        match_id="m",
        table_id="t",
        seed=1,
        hands=1,
        seat_names=["a", "b", "c", "d"],
        events=[Draw(0, False, Tile.M1).to_json()],
        scores=[0, 0, 0, 0],
    ),
    r.Leaderboard(
        entries=[
            r.LeaderboardEntry(
                rank=1, bot_name="a", matches=2, hands=32, total_score=9, mean_score=4.5
            )
        ]
    ),
    r.ErrorBody(code=ErrorCode.MALFORMED, message="bad seed"),
]


@pytest.mark.parametrize("msg", SERVER, ids=lambda m: m.type)
def test_every_server_message_round_trips(msg: Any) -> None:
    assert decode_server_frame(encode(msg)) == msg


@pytest.mark.parametrize("msg", CLIENT, ids=lambda m: m.type)
def test_every_client_message_round_trips(msg: Any) -> None:
    assert decode_client_frame(encode(msg)) == msg
    assert decode_client_frame(encode(msg).encode()) == msg


@pytest.mark.parametrize("body", REST, ids=lambda b: type(b).__name__)
def test_every_rest_body_round_trips(body: Any) -> None:
    assert type(body).model_validate_json(body.model_dump_json()) == body


def test_every_message_type_is_covered() -> None:
    assert {m.type for m in SERVER} == SERVER_TYPES
    assert {m.type for m in CLIENT} == CLIENT_TYPES


def test_events_and_actions_convert_to_the_referees_values() -> None:
    frame = event_frame(3, Discard(1, Tile.C))
    msg = decode_server_frame(frame)
    assert isinstance(msg, EventMsg) and msg.to_event() == Discard(1, Tile.C)
    assert event_from_json(msg.event) == Discard(1, Tile.C)
    assert _a("pung").to_action() is PUNG
    assert [a.action.to_action() for a in SERVER[4].legal] == [WIN, PASS]  # type: ignore[attr-defined]


def test_the_hello_carries_the_protocol_version() -> None:
    assert (
        json.loads(encode(Hello(token="t", bot_name="b")))["protocol_version"] == PROTOCOL_VERSION
    )


@pytest.mark.parametrize(
    ("frame", "why"),
    [
        (
            '{"type": "event", "seq": "1", "event": {"type": "draw", "seat": 1, "replacement": false}}',
            "seq",
        ),
        (
            '{"type": "event", "seq": 1, "event": {"type": "draw", "seat": 1}}',
            "not a referee event",
        ),
        ('{"type": "event", "seq": 0, "event": {"type": "exhaustive_draw"}}', "seq"),
        (
            '{"type": "request", "seq": 1, "request_id": "1", "time_left_ms": 5, "legal": [], "default_id": 0}',
            "legal",
        ),
        (
            '{"type": "ack", "seq": 1, "request_id": "1", "action": {"type": "discard"}}',
            "needs a tile",
        ),
        (
            '{"type": "ack", "seq": 1, "request_id": "1", "action": {"type": "discard", "tile": "0m"}}',
            "is not a tile",
        ),
        ('{"type": "welcome", "seq": 0, "seat": 4, "match_id": "m", "table_id": "t"}', "seat"),
        ("[1, 2]", "a JSON object"),
        ('{"seq": 1}', "string 'type'"),
        ("{", "not JSON"),
    ],
)
def test_malformed_server_frames_raise_wire_decode_error(frame: str, why: str) -> None:
    with pytest.raises(WireDecodeError, match=why):
        decode_server_frame(frame)


def test_a_reply_names_exactly_one_of_id_and_action() -> None:
    with pytest.raises(WireDecodeError, match="exactly one"):
        decode_client_frame('{"type": "reply", "request_id": "1"}')
    with pytest.raises(WireDecodeError, match="exactly one"):
        decode_client_frame(
            '{"type": "reply", "request_id": "1", "action_id": 0, "action": {"type": "pass"}}'
        )


def test_unknown_types_and_fields_from_a_newer_peer() -> None:
    with pytest.raises(UnknownMessageError) as info:
        decode_server_frame('{"type": "spectate", "seq": 3}')
    assert info.value.type == "spectate"
    msg = decode_client_frame('{"type": "ready", "gpu": "yes"}')
    assert msg == Ready()


def test_the_committed_schema_matches_the_models() -> None:
    assert SCHEMA_PATH.read_text() == schema_text(), (
        "protocol/schema/protocol-v1.schema.json is out of date: "
        "run python -m protocol.wire --schema"
    )
    doc = json.loads(SCHEMA_PATH.read_text())
    assert set(doc["server_message"]["discriminator"]["mapping"]) == {m.type for m in SERVER}
    assert {"Hello", "Reply", "TableCreate", "MatchLog", "Leaderboard"} <= set(doc["$defs"])


def test_the_schema_command_checks_and_writes(tmp_path: Any) -> None:
    from protocol.wire.__main__ import main

    path = tmp_path / "s.json"
    assert main(["--schema", "--check", str(path)]) == 1
    assert main(["--schema", str(path)]) == 0
    assert main(["--schema", "--check", str(path)]) == 0


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
frame_like = st.fixed_dictionaries(
    {"type": st.sampled_from(sorted(SERVER_TYPES | CLIENT_TYPES | {"x"}))},
    optional={
        "seq": json_values,
        "request_id": json_values,
        "event": json_values,
        "action": json_values,
        "action_id": json_values,
        "legal": json_values,
        "token": json_values,
        "bot_name": json_values,
    },
)


@given(st.binary(max_size=200))
def test_random_bytes_raise_only_wire_decode_error(data: bytes) -> None:
    for decode in (decode_server_frame, decode_client_frame):
        with contextlib.suppress(WireDecodeError):
            decode(data)


@given(st.one_of(json_values, frame_like))
def test_random_json_raises_only_wire_decode_error(value: Any) -> None:
    text = json.dumps(value)
    for decode in (decode_server_frame, decode_client_frame):
        with contextlib.suppress(WireDecodeError):
            decode(text)
