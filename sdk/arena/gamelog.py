"""Optional JSON-lines game logs: one line per match, in deal order, for replay.

Each line is an object with the deal number, the match seed, the players' names and
seats (``seats[player] = seat``), the final scores by player and ``events``: the
referee's full event log in its JSON form (:func:`protocol.events.event_from_json`
reads each back). Workers finish deals in any order; the writer holds early arrivals
back so the file is the same for every backend and worker count.

>>> import io
>>> from sdk.arena.deal import DealRecord, MatchRecord
>>> out = io.StringIO()
>>> log = GameLog(out)
>>> log.add(DealRecord(1, 0, [MatchRecord((0, 1, 2, 3), (0,) * 4, [], log='{"deal":1}')]))
>>> out.getvalue()
''
>>> log.add(DealRecord(0, 0, [MatchRecord((0, 1, 2, 3), (0,) * 4, [], log='{"deal":0}')]))
>>> out.getvalue().splitlines()
['{"deal":0}', '{"deal":1}']
"""

from __future__ import annotations

from typing import TextIO

from sdk.arena.deal import DealRecord

__all__ = ["GameLog"]


class GameLog:
    """Writes each deal's match lines to ``stream`` in deal order (from deal 0)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self._next = 0
        self._waiting: dict[int, DealRecord] = {}

    def add(self, record: DealRecord) -> None:
        """Append one deal's record."""
        self._waiting[record.deal] = record
        while self._next in self._waiting:
            self._write(self._waiting.pop(self._next))
            self._next += 1
        self.stream.flush()

    def close(self) -> None:
        """Write what is still held back (after an interruption: later deals, in order)."""
        for deal in sorted(self._waiting):
            self._write(self._waiting.pop(deal))
        self.stream.flush()

    def _write(self, record: DealRecord) -> None:
        for match in record.matches:
            if match.log is not None:
                self.stream.write(match.log + "\n")
