"""The command line: ``python -m sdk.arena BOT BOT BOT BOT [options]``.

Prints the tables, writes ``arena.json`` and ``arena.md`` to ``--out``, and with
``--save-logs DIR`` one game record per match (``docs/RECORDS.md``; ``--save-logs-every
N`` keeps every N-th deal only; ``--log`` is ``--save-logs OUT/records``). Exit status:
0 when every deal was played, 130 after Ctrl-C (the
report of the deals played is still printed and written, marked partial), 2 on a bad
argument or a bot that cannot be loaded (one line, :mod:`protocol.cli`), 1 when Ray is
asked for but not installed.

>>> args = parser().parse_args(["a", "b", "c", "d", "--duplicate", "--hands", "64"])
>>> args.bots, args.duplicate, args.hands, args.backend
(['a', 'b', 'c', 'd'], True, 64, 'process')
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from protocol.cli import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    CommandError,
    Parser,
    run_command,
)
from sdk.arena.api import run_arena
from sdk.arena.loader import BotLoadError
from sdk.arena.program_options import (
    add_program_options,
    default_workers,
    program_problems,
    settings_from,
    workers_warning,
)
from sdk.arena.report import print_report, write_report
from sdk.arena.runner import BACKENDS, RayMissingError
from sdk.budget import DEFAULT_BUDGET, Budget
from sdk.programs import is_program

__all__ = ["main", "parser"]


def parser() -> argparse.ArgumentParser:
    """The command line's options."""
    p = Parser(
        prog="python -m sdk.arena",
        description="Play many hands of four bots in-process and compare them honestly.",
        exit_codes="exit codes: 0 every deal played, 1 failure (Ray missing), 2 usage error "
        "or a bot that cannot be loaded, 130 interrupted (the partial report is written)",
    )
    p.add_argument(
        "bots",
        nargs="*",
        metavar="BOT",
        help="four bots: a house bot (greedy), a module (mybot), module:Class, "
        "a file (./mybot.py, ./mybot.py:MyBot), or a line-protocol program "
        "('cmd:./prog ARGS', 'tcp:./prog {host} {port}')",
    )
    p.add_argument("--hands", type=int, default=1024, help="table hands to play at least")
    p.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    p.add_argument("--duplicate", action="store_true", help="replay each deal in 4 rotations")
    p.add_argument("--all-seatings", action="store_true", help="replay in all 24 seatings")
    p.add_argument("--match-hands", type=int, default=16, help="hands per match (R16: 16)")
    p.add_argument("--workers", type=int, default=None, help="worker processes (default: cores)")
    p.add_argument("--backend", choices=BACKENDS, default="process")
    p.add_argument("--address", default=None, help="Ray cluster address (with --backend ray)")
    p.add_argument("--out", type=Path, default=None, help="directory for arena.json, arena.md")
    p.add_argument(
        "--log", action="store_true",
        help="write every match's game record into OUT/records (= --save-logs OUT/records)",
    )  # fmt: skip
    p.add_argument(
        "--save-logs", type=Path, default=None, metavar="DIR",
        help="write the game record of every match there (docs/RECORDS.md)",
    )  # fmt: skip
    p.add_argument(
        "--save-logs-every", type=int, default=1, metavar="N",
        help="with --save-logs: only every N-th deal's matches (a sample; default 1: all)",
    )  # fmt: skip
    p.add_argument("--decision-seconds", type=float, default=DEFAULT_BUDGET.decision)
    p.add_argument("--safety-margin", type=float, default=DEFAULT_BUDGET.safety_margin)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_program_options(p)
    return p


SEATS = 4
"""How many bots a table takes."""

RECORDS_DIR = "records"
"""Where ``--log`` writes the game records, under ``--out``."""


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit code."""
    return run_command(_main, argv)


def _main(argv: Sequence[str] | None) -> int:
    p = parser()
    args = p.parse_args(argv)
    if len(args.bots) != SEATS:
        p.error(f"needs {SEATS} bots, one a seat (the same one may be given more than once), "
                f"got {len(args.bots)}")  # fmt: skip
    err = Console(stderr=True)
    if args.log:
        if args.out is None:
            p.error("--log needs --out DIR (it writes the game records into OUT/records)")
        if args.save_logs is not None:
            p.error("--log is --save-logs OUT/records: give one of them")
        args.save_logs = args.out / RECORDS_DIR
    for option in ("hands", "match_hands", "workers", "save_logs_every"):
        value = getattr(args, option)
        if value is not None and value < 1:
            p.error(f"--{option.replace('_', '-')} must be at least 1, not {value}")
    if not args.decision_seconds > 0:
        p.error(f"--decision-seconds must be positive, not {args.decision_seconds}")
    if not 0 <= args.safety_margin < args.decision_seconds:
        p.error(
            f"--safety-margin must be at least 0 and less than --decision-seconds "
            f"({args.decision_seconds}), not {args.safety_margin}"
        )
    if args.save_logs is not None:  # refused before the run, not after its first deal
        try:
            args.save_logs.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            p.error(f"--save-logs {args.save_logs}: {exc.strerror or exc}")
    problem = program_problems(args)
    if problem:
        p.error(problem)
    workers = _program_workers(args)
    try:
        result = run_arena(
            args.bots,
            hands=args.hands,
            seed=args.seed,
            duplicate=args.duplicate,
            all_seatings=args.all_seatings,
            match_hands=args.match_hands,
            backend=args.backend,
            workers=workers,
            address=args.address,
            budget=Budget(args.decision_seconds, args.safety_margin),
            save_logs=args.save_logs,
            save_logs_every=args.save_logs_every,
            progress=False if args.quiet else None,
            programs=settings_from(args, args.out),
            program_cwd=args.program_cwd,
        )
    except (BotLoadError, ValueError) as exc:
        raise CommandError(str(exc), EXIT_USAGE) from None
    except RayMissingError as exc:
        raise CommandError(str(exc), EXIT_FAILED) from None
    except OSError as exc:
        raise CommandError(f"cannot write {exc.filename}: {exc.strerror}", EXIT_FAILED) from None
    print_report(result)
    if args.save_logs is not None:
        count = len(list(args.save_logs.glob("*.jsonl")))
        print(
            f"records: {count} game records in {args.save_logs} (match id = file name); "
            "replay one with: python -m sdk.replay FILE",
            file=sys.stderr,
        )
    if args.out is not None:
        for path in write_report(result, args.out):
            err.print(f"wrote {path}")
    return EXIT_INTERRUPTED if result.partial else 0


def _program_workers(args: argparse.Namespace) -> int | None:
    """The worker count when programs play (sized by --program-cores), with a warning
    when the machine is oversubscribed for the clock; else ``--workers`` as given."""
    if not any(is_program(b) for b in args.bots):
        return args.workers
    workers = 1 if args.backend == "local" else default_workers(args)
    warning = workers_warning(args, args.bots, workers)
    if warning:
        print(warning, file=sys.stderr)
    return workers


if __name__ == "__main__":
    sys.exit(main())
