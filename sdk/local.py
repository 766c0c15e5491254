"""In-process play: the referee drives four bots directly, no serialisation.

This is the transport the arena and ``python -m bots.<name> --local`` use. Each bot sees
exactly what it would see over the network: a :class:`~sdk.mirror.Mirror` fed with its
seat's projected events, a :class:`~sdk.bot.DecisionRequest` with the exact legal actions
and a deadline, and the same budget policy (:func:`sdk.decide.decide_inline`).

No mirror is fed unless it must be. A seat whose bot does not listen to events reads
the referee's own state of that seat (its :class:`~protocol.view.PublicState` and the
seat's :class:`~protocol.view.OwnState`): a mirror fed with the seat's projection holds
exactly that state, since both are kept by the same handlers, so the bot sees what an
eager mirror would show at no cost per event. Only ``seat_view`` (the raw state) is
handed out as a copy, so that no bot can change the referee's state. A seat whose bot
listens (``on_event``) has its mirror fed event by event, as its handler must see the
view at each event. ``lazy_views=False`` (and strict mode) feeds every mirror at every
event: the plain path the tests compare the fast one against (same decisions, same
events, same results).

When no seat listens and no bot has a hand or match hook (the arena's usual table),
nothing at all happens between two decisions but the decision itself, so the table
plays each hand in one tight loop: no mirror exists, the common case of the budget
policy (a legal answer in time) is settled in the loop (the rest goes to
:func:`sdk.decide.police`, the same policy), and the referee takes the answer with
:meth:`~protocol.hand_state.HandState.apply_legal`, as the loop has just checked it
against the referee's own tuple of legal actions; the match takes in the hand's events
at its end (:meth:`~protocol.match.Match.sync`), and unless the match is recorded it
keeps no log of past hands (``Match.new(keep_events=False)``: nothing reads it, and a
log of dead events only makes work for the garbage collector).

>>> from sdk.bot import Bot
>>> first = [Bot.from_function(lambda v, r: r.legal_actions[-1], name=f"p{i}") for i in range(4)]
>>> result = play_match(first, seed=1, hands=2)
>>> len(result.hand_results), sum(result.scores)
(2, 0)
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from protocol.actions import Action
from protocol.events import Event, HandEnd, HandResult, HandStart, MatchEnd, project
from protocol.hand_state import HandState
from protocol.match import DEFAULT_HANDS, Match
from protocol.tiles import Tile
from protocol.view import SeatView
from sdk.bot import Bot, DecisionRequest, MatchInfo
from sdk.budget import DEFAULT_BUDGET, Budget, DecisionStats, Outcome
from sdk.decide import Traced, decide_inline, police, police_raised
from sdk.mirror import Mirror
from sdk.records import Header, Origin, Record, SeatInfo, Timing, parse_text
from sdk.records.stream import RecordStream
from sdk.view import GameView

__all__ = ["MatchResult", "play_match"]

_OK = Outcome.OK  # a module constant: reading an enum member off its class is slow


@dataclass(slots=True)
class MatchResult:
    """A finished match. Lists indexed by *player* (the order of the bots given) unless
    they say seats. ``seats[p]`` is the seat player ``p`` sat at."""

    seed: int
    names: tuple[str, ...]
    seats: tuple[int, ...]
    scores: tuple[int, ...]
    hand_results: list[HandResult]
    """Each hand's result, in seats."""
    stats: list[DecisionStats]
    events: list[Event] = field(default_factory=list)
    """The referee's full event log, when recorded."""
    record_bytes: bytes | None = None
    """The game record's text (UTF-8), when asked for: what ``--save-log`` writes."""

    @property
    def record(self) -> Record | None:
        """The game record (:mod:`sdk.records`), when asked for (read from
        :attr:`record_bytes` at each call)."""
        if self.record_bytes is None:
            return None
        return parse_text(self.record_bytes.decode(), source="match record")

    def player_at(self, seat: int) -> int:
        """The player sitting at ``seat``."""
        return self.seats.index(seat)

    def to_json(self) -> dict[str, Any]:
        """A plain dict (``--json``)."""
        return {
            "seed": self.seed,
            "players": [
                {"name": n, "seat": s, "score": sc, "timing": st.to_json()}
                for n, s, sc, st in zip(
                    self.names, self.seats, self.scores, self.stats, strict=True
                )
            ],
            "hands": [r.to_json() for r in self.hand_results],
        }


