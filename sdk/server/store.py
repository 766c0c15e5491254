"""Persistence in SQLite (standard :mod:`sqlite3`, WAL mode), on one thread of its own.

Every match is written as it goes: its row (configuration, seed, seats) when it starts,
each hand's events and decision records when the hand ends, the result when it is over.
A crash therefore loses at most the hand in progress; on the next start, matches that
were running are marked ``aborted`` and everything finished is still there.

All database work runs on the store's thread, fed by a queue, so the event loop never
waits for the disk: writes are fire-and-forget (:meth:`Store.submit`), reads return a
:class:`concurrent.futures.Future` (wrap it with :func:`asyncio.wrap_future`).

>>> store = Store(":memory:"); store.start()
>>> store.begin_match(MatchRow("m-1", "t-1", 1, 7, 1, ["a", "b", "c", "d"], {}))
>>> store.end_match("m-1", "finished", [1, -1, 0, 0], [])
>>> store.call(lambda db: store_rows(db, "SELECT status FROM matches")).result()
[('finished',)]
>>> store.close()
"""

from __future__ import annotations

import concurrent.futures
import json
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from protocol.events import Event
from sdk.server.ratings import MatchOutcome, credited_players
from sdk.server.records import DecisionRecord

__all__ = ["MatchRow", "Store", "StoreClosedError", "StoredMatch", "store_rows"]

log = logging.getLogger("sdk.server.store")

T = TypeVar("T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    serial INTEGER PRIMARY KEY,
    match_id TEXT UNIQUE NOT NULL,
    table_id TEXT NOT NULL,
    seed INTEGER NOT NULL,
    hands INTEGER NOT NULL,
    seat_names TEXT NOT NULL,
    config TEXT NOT NULL,
    status TEXT NOT NULL,
    scores TEXT NOT NULL DEFAULT '[0,0,0,0]',
    hands_played INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL,
    finished_at REAL
);
CREATE TABLE IF NOT EXISTS counters (
    name TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS chunks (
    match_id TEXT NOT NULL,
    chunk INTEGER NOT NULL,
    events TEXT NOT NULL,
    decisions TEXT NOT NULL,
    PRIMARY KEY (match_id, chunk)
);
"""


class StoreClosedError(RuntimeError):
    """The store was closed; nothing more can be written or read."""


@dataclass(frozen=True, slots=True)
class MatchRow:
    """A match as it starts: ids, seed, number of hands, seat names and the table's
    configuration (JSON-able: rules, timing, seats and their transports)."""

    match_id: str
    table_id: str
    serial: int
    seed: int
    hands: int
    seat_names: list[str]
    config: dict[str, Any]


@dataclass(frozen=True, slots=True)
class StoredMatch:
    """A match read back: its row, status, scores and (for logs) its JSON lines."""

    row: MatchRow
    status: str
    scores: list[int]
    hands_played: int
    events: list[dict[str, Any]]
    decisions: list[dict[str, Any]]


def store_rows(db: sqlite3.Connection, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """Run a query on the store's connection and return all rows (for :meth:`Store.call`)."""
    return db.execute(sql, args).fetchall()


def _lines(items: Sequence[dict[str, Any]]) -> str:
    return "\n".join(json.dumps(i, separators=(",", ":")) for i in items)


def _unlines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.split("\n") if line]


