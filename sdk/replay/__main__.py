"""``python -m sdk.replay RECORD|URL [--seat N] [--hand H] [--print] [--step K]``

Replays a game record (``docs/RECORDS.md``) in the terminal. On a terminal it steps
through a hand with the keyboard (arrows or ``n``/``p``: event by event, ``d``/``D``:
decision by decision, ``]``/``[``: hand by hand, ``q``: quit); otherwise, or with
``--print``, it prints the hands: every event, every decision with its options, time and
outcome, the table at the end of the hand and the tai items of each win. ``--step K``
prints the table after K events. ``--seat N`` shows what seat N saw (its own decisions
only); ``--chinese`` writes tiles as 五萬, 中...; ``--html OUT`` writes the browser
viewer instead (:mod:`sdk.replay.html`).

RECORD is a file (from ``--save-log``, ``--save-logs`` or the server) or a server URL
(``http://HOST:PORT/v1/matches/ID`` or its ``/log.jsonl``), or a line-protocol
transcript (``--save-transcript``), shown as its seat saw the game
(:mod:`sdk.records.transcript`). Exit status: 0, 1 bad data
(truncated, corrupt, another format version, server unreachable), 2 usage (bad
arguments, no such file, a URL the server does not know).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar

from rich.console import Console, Group
from rich.text import Text

from protocol.cli import Parser
from protocol.events import Event, project
from sdk.records import Record
from sdk.replay.source import (
    EXIT_USAGE,
    ReplayInputError,
    add_width_option,
    load_record,
    refused_seat,
)
from sdk.replay.stepper import Stepper
from sdk.replay.text import decision_lines, describe, table_at, win_table


def parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="python -m sdk.replay",
        description="Replay a game record in the terminal (keyboard stepping or printed).",
        exit_codes="exit codes: 0 done; 1 bad data (a truncated or corrupt record, another "
        "format version, a server that cannot be reached); 2 usage (bad arguments, no such "
        "file, a URL the server does not know)",
    )
    p.add_argument("record", metavar="RECORD|URL", help="a record file or a server match URL")
    p.add_argument("--seat", type=int, choices=range(4), help="show what this seat saw")
    p.add_argument("--hand", type=int, help="only this hand (from 0)")
    p.add_argument("--print", action="store_true", dest="print_mode", help="print, do not step")
    p.add_argument("--step", type=int, help="print the table after this many events")
    p.add_argument("--chinese", action="store_true", help="tiles in Chinese characters")
    add_width_option(p)
    p.add_argument(
        "--html", type=Path, metavar="OUT",
        help="write the browser viewer (one self-contained page) instead",
    )  # fmt: skip
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        record = load_record(args.record)
    except ReplayInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    refused = refused_seat(record, args.seat)
    if refused is not None:
        print(f"error: {refused}", file=sys.stderr)
        return EXIT_USAGE
    if record.perspective is not None:  # a transcript: one seat's side only
        args.seat = record.perspective
    hands = sum(1 for e in record.events if e.type == "hand_start")
    if args.hand is not None and not 0 <= args.hand < hands:
        print(f"error: --hand {args.hand}: the record has hands 0..{hands - 1}", file=sys.stderr)
        return EXIT_USAGE
    if args.step is not None and not 0 <= args.step < record.steps:
        print(
            f"error: --step {args.step}: the record has steps 0..{record.steps - 1}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if args.html is not None:
        return _write_html(record, args.html, args.seat)
    console = Console(width=args.width, highlight=False)
    if args.step is not None:
        console.print(table_at(record, args.step, seat=args.seat, chinese=args.chinese))
        return 0
    if args.print_mode or not (sys.stdin.isatty() and sys.stdout.isatty()):
        selected = range(hands) if args.hand is None else [args.hand]
        for hand in selected:
            print_hand(console, record, hand, seat=args.seat, chinese=args.chinese)
        return 0
    return _interactive(console, record, args.hand or 0, args.seat, args.chinese)


def _write_html(record: Record, out: Path, seat: int | None) -> int:
    from sdk.replay.html import render_html

    try:
        out.write_text(render_html(record, seat=seat), encoding="utf-8")
    except OSError as exc:
        print(f"error: cannot write {out}: {exc.strerror}", file=sys.stderr)
        return EXIT_USAGE
    print(f"wrote {out}: open it in a browser (it works offline)", file=sys.stderr)
    return 0


def _names(record: Record) -> list[str]:
    return [s.name for s in record.header.seats]


def _seen(event: Event, seat: int | None) -> Event | None:
    return event if seat is None else project(event, seat)


def print_hand(
    console: Console, record: Record, hand: int, *, seat: int | None = None, chinese: bool = False
) -> None:
    """Print one hand: events and decisions in order, the final table, the result."""
    names = _names(record)
    span = record.hand_steps(hand)
    asked: dict[int, list[str]] = {}
    for d in record.decisions:
        if d.after_event in span and (seat is None or d.seat == seat):
            asked.setdefault(d.after_event, []).extend(decision_lines(d, names))
    for i in span:
        for line in asked.get(i, ()):
            console.print(Text(line if line.startswith(" ") else f"  > {line}", style="cyan"))
        seen = _seen(record.events[i], seat)
        if seen is not None:
            console.print(f"{i:5d}  {describe(seen, names)}", markup=False)
    console.print(table_at(record, span.stop, seat=seat, chinese=chinese))
    for h in record.hands:
        if h.hand == hand:
            console.print(win_table(h, names))
    console.print()


def _screen(stepper: Stepper, record: Record, seat: int | None, chinese: bool) -> Group:
    names = _names(record)
    step = stepper.step
    recent = [
        describe(seen, names)
        for seen in (_seen(e, seat) for e in record.events[max(stepper.first - 1, step - 6) : step])
        if seen is not None
    ]
    parts: list[Any] = [table_at(record, step, seat=seat, chinese=chinese)]
    parts.append(Text("\n".join(recent), style="dim"))
    for d in record.decisions_at(step):
        if seat is None or d.seat == seat:
            parts.append(Text("\n".join(decision_lines(d, names)), style="cyan"))
    if step == stepper.last:
        parts += [win_table(h, names) for h in record.hands if h.hand == stepper.hand]
    parts.append(Text("→/n next  ←/p back  d/D decision  ]/[ hand  home/end  q quit", style="dim"))
    return Group(*parts)


def _interactive(
    console: Console, record: Record, hand: int, seat: int | None, chinese: bool
) -> int:
    stepper = Stepper(record, hand=hand, seat=seat)
    with _raw_keys() as read_key:
        while True:
            console.clear()
            console.print(_screen(stepper, record, seat, chinese))
            if not stepper.press(read_key()):
                return 0


class _raw_keys:
    """Read single key presses from a POSIX terminal (arrows as names)."""

    _SEQUENCES: ClassVar[dict[str, str]] = {
        "[C": "right",
        "[D": "left",
        "[H": "home",
        "[F": "end",
        "OH": "home",
        "OF": "end",
    }

    def __enter__(self) -> Callable[[], str]:
        import termios
        import tty

        self._fd = sys.stdin.fileno()
        self._saved = termios.tcgetattr(self._fd)
        tty.setcbreak(self._fd)
        return self._read

    def __exit__(self, *exc: object) -> None:
        import termios

        termios.tcsetattr(self._fd, termios.TCSADRAIN, self._saved)

    def _read(self) -> str:
        ch = sys.stdin.read(1)
        if ch == "\x1b":
            seq = sys.stdin.read(2)
            return self._SEQUENCES.get(seq, "escape")
        return {"\r": "enter", "\n": "enter", "\x7f": "backspace", "": "q"}.get(ch, ch)


if __name__ == "__main__":
    sys.exit(main())
