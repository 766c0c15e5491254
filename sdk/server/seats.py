"""The seats of a table, behind one small interface.

A table (:mod:`sdk.server.table`) talks to every seat the same way: it pushes the
referee's full events (:meth:`Seat.push`; each seat shows only its projection), asks for
a decision (:meth:`Seat.request`) and, when the seat's :attr:`Seat.deadline` passes,
calls :meth:`Seat.expire`. Every request is settled exactly once, by a call to the
table's ``settle(seat, record)`` with a :class:`~sdk.server.records.DecisionRecord`:
the seat's own action, or its R17 default and the reason.

* :class:`WsSeat`: a remote bot over protocol v1; the protocol lives in the sans-I/O
  :class:`~protocol.wire.WireServerSeat`, this class only moves frames.
* :class:`LineSeat`: a program speaking the tournament line protocol over a
  :class:`~sdk.server.linechan.LineChannel` (a TCP connection or a subprocess' pipes),
  through :class:`~protocol.line.LineServerSeat`.
* :class:`HouseSeat`: a :class:`~sdk.bot.Bot` run inside the server, exactly as
  :func:`sdk.local.play_match` runs it (same mirror, same policing).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Protocol

from protocol.actions import Action
from protocol.defaults import default_action
from protocol.events import Event, HandEnd, HandStart, MatchEnd, project
from protocol.line.asks import LineReplyError
from protocol.line.codec import LineParseError, ReadyLine, parse_program_line
from protocol.line.referee import Decided, LineServerSeat, NextAsk, ReadyReply
from protocol.names import house_name
from protocol.wire import Decision, WireServerSeat
from protocol.wire.messages import MatchConfig
from sdk.bot import Bot, DecisionRequest, MatchInfo
from sdk.budget import Budget, DecisionStats
from sdk.budget import Outcome as BudgetOutcome
from sdk.decide import decide_inline
from sdk.mirror import Mirror
from sdk.server.linechan import LineChannel, LineTooLongError
from sdk.server.records import Clock, DecisionRecord, Outcome, outcome_of

__all__ = ["Ask", "FrameSink", "HouseSeat", "LineSeat", "Seat", "TableContext", "WsSeat"]

log = logging.getLogger("sdk.server.seats")

_LOGGED_STRAYS = 20
"""Lines outside any ask logged per line seat (start-up noise, strays); the rest are
counted and dropped."""

ABSENT = "default"
"""The leaderboard name (under ``house:``) of a seat no bot ever took: the R17 default
played it."""

REPLAY_PIECE = 1 << 16
"""Characters of a resume's replay handed to a connection at a time (as it drains)."""


@dataclass(frozen=True, slots=True)
class Ask:
    """One decision the table asks a seat for. ``now`` is when it is sent (monotonic
    seconds); ``after_event`` how many referee events came before it."""

    legal: tuple[Action, ...]
    drawn_tile: int | None
    claim_tile: int | None
    hand: int
    after_event: int
    now: float


class TableContext(Protocol):
    """What a seat needs from its table."""

    clock: Clock
    decision_seconds: float
    startup_seconds: float
    over: bool

    def settle(self, seat: int, record: DecisionRecord) -> None:
        """The decision of ``seat`` is made (called once per request)."""

    def changed(self) -> None:
        """A seat connected, disconnected or became ready."""


