"""The server's viewer: ``GET /v1/matches/{match_id}/view``, its hands and its live steps.

The page (:func:`view_page`) holds the match's outline and its first hand; every other
hand is fetched when shown from ``.../view/hands/{h}`` (:func:`view_hand`, ``h`` from
0 as in every machine format), so a 400-hand match opens as fast as a one-hand match.

A match still being played is shown from public information only: the spectator
perspective of :mod:`sdk.replay.viewdata` over the referee's events so far (no concealed
tile of any seat, no wall, no decision, not even the seed), whatever ``seat`` is asked.
Its new steps are pushed to the page as server-sent events from ``.../view/stream``
(:func:`view_stream`): no reload. Once the match is over, the page is the whole record,
every hand shown (or one seat's view with ``?seat=N``).

Building a hand takes milliseconds. A finished match's record is read from the store
without replaying it: the legal actions of a hand's decisions are replayed on the
referee when that hand is shown (:class:`~sdk.server.recordlog.StoredDecisions`), so
the first page of a 400-hand match costs reading it, not replaying 400 hands. The record
is kept for the next hand asked (:class:`ViewCache`), and the work runs in a worker
thread so the tables' clocks keep running on the event loop.
"""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from protocol.events import HandEnd, HandStart, MatchEnd
from protocol.wire.common import ErrorCode
from sdk.records import Header, Origin, Record, SeatInfo, build_record
from sdk.replay.frames import HandFrames, result_json
from sdk.replay.html import page_html
from sdk.replay.viewdata import ViewerData
from sdk.server.core import RequestError
from sdk.server.recordlog import StoredDecisions, record_parts

if TYPE_CHECKING:
    from protocol.match import Match
    from sdk.server.core import TournamentServer
    from sdk.server.table import Table

__all__ = ["STREAM_POLL", "ViewCache", "view_hand", "view_page", "view_stream"]

STREAM_POLL = 0.2
"""Seconds between looks at a running match's events for new steps to push."""

KEEPALIVE = 15.0
"""Seconds of silence after which the stream sends a comment (a gone reader shows)."""


class ViewCache:
    """The viewer data of the last few finished matches viewed, by match and seat (a
    finished record never changes; the least recently used goes first).

    A match's record is read without its decisions' legal actions, which take replaying
    the match on the referee: those are replayed one hand at a time, for the hands
    shown (:func:`sdk.server.recordlog.record_parts`)."""

    def __init__(self, max_entries: int = 8) -> None:
        self.max_entries = max_entries
        self._data: OrderedDict[tuple[str, int | None], ViewerData] = OrderedDict()
        self._records: OrderedDict[str, tuple[Record, StoredDecisions]] = OrderedDict()

    async def get(self, server: TournamentServer, match_id: str, seat: int | None) -> ViewerData:
        """The viewer data of finished ``match_id`` for ``seat`` (``None``: every
        seat), read from the server's store the first time; :class:`RequestError` as
        :meth:`TournamentServer.load_log` (404 unknown, 409 still running)."""
        key = (match_id, seat)
        found = self._data.get(key)
        if found is None:
            parts = self._records.get(match_id)
            if parts is None:
                stored = await server.load_log(match_id)
                parts = await asyncio.to_thread(record_parts, stored)
                self._remember(self._records, match_id, parts, 2)
            record, decisions = parts
            found = await asyncio.to_thread(ViewerData, record, seat=seat, decisions=decisions.hand)
            self._remember(self._data, key, found, self.max_entries)
        self._data.move_to_end(key)
        return found

    @staticmethod
    def _remember(store: OrderedDict[Any, Any], key: Any, value: Any, limit: int) -> None:
        store[key] = value
        store.move_to_end(key)
        while len(store) > limit:
            store.popitem(last=False)


async def view_page(
    server: TournamentServer, cache: ViewCache, match_id: str, seat: int | None = None
) -> str:
    """The viewer page of ``match_id``: live (public only) while it runs, the whole
    record after. Raises :class:`~sdk.server.core.RequestError` (404 unknown match,
    422 bad seat)."""
    _check_seat(seat)
    table = _running(server, match_id)
    if table is not None:
        data = await asyncio.to_thread(ViewerData, _live_record(table), spectator=True)
        source = {"url": "view/hands/", "stream": "view/stream"}
        return await asyncio.to_thread(page_html, data, source=source)
    data = await cache.get(server, match_id, seat)
    query = "" if seat is None else f"?seat={seat}"
    source = {"url": "view/hands/", "query": query}

    def page() -> str:
        return page_html(data, links=_links(seat), source=source, first=data.hand(0))

    return await asyncio.to_thread(page)


