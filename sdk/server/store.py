"""Persistence in SQLite (standard :mod:`sqlite3`, WAL mode), on one thread of its own.

Every match is written as it goes: its row (configuration, seed, seats) when it starts,
each hand's events and decision records when the hand ends, the result when it is over.
A crash therefore loses at most the hand in progress; on the next start, matches that
were running are marked ``aborted`` and everything finished is still there. When a
match is over its hands are packed into one compressed row, and the :class:`Retention`
the organiser set is applied (:mod:`sdk.server.retention`).

A full disk (or the database's size limit) is a state (:mod:`sdk.server.writestate`):
one log line, then one a minute; :attr:`Store.failing` says why; a match that lost a
write is stored as ``incomplete`` (without its log) once writing works again, which the
store keeps trying.

All database work runs on the store's thread, fed by a queue, so the event loop never
waits for the disk: writes are fire-and-forget (:meth:`Store.submit`), reads return a
:class:`concurrent.futures.Future` (wrap it with :func:`asyncio.wrap_future`).

>>> store = Store(":memory:"); store.start()
>>> store.begin_match(MatchRow("m-1", "t-1", 1, 7, 1, ["a", "b", "c", "d"], {}))
>>> store.end_match("m-1", "finished", [1, -1, 0, 0], []).result()  # stored whole
True
>>> store.call(lambda db: store_rows(db, "SELECT status FROM matches")).result()
[('finished',)]
>>> store.close()
"""

from __future__ import annotations

import concurrent.futures
import contextlib
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
from sdk.server.retention import Retention, at_cap, cap, compact, enforce, read_hands, trim
from sdk.server.transaction import transaction
from sdk.server.writestate import WriteState, is_storage_failure

__all__ = [
    "MatchRow",
    "Retention",
    "Store",
    "StoreClosedError",
    "StoredMatch",
    "prepare",
    "read_match",
    "store_rows",
]

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
CREATE TABLE IF NOT EXISTS archive (
    match_id TEXT PRIMARY KEY,
    codec TEXT NOT NULL,
    data BLOB NOT NULL,
    text_bytes INTEGER NOT NULL
);
"""
_LOG_COLUMN = "ALTER TABLE matches ADD COLUMN log TEXT NOT NULL DEFAULT 'kept'"
"""Whether a match's log is kept or ``pruned`` (databases made before it: added)."""
_Job = tuple[Callable[[sqlite3.Connection], Any], bool]
"""A job for the store's thread, and whether it writes."""
PROBE_SECONDS = 2.0
"""While writes fail, how often the store tries whether there is room again."""
PROBE_BYTES = 256 << 10
"""Room a probe needs (a hand's rows are some tens of kilobytes)."""


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
    """``running``, ``finished``, ``aborted``, or ``incomplete`` (played to its end, but
    a write was lost: no log)."""
    scores: list[int]
    hands_played: int
    events: list[dict[str, Any]]
    decisions: list[dict[str, Any]]
    log: str = "kept"
    """``kept``, or ``pruned`` by the retention policy (no log)."""


