"""A small protocol v1 server for tests and benchmarks, built from the sans-I/O pieces:
``websockets.serve`` on 127.0.0.1, one :class:`WireServerSeat` per remote seat, and the
referee's :class:`~protocol.match.Match`. Seats that are not remote are played by a
house function in-process.

It records what a test wants to check: every decision (with its reason when the seat
was defaulted), the request-to-decision time of each, how many ``reply`` frames came for
each request id, how many connections each seat opened, and the referee's view of each
seat at the end of every step (keyed by that seat's event number).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from protocol.actions import Action
from protocol.events import Event
from protocol.match import Match
from protocol.view import SeatView
from protocol.wire import Decision, WireServerSeat
from protocol.wire.messages import MatchConfig, Timing

House = Callable[[tuple[Action, ...], random.Random], Action]


def first_legal(legal: tuple[Action, ...], rng: random.Random) -> Action:
    return legal[0]


def random_legal(legal: tuple[Action, ...], rng: random.Random) -> Action:
    return rng.choice(legal)


@dataclass
class _Conn:
    ws: ServerConnection
    outbox: asyncio.Queue[str] = field(default_factory=asyncio.Queue)


class LoopbackServer:
    """Use as ``async with LoopbackServer(...) as server:`` then ``await server.play()``
    while the clients connect to ``server.url`` with ``server.tokens[seat]``."""

    def __init__(
        self,
        *,
        seed: int = 0,
        hands: int = 1,
        remote: Sequence[int] = (0, 1, 2, 3),
        house: House = random_legal,
        decision_ms: int = 3000,
        startup_ms: int = 10_000,
        drop_after: Callable[[int, str], bool] | None = None,
        ping_interval: float | None = None,
        ping_timeout: float | None = None,
        snapshots: bool = False,
    ) -> None:
        self.match = Match.new(seed, hands)
        config = MatchConfig(
            hands=hands, timing=Timing(decision_ms=decision_ms, startup_ms=startup_ms)
        )
        self.seats = {
            s: WireServerSeat(s, f"token-{s}", "m-loop", "t-loop", config) for s in remote
        }
        self.tokens = {s: seat.token for s, seat in self.seats.items()}
        self.house, self.rng = house, random.Random(seed)
        self.drop_after = drop_after
        self.ping = (ping_interval, ping_timeout)
        self.keep_snapshots = snapshots
        self.decisions: list[tuple[int, Decision]] = []
        self.latency: dict[int, list[float]] = {s: [] for s in remote}
        self.replies: Counter[tuple[int, str]] = Counter()
        self.connections: Counter[int] = Counter()
        self.pending_at_drop: set[tuple[int, str | None]] = set()
        self.snapshots: dict[int, dict[int, SeatView]] = {s: {} for s in remote}
        self._conns: dict[int, _Conn] = {}
        self._queue: asyncio.Queue[tuple[int, Decision]] = asyncio.Queue()
        self._sent_at: dict[tuple[int, str], float] = {}
        self._ready = asyncio.Event()
        self._server: Server | None = None
        self.url = ""

    async def __aenter__(self) -> LoopbackServer:
        interval, timeout = self.ping
        self._server = await serve(
            self._handler,
            "127.0.0.1",
            0,
            compression=None,
            ping_interval=interval,
            ping_timeout=timeout,
        )
        port = next(iter(self._server.sockets)).getsockname()[1]
        self.url = f"ws://127.0.0.1:{port}/v1/ws"
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    # -- connections --

    async def _handler(self, ws: ServerConnection) -> None:
        try:
            first = await ws.recv()
        except ConnectionClosed:
            return
        try:
            token = json.loads(first).get("token")
        except (ValueError, AttributeError):
            token = None
        seat = next((s for s in self.seats.values() if s.token == token), None)
        if seat is None:
            await ws.close(1008, "bad token")
            return
        old = self._conns.pop(seat.seat, None)
        if old is not None:
            old.ws.transport.abort()
        conn = _Conn(ws)
        self._conns[seat.seat] = conn
        self.connections[seat.seat] += 1
        writer = asyncio.create_task(self._write(conn))
        seat.connect()
        try:
            self._receive(seat, first)
            async for frame in ws:
                self._receive(seat, frame)
        except ConnectionClosed:
            pass
        finally:
            if self._conns.get(seat.seat) is conn:
                del self._conns[seat.seat]
                seat.disconnect()
            writer.cancel()

    async def _write(self, conn: _Conn) -> None:
        try:
            while True:
                await conn.ws.send(await conn.outbox.get())
        except ConnectionClosed:
            pass

    def _receive(self, seat: WireServerSeat, frame: str | bytes) -> None:
        data = json.loads(frame)
        if data.get("type") == "reply":
            self.replies[(seat.seat, data.get("request_id"))] += 1
        decision = seat.receive_frame(frame, time.monotonic())
        self._flush(seat.seat)
        if decision is not None:
            self._queue.put_nowait((seat.seat, decision))
        if all(s.ready for s in self.seats.values()):
            self._ready.set()

    def _flush(self, seat: int) -> None:
        frames = self.seats[seat].data_to_send()
        conn = self._conns.get(seat)
        if conn is not None:
            for frame in frames:
                conn.outbox.put_nowait(frame)

    def drop(self, seat: int) -> None:
        """Cut the seat's connection as a network failure would (no close handshake)."""
        conn = self._conns.pop(seat, None)
        if conn is not None:
            self.pending_at_drop.add((seat, self.seats[seat].pending_request_id))
            self.seats[seat].disconnect()
            conn.ws.transport.abort()

    # -- the match --

    async def play(self) -> Match:
        """Wait until every remote seat is ready (or the start-up budget ran out), play
        the match, say bye; returns the finished match."""
        startup = next(iter(self.seats.values())).config.timing.startup_ms / 1000
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._ready.wait(), startup)
        match = self.match
        self._publish(match.events)
        requested: dict[int, str] = {}
        while not match.is_over:
            for seat, legal in match.pending().items():
                if seat not in requested:
                    requested[seat] = self._request(seat, legal)
            seat, decision = await self._queue.get()
            if requested.get(seat) != decision.request_id:
                continue
            del requested[seat]
            sent = self._sent_at.pop((seat, decision.request_id), None)
            if sent is not None:
                self.latency[seat].append(time.monotonic() - sent)
            self.decisions.append((seat, decision))
            self._publish(match.apply(seat, decision.action))
        for s, seat in self.seats.items():
            seat.bye("match over")
            self._flush(s)
        await self._drain()
        return match

    def _request(self, seat: int, legal: tuple[Action, ...]) -> str:
        if seat not in self.seats:
            rid = f"house-{len(self.decisions)}"
            self._queue.put_nowait((seat, Decision(rid, self.house(legal, self.rng))))
            return rid
        now = time.monotonic()
        server_seat = self.seats[seat]
        rid = server_seat.request(legal, now, drawn_tile=self.match.current.drawn_tile(seat))
        self._sent_at[(seat, rid)] = now
        self._flush(seat)
        delay = server_seat.deadline - now  # type: ignore[operator]
        asyncio.get_running_loop().call_later(delay + 0.001, self._check_timeout, seat)
        if self.drop_after is not None and self.drop_after(seat, rid):
            asyncio.get_running_loop().call_later(0.005, self.drop, seat)
        return rid

    def _check_timeout(self, seat: int) -> None:
        decision = self.seats[seat].check_timeout(time.monotonic())
        self._flush(seat)
        if decision is not None:
            self._queue.put_nowait((seat, decision))

    def _publish(self, events: Sequence[Event]) -> None:
        for event in events:
            for seat in self.seats.values():
                seat.push_event(event)
        for s, seat in self.seats.items():
            self._flush(s)
            if self.keep_snapshots and not self.match.is_over:
                self.snapshots[s][seat.seq] = self.match.current.view(s)

    async def _drain(self) -> None:
        """Give the writers a moment to send what is queued (the bye)."""
        for _ in range(200):
            if all(c.outbox.empty() for c in self._conns.values()):
                return
            await asyncio.sleep(0.005)

    def defaulted(self, seat: int) -> list[Decision]:
        return [d for s, d in self.decisions if s == seat and d.defaulted]
