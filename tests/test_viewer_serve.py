"""The server's viewer routes without a browser: a running match's live steps arrive as
server-sent events that rebuild exactly the public view of its hands (no concealed
tile, no decision, no wall), then an ``end`` event; hands are served one by one, from 0,
with 404 past the last; a finished match's page holds its first hand only."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from view_server_helpers import create_table, embedded, finished_match, loopback_server

from protocol.events import project
from sdk.records import Header, SeatInfo, build_record, parse_text
from sdk.records.views import NOBODY
from sdk.replay.viewdata import ViewerData
from sdk.server.runner import ServerHandle


async def _read_stream(http: httpx.AsyncClient, url: str, out: list[Any]) -> None:
    """Append each event's data (``"end"`` for the end event) until the stream ends."""
    async with http.stream("GET", url) as answer:
        assert answer.headers["content-type"].startswith("text/event-stream")
        name = None
        async for line in answer.aiter_lines():
            if line.startswith("event: "):
                name = line[len("event: ") :]
            elif line.startswith("data: "):
                out.append("end" if name == "end" else json.loads(line[len("data: ") :]))
                name = None


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[ServerHandle]:
    async with loopback_server(tmp_path) as handle:
        yield handle


async def test_the_live_stream_rebuilds_the_public_view_of_each_hand(server: ServerHandle) -> None:
    from bots.random import RandomBot
    from sdk.transports.ws import run_ws

    gate = asyncio.Semaphore(0)

    class Gated(RandomBot):
        async def choose(self, view: Any, request: Any) -> Any:
            await gate.acquire()
            return super().choose(view, request)

    seats = [{"seat": 0, "bot_name": "gated", "transport": "ws"}] + [
        {"seat": s, "bot_name": "random", "transport": "builtin"} for s in range(1, 4)
    ]
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        created = await create_table(http, 17, 2, seats)
        table = server.server.tables[created["table_id"]]
        view = f"/v1/matches/{created['match_id']}/view"
        player = asyncio.create_task(run_ws(Gated(seed=5), server.ws_url, created["tokens"]["0"]))
        for _ in range(200):
            if table.match is not None and table.match.events:
                break
            await asyncio.sleep(0.02)
        messages: list[Any] = []
        reader = asyncio.create_task(_read_stream(http, f"{view}/stream", messages))
        for _ in range(10):  # the match moves a little at a time while the stream is read
            gate.release()
            await asyncio.sleep(0.3)
        pushed_while_running = len(messages)
        for _ in range(2000):
            gate.release()
        await player
        await asyncio.wait_for(reader, 30)
        text = (await http.get(f"/v1/matches/{created['match_id']}/log.jsonl")).text
    assert pushed_while_running >= 3, "steps were pushed as they were played"
    assert messages[-1] == "end" and "end" not in messages[:-1]
    record = parse_text(text)
    seen = [e for e in (project(ev, NOBODY) for ev in record.events) if e is not None]
    names = [s.name for s in record.header.seats]
    header = Header(0, 2, tuple(SeatInfo(s, s, n) for s, n in enumerate(names)))
    expected = ViewerData(build_record(header, seen, ()), spectator=True)
    hands: dict[int, dict[str, Any]] = {}
    for m in messages[:-1]:
        if m["reset"]:
            hands[m["hand"]] = {"start": m["start"], "frames": [], "states": []}
        hands[m["hand"]]["frames"] += m["frames"]
        hands[m["hand"]]["states"] += m["states"]
        assert m["start"] == expected.starts[m["hand"]]
    assert messages[0]["starts"] == expected.starts[: len(messages[0]["starts"])]
    assert sorted(hands) == [0, 1]
    for h, got in hands.items():
        want = expected.hand(h)
        assert got["frames"] == want["frames"] and got["states"] == want["states"]
        assert all(s["hand"] is None and s["drawn"] is None for s in got["states"])
    assert messages[-2]["final"] == list(record.summary.scores)
    assert messages[-2]["result"] == expected.hand(1)["result"]


async def test_hands_are_served_one_by_one(server: ServerHandle) -> None:
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        created = await finished_match(http, 3, 2)
        view = f"/v1/matches/{created['match_id']}/view"
        record = parse_text((await http.get(f"/v1/matches/{created['match_id']}/log.jsonl")).text)
        page = embedded((await http.get(f"{view}?seat=2")).text)
        hands = [(await http.get(f"{view}/hands/{h}?seat=2")).json() for h in range(2)]
        past = await http.get(f"{view}/hands/2")
        bad = await http.get(f"{view}/hands/0?seat=9")
        end = await http.get(f"{view}/stream")
    expected = ViewerData(record, seat=2)
    assert hands == [expected.hand(0), expected.hand(1)]
    assert page["first"] == hands[0] and page["source"] == {
        "url": "view/hands/",
        "query": "?seat=2",
    }
    assert page["starts"] == expected.starts and page["total"] == expected.total
    assert past.status_code == 404 and past.json()["code"] == "not_found"
    assert bad.status_code == 422
    assert end.text == "event: end\ndata: {}\n\n"  # a finished match has nothing to push


async def test_a_finished_match_replays_only_the_hands_shown(
    server: ServerHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page of a long match opens without replaying the match on the referee: each
    hand's decisions (their legal actions) are replayed when that hand is asked, once;
    what is served is the same as from the whole record."""
    from sdk.server.recordlog import StoredDecisions

    replayed: list[int] = []
    replay = StoredDecisions._replay

    def counted(self: StoredDecisions, hand: int) -> Any:
        replayed.append(hand)
        return replay(self, hand)

    monkeypatch.setattr(StoredDecisions, "_replay", counted)
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        created = await finished_match(http, 8, 4)
        view = f"/v1/matches/{created['match_id']}/view"
        page = embedded((await http.get(view)).text)
        opened = list(replayed)
        third = (await http.get(f"{view}/hands/2")).json()
        seat_view = (await http.get(f"{view}/hands/2?seat=1")).json()
        asked = list(replayed)
        record = parse_text((await http.get(f"/v1/matches/{created['match_id']}/log.jsonl")).text)
    assert opened == [0] and asked == [0, 2]  # the log's whole replay is its own
    expected = ViewerData(record)
    assert page["first"] == expected.hand(0) and third == expected.hand(2)
    assert third["decisions"] and seat_view == ViewerData(record, seat=1).hand(2)
