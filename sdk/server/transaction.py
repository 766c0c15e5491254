"""One SQLite transaction on an autocommit connection, for the store and its retention.

>>> import sqlite3
>>> db = sqlite3.connect(":memory:", isolation_level=None)
>>> with transaction(db):
...     _ = db.execute("CREATE TABLE t (x)")
>>> db.in_transaction
False
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator

__all__ = ["transaction"]


@contextlib.contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[None]:
    """``BEGIN``, then ``COMMIT``, or ``ROLLBACK`` on an error unless SQLite has already
    rolled back itself (it does on a full disk)."""
    db.execute("BEGIN")
    try:
        yield
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
