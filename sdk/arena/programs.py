"""Matches with line-protocol programs in the arena, played as a tournament table would.

When any entry of an arena run is a program (``cmd:`` or ``tcp:``, :mod:`sdk.programs`),
each match is played by the server's own table (:class:`sdk.server.table.Table`) on an
event loop of its own, not by :func:`sdk.local.play_match`:

* a program sits in a :class:`~sdk.server.seats.LineSeat`: started once per match in its
  own process group (and working folder), sent exactly what the public referee sends
  (:mod:`protocol.line.referee`: tiered claim asks, physical tile ids from the match
  seed), held to the decision clock and the start-up budget (R17) on real wall time;
  late, malformed or illegal answers get the tournament default and are counted; a late
  answer is read and dropped; a program that crashes or hangs is played by the default
  for the rest of the match, then stopped with its whole group (and started afresh for
  the next match); its standard error is kept per match, capped;
* a Python bot sits in a :class:`~sdk.server.seats.HouseSeat`, fed and policed as
  in-process, so the same deals in the same rotations give the same games.

:func:`play_table_match` returns the same :class:`~sdk.local.MatchResult` as
``play_match`` (the arena's tallies and reports take it unchanged), each program's
decision times measured from the ask written to the reply read, and ``crashed`` counted
(:data:`~sdk.arena.program_settings.CRASHED`: matches in which the program ended early).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
from collections.abc import Sequence
from typing import Any

from protocol.events import Event, HandEnd
from protocol.line.referee import LineTable
from protocol.wall import hand_seed, physical_wall
from sdk.arena.program_settings import CRASHED, ProgramSettings
from sdk.bot import Bot
from sdk.budget import Budget, DecisionStats
from sdk.local import MatchResult
from sdk.programs import ProgramSpec
from sdk.records import Origin, encode_record
from sdk.server.config import ServerConfig
from sdk.server.linechan import LineChannel, spawn_program, spawn_tcp_program
from sdk.server.recordlog import record_of
from sdk.server.records import DecisionRecord, Outcome
from sdk.server.seats import HouseSeat, LineSeat, Seat
from sdk.server.store import MatchRow, StoredMatch
from sdk.server.table import Table, TableSpec

__all__ = ["MemoryStore", "play_table_match"]

_SERVER = ServerConfig()
_LINE = {
    "limit": _SERVER.max_line_bytes,
    "rate": _SERVER.rate_per_second,
    "burst": _SERVER.rate_burst,
    "flood_seconds": _SERVER.flood_seconds,
}
"""The server's line limits (its defaults): a program meets the same rules everywhere."""


class MemoryStore:
    """The table's store for one arena match, kept in memory (the server's is SQLite)."""

    def __init__(self) -> None:
        self.row: MatchRow | None = None
        self.events: list[Event] = []
        self.decisions: list[DecisionRecord] = []
        self.status = "running"
        self.scores: list[int] = [0, 0, 0, 0]
        self.hands_played = 0
        self.failing: str | None = None
        """Why writes fail (never, in memory: the server's store has the same field)."""

    def begin_match(self, row: MatchRow) -> None:
        """The match starts."""
        self.row = row

    def append_hand(
        self,
        match_id: str,
        chunk: int,
        events: Sequence[Event],
        decisions: Sequence[DecisionRecord],
        scores: Sequence[int],
    ) -> None:
        """A hand ended: keep its events and decision records."""
        self.events.extend(events)
        self.decisions.extend(decisions)
        self.scores, self.hands_played = list(scores), chunk + 1

    def end_match(
        self, match_id: str, status: str, scores: Sequence[int], tail: Sequence[Event]
    ) -> None:
        """The match is over (or aborted)."""
        self.events.extend(tail)
        self.status, self.scores = status, list(scores)

    def stored(self) -> StoredMatch:
        """The match as the server's store would read it back (for its game record)."""
        assert self.row is not None
        return StoredMatch(
            self.row,
            self.status,
            self.scores,
            self.hands_played,
            [e.to_json() for e in self.events],
            [d.to_json() for d in self.decisions],
        )


def play_table_match(
    entries: Sequence[ProgramSpec | Bot],
    *,
    seed: int,
    hands: int,
    seats: Sequence[int],
    budget: Budget,
    settings: ProgramSettings,
    match_id: str,
    origin: Origin | None = None,
    record: bool = False,
) -> MatchResult:
    """Play one match of four entries (``entries[p]`` at seat ``seats[p]``): programs
    (:class:`~sdk.programs.ProgramSpec`) and bots made for this match. Every program
    started is stopped, its whole group, before this returns."""
    return asyncio.run(
        _play(entries, seed, hands, tuple(seats), budget, settings, match_id, origin, record)
    )