class FrameSink(Protocol):
    """A WebSocket connection as a seat sees it: frames out, and close.

    A sink may also have ``pull(source, held)``: it then takes a resume's replay (which
    may be megabytes) from ``source()`` a piece at a time as its peer reads, instead of
    all at once through :meth:`send`; ``held`` is how many characters of frames wait
    behind the replay (counted against its outbox limit)."""

    def send(self, frames: Sequence[str]) -> None:
        """Queue frames to write, in order (never blocks)."""

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Close once the queued frames are written."""

    def grant(self) -> None:
        """The peer may send one more frame: an answer is due."""


@dataclass(slots=True)
class _Asked:
    """The request in flight: its id, when it was sent, its R17 default and deadline."""

    ask: Ask
    request_id: str
    default: Action
    deadline: float


class Seat:
    """One seat of a table (see the module doc). Subclasses move the bytes."""

    transport: ClassVar[str] = ""

    def __init__(self, seat: int, name: str) -> None:
        self.seat, self.name = seat, name
        self.fallbacks = 0
        self.ctx: TableContext | None = None
        self._asked: _Asked | None = None
        self._requests = 0

    def bind(self, ctx: TableContext) -> None:
        """Attach the seat to its table."""
        self.ctx = ctx

    @property
    def version(self) -> str:
        """The bot's version, if it said one (protocol v1's ``hello``); else empty."""
        return ""

    @property
    def player(self) -> tuple[str, str]:
        """Who plays the seat, as the leaderboard credits it: (name, version)."""
        return self.name, self.version

    @property
    def connected(self) -> bool:
        """Whether the bot is connected."""
        return True

    @property
    def ready(self) -> bool:
        """Whether the bot is ready to play."""
        return True

    def startup_done(self, now: float, waited_since: float, connect_wait: float) -> bool:
        """Whether the table may start as far as this seat is concerned."""
        return True

    async def open(self) -> None:
        """Start what the seat needs (a program, a bot) before the match."""

    def push(self, events: Sequence[Event]) -> None:
        """Show the referee's (full) events to the seat."""

    def request(self, ask: Ask) -> None:
        """Ask for a decision; settle it later through the table."""
        raise NotImplementedError

    @property
    def deadline(self) -> float | None:
        """When the pending request expires, if one is pending."""
        return None if self._asked is None else self._asked.deadline

    @property
    def asked(self) -> bool:
        """Whether a request is pending."""
        return self._asked is not None

    def expire(self, now: float) -> None:
        """The deadline passed: apply the default (R17) if still undecided."""
        asked = self._asked
        if asked is not None and now >= asked.deadline:
            outcome = Outcome.LATE if self.connected else Outcome.DISCONNECTED
            self._settle(asked.default, outcome, "no reply before the deadline", None, None)

    def finish(self) -> None:
        """The match is over (its last events were pushed)."""

    async def close(self) -> None:
        """Release the connection or program."""

    def release(self) -> None:
        """The table is being forgotten: drop the link to it and what the match left
        behind, so that nothing keeps the seat and its table in a reference cycle (one
        that only a full garbage collection would free, with every frame of the match
        inside)."""
        self.ctx = None
        self._asked = None

    def _settle(
        self, action: Action, outcome: Outcome, reason: str, raw: str | None, at: float | None
    ) -> None:
        asked, ctx = self._asked, self.ctx
        assert asked is not None and ctx is not None
        self._asked = None
        if outcome is not Outcome.OK:
            self.fallbacks += 1
        clock = ctx.clock
        record = DecisionRecord(
            hand=asked.ask.hand,
            seat=self.seat,
            request_id=asked.request_id,
            sent_at=clock.wall(asked.ask.now),
            replied_at=None if at is None else clock.wall(at),
            raw=raw,
            applied=action,
            outcome=outcome,
            reason=reason,
            after_event=asked.ask.after_event,
        )
        ctx.settle(self.seat, record)


# --- protocol v1 -----------------------------------------------------------------------


