"""The server's pages for people: the front page ``/`` and the leaderboard ``/leaderboard``.

The front page lists the matches being played (all of them, up to ``LIVE_MAX``) and,
below, the matches of the server newest first, ``PAGE_SIZE`` a page (``?before=S``
pages back as ``GET /v1/tables`` does). Each shows its bots by seat, their scores, the
hand (numbered from 1) or the hands played, when it started or ended, and links to its
viewer page and, once over, its record. The leaderboard page is ``GET /v1/leaderboard``
for people: rank, bot, version, matches, hands, points per hand with its 95% interval
and rating, rounded.

Plain server-rendered HTML with a small inline stylesheet and no script: it reads at
360 px as at 1920 px and needs no CJK font (bot names aside). Everything on these pages
is public while a match runs: the table statuses (names, scores, hand numbers) and the
leaderboard of finished matches, never a tile, a seed or a decision.

>>> line = MatchLine(
...     TableStatus(table_id="t-1", match_id="m-1", status="running", hand_no=2, hands=4,
...                 scores=[300, -100, -100, -100]),
...     started=0.0, ended=None, played=2)
>>> page = front_html([line], [], None)
>>> "hand 3 of 4" in page and "+300" in page and 'href="/v1/matches/m-1/view"' in page
True
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING
from urllib.parse import quote

from protocol.wire.rest import Leaderboard, LeaderboardEntry, TableStatus
from sdk.server.store import store_rows

if TYPE_CHECKING:
    from sdk.server.core import TournamentServer

__all__ = [
    "LIVE_MAX",
    "LIVE_REFRESH",
    "PAGE_SIZE",
    "MatchLine",
    "front_html",
    "front_page",
    "leaderboard_html",
    "leaderboard_page",
]

PAGE_SIZE = 50
"""Matches a page of the front page lists."""
LIVE_MAX = 100
"""Matches being played the front page lists (the rest: ``GET /v1/tables``)."""
LIVE_REFRESH = 10
"""Seconds between reloads of the front page while a match is being played."""


@dataclass(frozen=True, slots=True)
class MatchLine:
    """One match of the front page: its status and, from the store, when it started and
    ended (wall-clock seconds, ``None`` if not yet) and the hands it finished."""

    status: TableStatus
    started: float | None
    ended: float | None
    played: int


async def front_page(server: TournamentServer, before: int | None = None) -> str:
    """The front page: the matches being played (on the first page) and one page of
    the server's tables, newest first, less those being played (listed above)."""
    tables = sorted(server.tables.values(), key=lambda t: -t.spec.serial)
    live = [t.status() for t in tables if not t.over]
    page, next_before = await server.list_tables(PAGE_SIZE, before)
    playing = {s.table_id for s in live}
    played = [s for s in page if s.table_id not in playing and s.status in _OVER]
    first = before is None
    shown = live[:LIVE_MAX] if first else []
    lines = await _lines(server, [*shown, *played])
    more = max(0, len(live) - LIVE_MAX) if first else 0
    return front_html(lines[: len(shown)], lines[len(shown) :], next_before, more, first)


_OVER = frozenset({"finished", "aborted"})


async def leaderboard_page(server: TournamentServer) -> str:
    """The leaderboard page (the same board as ``GET /v1/leaderboard``)."""
    return leaderboard_html(await server.leaderboard())


async def _lines(server: TournamentServer, statuses: Sequence[TableStatus]) -> list[MatchLine]:
    """The statuses with their times and hands played, read from the store in one query."""
    ids = [s.match_id for s in statuses]
    sql = (
        "SELECT match_id, created_at, finished_at, hands_played FROM matches"
        f" WHERE match_id IN ({','.join('?' * len(ids))})"
    )
    rows = await asyncio.wrap_future(server.store.call(lambda db: store_rows(db, sql, ids)))
    found = {r[0]: r[1:] for r in rows}
    out = []
    for s in statuses:
        started, ended, played = found.get(s.match_id, (None, None, 0))
        out.append(MatchLine(s, started, ended, played))
    return out


