"""Points of the tournament line protocol (``tcga-line-protocol.md``) checked as scripted
transcripts: given these lines in, these lines out.

Server side (our referee hosting a program written for the tournament referee): the
start-up handshake, each ``/ask`` timed on its own, the echo of every meld kind with the
ids the program named, a self-drawn ``/hu`` and ``/exit`` at the end of the match.
Client side (our bot under the tournament referee): the public forms of ``/start`` and
line endings through the real stream channel, the round wind under a referee that always
writes ``East East``, and a ``/hu`` that lists the winner's declared sets.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence

import httpx
import pytest
from line_helpers import numbered_in_place_order

from protocol.actions import ADDED_KONG, DISCARD, KONG, PASS, PUNG, WIN, Action, ActionKind
from protocol.events import HandStart
from protocol.hand_state import HandState
from protocol.line.adapter import (
    Decided,
    LineClientAdapter,
    LineServerSeat,
    LineStateError,
    LineTable,
    NextAsk,
    TileIdTracker,
)
from protocol.line.client import _concealed_part
from protocol.line.tile_ids import kind_of
from protocol.match import Match, hand_plan
from protocol.melds import Meld, MeldKind
from protocol.tiles import Tile, parse_tiles
from protocol.wall import build_wall
from protocol.wire.common import SessionEnd, SessionStart
from sdk.server.config import ServerConfig
from sdk.server.records import Clock, DecisionRecord, Outcome
from sdk.server.runner import running_server
from sdk.server.seats import Ask, LineSeat
from sdk.transports.line import LineCodec, StreamChannel

# --- a scripted hand, its walls numbered along the deal ---------------------------------

DEALER = parse_tiles("123456789s EEE SS W 4p N")  # N is the 17th tile (the one drawn)
SEAT1 = parse_tiles("123m 456m 789m 11p 23p SWF")  # may chow the dealer's 4p with 2p 3p
SEAT2 = parse_tiles("NNN 123m 456m 789m 1p 567p")  # may kong or pung the dealer's N


class Script:
    """One hand of a :class:`HandState` with every seat on the line protocol; the lines
    each seat received since the last call of :meth:`take`."""

    def __init__(self, hands: list[list[int]], draws: Sequence[int] = ()) -> None:
        wall = build_wall(0, hands, draws)
        self.hand = HandState.new(wall, dealer=0)
        self.table = LineTable(lambda _: numbered_in_place_order(wall))
        self.seats = [self.table.add_seat(s, f"p{s + 1}") for s in range(4)]
        self.got: list[list[str]] = [[], [], [], []]
        self._feed(self.hand.events)

    def _feed(self, events: Sequence[object]) -> None:
        for ev in events:
            for s, lines in self.table.feed(ev).items():  # type: ignore[arg-type]
                self.got[s].extend(lines)

    def play(self, seat: int, action: Action) -> None:
        self._feed(self.hand.apply(seat, action))

    def take(self) -> list[list[str]]:
        got, self.got = self.got, [[], [], [], []]
        return got

    def ids(self, seat: int, kind: int) -> list[int]:
        return [t for t in self.table.tracker.hands[seat] if kind_of(t) == kind]


def _winning_dealer() -> Script:
    """A hand whose dealer may win on its opening 17 tiles (the 17th is a 1s)."""
    dealer = parse_tiles("123m 456m 789m 123p 456p 1s 1s")
    pool = [k for k in Tile for _ in range(4)]
    for t in dealer:
        pool.remove(t)
    return Script([dealer, pool[:16], pool[16:32], pool[32:48]])


def _three_hands() -> list[list[int]]:
    pool = [k for k in Tile for _ in range(4)]
    for t in DEALER + SEAT1 + SEAT2:
        pool.remove(t)
    return [DEALER, SEAT1, SEAT2, pool[:16]]


# --- server: the start-up handshake and the clock ---------------------------------------


class FakeChannel:
    """A :class:`~sdk.server.linechan.LineChannel` as a seat sees it: lines out, and the
    program's lines in (then it waits, as a program that says nothing more)."""

    def __init__(self, lines: Sequence[str] = ()) -> None:
        self.written: list[str] = []
        self.closed = False
        self.starting = True
        self._lines = list(lines)
        self._gone = asyncio.Event()

    def write_lines(self, lines: Sequence[str]) -> None:
        self.written.extend(lines)

    def grant(self, n: int) -> None:
        pass

    def end_startup(self) -> None:
        self.starting = False

    async def read_line(self) -> str | None:
        if self._lines:
            return self._lines.pop(0)
        await self._gone.wait()
        return None

    async def close(self) -> None:
        self.closed = True
        self._gone.set()


