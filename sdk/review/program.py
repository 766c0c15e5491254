"""A line-protocol program as an adviser of the reviewer: asked at a seat's recorded
decisions what it would answer, its answers read but not applied.

The program is started once for the review (``cmd:PROGRAM ARGS``, :mod:`sdk.programs`;
through the conformance kit's runner, :mod:`sdk.conformance.program`), sent exactly
what the public referee would have sent the seat during the recorded game
(:mod:`protocol.line.referee`, physical tile ids from the record's seed), and at each
of the seat's decisions asked the decision's ``/ask`` lines. The game goes on as
recorded: the program then reads the echo of what was really played, as it would after
a refused answer (R17). An answer that is late, malformed or illegal is no answer
(``None``), and a late one is dropped before the next ask.
"""

from __future__ import annotations

from collections.abc import Sequence

from protocol.actions import Action
from protocol.events import Event
from protocol.line.asks import LineReplyError
from protocol.line.referee import Decided, LineTable, NextAsk, ReadyReply
from protocol.wall import hand_seed, physical_wall
from sdk.conformance.program import LineProgram
from sdk.programs import ProgramSpec, ProgramSpecError

__all__ = ["ProgramAdviser"]


class ProgramAdviser:
    """A program following ``seat`` of a recorded match of seed ``seed`` (see the
    module doc); :meth:`close` stops it and whatever it started."""

    def __init__(
        self, spec: ProgramSpec, seat: int, seed: int, limit: float, startup: float = 30.0
    ) -> None:
        if spec.kind != "cmd":
            raise ProgramSpecError(f"{spec.spec}: the reviewer runs cmd: programs (stdin/stdout)")
        self.name = spec.name
        self.limit = limit
        self.table = LineTable(lambda k: physical_wall(hand_seed(seed, k)))
        self.line_seat = self.table.add_seat(seat, spec.name)
        self.seat = seat
        self.program = LineProgram(spec.command, cwd=spec.cwd)
        self.program.send(self.line_seat.start_line())
        self.program.send(self.line_seat.probe())
        self._await_ready(startup)

    def _await_ready(self, startup: float) -> None:
        while (line := self.program.read(startup)) is not None:
            try:
                if isinstance(self.line_seat.receive_line(line), ReadyReply):
                    return
            except LineReplyError:
                continue  # start-up noise

    def feed(self, event: Event) -> None:
        """Follow one referee event (the full event, as the record has it)."""
        for line in self.table.feed(event).get(self.seat, ()):
            self.program.send(line)

    def ask(self, legal: Sequence[Action], claim_tile: int | None) -> Action | None:
        """What the program answers to a decision over ``legal`` (``None``: no answer
        in time, or one that does not answer)."""
        self.program.pending()  # a late answer to an earlier ask: read and dropped
        self.program.send(self.line_seat.request(legal, claim_tile))
        while (reply := self.program.read(self.limit)) is not None:
            try:
                step = self.line_seat.receive_line(reply)
            except LineReplyError:
                return None
            if isinstance(step, Decided):
                return step.action
            if isinstance(step, NextAsk):
                self.program.send(step.line)
        self.line_seat.cancel()
        return None

    def close(self) -> None:
        """Stop the program and its process group."""
        self.program.stop()
