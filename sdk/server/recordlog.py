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

from collections.abc import Mapping
from typing import Any

from protocol.actions import Action
from protocol.claim_tiers import ClaimTiers
from protocol.events import event_from_json
from protocol.match import Match
from protocol.view import CLAIMS
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
from sdk.server.store import StoredMatch

__all__ = ["record_of"]


def record_of(stored: StoredMatch) -> Record:
    """The record of a finished or aborted match read from the store."""
    row = stored.row
    config = row.config
    decision_seconds = float(config.get("timing", {}).get("decision_ms", 3000)) / 1000
    first_dealer = int(config.get("first_dealer", 0))
    events = [event_from_json(e) for e in stored.events]
    tiered = {int(s["seat"]) for s in config.get("seats", []) if s.get("transport") == "line"}
    decisions = _decisions(stored.decisions, row.seed, row.hands, first_dealer, tiered)
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
    return build_record(
        header, events, decisions, status=status, ended_at=max(replied, default=None)
    )


def _decisions(
    stored: list[dict[str, Any]], seed: int, hands: int, first_dealer: int, tiered: set[int]
) -> list[Decision]:
    """The stored decision records with their legal actions (replayed on the referee).
    Claim windows are replayed as the table asked them (:mod:`protocol.claim_tiers`:
    the ``tiered`` seats one tier at a time, so a seat may have a record per tier and
    none for a tier it was never asked)."""
    match = Match.new(seed, hands, first_dealer=first_dealer)
    out = []
    tiers: ClaimTiers | None = None
    offered: dict[int, tuple[Action, ...]] = {}
    for data in stored:
        seat = int(data["seat"])
        applied = Action.from_json(data["applied"])
        if tiers is None and not match.is_over and match.current.public.phase == CLAIMS:
            tiers = ClaimTiers(match.pending(), tiered)
            offered = dict(tiers.asks())
        if tiers is None:
            legal = match.pending().get(seat, ())
            out.append(_decision(data, seat, legal, applied))
            if not match.is_over and seat in match.pending():
                match.apply(seat, applied)
            continue
        legal = offered.pop(seat, ())
        out.append(_decision(data, seat, legal, applied))
        if applied in legal:
            tiers.answer(seat, applied)
            offered.update(tiers.asks())
        if tiers.done:
            for s, action in tiers.decisions().items():
                match.apply(s, action)
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
