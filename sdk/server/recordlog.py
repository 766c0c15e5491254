"""A stored match as a game record (``docs/RECORDS.md``): what
``GET /v1/matches/{id}/log.jsonl`` serves, written by the one writer of
:mod:`sdk.records`.

The server stores the referee's events and its decision records (who was asked, when,
the raw reply, what was applied, the outcome). The legal actions of each decision are
not stored: they are recomputed here by replaying the applied actions on the referee
from the match's seed, which also checks that the stored log is consistent.

The server's clock is used for timing fields only: ``started_at`` is when the first
request went out, ``ended_at`` when the last reply came, ``ms`` each decision's latency.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from protocol.actions import Action
from protocol.claim_tiers import ClaimTiers
from protocol.events import Event, HandStart, event_from_json
from protocol.hand_state import HandState
from protocol.match import hand_plan
from protocol.view import CLAIMS
from protocol.wall import hand_seed, shuffled_wall
from sdk.records import (
    FALLBACKS,
    Decision,
    Header,
    Origin,
    Outcome,
    Record,
    SeatInfo,
    Timing,
    build_record,
)
from sdk.records.writer import canonical_decisions
from sdk.server.store import StoredMatch

__all__ = ["StoredDecisions", "record_of", "record_parts"]


def record_of(stored: StoredMatch) -> Record:
    """The record of a finished or aborted match read from the store."""
    record, decisions = record_parts(stored)
    return replace(record, decisions=decisions.every())


def record_parts(stored: StoredMatch) -> tuple[Record, StoredDecisions]:
    """The record of ``stored`` without its decisions, and its decisions to replay hand
    by hand when they are wanted: the viewer shows one hand at a time, and replaying a
    whole 400-hand match was most of the time its first page took."""
    row = stored.row
    config = row.config
    decision_seconds = float(config.get("timing", {}).get("decision_ms", 3000)) / 1000
    first_dealer = int(config.get("first_dealer", 0))
    events = [event_from_json(e) for e in stored.events]
    sent = [d["sent_at"] for d in stored.decisions if d.get("sent_at") is not None]
    replied = [d["replied_at"] for d in stored.decisions if d.get("replied_at") is not None]
    header = Header(
        seed=row.seed,
        hands=row.hands,
        seats=tuple(SeatInfo(s, s, name) for s, name in enumerate(row.seat_names)),
        first_dealer=first_dealer,
        rules=str(config.get("rules", "tcga-2024")),
        timing=Timing(decision_seconds, min(0.2, decision_seconds / 4), min(sent, default=None)),
        origin=Origin("server", match_id=row.match_id, table_id=row.table_id),
    )
    status = "finished" if stored.status == "finished" else "aborted"
    record = build_record(header, events, (), status=status, ended_at=max(replied, default=None))
    return record, StoredDecisions(stored, record.events)


class StoredDecisions:
    """A stored match's decision records with their legal actions, replayed on the
    referee one hand at a time (:meth:`hand`, kept once replayed; :meth:`every`).

    The legal actions are not stored: each hand is dealt again from the match's seed
    (its dealer and round wind by R16, the scores its ``hand_start`` carries) and the
    applied actions replayed on it, which also checks that the stored log is consistent.
    Claim windows are replayed as the table asked them (:mod:`protocol.claim_tiers`: the
    ``tiered`` seats, those on the line protocol, one tier at a time, so a seat may have a
    record per tier and none for a tier it was never asked)."""

    def __init__(self, stored: StoredMatch, events: Sequence[Event]) -> None:
        config = stored.row.config
        self.seed = stored.row.seed
        self.first_dealer = int(config.get("first_dealer", 0))
        self.tiered = {
            int(s["seat"]) for s in config.get("seats", []) if s.get("transport") == "line"
        }
        self.events = events
        self.starts = {e.hand: e for e in events if type(e) is HandStart}
        self._stored: dict[int, list[dict[str, Any]]] = {}
        for data in stored.decisions:
            self._stored.setdefault(int(data["hand"]), []).append(data)
        self._replayed: dict[int, tuple[Decision, ...]] = {}

    def hand(self, hand: int) -> tuple[Decision, ...]:
        """The decisions of hand ``hand`` (0-based) as the record holds them
        (:func:`sdk.records.writer.canonical_decisions`)."""
        found = self._replayed.get(hand)
        if found is None:
            found = self._replayed[hand] = canonical_decisions(self._replay(hand), self.events)
        return found

    def every(self) -> tuple[Decision, ...]:
        """Every decision of the match, as the record holds them."""
        return tuple(d for h in sorted(self._stored) for d in self.hand(h))

    def _replay(self, hand: int) -> list[Decision]:
        stored = self._stored.get(hand, [])
        start = self.starts.get(hand)
        if not stored or start is None:
            return [_decision(data, int(data["seat"]), (), _applied(data)) for data in stored]
        dealer, round_wind = hand_plan(hand, self.first_dealer)
        wall = shuffled_wall(hand_seed(self.seed, hand))
        state = HandState.new(wall, dealer, round_wind, hand_no=hand, scores=start.scores)
        return _replayed(state, stored, self.tiered)


def _applied(data: Mapping[str, Any]) -> Action:
    return Action.from_json(data["applied"])


def _replayed(
    state: HandState, stored: Sequence[Mapping[str, Any]], tiered: set[int]
) -> list[Decision]:
    """The stored decision records of one hand with their legal actions, replayed on
    ``state`` (the hand as dealt)."""
    out = []
    tiers: ClaimTiers | None = None
    offered: dict[int, tuple[Action, ...]] = {}
    for data in stored:
        seat = int(data["seat"])
        applied = _applied(data)
        if tiers is None and not state.is_over and state.public.phase == CLAIMS:
            tiers = ClaimTiers(state.pending(), tiered)
            offered = dict(tiers.asks())
        if tiers is None:
            legal = state.pending().get(seat, ())
            out.append(_decision(data, seat, legal, applied))
            if not state.is_over and seat in state.pending():
                state.apply(seat, applied)
            continue
        legal = offered.pop(seat, ())
        out.append(_decision(data, seat, legal, applied))
        if applied in legal:
            tiers.answer(seat, applied)
            offered.update(tiers.asks())
        if tiers.done:
            for s, action in tiers.decisions().items():
                state.apply(s, action)
            tiers = None
    return out


def _decision(
    data: Mapping[str, Any], seat: int, legal: tuple[Action, ...], applied: Action
) -> Decision:
    outcome = Outcome(data["outcome"])
    latency = data.get("latency_ms")
    return Decision(
        hand=int(data["hand"]),
        seat=seat,
        after_event=int(data["after_event"]),
        legal=legal,
        answer=None if outcome in FALLBACKS else applied,
        applied=applied,
        outcome=outcome,
        ms=None if latency is None else float(latency),
        request_id=str(data.get("request_id", "")),
        raw=data.get("raw"),
        reason=str(data.get("reason", "")),
        sent_at=data.get("sent_at"),
        replied_at=data.get("replied_at"),
    )
