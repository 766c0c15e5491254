"""The league command: ``python -m sdk.arena.league ENTRY ENTRY ENTRY ENTRY ENTRY ... --out DIR``.

Entries are bot specs (a house bot, a module, a file) or line-protocol programs
(``cmd:./prog ARGS``, ``tcp:./prog {host} {port}``). Plays the balanced schedule
(:mod:`sdk.arena.league`) into ``DIR``, prints the standings and pairs, and writes
``DIR/league.html`` with a replay page per match (``DIR/viewer/``) and
``DIR/results.json``. Run again with the
same arguments, it plays only the tables still missing. Exit status: 0 when every table
is played, 130 after Ctrl-C (what was played is kept and reported), 2 on a bad argument,
an entry that cannot be loaded or a folder holding another league (one line).

>>> args = parser().parse_args(["a", "b", "c", "d", "e", "--out", "x", "--rounds", "2"])
>>> args.entries, args.rounds, args.match_hands
(['a', 'b', 'c', 'd', 'e'], 2, 16)
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table

from protocol.cli import EXIT_INTERRUPTED, EXIT_USAGE, CommandError, Parser, run_command
from sdk.arena.api import labels_for
from sdk.arena.league import RECORDS_DIR, League, LeagueMismatchError
from sdk.arena.league_report import (
    PAIR_HEADER,
    STANDING_HEADER,
    LeagueStandings,
    pair_rows,
    standing_rows,
    standings,
    to_json,
    write_html,
)
from sdk.arena.loader import BotLoadError, load_bot
from sdk.arena.program_options import (
    add_program_options,
    default_workers,
    program_problems,
    settings_from,
    workers_warning,
)
from sdk.budget import DEFAULT_BUDGET, Budget

__all__ = ["main", "parser"]

VIEWER_DIR = "viewer"
RESULTS_FILE = "results.json"


def parser() -> argparse.ArgumentParser:
    """The command line's options."""
    p = Parser(
        prog="python -m sdk.arena.league",
        description="A league of four or more entries (bots or programs in any language): "
        "a balanced schedule, duplicate seating, standings, ratings and a results page.",
        exit_codes="exit codes: 0 every table played, 2 usage error, an entry that cannot "
        "be loaded or a folder holding another league, 130 interrupted (resume by "
        "running the same command again)",
    )
    p.add_argument(
        "entries",
        nargs="+",
        metavar="ENTRY",
        help="four or more: a house bot (greedy), a module, a file (./mybot.py), "
        "or a program ('cmd:./prog ARGS', 'tcp:./prog {host} {port}')",
    )
    p.add_argument("--out", type=Path, required=True, help="the league's folder (resumable)")
    p.add_argument(
        "--rounds", type=int, default=1, help="times every group of four meets (default 1)"
    )
    p.add_argument("--seed", type=int, default=0, help="the league's seed (default 0)")
    p.add_argument("--match-hands", type=int, default=16, help="hands per match (R16: 16)")
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="tables at once (default: cores / --program-cores)",
    )
    p.add_argument("--decision-seconds", type=float, default=DEFAULT_BUDGET.decision)
    p.add_argument("--no-viewer", action="store_true", help="no replay page per match")
    add_program_options(p)  # fmt: skip
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit code."""
    return run_command(_main, argv)


def _main(argv: Sequence[str] | None) -> int:
    p = parser()
    args = p.parse_args(argv)
    if len(args.entries) < 4:
        p.error(f"a league needs at least four entries, got {len(args.entries)}")
    for option in ("rounds", "match_hands", "workers"):
        value = getattr(args, option)
        if value is not None and value < 1:
            p.error(f"--{option.replace('_', '-')} must be at least 1, not {value}")
    if not args.decision_seconds > 0:
        p.error(f"--decision-seconds must be positive, not {args.decision_seconds}")
    problem = program_problems(args)
    if problem:
        p.error(problem)
    try:
        factories = [load_bot(e, args.program_cwd) for e in args.entries]
    except BotLoadError as exc:
        raise CommandError(str(exc), EXIT_USAGE) from None
    decision = args.decision_seconds
    league = League(
        entries=tuple(factories),
        labels=tuple(labels_for(factories)),
        folder=args.out,
        rounds=args.rounds,
        seed=args.seed,
        match_hands=args.match_hands,
        budget=Budget(decision, min(DEFAULT_BUDGET.safety_margin, decision / 4)),
        programs=settings_from(args, args.out),
    )
    try:
        league.prepare()
    except LeagueMismatchError as exc:
        raise CommandError(str(exc), EXIT_USAGE) from None
    workers = default_workers(args)
    warning = workers_warning(args, args.entries, workers)
    if warning:
        print(warning, file=sys.stderr)
    todo, total = len(league.missing()), len(league.tables)
    err = Console(stderr=True)
    err.print(f"league: {total} tables, {total - todo} already played, {todo} to play")
    done = [total - todo]

    def on_table(table: int) -> None:
        done[0] += 1
        err.print(f"table {table + 1} played ({done[0]}/{total})")

    complete = league.run(workers, on_table)
    result = standings(league, league.results())
    _print(result)
    page = args.out / "league.html"
    if not args.no_viewer:
        _viewer_pages(args.out, result)
    write_html(result, page, VIEWER_DIR)
    (args.out / RESULTS_FILE).write_text(json.dumps(to_json(result), indent=1) + "\n")
    err.print(f"wrote {page} and {args.out / RESULTS_FILE}")
    return 0 if complete else EXIT_INTERRUPTED


def _print(s: LeagueStandings) -> None:
    console = Console()
    for title, header, rows in (
        ("Standings", STANDING_HEADER, standing_rows(s)),
        ("Pairs", PAIR_HEADER, pair_rows(s)),
    ):
        table = Table(title=title)
        for h in header:
            table.add_column(h)
        for row in rows:
            table.add_row(*row)
        console.print(table)
    if s.rating_note:
        console.print(s.rating_note)


def _viewer_pages(folder: Path, s: LeagueStandings) -> None:
    """A replay page per match whose record exists and has no page yet."""
    from sdk.records import read_record
    from sdk.replay.html import render_html

    pages = folder / VIEWER_DIR
    pages.mkdir(exist_ok=True)
    for _, match_id, _, _ in s.matches:
        page = pages / f"{match_id}.html"
        record = folder / RECORDS_DIR / f"{match_id}.jsonl"
        if record.exists() and not page.exists():
            page.write_text(render_html(read_record(record)), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