class FakeTable:
    """What a seat needs from its table: the clock, the limit and the settled records."""

    def __init__(self) -> None:
        self.clock = Clock()
        self.decision_seconds = 3.0
        self.startup_seconds = 30.0
        self.over = False
        self.records: list[DecisionRecord] = []

    def settle(self, seat: int, record: DecisionRecord) -> None:
        self.records.append(record)

    def changed(self) -> None:
        pass


def _line_seat(script: Script, seat: int) -> tuple[LineSeat, FakeChannel, FakeTable]:
    line_seat = LineSeat(seat, f"p{seat + 1}", script.seats[seat])
    ctx = FakeTable()
    line_seat.bind(ctx)  # type: ignore[arg-type]
    channel = FakeChannel()
    line_seat.channel = channel  # type: ignore[assignment]
    return line_seat, channel, ctx


def _ask(script: Script, seat: int, now: float) -> Ask:
    hand = script.hand
    legal = hand.legal_actions(seat)
    claim = PASS in legal
    return Ask(
        legal=legal,
        drawn_tile=None if claim else hand.drawn_tile(seat),
        claim_tile=hand.public.pending_tile if claim else None,
        hand=0,
        after_event=len(hand.events),
        now=now,
    )


async def test_the_handshake_is_start_then_the_ready_probe_and_noise_is_ignored() -> None:
    # "/start MJ <seat> <name>" first, then "/ready", answered "/ready"; lines a program
    # prints before its first ask are start-up noise, not answers.
    script = Script(_three_hands())
    seat = LineSeat(1, "p2", script.seats[1])
    ctx = FakeTable()
    seat.bind(ctx)  # type: ignore[arg-type]
    channel = FakeChannel(["MCTS tables loaded", "/pass", "/ready"])
    seat.attach(channel, 0.0)  # type: ignore[arg-type]
    for _ in range(10):
        await asyncio.sleep(0)
    assert channel.written == ["/start MJ 2 p2", "/ready"]
    assert seat.ready and not ctx.records
    await seat.close()


def test_each_ask_of_one_decision_has_its_own_time_limit() -> None:
    # "Each /ask is answered with exactly one line, within the time limit" (3 s): the
    # clock of "/ask throw" starts when it is written, not at the "/ask hu" before it.
    script = _winning_dealer()
    seat, channel, ctx = _line_seat(script, 0)
    seat.request(_ask(script, 0, now=100.0))
    assert channel.written == ["/ask hu"] and seat.deadline == 103.0
    seat.on_line("/pass", 102.5)
    assert channel.written[-1] == "/ask throw" and seat.deadline == 105.5
    seat.expire(103.5)  # the first ask's limit has passed, the second one's has not
    assert not ctx.records
    (one_s,) = script.ids(0, Tile.S1)[:1]  # the 1s held before the draw
    seat.on_line(f"/throw {one_s}", 105.0)
    (record,) = ctx.records
    assert record.outcome is Outcome.OK and record.applied == DISCARD[Tile.S1]
    assert record.raw == f"/pass\n/throw {one_s}"


def test_a_follow_up_ask_past_its_own_limit_gets_the_default() -> None:
    script = _winning_dealer()
    seat, channel, ctx = _line_seat(script, 0)
    seat.request(_ask(script, 0, now=100.0))
    seat.on_line("/pass", 101.0)
    assert channel.written == ["/ask hu", "/ask throw"]
    seat.expire(104.0)
    (record,) = ctx.records
    assert record.outcome is Outcome.LATE and record.applied == DISCARD[Tile.S1]


