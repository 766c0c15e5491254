"""The browser replay viewer: one HTML page for a game record.

:func:`render_html` returns a single self-contained HTML string: its CSS, its script,
the tile faces (inline SVG, :mod:`sdk.replay.tilefaces`: legible with no CJK font) and
the data are inline. Nothing is fetched, so the file works offline, opened from disk.
The data is the match's outline plus each hand's frames (:mod:`sdk.replay.viewdata`),
each hand stored gzip-compressed and decoded only when it is shown, so a long match
opens as fast as a short one. The server's page (:mod:`sdk.replay.serve`) is the same
template with the hands fetched on demand instead (``hands_url``) and, while the match
runs, new steps pushed as server-sent events (``stream_url``).

The script (``viewer.js``) only draws the chosen step (tiles, rivers with the claimed
discards marked, melds, scores, wall count, the decisions with their options, time and
outcome, the tai items of each win, the final standings) and moves between steps.

>>> from protocol.match import Match
>>> from sdk.records import Header, SeatInfo, build_record
>>> m = Match.new(seed=4, hands=1)
>>> rec = build_record(Header(4, 1, tuple(SeatInfo(s, s, f"bot{s}") for s in range(4))), m.events, [])
>>> page = render_html(rec)
>>> page.startswith("<!DOCTYPE html>"), "http://" in page or "https://" in page
(True, False)
"""

from __future__ import annotations

import base64
import gzip
import html
import json
from collections.abc import Sequence
from functools import cache
from importlib.resources import files
from typing import TYPE_CHECKING, Any

from protocol.tiles import Tile
from sdk.replay.tilefaces import tile_sprite
from sdk.replay.viewdata import ViewerData

if TYPE_CHECKING:
    from sdk.records import Record

__all__ = ["page_html", "render_html", "viewer_data"]


def render_html(
    record: Record,
    *,
    seat: int | None = None,
    spectator: bool = False,
    links: Sequence[tuple[str, str]] = (),
) -> str:
    """The viewer page of ``record`` with every hand inside: every seat's hand
    (``seat=None``), one seat's view (``seat=N``: what its bot knew, and its decisions
    only), or public information only (``spectator=True``: no concealed tile, no
    decision). ``links`` are other views of the same match as ``(label, href)`` pairs
    (``href`` empty: this one), shown in the header."""
    data = ViewerData(record, seat=seat, spectator=spectator)
    hands = [_packed(data.hand(h)) for h in range(len(data.starts))]
    return page_html(data, links=links, source={"packed": hands})


def page_html(
    data: ViewerData,
    *,
    links: Sequence[tuple[str, str]] = (),
    source: dict[str, Any],
    first: dict[str, Any] | None = None,
) -> str:
    """The page of ``data`` with the hands from ``source``: ``{"packed": [...]}`` (each
    hand's JSON, gzip and base64, inside the page) or ``{"url": U, "query": Q}`` (hand
    ``h`` fetched from ``U + str(h) + Q``; ``"stream"``: the address of the live
    steps). ``first``: a hand's data put in the page so it shows without a fetch."""
    index = {**data.index(), **_labels(data)}
    index.update(links=[list(link) for link in links], source=source, first=first)
    return _page(index["title"], index)


def viewer_data(
    record: Record, *, seat: int | None = None, spectator: bool = False
) -> dict[str, Any]:
    """Every hand's data in one piece, steps numbered over the match (see
    :meth:`ViewerData.whole`)."""
    data = ViewerData(record, seat=seat, spectator=spectator)
    return {**data.whole(), **_labels(data)}


def _labels(data: ViewerData) -> dict[str, Any]:
    """The page's title and the tiles' notation by kind (``5m``, ``E``: the ids of
    their SVG faces)."""
    return {"title": _title(data.record, data.spectator), "tiles": [str(t) for t in Tile]}


def _packed(hand: dict[str, Any]) -> str:
    """A hand's JSON, gzip-compressed (no time stamp: the same page every time) and in
    base64: about a tenth of its size, and not parsed until it is shown."""
    raw = json.dumps(hand, ensure_ascii=False, separators=(",", ":")).encode()
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")


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
    page = page.replace("<!--{{TILES}}-->", tile_sprite())
    return page.replace("{{DATA}}", blob)
