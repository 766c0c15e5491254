"""The lobby: bots that arrive without a seat wait here until a table forms.

A table forms as soon as four bots are waiting, or, once the oldest waiting bot has
waited ``wait`` seconds, with house bots in the empty seats. Waiting bots are WebSocket
connections that sent ``hello`` without a token, line-protocol programs that connected
over TCP, and programs or house bots named on the server's command line. Seats are
drawn at random, so arriving first is no advantage.

The lobby only decides who plays together; :class:`~sdk.server.core.TournamentServer`
builds the table (``form``) and hands each entrant its seat through its future.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from sdk.server.linechan import LineChannel
from sdk.server.seats import Seat

__all__ = ["Entrant", "Lobby", "LobbyFullError"]

log = logging.getLogger("sdk.server.lobby")


_FULL_RETRY = 1.0
"""Seconds between checks for room while the server runs ``max_tables`` tables."""


class LobbyFullError(Exception):
    """The lobby holds as many waiting bots as it may."""


@dataclass(eq=False)
class Entrant:
    """A bot waiting for a seat: ``kind`` is ``ws`` (a protocol v1 connection), ``line``
    (a TCP line-protocol connection, ``channel``), ``cmd`` (a program to start,
    ``command``) or ``house`` (a house bot named ``name``)."""

    kind: str
    name: str
    channel: LineChannel | None = None
    command: list[str] | None = None
    seat: asyncio.Future[Seat] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )
    arrived: float = field(default_factory=lambda: asyncio.get_running_loop().time())

    @property
    def gone(self) -> bool:
        """A line-protocol connection whose peer left while it waited (nobody reads it
        then, so the lobby asks before seating it). Other entrants leave through
        :meth:`Lobby.leave` when their connection drops."""
        return self.channel is not None and self.channel.gone


FormTable = Callable[[Sequence[Entrant | None]], None]
"""Builds a table from four entrants in seat order (``None``: a house bot) and sets each
entrant's ``seat`` future."""


class Lobby:
    """Bots waiting for a table (see the module doc)."""

    def __init__(
        self,
        form: FormTable,
        wait: float,
        rng: random.Random | None = None,
        *,
        room: Callable[[], bool] = lambda: True,
        capacity: int = 1 << 30,
    ) -> None:
        self.form = form
        self.wait = wait
        self.rng = rng or random.SystemRandom()
        self.room = room
        """Whether another table may start now (the server's ``max_tables``)."""
        self.capacity = capacity
        """Bots that may wait at once; more are refused (:class:`LobbyFullError`)."""
        self.waiting: list[Entrant] = []
        self._timer: asyncio.TimerHandle | None = None

    def join(self, entrant: Entrant) -> asyncio.Future[Seat]:
        """Add a bot; its future gets the seat when a table forms. Raises
        :class:`LobbyFullError` when ``capacity`` bots already wait."""
        if len(self.waiting) >= self.capacity:
            raise LobbyFullError(f"{self.capacity} bots are already waiting for a table")
        self.waiting.append(entrant)
        self._check()
        return entrant.seat

    def poke(self) -> None:
        """Room may have freed up (a table ended): form the tables that can form."""
        self._check()

    def leave(self, entrant: Entrant) -> None:
        """A waiting bot went away (its connection dropped)."""
        if entrant in self.waiting:
            self.waiting.remove(entrant)
            entrant.seat.cancel()
            self._check()

    def close(self) -> None:
        """Stop: nobody waits any more."""
        if self._timer is not None:
            self._timer.cancel()
        for entrant in self.waiting:
            entrant.seat.cancel()
        self.waiting.clear()

    def _prune(self) -> None:
        """Drop the waiting bots that are gone, so that they never fill a table (a few
        connect-and-close clients once filled every table the server may run)."""
        gone = [entrant for entrant in self.waiting if entrant.gone]
        for entrant in gone:
            log.info("lobby: %s left before a table formed", entrant.name)
            self.waiting.remove(entrant)
            entrant.seat.cancel()

    def _check(self) -> None:
        self._prune()
        while len(self.waiting) >= 4 and self.room():
            self._form(self.waiting[:4])
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.waiting:
            loop = asyncio.get_running_loop()
            at = max(
                self.waiting[0].arrived + self.wait, loop.time() + _FULL_RETRY * (not self.room())
            )
            self._timer = loop.call_at(at, self._fill)

    def _fill(self) -> None:
        self._timer = None
        self._prune()
        if not self.room():
            self._check()  # no table may start now: keep waiting
            return
        if self.waiting:
            log.info(
                "lobby: %d bot(s) waited %.1f s; adding house bots", len(self.waiting), self.wait
            )
            self._form(self.waiting[:4])
            self._check()

    def _form(self, entrants: list[Entrant]) -> None:
        for entrant in entrants:
            self.waiting.remove(entrant)
        seats: list[Entrant | None] = [*entrants, *([None] * (4 - len(entrants)))]
        self.rng.shuffle(seats)
        try:
            self.form(seats)
        except Exception as exc:  # a table that cannot be built must not wedge the lobby
            log.exception("lobby: could not form a table")
            for entrant in entrants:
                if not entrant.seat.done():
                    entrant.seat.set_exception(exc)
