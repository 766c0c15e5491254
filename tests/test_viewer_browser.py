"""The replay viewer in a real headless browser (Debian's chromium driven by Selenium):
opened from a file and from the server, stepped with the keyboard and the slider, its
tiles checked against the referee's views, the tai items of a win shown, no console
error, and the live page of a running match never showing a concealed tile.

Skipped only when chromium is not installed outside CI (``.ci/run`` installs it); in CI
(``CI=true``) a missing browser is a failure. A screenshot is saved under ``out/``.
"""

from __future__ import annotations

import asyncio
import re
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from browser_helpers import chromium, console_errors, screenshot, set_width
from record_helpers import play_recorded
from transcript_helpers import play_transcribed
from view_server_helpers import create_table, embedded, loopback_server, until_over

from protocol.events import project
from sdk.records import Header, Record, SeatInfo, build_record, parse_text, views_at
from sdk.records.transcript import record_from_transcript
from sdk.records.views import NOBODY
from sdk.replay.frames import describe
from sdk.replay.html import render_html, viewer_data
from sdk.replay.numbering import in_hand, steps_in_hand, viewer_anchor
from sdk.replay.viewdata import ViewerData
from sdk.server.runner import ServerHandle


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium(1400, 1000) as driver:
        yield driver


@pytest.fixture(scope="module")
def record() -> Record:
    """The first seeded two-hand record with a win and a late decision to show."""
    for seed in range(1, 200):
        rec = play_recorded(seed, hands=2)
        won = any(h.result.winner is not None for h in rec.hands)
        if won and any(d.outcome.value == "late" for d in rec.decisions):
            return rec
    raise AssertionError("no seed up to 200 gives a win and a late decision")


def _open(driver: Any, url: str) -> None:
    driver.get(url)
    _wait_ready(driver)


def _wait_ready(driver: Any) -> None:
    for _ in range(200):
        if driver.execute_script("return !!document.body && document.body.dataset.ready === '1'"):
            break
        time.sleep(0.02)
    assert driver.execute_script("return document.body.dataset.ready") == "1"


def _step(driver: Any) -> int:
    """The step shown, once a hand being decoded or fetched is in."""
    for _ in range(300):
        if driver.execute_script("return !document.body.dataset.loading"):
            break
        time.sleep(0.02)
    return int(driver.execute_script("return document.body.dataset.step"))


def _press(driver: Any, key: str, times: int = 1) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    chain = ActionChains(driver)
    for _ in range(times):
        chain.send_keys(key)
    chain.perform()


def _slide(driver: Any, step: int) -> None:
    driver.execute_script(
        "const s = document.getElementById('slider');"
        "s.value = arguments[0]; s.dispatchEvent(new Event('input'));",
        step,
    )
    assert _step(driver) == step


_TABLE_JS = """
const tiles = (sel) => Array.from(document.querySelectorAll(sel)).map(
  (t) => t.classList.contains('back') ? null : t.dataset.tile);
return [0, 1, 2, 3].map((s) => ({
  hand: tiles('#seat-' + s + ' .hand .tile'),
  river: tiles('#seat-' + s + ' .river .tile'),
  claimed: Array.from(document.querySelectorAll('#seat-' + s + ' .river .tile')).map(
    (t) => t.classList.contains('claimed')),
  melds: Array.from(document.querySelectorAll('#seat-' + s + ' .melds .meld')).map(
    (m) => Array.from(m.querySelectorAll('.tile')).map((t) => t.dataset.tile || null)),
}));
"""


def _shown(driver: Any) -> list[dict[str, Any]]:
    return driver.execute_script(_TABLE_JS)


def _claimed_steps(record: Record) -> list[int]:
    """Steps right after a discard was claimed."""
    return [i + 1 for i, e in enumerate(record.events) if e.type in ("chow", "pung", "kong")]


def _check_table(driver: Any, record: Record, step: int, seat: int | None = None) -> None:
    """The page's tiles at ``step`` are those of the referee's views there."""
    views = views_at(record, step)
    shown = _shown(driver)
    for s, view in enumerate(views):
        if seat is None or s == seat:
            assert sorted(shown[s]["hand"]) == sorted(str(t) for t in view.hand), (step, s)
        else:
            assert shown[s]["hand"] == [None] * view.public.concealed[s]
        assert shown[s]["river"] == [str(t) for t in view.river(s)]
        melds = view.melds(s) if seat in (None, s) else view.public.melds[s]
        assert sorted(shown[s]["melds"]) == sorted([str(t) for t in m.tiles] for m in melds)
    status = driver.find_element("id", "status").text
    assert f"wall {views[0].wall_left} " in status