class Store:
    """The server's SQLite database, driven by one thread (see the module doc)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._jobs: queue.SimpleQueue[Callable[[sqlite3.Connection], None] | None] = (
            queue.SimpleQueue()
        )
        self._thread: threading.Thread | None = None
        self._closed = False
        self.last_serial = 0
        """The highest match serial in the database when it was opened."""

    # -- life cycle --

    def start(self) -> None:
        """Open the database (creating it), recover from a crash, start the thread."""
        ready: concurrent.futures.Future[int] = concurrent.futures.Future()
        self._thread = threading.Thread(
            target=self._run, args=(ready,), name="sdk.server.store", daemon=True
        )
        self._thread.start()
        self.last_serial = ready.result()

    def close(self) -> None:
        """Finish every queued write, then close the database."""
        if self._closed:
            return
        self._closed = True
        self._jobs.put(None)
        if self._thread is not None:
            self._thread.join()

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(_SCHEMA)
        aborted = db.execute("UPDATE matches SET status='aborted' WHERE status='running'").rowcount
        if aborted:
            log.warning("%d match(es) were interrupted by a restart: marked aborted", aborted)
        return db

    def _run(self, ready: concurrent.futures.Future[int]) -> None:
        try:
            db = self._open()
            (serial,) = db.execute(
                "SELECT max(coalesce((SELECT max(serial) FROM matches), 0),"
                " coalesce((SELECT value FROM counters WHERE name='serial'), 0))"
            ).fetchone()
        except sqlite3.Error as exc:
            ready.set_exception(exc)
            return
        ready.set_result(int(serial))
        while (job := self._jobs.get()) is not None:
            try:
                job(db)
            except Exception:  # any failure fails that job only; the store keeps serving
                log.exception("store: a database operation failed")
                _rollback(db)
        db.close()

    # -- generic --

    def submit(self, job: Callable[[sqlite3.Connection], None]) -> None:
        """Queue ``job(db)`` on the store's thread (fire and forget)."""
        if self._closed:
            raise StoreClosedError("the store is closed")
        self._jobs.put(job)

    def call(self, fn: Callable[[sqlite3.Connection], T]) -> concurrent.futures.Future[T]:
        """Run ``fn(db)`` on the store's thread after the queued writes; its result."""
        future: concurrent.futures.Future[T] = concurrent.futures.Future()

        def job(db: sqlite3.Connection) -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                future.set_result(fn(db))
            except Exception as exc:  # handed to the caller, who decides
                future.set_exception(exc)

        self.submit(job)
        return future

    # -- writes --

    def reserve_serial(self, serial: int) -> None:
        """Remember that ids up to ``serial`` are taken (a table that never starts has
        no match row, yet its id must not come back after a restart)."""
        self.submit(
            lambda db: db.execute(
                "INSERT INTO counters VALUES ('serial', ?) ON CONFLICT(name)"
                " DO UPDATE SET value=max(value, excluded.value)",
                (serial,),
            )
        )

    def begin_match(self, row: MatchRow) -> None:
        """Record a match that starts now."""
        args = (
            row.serial,
            row.match_id,
            row.table_id,
            row.seed,
            row.hands,
            json.dumps(row.seat_names),
            json.dumps(row.config),
            "running",
            time.time(),
        )
        self.submit(
            lambda db: db.execute(
                "INSERT INTO matches (serial, match_id, table_id, seed, hands, seat_names,"
                " config, status, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
                args,
            )
        )

    def append_hand(
        self,
        match_id: str,
        chunk: int,
        events: Sequence[Event],
        decisions: Sequence[DecisionRecord],
        scores: Sequence[int],
    ) -> None:
        """Record one finished hand (``chunk`` = its number): its events, its decision
        records and the scores after it, in one transaction. Serialisation happens on
        the store's thread."""
        events, decisions, scores = tuple(events), tuple(decisions), list(scores)

        def job(db: sqlite3.Connection) -> None:
            with _transaction(db):
                db.execute(
                    "INSERT OR REPLACE INTO chunks VALUES (?,?,?,?)",
                    (
                        match_id,
                        chunk,
                        _lines([e.to_json() for e in events]),
                        _lines([d.to_json() for d in decisions]),
                    ),
                )
                db.execute(
                    "UPDATE matches SET scores=?, hands_played=? WHERE match_id=?",
                    (json.dumps(scores), chunk + 1, match_id),
                )

        self.submit(job)

    def end_match(
        self, match_id: str, status: str, scores: Sequence[int], tail: Sequence[Event]
    ) -> None:
        """Record the end of a match (``finished`` or ``aborted``) with its final
        scores and the events after the last hand (``match_end``)."""
        tail, scores = tuple(tail), list(scores)

        def job(db: sqlite3.Connection) -> None:
            with _transaction(db):
                if tail:
                    db.execute(
                        "INSERT OR REPLACE INTO chunks VALUES (?,?,?,?)",
                        (match_id, 1 << 30, _lines([e.to_json() for e in tail]), ""),
                    )
                db.execute(
                    "UPDATE matches SET status=?, scores=?, finished_at=? WHERE match_id=?",
                    (status, json.dumps(scores), time.time(), match_id),
                )

        self.submit(job)

    # -- reads (run on the store's thread; results as futures) --

    def load_match(
        self, match_id: str, *, with_log: bool = True
    ) -> concurrent.futures.Future[StoredMatch | None]:
        """A future of the stored match (with its log unless ``with_log`` is false), or ``None``."""
        return self.call(lambda db: _load_match(db, match_id, with_log))

    def load_matches(
        self, limit: int = 1000, before: int = 1 << 62
    ) -> concurrent.futures.Future[list[StoredMatch]]:
        """The latest ``limit`` matches whose serial is below ``before``, without logs."""
        return self.call(lambda db: _load_matches(db, limit, before))

    def leaderboard(self) -> concurrent.futures.Future[list[tuple[str, int, int, int]]]:
        """``(bot_name, matches, hands, total_score)`` over finished matches."""
        return self.call(_leaderboard)

    def finished_matches(self) -> concurrent.futures.Future[list[MatchOutcome]]:
        """Every finished match in the order played, as the leaderboard reads it."""
        return self.call(_finished_matches)