class WsSeat(Seat):
    """A remote bot over protocol v1. The seat outlives connections (resume): a
    connection :meth:`attach`-es with its ``hello``, feeds frames to :meth:`on_frame`
    and :meth:`detach`-es when it drops."""

    transport = "ws"

    def __init__(
        self, seat: int, name: str, token: str, match_id: str, table_id: str, config: MatchConfig
    ) -> None:
        super().__init__(seat, name)
        self.token = token
        self.wire = WireServerSeat(seat, token, match_id, table_id, config)
        self.conn: FrameSink | None = None
        self.ever_connected = False

    @property
    def connected(self) -> bool:
        """Whether a connection holds the seat."""
        return self.conn is not None and self.wire.greeted

    @property
    def version(self) -> str:
        """The ``bot_version`` of the bot's last ``hello``."""
        return self.wire.bot_version

    @property
    def player(self) -> tuple[str, str]:
        """The name and version the bot gave in its last ``hello`` (it held the seat's
        token), not the name the table's creator wrote; a seat no bot ever took is
        played by the server's R17 default, ``house:default``."""
        if not self.ever_connected:
            return house_name(ABSENT), ""
        return self.wire.bot_name, self.wire.bot_version

    @property
    def ready(self) -> bool:
        """Whether the bot sent ``ready`` (or its start-up budget is spent)."""
        return self.wire.ready

    def startup_done(self, now: float, waited_since: float, connect_wait: float) -> bool:
        if self.wire.ready or self.wire.startup_expired(now):
            return True
        return not self.ever_connected and now >= waited_since + connect_wait

    def attach(self, conn: FrameSink, hello: str | bytes, now: float) -> bool:
        """A new connection presents ``hello``; whether the session is open (if not, an
        error frame was queued and the connection should close)."""
        self.conn = conn
        self.wire.connect()
        self.wire.receive_frame(hello, now)
        self._flush()
        if not self.wire.greeted:
            self.conn = None
            self.wire.disconnect()
            return False
        self.ever_connected = True
        if self.ctx is not None:
            self.ctx.changed()
            if self.ctx.over:
                self.finish()
        return True

    def detach(self, conn: FrameSink) -> None:
        """``conn`` dropped; the seat is played by the default until it resumes."""
        if self.conn is conn:
            self.conn = None
            self.wire.disconnect()
            if self.ctx is not None:
                self.ctx.changed()

    def on_frame(self, frame: str | bytes, now: float) -> bool:
        """One frame from the bot; whether the session stays open."""
        was_ready = self.wire.ready
        decision = self.wire.receive_frame(frame, now)
        self._flush()
        if decision is not None:
            self._decided(decision, frame, now)
        if self.wire.ready and not was_ready and self.ctx is not None:
            self.ctx.changed()
        return self.wire.greeted

    def push(self, events: Sequence[Event]) -> None:
        push = self.wire.push_event
        for event in events:
            push(event)
        self._flush()

    def request(self, ask: Ask) -> None:
        wire = self.wire
        request_id = wire.request(ask.legal, ask.now, ask.drawn_tile)
        deadline = wire.deadline
        assert deadline is not None
        default = default_action(ask.legal, ask.drawn_tile)
        self._asked = _Asked(ask, request_id, default, deadline)
        self._flush()
        if self.conn is not None:
            self.conn.grant()
        if not self.connected:
            decision = wire.check_timeout(deadline)
            assert decision is not None
            self._decided(decision, None, None)

    def expire(self, now: float) -> None:
        decision = self.wire.check_timeout(now)
        if decision is not None:
            self._flush()
            self._decided(decision, None, None)

    def _decided(self, decision: Decision, raw: str | bytes | None, at: float | None) -> None:
        asked = self._asked
        if asked is None or asked.request_id != decision.request_id:
            log.error("seat %d: decision for %s, not the request in flight", self.seat, decision)
            return
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        outcome = outcome_of(decision.reason, self.connected)
        reason = "" if decision.reason is None else decision.reason.value
        self._settle(decision.action, outcome, reason, text, at)

    def finish(self) -> None:
        self.wire.bye("match over")
        self._flush()
        if self.conn is not None:
            self.conn.close(1000, "match over")

    def release(self) -> None:
        super().release()
        self.conn = None
        self.wire.release()

    def _flush(self) -> None:
        wire, conn = self.wire, self.conn
        pull = getattr(conn, "pull", None)
        if pull is None:  # no connection, or a sink that takes everything at once
            frames = wire.data_to_send()
            if frames and conn is not None:
                conn.send(frames)
            return
        assert conn is not None
        frames = wire.data_to_send(0)  # never the replay: the connection pulls it
        if frames:
            conn.send(frames)
        if wire.replaying:
            pull(lambda: self._replay_piece(conn), wire.held)

    def _replay_piece(self, conn: FrameSink) -> list[str]:
        """The next piece of the replay for ``conn`` (empty once it is sent, or when
        ``conn`` no longer holds the seat)."""
        if self.conn is not conn or not self.wire.replaying:
            return []
        return self.wire.data_to_send(REPLAY_PIECE)