def test_a_recorded_match_opens_from_a_file_and_steps(
    browser: Any, record: Record, tmp_path: Path
) -> None:
    page = tmp_path / "replay.html"
    page.write_text(render_html(record), encoding="utf-8")
    _open(browser, page.as_uri())
    last = record.steps - 1
    assert _step(browser) == 0
    _press(browser, "\ue014", 3)  # arrow right
    assert _step(browser) == 3
    _press(browser, "\ue012")  # arrow left
    assert _step(browser) == 2
    _press(browser, "\ue010")  # End
    assert _step(browser) == last
    _press(browser, "\ue012", 2)
    assert _step(browser) == last - 2
    _press(browser, "\ue011")  # Home
    assert _step(browser) == 0
    asked = sorted({d.after_event for d in record.decisions})
    _press(browser, "n", 2)  # the next decision, twice
    assert _step(browser) == asked[1]
    _press(browser, "p")
    assert _step(browser) == asked[0]
    chosen = _claimed_steps(record)[0] + 3
    _slide(browser, chosen)
    assert _step(browser) == chosen
    _check_table(browser, record, chosen)
    claimed = _shown(browser)
    assert any(any(s["claimed"]) for s in claimed), "a claimed discard is marked"
    assert console_errors(browser) == []


def test_the_win_shows_its_tai_items_and_decisions_their_options(
    browser: Any, record: Record, tmp_path: Path
) -> None:
    win = next(h for h in record.hands if h.result.winner is not None)
    page = tmp_path / "replay.html"
    page.write_text(render_html(record), encoding="utf-8")
    _open(browser, page.as_uri() + viewer_anchor(*in_hand(record, win.end_event + 1)))
    assert _step(browser) == win.end_event + 1
    _check_table(browser, record, win.end_event + 1)
    items = browser.execute_script(
        "return Array.from(document.querySelectorAll('#result tr.item')).map("
        "(r) => [r.dataset.item, r.textContent]);"
    )
    score = win.result.score
    assert [i for i, _ in items] == [i["id"] for i in score["items"]]
    for (_, text), item in zip(items, score["items"], strict=True):
        assert item["id"].replace("_", " ") in text and f"{item['tai']} tai" in text
    assert (
        f"{score['total_tai']} tai" in browser.find_element("css selector", "#result tr.total").text
    )
    payments = browser.execute_script(
        "return Array.from(document.querySelectorAll('#result .pay li')).map((l) => l.textContent)"
    )
    assert [p.split(")")[0] for p in payments] == [f"seat {s} (policy{s}" for s in range(4)]
    screenshot(browser, "viewer-win.png")
    late = next(d for d in record.decisions if d.outcome.value == "late")
    _slide(browser, late.after_event)
    shown = browser.execute_script(
        "return Array.from(document.querySelectorAll('#decisions .decision')).map((d) => ["
        "d.dataset.seat, d.querySelector('.badge').textContent, d.querySelectorAll('.opt').length,"
        "d.querySelector('.opt.applied') && d.querySelector('.opt.applied').textContent]);"
    )
    assert [str(late.seat), "late", len(late.legal) + 1, str(late.applied)] in [
        list(row) for row in shown
    ]
    assert console_errors(browser) == []


def test_one_seats_view_shows_no_other_concealed_tile(
    browser: Any, record: Record, tmp_path: Path
) -> None:
    page = tmp_path / "seat2.html"
    page.write_text(render_html(record, seat=2), encoding="utf-8")
    _open(browser, page.as_uri())
    chosen = _claimed_steps(record)[-1]
    # the seat's page has no frame for another seat's hidden declines: find the frame
    frames = viewer_data(record, seat=2)["frames"]
    seen = [e for e in (project(ev, 2) for ev in record.events[:chosen]) if e is not None]
    assert len(frames) > len(seen)
    _slide(browser, len(seen))
    _check_table(browser, record, chosen, seat=2)
    assert console_errors(browser) == []


