"""How much the store keeps: finished logs packed, old logs pruned, the database bounded.

The organiser sets a :class:`Retention` (``python -m sdk.server --max-db-mb N
--keep-days D``). Functions here run on the store's connection (its thread):

* :func:`compact` packs a finished match's hands into one compressed row
  (:mod:`sdk.server.packing`, about 12x smaller) and drops the per-hand rows;
* :func:`enforce` prunes the logs of matches finished more than ``keep_days`` ago, and,
  when the data passes 90 % of ``max_bytes``, the oldest logs until it is under 80 %;
  a pruned match keeps its row (seats, scores: the leaderboard and the tables list do
  not change), only its log and record are gone;
* :func:`trim` gives free pages back to the filesystem beyond a few megabytes kept for
  the hands of running matches;
* :func:`cap` makes ``max_bytes`` a hard limit in SQLite itself (``max_page_count``):
  a write past it fails like a full disk (:mod:`sdk.server.writestate`).

>>> import sqlite3
>>> db = sqlite3.connect(":memory:", isolation_level=None)
>>> used_bytes(db) >= 0
True
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass

from sdk.server.packing import CODEC, pack, unpack
from sdk.server.transaction import transaction

__all__ = [
    "Retention",
    "at_cap",
    "cap",
    "compact",
    "enforce",
    "prune",
    "read_hands",
    "trim",
    "used_bytes",
]

log = logging.getLogger("sdk.server.retention")

HIGH, LOW = 0.9, 0.8
"""Pruning for size starts above ``HIGH`` of the limit and stops under ``LOW``."""
_BATCH = 8
"""Logs pruned per transaction when over the size limit."""
SPARE_BYTES = 16 << 20
"""Free pages kept in the file for the hands of running matches; more are given back."""


@dataclass(frozen=True, slots=True)
class Retention:
    """What the store keeps (``0`` means no limit)."""

    max_bytes: int = 0
    """The database's size limit in bytes (its pages in use; the write-ahead log apart)."""
    keep_days: float = 0.0
    """Logs of matches finished longer ago than this are pruned."""
    compress: bool = True
    """Pack a match's hands into one compressed row when it is over."""


def used_bytes(db: sqlite3.Connection) -> int:
    """Bytes of the database's pages in use (free pages are reused before it grows)."""
    (pages,) = db.execute("PRAGMA page_count").fetchone()
    (free,) = db.execute("PRAGMA freelist_count").fetchone()
    (size,) = db.execute("PRAGMA page_size").fetchone()
    return int((pages - free) * size)


def cap(db: sqlite3.Connection, max_bytes: int) -> None:
    """Make ``max_bytes`` (``0``: none) a hard limit of the database file."""
    (size,) = db.execute("PRAGMA page_size").fetchone()
    pages = max_bytes // size if max_bytes else 0xFFFFFFFE
    db.execute(f"PRAGMA max_page_count={int(pages)}")


def at_cap(db: sqlite3.Connection, max_bytes: int) -> bool:
    """Whether the database file has reached its :func:`cap` of ``max_bytes``."""
    (pages,) = db.execute("PRAGMA page_count").fetchone()
    (size,) = db.execute("PRAGMA page_size").fetchone()
    return bool(max_bytes and (pages + 1) * size > max_bytes)


def trim(db: sqlite3.Connection, spare: int = SPARE_BYTES) -> None:
    """Give the file's free pages beyond ``spare`` bytes back to the filesystem (in a
    database made with ``auto_vacuum=INCREMENTAL``, as the store makes them; an older
    one keeps its size until a ``VACUUM``)."""
    (free,) = db.execute("PRAGMA freelist_count").fetchone()
    (size,) = db.execute("PRAGMA page_size").fetchone()
    extra = free - spare // size
    if extra > 0:
        db.executescript(f"PRAGMA incremental_vacuum({int(extra)});")  # execute: one page


def read_hands(db: sqlite3.Connection, match_id: str) -> list[tuple[str, str]]:
    """A match's stored hands as ``(events, decisions)`` texts, packed or not."""
    packed = db.execute("SELECT codec, data FROM archive WHERE match_id=?", (match_id,)).fetchone()
    if packed is not None:
        if packed[0] != CODEC:
            raise ValueError(f"match {match_id}: unknown packing {packed[0]!r}")
        return unpack(packed[1])
    rows = db.execute(
        "SELECT events, decisions FROM chunks WHERE match_id=? ORDER BY chunk", (match_id,)
    )
    return [(events, decisions) for events, decisions in rows]


def compact(db: sqlite3.Connection, match_id: str) -> tuple[int, int]:
    """Pack the hands of an ended match into one row; ``(text bytes, packed bytes)``."""
    rows = db.execute(
        "SELECT chunk, events, decisions FROM chunks WHERE match_id=? ORDER BY chunk",
        (match_id,),
    ).fetchall()
    if not rows:
        return 0, 0
    hands = [(events, decisions) for _, events, decisions in rows]
    data = pack(hands)
    text = sum(len(e) + len(d) for e, d in hands)
    with transaction(db):
        db.execute("INSERT OR REPLACE INTO archive VALUES (?,?,?,?)", (match_id, CODEC, data, text))
        db.execute("DELETE FROM chunks WHERE match_id=?", (match_id,))
    return text, len(data)


def prune(db: sqlite3.Connection, match_ids: Sequence[str]) -> None:
    """Drop the logs of ``match_ids`` (their rows stay, marked ``pruned``), in one
    transaction."""
    with transaction(db):
        for match_id in match_ids:
            db.execute("DELETE FROM chunks WHERE match_id=?", (match_id,))
            db.execute("DELETE FROM archive WHERE match_id=?", (match_id,))
            db.execute("UPDATE matches SET log='pruned' WHERE match_id=?", (match_id,))


def _oldest(db: sqlite3.Connection, n: int, finished_before: float | None = None) -> list[str]:
    """Up to ``n`` ended matches that still have a log, oldest first."""
    sql = "SELECT match_id FROM matches WHERE status!='running' AND log='kept'"
    args: tuple[float, ...] = ()
    if finished_before is not None:
        sql += " AND coalesce(finished_at, created_at) < ?"
        args = (finished_before,)
    return [m for (m,) in db.execute(f"{sql} ORDER BY serial LIMIT {int(n)}", args)]


def enforce(db: sqlite3.Connection, retention: Retention, now: float | None = None) -> int:
    """Prune logs by age, then by size (see the module doc); how many were pruned."""
    pruned = 0
    if retention.keep_days > 0:
        before = (time.time() if now is None else now) - retention.keep_days * 86400
        while batch := _oldest(db, 256, before):
            prune(db, batch)
            pruned += len(batch)
        if pruned:
            log.info("store: pruned %d logs older than %g days", pruned, retention.keep_days)
    limit = retention.max_bytes
    if limit and used_bytes(db) > HIGH * limit:
        by_size = 0
        while used_bytes(db) > LOW * limit and (batch := _oldest(db, _BATCH)):
            prune(db, batch)
            by_size += len(batch)
        if by_size:
            log.info(
                "store: pruned the %d oldest logs to stay under %d MB (now %.1f MB in use)",
                by_size,
                limit >> 20,
                used_bytes(db) / (1 << 20),
            )
        pruned += by_size
    return pruned
