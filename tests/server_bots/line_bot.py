"""A line-protocol program for the server tests, like a tournament client.

    python tests/server_bots/line_bot.py --bot bots.random --seed 7          # stdin/stdout
    python tests/server_bots/line_bot.py --bot bots.random --tcp 127.0.0.1:9999

It reads the referee's lines, rebuilds the seat's view with
:class:`~protocol.line.adapter.LineClientAdapter` and answers each decision with the
bot's choice. ``--mode silent`` never answers an ``/ask``; ``--mode garbage`` answers
every ``/ask`` with a line that is not the protocol.
"""

from __future__ import annotations

import argparse
import socket
import sys
import time
from collections.abc import Callable, Iterator

from protocol.line.adapter import LineClientAdapter
from protocol.wire.common import ActionRequest, SessionEnd
from sdk.arena.loader import load_bot
from sdk.bot import Bot, DecisionRequest
from sdk.view import GameView


def _lines_tcp(address: str) -> tuple[Iterator[str], Callable[[str], None]]:
    host, _, port = address.rpartition(":")
    sock = socket.create_connection((host, int(port)))
    reader = sock.makefile("r", encoding="ascii", newline="\n")

    def write(line: str) -> None:
        sock.sendall((line + "\n").encode("ascii"))

    return iter(reader), write


def _lines_stdio() -> tuple[Iterator[str], Callable[[str], None]]:
    def write(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    return iter(sys.stdin), write


def play(bot: Bot, lines: Iterator[str], write: Callable[[str], None], mode: str) -> None:
    """Answer the referee until ``/exit``."""
    adapter = LineClientAdapter()
    for raw in lines:
        for item in adapter.receive_line(raw.rstrip("\r\n")):
            if isinstance(item, SessionEnd):
                return
            if isinstance(item, ActionRequest):
                _answer(bot, adapter, item, write, mode)
        for line in adapter.lines_to_send():
            write(line)


def _answer(
    bot: Bot,
    adapter: LineClientAdapter,
    request: ActionRequest,
    write: Callable[[str], None],
    mode: str,
) -> None:
    if mode == "silent":
        adapter.send_action(request.default)  # keep the adapter in step; send nothing
        return
    if mode == "garbage":
        adapter.send_action(request.default)
        write("/dance 42")
        return
    assert adapter.view is not None
    drawn = request.drawn_tile
    decision = DecisionRequest(request.legal, time.monotonic() + 2.5, request.request_id, drawn)
    write(adapter.send_action(bot.choose(GameView(adapter.view), decision)))  # type: ignore[arg-type]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bot", default="bots.random")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tcp", default=None, help="HOST:PORT to connect to")
    parser.add_argument("--mode", choices=["play", "silent", "garbage"], default="play")
    args = parser.parse_args()
    bot = load_bot(args.bot).make(args.seed)
    lines, write = _lines_tcp(args.tcp) if args.tcp else _lines_stdio()
    play(bot, lines, write, args.mode)


if __name__ == "__main__":
    main()