def play_match(
    bots: Sequence[Bot],
    *,
    seed: int = 0,
    hands: int = DEFAULT_HANDS,
    seats: Sequence[int] = (0, 1, 2, 3),
    first_dealer: int = 0,
    budget: Budget = DEFAULT_BUDGET,
    strict: bool = False,
    record_events: bool = False,
    record: bool = False,
    origin: Origin | None = None,
    lazy_views: bool = True,
    clock: bool = True,
) -> MatchResult:
    """Play one match of four bots in this process.

    ``seats[p]`` is where ``bots[p]`` sits (duplicate play re-deals the same seed with
    rotated seats). ``strict`` checks every mirror's legal actions against the referee's
    and raises on a difference (slower; for tests). Use a distinct bot object per player.
    ``record`` keeps the game record (``result.record``; ``origin`` says where it was
    played, ``local`` by default). ``lazy_views=False`` feeds every mirror at once (see
    the module doc).

    The clock is the server's and the arena's: each request carries the deadline of
    ``budget``, and an answer later than that is replaced by the bot's fallback (with a
    warning naming the decision), as it would be online. ``clock=False`` lets late
    answers stand (deadlines and ``time_left`` are unchanged), for debugging.
    """
    if len(bots) != 4:
        raise ValueError(f"a match needs four bots, got {len(bots)}")
    quiet = lazy_views and not strict and not any(_listens(bot) for bot in bots)
    match = Match.new(
        seed,
        hands,
        first_dealer=first_dealer,
        seat_permutation=seats,
        keep_events=record or record_events or not quiet,  # the lazy loop reads no log
    )
    table = _Table(match, bots, budget, strict, lazy_views, clock)
    if record:
        table.stream = RecordStream(_header(table, budget, time.time(), origin), match.events)
    table.start()
    table.run()
    return MatchResult(
        seed=seed,
        names=tuple(b.name for b in bots),
        seats=tuple(match.seat_permutation),
        scores=match.player_scores(),
        hand_results=list(match.results),
        stats=table.stats,
        events=list(match.events) if record_events else [],
        record_bytes=None if table.stream is None else table.stream.finish("finished", time.time()),
    )


_HOOKS = ("on_event", "on_hand_start", "on_hand_end", "on_match_end")


def _listens(bot: Bot) -> bool:
    """Whether ``bot`` has a handler for events or for a hand's or match's start or end
    (its table then releases the events as they happen; see :meth:`_Table.run`)."""
    return any(bot.wants(hook) for hook in _HOOKS)


def _header(table: _Table, budget: Budget, started: float, origin: Origin | None) -> Header:
    """The header of ``table``'s match record."""
    match = table.match
    seats = tuple(
        SeatInfo(s, match.player_at(s), bot.name, str(getattr(bot, "version", "") or ""))
        for s, bot in enumerate(table.bot_at)
    )
    return Header(
        seed=match.seed,
        hands=match.hands,
        seats=seats,
        first_dealer=match.first_dealer,
        timing=Timing(budget.decision, budget.safety_margin, started),
        origin=origin or Origin("local"),
    )


def _fast_request(
    legal: tuple[Action, ...], deadline: float, request_id: str, drawn: Tile | None
) -> DecisionRequest:
    """``DecisionRequest(legal, deadline, request_id, drawn)``, built without the frozen
    dataclass's ``__init__`` (its ``object.__setattr__`` calls cost about as much as a
    random bot's whole decision)."""
    request = _new(DecisionRequest)
    _set_legal(request, legal)
    _set_deadline(request, deadline)
    _set_id(request, request_id)
    _set_drawn(request, drawn)
    return request