async def view_hand(
    server: TournamentServer,
    cache: ViewCache,
    match_id: str,
    hand: int,
    seat: int | None = None,
) -> bytes:
    """Hand ``hand`` (0-based) of ``match_id`` as the page draws it, JSON; a running
    match's public view only. 404 for a hand not (yet) played."""
    _check_seat(seat)
    table = _running(server, match_id)
    if table is not None:
        record = _live_record(table)
        data = await asyncio.to_thread(ViewerData, record, spectator=True)
    else:
        data = await cache.get(server, match_id, seat)
    if hand not in range(len(data.starts)):
        raise RequestError(404, ErrorCode.NOT_FOUND, f"match {match_id} has no hand {hand}")
    return await asyncio.to_thread(lambda: _json(data.hand(hand)))


async def view_stream(server: TournamentServer, match_id: str) -> AsyncIterator[bytes]:
    """Server-sent events for the page of a running match: first the current hand from
    its start (``reset``, with every hand's first step in ``starts``), then each new
    step as it is played, public information only; an ``end`` event when the match is
    over (the page then loads the finished view). A match not running gets ``end`` at
    once."""
    table = _running(server, match_id)
    if table is None:
        yield b"event: end\ndata: {}\n\n"
        return
    live = await asyncio.to_thread(_LiveHands, table, table.match, _live_record(table))
    idle = 0.0
    while True:
        over = table.over
        message = live.advance()
        for m in message:
            yield b"data: " + _json(m) + b"\n\n"
        if message:
            idle = 0.0
        if over:
            yield b"event: end\ndata: {}\n\n"
            return
        await asyncio.sleep(STREAM_POLL)
        idle += STREAM_POLL
        if idle >= KEEPALIVE:
            idle = 0.0
            yield b": keep-alive\n\n"


class _LiveHands:
    """A running match's public steps, built as its events arrive: one
    :class:`~sdk.replay.frames.HandFrames` for the hand being played."""

    def __init__(self, table: Table, match: Match | None, record: Record) -> None:
        """``match``: the table's referee and ``record`` the match so far
        (:func:`_live_record`), both taken on the event loop; this runs in a worker
        thread. The match is held here, since the table drops it when the match is over
        and its last steps are still to be sent."""
        self.table = table
        self.match = match
        self.names = [s.name for s in sorted(table.seats, key=lambda s: s.seat)]
        events = record.events
        data = ViewerData(record, spectator=True)
        self.hand = len(data.starts) - 1
        self.start = data.starts[-1]
        self.starts: list[int] | None = data.starts
        self.frames = HandFrames(names=self.names, hand=self.hand, spectator=True)
        self.pos = data.begins[-1]
        self.fed = 0
        self.sent = (0, 0)
        self.reset = True
        self.result: dict[str, Any] | None = None
        self.final: list[int] | None = None
        self._feed(events[self.pos :])

    def _new_events(self) -> list[Any]:
        """The referee's events not fed yet (a match not started: once it is)."""
        if self.match is None:
            self.match = self.table.match
        return [] if self.match is None else self.match.events[self.pos :]

    def _feed(self, events: Any) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for event in events:
            self.pos += 1
            if type(event) is HandStart and self.fed:
                out += self._message()
                self.start += len(self.frames.steps)
                self.hand += 1
                self.frames = HandFrames(names=self.names, hand=self.hand, spectator=True)
                self.sent, self.reset, self.result, self.fed = (0, 0), True, None, 0
            self.frames.feed(event)
            self.fed += 1
            if type(event) is HandEnd:
                self.result = result_json(event.result, self.names)
            elif type(event) is MatchEnd:
                self.final = list(event.scores)
        return out

    def advance(self) -> list[dict[str, Any]]:
        """The messages for the events played since the last call (none: nothing new)."""
        return self._feed(self._new_events()) + self._message()

    def _message(self) -> list[dict[str, Any]]:
        steps, states = len(self.frames.steps), len(self.frames.states)
        if (steps, states) == self.sent and not self.reset:
            return []
        message = {
            "hand": self.hand,
            "start": self.start,
            "reset": self.reset,
            "frames": self.frames.steps[self.sent[0] :],
            "states": self.frames.states[self.sent[1] :],
            "result": self.result,
            "final": self.final,
        }
        if self.starts is not None:
            message["starts"] = self.starts
            self.starts = None
        self.sent, self.reset = (steps, states), False
        return [message]


def _json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def _check_seat(seat: int | None) -> None:
    if seat is not None and seat not in range(4):
        raise RequestError(422, ErrorCode.MALFORMED, f"seat must be 0..3, not {seat}")


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
