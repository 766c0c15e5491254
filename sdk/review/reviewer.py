"""Reviewing one seat's decisions in a record: what a bot (and a reference) would have
answered, the hand's shanten and waits before and after, the unseen tiles, and which
decisions cost the most.

The bots under review watch the seat's projected events through a
:class:`~sdk.mirror.Mirror`, exactly as in play; at each of the seat's decisions they
are asked, through the same budget policy (:func:`sdk.decide.decide_inline`), what they
would answer. Their answers change nothing: the game goes on as recorded. Everything is
measured on the seat's own view, so a record of that seat's side only (a line-protocol
transcript, :mod:`sdk.records.transcript`) is reviewed as well as a full one.

At each decision the review keeps the table as the seat saw it (:mod:`sdk.review.board`)
and the candidates with their values (:mod:`sdk.review.candidates`): from the reference
bot's ``explain(view, request)`` when it has one, else the shanten and improving tiles
each legal action leaves.

Costs: with the reference's values, a decision costs ``value(best) - value(chosen)``
expected points (:attr:`DecisionReview.value_cost`), and the costliest list ranks by
it. What happened is costed too (:attr:`DecisionReview.cost`): a discard that dealt in
costs what the seat paid for that win; a win let go by (R9) costs what that win would
have paid the seat (scored by the referee's own scorer from the seat's view at that
moment, :func:`protocol.hand_state.own_situation`); a fallback (late, error,
illegal...) is listed without a figure.

>>> from protocol.match import Match
>>> from sdk.records import Header, SeatInfo, build_record
>>> m = Match.new(seed=1, hands=1)
>>> rec = build_record(Header(1, 1, tuple(SeatInfo(s, s, "b") for s in range(4))), m.events, [])
>>> review_record(rec, 0, "bots.random").decisions
[]
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from protocol.actions import WIN, Action, ActionKind
from protocol.analysis import shanten_counts, waits_counts
from protocol.events import Deal, Event, HandEnd, MatchEnd, Win, project
from protocol.hand_state import own_situation
from protocol.scoring import score_win
from protocol.tiles import KIND_COUNT, Tile
from sdk.arena.loader import BotFactory, BotSource, load_bot
from sdk.bot import Bot, DecisionRequest, MatchInfo
from sdk.budget import DEFAULT_BUDGET, DecisionStats
from sdk.decide import decide_inline
from sdk.mirror import Mirror
from sdk.records import Decision, Record
from sdk.replay.numbering import hand_label, in_hand
from sdk.review.board import Board, board_of
from sdk.review.candidates import Candidate, after_counts, explain, measure, value_cost
from sdk.review.program import ProgramAdviser
from sdk.view import GameView

__all__ = ["DecisionReview", "Review", "after_counts", "review_record"]

REFERENCE = "bots.greedy"
"""The reference bot every review also asks."""


@dataclass(slots=True)
class DecisionReview:
    """One decision of the seat under review."""

    decision: Decision
    bot_answer: Action
    reference_answer: Action
    shanten_before: int
    shanten_after: int
    waits_before: list[Tile]
    waits_after: list[Tile]
    unseen: list[int]
    """Unseen copies of each kind (the wall and the other hands), by the seat's view."""
    board: Board | None = None
    """The table as the seat saw it when asked."""
    candidates: list[Candidate] = field(default_factory=list)
    """The legal actions with their values, best first (see :attr:`explained`)."""
    explained: bool = False
    """Whether :attr:`candidates` come from the reference's ``explain`` (else they
    are the shanten and improving tiles measured here)."""
    value_cost: float | None = None
    """Expected points the choice cost by the reference's values: value(best) -
    value(chosen)."""
    shape_loss: tuple[int, int] = (0, 0)
    """Without the reference's values: how much worse the played action left the hand
    than the best measured candidate, as (shanten more, improving tiles fewer)."""
    hand_step: int = 0
    """The step within the hand, as people and the viewer count it
    (:mod:`sdk.replay.numbering`)."""
    cost: int | None = None
    """Points this decision cost, when it can be told (see the module docstring)."""
    note: str = ""

    @property
    def step(self) -> int:
        """The record step (events before, over the match) at which it was asked."""
        return self.decision.after_event

    def add_note(self, text: str) -> None:
        """Add ``text`` to :attr:`note` (after what it already says)."""
        self.note = f"{self.note}; {text}" if self.note else text

    @property
    def where(self) -> str:
        """``"hand 3 step 12"``: the place people paste into ``sdk.replay --hand 3
        --step 12`` or the viewer's ``#hand=3&step=12``."""
        return f"{hand_label(self.hand)} step {self.hand_step}"

    @property
    def hand(self) -> int:
        """The hand the decision belongs to."""
        return self.decision.hand

    @property
    def bot_agrees(self) -> bool:
        """Whether the reviewed bot's answer is the action that was applied."""
        return self.bot_answer is self.decision.applied

    @property
    def reference_agrees(self) -> bool:
        """Whether the reference bot's answer is the action that was applied."""
        return self.reference_answer is self.decision.applied