_new = object.__new__
_set_legal = DecisionRequest.legal_actions.__set__  # type: ignore[attr-defined]
_set_deadline = DecisionRequest.deadline.__set__  # type: ignore[attr-defined]
_set_id = DecisionRequest.request_id.__set__  # type: ignore[attr-defined]
_set_drawn = DecisionRequest.drawn_tile.__set__  # type: ignore[attr-defined]
_FIELDS = ("legal_actions", "deadline", "request_id", "drawn_tile")
# if DecisionRequest ever changes shape, the plain constructor is used instead
_request = (
    _fast_request
    if tuple(f.name for f in dataclasses.fields(DecisionRequest)) == _FIELDS
    else DecisionRequest
)


class _Table:
    """The loop state of :func:`play_match` (kept apart so each step stays short).

    ``horizon`` events of the match's log have been released to the bots; each seat's
    :class:`_SeatFeed` catches its mirror up to it when needed.
    """

    def __init__(
        self,
        match: Match,
        bots: Sequence[Bot],
        budget: Budget,
        strict: bool,
        lazy: bool,
        clock: bool = True,
    ) -> None:
        self.match = match
        self.budget = budget
        self.strict = strict
        self.clock = clock
        self.eager = strict or not lazy
        self.horizon = 0
        self.bot_at = [bots[match.player_at(seat)] for seat in range(4)]
        listening = [seat for seat in range(4) if self.bot_at[seat].wants("on_event")]
        self.feeds = [
            _SeatFeed(seat, self, mirrored=self.eager or seat in listening) for seat in range(4)
        ]
        self.stats = [DecisionStats() for _ in range(4)]
        self.stats_at = [self.stats[match.player_at(seat)] for seat in range(4)]
        self.stream: RecordStream | None = None
        """The game record, when recording: each decision is added to it as asked and
        as settled, and what is settled is encoded at each new hand."""
        self.listeners = [self.feeds[seat] for seat in listening]
        for feed in self.listeners:
            feed.listens = True
            if not self.eager:  # fed event by event: its handler sees each step
                feed.window = _SyncedView(feed)
        self.fed = self.feeds if self.eager else self.listeners
        self.hooked = any(bot.wants(h) for bot in self.bot_at for h in _HOOKS[1:])

    def start(self) -> None:
        for seat, bot in enumerate(self.bot_at):
            bot.on_match_start(
                MatchInfo(seat=seat, hands=self.match.hands, decision_seconds=self.budget.decision)
            )
        self.release()

    def run(self) -> None:
        """Play the match to its end: :meth:`_run_lazy` when no mirror is fed and no
        hook is called (the arena's usual case), else :meth:`_run_fed`."""
        if self.fed or self.hooked:
            self._run_fed()
            return
        match = self.match
        while not match.is_over:
            if self.stream is not None:  # a new hand: encode the last one's record
                self.stream.flush()
            self._run_lazy(match.current)
        self.horizon = len(match.events)

    def _run_lazy(self, hand: HandState) -> None:
        """Play ``hand`` to its end when nothing is released between decisions: ask the
        seat, police its answer, apply it (the arena's hot path, so the common case of
        :func:`~sdk.decide.decide_inline` is inlined and the referee does not check the
        answer against its legal actions again: this loop just did, against the
        referee's own tuple). The bots' views read the referee's live state."""
        match, bots, stats = self.match, self.bot_at, self.stats_at
        views = [feed.window for feed in self.feeds]
        reply_within, clock, enforce = self.budget.reply_within, time.monotonic, self.clock
        stream, events = self.stream, match.events
        trace = None if stream is None else stream.settled
        ask = None if stream is None else stream.asked.append
        apply, ok = hand.apply_legal, _OK
        inline_request, new_request = _request is _fast_request, _new
        times = [seat_stats.times.append for seat_stats in stats]
        oks = [0, 0, 0, 0]  # answers legal and in time not yet counted in ``stats``
        base = len(events) - len(hand.events)
        item = hand.next_pending()
        while item is not None:
            seat, legal = item
            now = clock()
            deadline = now + reply_within
            if inline_request:  # _fast_request, inlined
                request = new_request(DecisionRequest)
                _set_legal(request, legal)
                _set_deadline(request, deadline)
                _set_id(request, "")
                _set_drawn(request, hand.drawn_tile(seat))
            else:
                request = _request(legal, deadline, "", hand.drawn_tile(seat))
            if ask is not None:  # recording: what was asked (the answer is traced below)
                ask((seat, base + len(hand.events), legal))
            bot = bots[seat]
            try:
                action = bot.choose(views[seat], request)
            except Exception:
                _count_oks(stats, oks)
                action = police_raised(bot, views[seat], request, stats[seat], trace, now)
            else:
                end = clock()
                if (end <= deadline or not enforce) and action in legal:
                    times[seat](end - now)  # DecisionStats.record, batched
                    oks[seat] += 1
                    if trace is not None:
                        trace.append((action, action, ok, end - now))
                else:  # late, illegal or a coroutine: the policy's other cases
                    _count_oks(stats, oks)
                    action = police(
                        bot, views[seat], request, stats[seat], trace, enforce, action, now, end
                    )
            apply(seat, action, legal)
            item = hand.next_pending()
        _count_oks(stats, oks)
        match.sync()

    def _run_fed(self) -> None:
        """Ask the seat to move, police its answer, apply it, release the events to the
        fed mirrors and the hooks; until the match is over (the plain path, and the
        path of bots that listen to events or hooks)."""
        match, feeds, bots, stats = self.match, self.feeds, self.bot_at, self.stats_at
        reply_within, eager, strict = self.budget.reply_within, self.eager, self.strict
        events, clock = match.events, time.monotonic
        stream = self.stream
        trace: list[Traced] | None = None if stream is None else stream.settled
        ask = None if stream is None else stream.asked.append
        recorded = None  # the hand the stream has seen
        enforce = self.clock
        while not match.is_over:
            hand = match.current
            seat, legal = next(iter(hand.pending().items()))
            feed = feeds[seat]
            if eager:
                mirror = feed.mirror
                assert mirror is not None  # every seat has one when eager
                if strict:
                    mirror.check(legal)
                drawn = mirror.window.drawn_tile
            else:  # the referee's copy of what the mirror would say, without feeding it
                drawn = hand.drawn_tile(seat)
            now = clock()
            request = _request(legal, now + reply_within, "", drawn)
            if trace is not None:  # recording: what was asked (decide_inline adds the rest)
                if hand is not recorded:  # a new hand: encode the last one's
                    stream.flush()  # type: ignore[union-attr]
                    recorded = hand
                ask((seat, len(events), legal))  # type: ignore[misc]
            action = decide_inline(
                bots[seat], feed.window, request, stats[seat], trace, enforce, started=now
            )
            match.apply(seat, action)
            self.release()

    def release(self) -> None:
        """Release the events the referee emitted since the last call to the bots."""
        start, end = self.horizon, len(self.match.events)
        if self.fed:
            self._one_by_one(start, end)
        self.horizon = end
        if self.hooked:
            self._hooks(self.match.events[start:end])

    def _one_by_one(self, start: int, end: int) -> None:
        """Event by event, the fed mirrors take it in and listeners hear it, their view
        then holding exactly the events up to that one."""
        for i in range(start, end):
            self.horizon = i + 1
            for feed in self.fed:
                seen = feed.catch_up()
                if seen is not None and feed.listens:
                    feed.bot.on_event(feed.window, seen)

    def _hooks(self, events: Sequence[Event]) -> None:
        for event in events:
            for seat, bot in enumerate(self.bot_at):
                window = self.feeds[seat].window
                if isinstance(event, HandEnd):
                    bot.on_hand_end(window, event.result)
                elif isinstance(event, MatchEnd):
                    bot.on_match_end(window, tuple(event.scores))
        if any(isinstance(e, HandStart) for e in events):
            for seat, bot in enumerate(self.bot_at):
                bot.on_hand_start(self.feeds[seat].window)