def test_a_pass_to_ask_throw_gets_the_default_and_a_crlf_reply_is_read() -> None:
    # "/ask throw" cannot be declined; a reply ended by "\r\n" is one line.
    script = Script(_three_hands())
    seat, channel, ctx = _line_seat(script, 0)
    seat.request(_ask(script, 0, now=10.0))
    assert channel.written == ["/ask throw"]
    seat.on_line("/pass", 10.5)
    (north,) = script.ids(0, Tile.N)
    seat.request(_ask(script, 0, now=11.0))
    seat.on_line(f"/throw {north}\r\n", 11.5)
    refused, thrown = ctx.records
    assert refused.outcome is Outcome.ILLEGAL and refused.applied == DISCARD[Tile.N]
    assert "/ask throw cannot be passed" in refused.reason
    assert thrown.outcome is Outcome.OK and thrown.applied == DISCARD[Tile.N]


# --- server: the echo of every meld, with the program's ids -----------------------------


def test_an_eat_reply_in_either_order_is_echoed_with_the_taken_tile_in_the_middle() -> None:
    script = Script(_three_hands())
    script.take()
    (four_p,) = script.ids(0, Tile.P4)
    script.seats[0].request(script.hand.legal_actions(0))
    assert script.seats[0].receive_line(f"/throw {four_p}") == Decided(DISCARD[Tile.P4])
    script.play(0, DISCARD[Tile.P4])
    assert script.take() == [[f"/throw 1 {four_p}"]] * 4
    seat = script.seats[1]
    assert script.hand.legal_actions(1) == (Action.chow(Tile.P2, Tile.P3), PASS)
    assert seat.request(script.hand.legal_actions(1), Tile.P4) == "/ask eat"
    (two_p,), (three_p,) = script.ids(1, Tile.P2), script.ids(1, Tile.P3)
    decided = seat.receive_line(f"/eat {three_p} {two_p}")  # the higher id first
    assert decided == Decided(Action.chow(Tile.P2, Tile.P3))
    script.play(1, decided.action)  # type: ignore[union-attr]
    assert script.take() == [[f"/eat 2 {two_p} {four_p} {three_p}"]] * 4
    assert seat.request(script.hand.legal_actions(1)) == "/ask throw"


def test_an_exposed_kong_is_asked_with_gong_and_echoed_with_four_ids_then_mo() -> None:
    script = Script(_three_hands())
    script.take()
    (north,) = script.ids(0, Tile.N)
    script.play(0, DISCARD[Tile.N])
    script.take()
    seat = script.seats[2]
    assert script.hand.legal_actions(2) == (KONG, PUNG, PASS)
    assert seat.request(script.hand.legal_actions(2), Tile.N) == "/ask gong"
    own = script.ids(2, Tile.N)
    assert seat.receive_line("/gong 4 " + " ".join(map(str, reversed(own)))) == Decided(KONG)
    script.play(2, KONG)
    got = script.take()
    echo = "/gong 3 4 " + " ".join(map(str, sorted([*own, north])))
    assert got[0] == got[1] == got[3] == [echo]
    assert got[2][0] == echo and len(got[2]) == 2 and got[2][1].startswith("/mo ")