_STYLE = """
:root { color-scheme: light; --line: #d6d3cc; --dim: #5f5b53; --live: #b3261e; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto,
  "DejaVu Sans", sans-serif; background: #f7f5f0; color: #1d1b18; }
header, main, footer { max-width: 1400px; margin: 0 auto; padding: 0 12px; }
header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 20px;
  padding-top: 12px; padding-bottom: 8px; border-bottom: 1px solid var(--line); }
header h1 { font-size: 1.25rem; margin: 0; }
nav a { margin-right: 14px; }
a { color: #0b57a4; }
a:focus-visible { outline: 2px solid #0b57a4; outline-offset: 2px; }
h2 { font-size: 1.1rem; margin: 18px 0 8px; }
.note, footer { color: var(--dim); font-size: 0.9rem; }
.matches { display: grid; gap: 12px;
  grid-template-columns: repeat(auto-fill, minmax(min(100%, 300px), 1fr)); }
.match { background: #fff; border: 1px solid var(--line); border-radius: 8px;
  padding: 10px 12px; min-width: 0; }
.match h3 { font-size: 1rem; margin: 0 0 2px; display: flex; gap: 8px;
  justify-content: space-between; flex-wrap: wrap; }
.status { font-size: 0.85rem; font-weight: 600; text-transform: uppercase; }
.running .status { color: var(--live); }
.meta { color: var(--dim); font-size: 0.9rem; margin: 0 0 6px; }
table { border-collapse: collapse; width: 100%; }
td, th { padding: 3px 6px; text-align: left; vertical-align: top; }
.seats td { border-top: 1px solid #eeeae2; }
.seats .bot, .board .bot { overflow-wrap: anywhere; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.seat { color: var(--dim); white-space: nowrap; width: 4.5em; }
.links { margin: 8px 0 0; display: flex; gap: 16px; flex-wrap: wrap; }
.links a { display: inline-block; padding: 6px 0; }
.board { background: #fff; border: 1px solid var(--line); border-radius: 8px;
  max-width: 64rem; }
.board th { border-bottom: 2px solid var(--line); font-size: 0.9rem; }
.board td { border-top: 1px solid #eeeae2; }
.board .sub { display: block; color: var(--dim); font-size: 0.8rem; }
.unranked td { color: var(--dim); }
time { white-space: nowrap; }
footer { padding-top: 16px; padding-bottom: 24px; }
@media (max-width: 640px) {
  body { font-size: 15px; }
  .board thead { display: none; }
  .board, .board tbody { display: block; }
  .board tr { display: grid; grid-template-columns: 2.2em 1fr 1fr; padding: 6px 4px;
    border-top: 1px solid #eeeae2; }
  .board td { border: 0; padding: 1px 4px; text-align: left; }
  .board .rank { grid-row: span 3; font-weight: 600; }
  .board .bot { grid-column: 2 / 4; font-weight: 600; }
  .board .sub { display: inline; margin-left: 6px; }
  .board .num[data-label]::before { content: attr(data-label) " "; color: var(--dim); }
  .board .spread { display: block; margin-left: 0; }
}
"""


def _page(title: str, body: str, refresh: int | None = None) -> str:
    meta = f'<meta http-equiv="refresh" content="{refresh}">' if refresh else ""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">'
        f"{meta}<title>{escape(title)}</title><style>{_STYLE}</style></head><body>"
        '<header><h1>taimahjong server</h1><nav><a href="/">matches</a>'
        '<a href="/leaderboard">leaderboard</a><a href="/v1/">REST API</a></nav></header>'
        f"<main>{body}</main>"
        "<footer>Hands are numbered from 1, seats 0..3 as in the records. "
        "The REST API (JSON) keeps 0-based hand indexes.</footer></body></html>"
    )


def front_html(
    live: Sequence[MatchLine],
    played: Sequence[MatchLine],
    next_before: int | None,
    more_live: int = 0,
    first: bool = True,
) -> str:
    """The front page from its lines: the matches being played (on the ``first`` page),
    then the others. A page holds up to ``PAGE_SIZE`` tables, those playing included."""
    parts = []
    if first:
        parts.append("<h2>Playing now</h2>")
        parts.append(_cards(live) if live else '<p class="note">No match is being played.</p>')
    if more_live:
        parts.append(
            f'<p class="note">and {more_live} more: <a href="/v1/tables">GET /v1/tables</a></p>'
        )
    parts.append("<h2>Matches</h2>" if first else "<h2>Older matches</h2>")
    parts.append(_cards(played) if played else '<p class="note">No match here.</p>')
    if next_before is not None:
        parts.append(f'<p><a href="/?before={next_before}">older matches</a></p>')
    return _page("taimahjong server: matches", "".join(parts), LIVE_REFRESH if live else None)


def _cards(lines: Sequence[MatchLine]) -> str:
    return '<div class="matches">' + "".join(_card(line) for line in lines) + "</div>"


def _card(line: MatchLine) -> str:
    s = line.status
    mid = quote(s.match_id, safe="")
    names = {seat.seat: seat.bot_name for seat in s.seats}
    rows = "".join(
        f'<tr><td class="seat">seat {i}</td><td class="bot">{escape(names.get(i, "-"))}</td>'
        f'<td class="num">{_signed(score)}</td></tr>'
        for i, score in enumerate(s.scores)
    )
    links = [
        f'<a href="/v1/matches/{mid}/view">{"view" if s.status in ("finished", "aborted") else "watch"}</a>'
    ]
    if s.status in ("finished", "aborted"):
        links.append(f'<a href="/v1/matches/{mid}/log.jsonl">record</a>')
    links.append(f'<a href="/v1/tables/{quote(s.table_id, safe="")}">status (JSON)</a>')
    return (
        f'<article class="match {s.status}" data-match="{escape(s.match_id)}">'
        f'<h3><span>{escape(s.match_id)}</span><span class="status">{s.status}</span></h3>'
        f'<p class="meta">{escape(_progress(line))}{_when(line)}</p>'
        f'<table class="seats">{rows}</table><p class="links">{"".join(links)}</p></article>'
    )