def _count_oks(stats: list[DecisionStats], oks: list[int]) -> None:
    """Add the decisions counted in ``oks`` to the outcomes of ``stats`` and zero them;
    done before any other outcome is recorded, so each seat's outcomes keep the order
    in which they first occurred, as :meth:`DecisionStats.record` would give."""
    for seat, n in enumerate(oks):
        if n:
            outcomes = stats[seat].outcomes
            outcomes[_OK] = outcomes.get(_OK, 0) + n
            oks[seat] = 0


class _SeatFeed:
    """One seat's mirror, fed from the shared event log up to the table's horizon."""

    __slots__ = ("cursor", "events", "listens", "mirror", "seat", "table", "window")

    def __init__(self, seat: int, table: _Table, *, mirrored: bool) -> None:
        self.seat = seat
        self.table = table
        self.events = table.match.events
        self.cursor = 0
        self.mirror: Mirror | None = Mirror(seat, strict=table.strict) if mirrored else None
        """Only a seat fed event by event has one (the others read the live state)."""
        self.window: GameView = self.mirror.window if table.eager else _LiveView(self)  # type: ignore[union-attr]
        self.listens = False

    @property
    def bot(self) -> Bot:
        return self.table.bot_at[self.seat]

    def catch_up(self) -> Event | None:
        """Apply this seat's projection of every released event not applied yet; return
        the last one as this seat saw it (``None`` if it did not see it)."""
        events, end, seat = self.events, self.table.horizon, self.seat
        apply = self.mirror.view.apply  # type: ignore[union-attr]  # fed seats have one
        seen = None
        while self.cursor < end:
            event = events[self.cursor]
            self.cursor += 1
            owner = event.seat
            seen = event if owner is None or owner == seat else project(event, seat)
            if seen is not None:
                apply(seen)
        return seen


