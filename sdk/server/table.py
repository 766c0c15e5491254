"""One table: an asyncio task that drives a :class:`~protocol.match.Match` with four
:class:`~sdk.server.seats.Seat` objects, enforces the R17 clock and records everything.

The loop is the referee's own: ask every seat in ``match.pending()``, wait for the next
settled decision, apply it, show the new events to every seat. On a discard the claims
go through :class:`~protocol.claim_tiers.ClaimTiers`: line-protocol seats are asked
tier by tier (win, then kong/pung, then chow, as the public referee asks, so their
answered claim always applies), the other seats everything at once; once the outcome is
known the table applies one full decision per claim seat in priority order, and a claim
that lost to a higher one is recorded as ``overridden``. The
clock is one timer per request at the seat's deadline; a seat that misses it gets the
R17 default. Each decision is kept as a :class:`~sdk.server.records.DecisionRecord`, and
each hand is written to the store when it ends, with its records.

Given the same seed and the same decisions, the events are exactly those of
:func:`sdk.local.play_match` in-process: the referee is the same and the server only
carries decisions to it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from protocol.actions import PASS
from protocol.claim_tiers import ClaimTiers
from protocol.events import Event, HandEnd
from protocol.line.adapter import LineTable
from protocol.match import Match
from protocol.view import CLAIMS
from protocol.wire.rest import SeatStatus, TableStatus
from sdk.server.records import Clock, DecisionRecord, Outcome
from sdk.server.seats import Ask, LineSeat, Seat
from sdk.server.store import MatchRow, Store

__all__ = ["Table", "TableSpec", "UnattendedError"]

log = logging.getLogger("sdk.server.table")

_STARTUP_POLL = 0.25
_STORE_WAIT = 30.0
"""Seconds a finished table waits for the store to confirm its record."""
"""Seconds between checks of time-based start-up conditions (events wake it sooner)."""


class UnattendedError(Exception):
    """No remote seat was connected for the table's ``unattended_wait``."""


@dataclass(frozen=True, slots=True)
class TableSpec:
    """A table's identity and match configuration."""

    table_id: str
    match_id: str
    serial: int
    seed: int
    hands: int
    first_dealer: int = 0
    rules: str = "tcga-2024"
    decision_ms: int = 3000
    startup_ms: int = 30000
    origin: str = "rest"
    """Who made it: ``rest``, ``lobby`` or ``cli``."""
    extra: dict[str, object] = field(default_factory=dict)

    def config_json(self, seats: Sequence[Seat]) -> dict[str, object]:
        """The configuration stored with the match."""
        return {
            "rules": self.rules,
            "hands": self.hands,
            "first_dealer": self.first_dealer,
            "timing": {"decision_ms": self.decision_ms, "startup_ms": self.startup_ms},
            "origin": self.origin,
            "seats": [
                {
                    "seat": s.seat,
                    "bot_name": s.name,
                    "version": s.version,
                    "transport": s.transport,
                    "player": list(s.player),
                }
                for s in seats
            ],
            **self.extra,
        }


