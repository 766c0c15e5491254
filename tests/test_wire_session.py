"""Protocol v1 sessions: handshake, sequence numbers, decisions, R17 defaults, resume."""

from __future__ import annotations

import json
import random

import pytest

from protocol.actions import DISCARD, PASS, PUNG, WIN
from protocol.events import Declined, Discard, Draw, Event
from protocol.match import Match
from protocol.tiles import Tile
from protocol.wire import (
    ActionRequest,
    Decision,
    ErrorCode,
    Outcome,
    RejectReason,
    SequenceGapError,
    ServerError,
    SessionStart,
    VersionMismatchError,
    WireClient,
    WireServerSeat,
)


def _pair(seat: int = 1) -> tuple[WireServerSeat, WireClient]:
    server = WireServerSeat(seat, "tok", "m1", "t1")
    client = WireClient("tok", "bot")
    server.connect()
    server.receive_frame(client.hello(), now=0.0)
    return server, client


def _deliver(server: WireServerSeat, client: WireClient) -> list[object]:
    return [m for f in server.data_to_send() for m in client.receive_frame(f)]


def _types(frames: list[str]) -> list[str]:
    return [json.loads(f)["type"] for f in frames]


def test_handshake_welcome_and_ready() -> None:
    server, client = _pair(2)
    (start,) = _deliver(server, client)
    assert start == SessionStart(2, "bot", "m1", "t1", start.config, False)  # type: ignore[attr-defined]
    assert start.config["timing"] == {"decision_ms": 3000, "startup_ms": 30000}  # type: ignore[attr-defined]
    assert server.startup_deadline == 30.0 and not server.startup_expired(10.0)
    assert server.startup_expired(30.0)
    server.receive_frame(client.ready(), now=1.0)
    assert server.ready and not server.startup_expired(31.0)


def test_version_mismatch_is_a_clear_fatal_error_on_both_sides() -> None:
    server = WireServerSeat(0, "tok", "m", "t")
    server.connect()
    server.receive_frame(
        '{"type": "hello", "protocol_version": 2, "token": "tok", "bot_name": "b"}', 0.0
    )
    (frame,) = server.data_to_send()
    error = json.loads(frame)
    assert error["code"] == ErrorCode.VERSION_MISMATCH and error["fatal"]
    assert "protocol 1, not 2" in error["message"]
    with pytest.raises(VersionMismatchError):
        WireClient("tok", "b").receive_frame(frame)
    welcome = '{"type": "welcome", "seq": 0, "protocol_version": 2, "seat": 0, "match_id": "m", "table_id": "t"}'
    with pytest.raises(VersionMismatchError, match="protocol 2"):
        WireClient("tok", "b").receive_frame(welcome)


def test_bad_token_and_frames_before_hello_are_refused() -> None:
    server = WireServerSeat(0, "tok", "m", "t")
    server.connect()
    server.receive_frame('{"type": "ready"}', 0.0)
    assert json.loads(server.data_to_send()[0])["code"] == ErrorCode.UNEXPECTED_MESSAGE
    server.receive_frame(WireClient("wrong", "b").hello(), 0.0)
    assert json.loads(server.data_to_send()[0])["code"] == ErrorCode.BAD_TOKEN
    assert not server.greeted
    server.receive_frame(b"\xff", 0.0)
    assert json.loads(server.data_to_send()[0])["code"] == ErrorCode.MALFORMED


def test_events_are_projected_numbered_and_gaps_detected() -> None:
    server, client = _pair(1)
    _deliver(server, client)
    server.push_event(Draw(0, False, Tile.M5))  # another seat's draw: no tile
    server.push_event(Declined(0, Tile.M5, True, False))  # another seat's: not seen at all
    server.push_event(Draw(1, False, Tile.E))
    frames = server.data_to_send()
    assert [json.loads(f)["seq"] for f in frames] == [1, 2]
    assert json.loads(frames[0])["event"] == {"type": "draw", "seat": 0, "replacement": False}
    assert [client.receive_frame(f) for f in frames] == [[Draw(0, False)], [Draw(1, False, Tile.E)]]
    assert client.receive_frame(frames[1]) == []  # a replayed event is skipped
    gap = '{"type": "event", "seq": 4, "event": {"type": "discard", "seat": 0, "tile": "E"}}'
    with pytest.raises(SequenceGapError, match="expected event 3, got 4"):
        client.receive_frame(gap)


