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

from protocol.events import event_from_json
from protocol.wire.common import ErrorCode
from sdk.records import Decision, Header, Origin, Outcome, Record, SeatInfo, build_record
from sdk.replay.html import render_html
from sdk.server.core import RequestError

if TYPE_CHECKING:
    from sdk.server.core import TournamentServer
    from sdk.server.store import StoredMatch
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
    record = _stored_record(await server.load_log(match_id))
    return await asyncio.to_thread(render_html, record, seat=seat)


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


def _stored_record(stored: StoredMatch) -> Record:
    """A finished (or aborted) match from the store, as a record."""
    row = stored.row
    seats = tuple(SeatInfo(i, i, name) for i, name in enumerate(row.seat_names))
    header = Header(
        seed=row.seed,
        hands=row.hands,
        seats=seats,
        first_dealer=int(row.config.get("first_dealer", 0)),
        origin=Origin("server", row.match_id, row.table_id),
    )
    events = [event_from_json(e) for e in stored.events]
    decisions = [_decision(d) for d in stored.decisions]
    return build_record(header, events, decisions, status=stored.status)


def _decision(data: dict) -> Decision:
    """A stored decision (:class:`sdk.server.records.DecisionRecord` JSON; it keeps no
    legal actions, so none are listed)."""
    from protocol.actions import Action

    applied = Action.from_json(data["applied"])
    outcome = Outcome(data["outcome"])
    return Decision(
        hand=int(data["hand"]),
        seat=int(data["seat"]),
        after_event=int(data["after_event"]),
        legal=(),
        answer=applied if outcome is Outcome.OK else None,
        applied=applied,
        outcome=outcome,
        ms=data.get("latency_ms"),
        request_id=str(data.get("request_id", "")),
        reason=str(data.get("reason", "")),
    )
