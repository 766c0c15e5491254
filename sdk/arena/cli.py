"""The command line: ``python -m sdk.arena BOT BOT BOT BOT [options]``.

Prints the tables, writes ``arena.json`` and ``arena.md`` (and ``games.jsonl`` with
``--log``) to ``--out``, and with ``--save-logs DIR`` one game record per match
(``docs/RECORDS.md``; ``--save-logs-every N`` keeps every N-th deal only). Exit status: 0 when every deal was played, 130 after Ctrl-C (the
report of the deals played is still printed and written, marked partial), 2 on a bad
argument or a bot that cannot be loaded.

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

from sdk.arena.api import run_arena
from sdk.arena.loader import BotLoadError
from sdk.arena.report import print_report, write_report
from sdk.arena.runner import BACKENDS, RayMissingError
from sdk.budget import DEFAULT_BUDGET, Budget

__all__ = ["main", "parser"]

EXIT_INTERRUPTED = 130


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m sdk.arena",
        description="Play many hands of four bots in-process and compare them honestly.",
    )
    p.add_argument("bots", nargs=4, metavar="BOT", help="pkg.mod or pkg.mod:Name, four times")
    p.add_argument("--hands", type=int, default=1024, help="table hands to play at least")
    p.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    p.add_argument("--duplicate", action="store_true", help="replay each deal in 4 rotations")
    p.add_argument("--all-seatings", action="store_true", help="replay in all 24 seatings")
    p.add_argument("--match-hands", type=int, default=16, help="hands per match (R16: 16)")
    p.add_argument("--workers", type=int, default=None, help="worker processes (default: cores)")
    p.add_argument("--backend", choices=BACKENDS, default="process")
    p.add_argument("--address", default=None, help="Ray cluster address (with --backend ray)")
    p.add_argument("--out", type=Path, default=None, help="directory for arena.json, arena.md")
    p.add_argument("--log", action="store_true", help="also write OUT/games.jsonl (events)")
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
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    err = Console(stderr=True)
    if args.log and args.out is None:
        err.print("--log needs --out DIR")
        return 2
    try:
        result = run_arena(
            args.bots,
            hands=args.hands,
            seed=args.seed,
            duplicate=args.duplicate,
            all_seatings=args.all_seatings,
            match_hands=args.match_hands,
            backend=args.backend,
            workers=args.workers,
            address=args.address,
            budget=Budget(args.decision_seconds, args.safety_margin),
            log=args.out / "games.jsonl" if args.log else None,
            save_logs=args.save_logs,
            save_logs_every=args.save_logs_every,
            progress=False if args.quiet else None,
        )
    except (BotLoadError, RayMissingError, ValueError) as exc:
        err.print(f"error: {exc}", markup=False, highlight=False)
        return 2
    except OSError as exc:
        err.print(
            f"error: cannot write {exc.filename}: {exc.strerror}", markup=False, highlight=False
        )
        return 1
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


if __name__ == "__main__":
    sys.exit(main())
