"""The fast paths for event and request frames decode exactly what the pydantic decoder does."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.hand_state import HandState
from protocol.wire.codec import (
    WireDecodeError,
    decode_event_frame,
    decode_request_frame,
    decode_server_frame,
    event_frame,
)


def test_fast_path_agrees_with_the_model_on_real_games() -> None:
    rng = random.Random(1)
    frames = 0
    for seed in range(20):
        hand = HandState.new(seed=seed, dealer=seed % 4)
        while not hand.is_over:
            for seat, legal in list(hand.pending().items()):
                hand.apply(seat, rng.choice(legal))
        for seat in range(4):
            for seq, event in enumerate(hand.projected_events(seat), start=1):
                frame = event_frame(seq, event)
                assert decode_event_frame(frame) == (seq, event)
                slow = decode_server_frame(frame)
                assert (slow.seq, slow.to_event()) == (seq, event)
                frames += 1
    assert frames > 1000


@pytest.mark.parametrize(
    "frame",
    [
        '{"type":"event","seq":0,"event":{"type":"exhaustive_draw"}}',
        '{"type":"event","seq":true,"event":{"type":"exhaustive_draw"}}',
        '{"type":"event","seq":1,"event":{"type":"discard","seat":1}}',
        '{"type":"event","seq":1,"event":{"type":"discard","seat":1,"tile":"0m"}}',
        '{"type":"event","seq":1,"event":[]}',
        '{"type":"event","seq":1,"event":{"type":"nonsense"}}',
        '{"type":"event", broken',
    ],
)
def test_both_paths_refuse_bad_event_frames(frame: str) -> None:
    with pytest.raises(WireDecodeError):
        decode_event_frame(frame)
    with pytest.raises(WireDecodeError):
        decode_server_frame(frame)


def test_unusual_layouts_fall_back_to_the_full_decoder() -> None:
    frame = '{"type":"event","seq":1,"event":{"type":"exhaustive_draw"},"extra":1}'
    assert decode_event_frame(frame) is None
    # a newer peer's extra field is ignored by the full decoder (forward compatibility)
    assert decode_server_frame(frame).seq == 1


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["type", "seat", "tile", "count", "x"]), st.integers() | st.text(max_size=3)
    )
)
def test_fuzzed_event_payloads_never_crash(payload: dict) -> None:
    frame = '{"type":"event","seq":1,"event":' + json.dumps(payload) + "}"
    try:
        fast = decode_event_frame(frame)
    except WireDecodeError:
        fast = "refused"
    try:
        slow = decode_server_frame(frame).to_event()
        slow_result: object = (1, slow)
    except WireDecodeError:
        slow_result = "refused"
    assert fast == slow_result


def _request_frames() -> list[str]:
    """Real request frames from server seats over random games."""
    from protocol.wire import WireServerSeat

    rng = random.Random(2)
    frames = []
    for seed in range(6):
        hand = HandState.new(seed=seed, dealer=seed % 4)
        seats = [WireServerSeat(s, f"k{s}", "m", "t") for s in range(4)]
        for seat in seats:
            seat.connect()
            seat.receive_frame(
                json.dumps({"type": "hello", "token": seat.token, "bot_name": "b"}), 0.0
            )
            seat.data_to_send()
        while not hand.is_over:
            for s, legal in list(hand.pending().items()):
                seats[s].request(legal, 0.0, hand.drawn_tile(s))
                frames.extend(f for f in seats[s].data_to_send() if '"request"' in f)
                seats[s].check_timeout(10.0)  # settle it so the next request may go out
                seats[s].data_to_send()
                hand.apply(s, rng.choice(legal))
    return frames


def test_request_fast_path_agrees_with_the_model_on_real_requests() -> None:
    frames = _request_frames()
    assert len(frames) > 300
    for frame in frames:
        fast = decode_event_frame(frame)
        assert fast is None

        quick = decode_request_frame(frame)
        slow = decode_server_frame(frame)
        assert quick is not None
        assert (quick.seq, quick.request_id, quick.time_left_ms, quick.default_id) == (
            slow.seq,
            slow.request_id,
            slow.time_left_ms,
            slow.default_id,
        )
        assert list(quick.legal) == [(a.id, a.action.to_action()) for a in slow.legal]
        assert (None if slow.drawn_tile is None else str(quick.drawn_tile)) == slow.drawn_tile


_LEGAL = st.lists(
    st.fixed_dictionaries(
        {"id": st.integers(-1, 3) | st.just("1"), "action": st.sampled_from(
            [{"type": "win"}, {"type": "pass"}, {"type": "discard", "tile": "5m"}, {"type": "discard", "tile": "0m"},
             {"type": "chow", "tiles": ["4m", "6m"]}, {"type": "chow", "tiles": ["4m"]}, {"type": "pung", "x": 1}]
        )}
    ),
    max_size=4,
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    legal=_LEGAL,
    default_id=st.integers(-1, 3),
    left=st.integers(-5, 3000) | st.just(1.5),
    rid=st.text(max_size=3),
    drawn=st.none() | st.sampled_from(["1m", "E", "x", 5]),
)
def test_whatever_the_fast_path_accepts_the_model_accepts_identically(
    legal: list, default_id: int, left: object, rid: str, drawn: object
) -> None:

    body = {
        "type": "request",
        "seq": 0,
        "request_id": rid,
        "time_left_ms": left,
        "legal": legal,
        "default_id": default_id,
    }
    if drawn is not None:
        body["drawn_tile"] = drawn
    frame = json.dumps(body, separators=(",", ":"))
    quick = decode_request_frame(frame)
    if quick is None:
        return  # the full decoder judges it
    slow = decode_server_frame(frame)
    assert [(a.id, a.action.to_action()) for a in slow.legal] == list(quick.legal)
    assert (slow.request_id, slow.time_left_ms, slow.default_id) == (
        quick.request_id,
        quick.time_left_ms,
        quick.default_id,
    )


def test_server_builds_request_and_ack_frames_exactly_as_the_models_encode() -> None:
    from protocol.wire import WireClient, WireServerSeat, encode
    from protocol.wire.messages import Ack, ActionModel, LegalAction, Request

    rng = random.Random(3)
    checked = 0
    for seed in range(4):
        hand = HandState.new(seed=seed, dealer=seed % 4)
        servers = [WireServerSeat(s, f"k{s}", "m", "t") for s in range(4)]
        clients = [WireClient(f"k{s}", "b") for s in range(4)]
        for server, client in zip(servers, clients, strict=True):
            server.connect()
            server.receive_frame(client.hello(), 0.0)
            for f in server.data_to_send():
                client.receive_frame(f)
        while not hand.is_over:
            for s, legal in list(hand.pending().items()):
                drawn = hand.drawn_tile(s)
                rid = servers[s].request(legal, 1.0, drawn)
                (frame,) = servers[s].data_to_send()
                default = legal.index(servers[s]._pending.default)
                expected = Request(
                    seq=servers[s].seq,
                    request_id=rid,
                    time_left_ms=3000,
                    legal=[
                        LegalAction(id=i, action=ActionModel.of(a)) for i, a in enumerate(legal)
                    ],
                    default_id=default,
                    drawn_tile=None if drawn is None else str(drawn),
                )
                assert frame == encode(expected)
                clients[s].receive_frame(frame)
                action = rng.choice(legal)
                servers[s].receive_frame(clients[s].answer(action), 1.5)
                (ack,) = servers[s].data_to_send()
                assert ack == encode(
                    Ack(seq=servers[s].seq, request_id=rid, action=ActionModel.of(action))
                )
                checked += 1
                hand.apply(s, action)
    assert checked > 100