def store_rows(db: sqlite3.Connection, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """Run a query on the store's connection and return all rows (for :meth:`Store.call`)."""
    return db.execute(sql, args).fetchall()


def _lines(items: Sequence[dict[str, Any]]) -> str:
    return "\n".join(json.dumps(i, separators=(",", ":")) for i in items)


def _unlines(text: str) -> list[dict[str, Any]]:
    """The JSON lines of ``text``, read as one JSON array: one ``json.loads`` call,
    not one a line (a 400-hand match has 85,000 lines; about twice as fast)."""
    return json.loads("[" + ",".join(line for line in text.split("\n") if line) + "]")


class Store:
    """The server's SQLite database, driven by one thread (see the module doc)."""

    def __init__(self, path: str, retention: Retention | None = None) -> None:
        self.path = path
        self.retention = retention or Retention()
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._closed = False
        self.last_serial = 0
        """The highest match serial in the database when it was opened."""
        self.writes = WriteState(log)
        self._broken: set[str] = set()
        """Running matches that lost a write: stored as ``incomplete`` at their end."""
        self._begun: dict[str, MatchRow] = {}
        self._repairs: dict[str, tuple[MatchRow, list[int]]] = {}
        """Incomplete matches whose end could not be written yet (retried)."""

    @property
    def failing(self) -> str | None:
        """Why the store cannot write now (``None``: it can); any thread may read it."""
        return self.writes.failing

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
        db.execute("PRAGMA auto_vacuum=INCREMENTAL")  # takes effect in a new database
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA busy_timeout=5000")  # python -m sdk.server.export may write too
        db.execute("PRAGMA journal_size_limit=8388608")
        prepare(db)
        cap(db, self.retention.max_bytes)
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
        probed = 0.0
        while True:
            wait = None
            if self.failing is not None:  # see whether there is room again, now and then
                wait = probed + PROBE_SECONDS - time.monotonic()
                if wait <= 0:
                    self._probe(db)
                    probed = time.monotonic()
                    continue
            try:
                item = self._jobs.get(timeout=wait)
            except queue.Empty:
                continue
            if item is None:
                break
            self._attempt(db, *item)
        with contextlib.suppress(sqlite3.Error):
            trim(db, 0)  # the file as small as its data
        db.close()

    def _attempt(self, db: sqlite3.Connection, job: Callable[[sqlite3.Connection], Any],
                 write: bool) -> None:  # fmt: skip
        """Run one job; a storage failure is a state, any other fails that job only."""
        try:
            job(db)
        except Exception as exc:
            _rollback(db)
            if not (write and self.writes.failed(exc, self._why(db))):
                log.exception("store: a database operation failed")

    def _probe(self, db: sqlite3.Connection) -> None:
        """Leave the failing state once a write that needs room goes through: a blob of
        :data:`PROBE_BYTES` written and deleted in one transaction (small writes may fit
        in pages the file already has while a hand's would not)."""
        size = PROBE_BYTES
        if self.retention.max_bytes:
            size = min(size, self.retention.max_bytes // 16)
        try:
            with transaction(db):
                db.execute("INSERT OR REPLACE INTO counters VALUES ('probe', 0)")
                db.execute("CREATE TABLE IF NOT EXISTS probe (data BLOB)")
                db.execute("INSERT INTO probe VALUES (zeroblob(?))", (size,))
                db.execute("DELETE FROM probe")
        except Exception as exc:
            _rollback(db)
            if not self.writes.failed(exc, self._why(db)):
                log.exception("store: a database operation failed")
            return
        self.writes.succeeded()
        self._repair(db)

    def _why(self, db: sqlite3.Connection) -> str:
        limit = self.retention.max_bytes
        try:
            if at_cap(db, limit):
                return f"the database reached its size limit ({limit >> 20} MB)"
        except sqlite3.Error:
            pass
        return "the disk is full, or the database file cannot be written"

    def _repair(self, db: sqlite3.Connection) -> None:
        """Writing works again: store the ends of incomplete matches still pending."""
        for match_id, (row, scores) in list(self._repairs.items()):
            try:
                _end_incomplete(db, row, scores)
            except Exception as exc:
                _rollback(db)
                if not self.writes.failed(exc, self._why(db)):
                    raise
                return
            del self._repairs[match_id]

    # -- generic --

    def submit(self, job: Callable[[sqlite3.Connection], None], *, write: bool = True) -> None:
        """Queue ``job(db)`` on the store's thread (fire and forget). A ``write`` that
        fails for want of space puts the store in the failing state."""
        if self._closed:
            raise StoreClosedError("the store is closed")
        self._jobs.put((job, write))

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

        self.submit(job, write=False)
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

        def job(db: sqlite3.Connection) -> None:
            self._begun[row.match_id] = row
            _insert_row(db, row, "running")

        self._submit_for(row.match_id, job)

    def _submit_for(self, match_id: str, job: Callable[[sqlite3.Connection], None]) -> None:
        """Queue a write of a running match; skipped once the match lost a write (its
        record is incomplete: what comes after it would only fill the disk)."""

        def run(db: sqlite3.Connection) -> None:
            if match_id in self._broken:
                return
            try:
                job(db)
            except Exception as exc:
                if is_storage_failure(exc):
                    self._broken.add(match_id)
                raise

        self.submit(run)

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
            with transaction(db):
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

        self._submit_for(match_id, job)

    def end_match(
        self, match_id: str, status: str, scores: Sequence[int], tail: Sequence[Event]
    ) -> concurrent.futures.Future[bool]:
        """Record the end of a match (``finished`` or ``aborted``) with its final
        scores and the events after the last hand (``match_end``). The future says
        whether its whole record was stored (else the match is stored ``incomplete``,
        now or when writing works again), then its hands are packed and the retention
        policy applied."""
        tail, scores = tuple(tail), list(scores)
        whole: concurrent.futures.Future[bool] = concurrent.futures.Future()

        def job(db: sqlite3.Connection) -> None:
            waited = whole.set_running_or_notify_cancel()  # False: nobody waits any more
            try:
                stored = self._end(db, match_id, status, scores, tail)
            except BaseException:
                if waited:
                    whole.set_result(False)
                raise
            if waited:
                whole.set_result(stored)

        self.submit(job)
        return whole

    def _end(
        self,
        db: sqlite3.Connection,
        match_id: str,
        status: str,
        scores: list[int],
        tail: tuple[Event, ...],
    ) -> bool:
        """End a match on the store's thread; whether its record is stored whole."""
        row = self._begun.pop(match_id, None)
        if match_id not in self._broken:
            try:
                with transaction(db):
                    if tail:
                        db.execute(
                            "INSERT OR REPLACE INTO chunks VALUES (?,?,?,?)",
                            (match_id, 1 << 30, _lines([e.to_json() for e in tail]), ""),
                        )
                    db.execute(
                        "UPDATE matches SET status=?, scores=?, finished_at=? WHERE match_id=?",
                        (status, json.dumps(scores), time.time(), match_id),
                    )
            except Exception as exc:
                if not self.writes.failed(exc, self._why(db)):
                    raise
            else:
                self._tidy(db, match_id)
                return True
        self._broken.discard(match_id)
        if row is None:  # its row was never written
            row = MatchRow(match_id, "", 0, 0, 0, [], {})
        try:
            _end_incomplete(db, row, scores)
        except Exception as exc:
            if not self.writes.failed(exc, self._why(db)):
                raise
            self._repairs[match_id] = (row, scores)
        return False

    def _tidy(self, db: sqlite3.Connection, match_id: str) -> None:
        """Pack an ended match's hands and apply the retention policy; a failure for want
        of space leaves the hands as they are (the record is whole either way)."""
        try:
            if self.retention.compress:
                compact(db, match_id)
            enforce(db, self.retention)
            trim(db)
        except Exception as exc:
            _rollback(db)
            if not self.writes.failed(exc, self._why(db)):
                raise

    # -- reads (run on the store's thread; results as futures) --

    def load_match(
        self, match_id: str, *, with_log: bool = True
    ) -> concurrent.futures.Future[StoredMatch | None]:
        """A future of the stored match (with its log unless ``with_log`` is false), or ``None``."""
        return self.call(lambda db: read_match(db, match_id, with_log))

    def load_matches(
        self, limit: int = 1000, before: int = 1 << 62
    ) -> concurrent.futures.Future[list[StoredMatch]]:
        """The latest ``limit`` matches whose serial is below ``before``, without logs."""
        return self.call(lambda db: _load_matches(db, limit, before))

    def finished_matches(self) -> concurrent.futures.Future[list[MatchOutcome]]:
        """Every finished match in the order played, as the leaderboard reads it."""
        return self.call(_finished_matches)


def _insert_row(db: sqlite3.Connection, row: MatchRow, status: str, conflict: str = "") -> None:
    """Write a match's row (``conflict``: ``OR IGNORE`` keeps one already there)."""
    db.execute(
        f"INSERT {conflict} INTO matches (serial, match_id, table_id, seed, hands, seat_names,"
        " config, status, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
        (
            row.serial,
            row.match_id,
            row.table_id,
            row.seed,
            row.hands,
            json.dumps(row.seat_names),
            json.dumps(row.config),
            status,
            time.time(),
        ),
    )


def _end_incomplete(db: sqlite3.Connection, row: MatchRow, scores: list[int]) -> None:
    """Store a match that lost a write as ``incomplete``: its row (made if its start was
    lost too), its scores, and no log (its hands are dropped: a record with a hole
    settles nothing, and the space is what was missing)."""
    with transaction(db):
        db.execute("DELETE FROM chunks WHERE match_id=?", (row.match_id,))
        _insert_row(db, row, "incomplete", "OR IGNORE")
        db.execute(
            "UPDATE matches SET status='incomplete', scores=?, finished_at=? WHERE match_id=?",
            (json.dumps(scores), time.time(), row.match_id),
        )


def _rollback(db: sqlite3.Connection) -> None:
    """Leave no transaction open after a failed job."""
    if db.in_transaction:
        try:
            db.execute("ROLLBACK")
        except sqlite3.Error:
            log.exception("store: rollback failed")


_COLUMNS = (
    "match_id, table_id, serial, seed, hands, seat_names, config, status, scores, hands_played, log"
)


def _row(values: tuple[Any, ...]) -> tuple[MatchRow, str, list[int], int, str]:
    match_id, table_id, serial, seed, hands, names, config, status, scores, played, kept = values
    row = MatchRow(match_id, table_id, serial, seed, hands, json.loads(names), json.loads(config))
    return row, status, json.loads(scores), played, kept


def prepare(db: sqlite3.Connection) -> None:
    """Make the store's tables if they are missing, and bring an older database's up to
    date (the ``log`` column)."""
    db.executescript(_SCHEMA)
    columns = {c[1] for c in db.execute("PRAGMA table_info(matches)")}
    if "log" not in columns:
        db.execute(_LOG_COLUMN)


def read_match(db: sqlite3.Connection, match_id: str, with_log: bool = True) -> StoredMatch | None:
    """The stored match ``match_id`` (with its log unless ``with_log`` is false), or
    ``None``; on any connection to the database (the store's, or an export's)."""
    found = db.execute(f"SELECT {_COLUMNS} FROM matches WHERE match_id=?", (match_id,)).fetchone()
    if found is None:
        return None
    row, status, scores, played, kept = _row(found)
    events: list[dict[str, Any]] = []
    decisions: list[dict[str, Any]] = []
    if with_log:
        for ev_text, dec_text in read_hands(db, match_id):
            events.extend(_unlines(ev_text))
            decisions.extend(_unlines(dec_text))
    return StoredMatch(row, status, scores, played, events, decisions, kept)


def _load_matches(db: sqlite3.Connection, limit: int, before: int) -> list[StoredMatch]:
    rows = db.execute(
        f"SELECT {_COLUMNS} FROM matches WHERE serial < ? ORDER BY serial DESC LIMIT ?",
        (before, limit),
    ).fetchall()
    return [_without_log(*_row(r)) for r in rows]


def _without_log(
    row: MatchRow, status: str, scores: list[int], played: int, kept: str
) -> StoredMatch:
    return StoredMatch(row, status, scores, played, [], [], kept)


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