def _progress(line: MatchLine) -> str:
    """Where the match is, hands numbered from 1.

    >>> st = TableStatus(table_id="t", match_id="m", status="aborted", hand_no=2, hands=8)
    >>> _progress(MatchLine(st, None, None, 2))
    'aborted in hand 3 of 8'
    """
    s = line.status
    if s.status == "waiting":
        return f"waiting for its bots; {_plural(s.hands, 'hand')}"
    if s.status == "running":
        return f"hand {s.hand_no + 1} of {s.hands}"
    if s.status == "finished":
        return _plural(line.played or s.hand_no + 1, "hand")
    return f"aborted in hand {min(line.played + 1, s.hands)} of {s.hands}"


def _when(line: MatchLine) -> str:
    if line.ended is not None:
        return f" · ended {_time(line.ended)}"
    if line.started is not None:
        return f" · started {_time(line.started)}"
    return ""


def _time(wall: float) -> str:
    """A UTC time for people, in a ``<time>`` element.

    >>> _time(0.0)
    '<time datetime="1970-01-01T00:00:00Z">1970-01-01 00:00 UTC</time>'
    """
    t = time.gmtime(wall)
    iso = time.strftime("%Y-%m-%dT%H:%M:%SZ", t)
    return f'<time datetime="{iso}">{time.strftime("%Y-%m-%d %H:%M", t)} UTC</time>'


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n:,} {word}s"


def _signed(value: float, digits: int = 0, plus: str = "+") -> str:
    """A number for people: its sign (a true minus; ``plus`` before positive numbers),
    thousands separated, rounded to ``digits``.

    >>> _signed(30666.666666666668, 1), _signed(-1500), _signed(0), _signed(4.56, 1, "")
    ('+30,666.7', '−1,500', '0', '4.6')
    """
    text = f"{abs(value):,.{digits}f}"
    if float(text.replace(",", "")) == 0:
        return text
    return (plus if value > 0 else "−") + text


def leaderboard_html(board: Leaderboard) -> str:
    """The leaderboard page: ranked bots, then those with too few hands."""
    head = (
        "<tr><th>#</th><th>bot</th><th class=num>matches</th><th class=num>hands</th>"
        '<th class=num>points a hand<span class="sub">95% interval</span></th>'
        '<th class=num>rating<span class="sub">μ − 3σ</span></th></tr>'
    )
    rows = "".join(_board_row(e) for e in board.entries)
    table = (
        f'<table class="board"><thead>{head}</thead><tbody>{rows}</tbody></table>'
        if board.entries
        else '<p class="note">No finished match yet.</p>'
    )
    note = (
        f'<p class="note">One line per bot (its name and version). A match counts once '
        f"however many seats a bot held in it; points a hand are one seat's. Bots are ranked "
        f"by their OpenSkill rating once they have played {_plural(board.min_hands, 'hand')}. "
        f'JSON: <a href="/v1/leaderboard">GET /v1/leaderboard</a>.</p>'
    )
    return _page("taimahjong server: leaderboard", f"<h2>Leaderboard</h2>{table}{note}")


def _board_row(e: LeaderboardEntry) -> str:
    """One bot's row; the ``data-label`` names a cell when a narrow screen stacks them."""
    low, high = e.points_per_hand_low, e.points_per_hand_high
    spread = "" if low is None or high is None else f"{_signed(low, 1)} … {_signed(high, 1)}"
    version = f'<span class="sub">{escape(e.bot_version)}</span>' if e.bot_version else ""
    seats = f'<span class="sub">{e.seats:,} seats</span>' if e.seats != e.matches else ""
    return (
        f'<tr class="{"ranked" if e.rank else "unranked"}"><td class="rank">{e.rank or "–"}</td>'
        f'<td class="bot">{escape(e.bot_name)}{version}</td>'
        f'<td class="num" data-label="matches">{e.matches:,}{seats}</td>'
        f'<td class="num" data-label="hands">{e.hands:,}</td>'
        f'<td class="num" data-label="a hand">{_signed(e.points_per_hand, 1)}'
        f'<span class="sub spread">{spread}</span></td>'
        f'<td class="num" data-label="rating">{_signed(e.rating, 1, "")}</td></tr>'
    )
