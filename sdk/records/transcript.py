"""One seat's record rebuilt from a line-protocol transcript (``--save-transcript``).

A transcript (:mod:`sdk.transports.transcript`) holds every line a program exchanged with
the referee, the legal actions its bot was offered and what it answered. Played through
the same :class:`~protocol.line.adapter.LineClientAdapter` the bot used, its referee
lines give back the seat's events (the referee's projection for that seat, each hand's
end scored by the seat: :mod:`protocol.line.hand_end`), and its ``?`` / ``!`` steps the
seat's decisions. :func:`record_from_transcript` returns them as a
:class:`~sdk.records.model.Record` whose ``perspective`` is that seat, so the replay
tools show a tournament game as that seat saw it:
``python -m sdk.replay game.txt`` (terminal) or ``--html out.html`` (browser).

Such a record knows one seat's tiles only: other seats' views are not rebuilt, it cannot
be replayed through the referee (the wall is unknown) and it is never written as a game
record. A decision's ``ms`` is the time the program measured from the ask to its answer
(the ``# N ms`` comment after the ``!`` step; ``None`` without one); the answer recorded
is what the program sent (a referee's own default after a late reply does not show).

>>> text = "< /start MJ 2 me\\n< /initGame East East 1 1 0\\n"
>>> rec = record_from_transcript(text, "demo.txt")
>>> rec.perspective, rec.header.seats[1].name, [e.type for e in rec.events]
(1, 'me', ['hand_start'])
"""

from __future__ import annotations

import dataclasses
import logging
import re
from pathlib import Path

from protocol.actions import Action
from protocol.events import Event, HandStart
from protocol.line.adapter import LineClientAdapter
from protocol.line.conformance import Step, parse_transcript
from protocol.line.tile_ids import LineError
from protocol.wire.common import ActionRequest, SessionEnd, SessionStart
from sdk.records.errors import CorruptRecordError
from sdk.records.model import Decision, Header, Origin, Record, SeatInfo
from sdk.records.writer import build_record

__all__ = ["looks_like_transcript", "record_from_transcript"]

log = logging.getLogger(__name__)


def looks_like_transcript(text: str) -> bool:
    """Whether ``text`` is a transcript rather than a game record (whose first line is
    a JSON object): its first non-blank line is a comment or a step."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    return first[:1] in ("#", "<", ">", "?", "!", "@")


def record_from_transcript(text: str, source: str = "<transcript>") -> Record:
    """The seat's record of the session in transcript ``text``. A referee line the
    adapter cannot read is skipped with a warning, as the session skipped it; raises
    :class:`~sdk.records.errors.CorruptRecordError` naming the line that does not fit
    otherwise (a malformed step, an answer with no ask or not legal, legal actions that
    differ from the rules model's)."""
    try:
        transcript = parse_transcript(text, source)
    except ValueError as exc:
        raise CorruptRecordError(source, 0, str(exc)) from None
    rebuilt = _Rebuild(source, _answer_times(text))
    for step in transcript.steps:
        rebuilt.step(step)
    return rebuilt.record()


def _answer_times(text: str) -> dict[int, float]:
    """The milliseconds of each answer, by the line number of its ``!`` step: the
    ``# N ms`` comment on the line after it."""
    lines = text.splitlines()
    times = {}
    for n, line in enumerate(lines[:-1], start=1):
        found = _MS.fullmatch(lines[n].strip()) if line.startswith("!") else None
        if found is not None:
            times[n] = float(found.group(1))
    return times


_MS = re.compile(r"# (\d+(?:\.\d+)?) ms")


class _Rebuild:
    """The seat's events and decisions, step by step."""

    def __init__(self, source: str, times: dict[int, float]) -> None:
        self.source = source
        self.times = times
        self.adapter = LineClientAdapter()
        self.name = "program"
        self.events: list[Event] = []
        self.decisions: list[Decision] = []
        self.request: tuple[ActionRequest, int] | None = None
        """The ask awaiting its answer, with the number of events before it."""
        self.hand = -1
        self.ended = False

    def step(self, step: Step) -> None:
        if step.kind == "<":
            try:
                self._received(step.text)
            except LineError as exc:  # as the session did: logged, skipped, play goes on
                log.warning("%s line %d: ignoring a line that cannot be read: %s",
                            self.source, step.line_no, exc)  # fmt: skip
            return
        try:
            if step.kind == "?":
                self._offered(step.text)
            elif step.kind == "!":
                self._chose(step.text, self.times.get(step.line_no))
            elif step.kind == ">":
                self.adapter.lines_to_send()  # what it wrote: the answers follow from "!"
        except (LineError, ValueError) as exc:
            raise CorruptRecordError(self.source, step.line_no, str(exc)) from None

    def _received(self, line: str) -> None:
        for item in self.adapter.receive_line(line):
            if isinstance(item, Event):
                self.events.append(item)
                self.hand += type(item) is HandStart
            elif isinstance(item, ActionRequest):
                self.request = (item, len(self.events))
            elif isinstance(item, SessionStart):
                self.name = item.name or self.name
            elif isinstance(item, SessionEnd):
                self.ended = True

    def _offered(self, text: str) -> None:
        request, _ = self._pending("legal actions")
        shown = ", ".join(map(str, request.legal))
        if shown != text:
            raise ValueError(f"the rules model offers {shown}, the transcript {text}")

    def _chose(self, text: str, ms: float | None) -> None:
        request, after = self._pending("an answer")
        action = Action.parse(text)
        if action not in request.legal:
            raise ValueError(f"{action} is not legal here")
        legal = tuple(request.legal)
        self.decisions.append(
            Decision(
                self.hand,
                request.seat,
                after,
                legal,
                action,
                action,
                ms=ms,
                request_id=request.request_id,
            )
        )
        self.adapter.send_action(action)
        self.request = None

    def _pending(self, what: str) -> tuple[ActionRequest, int]:
        if self.request is None:
            raise ValueError(f"{what} with no ask before it")
        return self.request

    def record(self) -> Record:
        seat = self.adapter.seat
        if seat is None:
            raise CorruptRecordError(self.source, 0, "no /start: not a line-protocol session")
        starts = [e for e in self.events if type(e) is HandStart]
        names = [self.name if s == seat else "opponent" for s in range(4)]
        header = Header(
            seed=0,
            hands=len(starts),
            seats=tuple(SeatInfo(s, s, names[s]) for s in range(4)),
            first_dealer=starts[0].dealer if starts else 0,
            origin=Origin("transcript", match_id=Path(self.source).name or self.source),
        )
        status = "finished" if self.ended else None
        record = build_record(header, self.events, self.decisions, status=status)
        return dataclasses.replace(record, perspective=seat)