def test_a_request_is_answered_by_id_and_acknowledged() -> None:
    server, client = _pair()
    _deliver(server, client)
    server.push_event(Discard(0, Tile.C))
    rid = server.request((WIN, PUNG, PASS), now=5.0)
    _, request = _deliver(server, client)
    assert isinstance(request, ActionRequest)
    assert request.legal == (WIN, PUNG, PASS) and request.time_left == 3.0
    assert request.request_id == rid and request.default is PASS
    assert server.deadline == 8.0
    decision = server.receive_frame(client.answer(PUNG), now=6.0)
    assert decision == Decision(rid, PUNG)
    assert _deliver(server, client) == [Outcome(rid, True, PUNG)]
    assert server.deadline is None


def test_a_reply_may_name_the_action_itself() -> None:
    server, _ = _pair()
    rid = server.request((DISCARD[0], DISCARD[5]), now=0.0, drawn_tile=5)
    frame = json.dumps(
        {"type": "reply", "request_id": rid, "action": {"type": "discard", "tile": "1m"}}
    )
    assert server.receive_frame(frame, now=1.0) == Decision(rid, DISCARD[0])


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ({"action_id": 7}, RejectReason.NOT_LEGAL),
        ({"action": {"type": "win"}}, RejectReason.NOT_LEGAL),
        ({"action": {"type": "discard"}}, RejectReason.MALFORMED),
        ({}, RejectReason.MALFORMED),
    ],
)
def test_bad_replies_get_the_r17_default_and_a_reason(reply: dict, reason: RejectReason) -> None:
    server, client = _pair()
    _deliver(server, client)
    rid = server.request((DISCARD[0], DISCARD[9]), now=0.0, drawn_tile=Tile.P1)
    _deliver(server, client)
    frame = json.dumps({"type": "reply", "request_id": rid, **reply})
    decision = server.receive_frame(frame, now=1.0)
    assert decision == Decision(rid, DISCARD[9], True, reason)  # the tile just drawn
    (outcome,) = _deliver(server, client)
    assert outcome == Outcome(rid, False, DISCARD[9], reason, outcome.message)  # type: ignore[attr-defined]


def test_timeout_then_late_then_stale_and_unknown_replies() -> None:
    server, client = _pair()
    _deliver(server, client)
    rid = server.request((PUNG, PASS), now=0.0)
    _deliver(server, client)
    answer = client.answer(PUNG)
    assert server.check_timeout(2.9) is None
    assert server.check_timeout(3.0) == Decision(rid, PASS, True, RejectReason.TIMEOUT)
    assert server.check_timeout(9.0) is None  # settled once
    assert server.receive_frame(answer, now=3.2) is None  # never applied twice
    frames = server.data_to_send()
    assert [json.loads(f)["reason"] for f in frames] == ["timeout", "late"]
    assert json.loads(frames[1])["applied"] == {"type": "pass"}
    rid2 = server.request((PUNG, PASS), now=10.0)
    assert server.receive_frame(
        json.dumps({"type": "reply", "request_id": rid2, "action_id": 0}), 11.0
    )
    assert (
        server.receive_frame(
            json.dumps({"type": "reply", "request_id": rid2, "action_id": 1}), 11.5
        )
        is None
    )
    assert (
        server.receive_frame('{"type": "reply", "request_id": "99", "action_id": 0}', 12.0) is None
    )
    frames = [json.loads(f) for f in server.data_to_send()]
    assert [(f["type"], f.get("reason")) for f in frames] == [
        ("request", None),
        ("ack", None),
        ("rejected", "stale"),
        ("rejected", "unknown_request"),
    ]
    assert "applied" not in frames[2] and "applied" not in frames[3]