def _rollback(db: sqlite3.Connection) -> None:
    """Leave no transaction open after a failed job."""
    if db.in_transaction:
        try:
            db.execute("ROLLBACK")
        except sqlite3.Error:
            log.exception("store: rollback failed")


class _transaction:
    """``BEGIN`` / ``COMMIT`` (``ROLLBACK`` on error) on an autocommit connection."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN")

    def __exit__(self, kind: object, *_: object) -> None:
        self.db.execute("ROLLBACK" if kind is not None else "COMMIT")


_COLUMNS = (
    "match_id, table_id, serial, seed, hands, seat_names, config, status, scores, hands_played"
)


def _row(values: tuple[Any, ...]) -> tuple[MatchRow, str, list[int], int]:
    match_id, table_id, serial, seed, hands, names, config, status, scores, played = values
    row = MatchRow(match_id, table_id, serial, seed, hands, json.loads(names), json.loads(config))
    return row, status, json.loads(scores), played


def _load_match(db: sqlite3.Connection, match_id: str, with_log: bool) -> StoredMatch | None:
    found = db.execute(f"SELECT {_COLUMNS} FROM matches WHERE match_id=?", (match_id,)).fetchone()
    if found is None:
        return None
    row, status, scores, played = _row(found)
    events: list[dict[str, Any]] = []
    decisions: list[dict[str, Any]] = []
    if with_log:
        for ev_text, dec_text in db.execute(
            "SELECT events, decisions FROM chunks WHERE match_id=? ORDER BY chunk", (match_id,)
        ):
            events.extend(_unlines(ev_text))
            decisions.extend(_unlines(dec_text))
    return StoredMatch(row, status, scores, played, events, decisions)


def _load_matches(db: sqlite3.Connection, limit: int, before: int) -> list[StoredMatch]:
    rows = db.execute(
        f"SELECT {_COLUMNS} FROM matches WHERE serial < ? ORDER BY serial DESC LIMIT ?",
        (before, limit),
    ).fetchall()
    return [StoredMatch(*_row(r), [], []) for r in rows]


def _finished_matches(db: sqlite3.Connection) -> list[MatchOutcome]:
    out = []
    for names, config, scores, hands in db.execute(
        "SELECT seat_names, config, scores, hands_played FROM matches"
        " WHERE status='finished' ORDER BY serial"
    ):
        seats = json.loads(config).get("seats", [])
        players, versions = credited_players(json.loads(names), seats)
        out.append(MatchOutcome(players, versions, tuple(json.loads(scores)), hands))
    return out


def _leaderboard(db: sqlite3.Connection) -> list[tuple[str, int, int, int]]:
    totals: dict[str, list[int]] = {}
    for names, scores, hands in db.execute(
        "SELECT seat_names, scores, hands_played FROM matches WHERE status='finished'"
    ):
        for name, score in zip(json.loads(names), json.loads(scores), strict=True):
            entry = totals.setdefault(name, [0, 0, 0])
            entry[0] += 1
            entry[1] += hands
            entry[2] += score
    return [(name, m, h, s) for name, (m, h, s) in totals.items()]
