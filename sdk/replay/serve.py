"""The server's viewer page, ``GET /v1/matches/{match_id}/view``.

A match still being played is shown from public information only: the spectator
perspective of :func:`sdk.replay.html.render_html` over the referee's events so far (no
concealed tile of any seat, no wall, no decision, not even the seed), and the page
reloads itself while it follows the last step. Once the match is over, the page is the
whole record, every hand shown (or one seat's view with ``?seat=N``).

Rendering a long match takes a fraction of a second of CPU, so it runs in a worker
thread: the tables' clocks keep running on the event loop meanwhile.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from protocol.wire.common import ErrorCode
from sdk.records import Header, Origin, Record, SeatInfo, build_record
from sdk.replay.html import render_html
from sdk.server.core import RequestError

if TYPE_CHECKING:
    from sdk.server.core import TournamentServer
    from sdk.server.table import Table

__all__ = ["LIVE_REFRESH", "view_page"]

LIVE_REFRESH = 2.0
"""Seconds between reloads of a live page that follows the last step."""


async def view_page(server: TournamentServer, match_id: str, seat: int | None = None) -> str:
    """The viewer page of ``match_id``: live (public only) while it runs, the whole
    record after. Raises :class:`~sdk.server.core.RequestError` (404 unknown match,
    422 bad seat)."""
    if seat is not None and seat not in range(4):
        raise RequestError(422, ErrorCode.MALFORMED, f"seat must be 0..3, not {seat}")
    table = _running(server, match_id)
    if table is not None:
        record = _live_record(table)
        return await asyncio.to_thread(render_html, record, spectator=True, refresh=LIVE_REFRESH)
    record = await server.load_record(match_id)
    return await asyncio.to_thread(render_html, record, seat=seat, links=_links(seat))


def _links(seat: int | None) -> list[tuple[str, str]]:
    """The other views of a finished match (relative to ``.../view``)."""
    out = [("all hands", "" if seat is None else "view")]
    out += [(f"seat {s}", "" if s == seat else f"view?seat={s}") for s in range(4)]
    return out


def _running(server: TournamentServer, match_id: str) -> Table | None:
    for table in server.tables.values():
        if table.spec.match_id == match_id and not table.over:
            return table
    return None


def _live_record(table: Table) -> Record:
    """The match so far (a snapshot of the referee's events; the page projects them
    for a spectator). The seed is left out: it would give away the walls."""
    spec = table.spec
    seats = tuple(SeatInfo(s.seat, s.seat, s.name) for s in table.seats)
    header = Header(
        seed=0,
        hands=spec.hands,
        seats=seats,
        first_dealer=spec.first_dealer,
        origin=Origin("server", spec.match_id, spec.table_id),
    )
    events = () if table.match is None else tuple(table.match.events)
    return build_record(header, events, ())
