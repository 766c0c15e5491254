"""Points of the tournament line protocol (``tcga-line-protocol.md``) checked as scripted
transcripts: given these lines in, these lines out.

Server side (our referee hosting a program written for the tournament referee): the
start-up handshake, each ``/ask`` timed on its own, the echo of every meld kind with the
ids the program named, a self-drawn ``/hu`` and ``/exit`` at the end of the match.
Client side (our bot under the tournament referee): the public forms of ``/start`` and
line endings through the real stream channel.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import httpx

from protocol.actions import DISCARD, PASS, Action
from protocol.hand_state import HandState
from protocol.line.adapter import LineTable
from protocol.line.tile_ids import kind_of
from protocol.tiles import Tile, parse_tiles
from protocol.wall import build_wall
from sdk.server.config import ServerConfig
from sdk.server.records import Clock, DecisionRecord, Outcome
from sdk.server.runner import running_server
from sdk.server.seats import Ask, LineSeat

# --- a scripted hand, its walls numbered along the deal ---------------------------------

DEALER = parse_tiles("123456789s EEE SS W 4p N")  # N is the 17th tile (the one drawn)
SEAT1 = parse_tiles("123m 456m 789m 11p 23p SWF")  # may chow the dealer's 4p with 2p 3p
SEAT2 = parse_tiles("NNN 123m 456m 789m 1p 567p")  # may kong or pung the dealer's N


def _in_place_order(wall: Sequence[int]) -> list[int]:
    seen = [0] * len(Tile)
    physical = []
    for kind in wall:
        physical.append(kind * 4 + seen[kind])
        seen[kind] += 1
    return physical


class Script:
    """One hand of a :class:`HandState` with every seat on the line protocol; the lines
    each seat received since the last call of :meth:`take`."""

    def __init__(self, hands: list[list[int]], draws: Sequence[int] = ()) -> None:
        wall = build_wall(0, hands, draws)
        self.hand = HandState.new(wall, dealer=0)
        self.table = LineTable(lambda _: _in_place_order(wall))
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
