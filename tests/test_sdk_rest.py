"""The REST client against httpx.MockTransport: paths, bodies, models and errors."""

from __future__ import annotations

import json

import httpx
import pytest

from protocol.wire.rest import SeatAssignment, TableCreate
from sdk.rest import DEFAULT_TIMEOUT, RestClient, RestError, SyncRestClient

STATUS = {
    "table_id": "t/1",
    "match_id": "m-1",
    "status": "running",
    "hand_no": 5,
    "hands": 16,
    "seats": [
        {
            "seat": 0,
            "bot_name": "b",
            "transport": "ws",
            "connected": True,
            "ready": True,
            "fallbacks": 0,
        }
    ],
    "scores": [3500, -1500, -1000, -1000],
}
ANSWERS: dict[tuple[str, str], dict[str, object]] = {
    ("GET", "/v1/health"): {"status": "ok", "protocol_version": 1, "server_version": "0.1.0"},
    ("POST", "/v1/tables"): {"table_id": "t-1", "match_id": "m-1", "tokens": {"0": "tok0"}},
    ("GET", "/v1/tables"): {"tables": [STATUS]},
    ("GET", "/v1/tables/t%2F1"): STATUS,
    ("GET", "/v1/matches/m-1/log"): {
        "match_id": "m-1",
        "table_id": "t-1",
        "seed": 7,
        "hands": 1,
        "seat_names": ["a", "b", "c", "d"],
        "events": [{"type": "match_end", "scores": [0, 0, 0, 0]}],
        "scores": [0, 0, 0, 0],
    },
    ("GET", "/v1/leaderboard"): {
        "entries": [
            {
                "rank": 1,
                "bot_name": "b",
                "matches": 4,
                "hands": 64,
                "total_score": 12500,
                "mean_score": 3125,
            }
        ]
    },
}


def server(seen: list[httpx.Request]) -> httpx.MockTransport:
    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        answer = ANSWERS.get((request.method, request.url.raw_path.decode()))
        if answer is None:
            return httpx.Response(404, json={"code": "malformed", "message": "no such path"})
        return httpx.Response(200, json=answer)

    return httpx.MockTransport(handle)


TABLE = TableCreate(seed=7, hands=4, seats=[SeatAssignment(seat=0, bot_name="mine")])


async def test_every_resource_returns_its_model() -> None:
    seen: list[httpx.Request] = []
    async with RestClient("http://server", transport=server(seen)) as rest:
        assert (await rest.health()).protocol_version == 1
        created = await rest.create_table(TABLE)
        assert created.tokens == {"0": "tok0"}
        assert (await rest.tables()).tables[0].scores[0] == 3500
        assert (await rest.table("t/1")).hand_no == 5  # ids are quoted in the path
        log = await rest.match_log("m-1")
        assert log.seed == 7 and log.events[0]["type"] == "match_end"
        assert (await rest.leaderboard()).entries[0].mean_score == 3125.0
    body = json.loads(seen[1].content)
    assert seen[1].headers["content-type"] == "application/json"
    assert body["seed"] == 7 and body["seats"] == [
        {"seat": 0, "bot_name": "mine", "transport": "ws"}
    ]
    assert rest.http.timeout == DEFAULT_TIMEOUT


async def test_errors_carry_the_servers_code() -> None:
    async with RestClient("http://server", transport=server([])) as rest:
        with pytest.raises(RestError, match="HTTP 404: malformed: no such path") as info:
            await rest.table("nope/x")
    assert info.value.status == 404 and info.value.code == "malformed"


@pytest.mark.parametrize(
    ("response", "message"),
    [
        (httpx.Response(502, text="bad gateway"), "HTTP 502: bad gateway"),
        (httpx.Response(200, json={"status": "fine"}), "not a valid Health"),
        (httpx.Response(200, text="<html>"), "not a valid Health"),
    ],
)
def test_answers_that_do_not_fit_raise_rest_error(response: httpx.Response, message: str) -> None:
    transport = httpx.MockTransport(lambda request: response)
    with (
        SyncRestClient("http://server", transport=transport) as rest,
        pytest.raises(RestError, match=message) as info,
    ):
        rest.health()
    assert info.value.error is None


def test_the_sync_client_has_the_same_resources() -> None:
    seen: list[httpx.Request] = []
    timeout = httpx.Timeout(1.0)
    with SyncRestClient("http://server", transport=server(seen), timeout=timeout) as rest:
        assert rest.create_table(TABLE).table_id == "t-1"
        assert rest.table("t/1").status == "running"
        assert rest.match_log("m-1").hands == 1
        assert len(rest.tables().tables) == 1 and rest.leaderboard().entries[0].rank == 1
        assert rest.http.timeout == timeout
    assert [r.method for r in seen] == ["POST", "GET", "GET", "GET", "GET"]


async def test_a_server_that_cannot_be_reached_raises_httpx_errors() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    async with RestClient("http://server", transport=httpx.MockTransport(refuse)) as rest:
        with pytest.raises(httpx.ConnectError):
            await rest.health()
