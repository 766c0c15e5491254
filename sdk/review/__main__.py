"""``python -m sdk.review RECORD|URL --seat N --bot MODULE [--reference MODULE] [--html OUT]``

Replays a game record (or a line-protocol transcript, ``--save-transcript``: its seat's
side) and, at each decision of seat N, shows what the bot MODULE (and
``bots.greedy`` as a reference) would have answered, the shanten and waits before and
after the decision played, the unseen tiles (``--unseen``), and the decisions that cost
the most, each explained: the table as the seat saw it, the candidates with the
reference's values (its ``explain`` method, when it has one), the outcome and the
replay command that opens it (``--all``: every decision explained). ``--html OUT`` also
writes the review as one HTML page whose decisions link into the viewer: the server's
page for a URL, else a viewer page written beside OUT (``--viewer`` names another).
Hands are numbered from 1 and steps within the hand, as ``sdk.replay --hand H --step S``
and the viewer's ``#hand=H&step=S`` take them. Exit status: 0, 1 bad data, 2 usage (bad
arguments, no such file, a URL the server does not know, a bot that cannot be loaded).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from protocol.cli import Parser, run_command
from sdk.arena.loader import BotLoadError
from sdk.replay.html import render_html
from sdk.replay.source import (
    EXIT_USAGE,
    ReplayInputError,
    add_width_option,
    is_url,
    load_record,
    record_url,
    refused_seat,
)
from sdk.replay.text import console_for
from sdk.review.report import print_review, review_html
from sdk.review.reviewer import REFERENCE, review_record


def parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="python -m sdk.review",
        description=__doc__.splitlines()[0],
        exit_codes="exit codes: 0 done; 1 bad data (a truncated or corrupt record, another "
        "format version, a server that cannot be reached); 2 usage (bad arguments, no such "
        "file, a URL the server does not know, a bot that cannot be loaded)",
    )
    p.add_argument("record", metavar="RECORD|URL", help="a record file or a server match URL")
    p.add_argument("--seat", type=int, required=True, choices=range(4), help="the seat to review")
    p.add_argument(
        "--bot",
        required=True,
        help="the bot to ask: a house name (greedy), pkg.mod, pkg.mod:Name, a file (./mybot.py) "
        "or a line-protocol program (cmd:./prog ARGS)",
    )
    p.add_argument(
        "--reference", default=REFERENCE, help="the reference bot (default: %(default)s)"
    )
    p.add_argument("--html", type=Path, metavar="OUT", help="also write the review as HTML")
    p.add_argument(
        "--viewer", metavar="URL",
        help="the viewer page the HTML links to (default: the server's for a URL record, "
        "else OUT's name with .viewer.html, written too)",
    )  # fmt: skip
    p.add_argument(
        "--all", action="store_true", help="explain every decision, not only the costliest"
    )
    p.add_argument("--unseen", action="store_true", help="list the unseen tiles at each decision")
    add_width_option(p)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        record = load_record(args.record)
        refused = refused_seat(record, args.seat)
        if refused is not None:
            print(f"error: {refused}", file=sys.stderr)
            return EXIT_USAGE
        review = review_record(record, args.seat, args.bot, args.reference)
    except ReplayInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BotLoadError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    console = console_for(args.width)
    print_review(review, console, unseen=args.unseen, source=args.record, every=args.all)
    if args.html is None:
        return 0
    viewer = args.viewer
    try:
        if viewer is None and is_url(args.record):
            viewer = record_url(args.record).removesuffix("/log.jsonl") + "/view"
        elif viewer is None:
            page = args.html.with_name(args.html.stem + ".viewer.html")
            page.write_text(render_html(record), encoding="utf-8")
            viewer = page.name
            print(f"wrote {page}", file=sys.stderr)
        args.html.write_text(review_html(review, viewer), encoding="utf-8")
    except OSError as exc:
        print(f"error: cannot write {exc.filename}: {exc.strerror}", file=sys.stderr)
        return EXIT_USAGE
    print(f"wrote {args.html}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