def test_a_pung_then_an_added_kong_are_echoed_as_pong_and_gong_1() -> None:
    # Seat 3 pungs the dealer's N (/ask gong, passed; /ask pong), keeps the fourth N and
    # adds it to the pung on its next turn: "/gong 1 <id>" echoed "/gong 3 1 <id>".
    script = Script(_three_hands(), draws=[Tile.P9, Tile.P9, Tile.P9, Tile.P8])
    (north,) = script.ids(0, Tile.N)
    script.play(0, DISCARD[Tile.N])
    script.take()
    seat = script.seats[2]
    assert seat.request(script.hand.legal_actions(2), Tile.N) == "/ask gong"
    assert seat.receive_line("/pass") == NextAsk("/ask pong")
    first, second, kept = script.ids(2, Tile.N)
    assert seat.receive_line(f"/pong {second} {first}") == Decided(PUNG)
    script.play(2, PUNG)
    assert script.take() == [[f"/pong 3 {' '.join(map(str, sorted([first, second, north])))}"]] * 4
    script.play(2, DISCARD[Tile.P6])
    for s in (3, 0, 1):  # each draws a 9p or 8p and throws it, nobody claims
        for other, legal in script.hand.pending().items():
            if PASS in legal:
                script.play(other, PASS)
        (drawn,) = [a for a in script.hand.legal_actions(s) if a.tile == script.hand.drawn_tile(s)]
        script.play(s, drawn)
    for other, legal in script.hand.pending().items():
        if PASS in legal:
            script.play(other, PASS)
    script.take()
    legal = script.hand.legal_actions(2)
    assert ADDED_KONG[Tile.N] in legal
    assert seat.request(legal) == "/ask gong"
    assert seat.receive_line(f"/gong 1 {kept}") == Decided(ADDED_KONG[Tile.N])
    script.play(2, ADDED_KONG[Tile.N])
    got = script.take()
    assert got[0] == got[1] == got[3] == [f"/gong 3 1 {kept}"]
    assert got[2][0] == f"/gong 3 1 {kept}" and got[2][1].startswith("/mo ")


def test_a_self_drawn_win_names_the_drawn_tile_first() -> None:
    script = _winning_dealer()
    script.take()
    drawn = script.table.tracker.hands[0][-1]  # the dealer's 17th tile
    rest = sorted(t for t in script.table.tracker.hands[0] if t != drawn)
    seat = script.seats[0]
    assert seat.request(script.hand.legal_actions(0)) == "/ask hu"
    assert seat.receive_line("/hu") == Decided(WIN)
    script.play(0, WIN)
    got = script.take()
    assert got == [[f"/hu 1 {drawn} {' '.join(map(str, rest))}"]] * 4
    assert len(rest) == 16


def test_every_line_seat_gets_exit_when_the_match_ends() -> None:
    match = Match.new(11, 1)
    table = LineTable()
    for s in range(4):
        table.add_seat(s, f"p{s + 1}")
    got: list[list[str]] = [[], [], [], []]
    fed = 0
    rng = random.Random(11)
    while True:
        for ev in match.events[fed:]:
            for s, lines in table.feed(ev).items():
                got[s].extend(lines)
        fed = len(match.events)
        if match.is_over:
            break
        seat, legal = next(iter(match.pending().items()))
        no_claims = [a for a in legal if a.kind in (ActionKind.DISCARD, ActionKind.PASS)]
        match.apply(seat, rng.choice(no_claims))
    assert all(lines[-1] == "/exit" for lines in got)
    assert all(lines.count("/exit") == 1 for lines in got)


# --- client: the public referee's forms, through the stream channel ---------------------


async def test_client_reads_crlf_blank_lines_and_a_start_without_a_name() -> None:
    reader = asyncio.StreamReader()
    reader.feed_data(b"/start MJ 3\r\n\r\n/ready\r\n/exit 0 0 0 0\r\n")
    reader.feed_eof()
    channel = StreamChannel(reader, None)  # type: ignore[arg-type]
    codec = LineCodec()
    lines = [await channel.recv() for _ in range(3)]
    assert lines == ["/start MJ 3", "/ready", "/exit 0 0 0 0"]
    items = codec.receive(lines[0])
    assert items == [SessionStart(2, "")]
    assert codec.receive(lines[1]) == [] and codec.outgoing() == ["/ready"]
    assert codec.receive(lines[2]) == [SessionEnd("exit")]


# --- server: table creation ---------------------------------------------------------------


