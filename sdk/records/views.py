"""Every seat's view at every step of a record, rebuilt by the referee's own handlers.

Step ``k`` is the table after the first ``k`` events of the match (step 0: nothing has
happened). A seat's view is a :class:`protocol.view.SeatView` fed that seat's projection
of the events (:func:`protocol.events.project`), exactly as a client mirror keeps it, so
it equals the referee's :meth:`~protocol.hand_state.HandState.view` at the same moment.
The spectator's view (:func:`public_at`) is built from events projected for nobody: it
holds no concealed tile of any seat and no wall (a winner's hand is shown by its
``win`` event, as the rules reveal it).

:func:`verify_record` replays the decisions through the referee and checks that they
give the recorded events and legal actions.

>>> from protocol.match import Match
>>> from sdk.records.model import Header, SeatInfo
>>> from sdk.records.writer import build_record
>>> m = Match.new(seed=1, hands=1)
>>> rec = build_record(Header(1, 1, tuple(SeatInfo(s, s, "b") for s in range(4))), m.events, [])
>>> views = views_at(rec, rec.steps - 1)
>>> views[0] == m.current.view(0), len(views[2].hand), public_at(rec, 2).concealed[:2]
(True, 16, [17, 0])
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from protocol.actions import PASS, Action
from protocol.claim_tiers import ClaimTiers
from protocol.events import Event, HandStart, project
from protocol.match import Match
from protocol.view import PublicState, SeatView, apply_public
from sdk.records.errors import CorruptRecordError
from sdk.records.model import Decision, Record

__all__ = ["NOBODY", "iter_views", "public_at", "spectator_events", "verify_record", "views_at"]

NOBODY = -1
"""The seat number a spectator projects events for: every seat's secrets stay hidden."""


def iter_views(record: Record) -> Iterator[tuple[int, tuple[SeatView, ...]]]:
    """``(step, views)`` for every step from 0 to the last, the four seats' views at that
    step. The views are updated in place as the iteration goes on: copy one to keep it.
    For a seat's record (``record.perspective``) only that seat's view is kept up; the
    others stay empty (their tiles were never seen)."""
    views = tuple(SeatView(seat) for seat in range(4))
    fed = _fed(record, views)
    yield 0, views
    for step, event in enumerate(record.events, start=1):
        _apply(fed, event)
        yield step, views


def _fed(record: Record, views: tuple[SeatView, ...]) -> Sequence[SeatView]:
    """The views a record's events can rebuild: all four, or its perspective's."""
    return views if record.perspective is None else (views[record.perspective],)


def _apply(views: Sequence[SeatView], event: Event) -> None:
    for view in views:
        seen = project(event, view.seat)
        if seen is not None:
            view.apply(seen)


def views_at(record: Record, step: int) -> tuple[SeatView, ...]:
    """The four seats' views after the first ``step`` events (fresh objects). Only the
    current hand's events are applied: a ``hand_start`` resets every view. For a seat's
    record only that seat's view is rebuilt (see :func:`iter_views`)."""
    _check_step(record, step)
    views = tuple(SeatView(seat) for seat in range(4))
    fed = _fed(record, views)
    for event in record.events[_hand_start_before(record, step) : step]:
        _apply(fed, event)
    return views


def _hand_start_before(record: Record, step: int) -> int:
    """The index of the last ``hand_start`` among the first ``step`` events (or 0)."""
    events = record.events
    for i in range(step - 1, -1, -1):
        if type(events[i]) is HandStart:
            return i
    return 0


def spectator_events(record: Record, step: int | None = None) -> list[Event]:
    """The first ``step`` events (all by default) as a spectator may see them."""
    events = record.events if step is None else record.events[:step]
    out = []
    for event in events:
        seen = project(event, NOBODY)
        if seen is not None:
            out.append(seen)
    return out


def public_at(record: Record, step: int) -> PublicState:
    """What everyone knows after ``step`` events: rivers, melds, counts, scores."""
    _check_step(record, step)
    public = PublicState()
    for event in record.events[_hand_start_before(record, step) : step]:
        seen = project(event, NOBODY)
        if seen is not None:
            apply_public(public, seen)
    return public