def test_a_tournament_transcript_shows_the_seats_game(browser: Any, tmp_path: Path) -> None:
    # a line-protocol session kept with --save-transcript, opened as its seat saw it
    path, seat = tmp_path / "game.txt", 1
    play_transcribed(path, seed=9, hands=1, seat=seat)
    record = record_from_transcript(path.read_text(), str(path))
    page = tmp_path / "transcript.html"
    page.write_text(render_html(record), encoding="utf-8")
    _open(browser, page.as_uri())
    decision = record.decisions[len(record.decisions) // 2]
    _slide(browser, decision.after_event)  # the seat's events: one frame each
    view = views_at(record, decision.after_event)[seat]
    shown = _shown(browser)
    for s in range(4):
        if s == seat:
            assert sorted(shown[s]["hand"]) == sorted(str(t) for t in view.hand)
        else:
            assert shown[s]["hand"] == [None] * view.public.concealed[s]
        assert shown[s]["river"] == [str(t) for t in view.river(s)]
    rows = browser.execute_script(
        "return Array.from(document.querySelectorAll('#decisions .decision')).map("
        "(d) => [d.dataset.seat, d.querySelector('.opt.applied').textContent, d.textContent]);"
    )
    assert [[str(seat), str(decision.applied)]] == [row[:2] for row in rows]
    assert "no reply" not in rows[0][2] and " ms" in rows[0][2]  # the program's own time
    screenshot(browser, "viewer-transcript.png")
    assert console_errors(browser) == []


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[ServerHandle]:
    async with loopback_server(tmp_path) as handle:
        yield handle


async def test_the_server_serves_a_finished_match_to_the_browser(
    browser: Any, server: ServerHandle
) -> None:
    builtin = [{"seat": s, "bot_name": "random", "transport": "builtin"} for s in range(4)]
    async with httpx.AsyncClient(base_url=server.url) as http:
        created = await create_table(http, 23, 3, builtin)
        await until_over(http, created["table_id"])
        view = f"/v1/matches/{created['match_id']}/view"
        text = (await http.get(f"/v1/matches/{created['match_id']}/log.jsonl")).text
        missing = await http.get("/v1/matches/nope/view")
        bad_seat = await http.get(f"{view}?seat=7")
        no_hand = await http.get(f"{view}/hands/3")
        shell = embedded((await http.get(view)).text)
    assert missing.status_code == 404 and bad_seat.status_code == 422
    assert no_hand.status_code == 404
    assert shell["source"] == {"url": "view/hands/", "query": ""} and shell["first"]["hand"] == 0
    record = parse_text(text)
    await asyncio.to_thread(_drive_finished, browser, server.url + view, record)


def _drive_finished(browser: Any, url: str, record: Record) -> None:
    """The browser's part (in a thread: the page fetches its hands from the server)."""
    _open(browser, url)
    chosen = _claimed_steps(record)[0] + 1
    _slide(browser, chosen)
    _check_table(browser, record, chosen)
    _press(browser, "n")  # the next decision: its options as the server recorded them
    asked = next(d for d in record.decisions if d.after_event > chosen)
    assert _step(browser) == asked.after_event
    options = browser.execute_script(
        "return Array.from(document.querySelectorAll('#decisions .opt')).map((o) => o.textContent)"
    )
    same_time = [d for d in record.decisions if d.after_event == asked.after_event]
    assert options == [str(a) for d in same_time for a in d.legal]
    _press(browser, "\ue010")  # End: the last hand, fetched
    assert _step(browser) == record.steps - 1
    fetched = browser.execute_script(
        "return performance.getEntriesByType('resource').map((r) => r.name)"
    )
    assert any(name.endswith("/view/hands/2") for name in fetched)
    _check_table(browser, record, record.steps - 1)
    late = next(d for d in reversed(record.decisions) if d.hand == 1)  # the reviewer's link
    _open(browser, url + viewer_anchor(*in_hand(record, late.after_event)))
    assert _step(browser) == late.after_event
    _check_table(browser, record, late.after_event)
    links = browser.find_elements("css selector", "#views a")
    assert [a.text for a in links] == ["all hands", "seat 0", "seat 1", "seat 2", "seat 3"]
    links[2].click()
    for _ in range(200):
        if "/view?seat=1" in browser.current_url:
            break
        time.sleep(0.02)
    _wait_ready(browser)
    assert "/view?seat=1#" in browser.current_url
    _slide(browser, 0)
    _press(browser, "\ue010")
    seen = [e for e in (project(ev, 1) for ev in record.events) if e is not None]
    assert _step(browser) == len(seen)
    _check_table(browser, record, record.steps - 1, seat=1)
    assert console_errors(browser) == []


async def test_the_live_view_of_a_running_match_shows_public_information_only(
    browser: Any, server: ServerHandle
) -> None:
    """Seat 0 answers only when the test lets it, so the match runs while the test looks:
    every hand fetched meanwhile is the public projection of the referee's events so far,
    with no concealed tile; the open page follows the new steps pushed to it, without
    reloading; once the match is over the page shows every hand."""
    from bots.random import RandomBot
    from sdk.transports.ws import run_ws

    gate = asyncio.Semaphore(0)

    async def js(script: str) -> Any:  # off the loop: the page talks to this server
        return await asyncio.to_thread(browser.execute_script, script)

    class Gated(RandomBot):
        async def choose(self, view: Any, request: Any) -> Any:
            await gate.acquire()
            return super().choose(view, request)

    seats = [{"seat": 0, "bot_name": "gated", "transport": "ws"}] + [
        {"seat": s, "bot_name": "random", "transport": "builtin"} for s in range(1, 4)
    ]
    async with httpx.AsyncClient(base_url=server.url) as http:
        created = await create_table(http, 41, 2, seats)
        table = server.server.tables[created["table_id"]]
        url = f"/v1/matches/{created['match_id']}/view"
        player = asyncio.create_task(run_ws(Gated(seed=3), server.ws_url, created["tokens"]["0"]))
        totals, followed = [], []
        for _ in range(200):  # until seat 0 is asked its first decision and holds the match
            if table.match is not None and len(table.match.events) > 5:
                break
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.2)
        for page_no in range(6):
            data = embedded((await http.get(url)).text)
            assert data["live"] and data["source"]["stream"], "seat 0 holds the match"
            assert data["first"] is None and "seed" not in data["title"]
            hands = [
                (await http.get(f"{url}/hands/{h}")).json() for h in range(len(data["starts"]))
            ]
            _check_public(data, hands, list(table.match.events) if table.match else [])
            totals.append(data["total"])
            if page_no == 2:
                await asyncio.to_thread(_open, browser, server.url + url)
                await js("window.notReloaded = true")
                assert await js(_FACE_UP) == 0
                await asyncio.to_thread(screenshot, browser, "viewer-live.png")
            if page_no > 2:  # the open page was pushed the new steps
                followed.append(await asyncio.to_thread(_step, browser))
            for _ in range(3):
                gate.release()
            await asyncio.sleep(0.5)
        assert await js("return window.notReloaded === true"), "no reload"
        assert followed == sorted(followed) and followed[0] < followed[-1]
        assert await js(_FACE_UP) == 0
        for _ in range(1000):
            gate.release()
        await player
        await until_over(http, created["table_id"])
        after = embedded((await http.get(url)).text)
        end = await http.get(f"{url}/stream")
    assert totals == sorted(totals) and totals[0] < totals[-1], "the live page followed the match"
    assert not after["live"] and after["first"]["frames"][0]["text"] == ""
    assert all(s["hand"] is not None for s in after["first"]["states"])  # shown after the end
    assert end.text == "event: end\ndata: {}\n\n"
    for _ in range(100):  # the page saw the end and loaded the finished view
        if not await js("return window.notReloaded === true"):
            break
        await asyncio.sleep(0.05)
    assert await asyncio.to_thread(console_errors, browser) == []


