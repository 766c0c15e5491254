"""The live progress bar of long runs: hands done, hands per second, running standings.

It draws on stderr only when stderr is a terminal and ``quiet`` is off, and refreshes
from the main thread as deals arrive (no refresh thread, so a process pool can fork
safely). Disabled, it does nothing:

>>> with ArenaProgress(total_hands=64, enabled=False) as bar:
...     bar.advance(16, [("A", 12.5), ("B", -12.5)])
>>> bar.done
16
>>> standings_text([("A", 12.5), ("B", -40.0), ("C", 30.0)])
'C +30.0  A +12.5  B -40.0'
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

__all__ = ["ArenaProgress", "standings_text"]

_MIN_REFRESH = 0.1  # seconds between redraws


def standings_text(standings: Sequence[tuple[str, float]]) -> str:
    """Bots by mean points per hand so far, best first."""
    ordered = sorted(standings, key=lambda s: -s[1])
    return "  ".join(f"{label} {points:+.1f}" for label, points in ordered)


class ArenaProgress:
    """A context manager around a rich progress bar counting table hands."""

    def __init__(
        self, total_hands: int, *, enabled: bool | None = None, console: Console | None = None
    ) -> None:
        self.console = console or Console(stderr=True)
        self.enabled = self.console.is_terminal if enabled is None else enabled
        self.total = total_hands
        self.done = 0
        self.start = time.monotonic()
        self._drawn = 0.0
        self._progress: Progress | None = None
        self._task: TaskID | None = None

    def __enter__(self) -> ArenaProgress:
        self.start = time.monotonic()
        if self.enabled:
            self._progress = Progress(
                BarColumn(bar_width=16),
                MofNCompleteColumn(),
                TextColumn("{task.fields[speed]}"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                TextColumn("{task.fields[standings]}"),
                console=self.console,
                auto_refresh=False,
            )
            self._progress.start()
            self._task = self._progress.add_task("arena", total=self.total, speed="", standings="")
        return self

    def advance(self, hands: int, standings: Sequence[tuple[str, float]]) -> None:
        """Count ``hands`` more table hands and show the standings so far."""
        self.done += hands
        if self._progress is None or self._task is None:
            return
        now = time.monotonic()
        speed = self.done / max(now - self.start, 1e-9)
        self._progress.update(
            self._task,
            completed=self.done,
            speed=f"{speed:.0f} hands/s",
            standings=standings_text(standings),
        )
        if now - self._drawn >= _MIN_REFRESH or self.done >= self.total:
            self._progress.refresh()
            self._drawn = now

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._progress is not None:
            self._progress.refresh()
            self._progress.stop()
            sys.stderr.flush()