async def _play(
    entries: Sequence[ProgramSpec | Bot],
    seed: int,
    hands: int,
    seats: tuple[int, ...],
    budget: Budget,
    settings: ProgramSettings,
    match_id: str,
    origin: Origin | None,
    record: bool,
) -> MatchResult:
    line_table = LineTable(lambda k: physical_wall(hand_seed(seed, k)))
    # Python bots think on a thread: the loop keeps reading the programs' lines, so a
    # program's answer is timed when it comes, not when a slow bot lets the loop run
    thinker = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="arena-bot")
    table_seats = [
        _seat(entry, seats[p], hands, budget, settings, line_table, match_id, thinker)
        for p, entry in enumerate(entries)
    ]
    spec = TableSpec(
        table_id="arena",
        match_id=match_id,
        serial=0,
        seed=seed,
        hands=hands,
        decision_ms=round(budget.decision * 1000),
        startup_ms=round(settings.startup_seconds * 1000),
        origin="arena",
    )
    store = MemoryStore()
    table = Table(
        spec,
        table_seats,
        store,  # type: ignore[arg-type]
        line_table=line_table,
        connect_wait=settings.startup_seconds,
        play_unattended=True,
    )
    try:
        await table.run()
    finally:
        thinker.shutdown(wait=True)
    return _result(store, table_seats, seats, seed, budget, origin, record)


def _seat(
    entry: ProgramSpec | Bot,
    seat: int,
    hands: int,
    budget: Budget,
    settings: ProgramSettings,
    line_table: LineTable,
    match_id: str,
    thinker: concurrent.futures.Executor,
) -> Seat:
    if isinstance(entry, Bot):
        name = entry.name or type(entry).__name__
        return HouseSeat(seat, name, entry, hands, budget, thinker)
    name = entry.name
    stderr = settings.stderr_path(match_id, seat, name)

    async def spawn() -> LineChannel:
        common: dict[str, Any] = {
            **_LINE,
            "grace": settings.grace,
            "stderr_path": stderr,
            "stderr_bytes": settings.stderr_bytes,
            "cwd": entry.cwd,
        }
        label = f"seat {seat} ({name})"
        if entry.kind == "tcp":
            return await spawn_tcp_program(
                entry.command, label, connect_seconds=settings.startup_seconds, **common
            )
        return await spawn_program(entry.command, label, **common)

    line_seat = line_table.add_seat(seat, name)
    return LineSeat(seat, name, line_seat, spawn, hung_after=settings.hung_after)


def _result(
    store: MemoryStore,
    table_seats: Sequence[Seat],
    seats: tuple[int, ...],
    seed: int,
    budget: Budget,
    origin: Origin | None,
    record: bool,
) -> MatchResult:
    by_seat = {s.seat: s for s in table_seats}
    players = [by_seat[seats[p]] for p in range(4)]
    stats = [_stats(seat, store.decisions, budget) for seat in players]
    hand_results = [e.result for e in store.events if isinstance(e, HandEnd)]
    record_bytes = None
    if record and store.row is not None:
        rec = record_of(store.stored())
        header = dataclasses.replace(
            rec.header,
            seats=tuple(
                dataclasses.replace(s, player=seats.index(s.seat)) for s in rec.header.seats
            ),
            origin=origin or rec.header.origin,
        )
        record_bytes = encode_record(dataclasses.replace(rec, header=header)).encode()
    return MatchResult(
        seed=seed,
        names=tuple(s.name for s in players),
        seats=seats,
        scores=tuple(store.scores[s] for s in seats),
        hand_results=hand_results,
        stats=stats,
        record_bytes=record_bytes,
    )


_TALLIED = {Outcome.OVERRIDDEN: Outcome.OK}
"""A claim that lost to a higher one was answered in time: it counts as ``ok``."""


def _stats(seat: Seat, decisions: Sequence[DecisionRecord], budget: Budget) -> DecisionStats:
    """A seat's decision times and outcomes: a house bot's own, a program's measured
    on the table's clock (ask written to reply read; a decision with no reply counts the
    whole budget if late, nothing if the program was gone)."""
    if isinstance(seat, HouseSeat):
        return seat.stats
    stats = DecisionStats()
    for d in decisions:
        if d.seat != seat.seat:
            continue
        outcome = _TALLIED.get(d.outcome, d.outcome)
        if d.replied_at is not None:
            stats.record(max(0.0, d.replied_at - d.sent_at), outcome)
        elif outcome is not Outcome.DISCONNECTED:
            stats.record(budget.decision, outcome)
        else:
            stats.outcomes[outcome] = stats.outcomes.get(outcome, 0) + 1
    if isinstance(seat, LineSeat) and seat.crash:
        stats.outcomes[CRASHED] = 1
    return stats
