"""Flat memory: a server that has finished many tables holds no more than after a few.

The soak plays 200 small tables on a :class:`~sdk.server.core.TournamentServer` with the
garbage collector off, so only reference counting frees what a finished table leaves:
a finished table, its seats and their frames kept in a reference cycle (as they were,
about 126,000 frames per 1,024-hand table) would pile up here, table after table, and
the counts below would grow with every one."""

from __future__ import annotations

import asyncio
import gc
import json
import sys
import tracemalloc
import weakref
from collections.abc import Sequence

from bots.random import RandomBot
from protocol.wire import WireClient, WireServerSeat
from protocol.wire.rest import SeatAssignment, TableCreate
from sdk.local import play_match
from sdk.server import core
from sdk.server.config import ServerConfig
from sdk.server.core import TournamentServer
from sdk.server.records import Clock
from sdk.server.runner import full_collections, full_collections_so_far
from sdk.server.seats import WsSeat

TABLES = 200
WARM_UP = 50
"""Tables played before the first measure: the bounded memories (finished statuses,
ended tokens, the rules' small caches) fill up meanwhile."""


class LeanBot:
    """A :class:`~sdk.server.seats.FrameSink` answering every request at once with its
    first legal action, straight into the seat (no socket)."""

    def __init__(self, seat: WsSeat) -> None:
        self.seat = seat
        self.client = WireClient(seat.token, f"lean{seat.seat}")

    def send(self, frames: Sequence[str]) -> None:
        for frame in frames:
            if frame.startswith('{"type":"request"'):
                rid = json.loads(frame)["request_id"]
                reply = f'{{"type":"reply","request_id":"{rid}","action_id":0}}'
                asyncio.get_running_loop().call_soon(self.seat.on_frame, reply, Clock.now())

    def close(self, code: int = 1000, reason: str = "") -> None:
        self.seat = None  # type: ignore[assignment]  # as a closed connection lets go

    def grant(self) -> None:
        pass


async def _play_one(server: TournamentServer, seed: int) -> None:
    seats = [SeatAssignment(seat=s, bot_name=f"lean{s}") for s in range(4)]
    created = server.create_table(TableCreate(seed=seed, hands=1, seats=seats))
    for token in created.tokens.values():
        seat = server.seat_for_token(token)
        assert seat is not None
        bot = LeanBot(seat)
        assert seat.attach(bot, bot.client.hello(), Clock.now())
        seat.on_frame(bot.client.ready(), Clock.now())
    while created.table_id in server.tables:  # finished, then forgotten (no grace)
        await asyncio.sleep(0.005)


def _live() -> tuple[int, int]:
    """Objects the collector tracks, and bytes allocated (tracemalloc)."""
    return len(gc.get_objects()), tracemalloc.get_traced_memory()[0]


async def test_memory_is_flat_over_200_finished_tables(monkeypatch) -> None:
    monkeypatch.setattr(core, "KEEP_FINISHED", 10)  # full within the warm-up
    monkeypatch.setattr(core, "KEEP_ENDED_TOKENS", 40)
    config = ServerConfig(port=0, db_path=":memory:", finished_grace=0.0)
    server = TournamentServer(config)
    await server.start()
    gc.collect()
    gc.disable()
    tracemalloc.start()
    try:
        for seed in range(WARM_UP):
            await _play_one(server, seed)
        objects, size = _live()
        for seed in range(WARM_UP, TABLES):
            await _play_one(server, seed)
        objects_after, size_after = _live()
    finally:
        tracemalloc.stop()
        gc.enable()
        await server.stop()
    grown = objects_after - objects
    # a table left in a cycle keeps about 1,500 tracked objects: 180 of them, 270,000
    print("GROWN", grown, size_after - size)
    assert grown < 2_000, f"{grown} more objects after {TABLES - WARM_UP} more tables"
    assert size_after - size < 1_000_000, f"{size_after - size} bytes more"


class _Node:
    """An object in a reference cycle with itself."""

    def __init__(self) -> None:
        self.me = self


async def test_a_full_collection_comes_even_when_allocations_would_not_bring_one() -> None:
    gc.disable()  # as under a high threshold: no collection unless asked for
    try:
        cycle = weakref.ref(_Node())
        assert cycle() is not None
        watcher = asyncio.create_task(full_collections(every=0.05))
        before = full_collections_so_far()
        await asyncio.sleep(0.3)
        watcher.cancel()
        assert full_collections_so_far() > before
        assert cycle() is None
    finally:
        gc.enable()


def test_a_seats_frames_are_kept_packed_and_a_resume_replays_them_unchanged() -> None:
    bots = [RandomBot(seed=s) for s in range(4)]
    events = play_match(bots, seed=11, hands=8, record_events=True).events
    seat = WireServerSeat(0, "tok", "m-1", "t-1")
    seat.connect()
    seat.receive_frame(WireClient("tok", "me").hello(), 0.0)
    sent: list[str] = []
    for event in events:
        seat.push_event(event)
        sent += seat.data_to_send()
    frames = [f for f in sent if f.startswith('{"type":"event"')]
    assert len(frames) == seat.seq > 8 * 50
    plain = sum(sys.getsizeof(f) for f in frames)
    assert sum(map(len, seat._log._blocks)) < plain / 5  # the finished hands, packed
    for last in (0, 1, len(frames) // 3, len(frames) - 1):
        seat.disconnect()
        seat.connect()
        seat.receive_frame(
            WireClient("tok", "me").hello().replace("}", f',"last_seq":{last}}}'), 0.0
        )
        replay: list[str] = []
        while True:
            piece = seat.data_to_send(4096)
            replay += piece
            if not seat.replaying:
                break
        assert [f for f in replay if f.startswith('{"type":"event"')] == frames[last:]