class _SyncedView(GameView):
    """A :class:`GameView` that catches its seat's mirror up before every read."""

    __slots__ = ("_feed",)

    def __init__(self, feed: _SeatFeed) -> None:  # GameView.__init__ would set the slot
        self._feed = feed

    @property  # type: ignore[override]
    def _view(self) -> SeatView:
        feed = self._feed
        if feed.cursor < feed.table.horizon:
            feed.catch_up()
        return feed.mirror.view  # type: ignore[union-attr]  # a listener has one


class _LiveView(GameView):
    """A :class:`GameView` on the referee's own state of its seat in the current hand
    (what a mirror fed to the table's horizon would hold; see the module doc)."""

    __slots__ = ("_feed", "_hand", "_live")

    def __init__(self, feed: _SeatFeed) -> None:  # GameView.__init__ would set the slot
        self._feed = feed
        self._hand: HandState | None = None  # the live view is made at the first read

    @property  # type: ignore[override]
    def _view(self) -> SeatView:
        hand = self._feed.table.match.current
        if hand is not self._hand:
            self._hand = hand
            live = self._live = SeatView(self._feed.seat, hand.public)
            live.own = hand.owns[self._feed.seat]
        return self._live

    @property
    def seat_view(self) -> SeatView:
        """A copy of the seat's state (the live one is the referee's), with the match's
        end taken in as a mirror would have."""
        live = self._view
        view = SeatView(self._feed.seat, live.public.copy())
        view.own = live.own.copy()
        if self._feed.table.match.is_over:
            view.apply(self._feed.table.match.events[-1])
        return view