def _check_step(record: Record, step: int) -> None:
    if not 0 <= step < record.steps:
        raise IndexError(f"step {step} is not in this record (steps 0..{record.steps - 1})")


def verify_record(record: Record) -> None:
    """Replay the record's decisions through the referee (:class:`protocol.match.Match`
    from the header's seed) and check the recorded events and legal actions; raise
    :class:`~sdk.records.errors.CorruptRecordError` at the first difference. A seat's
    record (``record.perspective``) cannot be replayed (the wall is unknown): a
    :class:`ValueError` says so."""
    if record.perspective is not None:
        raise ValueError("a record of one seat's side cannot be replayed through the referee")
    h = record.header
    match = Match.new(h.seed, h.hands, first_dealer=h.first_dealer)
    decisions = record.decisions
    i = 0
    while i < len(decisions):
        _check_after(decisions[i].after_event, i, match)
        if _claim_window(match, decisions[i].seat):
            i = _verify_claims(match, decisions, i)
            continue
        _verify_one(match, decisions[i], i, match.pending().get(decisions[i].seat))
        match.apply(decisions[i].seat, decisions[i].applied)
        i += 1
    played = match.events
    for i, event in enumerate(record.events):
        if i >= len(played) or played[i] != event:
            raise CorruptRecordError(_SOURCE, 0, f"the decisions do not give event {i}")
    finished = record.summary is not None and record.summary.status == "finished"
    if finished and len(played) != len(record.events):
        raise CorruptRecordError(_SOURCE, 0, "the record ends before the match does")


_SOURCE = "<record>"


def _check_after(after_event: int, i: int, match: Match) -> None:
    if after_event != len(match.events):
        detail = f"decision {i} is after event {after_event}, not {len(match.events)}"
        raise CorruptRecordError(_SOURCE, 0, detail)


def _claim_window(match: Match, seat: int) -> bool:
    return not match.is_over and PASS in match.pending().get(seat, ())


def _verify_one(match: Match, decision: Decision, i: int, legal: tuple[Action, ...] | None) -> None:
    """Check one decision's legal actions against ``legal`` (what the referee offered),
    and that the referee takes its applied action."""
    if legal is None or (decision.legal and tuple(decision.legal) != legal):
        raise CorruptRecordError(
            _SOURCE, 0, f"decision {i}: seat {decision.seat}'s legal actions differ"
        )
    if decision.applied not in legal:
        raise CorruptRecordError(_SOURCE, 0, f"decision {i}: {decision.applied} is not legal")


def _verify_claims(match: Match, decisions: Sequence[Decision], start: int) -> int:
    """Check the decisions of one claim window, asked at once or tier by tier
    (:mod:`protocol.claim_tiers`: a line-protocol seat is asked each tier apart, so it
    may have a decision per tier, or none when a higher tier took the tile); apply the
    window's outcome and return the index of the first decision after it."""
    pending = match.pending()
    after = decisions[start].after_event
    end = start
    while end < len(decisions) and decisions[end].after_event == after:
        end += 1
    window = decisions[start:end]
    tiered = {s for s in pending if _asked_by_tier(s, pending[s], window)}
    tiers = ClaimTiers(pending, tiered)
    offered = dict(tiers.asks())
    for i, decision in enumerate(window, start):
        if tiers.done:
            return _apply_claims(match, tiers, i)
        _verify_one(match, decision, i, offered.pop(decision.seat, None))
        tiers.answer(decision.seat, decision.applied)
        offered.update(tiers.asks())
    if not tiers.done:
        raise CorruptRecordError(_SOURCE, 0, f"the claims after event {after} are not all answered")
    return _apply_claims(match, tiers, end)


def _asked_by_tier(seat: int, legal: tuple[Action, ...], window: Sequence[Decision]) -> bool:
    """Whether ``seat`` was asked tier by tier: not once with everything it could do."""
    mine = [d for d in window if d.seat == seat]
    return len(mine) != 1 or (bool(mine[0].legal) and tuple(mine[0].legal) != legal)


def _apply_claims(match: Match, tiers: ClaimTiers, next_index: int) -> int:
    for seat, action in tiers.decisions().items():
        match.apply(seat, action)
    return next_index
