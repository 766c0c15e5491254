"""``python -m sdk.replay RECORD|URL [--seat N] [--hand H] [--print] [--step S]``

Replays a game record (``docs/RECORDS.md``) in the terminal. On a terminal it steps
through a hand with the keyboard (arrows or ``n``/``p``: event by event, down/up or
``d``/``D``: decision by decision, PageDown/PageUp or ``]``/``[``: hand by hand,
Home/End: the hand's first and last step, ``q``: quit; other keys and escape sequences
do nothing); otherwise, or with ``--print``, it prints the hands: every event numbered
within its hand, every decision with its options, time and outcome, the table at the end
of the hand and the tai items of each win, in full lines (``--width`` to wrap). Hands
count from 1 and steps within the hand (docs/RECORDS.md, "Numbering"): ``--hand H
--step S`` prints the table after hand H's event S, the place the reviewer and the
viewer's ``#hand=H&step=S`` name. ``--seat N`` shows what seat N saw (its own decisions
only); ``--chinese`` writes tiles as 五萬, 中...; ``--html OUT`` writes the browser viewer
instead (:mod:`sdk.replay.html`).

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
from typing import Any

from rich.console import Console, Group
from rich.text import Text

from protocol.cli import Parser, run_command
from protocol.events import Event, project
from sdk.records import Record
from sdk.replay.keys import read_keys
from sdk.replay.numbering import (
    hand_index,
    hand_label,
    hand_number,
    match_step,
    steps_in_hand,
)
from sdk.replay.source import (
    EXIT_USAGE,
    ReplayInputError,
    add_width_option,
    load_record,
    refused_seat,
)
from sdk.replay.stepper import KEY_HELP, Stepper
from sdk.replay.text import console_for, decision_lines, describe, table_at, win_table


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
    p.add_argument("--hand", type=int, metavar="H", help="only hand H (hands count from 1)")
    p.add_argument("--print", action="store_true", dest="print_mode", help="print, do not step")
    p.add_argument(
        "--step", type=int, metavar="S",
        help="print the table at step S of the hand (--hand, default 1): after its event S",
    )  # fmt: skip
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
    hand = None if args.hand is None else hand_index(args.hand)
    wrong = _out_of_range(record, hands, hand, args.step)
    if wrong is not None:
        print(f"error: {wrong}", file=sys.stderr)
        return EXIT_USAGE
    if args.html is not None:
        return _write_html(record, args.html, args.seat)
    console = console_for(args.width)
    if args.step is not None:
        step = match_step(record, hand or 0, args.step)
        console.print(table_at(record, step, seat=args.seat, chinese=args.chinese))
        return 0
    if args.print_mode or not (sys.stdin.isatty() and sys.stdout.isatty()):
        selected = range(hands) if hand is None else [hand]
        for one in selected:
            print_hand(console, record, one, seat=args.seat, chinese=args.chinese)
        return 0
    return _interactive(console, record, hand or 0, args.seat, args.chinese)


def _out_of_range(record: Record, hands: int, hand: int | None, step: int | None) -> str | None:
    """Why ``--hand`` (0-based here) or ``--step`` names nothing in ``record``, or None."""
    if hand is not None and not 0 <= hand < hands:
        return f"--hand {hand_number(hand)}: the record has hands 1..{hands}"
    if step is None:
        return None
    if hands == 0:
        return f"--step {step}: the record has no hand"
    last = steps_in_hand(record, hand or 0) - 1
    if not 0 <= step <= last:
        return f"--step {step}: {hand_label(hand or 0)} has steps 0..{last}"
    return None


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
            console.print(f"{i - span.start:5d}  {describe(seen, names)}", markup=False)
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
    parts.append(Text(KEY_HELP, style="dim"))
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
    """The terminal in cbreak mode for the time of the replay; yields key names
    (:mod:`sdk.replay.keys`)."""

    def __enter__(self) -> Callable[[], str]:
        import termios
        import tty

        self._fd = sys.stdin.fileno()
        self._saved = termios.tcgetattr(self._fd)
        tty.setcbreak(self._fd)
        keys = read_keys(self._fd)
        return lambda: next(keys, "q")

    def __exit__(self, *exc: object) -> None:
        import termios

        termios.tcsetattr(self._fd, termios.TCSADRAIN, self._saved)


if __name__ == "__main__":
    sys.exit(run_command(main))
