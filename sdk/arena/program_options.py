"""The arena's and the league's options for line-protocol programs, in one place.

``--program-cores N`` says how many cores one program uses (a multi-threaded search):
the default worker count is then the machine's cores divided by it, and a run that asks
for more tables at once than the machine can serve under the clock is warned about.
``--program-cwd DIR`` runs every program there, ``--program-logs DIR`` keeps their
standard error (one file per match and seat, capped by ``--program-stderr-bytes``),
``--startup-seconds`` is the start-up budget (R17) and ``--hung-after N`` stops a
program that lets N decisions in a row pass without a word.

>>> import argparse
>>> p = argparse.ArgumentParser(); add_program_options(p)
>>> args = p.parse_args(["--program-cores", "4"])
>>> settings_from(args).cores, default_workers(args, cpus=8)
(4, 2)
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

from sdk.arena.program_settings import ProgramSettings, cores_warning
from sdk.programs import is_program

PROGRAM_LOGS = "program-logs"
"""The folder of the programs' standard error under ``--out``."""

__all__ = [
    "add_program_options",
    "default_workers",
    "program_problems",
    "settings_from",
    "workers_warning",
]


def add_program_options(p: argparse.ArgumentParser) -> None:
    """Add the program options to a command line."""
    g = p.add_argument_group("programs (cmd:PROGRAM ARGS or tcp:PROGRAM ARGS {host} {port})")
    g.add_argument(
        "--program-cores",
        type=int,
        default=1,
        metavar="N",
        help="cores one program uses (default 1): sizes the default --workers",
    )
    g.add_argument(
        "--program-cwd",
        default=None,
        metavar="DIR",
        help="the working folder of every program (default: the current one)",
    )
    g.add_argument(
        "--program-logs",
        default=None,
        metavar="DIR",
        help="keep each program's standard error there, one file per match",
    )
    g.add_argument(
        "--program-stderr-bytes",
        type=int,
        default=1 << 16,
        metavar="N",
        help="bytes of standard error kept per program and match (default 65536)",
    )
    g.add_argument(
        "--startup-seconds",
        type=float,
        default=30.0,
        help="a program's start-up budget, R17 (default 30)",
    )
    g.add_argument("--hung-after", type=int, default=3, metavar="N",
                   help="stop a program silent for N decisions in a row (default 3)")  # fmt: skip


def program_problems(args: argparse.Namespace) -> str | None:
    """What is wrong with the program options, or ``None``."""
    for option in ("program_cores", "hung_after", "program_stderr_bytes"):
        if getattr(args, option) < 1:
            return f"--{option.replace('_', '-')} must be at least 1, not {getattr(args, option)}"
    if not args.startup_seconds > 0:
        return f"--startup-seconds must be positive, not {args.startup_seconds}"
    if args.program_cwd is not None and not os.path.isdir(args.program_cwd):
        return f"--program-cwd {args.program_cwd}: no such folder"
    return None


def settings_from(args: argparse.Namespace, out: Path | None = None) -> ProgramSettings:
    """The :class:`~sdk.arena.programs.ProgramSettings` the options ask for; standard
    error goes to ``--program-logs``, else ``out/program-logs`` (else a temporary one)."""
    logs = args.program_logs or (None if out is None else str(out / PROGRAM_LOGS))
    return ProgramSettings(
        startup_seconds=args.startup_seconds,
        hung_after=args.hung_after,
        stderr_dir=logs,
        stderr_bytes=args.program_stderr_bytes,
        cores=args.program_cores,
    )


def default_workers(args: argparse.Namespace, cpus: int | None = None) -> int:
    """``--workers`` if given, else the cores divided by the cores of one program."""
    if getattr(args, "workers", None):
        return int(args.workers)
    return max(1, (cpus or os.cpu_count() or 1) // args.program_cores)


def workers_warning(args: argparse.Namespace, specs: Sequence[str], workers: int) -> str | None:
    """The oversubscription warning for this run (:func:`cores_warning`), if any."""
    programs = sum(1 for s in specs if is_program(s))
    return cores_warning(workers, programs, args.program_cores, os.cpu_count())