_FACE_UP = "return document.querySelectorAll('.hand .tile:not(.back)').length"


def _check_public(data: dict[str, Any], hands: list[dict[str, Any]], referee: list) -> None:
    """The live page's hands are exactly the spectator's projection of a prefix of the
    referee's events: no seat's concealed tiles, no draw's tile, no decision, no wall."""
    assert data["spectator"] and data["seat"] is None
    for hand in hands:
        assert hand["decisions"] == [] and hand["wall"] is None
        assert all(s["hand"] is None and s["drawn"] is None for s in hand["states"])
    seen = [e for e in (project(ev, NOBODY) for ev in referee) if e is not None]
    header = Header(0, 2, tuple(SeatInfo(s, s, n) for s, n in enumerate(data["names"])))
    expected = ViewerData(build_record(header, seen, ()), spectator=True)
    assert data["total"] == expected.total and data["starts"] == expected.starts
    assert hands == [expected.hand(h) for h in range(len(hands))]


# --- legible anywhere: no CJK font, 360 to 1920 px ---------------------------------------

_TILE_PIXELS_JS = """
const [png, boxes, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
const img = new Image();
img.onload = () => {
  const c = document.createElement('canvas');
  c.width = img.width; c.height = img.height;
  const g = c.getContext('2d');
  g.drawImage(img, 0, 0);
  done(boxes.map(([x, y, w, h]) => {
    const d = g.getImageData(x + 3, y + 3, w - 6, h - 6).data;
    let ink = 0, red = 0, blue = 0, green = 0;
    for (let i = 0; i < d.length; i += 4) {
      const [r, gg, b] = [d[i], d[i + 1], d[i + 2]];
      if (Math.abs(r - 251) + Math.abs(gg - 248) + Math.abs(b - 239) < 60) continue;
      ink++;
      if (r > 140 && gg < 90 && b < 90) red++;
      if (b > 120 && r < 90) blue++;
      if (gg > 90 && r < 90 && b < 110) green++;
    }
    return {ink: ink / (d.length / 4), red, blue, green};
  }));
};
img.src = 'data:image/png;base64,' + png;
"""


