"""One progress bar for the training stages (rich, on standard error; off when it is not a
terminal or when asked)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

__all__ = ["bar"]


@contextlib.contextmanager
def bar(
    what: str, total: int, done: int = 0, show: bool | None = None
) -> Iterator[Callable[..., None]]:
    """Yields ``advance(n=1, note="")``: moves the bar of ``what`` (``total`` steps,
    ``done`` already) and shows ``note`` beside it."""
    show = sys.stderr.isatty() if show is None else show
    if not show:
        yield lambda n=1, note="": None
        return
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        TextColumn("{task.fields[note]}"),
    )
    with Progress(*columns, console=Console(stderr=True)) as progress:
        task = progress.add_task(what, total=total, completed=done, note="")

        def advance(n: int = 1, note: str = "") -> None:
            progress.update(task, advance=n, note=note)

        yield advance
