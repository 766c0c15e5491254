"""Running one decision inside the budget, the same way everywhere.

Two entry points, one policy (RULINGS R17 and the SDK's promise never to lose a decision
to the clock):

* :func:`decide_inline` for in-process play (the arena, ``--local``): the bot runs to
  completion on this thread; if it took longer than the budget allows, or raised, or
  answered something illegal, its answer is replaced by the fallback, exactly as the
  fallback would have gone out online. Results offline therefore predict results online.
* :func:`decide_async` for network play: a coroutine bot is awaited and a plain bot runs
  in an executor (a thread by default, or a process pool for CPU-heavy bots), so the
  event loop keeps answering pings; at ``deadline`` the fallback is returned and a late
  answer is discarded, never sent.

Every decision is recorded in a :class:`~sdk.budget.DecisionStats`. Every decision that
ends in the fallback is logged with :func:`describe`'s name for it; a bot that raises
gets its full traceback logged the first time an error of that type leaves ``choose``
at that line, and one line each time after (an arena of thousands of decisions by a
broken bot must not bury the log in identical tracebacks).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import functools
import inspect
import logging
import sys
import time
import traceback
from collections.abc import Awaitable

from protocol.actions import Action
from sdk.bot import Bot, DecisionRequest
from sdk.budget import DecisionStats, Outcome
from sdk.view import GameView

__all__ = ["Traced", "decide_async", "decide_inline", "describe", "police", "police_raised"]

log = logging.getLogger("sdk.decide")
_OK = Outcome.OK  # a module constant: reading an enum member off its class is slow

Traced = tuple[Action | None, Action, str, float]
"""One traced decision: the bot's answer (``None`` if it raised or answered something
that is not an action), the action applied, the outcome and the seconds it took."""


def decide_inline(
    bot: Bot,
    view: GameView,
    request: DecisionRequest,
    stats: DecisionStats,
    trace: list[Traced] | None = None,
    clock: bool = True,
    *,
    started: float | None = None,
) -> Action:
    """Run ``bot.choose`` to completion and police the answer (see the module doc).

    A coroutine bot is run to completion with :func:`asyncio.run`. With ``trace`` (for
    game records), the decision is appended to it as a :data:`Traced` tuple. A late
    answer is replaced by the fallback with a warning that names the decision, unless
    ``clock`` is false (``--no-clock``: debugging, a breakpoint in ``choose``), when it
    stands. ``started`` is the :func:`time.monotonic` instant the request was made, if
    the caller just read it.

    The common case (a legal answer in time) is settled here; the rest is
    :func:`police` and :func:`police_raised`, which a caller that runs ``choose`` itself
    (the in-process table's loop) calls the same way.
    """
    now = time.monotonic
    start = now() if started is None else started
    try:
        action = bot.choose(view, request)
    except Exception:
        return police_raised(bot, view, request, stats, trace, start)
    end = now()
    if (end <= request.deadline or not clock) and action in request.legal_actions:
        stats.times.append(end - start)  # DecisionStats.record, inlined: the common case
        outcomes = stats.outcomes
        outcomes[_OK] = outcomes.get(_OK, 0) + 1
        if trace is not None:
            trace.append((action, action, _OK, end - start))
        return action
    return police(bot, view, request, stats, trace, clock, action, start, end)


def police(
    bot: Bot,
    view: GameView,
    request: DecisionRequest,
    stats: DecisionStats,
    trace: list[Traced] | None,
    clock: bool,
    answer: object,
    started: float,
    ended: float,
) -> Action:
    """Settle ``answer``, what ``bot.choose`` returned at ``ended`` for a request made
    at ``started``, when it is not a legal action in time: a coroutine's answer is
    awaited first (and may then be fine); a late one (``clock``) or an illegal one is
    replaced by the fallback. Records the decision in ``stats`` (and ``trace``)."""
    if type(answer) is not Action and inspect.isawaitable(answer):
        try:
            answer = asyncio.run(_await(answer))
        except Exception:
            return police_raised(bot, view, request, stats, trace, started)
        ended = time.monotonic()
        if (ended <= request.deadline or not clock) and answer in request.legal_actions:
            stats.record(ended - started)
            if trace is not None:
                trace.append((answer, answer, _OK, ended - started))  # type: ignore[arg-type]
            return answer  # type: ignore[return-value]
    if ended > request.deadline and clock:
        outcome = Outcome.LATE
        log.warning(
            "%s was late: %.2f s for %s, which allowed %.2f s; the fallback is used",
            bot.name,
            ended - started,
            describe(view, request),
            max(0.0, request.deadline - started),
        )
    else:
        _log_illegal(bot, view, request, answer)
        outcome = Outcome.ILLEGAL
    return _settle(bot, view, request, stats, trace, answer, outcome, ended - started)


def police_raised(
    bot: Bot,
    view: GameView,
    request: DecisionRequest,
    stats: DecisionStats,
    trace: list[Traced] | None,
    started: float,
) -> Action:
    """Settle a decision whose ``choose`` raised (call it in the ``except`` block, so
    the log has the traceback): the fallback is used."""
    _log_raised(bot, view, request)
    ended = time.monotonic()
    return _settle(bot, view, request, stats, trace, None, Outcome.ERROR, ended - started)


def _settle(
    bot: Bot,
    view: GameView,
    request: DecisionRequest,
    stats: DecisionStats,
    trace: list[Traced] | None,
    answer: object,
    outcome: str,
    seconds: float,
) -> Action:
    """Record a decision that ends in the fallback and return the fallback."""
    stats.record(seconds, outcome)
    applied = _fallback(bot, view, request)
    if trace is not None:
        trace.append((answer if isinstance(answer, Action) else None, applied, outcome, seconds))
    return applied


async def decide_async(
    bot: Bot,
    view: GameView,
    request: DecisionRequest,
    stats: DecisionStats,
    executor: concurrent.futures.Executor | None = None,
) -> Action:
    """Answer ``request`` by ``request.deadline`` whatever the bot does.

    A plain ``choose`` runs in ``executor`` (default: the loop's thread pool); with a
    :class:`concurrent.futures.ProcessPoolExecutor` the bot and view must pickle.
    """
    loop = asyncio.get_running_loop()
    start = time.monotonic()
    if inspect.iscoroutinefunction(bot.choose):
        job: Awaitable[Action] = asyncio.ensure_future(bot.choose(view, request))  # type: ignore[arg-type]
    elif isinstance(executor, concurrent.futures.ProcessPoolExecutor):
        # a context does not pickle: a process runs the bare call
        job = loop.run_in_executor(executor, _choose_sync, bot, view, request)
    else:
        ctx = contextvars.copy_context()
        call = functools.partial(ctx.run, _choose_sync, bot, view, request)
        job = loop.run_in_executor(executor, call)
    outcome = Outcome.OK
    action: Action | None = None
    try:
        action = await asyncio.wait_for(job, timeout=max(0.0, request.deadline - time.monotonic()))
    except TimeoutError:
        outcome = Outcome.LATE
        log.warning(
            "%s did not answer in time for %s; the fallback is used",
            bot.name,
            describe(view, request),
        )
    except Exception:
        outcome = Outcome.ERROR
        _log_raised(bot, view, request)
    if outcome is Outcome.OK and action not in request.legal_actions:
        _log_illegal(bot, view, request, action)
        outcome = Outcome.ILLEGAL
    stats.record(time.monotonic() - start, outcome)
    return action if outcome is Outcome.OK else _fallback(bot, view, request)  # type: ignore[return-value]


def describe(view: GameView, request: DecisionRequest) -> str:
    """Names a decision for a person: the hand, the seat, and what was asked.

    >>> from protocol.hand_state import HandState
    >>> from sdk.bot import DecisionRequest
    >>> hand = HandState.new(seed=7, dealer=0)
    >>> seat, legal = next(iter(hand.pending().items()))
    >>> describe(GameView(hand.view(seat)), DecisionRequest(legal, 0.0))
    'hand 1, seat 0, own turn (drew 3p)'
    """
    last = view.last_discard
    if request.is_claim and last is not None:
        what = f"a claim on {last}"
    else:
        drawn = request.drawn_tile or view.drawn_tile
        what = "own turn" + (f" (drew {drawn})" if drawn is not None else "")
    rid = f", request {request.request_id}" if request.request_id else ""
    hand = view.hand_number + 1  # hands count from 1 for people (docs/RECORDS.md, Numbering)
    return f"hand {hand}, seat {view.seat}, {what}{rid}"


_traced: set[tuple[str, type, str, int]] = set()
"""The errors whose traceback is already in the log: (bot name, exception type, file and
line where it left the bot's code)."""


def _log_raised(bot: Bot, view: GameView, request: DecisionRequest) -> None:
    """Log the exception being handled, raised by ``bot`` while choosing: with its
    traceback the first time this bot raises this type at this line, in one line after."""
    exc = sys.exc_info()[1]
    assert exc is not None, "call it in an except block"
    where = traceback.extract_tb(exc.__traceback__)[-1]
    key = (bot.name, type(exc), where.filename, where.lineno or 0)
    what = describe(view, request)
    if key in _traced:
        log.warning(
            "%s raised %s: %s for %s (traceback logged before); the fallback is used",
            bot.name,
            type(exc).__name__,
            exc,
            what,
        )
        return
    _traced.add(key)
    log.exception("%s raised while choosing for %s; the fallback is used", bot.name, what)


def _log_illegal(bot: Bot, view: GameView, request: DecisionRequest, answer: object) -> None:
    log.warning(
        "%s answered %r for %s, which is not legal; the fallback is used",
        bot.name,
        answer,
        describe(view, request),
    )


def _choose_sync(bot: Bot, view: GameView, request: DecisionRequest) -> Action:
    action = bot.choose(view, request)
    if inspect.isawaitable(action):
        return asyncio.run(_await(action))
    return action


async def _await(x: Awaitable[Action]) -> Action:
    return await x


def _fallback(bot: Bot, view: GameView, request: DecisionRequest) -> Action:
    """The bot's fallback, or the R17 default if the fallback itself misbehaves."""
    try:
        action = bot.fallback(view, request)
    except Exception:
        log.exception("%s.fallback raised; the tournament default is used", bot.name)
        return request.default()
    if action not in request.legal_actions:
        log.warning(
            "%s.fallback answered %r, not legal; the tournament default is used", bot.name, action
        )
        return request.default()
    return action
