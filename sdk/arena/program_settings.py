"""How line-protocol programs are run in the arena and leagues: the settings every
worker gets, the one outcome key they add, and a worker's preparation (its cores, and
stopping its programs when the pool is stopped). Light: the tables that play programs
(:mod:`sdk.arena.programs`, which needs the server's table) are imported only when a
program plays.

>>> ProgramSettings().startup_seconds, CRASHED
(30.0, 'crashed')
"""

from __future__ import annotations

import os
import signal
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "CRASHED",
    "ProgramSettings",
    "cores_warning",
    "pin_worker",
    "stop_programs_on_sigterm",
]

CRASHED = "crashed"
"""The outcome key counting matches in which a program ended before the match did (a
count of matches, not of decisions: the decisions after it are ``disconnected``)."""


@dataclass(frozen=True, slots=True)
class ProgramSettings:
    """How programs are run in an arena or a league (picklable: sent to the workers)."""

    startup_seconds: float = 30.0
    """The start-up budget (R17): from start to the answer to ``/ready``."""
    hung_after: int = 3
    """Decisions in a row without a word after which a program is stopped as hung."""
    stderr_dir: str | None = None
    """Where each program's standard error is kept, one file per match and seat."""
    stderr_bytes: int = 1 << 16
    """Bytes of standard error kept per program and match (the rest is dropped)."""
    cores: int = 1
    """Cores one program uses (a multi-threaded search): sizes the worker count."""
    grace: float = 1.0
    """Seconds a program has to exit after ``/exit`` before its group is killed."""

    def stderr_path(self, match_id: str, seat: int, name: str) -> Path:
        """The file of one program's standard error in one match."""
        folder = self.stderr_dir or os.path.join(tempfile.gettempdir(), "taimahjong-programs")
        return Path(folder) / f"{match_id}-seat{seat}-{name}.stderr"


def cores_warning(workers: int, programs: int, cores: int, cpus: int | None) -> str | None:
    """A warning when ``workers`` tables, each with programs of ``cores`` cores, ask more
    of the machine than its ``cpus`` (one program thinks at a time at a table, and the
    table itself needs a share): programs would lose decisions to the clock, not to
    their own play.

    >>> cores_warning(2, 4, 1, 2) is None, cores_warning(2, 1, 4, 4) is None
    (True, False)
    """
    if not programs or not cpus:
        return None
    need = workers * cores
    if need <= cpus:
        return None
    return (
        f"warning: {workers} tables at once with programs of {cores} core(s) need {need} cores, "
        f"this machine has {cpus}: programs may be starved into late defaults "
        f"(give --workers {max(1, cpus // cores)})"
    )


def stop_programs_on_sigterm() -> None:
    """In a pool worker: let SIGTERM (the pool stopped after Ctrl-C) unwind the running
    table, so that it stops its programs' process groups instead of leaving them
    running without a parent."""
    signal.signal(signal.SIGTERM, _exit_on_signal)


def _exit_on_signal(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def pin_worker(counter: Any, cores: int) -> None:
    """Give this pool worker ``cores`` CPUs of its own (Linux; a pool initializer), the
    next free ones by ``counter`` (a shared ``multiprocessing.Value``), so that the
    multi-threaded programs it starts (children inherit the set) do not compete with
    the next table's. Nothing is pinned for one-core programs, or when the machine has
    too few CPUs (the run was warned about: :func:`cores_warning`)."""
    if cores <= 1 or not hasattr(os, "sched_setaffinity"):
        return
    with counter.get_lock():
        index = counter.value
        counter.value += 1
    cpus = sorted(os.sched_getaffinity(0))
    start = index * cores
    if start + cores <= len(cpus):
        os.sched_setaffinity(0, cpus[start : start + cores])