class Table:
    """A table and its match (see the module doc). Build it, then run :meth:`run` as a
    task; :meth:`status` describes it at any time."""

    def __init__(
        self,
        spec: TableSpec,
        seats: Sequence[Seat],
        store: Store,
        *,
        line_table: LineTable | None = None,
        connect_wait: float = 300.0,
        unattended_wait: float = 60.0,
        play_unattended: bool = False,
    ) -> None:
        if sorted(s.seat for s in seats) != [0, 1, 2, 3]:
            raise ValueError("a table has exactly one seat object per seat 0..3")
        self.spec = spec
        self.seats: list[Seat] = sorted(seats, key=lambda s: s.seat)
        self.store = store
        self.line_table = line_table
        self.connect_wait = connect_wait
        self.unattended_wait = unattended_wait
        self.play_unattended = play_unattended
        """Play on when no remote seat is connected (the arena: a crashed program's seat
        is played by the default; a server pauses, then aborts the table)."""
        self.clock = Clock()
        self.decision_seconds = spec.decision_ms / 1000
        self.startup_seconds = spec.startup_ms / 1000
        self.state = "waiting"
        self.over = False
        self.match: Match | None = None
        self.created = Clock.now()
        self.records: list[DecisionRecord] = []
        """Decision records of the hand in progress (earlier hands are in the store)."""
        self._final: TableStatus | None = None
        self._stored: concurrent.futures.Future[bool] | None = None
        """Whether the store wrote the whole record (set when the match ends)."""
        self._ended_as = "finished"
        """The status kept by :meth:`release` once the match is over."""
        self.decisions = 0
        self._line_seats = {s.seat: s for s in self.seats if isinstance(s, LineSeat)}
        self._pushers = [s for s in self.seats if not isinstance(s, LineSeat)]
        self._remote = [s for s in self.seats if s.transport != "builtin"]
        self._asking: set[int] = set()
        """Seats asked whose decision has not been settled yet."""
        self._unapplied: set[int] = set()
        """Seats asked whose decision has not been applied yet (settled ones wait in
        the queue): never asked twice for one decision."""
        self.tiered: frozenset[int] = frozenset(self._line_seats)
        """Seats asked for claims one tier at a time (see the module doc)."""
        self._tiers: ClaimTiers | None = None
        self._held: list[DecisionRecord] = []
        """Claim answers of the open claim window, recorded once it is resolved."""
        self._timers: dict[int, asyncio.TimerHandle] = {}
        self._settled: asyncio.Queue[tuple[int, DecisionRecord]] = asyncio.Queue()
        self._changed = asyncio.Event()
        self._logged = 0
        self._chunk = 0
        for seat in self.seats:
            seat.bind(self)

    # -- seat callbacks --

    def settle(self, seat: int, record: DecisionRecord) -> None:
        """A seat's decision is made (the seats call this once per request)."""
        if seat not in self._asking:
            log.error("%s: seat %d settled a decision it was not asked", self.spec.table_id, seat)
            return
        self._asking.discard(seat)
        timer = self._timers.pop(seat, None)
        if timer is not None:
            timer.cancel()
        self._settled.put_nowait((seat, record))

    def changed(self) -> None:
        """A seat connected, dropped or became ready (wakes the start-up wait)."""
        self._changed.set()

    # -- the task --

    async def run(self) -> None:
        """Wait for the seats, play the match, record it; never raises (a failure
        aborts this table only)."""
        status = "aborted"
        try:
            await self._open_seats()
            await self._wait_startup()
            self._start()
            await self._play()
            status = "finished"
        except UnattendedError as exc:
            log.warning("%s: aborted: %s", self.spec.table_id, exc)
        except asyncio.CancelledError:
            log.warning("%s: cancelled", self.spec.table_id)
            raise
        except Exception:
            log.exception("%s: aborted by an error", self.spec.table_id)
        finally:
            self._end(status)
            await self._close_seats()
            await self._confirm_record()

    async def _open_seats(self) -> None:
        await asyncio.gather(*(s.open() for s in self.seats))

    async def _wait_startup(self) -> None:
        while True:
            now = Clock.now()
            if all(s.startup_done(now, self.created, self.connect_wait) for s in self.seats):
                return
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), _STARTUP_POLL)

    def _start(self) -> None:
        spec = self.spec
        self.match = Match.new(spec.seed, spec.hands, first_dealer=spec.first_dealer)
        self.state = "running"
        names = [s.name for s in self.seats]
        config = spec.config_json(self.seats)
        row = MatchRow(
            spec.match_id, spec.table_id, spec.serial, spec.seed, spec.hands, names, config
        )
        self.store.begin_match(row)
        log.info("match %s started on table %s: %s", spec.match_id, spec.table_id, names)
        self._broadcast(self.match.events)

    async def _play(self) -> None:
        match = self.match
        assert match is not None
        settled = self._settled
        while not match.is_over:
            if not self._attended():
                await self._wait_attended()
            self._ask(match)
            if settled.empty():
                seat, record = await settled.get()
            else:  # settled at once (a seat not connected): still let others run
                seat, record = settled.get_nowait()
                await asyncio.sleep(0)
            self._unapplied.discard(seat)
            self.decisions += 1
            tiers = self._tiers
            if tiers is None:
                self.records.append(record)
                self._broadcast(match.apply(seat, record.applied))
                continue
            tiers.answer(seat, record.applied)
            self._held.append(record)
            if tiers.done:
                self._resolve_claims(match, tiers)

    def _resolve_claims(self, match: Match, tiers: ClaimTiers) -> None:
        """Record the claim window's answers (the losing claims as overridden) and apply
        one decision per claim seat, in priority order."""
        self._tiers = None
        lost = tiers.overridden()
        decisions = tiers.decisions()
        for record in self._held:
            taker = lost.get(record.seat)
            if taker is not None and record.applied == decisions[record.seat]:
                reason = f"lost to seat {taker}'s {decisions[taker].kind.value} (R5)"
                record = replace(record, outcome=Outcome.OVERRIDDEN, reason=reason)
            self.records.append(record)
        self._held = []
        events: list[Event] = []
        for seat, action in decisions.items():
            events.extend(match.apply(seat, action))
        self._broadcast(events)

    def _attended(self) -> bool:
        """Whether someone plays here: a connected remote seat, or house bots only."""
        return self.play_unattended or not self._remote or any(s.connected for s in self._remote)

    async def _wait_attended(self) -> None:
        """Pause while no remote seat is connected; after ``unattended_wait`` seconds
        give up (:class:`UnattendedError`): a table nobody attends is not played."""
        deadline = Clock.now() + self.unattended_wait
        while not self._attended():
            left = deadline - Clock.now()
            if left <= 0:
                raise UnattendedError(f"no remote seat connected for {self.unattended_wait:g} s")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(left, _STARTUP_POLL))

    def _ask(self, match: Match) -> None:
        pending = match.pending()
        hand = match.current
        if self._tiers is None and hand.public.phase == CLAIMS:
            self._tiers = ClaimTiers(pending, self.tiered)
        if self._tiers is not None:
            pending = self._tiers.asks()
        elif len(pending) == len(self._unapplied):
            return
        now = Clock.now()
        loop = asyncio.get_running_loop()
        for seat_no, legal in pending.items():
            if seat_no in self._unapplied:
                continue
            claim = PASS in legal
            ask = Ask(
                legal=legal,
                drawn_tile=None if claim else hand.drawn_tile(seat_no),
                claim_tile=hand.public.pending_tile if claim else None,
                hand=match.hand_no,
                after_event=len(match.events),
                now=now,
            )
            self._asking.add(seat_no)
            self._unapplied.add(seat_no)
            seat = self.seats[seat_no]
            seat.request(ask)
            deadline = seat.deadline
            if seat_no in self._asking and deadline is not None:
                self._timers[seat_no] = loop.call_at(deadline, self._expire, seat_no)

    def _expire(self, seat_no: int) -> None:
        self._timers.pop(seat_no, None)
        if seat_no not in self._asking:
            return
        seat = self.seats[seat_no]
        seat.expire(Clock.now())
        deadline = seat.deadline
        if seat_no in self._asking and deadline is not None:  # the timer fired a hair early
            loop = asyncio.get_running_loop()
            self._timers[seat_no] = loop.call_at(deadline + 0.001, self._expire, seat_no)

    # -- events and persistence --

    def _broadcast(self, events: Sequence[Event]) -> None:
        for seat in self._pushers:
            seat.push(events)
        line_table = self.line_table
        if line_table is not None:
            line_seats = self._line_seats
            for event in events:
                for seat_no, lines in line_table.feed(event).items():
                    if lines:
                        line_seats[seat_no].write(lines)
        self._persist(events)

    def _persist(self, events: Sequence[Event]) -> None:
        match = self.match
        assert match is not None
        base = len(match.events) - len(events)
        for i, event in enumerate(events):
            if type(event) is HandEnd:
                end = base + i + 1
                self._write_hand(match.events[self._logged : end], event.scores)
                self._logged = end

    def _write_hand(self, events: Sequence[Event], scores: Sequence[int]) -> None:
        self.store.append_hand(self.spec.match_id, self._chunk, events, self.records, scores)
        self._chunk += 1
        self.records = []

    def _end(self, status: str) -> None:
        self.over = True
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        match = self.match
        if match is None:
            self.state = "aborted" if status == "aborted" else status
            return
        tail = match.events[self._logged :]
        self.records.extend(self._held)  # answers of a claim window the end cut short
        self._held = []
        if status == "aborted" and (tail or self.records):
            self._write_hand(tail, match.scores)
            tail = []
        self._ended_as = status
        self._stored = self.store.end_match(self.spec.match_id, status, match.scores, tail)
        failing = self.store.failing
        self.state = status if failing is None else "incomplete"  # confirmed by the store
        self._final = self.status()  # as the match ended: seats as they played, every fallback
        where = f"/v1/matches/{self.spec.match_id}/log.jsonl"
        if failing is not None:
            where = f"incomplete, the database cannot be written ({failing})"
        log.info(
            "%s: match %s %s, scores %s; its record: %s",
            self.spec.table_id, self.spec.match_id, status, list(match.scores), where,
        )  # fmt: skip
        for seat in self.seats:
            with contextlib.suppress(Exception):
                seat.finish()

    async def _confirm_record(self) -> None:
        """Once the store has written (or failed to write) the end of the match, the final
        status says whether its record is whole: ``incomplete`` if a write was lost."""
        stored = self._stored
        if stored is None or self._final is None:
            return
        try:
            whole = await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(stored)), _STORE_WAIT)
        except TimeoutError:
            log.warning("%s: the store has not confirmed the record", self.spec.table_id)
            return
        ended = self._ended_as if whole else "incomplete"
        if ended != self.state:
            if not whole:
                log.warning(
                    "%s: match %s: its record is incomplete (the database could not be "
                    "written)", self.spec.table_id, self.spec.match_id,
                )  # fmt: skip
            self.state = ended
            self._final = self._final.model_copy(update={"status": ended})

    async def _close_seats(self) -> None:
        await asyncio.gather(*(s.close() for s in self.seats), return_exceptions=True)

    def release(self) -> TableStatus:
        """The task has ended and the match is stored: keep the final status (returned),
        drop the referee's state (every event of the match, the line protocol's table).
        The table itself stays a while so that late resumes are told ``bye``; without
        this, the events of every table finished in the last ``finished_grace`` seconds
        (tens of thousands of objects at 100 tables) were walked by each full garbage
        collection, a pause that reached the p99 latency of the tables still playing."""
        self._final = self.status()  # kept from _end if the match was played
        self.match = None
        self.line_table = None
        self.records, self._held, self._tiers = [], [], None
        return self._final

    def dispose(self) -> None:
        """The server forgets this table (after ``finished_grace``): release every seat,
        so that the table, its seats and their connections are freed at once by
        reference counting, not left in cycles for a full garbage collection."""
        for seat in self.seats:
            seat.release()
        self._settled = asyncio.Queue()

    # -- queries --

    def status(self) -> TableStatus:
        """The REST view of this table."""
        if self._final is not None:
            return self._final
        match = self.match
        seats = [
            SeatStatus(
                seat=s.seat,
                bot_name=s.name,
                transport=s.transport,  # type: ignore[arg-type]
                connected=s.connected,
                ready=s.ready,
                fallbacks=s.fallbacks,
            )
            for s in self.seats
        ]
        return TableStatus(
            table_id=self.spec.table_id,
            match_id=self.spec.match_id,
            status=self.state,  # type: ignore[arg-type]
            hand_no=0 if match is None else min(match.hand_no, self.spec.hands - 1),
            hands=self.spec.hands,
            seats=seats,
            scores=[0, 0, 0, 0] if match is None else list(match.scores),
        )