def test_tile_faces_are_legible_with_no_cjk_font(
    browser: Any, record: Record, tmp_path: Path
) -> None:
    """Each kind's face is an SVG symbol of shapes; on screen a tile is its full size and
    shows ink in its suit's colour (a missing glyph would be an empty box or nothing)."""
    page = tmp_path / "replay.html"
    page.write_text(render_html(record), encoding="utf-8")
    set_width(browser, 1400, 1000)
    try:
        _open(browser, page.as_uri() + "#step=40")
        tiles = browser.execute_script(
            """
            const seen = new Map();
            for (const t of document.querySelectorAll('#table .hand .tile:not(.back)')) {
              if (seen.has(t.dataset.tile)) continue;
              const r = t.getBoundingClientRect();
              const use = t.querySelector('svg use');
              const symbol = document.getElementById(use.getAttribute('href').slice(1));
              seen.set(t.dataset.tile, {
                code: t.dataset.tile, href: use.getAttribute('href'),
                box: [Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height)],
                shapes: symbol.querySelectorAll('circle, rect, path, text').length,
                text: Array.from(symbol.querySelectorAll('text')).map((x) => x.textContent).join(''),
              });
            }
            return Array.from(seen.values());
            """
        )
        assert len(tiles) >= 10
        for t in tiles:
            assert t["href"] == "#t-" + t["code"] and t["shapes"] > 0
            assert re.fullmatch(r"[0-9ESWNF]*", t["text"]), t  # Latin only: any font draws it
            assert t["box"][2] >= 30 and t["box"][3] >= 40, t
        png = browser.get_screenshot_as_base64()
        pixels = browser.execute_async_script(_TILE_PIXELS_JS, png, [t["box"] for t in tiles])
        for t, px in zip(tiles, pixels, strict=True):
            assert px["ink"] > 0.06, (t["code"], px)  # a drawn face, not a blank tile
            suit = t["code"][-1]
            colour = {"m": "red", "p": "blue", "s": "green", "C": "red", "F": "green", "P": "blue"}
            if suit in colour:
                assert px[colour[suit]] > 10, (t["code"], px)
        assert len({round(p["ink"], 3) for p in pixels}) > len(pixels) // 2  # faces differ
        shown = browser.execute_script("return document.body.innerText")
        assert not re.search(r"[\u2e80-\u9fff\uf900-\ufaff]", shown)  # nothing needs a CJK font
        screenshot(browser, "viewer-tiles.png")
        assert console_errors(browser) == []
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


@pytest.fixture(scope="module")
def long_record() -> Record:
    """A match of more than 1,200 steps (step numbers of four digits)."""
    return play_recorded(5, hands=10)


_INSIDE_JS = """
const inside = (id) => {
  const r = document.getElementById(id).getBoundingClientRect();
  return [r.left >= 0, r.top >= 0, r.right <= innerWidth + 0.5, r.bottom <= innerHeight + 0.5,
          Math.round(r.width), Math.round(r.height)];
};
const buttons = Array.from(document.querySelectorAll('#controls button')).map((b) => {
  const r = b.getBoundingClientRect();
  return [r.width, r.height];
});
return {table: inside('table'), controls: inside('controls'), buttons,
        sideways: document.documentElement.scrollWidth - innerWidth, scrolled: scrollY};
"""


