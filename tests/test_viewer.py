"""The browser viewer's data and page, without a browser: the frames agree with the
referee's views at every step, each perspective holds only what it may know (its page is
a function of its own projection), and the page is self-contained and safe."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest
from record_helpers import play_recorded

from protocol.events import HandEnd, project
from protocol.match import Match
from protocol.tiles import Tile
from sdk.records import Header, Record, SeatInfo, build_record, iter_views
from sdk.records.views import NOBODY
from sdk.replay.html import render_html, viewer_data

SEEDS = (3, 11, 29)


@pytest.fixture(scope="module", params=SEEDS)
def record(request: pytest.FixtureRequest) -> Record:
    return play_recorded(request.param, hands=2)


def _embedded(page: str) -> dict:
    blob = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', page, re.S)
    assert blob is not None
    return json.loads(blob.group(1))


def _seat(data: dict, step: int, seat: int) -> dict:
    return data["seat_states"][data["frames"][step]["seats"][seat]]


def test_every_step_shows_each_seats_tiles_as_the_referee_views_have_them(record: Record) -> None:
    data = viewer_data(record)
    assert len(data["frames"]) == record.steps
    for step, views in iter_views(record):
        frame = data["frames"][step]
        assert frame["wall"] == views[0].public.wall_left
        assert frame["scores"] == views[0].public.scores
        for seat, view in enumerate(views):
            shown = _seat(data, step, seat)
            held = shown["hand"] + ([] if shown["drawn"] is None else [shown["drawn"]])
            assert sorted(held) == [int(t) for t in view.hand], (step, seat)
            assert shown["drawn"] == view.own.drawn or shown["drawn"] is None
            assert shown["river"] == view.public.rivers[seat]
            assert shown["count"] == view.public.concealed[seat]
            assert len(shown["melds"]) == len(view.melds(seat))


def test_claimed_discards_are_marked_in_the_river(record: Record) -> None:
    data = viewer_data(record)
    claims = [
        (i, e) for i, e in enumerate(record.events) if e.type in ("chow", "pung", "kong", "win")
    ]
    taken = [(i, e) for i, e in claims if getattr(e, "from_seat", None) is not None]
    assert taken, "the seeded matches claim some discards"
    for i, event in taken:
        river_seat = _seat(data, i + 1, event.from_seat)
        last = len(river_seat["river"]) - 1
        assert river_seat["river"][last] == event.tile
        assert last in river_seat["claimed"]


def _without_decisions(data: dict) -> dict:
    return {k: v for k, v in data.items() if k != "decisions"}


def test_a_seats_page_is_built_from_its_own_projection_only(record: Record) -> None:
    for seat in range(4):
        seen = tuple(e for e in (project(ev, seat) for ev in record.events) if e is not None)
        blind = replace(record, events=seen, decisions=())
        data = viewer_data(record, seat=seat)
        assert _without_decisions(data) == _without_decisions(viewer_data(blind, seat=seat))
        assert len(data["frames"]) == len(seen) + 1  # not even the number of hidden events
        own = [d for d in record.decisions if d.seat == seat]
        assert [d["applied"] for d in data["decisions"]] == [str(d.applied) for d in own]
        others = [_seat(data, -1, s)["hand"] for s in range(4) if s != seat]
        assert others == [None, None, None]


def test_decisions_are_shown_at_the_table_they_were_asked_at(record: Record) -> None:
    views = {step: [list(v.hand) for v in vs] for step, vs in iter_views(record)}
    for seat in (None, 1):
        data = viewer_data(record, seat=seat)
        shown = [d for d in record.decisions if seat is None or d.seat == seat]
        for d, out in zip(shown, data["decisions"], strict=True):
            state = _seat(data, out["frame"], d.seat)
            held = state["hand"] + ([] if state["drawn"] is None else [state["drawn"]])
            assert sorted(held) == [int(t) for t in views[d.after_event][d.seat]]


def test_the_spectator_page_holds_no_concealed_tile_and_no_decision(record: Record) -> None:
    seen = tuple(e for e in (project(ev, NOBODY) for ev in record.events) if e is not None)
    data = viewer_data(record, spectator=True)
    assert data == viewer_data(replace(record, events=seen, decisions=()), spectator=True)
    assert data["decisions"] == []
    assert all(s["hand"] is None and s["drawn"] is None for s in data["seat_states"])


def test_each_win_lists_its_tai_items_and_total(record: Record) -> None:
    data = viewer_data(record)
    ends = [e for e in record.events if type(e) is HandEnd]
    assert len(data["results"]) == len(ends)
    for shown, end in zip(data["results"], ends, strict=True):
        assert shown["payments"] == list(end.result.payments)
        if end.result.winner is None:
            assert shown["items"] == []
            continue
        score = end.result.score
        assert [i["id"] for i in shown["items"]] == [i["id"] for i in score["items"]]
        assert sum(i["tai"] for i in shown["items"]) == shown["total_tai"] == score["total_tai"]


def test_decisions_keep_their_options_time_and_outcome(record: Record) -> None:
    data = viewer_data(record)
    assert len(data["decisions"]) == len(record.decisions)
    for shown, d in zip(data["decisions"], record.decisions, strict=True):
        assert shown["legal"] == [str(a) for a in d.legal]
        assert shown["applied"] == str(d.applied)
        assert shown["outcome"] == d.outcome.value
        assert shown["frame"] == d.after_event  # every seat shown: a frame per event


def test_the_page_is_self_contained() -> None:
    page = render_html(play_recorded(5, hands=1))
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"https?://|//cdn|@import|\bsrc\s*=", page)
    hrefs = re.findall(r'href="([^"]*)"', page)
    assert all(h.startswith(("data:", "#")) for h in hrefs)  # the tile faces: "#t-5m"
    assert "{{" not in page and "/*{{" not in page


def test_names_cannot_break_out_of_the_page() -> None:
    rec = play_recorded(5, hands=1)
    evil = "</script><script>alert(1)</script>"
    seats = tuple(SeatInfo(s, s, evil if s == 2 else f"b{s}") for s in range(4))
    header = Header(rec.header.seed, rec.header.hands, seats)
    page = render_html(build_record(header, rec.events, rec.decisions, status="finished"))
    assert evil not in page
    blob = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', page, re.S)
    assert blob is not None
    assert json.loads(blob.group(1))["names"][2] == evil


def test_tiles_are_drawn_in_svg_with_no_cjk_character_on_the_page() -> None:
    page = render_html(play_recorded(5, hands=1))
    faces = re.findall(r'<symbol id="t-([^"]+)" viewBox="0 0 30 40">(.*?)</symbol>', page)
    assert [code for code, _ in faces] == [str(t) for t in Tile]
    assert all(re.search(r"<(circle|rect|path|text)", body) for _, body in faces)
    cjk = [c for c in page if 0x2E80 <= ord(c) <= 0x9FFF or 0xF900 <= ord(c) <= 0xFAFF]
    assert cjk == [], "every CJK glyph has a Latin or SVG rendering"
    assert viewer_data(play_recorded(5, hands=1))["tiles"] == [str(t) for t in Tile]


def test_a_match_not_started_yet_has_one_empty_frame() -> None:
    header = Header(0, 4, tuple(SeatInfo(s, s, f"b{s}") for s in range(4)))
    data = viewer_data(build_record(header, (), ()), spectator=True)
    assert len(data["frames"]) == 1 and data["live"] and data["starts"] == [0]
    assert data["total"] == 1 and data["final"] is None


def test_a_running_record_is_live_and_a_bad_seat_is_refused() -> None:
    rec = play_recorded(5, hands=1)
    running = build_record(rec.header, rec.events[:40], rec.decisions[:10])
    assert viewer_data(running)["live"] and not viewer_data(rec)["live"]
    assert "seed" not in _embedded(render_html(running, spectator=True))["title"]
    with pytest.raises(ValueError, match="seat"):
        render_html(rec, seat=4)


def test_after_the_end_the_wall_left_is_the_referees(record: Record) -> None:
    data = viewer_data(record)
    cuts = [f["wall_cut"] for f in data["frames"]]
    assert cuts[0] is None and all(c is not None for c in cuts[1:])
    match = Match.new(record.header.seed, record.header.hands)
    for d in record.decisions:
        wall = match.current.wall
        front, reserved, back = cuts[d.after_event]
        assert (front, back, reserved) == (wall.front, wall.back, wall.back - 16)
        assert data["walls"][data["frames"][d.after_event]["hand"]] == list(wall.tiles)
        match.apply(d.seat, d.applied)


def test_no_wall_for_a_seat_a_spectator_a_running_match_or_another_seed(record: Record) -> None:
    assert viewer_data(record, seat=0)["walls"] == []
    assert viewer_data(record, spectator=True)["walls"] == []
    running = build_record(record.header, record.events[:50], ())
    assert viewer_data(running)["walls"] == []
    other = replace(record, header=replace(record.header, seed=record.header.seed + 1))
    assert all(f["wall_cut"] is None for f in viewer_data(other)["frames"])