def test_a_reply_after_the_deadline_but_before_the_timer_is_late() -> None:
    server, _ = _pair()
    rid = server.request((PUNG, PASS), now=0.0)
    frame = json.dumps({"type": "reply", "request_id": rid, "action_id": 0})
    assert server.receive_frame(frame, now=3.5) == Decision(rid, PASS, True, RejectReason.LATE)


def test_resume_sends_missed_events_and_the_pending_request_with_its_remaining_time() -> None:
    server, client = _pair(3)
    _deliver(server, client)
    server.push_event(Discard(0, Tile.M1))
    _deliver(server, client)
    server.disconnect()
    server.push_event(Discard(1, Tile.M2))
    server.push_event(Discard(2, Tile.M3))
    rid = server.request((PUNG, PASS), now=100.0)
    assert server.data_to_send() == []
    server.connect()
    server.receive_frame(client.hello(), now=101.0)
    frames = server.data_to_send()
    assert _types(frames) == ["welcome", "event", "event", "request"]
    assert json.loads(frames[0])["resumed"] is True
    assert json.loads(frames[3])["time_left_ms"] == 2000
    inputs = [m for f in frames for m in client.receive_frame(f)]
    assert inputs[1:3] == [Discard(1, Tile.M2), Discard(2, Tile.M3)]
    assert isinstance(inputs[3], ActionRequest) and inputs[3].request_id == rid
    assert server.receive_frame(client.answer(PASS), now=101.5) == Decision(rid, PASS)


def test_resume_from_the_future_is_refused() -> None:
    server = WireServerSeat(0, "tok", "m", "t")
    server.connect()
    server.receive_frame('{"type": "hello", "token": "tok", "bot_name": "b", "last_seq": 5}', 0.0)
    assert json.loads(server.data_to_send()[0])["code"] == ErrorCode.BAD_RESUME


def test_unknown_message_types_are_ignored_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    server, client = _pair()
    assert client.receive_frame('{"type": "spectators", "seq": 0, "count": 3}') == []
    assert server.receive_frame('{"type": "telemetry", "fps": 60}', 0.0) is None
    assert server.data_to_send()[1:] == []
    assert "spectators" in caplog.text and "telemetry" in caplog.text


def test_errors_reach_the_bot_as_values() -> None:
    client = WireClient("t", "b")
    frame = '{"type": "error", "seq": 0, "code": "bad_token", "message": "no", "fatal": true}'
    assert client.receive_frame(frame) == [ServerError("bad_token", "no", True)]


def test_a_whole_match_over_protocol_v1_gives_each_bot_its_projection() -> None:
    match = Match.new(seed=3, hands=2)
    seats = [WireServerSeat(s, f"tok{s}", "m", "t") for s in range(4)]
    clients = [WireClient(f"tok{s}", f"bot{s}") for s in range(4)]
    seen: list[list[Event]] = [[], [], [], []]
    rng = random.Random(0)
    now = 0.0

    def pump(s: int) -> list[object]:
        items = [m for f in seats[s].data_to_send() for m in clients[s].receive_frame(f)]
        seen[s].extend(i for i in items if isinstance(i, Event))
        return items

    for s in range(4):
        seats[s].connect()
        seats[s].receive_frame(clients[s].hello(), now)
        seats[s].receive_frame(clients[s].ready(), now)

    def publish(events: list[Event]) -> None:
        for ev in events:
            for seat in seats:
                seat.push_event(ev)

    publish(match.events)
    while not match.is_over:
        for s, legal in list(match.pending().items()):
            drawn = match.current.drawn_tile(s)
            seats[s].request(legal, now, drawn_tile=drawn)
            (request,) = [i for i in pump(s) if isinstance(i, ActionRequest)]
            assert request.legal == legal
            decision = seats[s].receive_frame(clients[s].answer(rng.choice(legal)), now + 0.1)
            assert decision is not None and not decision.defaulted
            pump(s)
            publish(match.apply(s, decision.action))
            now += 1.0
    for s in range(4):
        pump(s)
        want = [e.to_json() for e in match.projected_events(s)]
        assert [e.to_json() for e in seen[s]] == want
        assert clients[s].last_seq == seats[s].seq == len(want)