# --- line protocol ---------------------------------------------------------------------


class LineSeat(Seat):
    """A program speaking the line protocol. The table feeds the seat's lines (from its
    :class:`~protocol.line.LineTable`) to :meth:`write`; the program's replies are read
    by :meth:`serve` until it disconnects. The line protocol cannot resume: a program
    that drops is played by the default for the rest of the match.

    One decision may take several asks (``/ask hu``, ``/ask gong``, ``/ask throw``);
    each ``/ask`` has the full time limit from when it is written, as the tournament
    referee times them, so the deadline moves on with every follow-up ask.

    A reply that comes after its ask expired (the R17 default was applied) is read and
    dropped: until it comes, the seat holds its next ``/ask`` back (that decision's
    clock runs meanwhile), so a late program never has an old answer taken for a new
    ask. With ``hung_after``, a program that lets that many decisions in a row pass
    without a word is stopped as hung; :attr:`crash` says why a program ended before
    its match did (it then plays by the default, as if disconnected)."""

    transport = "line"

    def __init__(
        self,
        seat: int,
        name: str,
        line_seat: LineServerSeat,
        spawn: Callable[[], Awaitable[LineChannel]] | None = None,
        hung_after: int | None = None,
    ) -> None:
        super().__init__(seat, name)
        self.line_seat = line_seat
        self.spawn = spawn
        """Starts the program of a seat the server runs (``None``: a TCP peer attaches)."""
        self.hung_after = hung_after
        self.channel: LineChannel | None = None
        self.attached_at: float | None = None
        self.crash = ""
        """Why the program ended before its match did (empty while it plays)."""
        self.dropped_late = 0
        """Replies that came after their ask had expired, read and dropped."""
        self._ready = False
        self._closed = False
        self._raw: list[str] = []
        self._strays = 0
        self._reader: asyncio.Task[None] | None = None
        self._owed = 0
        """Replies owed to asks already settled by the default."""
        self._held: str | None = None
        """The ``/ask`` held back until the owed replies come."""
        self._replied = False
        """Whether the program said anything since the current decision was asked."""
        self._silent = 0
        """Decisions in a row the program let pass without a word."""

    @property
    def connected(self) -> bool:
        """Whether the program is connected."""
        return self.channel is not None and not self.channel.closed

    @property
    def player(self) -> tuple[str, str]:
        """The seat's name once a program took it; ``house:default`` if none did."""
        return (self.name, "") if self.attached_at is not None else (house_name(ABSENT), "")

    @property
    def ready(self) -> bool:
        """Whether the program answered the ready probe (or its start-up budget is spent)."""
        return self._ready and self.connected

    def startup_done(self, now: float, waited_since: float, connect_wait: float) -> bool:
        if self._ready or self._closed:
            return True
        if self.attached_at is None:
            return now >= waited_since + connect_wait
        assert self.ctx is not None
        return now >= self.attached_at + self.ctx.startup_seconds or not self.connected

    async def open(self) -> None:
        if self.spawn is None:
            return
        try:
            channel = await self.spawn()
        except OSError as exc:
            log.error("seat %d (%s): cannot start the program: %s", self.seat, self.name, exc)
            self._closed = True
            self.crash = f"could not start: {exc}"
            return
        self.attach(channel, Clock.now())

    def attach(self, channel: LineChannel, now: float) -> None:
        """Connect the program: greet it (``/start``, then the ``/ready`` probe) and
        read its lines from now on."""
        self.channel, self.attached_at = channel, now
        self.write([self.line_seat.start_line(), self.line_seat.probe()])
        self._reader = asyncio.get_running_loop().create_task(self._serve(channel))
        if self.ctx is not None:
            self.ctx.changed()

    async def _serve(self, channel: LineChannel) -> None:
        try:
            while (line := await channel.read_line()) is not None:
                self.on_line(line, Clock.now())
        except LineTooLongError as exc:
            log.warning("seat %d (%s): %s; disconnecting", self.seat, self.name, exc)
            self.crash = self.crash or str(exc)
            self._refuse_pending(Outcome.MALFORMED, str(exc), None)
        finally:
            over = self.ctx is not None and self.ctx.over
            if not self._closed and not self.crash and not over:
                code = None if channel.process is None else channel.process.returncode
                self.crash = "it left" if code is None else f"it exited (code {code})"
            await channel.close()
            self._dropped()

    def _dropped(self) -> None:
        if self._asked is not None:
            self._refuse_pending(Outcome.DISCONNECTED, "the program disconnected", None)
        if self.ctx is not None:
            self.ctx.changed()

    def write(self, lines: Sequence[str]) -> None:
        """Send lines the table produced for this seat."""
        channel = self.channel
        if lines and channel is not None:
            channel.write_lines(lines)
            channel.grant(sum(1 for line in lines if line.startswith(("/ask", "/ready"))))
            if channel.starting and any(line.startswith("/ask") for line in lines):
                channel.end_startup()

    def on_line(self, line: str, now: float) -> None:
        """One line from the program."""
        if self._owed and self._late_reply(line, now):
            return
        self._silent = 0
        asked = self._asked
        if asked is not None:
            self._replied = True
            self._raw.append(line)
            if now > asked.deadline:
                self.line_seat.cancel()
                self._refuse_pending(Outcome.LATE, "after the deadline", now)
                return
        try:
            step = self.line_seat.receive_line(line)
        except LineReplyError as exc:
            if asked is None:
                self._ignored(line, exc)
            else:
                self._refuse_pending(outcome_of(exc.reason), str(exc), now)
            return
        if isinstance(step, ReadyReply):
            self._ready = True
            if self.ctx is not None:
                self.ctx.changed()
        elif isinstance(step, NextAsk):
            if asked is not None and self.ctx is not None:  # each /ask has its own limit
                asked.deadline = now + self.ctx.decision_seconds
            self.write([step.line])
        elif isinstance(step, Decided) and asked is not None:
            raw = "\n".join(self._raw)
            self._raw = []
            self._settle(step.action, Outcome.OK, "", raw, now)

    def _ignored(self, line: str, exc: LineReplyError) -> None:
        """A line outside any ask: start-up noise, or a stray line; logged (the first
        few of them) and dropped."""
        self._strays += 1
        channel = self.channel
        what = "start-up noise" if channel is not None and channel.starting else "ignored line"
        if self._strays <= _LOGGED_STRAYS:
            log.info("seat %d (%s): %s %r: %s", self.seat, self.name, what, line[:200], exc)
        elif self._strays == _LOGGED_STRAYS + 1:
            log.info("seat %d (%s): more ignored lines, not logged", self.seat, self.name)

    def _refuse_pending(self, outcome: Outcome, reason: str, at: float | None) -> None:
        asked = self._asked
        if asked is None:
            return
        self.line_seat.cancel()
        raw = "\n".join(self._raw) or None
        self._raw = []
        self._settle(asked.default, outcome, reason, raw, at)

    def request(self, ask: Ask) -> None:
        assert self.ctx is not None
        default = default_action(ask.legal, ask.drawn_tile)
        self._requests += 1
        deadline = ask.now + self.ctx.decision_seconds
        self._asked = _Asked(ask, str(self._requests), default, deadline)
        self._raw = []
        self._replied = False
        if not self.connected:
            self._refuse_pending(Outcome.DISCONNECTED, "the program is not connected", None)
            return
        line = self.line_seat.request(ask.legal, ask.claim_tile)
        if self._owed:  # an earlier ask's reply is still to come: this ask waits for it
            self._held = line
        else:
            self.write([line])

    def _late_reply(self, line: str, now: float) -> bool:
        """Whether ``line`` is the reply owed to an ask that already expired (then it is
        dropped, and a held ask is written with its full time limit from now)."""
        try:
            if isinstance(parse_program_line(line), ReadyLine):
                return False
        except LineParseError:
            return False  # noise is never taken for a reply
        self._owed -= 1
        self.dropped_late += 1
        self._replied = True
        held, asked = self._held, self._asked
        if not self._owed and held is not None and asked is not None and self.ctx is not None:
            self._held = None
            asked.deadline = now + self.ctx.decision_seconds
            self.write([held])
        return True

    def expire(self, now: float) -> None:
        asked = self._asked
        if asked is not None and now >= asked.deadline:
            outcome = Outcome.LATE if self.connected else Outcome.DISCONNECTED
            why = "no reply before the deadline"
            if self._held is not None:
                why = "still owed the reply to an earlier /ask"
            else:
                self._owed += 1  # the ask in flight is answered later, or never
            self._held = None
            silent = not self._replied
            self._refuse_pending(outcome, why, None)
            self._silent = self._silent + 1 if silent else 0
            if self.hung_after is not None and self._silent >= self.hung_after:
                self._stop_hung()

    def _stop_hung(self) -> None:
        """Stop a program that let :attr:`hung_after` decisions pass without a word:
        the rest of its match is played by the default."""
        self.crash = f"hung: {self._silent} decisions in a row without a reply"
        log.warning("seat %d (%s): %s; stopping it", self.seat, self.name, self.crash)
        channel = self.channel
        if channel is not None:
            asyncio.get_running_loop().create_task(channel.close())

    async def close(self) -> None:
        self._closed = True
        if self.channel is not None:
            await self.channel.close()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)

    def release(self) -> None:
        super().release()
        self.channel, self._reader, self._raw = None, None, []
        self.spawn = None