@dataclass(slots=True)
class Review:
    """The review of ``seat``'s decisions in a record by ``bot`` (and ``reference``)."""

    record: Record
    seat: int
    bot: str
    reference: str
    decisions: list[DecisionReview] = field(default_factory=list)

    @property
    def explained(self) -> bool:
        """Whether the reference gave values (``explain``) for these decisions."""
        return any(d.explained for d in self.decisions)

    def costliest(self, n: int = 10) -> list[DecisionReview]:
        """The decisions that cost the most: by the reference's values when it gave
        them (value lost), then by what happened (points paid or let go), then the
        other noted ones (fallbacks)."""
        noted = [
            d
            for d in self.decisions
            if (d.value_cost or 0) > 0 or d.cost is not None or d.note or d.shape_loss > (0, 0)
        ]
        return sorted(noted, key=_costly)[:n]

    def agreement(self) -> tuple[int, int, int]:
        """(decisions, the bot's same answers, the reference's same answers)."""
        return (
            len(self.decisions),
            sum(d.bot_agrees for d in self.decisions),
            sum(d.reference_agrees for d in self.decisions),
        )


def _costly(d: DecisionReview) -> tuple[float, int, int, int, int]:
    """The costliest first: value lost, points lost, then shape lost; then in order."""
    more, fewer = d.shape_loss
    return (-(d.value_cost or 0), -(d.cost or 0), -more, -fewer, d.step)


_shanten = shanten_counts
"""Every hand the reviewer measures holds 3n+1 or 3n+2 concealed tiles."""


def _waits(counts: Sequence[int], meld_tiles: Sequence[int]) -> list[Tile]:
    if sum(counts) % 3 != 1 or shanten_counts(counts) != 0:
        return []
    return [Tile(t) for t in waits_counts(counts, meld_tiles)]


class _Watcher:
    """The bots under review, following the seat's projected events."""

    def __init__(self, record: Record, seat: int, advisers: Sequence[Bot | ProgramAdviser]) -> None:
        self.seat = seat
        self.advisers = advisers
        self.bots = [b for b in advisers if isinstance(b, Bot)]
        self.programs = [p for p in advisers if isinstance(p, ProgramAdviser)]
        self.mirror = Mirror(seat)
        self.stats = [DecisionStats() for _ in advisers]
        timing = record.header.timing
        for bot in self.bots:
            bot.on_match_start(
                MatchInfo(
                    seat=seat, hands=record.header.hands, decision_seconds=timing.decision_seconds
                )
            )

    def feed(self, event: Event) -> None:
        for program in self.programs:
            program.feed(event)
        seen = project(event, self.seat)
        if seen is None:
            return
        self.mirror.apply(seen)
        window = self.mirror.window
        for bot in self.bots:
            if bot.wants("on_event"):
                bot.on_event(window, seen)
            if type(seen) is Deal and seen.seat == (window.dealer + 3) % 4:
                bot.on_hand_start(window)
            elif type(seen) is HandEnd:
                bot.on_hand_end(window, seen.result)
            elif type(seen) is MatchEnd:
                bot.on_match_end(window, tuple(seen.scores))

    def ask(self, legal: tuple[Action, ...], claim_tile: int | None) -> list[Action]:
        window: GameView = self.mirror.window
        answers = []
        for adviser, stats in zip(self.advisers, self.stats, strict=True):
            request = self.request(legal)
            if isinstance(adviser, ProgramAdviser):  # no answer: the default, as a referee
                answers.append(adviser.ask(legal, claim_tile) or request.default())
            else:
                answers.append(decide_inline(adviser, window, request, stats))
        return answers

    def request(self, legal: tuple[Action, ...]) -> DecisionRequest:
        """A request for ``legal`` now, with the default budget."""
        deadline = time.monotonic() + DEFAULT_BUDGET.reply_within
        return DecisionRequest(legal, deadline, "", self.mirror.window.drawn_tile)

    def explain(self, legal: tuple[Action, ...]) -> tuple[list[Candidate] | None, str]:
        """The reference's candidates by its ``explain`` (``None`` without one, or for a
        program), and a note when it failed."""
        reference = self.advisers[-1]
        if isinstance(reference, ProgramAdviser):
            return None, ""
        try:
            return explain(reference, self.mirror.window, self.request(legal)), ""
        except Exception as exc:  # a bot's own error must not end the review
            return None, f"the reference's explain failed: {type(exc).__name__}: {exc}"

    def close(self) -> None:
        """Stop the programs."""
        for program in self.programs:
            program.close()


def review_record(
    record: Record, seat: int, bot: BotSource, reference: BotSource = REFERENCE
) -> Review:
    """Review ``seat``'s decisions in ``record`` with ``bot`` and ``reference`` (module
    specs as for the arena, or Bot classes/factories)."""
    makers = [load_bot(bot), load_bot(reference)]
    review = Review(record, seat, makers[0].label, makers[1].label)
    if record.perspective not in (None, seat):
        raise ValueError(
            f"this record shows seat {record.perspective}'s side only, not seat {seat}'s"
        )
    watcher = _Watcher(record, seat, [_adviser(m, record, seat) for m in makers])
    try:
        fed = 0
        for decision in record.decisions:
            while fed < decision.after_event:
                watcher.feed(record.events[fed])
                fed += 1
            if decision.seat == seat:
                item = _review_one(watcher, decision)
                item.hand_step = in_hand(record, decision.after_event)[1]
                review.decisions.append(item)
    finally:
        watcher.close()
    _mark_deal_ins(review)
    return review


