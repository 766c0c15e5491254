"""The event-frame fast path decodes exactly what the pydantic decoder does."""

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