async def test_a_line_seat_name_that_cannot_be_one_start_word_is_refused() -> None:
    # "/start MJ <seat> <name>": one ASCII line, words separated by single spaces. A line
    # seat named "my bot" or "機器人" could never be greeted (the table would abort when
    # the program attached), so the table is refused when it is created.
    config = ServerConfig(port=0, line_port=0, db_path=":memory:", admin_token="letmein")
    auth = {"authorization": "Bearer letmein"}
    async with running_server(config) as server, httpx.AsyncClient(base_url=server.url) as http:
        for name in ("my bot", "機器人"):
            seats = [{"seat": 1, "bot_name": name, "transport": "line"}]
            body = {"seed": 1, "hands": 1, "seats": seats}
            response = await http.post("/v1/tables", json=body, headers=auth)
            assert response.status_code == 422, response.text
            assert response.json()["code"] == "malformed"
            assert "/start MJ <seat> <name>" in response.json()["message"]
        seats = [{"seat": 1, "bot_name": "old-champion", "transport": "line"}]
        body = {"seed": 1, "hands": 1, "seats": seats}
        assert (await http.post("/v1/tables", json=body, headers=auth)).status_code == 201


# --- client side: what the public referee writes ------------------------------------------


def _round_winds(lines: Sequence[str]) -> list[Tile]:
    adapter = LineClientAdapter()
    adapter.receive_line("/start MJ 1 bot")
    out = [ev for line in lines for ev in adapter.receive_line(line)]
    return [ev.round_wind for ev in out if isinstance(ev, HandStart)]


def test_the_round_wind_follows_the_hands_when_the_referee_always_writes_east() -> None:
    # The public referee writes "/initGame East East <n> <dealer> 0" for every hand;
    # R16: hand k is in the round of wind k // 4 (E, S, W, N), then E again.
    lines = [f"/initGame East East {k % 4 + 1} {k % 4 + 1} 0" for k in range(17)]
    winds = [Tile.E] * 4 + [Tile.S] * 4 + [Tile.W] * 4 + [Tile.N] * 4 + [Tile.E]
    assert _round_winds(lines) == winds


def test_a_round_wind_the_referee_writes_is_kept() -> None:
    # Our server writes the round's wind; a program that joins late believes it.
    assert _round_winds(["/initGame south south 2 2 0", "/initGame west west 1 1 0"]) == [
        Tile.S,
        Tile.W,
    ]


def test_a_win_listing_another_seats_concealed_kong_and_pung_keeps_the_concealed_part() -> None:
    # The winner declared a pung of 5m and a concealed kong (this seat never saw its kind,
    # 9p): 17 - 3 * 2 = 11 concealed tiles, 18 listed.
    concealed = parse_tiles("123m 789m 11s 234s")
    listed = [*concealed, *parse_tiles("555m 9999p")]
    random.Random(3).shuffle(listed)
    pung = Meld(MeldKind.PUNG, Tile.M5, called=Tile.M5)
    assert _concealed_part(listed, [pung], 2) == (sorted(concealed), [Tile.P9])
    assert _concealed_part(list(concealed), [pung], 2) == (list(concealed), [])  # usual form
    with pytest.raises(LineStateError, match="/hu lists 13 tiles"):
        _concealed_part([*concealed, Tile.M1, Tile.M1], [pung], 2)


def test_our_server_writes_the_round_as_1_to_4_and_its_wind_and_our_client_reads_it() -> None:
    # The public referee writes "<round 1..4>" as the third field: a program written for it
    # may read a number up to 4 there. R16: hand k is in round k // 4 (E, S, W, N).
    seat = LineServerSeat(0, "bot", TileIdTracker(seed=1))
    lines = [seat.lines_for(HandStart(k, *hand_plan(k), (0, 0, 0, 0)), ())[0] for k in range(16)]
    rounds = ["East", "South", "West", "North"]
    assert lines == [
        f"/initGame {rounds[k // 4]} {rounds[k // 4]} {k // 4 + 1} {k % 4 + 1} 0" for k in range(16)
    ]
    assert _round_winds(lines) == [hand_plan(k)[1] for k in range(16)]
