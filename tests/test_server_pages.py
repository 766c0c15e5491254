"""The server's pages over HTTP (the browser test, tests/test_server_pages_browser.py,
looks at them in chromium): ``GET /v1/`` lists the endpoints, ``/`` pages back through
the matches and lists a table still waiting for its bots, names are escaped, the pages
obey the REST rate limit, and the leaderboard page rounds for people."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from sdk.server import pages
from sdk.server.app import ENDPOINTS
from sdk.server.config import ServerConfig
from sdk.server.runner import ServerHandle, running_server

HOUSE = [{"seat": s, "bot_name": "random", "transport": "builtin"} for s in range(4)]


async def _finish(http: httpx.AsyncClient, seed: int, seats: list[dict] = HOUSE) -> dict:
    body = {"seed": seed, "hands": 1, "seats": seats}
    created = (await http.post("/v1/tables", json=body)).json()
    for _ in range(400):
        status = (await http.get(f"/v1/tables/{created['table_id']}")).json()
        if status["status"] == "finished":
            return created  # type: ignore[no-any-return]
        await asyncio.sleep(0.05)
    raise AssertionError("the match did not finish")


def _client(server: ServerHandle) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=server.url)


def _config(tmp_path: Path, **limits: Any) -> ServerConfig:
    return ServerConfig(
        port=0, line_port=None, db_path=str(tmp_path / "p.db"), leaderboard_min_hands=1, **limits
    )


async def test_the_rest_base_lists_the_endpoints(tmp_path: Path) -> None:
    async with running_server(_config(tmp_path)) as server, _client(server) as http:
        bare, slash = await http.get("/v1"), await http.get("/v1/")
        missing = await http.get("/v2/")
    assert bare.status_code == slash.status_code == 200 and bare.json() == slash.json()
    listed = [(e["method"], e["path"]) for e in slash.json()["endpoints"]]
    assert listed == [(m, p) for m, p, _ in ENDPOINTS]
    assert ("GET", "/v1/leaderboard") in listed and ("GET", "/") in listed
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"


def test_every_route_is_listed(tmp_path: Path) -> None:
    """A route added to the app without a line in ``ENDPOINTS`` fails here."""
    from sdk.server.app import create_app
    from sdk.server.core import TournamentServer

    app = create_app(TournamentServer(_config(tmp_path)))
    routes = {(m, r.path) for r in app.routes for m in getattr(r, "methods", None) or {"WS"}}
    routes -= {("GET", "/v1"), ("HEAD", "/v1")}  # the index itself, also at /v1/
    listed = {(m, p.split("?")[0]) for m, p, _ in ENDPOINTS}
    assert {(m, p) for m, p in routes if m != "HEAD"} == listed | {("GET", "/v1/")}


async def test_the_front_page_pages_back_and_shows_a_waiting_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pages of 2 tables: a table waiting for its bots (the oldest) is listed under
    "Playing now" on the first page and nowhere else."""
    monkeypatch.setattr(pages, "PAGE_SIZE", 2)
    async with running_server(_config(tmp_path)) as server, _client(server) as http:
        ws = [{"seat": 0, "bot_name": "late", "transport": "ws"}]
        waiting = (await http.post("/v1/tables", json={"seed": 4, "hands": 2, "seats": ws})).json()
        ids = [(await _finish(http, seed))["match_id"] for seed in (1, 2, 3)]
        await asyncio.sleep(1.1)  # past the page cache
        first = (await http.get("/")).text
        older = re.search(r'href="/\?before=(\d+)"', first)
        assert older is not None
        second = (await http.get(f"/?before={older.group(1)}")).text
        bad = await http.get("/?before=abc")
    listed = re.findall(r'data-match="([^"]+)"', first)
    assert listed == [waiting["match_id"], ids[2], ids[1]]  # playing now, then a page
    assert "waiting for its bots; 2 hands" in first and 'http-equiv="refresh"' in first
    assert re.findall(r'data-match="([^"]+)"', second) == [ids[0]]  # not the waiting one
    assert "Playing now" not in second and 'http-equiv="refresh"' not in second
    assert bad.status_code == 422 and bad.json()["message"].startswith("before:")


async def test_names_are_escaped_and_the_leaderboard_rounds(tmp_path: Path) -> None:
    seats = [{"seat": 0, "bot_name": "<b>bold</b>", "transport": "builtin"}, *HOUSE[1:]]
    config = _config(tmp_path, house_bots={"<b>bold</b>": "bots.random", "random": "bots.random"})
    async with running_server(config) as server, _client(server) as http:
        for seed in (1, 2, 3):
            await _finish(http, seed, seats)
        front, board = (await http.get("/")).text, (await http.get("/leaderboard")).text
        entries = (await http.get("/v1/leaderboard")).json()["entries"]
    assert "<b>bold" not in front + board and "&lt;b&gt;bold&lt;/b&gt;" in front
    assert "&lt;b&gt;bold&lt;/b&gt;" in board
    cells = re.findall(r'<td class="num"[^>]*>([^<]*)', board)
    assert cells and all(re.fullmatch(r"[+−]?[\d,]+(\.\d)?", c) for c in cells), cells
    for e in entries:  # the JSON keeps at most 3 decimals
        assert all(len(str(e[k]).split(".")[-1]) <= 3 for k in ("mean_score", "rating"))


async def test_the_pages_obey_the_rest_rate(tmp_path: Path) -> None:
    async with (
        running_server(_config(tmp_path, rest_rate=0.5, rest_burst=2)) as server,
        _client(server) as http,
    ):
        codes = [(await http.get(p)).status_code for p in ("/", "/leaderboard", "/")]
    assert codes == [200, 200, 429]
