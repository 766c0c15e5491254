"""One session loop for every transport: frames in, the bot's decisions out.

A :class:`Session` holds everything that outlives one connection: the bot, the seat's
:class:`~sdk.mirror.Mirror`, the decisions in flight, the timing statistics. For each
frame read, the loop does the same thing whatever carried it (protocol v1 over
WebSocket, the line protocol over stdin/stdout or TCP, or a scripted mock)::

    frame -> codec.receive() -> items -> mirror.apply(event) + hooks
                                      -> decide_async(request) -> codec.answer() -> frame

:func:`drive` runs a session over connections from a ``connect`` function, reconnecting
with jittered exponential backoff (:class:`Reconnect`) when the codec can resume.

The promises kept here (the rest of the budget policy is :mod:`sdk.decide`):

* **The clock starts when the request arrives.** The bot's deadline is the arrival time
  plus the time the server says is left, less the safety margin; the fallback goes out by
  then and a late answer is discarded.
* **The loop never waits for the bot.** Decisions run as tasks, so frames (including a
  resume's re-sent request, or the server's own timeout) keep being read meanwhile.
* **At most one reply per request on a connection.** An answer is written only while the
  codec still has that request pending and only on a connection that delivered it. After
  a drop the server re-sends a request it has not settled; the session then sends the
  same answer again (the first never arrived) or, if the bot is still thinking, answers
  when it is done, within the original deadline.
* **The mirror checks itself** against the legal actions the server sends (protocol v1),
  raising :class:`~sdk.mirror.MirrorMismatchError` in strict mode.

>>> Reconnect().delay(0, random.Random(1)) <= Reconnect().initial
True
>>> NO_RECONNECT.attempts
0
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import functools
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from protocol.errors import MahjongError
from protocol.events import Deal, Event, HandEnd, HandStart, MatchEnd
from protocol.match import DEFAULT_HANDS
from protocol.wire.common import (
    ActionRequest,
    ErrorCode,
    Outcome,
    RejectReason,
    ServerError,
    SessionEnd,
    SessionStart,
    WireInput,
)
from protocol.wire.session import SequenceGapError
from sdk.bot import Bot, DecisionRequest, MatchInfo
from sdk.budget import DEFAULT_BUDGET, Budget, DecisionStats
from sdk.decide import decide_async
from sdk.mirror import Mirror
from sdk.transports import Channel, ChannelClosed, Codec, ConnectFailed

__all__ = [
    "NO_RECONNECT",
    "ConnectionLost",
    "ProcessExecutor",
    "Reconnect",
    "SeatTaken",
    "ServerRefused",
    "Session",
    "SessionError",
    "SessionResult",
    "drive",
]

log = logging.getLogger("sdk.session")

_HOOKS = ("on_event", "on_hand_start", "on_hand_end", "on_match_end")
_BOT_THREADS = 8
"""Threads for plain bots; a bot still running past its deadline keeps one busy."""
_RETRYABLE_CODES = {ErrorCode.SEAT_TAKEN.value}
"""Fatal server errors worth a reconnect (the server may still hold our old socket)."""


class SeatTaken(ChannelClosed):
    """The server still holds the seat for an older connection: retried for as long as
    the server keeps saying so (while the match runs), whatever the reconnect policy's
    attempt and time limits, since the server ends it (bye, bad token) when it is over."""


class SessionError(MahjongError):
    """The session could not be completed."""


class ServerRefused(SessionError):
    """The server ended the session with a fatal error (``code`` is protocol v1's)."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        super().__init__(f"the server refused the session ({code}): {message}")


class ConnectionLost(SessionError):
    """The connection dropped and could not be resumed within the reconnect policy."""


@dataclass(frozen=True, slots=True)
class Reconnect:
    """When to try again after a drop (or a refused connection).

    The n-th consecutive attempt waits ``min(maximum, initial * factor**n)``, jittered
    to between half and all of it (so a table of bots that lost the same link do not
    knock all at once). The first retry is quick, because a pending request has at most
    3 s. Give up after ``attempts`` consecutive failures or ``give_up_after`` seconds
    without a working connection.

    The very first connection is another matter: nothing listening there is most often
    a server that is not running (or a wrong port), so it is tried again, quietly, for
    ``first_connect`` seconds only (a server still starting; not at all with
    ``attempts=0``), then the session fails with one :class:`ConnectionLost` (it used to
    log ``attempts`` warnings over 10 s).
    """

    attempts: int = 10
    initial: float = 0.05
    factor: float = 2.0
    maximum: float = 2.0
    give_up_after: float = 60.0
    first_connect: float = 1.0

    def delay(self, attempt: int, rng: random.Random) -> float:
        """Seconds to wait before attempt ``attempt`` (0-based)."""
        full = min(self.maximum, self.initial * self.factor**attempt)
        return full / 2 + rng.uniform(0, full / 2)


NO_RECONNECT = Reconnect(attempts=0, give_up_after=0.0)
"""For transports that cannot resume (the line protocol): a drop ends the session."""


@dataclass(slots=True)
class SessionResult:
    """What a finished (or failed) session leaves behind; see :meth:`to_json`."""

    name: str
    seat: int | None = None
    match_id: str = ""
    table_id: str = ""
    scores: tuple[int, ...] | None = None
    """Final scores by seat, from the match's end (``None`` if the transport never said,
    as with the line protocol)."""
    hands: int = 0
    """Hands started."""
    stats: DecisionStats = field(default_factory=DecisionStats)
    """The bot's decisions: time from the request's arrival to the answer, outcomes."""
    overhead: DecisionStats = field(default_factory=DecisionStats)
    """The SDK's own time per decision: decoding the frames since the previous decision,
    updating the mirror, handling the request (mirror check included) and encoding the
    answer. Waiting for the bot and the transport's write are not included."""
    mismatches: int = 0
    """Requests whose legal actions differed from the mirror's."""
    rejections: dict[str, int] = field(default_factory=dict)
    """The server's ``rejected`` answers by reason."""
    discarded: int = 0
    """Answers not sent because the server had settled the request meanwhile."""
    resent: int = 0
    """Answers sent again after a resume (the first one never reached the server)."""
    reconnects: int = 0
    end_reason: str = ""
    completed: bool = False

    def to_json(self) -> dict[str, Any]:
        """A plain dict (``--json``)."""
        return {
            "name": self.name,
            "seat": self.seat,
            "match_id": self.match_id,
            "table_id": self.table_id,
            "scores": None if self.scores is None else list(self.scores),
            "hands": self.hands,
            "timing": self.stats.to_json(),
            "sdk_overhead": self.overhead.to_json(),
            "mismatches": self.mismatches,
            "rejections": dict(self.rejections),
            "discarded": self.discarded,
            "resent": self.resent,
            "reconnects": self.reconnects,
            "end_reason": self.end_reason,
            "completed": self.completed,
        }


class Session:
    """A bot's seat in one match, across connections. Use :func:`drive` to run it, or
    :meth:`serve` for one connection (tests)."""

    def __init__(
        self,
        bot: Bot,
        codec: Codec,
        *,
        budget: Budget = DEFAULT_BUDGET,
        strict: bool = False,
        executor: concurrent.futures.Executor | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        """``executor`` runs plain bots (default: a thread pool of the session's own, so
        that a bot that never returns cannot hold up the end of the program's loop).
        ``clock`` times the SDK's overhead: wall time by default; ``time.thread_time``
        counts only this thread's CPU time (benchmarks on a busy machine)."""
        self._clock = clock
        self.bot, self.codec, self.budget = bot, codec, budget
        self.strict = strict
        self._own_executor = executor is None
        self.executor = executor or concurrent.futures.ThreadPoolExecutor(
            max_workers=_BOT_THREADS, thread_name_prefix="sdk-bot"
        )
        self.mirror: Mirror | None = None
        self.result = SessionResult(bot.name)
        self.finished = False
        self._hooks = {h for h in _HOOKS if bot.wants(h)}
        self._loaded = False
        self._greeted = False  # a SessionStart arrived on the current connection
        self._deals = 0
        self._channel: Channel | None = None
        self._delivered: set[str] = set()  # request ids delivered on this connection
        self._replied: set[str] = set()  # request ids answered on this connection
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._answers: dict[str, Any] = {}  # request id -> the action chosen
        self._pre: dict[str, float] = {}  # request id -> SDK time before the bot ran
        self._sdk_time = 0.0  # SDK time since the previous request

    @property
    def greeted(self) -> bool:
        """Whether the current (or last) connection got as far as the session start."""
        return self._greeted

    # -- one connection --

    async def serve(self, channel: Channel) -> None:
        """Run the session over ``channel`` until it ends (``SessionEnd``). Raises
        :class:`ChannelClosed` or :class:`SequenceGapError` when the connection must be
        replaced, :class:`ServerRefused` on a fatal server error."""
        self._channel, self._greeted = channel, False
        self._delivered, self._replied = set(), set()
        try:
            for frame in self.codec.opening():
                await channel.send(frame)
            while not self.finished:
                frame = await channel.recv()
                await self._receive(frame)
        finally:
            self._channel = None

    async def _receive(self, frame: str) -> None:
        arrival = time.monotonic()
        start = self._clock()
        try:
            items = self.codec.receive(frame)
        except self.codec.recoverable as exc:
            if self.strict or getattr(exc, "fatal", False):  # fatal: the session cannot go on
                raise
            log.error("ignoring a frame that cannot be read: %s (%r)", exc, frame[:200])
            return
        out = self.codec.outgoing()
        self._sdk_time += self._clock() - start
        for line in out:
            await self._send(line)
        for item in items:
            await self._handle(item, arrival)

    async def _send(self, frame: str) -> None:
        if self._channel is None:
            raise ChannelClosed("not connected")
        await self._channel.send(frame)

    async def _handle(self, item: WireInput, arrival: float) -> None:
        if isinstance(item, Event):
            self._on_event(item)
        elif isinstance(item, ActionRequest):
            await self._on_request(item, arrival)
        elif isinstance(item, SessionStart):
            await self._on_start(item)
        elif isinstance(item, Outcome):
            self._on_outcome(item)
        elif isinstance(item, ServerError):
            self._on_error(item)
        elif isinstance(item, SessionEnd):
            self._on_end(item)

    # -- items --

    def _on_event(self, event: Event) -> None:
        mirror = self.mirror
        if mirror is None:
            raise SessionError(f"event {event.type!r} before the session started")
        start = self._clock()
        mirror.apply(event)
        self._sdk_time += self._clock() - start
        if self._hooks:
            self._run_hooks(event, mirror)
        if isinstance(event, HandStart):
            self.result.hands += 1
        elif isinstance(event, MatchEnd):
            self.result.scores = tuple(event.scores)

    def _run_hooks(self, event: Event, mirror: Mirror) -> None:
        view, hooks = mirror.window, self._hooks
        if "on_event" in hooks:
            self._hook("on_event", view, event)
        if isinstance(event, HandStart):
            self._deals = 0
        elif isinstance(event, Deal):
            self._deals += 1
            if self._deals == 4 and "on_hand_start" in hooks:
                self._hook("on_hand_start", view)
        elif isinstance(event, HandEnd) and "on_hand_end" in hooks:
            self._hook("on_hand_end", view, event.result)
        elif isinstance(event, MatchEnd) and "on_match_end" in hooks:
            self._hook("on_match_end", view, tuple(event.scores))

    def _hook(self, name: str, *args: object) -> None:
        try:
            getattr(self.bot, name)(*args)
        except Exception:
            log.exception("%s.%s raised; the session goes on", self.bot.name, name)

    async def _on_start(self, start: SessionStart) -> None:
        result = self.result
        if self._loaded and not self._greeted:
            result.reconnects += 1
        self._greeted = True
        if self.mirror is None or not start.resumed:
            if self.mirror is not None:
                log.warning("the server started the session afresh; the mirror starts over")
            self.mirror = Mirror(start.seat, strict=self.strict)
            result.hands, result.scores = 0, None
        result.seat, result.match_id, result.table_id = start.seat, start.match_id, start.table_id
        if not self._loaded:
            await self._load(start)
        for frame in self.codec.ready():
            await self._send(frame)

    async def _load(self, start: SessionStart) -> None:
        """``on_match_start`` off the event loop (it may load a model), then ready."""
        config = start.config
        timing = config.get("timing") or {}
        info = MatchInfo(
            seat=start.seat,
            hands=int(config.get("hands", DEFAULT_HANDS)),
            match_id=start.match_id,
            table_id=start.table_id,
            decision_seconds=timing.get("decision_ms", self.budget.decision * 1000) / 1000,
            rules=dict(config),
        )
        if self.bot.wants("on_match_start"):
            await asyncio.to_thread(self._hook, "on_match_start", info)
        self._loaded = True

    def _on_outcome(self, outcome: Outcome) -> None:
        if outcome.accepted or outcome.reason is None:
            return
        reason = outcome.reason.value
        self.result.rejections[reason] = self.result.rejections.get(reason, 0) + 1
        quiet = outcome.reason in (RejectReason.STALE, RejectReason.LATE)
        (log.info if quiet else log.warning)(
            "request %s: the server refused the answer (%s: %s); it applied %s",
            outcome.request_id,
            reason,
            outcome.message,
            outcome.applied,
        )

    def _on_error(self, error: ServerError) -> None:
        if not error.fatal:
            log.warning("server: %s (%s)", error.message, error.code)
            return
        if error.code in _RETRYABLE_CODES:
            raise SeatTaken(f"{error.code}: {error.message}")
        raise ServerRefused(error.code, error.message)

    def _on_end(self, end: SessionEnd) -> None:
        self.finished = True
        self.result.completed = True
        self.result.end_reason = end.reason
        if self.result.scores is None and self.mirror is not None and "on_match_end" in self._hooks:
            self._hook("on_match_end", self.mirror.window, self.mirror.window.scores)

    # -- decisions --

    async def _on_request(self, request: ActionRequest, arrival: float) -> None:
        rid = request.request_id
        self._delivered.add(rid)
        if rid in self._answers:  # re-sent after a resume: our reply never arrived
            self.result.resent += 1
            await self._reply(rid, self._answers[rid])
            return
        if rid in self._tasks:  # re-sent while the bot still thinks: it answers when done
            return
        self._answers.clear()  # a new request settles every earlier one
        mirror = self.mirror
        if mirror is None:
            raise SessionError("a request before the session started")
        start = self._clock()
        if self.codec.checks_legal and not mirror.check(request.legal):
            self.result.mismatches += 1
        deadline = arrival + max(0.0, request.time_left - self.budget.safety_margin)
        decision = DecisionRequest(request.legal, deadline, rid, request.drawn_tile)
        self._pre[rid] = self._sdk_time + self._clock() - start
        self._sdk_time = 0.0
        self._tasks[rid] = asyncio.create_task(self._decide(decision, mirror))

    async def _decide(self, request: DecisionRequest, mirror: Mirror) -> None:
        rid = request.request_id
        try:
            action = await decide_async(
                self.bot, mirror.window, request, self.result.stats, self.executor
            )
            self._answers[rid] = action
            await self._reply(rid, action)
        except ChannelClosed:
            pass  # the reader notices the drop; a resume re-sends the request
        finally:
            self._tasks.pop(rid, None)

    async def _reply(self, rid: str, action: Any) -> None:
        """Write the answer to ``rid`` if this connection delivered it and it is still
        pending; at most once per connection."""
        channel = self._channel
        if channel is None or rid not in self._delivered or rid in self._replied:
            return  # sent on the next connection, if the server re-sends the request
        start = self._clock()
        frame = self.codec.answer(rid, action)
        if frame is None:
            self.result.discarded += 1
            log.info("request %s was settled before the answer was ready; discarded", rid)
            return
        self._replied.add(rid)
        pre = self._pre.pop(rid, None)
        if pre is not None:  # the write itself is the transport's (it may yield)
            self.result.overhead.record(pre + self._clock() - start)
        await channel.send(frame)

    # -- end --

    async def close(self) -> SessionResult:
        """Stop decisions still in flight; return the result."""
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._own_executor:  # never wait for a bot still thinking past its deadline
            self.executor.shutdown(wait=False, cancel_futures=True)
        if self.mirror is not None:
            self.result.mismatches = max(self.result.mismatches, self.mirror.mismatches)
        return self.result


class ProcessExecutor(concurrent.futures.Executor):
    """A process pool for CPU-heavy plain bots (``--process-pool``).

    :func:`sdk.decide.decide_async` wraps the bot call in ``Context.run`` so that context
    variables follow it into a thread; a context cannot be pickled, so this executor
    unwraps that call before handing it to a :class:`~concurrent.futures.ProcessPoolExecutor`.
    The bot and the view are pickled for every decision: state the bot changes in the
    worker does not come back, and a worker that is still thinking past the deadline
    keeps its process busy (use more workers than one if that matters).
    """

    def __init__(self, workers: int = 1) -> None:
        self.pool = concurrent.futures.ProcessPoolExecutor(max_workers=workers)

    def submit(  # type: ignore[override]
        self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any
    ) -> concurrent.futures.Future[Any]:
        if (
            isinstance(fn, functools.partial)
            and isinstance(getattr(fn.func, "__self__", None), contextvars.Context)
            and fn.args
        ):
            fn = functools.partial(fn.args[0], *fn.args[1:], **fn.keywords)
        return self.pool.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.pool.shutdown(wait=wait, cancel_futures=cancel_futures)


async def drive(
    session: Session,
    connect: Callable[[], Awaitable[Channel]],
    reconnect: Reconnect = NO_RECONNECT,
    *,
    rng: random.Random | None = None,
) -> SessionResult:
    """Run ``session`` to its end over connections made by ``connect``.

    A connection that fails to open, drops, or skips events (:class:`SequenceGapError`)
    is replaced after a jittered backoff, if the codec can resume and ``reconnect``
    allows; the new connection resumes where the old one stopped. Raises
    :class:`ConnectionLost` when it gives up, :class:`ServerRefused` on a fatal server
    error. The session is closed (decisions in flight cancelled) in every case.
    """
    rng = rng or random.Random()
    failures, down_since = 0, time.monotonic()
    opened = False
    try:
        while True:
            channel = None
            try:
                channel = await connect()
                opened = True
                await session.serve(channel)
                return session.result
            except ConnectFailed as exc:
                if opened:
                    raise
                _check_first(session, reconnect, down_since, exc)
                await asyncio.sleep(min(FIRST_RETRY, reconnect.first_connect))
            except (ChannelClosed, SequenceGapError) as exc:
                if session.greeted:  # this connection had been working
                    failures, down_since = 0, time.monotonic()
                elif isinstance(exc, SeatTaken):  # held for us: the match runs, keep knocking
                    failures = min(failures, max(0, reconnect.attempts - 1))
                    down_since = time.monotonic()
                failures += 1
                _check_retry(session, reconnect, failures, down_since, exc)
                await asyncio.sleep(reconnect.delay(failures - 1, rng))
            finally:
                if channel is not None:
                    await channel.close()
    finally:
        await session.close()


FIRST_RETRY = 0.25
"""Seconds between the quiet attempts at a first connection."""


def _check_first(session: Session, policy: Reconnect, since: float, exc: Exception) -> None:
    """Raise :class:`ConnectionLost` unless the first connection may be tried again."""
    waited = time.monotonic() - since
    if (
        not session.codec.resumable
        or policy.attempts == 0
        or waited + FIRST_RETRY > policy.first_connect
    ):
        raise ConnectionLost(str(exc)) from exc
    log.debug("cannot connect yet (%s); trying again", exc)


def _check_retry(
    session: Session, policy: Reconnect, failures: int, down_since: float, exc: Exception
) -> None:
    """Raise :class:`ConnectionLost` unless the policy allows another attempt."""
    if not session.codec.resumable:
        raise ConnectionLost(f"the connection ended before the match did: {exc}") from exc
    if failures > policy.attempts or time.monotonic() - down_since > policy.give_up_after:
        raise ConnectionLost(f"gave up after {failures - 1} reconnect attempts: {exc}") from exc
    log.warning("connection lost (%s); reconnecting (attempt %d)", exc, failures)
