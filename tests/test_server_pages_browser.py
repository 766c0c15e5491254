"""The server's front page and leaderboard page in headless chromium (no CJK font): a
running match is listed with public information only and its link opens its view; the
leaderboard counts a bot seated twice in each of three matches as 3 matches, rounds for
people, and both pages read at 360 and 1280 px without sideways scrolling. Screenshots
are saved under ``out/``."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from browser_helpers import chromium, console_errors, screenshot, set_width

from sdk.server.config import ServerConfig
from sdk.server.runner import ServerHandle, running_server

SEED = 918273645
"""The running match's seed: a number no page may hold."""
TILE = re.compile(r"\b[1-9][mps]\b")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as driver:
        yield driver


@pytest.fixture
async def server(tmp_path: Path) -> Any:
    config = ServerConfig(
        port=0, line_port=None, db_path=str(tmp_path / "league.db"), leaderboard_min_hands=1
    )
    async with running_server(config) as handle:
        yield handle


async def _create(http: httpx.AsyncClient, seed: int, seats: list[dict]) -> dict:
    response = await http.post("/v1/tables", json={"seed": seed, "hands": 1, "seats": seats})
    assert response.status_code == 201, response.text
    return response.json()


async def _status(http: httpx.AsyncClient, table_id: str, wanted: tuple[str, ...]) -> dict:
    for _ in range(600):
        status = (await http.get(f"/v1/tables/{table_id}")).json()
        if status["status"] in wanted:
            return status  # type: ignore[no-any-return]
        await asyncio.sleep(0.05)
    raise AssertionError(f"{table_id} never reached {wanted}")


def _visit(driver: Any, url: str) -> None:
    driver.get(url)
    assert driver.execute_script("return document.readyState") == "complete"


def _overflowing(driver: Any, width: int) -> list[str]:
    """The elements reaching past ``width`` CSS pixels (a phone's viewport grows to fit
    its content, so the page's own width says nothing)."""
    return list(
        driver.execute_script(
            "return Array.from(document.querySelectorAll('body *')).filter("
            "(e) => e.getBoundingClientRect().right > arguments[0] + 0.5).map("
            "(e) => e.tagName + '.' + e.className + ': ' + e.textContent.slice(0, 40))",
            width,
        )
    )


def _open_from_front(driver: Any, url: str, match_id: str) -> tuple[str, str]:
    """Open the front page, check the match's card, follow its "watch" link: the path
    reached and its page (in a thread: the server runs on the test's loop)."""
    from selenium.webdriver.support.ui import WebDriverWait

    _visit(driver, url + "/")
    card = driver.find_element("css selector", f'article[data-match="{match_id}"]')
    assert "running" in card.get_attribute("class")
    text = card.text
    assert "gated" in text and "seat 0" in text and not TILE.search(text)
    screenshot(driver, "front-running.png")
    card.find_element("link text", "watch").click()
    WebDriverWait(driver, 10).until(lambda d: urlsplit(d.current_url).path.endswith("/view"))
    return urlsplit(driver.current_url).path, str(driver.page_source)


async def test_a_running_match_is_listed_with_public_information_and_opens_its_view(
    browser: Any, server: ServerHandle
) -> None:
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
    async with httpx.AsyncClient(base_url=server.url) as http:
        created = await _create(http, SEED, seats)
        match_id = created["match_id"]
        player = asyncio.create_task(run_ws(Gated(seed=3), server.ws_url, created["tokens"]["0"]))
        try:
            await _status(http, created["table_id"], ("running",))
            await asyncio.sleep(1.1)  # past the front page's cache: the match has begun
            page = (await http.get("/")).text
            assert f'data-match="{match_id}"' in page and "hand 1 of 1" in page
            assert str(SEED) not in page and "seed" not in page.lower()
            assert "<script" not in page and not TILE.search(page)  # no tile, no data
            view, source = await asyncio.to_thread(_open_from_front, browser, server.url, match_id)
            assert view == f"/v1/matches/{match_id}/view"
            assert "gated" in source and str(SEED) not in source
        finally:
            for _ in range(1000):
                gate.release()
            await player
        await _status(http, created["table_id"], ("finished",))
    assert await asyncio.to_thread(console_errors, browser) == []


async def test_the_leaderboard_counts_matches_for_a_bot_seated_twice(
    browser: Any, server: ServerHandle
) -> None:
    """``random`` holds seats 0 and 1 of three one-hand matches: 3 matches (6 seats)."""
    names = ["random", "random", "greedy", "greedy"]
    seats = [{"seat": s, "bot_name": n, "transport": "builtin"} for s, n in enumerate(names)]
    async with httpx.AsyncClient(base_url=server.url) as http:
        for seed in (5, 6, 7):
            created = await _create(http, seed, seats)
            await _status(http, created["table_id"], ("finished",))
        await asyncio.sleep(2.1)  # the leaderboard is recomputed at most every 2 s
        board = (await http.get("/v1/leaderboard")).json()
        index = (await http.get("/v1/")).json()
        front = (await http.get("/")).text
    twice = next(e for e in board["entries"] if "random" in e["bot_name"])
    assert (twice["matches"], twice["seats"], twice["hands"]) == (3, 6, 3)
    assert {"method": "GET", "path": "/leaderboard", "answer": "the leaderboard page (HTML)"} in (
        index["endpoints"]
    )
    assert front.count("<article") == 3 and front.count(">record</a>") == 3
    await asyncio.to_thread(_visit, browser, server.url + "/leaderboard")
    rows = browser.execute_script(
        "return Array.from(document.querySelectorAll('.board tbody tr')).map("
        "(r) => Array.from(r.cells).map((c) => c.innerText.replace(/\\n/g, ' ')))"
    )
    row = next(r for r in rows if "random" in r[1])
    assert row[2] == "3 6 seats" and row[3] == "3"
    numbers = re.findall(r"\d[\d,]*\.\d+", " ".join(c for r in rows for c in r))
    assert numbers and all(len(n.split(".")[1]) == 1 for n in numbers)  # rounded for people
    for width in (360, 1280):
        set_width(browser, width)
        for path, name in (("/leaderboard", "leaderboard"), ("/", "front")):
            await asyncio.to_thread(_visit, browser, server.url + path)
            assert _overflowing(browser, width) == [], f"{path} at {width} px"
            screenshot(browser, f"{name}-{width}.png")
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert console_errors(browser) == []