@pytest.mark.parametrize("size", [(360, 800), (768, 1024), (1024, 768), (1920, 1080)])
def test_the_table_and_controls_stay_in_view_as_you_step(
    browser: Any, long_record: Record, tmp_path: Path, size: tuple[int, int]
) -> None:
    width, height = size
    page = tmp_path / "long.html"
    page.write_text(render_html(long_record), encoding="utf-8")
    set_width(browser, width, height)
    try:
        _open(browser, page.as_uri() + "#hand=2")
        first = _step(browser)
        for _ in range(50):
            browser.find_element("id", "next").click()  # the controls answer a click (touch)
        assert _step(browser) == first + 50
        where = browser.execute_script(_INSIDE_JS)
        assert where["table"][:4] == [True] * 4, where
        assert where["controls"][:4] == [True] * 4, where
        assert where["sideways"] <= 0 and where["scrolled"] == 0, where
        assert all(w >= 36 and h >= 36 for w, h in where["buttons"]), where  # touch-sized
        _press(browser, "\ue014", 50)  # and by the keyboard
        assert _step(browser) == first + 100
        assert browser.execute_script(_INSIDE_JS)["table"][:4] == [True] * 4
        screenshot(browser, f"viewer-{width}.png")
        assert console_errors(browser) == []
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def _place(driver: Any) -> tuple[str, str, str]:
    """What the page says of where it is: the step label, the event's heading, the anchor."""
    label, head, anchor = driver.execute_script(
        "return [document.getElementById('step-label').textContent,"
        "document.querySelector('#event h2').textContent, location.hash]"
    )
    return label, head, anchor


def test_event_numbers_are_whole_and_counted_within_the_hand(
    browser: Any, long_record: Record, tmp_path: Path
) -> None:
    page = tmp_path / "long.html"
    page.write_text(render_html(long_record), encoding="utf-8")
    set_width(browser, 360, 800)
    try:
        hand, step = in_hand(long_record, 1175)  # deep in the match: a late hand
        assert hand >= 7 and step > 0
        _open(browser, page.as_uri() + viewer_anchor(hand, step))
        assert _step(browser) == 1175
        last = steps_in_hand(long_record, hand) - 1
        label = f"hand {hand + 1} · step {step} / {last}"
        assert _place(browser) == (label, f"step {step}", f"#hand={hand + 1}&step={step}")
        numbers = browser.execute_script(
            """
            const ol = document.querySelector('#log ol').getBoundingClientRect();
            return Array.from(document.querySelectorAll('#log li')).map((li) => {
              const n = li.querySelector('.n');
              const r = n.getBoundingClientRect();
              return [n.textContent, n.scrollWidth <= n.clientWidth, r.left >= ol.left,
                      li.classList.contains('now')];
            });
            """
        )
        assert [n for n, *_ in numbers] == [str(k) for k in range(last + 1)]  # the hand's events
        assert all(fits and left for _, fits, left, _ in numbers)  # none clipped
        assert [n for n, _, _, now in numbers if now] == [str(step)]
        _press(browser, "\ue014")  # one step on: the address follows
        assert _place(browser)[2] == f"#hand={hand + 1}&step={step + 1}"
        assert console_errors(browser) == []
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_every_address_form_opens_the_step_it_names(
    browser: Any, long_record: Record, tmp_path: Path
) -> None:
    page = tmp_path / "long.html"
    page.write_text(render_html(long_record), encoding="utf-8")
    starts = viewer_data(long_record)["starts"]  # frames over the match, as the page counts
    last2 = steps_in_hand(long_record, 1) - 1
    cases = {
        "#hand=3": starts[2],  # step 0 of hand 3 (hands counted from 1)
        "#hand=3&step=4": starts[2] + 4,
        "#hand=1&step=0": 1,  # right after hand 1's hand_start
        "#step=5": 6,  # no hand: hand 1
        "#hand=2&step=end": starts[2] - 1,
        "#hand=2&step=99999": starts[2] - 1,  # past the hand's last step: its last
        "#hand=99": starts[-1],  # past the last hand: the last hand
        "#step=end": long_record.steps - 1,
        "#start": 0,
    }
    for anchor, frame in cases.items():
        _open(browser, page.as_uri() + anchor)
        assert _step(browser) == frame, anchor
        hand = 1 + sum(1 for start in starts[1:] if start <= frame)
        assert browser.find_element("id", "status").text.startswith(f"hand {hand}/10"), anchor
    _open(browser, page.as_uri() + "#hand=2&step=end")
    assert _place(browser) == (
        f"hand 2 · step {last2} / {last2}",
        f"step {last2}",
        f"#hand=2&step={last2}",
    )
    _press(browser, "\ue011")  # Home: the match's start, before hand 1's hand_start
    assert _place(browser)[0] == f"hand 1 · start / {steps_in_hand(long_record, 0) - 1}"
    assert _place(browser)[1:] == ("start", "#start")
    _press(browser, "\ue014")
    assert _place(browser)[2] == "#hand=1&step=0"
    _press(browser, "\ue00f")  # Page Down: the next hand's step 0
    assert _step(browser) == starts[1] and _place(browser)[2] == "#hand=2&step=0"
    browser.execute_script("location.hash = '#hand=4&step=2'")  # pasted into the open page
    for _ in range(100):
        if _step(browser) == starts[3] + 2:
            break
        time.sleep(0.02)
    assert _step(browser) == starts[3] + 2
    assert console_errors(browser) == []


