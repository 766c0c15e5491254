"""Stopping a run cleanly on Ctrl-C: the first SIGINT asks, the second insists.

While a :class:`StopOnSigint` is active, the first Ctrl-C only sets :attr:`requested`
(the runner then stops starting deals, keeps every finished one and reports partial
results); the handler is then restored, so a second Ctrl-C raises
:class:`KeyboardInterrupt` at once for a run stuck in a slow deal. Off the main thread
(where Python cannot install handlers) it does nothing.

>>> import signal
>>> with StopOnSigint() as stop:
...     signal.raise_signal(signal.SIGINT)
...     stop.requested
True
"""

from __future__ import annotations

import signal
import threading
from types import FrameType, TracebackType
from typing import Any

__all__ = ["StopOnSigint"]


class StopOnSigint:
    """A context manager turning the first SIGINT into a stop request."""

    def __init__(self) -> None:
        self.requested = False
        self._previous: Any = None
        self._installed = False

    def __enter__(self) -> StopOnSigint:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
            self._installed = True
        return self

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.requested = True
        signal.signal(signal.SIGINT, self._previous)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, self._previous)
