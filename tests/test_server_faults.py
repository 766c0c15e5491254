"""Fault tests of the local server over loopback sockets: a bot that drops and resumes,
one that never answers, garbage and illegal replies, oversized frames, another seat's
request ids, wrong tokens, flooding; every decision on record with its outcome."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import httpx
import pytest
import websockets
from server_bots.wsbot import Drop, WsPlay, play_ws

from protocol.wire import ActionRequest, WireClient
from sdk.arena.loader import load_bot
from sdk.bot import Bot
from sdk.local import play_match
from sdk.server.config import ServerConfig
from sdk.server.core import house_seed
from sdk.server.runner import ServerHandle, running_server


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[ServerHandle]:
    config = ServerConfig(
        port=0,
        db_path=str(tmp_path / "faults.db"),
        rate_burst=30,
        flood_seconds=0.5,
        unattended_wait=1.0,
    )
    async with running_server(config) as handle:
        yield handle


def _random(seed: int) -> Bot:
    return load_bot("bots.random").make(seed)


async def _table(
    server: ServerHandle, seed: int, ws_seats: list[int], hands: int = 1, decision_ms: int = 3000
) -> dict:
    seats = [
        {"seat": s, "bot_name": f"ws{s}", "transport": "ws"}
        if s in ws_seats
        else {"seat": s, "bot_name": "random", "transport": "builtin"}
        for s in range(4)
    ]
    body = {"seed": seed, "hands": hands, "seats": seats, "timing": {"decision_ms": decision_ms}}
    async with httpx.AsyncClient(base_url=server.url) as http:
        response = await http.post("/v1/tables", json=body)
    assert response.status_code == 201, response.text
    return response.json()  # type: ignore[no-any-return]


async def _records(server: ServerHandle, created: dict, end: str = "finished") -> list[dict]:
    async with httpx.AsyncClient(base_url=server.url) as http:
        for _ in range(600):  # up to 30 s on a loaded machine
            status = (await http.get(f"/v1/tables/{created['table_id']}")).json()
            if status["status"] != "running" and status["status"] != "waiting":
                break
            await asyncio.sleep(0.05)
        assert status["status"] == end, status
        text = (await http.get(f"/v1/matches/{created['match_id']}/log.jsonl")).text
    return [json.loads(line) for line in text.splitlines()]


def _in_process(seed: int, hands: int, bots: dict[int, Bot]) -> list[dict]:
    players = [bots.get(s) or _random(house_seed(seed, s)) for s in range(4)]
    result = play_match(players, seed=seed, hands=hands, record_events=True)
    return [e.to_json() for e in result.events]


def _events(records: list[dict]) -> list[dict]:
    return [r["event"] for r in records if r["type"] == "event"]


def _decisions(records: list[dict], seat: int) -> list[dict]:
    return [r for r in records if r["type"] == "decision" and r["seat"] == seat]


async def test_a_bot_that_drops_mid_hand_resumes_and_the_match_is_unchanged(
    server: ServerHandle,
) -> None:
    seed, hands = 12, 2
    created = await _table(server, seed, [0, 1], hands)

    def drop_once(request: ActionRequest, play: WsPlay) -> str | None:
        if play.requests == 6 and play.connections == 1:
            raise Drop
        return None

    plays = await asyncio.gather(
        play_ws(server.ws_url, _random(1), created["tokens"]["0"], on_request=drop_once),
        play_ws(server.ws_url, _random(2), created["tokens"]["1"]),
    )
    records = await _records(server, created)
    assert plays[0].connections == 2 and plays[0].ended and plays[1].connections == 1
    assert _events(records) == _in_process(seed, hands, {0: _random(1), 1: _random(2)})
    assert all(d["outcome"] in ("ok", "overridden") for d in _decisions(records, 0))


async def test_a_bot_that_never_answers_is_played_by_the_default(server: ServerHandle) -> None:
    seed = 8
    created = await _table(server, seed, [2], decision_ms=100)
    play = await play_ws(
        server.ws_url, _random(0), created["tokens"]["2"], on_request=lambda r, p: ""
    )
    records = await _records(server, created)
    mine = _decisions(records, 2)
    assert mine and all(
        d["outcome"] == "late" and d["replied_at"] is None and d.get("raw") is None for d in mine
    )
    assert len(play.outcomes) == len(mine)
    assert all(o.reason == "timeout" and o.applied is not None for o in play.outcomes)
    for d in mine:
        assert d["sent_at"] > 0 and d["reason"] == "timeout"
    default = Bot.from_function(lambda view, request: request.default(), name="default")
    assert _events(records) == _in_process(seed, 1, {2: default})


async def test_garbage_malformed_illegal_and_unknown_fields_are_answered_not_fatal(
    server: ServerHandle,
) -> None:
    seed = 21
    created = await _table(server, seed, [1])
    token = created["tokens"]["1"]
    client = WireClient(token, "chaos")
    received: list[dict] = []
    count = 0
    async with websockets.connect(server.ws_url) as ws:
        await ws.send(client.hello())
        await ws.send(client.ready())
        async for frame in ws:
            received.append(json.loads(frame))
            for item in client.receive_frame(frame):
                if not isinstance(item, ActionRequest):
                    continue
                rid = item.request_id
                kind = count % 4
                count += 1
                if kind == 0:  # not JSON, then a reply that does not validate
                    await ws.send("{this is not json")
                    await ws.send(json.dumps({"type": "reply", "request_id": rid, "action_id": -1}))
                elif kind == 1:  # a legal-looking id that is not legal
                    await ws.send(json.dumps({"type": "reply", "request_id": rid, "action_id": 99}))
                elif kind == 2:  # unknown type (ignored), then unknown fields (ignored)
                    await ws.send(json.dumps({"type": "teleport", "to": "mars"}))
                    reply = {"type": "reply", "request_id": rid, "action_id": 0, "x": [1]}
                    await ws.send(json.dumps(reply))
                else:
                    await ws.send(client.answer(item.legal[0]))
    records = await _records(server, created)
    outcomes = [d["outcome"] for d in _decisions(records, 1)]
    assert outcomes[:4] == ["malformed", "illegal", "ok", "ok"]
    assert [o for i, o in enumerate(outcomes) if i % 4 < 2] == [
        "malformed" if i % 4 == 0 else "illegal" for i in range(len(outcomes)) if i % 4 < 2
    ]
    errors = [f for f in received if f["type"] == "error"]
    assert errors and all(e["code"] == "malformed" and not e["fatal"] for e in errors)
    rejected = {f["reason"] for f in received if f["type"] == "rejected"}
    assert rejected == {"malformed", "not_legal"}
    assert received[-1]["type"] == "bye"

    counter = iter(range(10_000))

    def same_script(view: object, request: object) -> object:
        i = next(counter)
        return request.default() if i % 4 < 2 else request.legal_actions[0]  # type: ignore[attr-defined]

    bot = Bot.from_function(same_script, name="chaos")  # type: ignore[arg-type]
    assert _events(records) == _in_process(seed, 1, {1: bot})


async def test_an_oversized_frame_closes_the_connection_and_the_bot_resumes(
    server: ServerHandle,
) -> None:
    seed = 5
    created = await _table(server, seed, [3])

    def oversized(request: ActionRequest, play: WsPlay) -> str | None:
        if play.requests == 3 and play.connections == 1:
            return json.dumps(
                {"type": "reply", "request_id": request.request_id, "pad": "x" * 200_000}
            )
        return None

    play = await play_ws(server.ws_url, _random(9), created["tokens"]["3"], on_request=oversized)
    records = await _records(server, created)
    assert play.connections == 2 and play.ended
    mine = _decisions(records, 3)
    assert sum(d["outcome"] not in ("ok", "overridden") for d in mine) <= 1  # pending at the cut


async def test_another_seats_request_ids_cannot_act_for_it(server: ServerHandle) -> None:
    seed, hands = 17, 1
    created = await _table(server, seed, [0, 1, 2, 3], hands)
    pending: dict[int, str] = {}
    sneaky_frames: list[str] = []

    def remember(seat: int) -> Callable[[ActionRequest, WsPlay], str | None]:
        def hook(request: ActionRequest, play: WsPlay) -> str | None:
            pending[seat] = request.request_id
            return None

        return hook

    def sneaky(request: ActionRequest, play: WsPlay) -> list[str]:
        # request ids count per seat: skip one equal to our own (it would be ours)
        others = [r for s, r in pending.items() if s != 0 and r != request.request_id]
        if not others:
            return []
        # another seat's pending request id, answered on its behalf before our own answer
        frame = json.dumps({"type": "reply", "request_id": others[0], "action_id": 0})
        sneaky_frames.append(frame)
        return [frame]

    async def play_sneaky() -> WsPlay:
        return await play_ws(server.ws_url, _random(40), created["tokens"]["0"], on_request=sneaky)

    plays = await asyncio.gather(
        play_sneaky(),
        *(
            play_ws(
                server.ws_url, _random(40 + s), created["tokens"][str(s)], on_request=remember(s)
            )
            for s in (1, 2, 3)
        ),
    )
    records = await _records(server, created)
    assert sneaky_frames
    foreign = {json.loads(f)["request_id"] for f in sneaky_frames}
    answered = [o for o in plays[0].outcomes if o.request_id in foreign and not o.accepted]
    assert answered and all(o.reason in ("unknown_request", "stale", "late") for o in answered)
    assert all(o.applied is None or o.reason == "late" for o in answered)
    for seat in (1, 2, 3):
        assert all(d["outcome"] in ("ok", "overridden") for d in _decisions(records, seat))
    bots = {s: _random(40 + s) for s in range(4)}
    assert _events(records) == _in_process(seed, hands, bots)


async def _first_frames(url: str, frames: list[str]) -> tuple[list[dict], int | None]:
    """Send ``frames`` on a fresh connection; what came back and the close code."""
    async with websockets.connect(url) as ws:
        for frame in frames:
            await ws.send(frame)
        got = [json.loads(f) async for f in ws]
    return got, ws.close_code


async def test_wrong_tokens_and_frames_before_hello_are_refused(server: ServerHandle) -> None:
    created = await _table(server, 3, [0], hands=1)
    token = created["tokens"]["0"]
    got, _ = await _first_frames(server.ws_url, [WireClient("not-a-token", "x").hello()])
    assert [(f["code"], f["fatal"]) for f in got] == [("bad_token", True)]
    got, _ = await _first_frames(server.ws_url, ['{"type": "ready"}'])
    assert [(f["code"], f["fatal"]) for f in got] == [("unexpected_message", True)]
    got, _ = await _first_frames(server.ws_url, ["[1, 2"])
    assert [(f["code"], f["fatal"]) for f in got] == [("malformed", True)]
    async with websockets.connect(server.ws_url) as holder:
        await holder.send(WireClient(token, "a").hello())
        assert json.loads(await holder.recv())["type"] == "welcome"
        async with websockets.connect(server.ws_url) as newer:  # the token's holder wins
            await newer.send(WireClient(token, "b").hello())
            assert json.loads(await newer.recv())["type"] == "welcome"
            old = []
            with pytest.raises(websockets.ConnectionClosed):
                while True:
                    old.append(json.loads(await holder.recv()))
        assert [(f["code"], f["fatal"]) for f in old if f["type"] == "error"] == [
            ("conflict", True)
        ]
        assert holder.close_code == 1008


async def _drain(ws: websockets.ClientConnection) -> None:
    """Read every frame until the connection closes (however it closes)."""
    with contextlib.suppress(websockets.ConnectionClosed):
        async for _ in ws:
            pass


async def test_a_flooding_client_is_throttled_then_cut_off_and_other_tables_play_on(
    server: ServerHandle,
) -> None:
    flooded = await _table(server, 4, [0], hands=1)
    other = await _table(server, 6, [], hands=2)
    client = WireClient(flooded["tokens"]["0"], "flood")
    loop = asyncio.get_running_loop()
    async with websockets.connect(server.ws_url) as ws:
        await ws.send(client.hello())
        started = loop.time()
        # it reads what it is sent, so it is told why (1008); a flooder that does not
        # read and is behind is dropped without a close frame (tests/test_server_ws_hostile.py)
        reading = asyncio.create_task(_drain(ws))
        with pytest.raises(websockets.ConnectionClosed):
            for _ in range(2000):
                await ws.send(client.ready())
                await asyncio.sleep(0.001)
            await reading  # the server closes it...
            await ws.send(client.ready())  # ...so this raises
        elapsed = loop.time() - started
        await reading
    assert ws.close_code == 1008
    assert 0.4 < elapsed < 20  # throttled first (flood_seconds 0.5), then disconnected
    await _records(server, other)  # the other table finished normally
    # nobody attends the flooded table any more: it pauses, then is aborted (its hands kept)
    records = await _records(server, flooded, "aborted")
    assert {d["outcome"] for d in _decisions(records, 0)} <= {
        "ok",
        "overridden",
        "late",
        "disconnected",
    }