def _adviser(maker: BotFactory, record: Record, seat: int) -> Bot | ProgramAdviser:
    """A fresh bot, or for a program (``cmd:``) a :class:`ProgramAdviser` following the
    seat; a program needs the referee's full record (the physical tile ids)."""
    if maker.program is None:
        return maker.make(record.header.seed)
    if record.perspective is not None:
        raise ValueError("a program can review a full game record only, not one seat's side")
    limit = record.header.timing.decision_seconds
    return ProgramAdviser(maker.program, seat, record.header.seed, limit)


def _review_one(watcher: _Watcher, decision: Decision) -> DecisionReview:
    seat = decision.seat
    view = watcher.mirror.window
    seen = watcher.mirror.view
    counts = list(view.counts)
    meld_tiles = [t for m in view.melds() for t in m.tiles]
    claimed = seen.public.pending_tile if seen.public.turn != seat else None
    bot_answer, reference_answer = watcher.ask(decision.legal, claimed)
    if decision.applied is WIN:
        after, waits_after = -1, []
    else:
        rest = after_counts(counts, decision.applied, claimed)
        after, waits_after = _shanten(rest), _waits(rest, meld_tiles)
    item = DecisionReview(
        decision,
        bot_answer,
        reference_answer,
        _shanten(counts),
        after,
        _waits(counts, meld_tiles),
        waits_after,
        view.unseen_counts(),
        board_of(view),
    )
    _candidates(item, watcher, counts, claimed)
    if WIN in decision.legal and decision.applied is not WIN:
        tile = seen.own.drawn if claimed is None else claimed
        discarder = None if claimed is None else seen.public.turn
        score = score_win(own_situation(seen.public, seen.own, tile, discarder))  # type: ignore[arg-type]
        item.cost = int(score.payments[seat])
        item.add_note(f"let a win on {Tile(tile)} go by (worth {score.payments[seat]:+d})")  # type: ignore[arg-type]
    elif decision.fallback:
        item.add_note(f"fallback ({decision.outcome.value}): {decision.applied} was applied")
    return item


def _candidates(
    item: DecisionReview, watcher: _Watcher, counts: list[int], claimed: int | None
) -> None:
    """The reference's values for the decision (and its cost), or the measured ones."""
    legal = item.decision.legal
    rows, failed = watcher.explain(legal)
    if rows:
        item.candidates, item.explained = rows, True
        item.value_cost = value_cost(rows, item.decision.applied)
        return
    view = watcher.mirror.window
    outside = [v - c for v, c in zip(view.visible_counts(), counts, strict=True)]
    item.candidates = measure(counts, legal, claimed, outside)
    if failed:
        item.add_note(failed)
    item.shape_loss = _shape_loss(item.candidates, item.decision.applied)


def _shape_loss(rows: Sequence[Candidate], chosen: Action) -> tuple[int, int]:
    """(shanten more, improving tiles fewer) of ``chosen`` than the best row."""
    played = next((v for a, v in rows if a is chosen), None)
    if played is None or not rows:
        return (0, 0)
    best = rows[0][1]
    more = int(played["shanten"] - best["shanten"])
    return (more, 0) if more else (0, int(best["accept"] - played["accept"]))


def _mark_deal_ins(review: Review) -> None:
    """A discard right before a win on it by another seat dealt in."""
    record, seat = review.record, review.seat
    by_step = {d.step: d for d in review.decisions}
    for i, event in enumerate(record.events):
        if type(event) is Win and event.from_seat == seat:
            discard_step = _discard_decision_step(record, seat, i)
            item = by_step.get(discard_step) if discard_step is not None else None
            if item is None:
                continue
            paid = next((-h.result.payments[seat] for h in record.hands if h.end_event > i), 0)
            item.cost = paid
            item.add_note(f"dealt in: {event.tile} won by seat {event.seat} (paid {paid})")


def _discard_decision_step(record: Record, seat: int, win_index: int) -> int | None:
    """The step of ``seat``'s last discard decision before event ``win_index``."""
    steps = [
        d.after_event
        for d in record.decisions
        if d.seat == seat and d.after_event < win_index and d.applied.kind is ActionKind.DISCARD
    ]
    return steps[-1] if steps else None


def unseen_text(unseen: Sequence[int]) -> str:
    """Unseen copies as ``1m×3 2m×4 ...`` (kinds with none left out).

    >>> unseen_text([4, 0] + [0] * 32)
    '1m×4'
    """
    return " ".join(f"{Tile(k)}×{n}" for k, n in zip(range(KIND_COUNT), unseen, strict=True) if n)
