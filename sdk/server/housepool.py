"""The worker threads house bots decide in: off the event loop, at a lower OS priority,
and paced so that they cannot take the interpreter from the connections.

House bots' decisions are CPU work in Python: in a thread they still hold the
interpreter's lock, and each time the event loop lets go of it (every socket call) a
busy house thread takes it for up to a switch interval. So the pool rests: after a
decision that took ``t`` seconds of the worker's CPU, that worker waits
``t * (1 / share - 1)`` before starting the next one, so house bots think at most
``share`` of the time (``house_share``; 1 means no rest). Results are handed back at
once; only the next decision waits. On Linux each worker thread also lowers its own
scheduling priority (``nice``), so on a busy machine the connections' thread runs first.

>>> pool = HousePool(workers=1, share=0.5)
>>> pool.submit(sum, (1, 2, 3)).result()
6
>>> pool.shutdown()
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["HousePool"]

T = TypeVar("T")

WORKER_NICE = 10
"""How much lower than the server the house threads are scheduled (Linux ``nice``)."""


class HousePool(concurrent.futures.Executor):
    """A thread pool whose workers rest in proportion to the CPU they use (see the
    module doc)."""

    def __init__(self, workers: int, share: float) -> None:
        if not 0 < share <= 1:
            raise ValueError(f"house_share is in (0, 1], not {share}")
        self.share = share
        self._rest = threading.local()
        self._pool = concurrent.futures.ThreadPoolExecutor(
            workers, thread_name_prefix="house-bot", initializer=_lower_priority
        )

    def submit(  # type: ignore[override]
        self, fn: Callable[..., T], /, *args: Any, **kwargs: Any
    ) -> concurrent.futures.Future[T]:
        """Run ``fn(*args, **kwargs)`` in a worker (after that worker's rest)."""
        return self._pool.submit(self._paced, fn, *args, **kwargs)

    def _paced(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        wait = getattr(self._rest, "until", 0.0) - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        start = time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            used = time.thread_time() - start
            self._rest.until = time.monotonic() + used * (1 / self.share - 1)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop taking work (as :meth:`concurrent.futures.Executor.shutdown`)."""
        self._pool.shutdown(wait=wait, cancel_futures=cancel_futures)


def _lower_priority() -> None:
    """Lower this worker thread's scheduling priority (Linux: per thread)."""
    if sys.platform == "linux":
        with contextlib.suppress(OSError):
            tid = threading.get_native_id()
            os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + WORKER_NICE)