def test_a_reviews_viewer_links_land_on_the_decisions_they_cite(
    browser: Any, record: Record, tmp_path: Path
) -> None:
    """sdk.review --html links each decision into the viewer (#hand=H&step=S): followed
    in the browser, each shows that hand and step, the event just before the decision
    and the decision itself among those asked there."""
    from sdk.review import review_html, review_record

    viewer = tmp_path / "game.viewer.html"
    viewer.write_text(render_html(record), encoding="utf-8")
    review = review_record(record, 1, "bots.greedy")
    report = tmp_path / "review.html"
    report.write_text(review_html(review, viewer.name), encoding="utf-8")
    hands = {d.hand for d in review.decisions}
    assert hands == {0, 1}, "decisions of both hands are followed"
    chosen = [next(d for d in review.decisions if d.hand == h) for h in sorted(hands)]
    chosen += [review.decisions[len(review.decisions) // 2], review.decisions[-1]]
    for d in chosen:
        browser.get(report.as_uri())
        link = browser.find_element("css selector", f"#h{d.hand + 1}s{d.hand_step} h3 a")
        link.click()
        _wait_ready(browser)
        assert _step(browser) == d.step, d.where
        label, head, anchor = _place(browser)
        assert label.startswith(f"hand {d.hand + 1} · step {d.hand_step} / "), (label, d.where)
        assert (head, anchor) == (f"step {d.hand_step}", f"#hand={d.hand + 1}&step={d.hand_step}")
        event = browser.find_element("css selector", "#event .text").text
        assert event == describe(record.events[d.step - 1], ViewerData(record).names)
        asked = browser.execute_script(
            "return Array.from(document.querySelectorAll('#decisions .decision')).map("
            "(r) => [r.dataset.seat, r.querySelector('.opt.applied').textContent])"
        )
        assert [str(d.decision.seat), str(d.decision.applied)] in asked, d.where
        assert browser.find_element("id", "status").text.startswith(f"hand {d.hand + 1}/2")
    _check_table(browser, record, chosen[-1].step)
    assert console_errors(browser) == []


def test_the_last_step_shows_the_final_standings(browser: Any, long_record: Record) -> None:
    page = Path(tempfile.mkdtemp()) / "long.html"
    page.write_text(render_html(long_record), encoding="utf-8")
    _open(browser, page.as_uri() + "#step=end")
    assert _step(browser) == long_record.steps - 1
    rows = browser.execute_script(
        "return Array.from(document.querySelectorAll('#standings tr[data-seat]')).map("
        "(r) => Array.from(r.cells).map((c) => c.textContent))"
    )
    final = long_record.summary.scores
    order = sorted(range(4), key=lambda s: (-final[s], s))
    assert [r[1:] for r in rows] == [[f"seat {s}", f"policy{s}", str(final[s])] for s in order]
    assert rows[0][0] == "1"
    _press(browser, "\ue012")  # a step back: not the end, no standings
    assert not browser.find_elements("css selector", "#standings tr")
    assert console_errors(browser) == []