# --- house bots ------------------------------------------------------------------------


class HouseSeat(Seat):
    """A :class:`~sdk.bot.Bot` run inside the server, fed and policed exactly as
    :func:`sdk.local.play_match` does (so a table of house bots replays in-process).

    With an ``executor`` (the server's worker pool) the bot's decisions run there, off
    the event loop, so a slow house bot cannot stall any connection or other table;
    events that arrive while it thinks are applied to its mirror after it answers (it
    decides on the view it was asked with). Without one it runs in the loop."""

    transport = "builtin"

    def __init__(
        self,
        seat: int,
        name: str,
        bot: Bot,
        hands: int,
        budget: Budget,
        executor: concurrent.futures.Executor | None = None,
    ) -> None:
        super().__init__(seat, name)
        self.bot = bot
        self.budget = budget
        self.hands = hands
        self.executor = executor
        self.mirror = Mirror(seat)
        self.stats = DecisionStats()
        self._listens = bot.wants("on_event")
        self._hooked = any(bot.wants(h) for h in ("on_hand_start", "on_hand_end", "on_match_end"))
        self._busy = False
        """A decision is running in the pool (the bot and mirror are its until done)."""
        self._backlog: list[Event] = []
        self._queued: _Asked | None = None

    @property
    def player(self) -> tuple[str, str]:
        """The house bot under the server's reserved namespace (``house:greedy``): no
        remote seat can take its name."""
        return house_name(self.name), ""

    def release(self) -> None:
        super().release()
        self._backlog, self._queued = [], None
        self.mirror = Mirror(self.seat)  # the views of the whole match

    async def open(self) -> None:
        self.bot.on_match_start(
            MatchInfo(seat=self.seat, hands=self.hands, decision_seconds=self.budget.decision)
        )

    def push(self, events: Sequence[Event]) -> None:
        if self._busy:
            self._backlog.extend(events)
            return
        mirror, seat = self.mirror, self.seat
        for event in events:
            seen = project(event, seat)
            if seen is not None:
                mirror.view.apply(seen)
                if self._listens:
                    self.bot.on_event(mirror.window, seen)
        if self._hooked:
            self._hooks(events)

    def _hooks(self, events: Sequence[Event]) -> None:
        window, bot = self.mirror.window, self.bot
        for event in events:
            if isinstance(event, HandEnd):
                bot.on_hand_end(window, event.result)
            elif isinstance(event, MatchEnd):
                bot.on_match_end(window, tuple(event.scores))
        if any(isinstance(e, HandStart) for e in events):
            bot.on_hand_start(window)

    def request(self, ask: Ask) -> None:
        self._requests += 1
        default = default_action(ask.legal, ask.drawn_tile)
        deadline = ask.now + (self.ctx.decision_seconds if self.ctx else self.budget.decision)
        asked = self._asked = _Asked(ask, str(self._requests), default, deadline)
        if self.executor is None:
            asyncio.get_running_loop().call_soon(self._decide, asked)
        elif self._busy:  # the previous decision overran its deadline and still runs
            self._queued = asked
        else:
            self._submit(asked)

    def _submit(self, asked: _Asked) -> None:
        assert self.executor is not None
        self._busy = True
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self.executor, self._choose, asked)
        future.add_done_callback(lambda f: self._chosen(asked, f))

    def _choose(self, asked: _Asked) -> tuple[Action, Outcome]:
        window = self.mirror.window
        request = DecisionRequest(
            asked.ask.legal,
            Clock.now() + self.budget.reply_within,
            asked.request_id,
            window.drawn_tile,
        )
        before = dict(self.stats.outcomes)
        action = decide_inline(self.bot, window, request, self.stats)
        outcome = _HOUSE_OUTCOMES.get(_changed_key(before, self.stats.outcomes), Outcome.OK)
        return action, outcome

    def _chosen(self, asked: _Asked, future: asyncio.Future[tuple[Action, Outcome]]) -> None:
        self._busy = False
        backlog, self._backlog = self._backlog, []
        if future.cancelled():
            return
        if self._asked is asked:
            exc = future.exception()
            if exc is not None:
                log.error("seat %d (%s): the decision failed: %r", self.seat, self.name, exc)
                self._settle(asked.default, Outcome.MALFORMED, "the house bot failed", None, None)
            else:
                action, outcome = future.result()
                reason = "" if outcome is Outcome.OK else outcome.value
                self._settle(action, outcome, reason, None, None)
        if backlog:
            self.push(backlog)
        queued, self._queued = self._queued, None
        if queued is not None and self._asked is queued:
            self._submit(queued)

    def _decide(self, asked: _Asked) -> None:
        if self._asked is not asked:
            return  # already settled by the clock
        action, outcome = self._choose(asked)
        self._settle(action, outcome, "" if outcome is Outcome.OK else outcome.value, None, None)


_HOUSE_OUTCOMES = {
    BudgetOutcome.LATE: Outcome.LATE,
    BudgetOutcome.ILLEGAL: Outcome.ILLEGAL,
    BudgetOutcome.ERROR: Outcome.ERROR,
}


def _changed_key(before: dict[str, int], after: dict[str, int]) -> str:
    for key, count in after.items():
        if count != before.get(key, 0):
            return key
    return BudgetOutcome.OK
