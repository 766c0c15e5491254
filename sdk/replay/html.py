"""The browser replay viewer: one self-contained HTML page for a game record.

:func:`render_html` returns a single HTML string with its CSS, its script and the data
inline: no CDN, no font or image to fetch, nothing on the network, so the file works
offline, opened from disk. The data is the per-step frames of :mod:`sdk.replay.frames`,
computed in Python by the referee's own view handlers; the script (``viewer.js``) only
draws the chosen step (tiles in Chinese characters, rivers with the claimed discards
marked, melds, scores, wall count, the decisions with their options, time and outcome,
the tai items of each win) and moves between steps with a slider and the keyboard.

>>> from protocol.match import Match
>>> from sdk.records import Header, SeatInfo, build_record
>>> m = Match.new(seed=4, hands=1)
>>> rec = build_record(Header(4, 1, tuple(SeatInfo(s, s, f"bot{s}") for s in range(4))), m.events, [])
>>> page = render_html(rec)
>>> page.startswith("<!DOCTYPE html>"), "http://" in page or "https://" in page
(True, False)
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from functools import cache
from importlib.resources import files
from typing import TYPE_CHECKING, Any

from protocol.events import HandEnd, HandStart
from protocol.tiles import Tile
from protocol.wall import hand_seed, shuffled_wall
from sdk.replay.frames import build_decisions, build_frames, result_json

if TYPE_CHECKING:
    from sdk.records import Record

__all__ = ["render_html", "viewer_data"]


def render_html(
    record: Record,
    *,
    seat: int | None = None,
    spectator: bool = False,
    refresh: float | None = None,
    links: Sequence[tuple[str, str]] = (),
) -> str:
    """The viewer page of ``record``: every seat's hand (``seat=None``), one seat's view
    (``seat=N``: what its bot knew, and its decisions only), or public information only
    (``spectator=True``: no concealed tile, no decision; for a match still running).
    ``refresh`` (seconds) makes the page of a running match reload while it shows the
    last step, so a live match can be followed. ``links`` are other views of the same
    match as ``(label, href)`` pairs (``href`` empty: this one), shown in the header."""
    data = viewer_data(record, seat=seat, spectator=spectator, refresh=refresh, links=links)
    return _page(data["title"], data)


def viewer_data(
    record: Record,
    *,
    seat: int | None = None,
    spectator: bool = False,
    refresh: float | None = None,
    links: Sequence[tuple[str, str]] = (),
) -> dict[str, Any]:
    """The JSON the page embeds (see :func:`render_html`)."""
    if seat is not None and seat not in range(4):
        raise ValueError(f"seat must be 0..3, not {seat!r}")
    if record.perspective is not None and not spectator:  # one seat's side: its view only
        if seat not in (None, record.perspective):
            raise ValueError(f"this record shows seat {record.perspective}'s view only")
        seat = record.perspective
    header = record.header
    names = [s.name for s in sorted(header.seats, key=lambda s: s.seat)]
    looker = None if spectator else seat
    live = record.summary is None
    walls = None if live or spectator or looker is not None else _walls(record)
    frames = build_frames(record.events, names=names, seat=looker, spectator=spectator, walls=walls)
    return {
        "title": _title(record, spectator),
        "names": names,
        "seat": looker,
        "spectator": spectator,
        "perspective": _perspective(looker, spectator, names),
        "hands": header.hands,
        "labels": _labels(),
        "frames": frames.steps,
        "seat_states": frames.seats,
        "hand_starts": [
            frames.at[i + 1] for i, e in enumerate(record.events) if type(e) is HandStart
        ],
        "decisions": build_decisions(record.decisions, frames.at, seat=looker, spectator=spectator),
        "results": [result_json(e.result, names) for e in record.events if type(e) is HandEnd],
        "live": live,
        "refresh": refresh if live else None,
        "links": [list(link) for link in links],
        "walls": [list(w) for w in walls or ()],
    }


def _walls(record: Record) -> list[tuple[int, ...]]:
    """Each hand's wall from the header's seed, as the referee builds it (shown only
    after the end, and only for hands whose draws match it: see ``_WallCut``)."""
    hands = [e.hand for e in record.events if type(e) is HandStart]
    return [shuffled_wall(hand_seed(record.header.seed, h)) for h in hands]


def _title(record: Record, spectator: bool) -> str:
    """The page title: the match id, or the seed (never for a spectator: a seed gives
    away the walls)."""
    h = record.header
    if h.origin.match_id:
        match = f"match {h.origin.match_id}"
    else:
        match = "a match" if spectator else f"seed {h.seed}"
    live = " (live)" if record.summary is None else ""
    return f"taimahjong replay · {match}{live}"


def _perspective(seat: int | None, spectator: bool, names: list[str]) -> str:
    if spectator:
        return "public view"
    if seat is None:
        return "all hands"
    return f"seat {seat}'s view ({names[seat]})"


@cache
def _labels() -> list[tuple[str, str, str, str]]:
    """How each tile kind (0..33) is drawn: the top and bottom characters (一 萬, or 東
    alone), the colour class (m, p, s, z for honors) and the notation (``1m``, ``E``)."""
    out = []
    for t in Tile:
        name = t.chinese
        top, bottom = (name, "") if t.is_honor else (name[0], name[1:])
        out.append((top, bottom, t.suit or "z", str(t)))
    return out


@cache
def _asset(name: str) -> str:
    return files("sdk.replay").joinpath(name).read_text(encoding="utf-8")


def _page(title: str, data: dict[str, Any]) -> str:
    """The template with the styles, the script and the data put in. The JSON is made
    safe inside ``<script>``: every ``<`` is written as ``\\u003c``."""
    blob = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    page = _asset("viewer.html")
    page = page.replace("{{TITLE}}", html.escape(title))
    page = page.replace("/*{{CSS}}*/", _asset("viewer.css"))
    page = page.replace("/*{{JS}}*/", _asset("viewer.js"))
    return page.replace("{{DATA}}", blob)
