"""In-process play: the referee drives four bots directly, no serialisation.

This is the transport the arena and ``python -m bots.<name> --local`` use. Each bot sees
exactly what it would see over the network: a :class:`~sdk.mirror.Mirror` fed with its
seat's projected events, a :class:`~sdk.bot.DecisionRequest` with the exact legal actions
and a deadline, and the same budget policy (:func:`sdk.decide.decide_inline`).

>>> from sdk.bot import Bot
>>> first = [Bot.from_function(lambda v, r: r.legal_actions[-1], name=f"p{i}") for i in range(4)]
>>> result = play_match(first, seed=1, hands=2)
>>> len(result.hand_results), sum(result.scores)
(2, 0)
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from protocol.actions import Action
from protocol.events import Event, HandEnd, HandResult, HandStart, MatchEnd, project
from protocol.match import DEFAULT_HANDS, Match
from sdk.bot import Bot, DecisionRequest, MatchInfo
from sdk.budget import DEFAULT_BUDGET, Budget, DecisionStats
from sdk.decide import Traced, decide_inline
from sdk.mirror import Mirror
from sdk.records import Decision, Header, Origin, Record, SeatInfo, Timing, build_record

__all__ = ["MatchResult", "play_match"]


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
    record: Record | None = None
    """The game record (:mod:`sdk.records`), when asked for."""

    def player_at(self, seat: int) -> int:
        return self.seats.index(seat)

    def to_json(self) -> dict[str, Any]:
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
) -> MatchResult:
    """Play one match of four bots in this process.

    ``seats[p]`` is where ``bots[p]`` sits (duplicate play re-deals the same seed with
    rotated seats). ``strict`` checks every mirror's legal actions against the referee's
    and raises on a difference (slower; for tests). Use a distinct bot object per player.
    ``record`` keeps the game record (``result.record``; ``origin`` says where it was
    played, ``local`` by default).
    """
    if len(bots) != 4:
        raise ValueError(f"a match needs four bots, got {len(bots)}")
    match = Match.new(seed, hands, first_dealer=first_dealer, seat_permutation=seats)
    table = _Table(match, bots, budget, strict)
    if record:
        table.trace = []
    started = time.time()
    table.start()
    while not match.is_over:
        table.step()
    return MatchResult(
        seed=seed,
        names=tuple(b.name for b in bots),
        seats=tuple(match.seat_permutation),
        scores=match.player_scores(),
        hand_results=list(match.results),
        stats=table.stats,
        events=list(match.events) if record_events else [],
        record=_record(table, budget, started, origin) if record else None,
    )


def _record(table: _Table, budget: Budget, started: float, origin: Origin | None) -> Record:
    """The game record of ``table``'s finished match."""
    match = table.match
    seats = tuple(
        SeatInfo(s, match.player_at(s), bot.name, str(getattr(bot, "version", "") or ""))
        for s, bot in enumerate(table.bot_at)
    )
    header = Header(
        seed=match.seed,
        hands=match.hands,
        seats=seats,
        first_dealer=match.first_dealer,
        timing=Timing(budget.decision, budget.safety_margin, started),
        origin=origin or Origin("local"),
    )
    decisions = [
        Decision(hand, seat, after, legal, answer, applied, outcome, seconds * 1000)  # type: ignore[arg-type]
        for (hand, seat, after, legal), (answer, applied, outcome, seconds) in zip(
            table.asked, table.trace or (), strict=True
        )
    ]
    return build_record(header, match.events, decisions, status="finished", ended_at=time.time())


class _Table:
    """The loop state of :func:`play_match` (kept apart so each step stays short)."""

    def __init__(self, match: Match, bots: Sequence[Bot], budget: Budget, strict: bool) -> None:
        self.match = match
        self.budget = budget
        self.strict = strict
        self.mirrors = [Mirror(seat, strict=strict) for seat in range(4)]
        self.bot_at = [bots[match.player_at(seat)] for seat in range(4)]
        self.stats = [DecisionStats() for _ in range(4)]
        self.stats_at = [self.stats[match.player_at(seat)] for seat in range(4)]
        self.listeners = [bot.wants("on_event") for bot in self.bot_at]
        self.trace: list[Traced] | None = None
        """Each decision's answer, outcome and time, when recording."""
        self.asked: list[tuple[int, int, int, tuple[Action, ...]]] = []
        """Each recorded decision's hand, seat, events before it and legal actions."""
        self.hooked = any(
            bot.wants(h)
            for bot in self.bot_at
            for h in ("on_event", "on_hand_start", "on_hand_end", "on_match_end")
        )

    def start(self) -> None:
        for seat, bot in enumerate(self.bot_at):
            bot.on_match_start(
                MatchInfo(seat=seat, hands=self.match.hands, decision_seconds=self.budget.decision)
            )
        self.feed(self.match.events)

    def step(self) -> None:
        seat, legal = next(iter(self.match.pending().items()))
        mirror = self.mirrors[seat]
        if self.strict:
            mirror.check(legal)
        request = DecisionRequest(
            legal, time.monotonic() + self.budget.reply_within, "", mirror.window.drawn_tile
        )
        trace = self.trace
        if trace is not None:
            self.asked.append((self.match.hand_no, seat, len(self.match.events), legal))
        action = decide_inline(
            self.bot_at[seat], mirror.window, request, self.stats_at[seat], trace
        )
        self.feed(self.match.apply(seat, action))

    def feed(self, events: Sequence[Event]) -> None:
        mirrors = self.mirrors
        for event in events:
            # every seat but the event's own sees the same projection: project once
            owner = event.seat
            others = event if owner is None else project(event, (owner + 1) % 4)
            for seat in range(4):
                seen = event if seat == owner else others
                if seen is not None:
                    mirrors[seat].view.apply(seen)
                    if self.listeners[seat]:
                        self.bot_at[seat].on_event(mirrors[seat].window, seen)
        if self.hooked:
            self._hooks(events)

    def _hooks(self, events: Sequence[Event]) -> None:
        for event in events:
            for seat, bot in enumerate(self.bot_at):
                window = self.mirrors[seat].window
                if isinstance(event, HandEnd):
                    bot.on_hand_end(window, event.result)
                elif isinstance(event, MatchEnd):
                    bot.on_match_end(window, tuple(event.scores))
        if any(isinstance(e, HandStart) for e in events):
            for seat, bot in enumerate(self.bot_at):
                bot.on_hand_start(self.mirrors[seat].window)
