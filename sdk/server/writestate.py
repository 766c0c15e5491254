"""Whether the store can write: a full disk (or database size limit) is a state, not an
error per write.

When the disk fills, every write of every table fails the same way. :class:`WriteState`
turns that into one state: the first failure logs one line, later ones at most one line
a minute (with how many writes failed since), and the first write that succeeds again
logs that storing resumed. The server reads the state to refuse new tables and to
report it on ``/v1/health``.

>>> import logging, sqlite3
>>> state = WriteState(logging.getLogger("doctest"), clock=lambda: 0.0)
>>> full = sqlite3.OperationalError("database or disk is full")
>>> full.sqlite_errorcode = 13
>>> state.failed(full, "the disk is full"), state.failing
(True, 'the disk is full')
>>> state.failed(ValueError("a bug"), "?")  # not a storage failure: the caller logs it
False
>>> state.succeeded(); state.failing is None
True
"""

from __future__ import annotations

import errno
import logging
import sqlite3
import time
from collections.abc import Callable

__all__ = ["WriteState", "is_storage_failure"]

LOG_EVERY = 60.0
"""Seconds between log lines while writes keep failing."""
_SQLITE_CODES = {8, 10, 13, 14}
"""SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN (the primary codes)."""
_OS_CODES = {errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EROFS}


def is_storage_failure(exc: BaseException) -> bool:
    """Whether ``exc`` says the database cannot be written (full, read-only, I/O error),
    rather than a fault in the code.

    >>> is_storage_failure(OSError(28, "No space left on device"))
    True
    """
    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)
        if code is not None:
            return code & 0xFF in _SQLITE_CODES
        text = str(exc).lower()
        return "disk is full" in text or "disk i/o error" in text or "readonly" in text
    return isinstance(exc, OSError) and exc.errno in _OS_CODES


class WriteState:
    """The store's ability to write (see the module doc). Used from the store's thread;
    :attr:`failing` may be read from any thread."""

    def __init__(
        self,
        logger: logging.Logger,
        every: float = LOG_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.log, self.every, self.clock = logger, every, clock
        self.failing: str | None = None
        """Why writes fail now (``None``: they do not)."""
        self.since: float | None = None
        self.lost = 0
        """Writes that failed since the state began."""
        self._logged_at = 0.0
        self._unlogged = 0

    def failed(self, exc: BaseException, reason: str) -> bool:
        """A write failed with ``exc``: if it is a storage failure, enter (or stay in) the
        failing state with ``reason`` and return ``True``; else return ``False``."""
        if not is_storage_failure(exc):
            return False
        now = self.clock()
        self.lost += 1
        if self.failing is None:
            self.failing, self.since, self._logged_at, self._unlogged = reason, now, now, 0
            self.log.error(
                "store: cannot write (%s: %s); new tables are refused, running matches "
                "finish with an incomplete record; retrying",
                reason,
                exc,
            )
            return True
        self.failing = reason
        self._unlogged += 1
        if now - self._logged_at >= self.every:
            self.log.error(
                "store: still cannot write (%s); %d more writes failed", reason, self._unlogged
            )
            self._logged_at, self._unlogged = now, 0
        return True

    def succeeded(self) -> None:
        """A write went through: leave the failing state (one line) if in it."""
        if self.failing is None:
            return
        seconds = self.clock() - (self.since or 0.0)
        self.log.warning(
            "store: writing again after %.0f s (%d writes failed meanwhile)", seconds, self.lost
        )
        self.failing, self.since, self.lost = None, None, 0
