"""Nothing hidden leaves the server: for every frame sent to a seat in many random
matches, the events are exactly the referee's projection for that seat (no concealed
tile of another seat), requests carry only the seat's own legal actions, and nothing
names the seed or the wall."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import httpx
import websockets

from bots.random import RandomBot
from protocol.events import event_from_json, project
from protocol.wire import WireClient
from protocol.wire.messages import MatchConfig
from sdk.server.config import ServerConfig
from sdk.server.records import Clock
from sdk.server.runner import running_server
from sdk.server.seats import WsSeat
from sdk.server.store import Store
from sdk.server.table import Table, TableSpec


class RecordingBot:
    """A :class:`~sdk.server.seats.FrameSink` that keeps every frame and answers each
    request at once with a random legal action, through a real :class:`WireClient`."""

    def __init__(self, seat: WsSeat, rng: random.Random) -> None:
        self.seat, self.rng = seat, rng
        self.client = WireClient(seat.token, f"bot{seat.seat}")
        self.frames: list[str] = []
        self.legal_checks = 0

    def send(self, frames: list[str]) -> None:
        table = self.seat.ctx
        for frame in frames:
            self.frames.append(frame)
            for item in self.client.receive_frame(frame):
                legal = getattr(item, "legal", None)
                if legal is None:
                    continue
                assert isinstance(table, Table) and table.match is not None
                assert legal == table.match.pending()[self.seat.seat]
                self.legal_checks += 1
                reply = self.client.answer(self.rng.choice(legal))
                asyncio.get_running_loop().call_soon(self.seat.on_frame, reply, Clock.now())

    def close(self, code: int = 1000, reason: str = "") -> None:
        pass

    def grant(self) -> None:
        pass


def _check_frames(frames: list[str], seat: int, expected: list[dict]) -> None:
    events = []
    for frame in frames:
        assert "seed" not in frame and "wall" not in frame
        data = json.loads(frame)
        if data["type"] == "event":
            events.append(data["event"])
        for value in data.values():  # no long list of tiles anywhere (a wall)
            if isinstance(value, list):
                assert len(value) <= 17
    assert events == expected


async def _one_match(seed: int, store: Store, rng: random.Random) -> int:
    spec = TableSpec(f"t-{seed}", f"m-{seed}", seed, seed, hands=1, decision_ms=3000)
    seats = [
        WsSeat(s, f"bot{s}", f"tok{s}", spec.match_id, spec.table_id, MatchConfig())
        for s in range(4)
    ]
    table = Table(spec, seats, store)
    bots = [RecordingBot(s, rng) for s in seats]
    for bot, seat in zip(bots, seats, strict=True):
        assert seat.attach(bot, bot.client.hello(), Clock.now())
        seat.on_frame(bot.client.ready(), Clock.now())
    await asyncio.wait_for(table.run(), 30)
    assert table.state == "finished" and table.match is not None
    full = table.match.events
    for bot in bots:
        seen = [project(e, bot.seat.seat) for e in full]
        _check_frames(bot.frames, bot.seat.seat, [e.to_json() for e in seen if e is not None])
    return sum(bot.legal_checks for bot in bots)


async def test_no_frame_to_a_seat_reveals_what_it_may_not_see() -> None:
    store = Store(":memory:")
    store.start()
    try:
        rng = random.Random(2024)
        checked = 0
        for seed in range(25):
            checked += await _one_match(1000 + seed, store, rng)
        assert checked > 25 * 30
    finally:
        store.close()


async def test_frames_over_real_sockets_are_the_projection(tmp_path: Path) -> None:
    config = ServerConfig(port=0, db_path=str(tmp_path / "leak.db"))
    async with running_server(config) as server, httpx.AsyncClient(base_url=server.url) as http:
        seats = [{"seat": s, "bot_name": f"b{s}"} for s in range(4)]
        created = (
            await http.post("/v1/tables", json={"seed": 77, "hands": 2, "seats": seats})
        ).json()
        frames: list[list[str]] = [[], [], [], []]

        async def tap(seat: int) -> None:
            client = WireClient(created["tokens"][str(seat)], f"b{seat}")
            bot = RandomBot(seed=seat)
            async with websockets.connect(server.ws_url) as ws:
                await ws.send(client.hello())
                await ws.send(client.ready())
                async for frame in ws:
                    frames[seat].append(str(frame))
                    for item in client.receive_frame(frame):
                        legal = getattr(item, "legal", None)
                        if legal is not None:
                            await ws.send(client.answer(bot.rng.choice(legal)))

        await asyncio.gather(*(tap(s) for s in range(4)))
        for _ in range(100):
            response = await http.get(f"/v1/matches/{created['match_id']}/log")
            if response.status_code == 200:
                break
            await asyncio.sleep(0.05)
        full = response.json()["events"]
    for seat in range(4):
        seen = [project(event_from_json(e), seat) for e in full]
        _check_frames(frames[seat], seat, [e.to_json() for e in seen if e is not None])
