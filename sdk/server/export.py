"""``python -m sdk.server.export``: write finished matches' records to files, and with
``--prune`` drop their logs from the server's database.

    python -m sdk.server.export league.db records/ --older-than-days 30 --prune

Each record is written as ``OUT/<match id>.jsonl``, the same bytes the server serves at
``/v1/matches/<match id>/log.jsonl`` (``docs/RECORDS.md``; ``python -m sdk.replay``
reads it), to a temporary name first, then renamed, so a file that exists is whole. A
log is pruned only once its file is written; the match's row (seats, scores) stays, so
the tables list and the leaderboard do not change. It may run while the server runs
(SQLite lets the two take turns); matches still running are left alone.

Exit codes: 0 done, 1 failure (a file that cannot be written), 2 usage error.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path

from protocol.cli import EXIT_USAGE, CommandError, Parser, run_command
from sdk.records.writer import encode_record
from sdk.server.recordlog import record_of
from sdk.server.retention import prune, used_bytes
from sdk.server.store import prepare, read_match

__all__ = ["export_records", "main"]

_BATCH = 32
"""Records written before their logs are pruned in one transaction."""


def parser() -> argparse.ArgumentParser:
    """The command line's options."""
    p = Parser(
        prog="python -m sdk.server.export",
        description=__doc__.split("\n")[0].strip("`"),
        exit_codes="exit codes: 0 done, 1 failure (a file that cannot be written), 2 usage",
    )
    p.add_argument("db", help="the server's SQLite file (--db of python -m sdk.server)")
    p.add_argument("out", help="folder for the records (made if missing)")
    p.add_argument(
        "--older-than-days",
        type=float,
        default=0.0,
        metavar="D",
        help="only matches that ended more than D days ago (default: every ended match)",
    )
    p.add_argument("--prune", action="store_true", help="drop each exported log from the database")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns its exit code."""
    return run_command(_main, argv)


def _main(argv: Sequence[str] | None) -> int:
    args = parser().parse_args(argv)
    if not args.older_than_days >= 0:
        raise CommandError("--older-than-days must be 0 or more", EXIT_USAGE)
    if not Path(args.db).is_file():
        raise CommandError(f"no database {args.db!r}: give the server's --db file", EXIT_USAGE)
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CommandError(f"cannot make {str(out)!r}: {exc.strerror or exc}") from None
    try:
        db = sqlite3.connect(args.db, isolation_level=None)
        db.execute("PRAGMA busy_timeout=10000")
        prepare(db)
    except sqlite3.Error as exc:
        raise CommandError(f"cannot open {args.db!r} as a database: {exc}", EXIT_USAGE) from None
    with contextlib.closing(db):
        before = used_bytes(db)
        count, size = export_records(db, out, args.older_than_days, args.prune)
        freed = before - used_bytes(db)
    line = f"exported {count} records to {out} ({size / 1e6:.1f} MB)"
    if args.prune:
        line += f"; their logs pruned from {args.db} ({freed / 1e6:.1f} MB freed)"
    print(line)
    return 0


def _ended(db: sqlite3.Connection, older_than_days: float) -> list[str]:
    """Matches that ended (finished or aborted) and still have their log, oldest first."""
    sql = (
        "SELECT match_id FROM matches WHERE status IN ('finished','aborted') AND log='kept'"
        " AND coalesce(finished_at, created_at) < ? ORDER BY serial"
    )
    cutoff = time.time() - older_than_days * 86400
    return [m for (m,) in db.execute(sql, (cutoff,))]


def export_records(
    db: sqlite3.Connection, out: Path, older_than_days: float = 0.0, prune_logs: bool = False
) -> tuple[int, int]:
    """Write the records of the matches that ended more than ``older_than_days`` ago to
    ``out``, pruning each log after its file is written if ``prune_logs``; returns how
    many records, and their bytes. Raises :class:`CommandError` if a file cannot be
    written (the logs of the records already written are pruned)."""
    count = size = 0
    written: list[str] = []
    for match_id in _ended(db, older_than_days):
        stored = read_match(db, match_id)
        if stored is None:
            continue
        data = encode_record(record_of(stored)).encode()
        try:
            _write(out / f"{match_id}.jsonl", data)
        except OSError as exc:
            if prune_logs and written:
                prune(db, written)
            raise CommandError(
                f"cannot write the record of {match_id} in {out}: {exc.strerror or exc}"
                f" ({count} written before it)"
            ) from None
        count, size = count + 1, size + len(data)
        written.append(match_id)
        if prune_logs and len(written) >= _BATCH:
            prune(db, written)
            written = []
    if prune_logs:
        if written:
            prune(db, written)
        db.executescript("PRAGMA incremental_vacuum;")  # (execute frees one page)
    return count, size


def _write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all (a temporary file, synced, renamed)."""
    part = path.with_name(path.name + ".part")
    try:
        with part.open("wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        part.replace(path)
    except OSError:
        with contextlib.suppress(OSError):
            part.unlink()
        raise


if __name__ == "__main__":
    raise SystemExit(main())
