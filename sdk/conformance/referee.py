"""Check a referee: play one of our bots against it and check every line it sends.

The bot plays through :class:`~protocol.line.conformance.RefereeChecker`, whose
adapter rebuilds the seat's view from the lines with the rules model: a line that does
not parse, or does not fit the model (a tile the seat does not hold, a fifth copy, an
``/ask`` nothing legal answers), is reported with the line, and play goes on. Over TCP
(the kit connects) or on standard input and output (the kit is the program; its report
then goes to standard error).
"""

from __future__ import annotations

import socket
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from protocol.line.conformance import Fault, RefereeChecker
from protocol.wire.common import ActionRequest, SessionEnd
from sdk.bot import Bot, DecisionRequest
from sdk.view import GameView

__all__ = ["RefereeRun", "check_referee", "connect_tcp", "stdio"]


@dataclass(slots=True)
class RefereeRun:
    """What the referee sent: lines, asks answered, faults, and whether it ended."""

    lines: int = 0
    asks: int = 0
    ended: bool = False
    faults: list[Fault] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.ended and not self.faults


def connect_tcp(host: str, port: int) -> tuple[Iterator[str], Callable[[str], None]]:
    """Lines from and to a referee at ``host:port`` (raises :class:`OSError`)."""
    sock = socket.create_connection((host, port), timeout=30)
    sock.settimeout(None)
    reader = sock.makefile("r", encoding="ascii", errors="replace", newline="\n")

    def write(line: str) -> None:
        sock.sendall((line + "\n").encode("ascii", "replace"))

    return (line.rstrip("\r\n") for line in reader), write


def stdio() -> tuple[Iterator[str], Callable[[str], None]]:
    """Lines on this process's standard input and output."""

    def write(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    return (line.rstrip("\r\n") for line in sys.stdin), write


def check_referee(
    bot: Bot, lines: Iterator[str], write: Callable[[str], None], limit: float = 3.0
) -> RefereeRun:
    """Play ``bot`` on ``lines`` until ``/exit`` (or the end of input), checking each."""
    checker = RefereeChecker()
    run = RefereeRun(faults=checker.faults)
    adapter = checker.adapter
    for line in lines:
        if not line.strip():
            continue
        for item in checker.receive(line):
            if isinstance(item, SessionEnd):
                run.ended = True
            elif isinstance(item, ActionRequest) and adapter.view is not None:
                run.asks += 1
                deadline = time.monotonic() + limit * 0.8
                request = DecisionRequest(item.legal, deadline, item.request_id, item.drawn_tile)
                action = bot.choose(GameView(adapter.view), request)
                if action not in item.legal:
                    action = item.default
                write(adapter.send_action(action))
        for reply in adapter.lines_to_send():
            write(reply)
        if run.ended:
            break
    run.lines = checker.lines
    return run
