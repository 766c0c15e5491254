"""Transcripts of the client session over a scripted transport (protocol v1).

The server's frames are produced by the real sans-I/O server seat
(:class:`WireServerSeat`) fed from the referee, so they are exactly what a server sends;
the client's frames are checked against the script as they are written.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import Awaitable, Callable

import pytest

from protocol.actions import Action
from protocol.events import Event
from protocol.hand_state import HandState
from protocol.wire import WireClient, WireDecodeError, WireServerSeat
from sdk.bot import Bot, DecisionRequest, MatchInfo
from sdk.budget import Outcome
from sdk.session import ConnectionLost, Reconnect, ServerRefused, Session, drive
from sdk.transports.mock import MISSING, MockScriptError, MockTransport
from sdk.transports.ws import WireCodec
from sdk.view import GameView

FAST = Reconnect(attempts=3, initial=0.001, maximum=0.01)


class Table:
    """The server side of one seat (seat 0, the dealer) for writing transcripts."""

    def __init__(self, seed: int = 3) -> None:
        self.hand = HandState.new(seed=seed, dealer=0)
        self.seat = WireServerSeat(0, "tok", "m1", "t1")
        self.legal = self.hand.legal_actions(0)

    def hello(self, last_seq: int | None = None, now: float = 0.0) -> list[str]:
        self.seat.connect()
        hello = {"type": "hello", "token": "tok", "bot_name": "b", "last_seq": last_seq}
        self.seat.receive_frame(json.dumps({k: v for k, v in hello.items() if v is not None}), now)
        return self.seat.data_to_send()

    def events(self) -> list[str]:
        for event in self.hand.events:
            self.seat.push_event(event)
        return self.seat.data_to_send()

    def request(self, now: float = 0.0) -> list[str]:
        self.rid = self.seat.request(self.legal, now, self.hand.drawn_tile(0))
        return self.seat.data_to_send()

    def reply(self, action: Action, now: float = 0.5) -> list[str]:
        frame = {"type": "reply", "request_id": self.rid, "action_id": self.legal.index(action)}
        decision = self.seat.receive_frame(json.dumps(frame), now)
        assert decision is not None and decision.action == action
        return self.seat.data_to_send()

    def bye(self) -> list[str]:
        self.seat.bye("match over")
        return self.seat.data_to_send()

    def reply_matcher(self, action: Action) -> dict[str, object]:
        return {"type": "reply", "request_id": self.rid, "action_id": self.legal.index(action)}


def session_for(bot: Bot, **kwargs: object) -> Session:
    return Session(bot, WireCodec(WireClient("tok", bot.name)), strict=True, **kwargs)  # type: ignore[arg-type]


def last_legal(view: GameView, request: DecisionRequest) -> Action:
    return request.legal_actions[-1]


def replies(transport: MockTransport) -> list[str]:
    return [f for ch in transport.channels for f in ch.sent if json.loads(f)["type"] == "reply"]


class Async(Bot):
    """A coroutine bot around ``fn`` (``Bot.from_function`` would run a coroutine
    function in a thread, on a loop of its own)."""

    def __init__(self, fn: Callable[[GameView, DecisionRequest], Awaitable[Action]]) -> None:
        super().__init__("b")
        self.fn = fn

    async def choose(self, view: GameView, request: DecisionRequest) -> Action:
        return await self.fn(view, request)


class Recorder(Bot):
    """Records its hooks; answers the last legal action."""

    def __init__(self) -> None:
        super().__init__("recorder")
        self.calls: list[str] = []
        self.info: MatchInfo | None = None

    def choose(self, view: GameView, request: DecisionRequest) -> Action:
        self.calls.append(f"choose {len(view.hand)}")
        return request.legal_actions[-1]

    def on_match_start(self, info: MatchInfo) -> None:
        self.info = info
        self.calls.append("match_start")

    def on_hand_start(self, view: GameView) -> None:
        self.calls.append(f"hand_start {len(view.hand)}")

    def on_event(self, view: GameView, event: Event) -> None:
        self.calls.append(event.type)


async def test_a_decision_from_hello_to_bye() -> None:
    table = Table()
    transport = MockTransport()
    bot = Recorder()
    (transport.connection()
        .expect({"type": "hello", "token": "tok", "bot_name": "recorder", "last_seq": MISSING},
                *table.hello())
        .expect({"type": "ready"}, *table.events(), *table.request())
        .expect(table.reply_matcher(table.legal[-1]), *table.reply(table.legal[-1]), *table.bye()))  # fmt: skip
    result = await drive(session_for(bot), transport.connect)
    transport.assert_done()
    assert result.completed and result.end_reason == "match over"
    assert (result.seat, result.match_id, result.table_id, result.hands) == (0, "m1", "t1", 1)
    assert result.stats.outcomes == {Outcome.OK: 1} and result.overhead.count == 1
    assert result.mismatches == 0 and result.reconnects == 0
    assert bot.info is not None and (bot.info.seat, bot.info.hands) == (0, 16)
    assert bot.info.decision_seconds == 3.0
    deal = ["deal"] * 4
    assert bot.calls == ["match_start", "hand_start", *deal, "hand_start 17", "choose 17"]


async def test_resume_replays_the_missed_events_and_answers_the_pending_request() -> None:
    table = Table()
    transport = MockTransport()
    welcome = table.hello()
    events = table.events()
    transport.connection().expect({"type": "hello"}, *welcome).expect(
        {"type": "ready"}, *events[:3]
    ).drop()
    table.seat.disconnect()
    table.request(now=10.0)  # sent while the bot is away
    resumed = table.hello(last_seq=3, now=10.5)
    assert [json.loads(f)["type"] for f in resumed] == ["welcome", "event", "event", "request"]
    assert json.loads(resumed[-1])["time_left_ms"] == 2500
    action = table.legal[-1]
    (transport.connection()
        .expect({"type": "hello", "token": "tok", "last_seq": 3}, resumed[0])
        .expect({"type": "ready"}, *resumed[1:])
        .expect(table.reply_matcher(action), *table.reply(action, now=10.6), *table.bye()))  # fmt: skip
    bot = Bot.from_function(last_legal, name="b")
    result = await drive(session_for(bot), transport.connect, FAST)
    transport.assert_done()
    assert result.completed and result.reconnects == 1 and result.hands == 1
    assert result.stats.outcomes == {Outcome.OK: 1} and result.mismatches == 0


async def test_a_bot_thinking_across_a_drop_answers_once_on_the_new_connection() -> None:
    table = Table()
    transport = MockTransport()
    welcome, events, request = table.hello(), table.events(), table.request(now=0.0)
    transport.connection().expect({"type": "hello"}, *welcome).expect(
        {"type": "ready"}, *events, *request
    ).drop()
    table.seat.disconnect()
    resumed = table.hello(last_seq=len(events), now=0.2)
    action = table.legal[-1]
    (transport.connection()
        .expect({"type": "hello", "last_seq": len(events)}, resumed[0])
        .expect({"type": "ready"}, *resumed[1:])
        .expect(table.reply_matcher(action), *table.reply(action), *table.bye()))  # fmt: skip

    async def slow(view: GameView, request: DecisionRequest) -> Action:
        await asyncio.sleep(0.3)
        return request.legal_actions[-1]

    result = await drive(session_for(Async(slow)), transport.connect, FAST)
    transport.assert_done()
    assert len(replies(transport)) == 1
    assert result.stats.outcomes == {Outcome.OK: 1} and result.reconnects == 1


async def test_a_reply_lost_in_a_drop_is_sent_again_when_the_server_asks_again() -> None:
    table = Table()
    transport = MockTransport()
    action = table.legal[-1]
    welcome, events, request = table.hello(), table.events(), table.request()
    transport.connection().expect({"type": "hello"}, *welcome).expect(
        {"type": "ready"}, *events, *request
    ).expect(table.reply_matcher(action)).drop()
    table.seat.disconnect()  # the reply never reached the server
    resumed = table.hello(last_seq=len(events), now=0.3)
    (transport.connection()
        .expect({"type": "hello"}, resumed[0])
        .expect({"type": "ready"}, *resumed[1:])
        .expect(table.reply_matcher(action), *table.reply(action), *table.bye()))  # fmt: skip
    result = await drive(session_for(Bot.from_function(last_legal)), transport.connect, FAST)
    transport.assert_done()
    assert result.resent == 1 and result.stats.count == 1
    assert [len([f for f in ch.sent if '"reply"' in f]) for ch in transport.channels] == [1, 1]


async def test_a_resent_request_with_less_time_than_the_margin_gets_the_fallback_at_once() -> None:
    table = Table()
    transport = MockTransport()
    welcome, events = table.hello(), table.events()
    transport.connection().expect({"type": "hello"}, *welcome).expect(
        {"type": "ready"}, *events
    ).drop()
    table.seat.disconnect()
    table.request(now=0.0)
    resumed = table.hello(last_seq=len(events), now=2.9)  # 100 ms left, margin 200 ms
    default = table.hand.legal_actions(0)
    fallback = DecisionRequest(default, 0.0, "", table.hand.drawn_tile(0)).default()
    (transport.connection()
        .expect({"type": "hello"}, resumed[0])
        .expect({"type": "ready"}, *resumed[1:])
        .expect(table.reply_matcher(fallback), *table.reply(fallback, now=2.95), *table.bye()))  # fmt: skip
    release = asyncio.Event()

    async def stuck(view: GameView, request: DecisionRequest) -> Action:
        await release.wait()
        return request.legal_actions[0]

    loop = asyncio.get_running_loop()
    start = loop.time()
    result = await drive(session_for(Async(stuck)), transport.connect, FAST)
    transport.assert_done()
    assert result.stats.outcomes == {Outcome.LATE: 1}
    assert loop.time() - start < 2.0  # not the 2.8 s of a fresh request


async def test_a_request_settled_by_the_server_meanwhile_is_not_answered() -> None:
    table = Table()
    transport = MockTransport()
    release = asyncio.Event()

    async def waits(view: GameView, request: DecisionRequest) -> Action:
        await release.wait()
        return request.legal_actions[0]

    async def let_the_bot_answer() -> None:
        release.set()
        await asyncio.sleep(0.1)

    welcome, events, request = table.hello(), table.events(), table.request()
    decision = table.seat.check_timeout(now=3.0)  # the server's clock ran out first
    assert decision is not None and decision.defaulted
    rejected = table.seat.data_to_send()
    for event in table.hand.apply(0, decision.action):
        table.seat.push_event(event)
    after = table.seat.data_to_send()
    (transport.connection()
        .expect({"type": "hello"}, *welcome)
        .expect({"type": "ready"}, *events, *request, *rejected)
        .wait(let_the_bot_answer)
        .incoming(*after, *table.bye()))  # fmt: skip
    result = await drive(session_for(Async(waits)), transport.connect)
    transport.assert_done()
    assert replies(transport) == []
    assert result.discarded == 1 and result.rejections == {"timeout": 1}
    assert result.completed


async def test_unreadable_frames_are_skipped_unless_strict(
    caplog: pytest.LogCaptureFixture,
) -> None:
    table = Table()
    for strict in (False, True):
        transport = MockTransport()
        channel = transport.connection()
        channel.expect({"type": "hello"}, *table.hello()).expect(
            {"type": "ready"}, '{"type": "event", "seq": "one"}', *table.bye()
        )
        codec = WireCodec(WireClient("tok", "b"))
        session = Session(Bot.from_function(last_legal), codec, strict=strict)
        if strict:
            with pytest.raises(WireDecodeError):
                await drive(session, transport.connect)
        else:
            with caplog.at_level(logging.ERROR, "sdk.session"):
                assert (await drive(session, transport.connect)).completed
            assert "cannot be read" in caplog.text


async def test_fatal_errors_end_the_session_but_a_taken_seat_is_retried() -> None:
    refused = '{"type": "error", "seq": 0, "code": "bad_token", "message": "no", "fatal": true}'
    transport = MockTransport()
    transport.connection().expect({"type": "hello"}, refused)
    with pytest.raises(ServerRefused, match="bad_token"):
        await drive(session_for(Bot.from_function(last_legal)), transport.connect, FAST)
    transport.assert_done()

    table = Table()
    taken = '{"type": "error", "seq": 0, "code": "seat_taken", "message": "busy", "fatal": true}'
    transport = MockTransport()
    transport.connection().expect({"type": "hello"}, taken)
    transport.connection().expect({"type": "hello"}, *table.hello()).expect(
        {"type": "ready"}, *table.bye()
    )
    result = await drive(session_for(Bot.from_function(last_legal)), transport.connect, FAST)
    transport.assert_done()
    assert result.completed


async def test_reconnecting_gives_up_after_the_policy() -> None:
    transport = MockTransport()  # no connection can be made
    with pytest.raises(ConnectionLost, match="gave up after 3"):
        await drive(session_for(Bot.from_function(last_legal)), transport.connect, FAST)


async def test_the_mock_fails_on_an_unexpected_frame() -> None:
    table = Table()
    transport = MockTransport()
    transport.connection().expect({"type": "hello", "token": "someone else"}, *table.hello())
    with pytest.raises(MockScriptError, match="unexpected frame"):
        await drive(session_for(Bot.from_function(last_legal)), transport.connect)


def test_backoff_grows_with_jitter_and_is_capped() -> None:
    policy, rng = Reconnect(initial=0.1, factor=2.0, maximum=1.0), random.Random(0)
    delays = [policy.delay(n, rng) for n in range(8)]
    assert 0.05 <= delays[0] <= 0.1 and 0.1 <= delays[1] <= 0.2
    assert all(0.5 <= d <= 1.0 for d in delays[4:])
    assert len({round(policy.delay(3, rng), 6) for _ in range(20)}) > 1
